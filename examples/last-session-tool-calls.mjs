#!/usr/bin/env node
// The tool calls of the last session: time, tool and its main argument, in the order they ran.
//   node examples/last-session-tool-calls.mjs [PROJECTS_DIR]
import { listSessions, records, isAssistantRecord } from 'claude-jsonl'

const [last] = (await listSessions({ projects: process.argv[2], recent: 1 })).sessions
if (!last) {
  console.error('no session found')
  process.exit(1)
}
console.log(`${last.sessionId} (${last.title ?? 'untitled'})`)
for await (const item of records(last.path, { types: ['assistant'], activeChain: true, problems: false })) {
  if (!isAssistantRecord(item.record)) continue
  for (const block of item.record.message.content) {
    if (block.type !== 'tool_use') continue
    const input = block.input
    const main =
      input.file_path ?? input.command ?? input.pattern ?? input.url ?? input.query ?? input.description ?? ''
    console.log(`${item.record.timestamp ?? ''}  ${block.name}  ${String(main).split('\n')[0].slice(0, 100)}`)
  }
}
