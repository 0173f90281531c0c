import test from 'ava'
import { utimesSync } from 'node:fs'
import { join } from 'node:path'
import { doctor } from '../src-ts/index.js'
import { assistant, userText, writeTree } from './helpers/transcripts.js'

function streamed(n: number): string[] {
  const out: string[] = []
  for (let i = 0; i < n; i++) {
    out.push(
      assistant({ messageId: `m${i}`, output: 3 }),
      assistant({ messageId: `m${i}`, output: 90, stop: 'end_turn' }),
    )
  }
  return out
}

test('a healthy transcript is clean', async (t) => {
  const root = writeTree({ 'p/s.jsonl': [userText('hi'), ...streamed(15)] })
  const r = await doctor({ paths: [root] })
  t.true(r.clean)
  t.is(r.totals.assistantEntries, 30)
  t.is(r.totals.distinctRequests, 15)
  t.is(r.totals.duplicatesCollapsed, 15)
  t.deepEqual(r.unknownTypes, [])
})

test('bad JSON, non-object lines and a torn tail are flagged with line numbers', async (t) => {
  const root = writeTree({
    'p/s.jsonl': `${userText('hi')}\n{broken\n[1]\n${assistant({ messageId: 'a', output: 1 })}\n{"type":"assis`,
  })
  const r = await doctor({ paths: [root] })
  t.false(r.clean)
  const codes = r.files[0].findings.filter((f) => f.severity === 'flag').map((f) => f.code)
  // The non-object line is damage `repair` does not mend: the file is flagged as not repairable.
  t.deepEqual(codes, ['bad-json', 'non-object', 'torn-tail', 'not-repairable'])
  t.regex(r.files[0].findings[0].message, /line 2/)
  t.regex(
    r.files[0].findings.find((f) => f.code === 'not-repairable')!.message,
    /cannot be repaired safely: line 3: valid JSON that is not an object/,
  )
})

test('zero duplicates collapsed on many assistant entries flags the dedupe key', async (t) => {
  // Every entry has its own requestId and message.id: streaming fragments no longer share a key.
  const lines = Array.from({ length: 25 }, (_, i) => assistant({ messageId: `m${i}`, output: i + 1 }))
  const r = await doctor({ paths: [writeTree({ 'p/s.jsonl': lines })] })
  t.true(r.files[0].findings.some((f) => f.code === 'dedupe-key' && f.severity === 'flag'))
})

test('files past the cleanup age inside a Claude projects folder are flagged', async (t) => {
  const config = writeTree({
    'settings.json': JSON.stringify({ cleanupPeriodDays: 10 }),
    'projects/p/s.jsonl': streamed(2),
    'projects/p/t.jsonl': streamed(2),
  })
  const now = Date.now()
  const old = (now - 12 * 86_400_000) / 1000
  utimesSync(join(config, 'projects/p/s.jsonl'), old, old)
  const r = await doctor({ env: { CLAUDE_CONFIG_DIR: config }, now })
  t.is(r.cleanupPeriodDays, 10)
  t.is(r.flagged, 1)
  const f = r.files.find((x) => x.path.endsWith('s.jsonl'))!
  t.regex(f.findings[0].message, /12 days ago, past Claude Code's 10-day cleanup/)
})

test('unknown record types are listed; a file of only unknown types is a foreign format', async (t) => {
  const root = writeTree({
    'p/a.jsonl': [userText('hi'), JSON.stringify({ type: 'future-thing', uuid: 'f' }), ...streamed(1)],
    'p/codex.jsonl': [
      JSON.stringify({ type: 'session_meta', payload: {} }),
      JSON.stringify({ type: 'response_item', payload: {} }),
    ],
  })
  const r = await doctor({ paths: [root] })
  t.deepEqual(r.unknownTypes.sort(), ['future-thing', 'response_item', 'session_meta'])
  const a = r.files.find((f) => f.path.endsWith('a.jsonl'))!
  t.deepEqual(
    a.findings.map((f) => [f.severity, f.code]),
    [['info', 'unknown-types']],
  )
  const codex = r.files.find((f) => f.path.endsWith('codex.jsonl'))!
  t.true(codex.findings.some((f) => f.code === 'foreign-format' && f.severity === 'flag'))
})
