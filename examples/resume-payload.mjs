#!/usr/bin/env node
// What Claude Code sends when it resumes a session: one line per API message (role, block types,
// characters of JSON, the lines it came from), then the totals and any problem with the file.
//   node examples/resume-payload.mjs SESSION [PROJECTS_DIR]
// SESSION is a transcript path, a session uuid or a unique prefix of one.
import { conversation, resolveSession } from 'claude-jsonl'

const [session, projects] = process.argv.slice(2)
if (!session) {
  console.error('usage: resume-payload.mjs SESSION [PROJECTS_DIR]')
  process.exit(2)
}
const { messages, leaf, dropped, problems } = await conversation(resolveSession(session, { projects }).path)
let chars = 0
for (const [k, m] of messages.entries()) {
  const size = JSON.stringify(m.content).length
  chars += size
  const kinds = typeof m.content === 'string' ? 'string' : m.content.map((b) => b.type).join(',')
  console.log(
    `${String(k + 1).padStart(4)}  ${m.role.padEnd(9)}  ${kinds}  ${size} chars  lines ${m.records.map((r) => r.line).join(',')}`,
  )
}
console.log(`${messages.length} messages, ${chars} characters of content, resumed from line ${leaf?.line ?? '-'}`)
if (dropped.length > 0) console.log(`${dropped.length} records on the chain not sent`)
for (const p of problems) console.log(`problem: ${p.kind}${p.kind === 'bad-lines' ? ` (${p.count})` : ''}`)
