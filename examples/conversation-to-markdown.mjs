#!/usr/bin/env node
// One conversation to Markdown: the turns Claude Code would resume, human and assistant text.
//   node examples/conversation-to-markdown.mjs SESSION [PROJECTS_DIR] > session.md
// SESSION is a transcript path, a session uuid or a unique prefix of one.
import { resolveSession, showSession, renderShow } from 'claude-jsonl'

const [session, projects] = process.argv.slice(2)
if (!session) {
  console.error('usage: conversation-to-markdown.mjs SESSION [PROJECTS_DIR]')
  process.exit(2)
}
const ref = resolveSession(session, { projects })
console.log(renderShow(await showSession(ref.path, {}), 'markdown'))
