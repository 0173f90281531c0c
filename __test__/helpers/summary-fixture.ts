// A small conversation with planted facts every summary must carry: a user constraint, a
// TodoWrite list, a failed Bash command, a rejected option, file edits, thinking, a prior
// compact summary; and the summary inputs of all its conversation records.
import native from '../../src-ts/native.js'
import type { TranscriptIndex } from '../../src-ts/native.js'
import { readSummaryInputs, SummaryInputs } from '../../src-ts/compress/summary-inputs.js'

const SESSION = '5b8a2c1e-7d3f-4e6a-9b0c-1d2e3f4a5b6c'
let clock = Date.parse('2026-04-01T10:00:00.000Z')
let last: string | null = null
let n = 0
function rec(
  type: 'user' | 'assistant',
  message: unknown,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  const uuid = `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`
  const r = {
    parentUuid: last,
    isSidechain: false,
    type,
    message,
    uuid,
    timestamp: new Date((clock += 1000)).toISOString(),
    sessionId: SESSION,
    ...extra,
  }
  last = uuid
  return r
}
const user = (content: unknown, extra?: Record<string, unknown>) => rec('user', { role: 'user', content }, extra)
const said = (content: unknown[]) =>
  rec('assistant', { id: `msg_${n}`, role: 'assistant', model: 'claude-opus-4-7', content })
const tool = (id: string, name: string, input: unknown) => said([{ type: 'tool_use', id, name, input }])
const result = (id: string, content: string, isError = false, toolUseResult?: unknown) =>
  user(
    [{ type: 'tool_result', tool_use_id: id, content, is_error: isError }],
    toolUseResult === undefined ? {} : { toolUseResult },
  )

export const PLANTED = {
  constraint: 'Never touch the migrations folder; keep the public API stable.',
  todo: 'Wire the cache into the request path',
  failedCommand: 'npm test -- --grep cache',
  failure: 'AssertionError: expected 3 to equal 4',
  rejected: 'We rejected the SQLite option because it cannot handle concurrent writers.',
  decision: 'I decided to use Redis for the cache because it is already deployed.',
  edited: 'src/cache.ts',
  created: 'src/cache-keys.ts',
  prior: 'Earlier the user set up the project skeleton and chose TypeScript.',
  thinking: 'The root cause is that the key includes a timestamp, so nothing is ever reused.',
  japanese: '日本語の制約：テストを削除しないでください。',
}

/** The planted conversation as JSONL lines (line 1 is a metadata record). */
export function plantedLines(): string[] {
  n = 0
  last = null
  clock = Date.parse('2026-04-01T10:00:00.000Z')
  const records: Record<string, unknown>[] = [
    { type: 'permission-mode', permissionMode: 'default', sessionId: SESSION },
    user(
      `This session is being continued from a previous conversation. ${PLANTED.prior}\n\nIf you need specific details from before compaction, read the full transcript at: /x.jsonl`,
      { isCompactSummary: true },
    ),
    user(`Add a cache to the API. ${PLANTED.constraint}`),
    said([{ type: 'thinking', thinking: PLANTED.thinking, signature: 'c2ln' }]),
    said([{ type: 'text', text: `${PLANTED.decision} ${PLANTED.rejected}` }]),
    tool('toolu_todo', 'TodoWrite', {
      todos: [
        { content: 'Add the cache module', status: 'completed', activeForm: 'Adding' },
        { content: PLANTED.todo, status: 'in_progress', activeForm: 'Wiring' },
      ],
    }),
    result('toolu_todo', 'Todos have been modified successfully.'),
    tool('toolu_write', 'Write', { file_path: PLANTED.created, content: 'export const KEY = 1\n'.repeat(50) }),
    result('toolu_write', 'File created successfully', false, {
      type: 'create',
      filePath: PLANTED.created,
      content: 'x',
    }),
    tool('toolu_edit', 'Edit', { file_path: PLANTED.edited, old_string: 'a', new_string: 'b' }),
    result('toolu_edit', 'The file has been updated.'),
    tool('toolu_bash', 'Bash', { command: PLANTED.failedCommand, description: 'Run the cache tests' }),
    result('toolu_bash', `Exit code 1\n${PLANTED.failure}\n    at cache.test.ts:12`, true),
    user(PLANTED.japanese),
    said([{ type: 'text', text: 'The test still fails; the key is not stable yet, which is a risk for the rollout.' }]),
  ]
  return records.map((r) => JSON.stringify(r))
}

export interface Planted {
  bytes: Buffer
  index: TranscriptIndex
  summaryIndexes: Uint32Array
  inputs: SummaryInputs
}

/** Scans `lines` and reads the summary inputs of every record but the first (metadata). */
export function planted(lines = plantedLines()): Planted {
  const bytes = Buffer.from(lines.join('\n') + '\n')
  const index = native.scanBuffer(bytes)
  const summaryIndexes = Uint32Array.from({ length: index.length - 1 }, (_, i) => i + 1)
  return { bytes, index, summaryIndexes, inputs: readSummaryInputs(bytes, index, summaryIndexes) }
}
