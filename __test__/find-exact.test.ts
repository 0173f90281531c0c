import test from 'ava'
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { findExact } from '../src-ts/read/find.js'
import { runFind } from '../src-ts/cli/find-command.js'
import { ClaudeJsonlError } from '../src-ts/errors.js'
import { REAL, userText, writeTree } from './helpers/transcripts.js'
import { findCli, S, said, toolResult, thinking } from './helpers/search-records.js'

function estate() {
  const root = writeTree({
    [`projects/-home-u-app/${S(1)}.jsonl`]: [
      userText('rename parseRecordSpan in crate/core/src/scan/units.rs, then run `cargo t -p x`'),
      said('Done: `read_span_at(f, 0..n)` replaces it. He said "café"\nand left.'),
      said('parseRecordSpan is gone; parseRecordSpan callers updated'),
    ],
    [`projects/-home-u-app/${S(2)}.jsonl`]: [
      userText('look at the logs'),
      toolResult('error in parseRecordSpan at units.rs:42'),
      thinking('maybe parseRecordSpan again'),
    ],
    [`projects/-home-u-web/${S(3)}.jsonl`]: [userText('nothing here')],
    [`projects/-home-u-web/${S(3)}/subagents/agent-a1.jsonl`]: [said('the subagent saw RECORDSPAN twice: RecordSpan')],
  })
  return { root, projects: join(root, 'projects') }
}

test('finds what tokenised search cannot: identifier middles, punctuation, path fragments', async (t) => {
  const { projects } = estate()
  for (const needle of ['RecordSp', '_span_a', 'src/scan/uni', '`cargo t -p', '0..n)']) {
    const r = await findExact(needle, { projects })
    t.true(r.hits.length >= 1, needle)
    t.is(r.hits[0].sessionId, S(1), needle)
    t.true(r.hits[0].snippet.toLowerCase().includes(needle.toLowerCase()), `${needle}: ${r.hits[0].snippet}`)
  }
  t.is((await findExact('units.rs (', { projects })).hits.length, 0)
})

test('one hit per session with its match count; the scope is that of ranked search', async (t) => {
  const { projects } = estate()
  const r = await findExact('recordspan', { projects })
  t.deepEqual(
    r.hits.map((h) => [h.sessionId, h.matches, h.files, h.agentId ?? null]),
    [
      [S(1), 3, 1, null],
      [S(3), 2, 1, 'a1'],
    ],
  )
  t.is(r.scope.matches, 5)
  t.is(r.scope.matchingSessions, 2)
  t.deepEqual(r.scope.searched, { humanText: true, assistantText: true, tools: false, thinking: false })
  t.is(r.scope.index, null)
  // Tool output and thinking only when asked.
  const s2 = async (o: object) =>
    (await findExact('recordspan', { projects, ...o })).hits.find((h) => h.sessionId === S(2))
  t.is(await s2({}), undefined)
  t.is((await s2({ tools: true }))!.matches, 1)
  t.is((await s2({ tools: true, thinking: true }))!.matches, 2)
  // The hit's record is read back by its span and holds the text.
  const h = r.hits[0]
  const rec = readFileSync(h.path)
    .subarray(h.offset, h.offset + h.length)
    .toString('utf8')
  t.is(h.line, 1)
  t.true(rec.includes('parseRecordSpan'))
})

test('matches the decoded text, not its JSON escapes; case rules', async (t) => {
  const { projects } = estate()
  const n = async (text: string, caseSensitive = false) =>
    (await findExact(text, { projects, caseSensitive })).scope.matches
  t.is(await n('said "café"'), 1)
  t.is(await n('CAFÉ'), 1)
  t.is(await n('CAFÉ', true), 0)
  t.is(await n('"café"\nand'), 1)
  t.is(await n('\\"caf'), 0)
  t.is(await n('\\n'), 0)
  t.is(await n('RecordSpan', true), 4)
  t.is(await n('RECORDSPAN', true), 1)
})

test('the CLI: text and JSON, and its usage errors', async (t) => {
  const { projects } = estate()
  const run = findCli()
  const text = run(['--exact', 'scan/units', '--projects', projects])
  t.is(text.status, 0, text.stderr)
  t.regex(text.stdout, /^Searched 3 sessions \(4 files, [^)]*\) for human and assistant text\n/)
  t.regex(text.stdout, /Exact "scan\/units" \(case-insensitive\): 1 match in 1 file, 1 session/)
  t.regex(
    text.stdout,
    new RegExp(`^1\\. 1 match  2026-03-01  ${S(1)}  -home-u-app\\n   line 1: .*crate/core/src/scan/units\\.rs`, 'm'),
  )
  const json = run(['--exact=-p x', '--case-sensitive', '--projects', projects, '--json'])
  t.is(json.status, 0, json.stderr)
  const j = JSON.parse(json.stdout)
  t.deepEqual(j.query, { exact: '-p x', caseSensitive: true })
  t.is(j.hits[0].matches, 1)
  const none = run(['--exact', 'zyzzyva', '--projects', projects])
  t.is(none.status, 0)
  t.regex(none.stdout, /No session holds the text\./)
  const code = async (args: string[]) => {
    const e = await t.throwsAsync(runFind(args), { instanceOf: ClaudeJsonlError })
    t.false(e!.message.includes('\n'))
    return e!.exitCode
  }
  t.is(await code(['--exact', 'a', 'b', '--projects', projects]), 2)
  t.is(await code(['x', '--case-sensitive', '--projects', projects]), 2)
  t.is(await code(['--exact', '', '--projects', projects]), 2)
  t.is(await code(['--exact', 'a', '--index-dir', '/tmp/i', '--projects', projects]), 2)
  t.is(await code(['--exact', 'a', '--projects', join(projects, 'missing')]), 3)
})

/** The text ranked and exact search cover by default, read the slow way: human and assistant text. */
function referenceTexts(line: string): string[] {
  let r: { type?: string; isMeta?: boolean; isCompactSummary?: boolean; message?: { content?: unknown } }
  try {
    r = JSON.parse(line)
  } catch {
    return []
  }
  const c = r?.message?.content
  if (r.type === 'user' && !r.isMeta && !r.isCompactSummary) {
    if (typeof c === 'string') return [c]
    if (Array.isArray(c) && !c.some((b) => b?.type === 'tool_result'))
      return c.filter((b) => b?.type === 'text' && typeof b.text === 'string').map((b) => b.text)
  }
  if (r.type === 'assistant' && Array.isArray(c))
    return c.filter((b) => b?.type === 'text' && typeof b.text === 'string').map((b) => b.text)
  return []
}

const realTest = existsSync(REAL) ? test : test.skip

realTest('on the real transcripts, counts equal a slow JavaScript reference', async (t) => {
  const files = readdirSync(REAL, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.jsonl'))
    .map((f) => join(REAL, f))
    .filter((f) => statSync(f).isFile())
  for (const needle of ['()', "n't", '`', ': ', '/']) {
    let want = 0
    for (const f of files)
      for (const line of readFileSync(f, 'utf8').split('\n'))
        for (const text of referenceTexts(line)) want += text.toLowerCase().split(needle.toLowerCase()).length - 1
    const r = await findExact(needle, { projects: REAL, limit: 100 })
    t.true(want > 0, `${needle} occurs in the real transcripts`)
    t.is(r.scope.matches, want, needle)
    t.is(
      r.hits.reduce((a, h) => a + h.matches, 0),
      want,
    )
  }
})
