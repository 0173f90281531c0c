import test from 'ava'
import { execFileSync } from 'node:child_process'
import { existsSync, utimesSync } from 'node:fs'
import { join } from 'node:path'
import { ClaudeJsonlError, stats } from '../src-ts/index.js'
import { REAL, REPO, assistant, userText, writeTree } from './helpers/transcripts.js'

const realTest = existsSync(REAL) ? test : test.skip

function baseline(...paths: string[]) {
  const out = execFileSync(process.execPath, [join(REPO, 'benches', 'js-baseline.mjs'), ...paths], { encoding: 'utf8' })
  return JSON.parse(out).totals
}

function pick(t: {
  requests: number
  inputTokens: number
  cacheCreationInputTokens: number
  cacheReadInputTokens: number
  outputTokens: number
}) {
  const { requests, inputTokens, cacheCreationInputTokens, cacheReadInputTokens, outputTokens } = t
  return { requests, inputTokens, cacheCreationInputTokens, cacheReadInputTokens, outputTokens }
}

realTest('totals over the real transcripts equal the plain-JS baseline', async (t) => {
  const r = await stats({ paths: [REAL] })
  t.deepEqual(pick(r.totals), pick(baseline(REAL)))
  t.true(r.totals.requests > 1000)
  t.true(r.entries.assistant > r.totals.requests)
})

/** One session, one subagent replaying a parent message, a resumed copy, lanes and a synthetic entry. */
function estate() {
  const sid = 'aaaaaaaa-2222-4333-8444-555555555555'
  const sid2 = 'bbbbbbbb-2222-4333-8444-555555555555'
  const main = [
    userText('please fix the bug'),
    assistant({ messageId: 'm1', output: 5, cacheWrite: 700, split: [200, 500] }),
    assistant({ messageId: 'm1', output: 5, cacheWrite: 700, split: [200, 500], tool: ['t1', 'Bash'] }),
    assistant({
      messageId: 'm1',
      output: 499,
      cacheWrite: 700,
      split: [200, 500],
      tool: ['t2', 'Read'],
      stop: 'tool_use',
    }),
    assistant({
      messageId: 'm2',
      requestId: 'req_vrtx_0001',
      output: 40,
      model: 'claude-opus-4-5-20251101',
      timestamp: '2026-03-02T23:50:00.000Z',
    }),
    JSON.stringify({
      type: 'assistant',
      message: { id: 'syn', model: '<synthetic>', content: [], usage: { input_tokens: 0, output_tokens: 0 } },
      timestamp: '2026-03-01T10:00:00.000Z',
    }),
    assistant({ messageId: 'm3', requestId: null, output: 7 }),
  ]
  const agent = [
    assistant({ messageId: 'm1', requestId: 'req_replayed', output: 499, sidechain: true }),
    assistant({
      messageId: 'sub1',
      output: 11,
      sidechain: true,
      tool: ['t3', 'Grep'],
      model: 'claude-haiku-4-5-20251001',
    }),
  ]
  // A resumed session copies a request (same message.id and requestId) into another file.
  const resumed = [
    assistant({ messageId: 'm2', requestId: 'req_vrtx_0001', output: 40, model: 'claude-opus-4-5-20251101' }),
  ]
  return writeTree({
    [`projects/-home-u-app/${sid}.jsonl`]: main,
    [`projects/-home-u-app/${sid}/subagents/agent-s1.jsonl`]: agent,
    [`projects/-home-u-other/${sid2}.jsonl`]: resumed,
  })
}

test('dedupes per request estate-wide, keeps whole rows, drops replays and synthetic entries', async (t) => {
  const root = estate()
  const r = await stats({ projects: join(root, 'projects'), timezone: 'UTC' })
  // m1 (whole 499 row), m2 once across files, m3 keyed by message.id, sub1. Not: the replay, <synthetic>.
  t.deepEqual(pick(r.totals), {
    requests: 4,
    inputTokens: 12,
    cacheCreationInputTokens: 1000,
    cacheReadInputTokens: 4000,
    outputTokens: 557,
  })
  t.deepEqual(pick(r.totals), pick(baseline(join(root, 'projects'))))
  t.is(r.totals.cacheWrite1hTokens, 500)
  t.is(r.totals.cacheWrite5mTokens, 500)
  t.deepEqual(r.lanes, { vertex: 1, other: 2, none: 1 })
  t.is(r.entries.sidechainReplaysDropped, 1)
  t.is(r.entries.synthetic, 1)
  t.deepEqual(r.tools, [
    { name: 'Bash', calls: 1 },
    { name: 'Grep', calls: 1 },
    { name: 'Read', calls: 1 },
  ])
  t.is(r.subagents.requests, 1)
  t.is(r.scope.sessions, 2)
  t.is(r.scope.subagentFiles, 1)
  // Sonnet 4.5: m1 = 3*3 + 200*3.75 + 500*6 + 1000*0.3 + 499*15 per MTok ... priced by the table, not zero.
  t.true(r.totals.costUsd > 0)
  t.is(r.totals.unpricedRequests, 0)
})

test('--by groups add up to the totals, and --since/--until filter by day', async (t) => {
  const root = estate()
  const projects = join(root, 'projects')
  const all = await stats({ projects, timezone: 'UTC' })
  for (const by of ['day', 'session', 'project', 'model'] as const) {
    const r = await stats({ projects, by, timezone: 'UTC' })
    const sum = r.groups!.reduce((a, g) => a + g.outputTokens, 0)
    t.is(sum, all.totals.outputTokens, by)
    t.is(r.groups!.reduce((a, g) => a + g.costUsd, 0).toFixed(9), all.totals.costUsd.toFixed(9), by)
  }
  const byDay = await stats({ projects, by: 'day', timezone: 'UTC' })
  t.deepEqual(
    byDay.groups!.map((g) => [g.key, g.requests]),
    [
      ['2026-03-01', 3],
      ['2026-03-02', 1],
    ],
  )
  // 23:50 UTC on the 2nd is already the 3rd in Tokyo.
  const tokyo = await stats({ projects, by: 'day', timezone: 'Asia/Tokyo' })
  t.deepEqual(
    tokyo.groups!.map((g) => g.key),
    ['2026-03-01', '2026-03-03'],
  )
  const since = await stats({ projects, since: '20260302', timezone: 'UTC' })
  t.is(since.totals.requests, 1)
  t.is(since.totals.outputTokens, 40)
  const until = await stats({ projects, until: '2026-03-01', timezone: 'UTC' })
  t.is(until.totals.requests, 3)
  const bySession = await stats({ projects, by: 'session' })
  t.true(bySession.groups!.every((g) => g.sessionId && g.project))
})

test('bad options and inputs are ClaudeJsonlErrors with their exit codes', async (t) => {
  const root = estate()
  const projects = join(root, 'projects')
  t.is((await t.throwsAsync(stats({ projects, since: '2026-02-30' }), { instanceOf: ClaudeJsonlError }))!.exitCode, 2)
  t.is(
    (await t.throwsAsync(stats({ projects, timezone: 'Mars/Olympus' }), { instanceOf: ClaudeJsonlError }))!.exitCode,
    2,
  )
  t.is((await t.throwsAsync(stats({ projects: join(root, 'nope') }), { instanceOf: ClaudeJsonlError }))!.exitCode, 3)
  const prose = writeTree({ 'notes.jsonl': 'Dear diary,\nthis is not JSON at all.\n' })
  const e = await t.throwsAsync(stats({ paths: [join(prose, 'notes.jsonl')] }), { instanceOf: ClaudeJsonlError })
  t.is(e!.exitCode, 3)
  t.regex(e!.message, /notes\.jsonl: not a JSONL transcript/)
  // Found by walking a folder, the same file is skipped and reported instead.
  const walked = await stats({ paths: [prose] })
  t.is(walked.scope.skipped.length, 1)
  t.is(walked.totals.requests, 0)
})

test('an unknown model is reported as unpriced, not silently costed at zero', async (t) => {
  const root = writeTree({ 'p/s.jsonl': [assistant({ messageId: 'x', output: 10, model: 'claude-future-9' })] })
  const r = await stats({ paths: [root] })
  t.is(r.totals.unpricedRequests, 1)
  t.deepEqual(r.unpricedModels, ['claude-future-9'])
})

test('--since does not read files last written well before the window', async (t) => {
  const root = writeTree({
    'p/old.jsonl': [assistant({ messageId: 'o1', output: 10, timestamp: '2026-01-05T10:00:00.000Z' })],
    'p/new.jsonl': [assistant({ messageId: 'n1', output: 20, timestamp: '2026-03-05T10:00:00.000Z' })],
  })
  const jan = Date.parse('2026-01-05T12:00:00Z') / 1000
  utimesSync(join(root, 'p/old.jsonl'), jan, jan)
  const r = await stats({ paths: [root], since: '2026-03-01', timezone: 'UTC' })
  t.is(r.scope.prunedByMtime, 1)
  t.is(r.scope.files, 2)
  t.is(r.totals.outputTokens, 20)
  // Without --since, both count.
  t.is((await stats({ paths: [root] })).totals.outputTokens, 30)
})
