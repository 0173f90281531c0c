// Small transcript records for the search tests: a session id, assistant text, a tool call and
// its result, and thinking, each one JSON line; and a runner of the find command.
import { spawnSync, type SpawnSyncReturns } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { REPO, tempDir } from './transcripts.js'

/** Runs `claude-jsonl find ARGS` in a child process with an empty HOME (no real estate). */
export function findCli(): (args: string[]) => SpawnSyncReturns<string> {
  const script = join(tempDir('cj-find-cli-'), 'cli.mjs')
  writeFileSync(
    script,
    `import { runFind } from ${JSON.stringify(join(REPO, 'dist', 'src-ts', 'cli', 'find-command.js'))}\nprocess.exitCode = await runFind(process.argv.slice(2))\n`,
  )
  return (args) =>
    spawnSync(process.execPath, [script, ...args], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH, HOME: tempDir('cj-home-') },
    })
}

/** A session uuid numbered `n`. */
export const S = (n: number) => `${String(n).padStart(8, '0')}-1111-4222-8333-444455556666`

/** Assistant text. */
export function said(text: string, ts = '2026-03-01T10:00:00.000Z'): string {
  return JSON.stringify({
    parentUuid: null,
    type: 'assistant',
    timestamp: ts,
    message: { role: 'assistant', content: [{ type: 'text', text }] },
  })
}

/** A tool result (in a user record) for the call `t1`. */
export function toolResult(text: string): string {
  return JSON.stringify({
    type: 'user',
    timestamp: '2026-03-01T10:01:00.000Z',
    message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: text }] },
  })
}

/** A Bash tool call `t1`. */
export function toolUse(command: string): string {
  return JSON.stringify({
    type: 'assistant',
    timestamp: '2026-03-01T10:00:30.000Z',
    message: { content: [{ type: 'tool_use', id: 't1', name: 'Bash', input: { command } }] },
  })
}

/** A thinking block. */
export function thinking(text: string): string {
  return JSON.stringify({
    type: 'assistant',
    timestamp: '2026-03-01T10:00:10.000Z',
    message: { content: [{ type: 'thinking', thinking: text, signature: 's' }] },
  })
}
