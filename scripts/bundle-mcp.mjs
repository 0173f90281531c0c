#!/usr/bin/env node
// Bundles the MCP SDK and zod into dist/src-ts/integrations/mcp-sdk.js, in place of the
// re-exports tsc wrote there: `claude-jsonl mcp` then loads one file instead of the SDK's
// hundreds (most of a second of Node's module loading, against a start-up target of 300 ms).
// Run after tsc (npm run build:ts does); without it the server works the same, only slower.
import { build } from 'esbuild'
import { existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const target = join(root, 'dist', 'src-ts', 'integrations', 'mcp-sdk.js')
if (!existsSync(target)) {
  console.error(`bundle-mcp: ${target} is missing (run tsc first)`)
  process.exit(1)
}
await build({
  entryPoints: [target],
  outfile: target,
  allowOverwrite: true,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  legalComments: 'inline',
  logLevel: 'warning',
  // The SDK's CommonJS dependencies (ajv) call require(): give the ES module one.
  banner: {
    js: "import { createRequire as __cjRequire } from 'node:module'; const require = __cjRequire(import.meta.url);",
  },
})
