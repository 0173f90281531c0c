// The MCP SDK and zod, in one module: the build bundles this file with them into one script
// (scripts/bundle-mcp.mjs), because loading the SDK's several hundred files one by one costs
// Node most of a second, while one bundled file loads in a fraction of that.
export { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
export { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
export { z } from 'zod'
