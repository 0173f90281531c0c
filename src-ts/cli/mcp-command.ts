// `claude-jsonl mcp`: the MCP server (stdio) over the estate and any archive roots.
import { EXIT } from '../errors.js'
import { defineCommand, text } from './command.js'
import { PROJECTS } from './common-options.js'

export const command = defineCommand({
  name: 'mcp',
  args: '',
  options: {
    projects: PROJECTS,
    archive: text('DIRS', "archive roots to read too, separated by ',' (default $CLAUDE_JSONL_ARCHIVE when set)"),
  },
  description: `An MCP server on stdin/stdout (for Claude Code: claude mcp add claude-jsonl -- claude-jsonl mcp)
with four read-only tools: search_sessions (ranked or literal search, one hit per session with a
snippet), read_session (a session as the client would resume it, paged by turns under the
client's 25k-token tool output limit), list_sessions (recent sessions with titles) and usage
(tokens and cost as stats counts them). Tool failures are tool errors of one line.`,
  exitCodes: 'Exit codes: 0 when the client closes the connection, 2 bad usage.',
  async run({ values }) {
    const { serveMcp } = await import('../integrations/mcp-server.js')
    const raw = values.archive ?? process.env.CLAUDE_JSONL_ARCHIVE ?? ''
    const archives = raw
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '' && !['off', 'none'].includes(s.toLowerCase()))
    const { existsSync } = await import('node:fs')
    await serveMcp({ projects: values.projects, archives: archives.filter((a) => existsSync(a)) })
    return EXIT.ok
  },
})
