#!/usr/bin/env node
// The sessions that edited a given file: every Edit, MultiEdit, Write or NotebookEdit call whose
// file path ends with FILE, per session, newest first.
//   node examples/sessions-that-edited.mjs FILE [PROJECTS_DIR]
import { listSessions, records, isAssistantRecord } from 'claude-jsonl'

const [file, projects] = process.argv.slice(2)
if (!file) {
  console.error('usage: sessions-that-edited.mjs FILE [PROJECTS_DIR]')
  process.exit(2)
}
const EDITS = new Set(['Edit', 'MultiEdit', 'Write', 'NotebookEdit'])
const listing = await listSessions({ projects, recent: Infinity })
for (const s of listing.sessions) {
  let edits = 0
  for await (const item of records(s.path, { types: ['assistant'], problems: false })) {
    if (!isAssistantRecord(item.record)) continue
    for (const block of item.record.message.content) {
      const path = block.type === 'tool_use' ? (block.input.file_path ?? block.input.notebook_path) : undefined
      if (EDITS.has(block.name) && typeof path === 'string' && path.endsWith(file)) edits++
    }
  }
  if (edits > 0)
    console.log(`${s.lastActivity}  ${s.sessionId}  ${edits} edit${edits === 1 ? '' : 's'}  ${s.title ?? ''}`)
}
