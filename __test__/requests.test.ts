// requests(): the deduplicated requests of a transcript or an estate, each priced. They are the
// requests `stats` sums (the same native dedupe), so counts, tokens and costs must add up to its
// totals, on the real transcripts and on a generated estate with fast mode, long prompts,
// estimated models and subagents.
import test from 'ava'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { ClaudeJsonlError, requests, stats, type ApiRequest, type RequestsOptions } from '../src-ts/index.js'
import { assistant, REAL, tempDir, writeTree } from './helpers/transcripts.js'
// @ts-expect-error: a plain .mjs generator without types
import { generateCostEstate } from '../../fixtures/cost-estate.mjs'

async function collect(target: string | RequestsOptions): Promise<ApiRequest[]> {
  const out: ApiRequest[] = []
  for await (const q of requests(target)) out.push(q)
  return out
}

/** The requests add up to the stats report of the same selection. */
async function assertSumsToStats(t: any, opts: RequestsOptions, label: string): Promise<ApiRequest[]> {
  const qs = await collect(opts)
  const s = await stats(opts)
  const sum = (f: (q: ApiRequest) => number) => qs.reduce((a, q) => a + f(q), 0)
  t.is(qs.length, s.totals.requests, `${label}: requests`)
  t.deepEqual(
    {
      inputTokens: sum((q) => q.usage.inputTokens),
      outputTokens: sum((q) => q.usage.outputTokens),
      cacheCreationInputTokens: sum((q) => q.usage.cacheCreationInputTokens),
      cacheReadInputTokens: sum((q) => q.usage.cacheReadInputTokens),
      cacheWrite5mTokens: sum((q) => q.usage.cacheWrite5mTokens),
      cacheWrite1hTokens: sum((q) => q.usage.cacheWrite1hTokens),
      fastRequests: qs.filter((q) => q.fast).length,
      estimatedRequests: qs.filter((q) => q.priceEstimated).length,
      unpricedRequests: qs.filter((q) => q.costUsd === undefined).length,
      subagentOutput: sum((q) => (q.subagent ? q.usage.outputTokens : 0)),
    },
    {
      inputTokens: s.totals.inputTokens,
      outputTokens: s.totals.outputTokens,
      cacheCreationInputTokens: s.totals.cacheCreationInputTokens,
      cacheReadInputTokens: s.totals.cacheReadInputTokens,
      cacheWrite5mTokens: s.totals.cacheWrite5mTokens,
      cacheWrite1hTokens: s.totals.cacheWrite1hTokens,
      fastRequests: s.totals.fastRequests,
      estimatedRequests: s.totals.estimatedRequests,
      unpricedRequests: s.totals.unpricedRequests,
      subagentOutput: s.subagents.outputTokens,
    },
    `${label}: tokens`,
  )
  const cost = sum((q) => q.costUsd ?? 0)
  t.true(
    Math.abs(cost - s.totals.costUsd) <= 1e-9 * Math.max(1, s.totals.costUsd),
    `${label}: $${cost} vs $${s.totals.costUsd}`,
  )
  for (const m of s.models) {
    const mine = qs.filter((q) => q.model === m.model)
    t.is(mine.length, m.requests, `${label}: requests of ${m.model}`)
  }
  // One request per key, in time order.
  const keys = qs.map((q) => q.requestId ?? q.messageId)
  t.is(new Set(keys).size, keys.length, `${label}: one request per key`)
  const times = qs.map((q) => q.timeMs).filter((x) => !Number.isNaN(x))
  t.true(
    times.every((x, k) => k === 0 || times[k - 1] <= x),
    `${label}: time order`,
  )
  return qs
}

test('requests() of the real transcripts add up to stats', async (t) => {
  if (!existsSync(REAL)) return t.pass(`${REAL} is absent`)
  const qs = await assertSumsToStats(t, { paths: [REAL] }, 'real')
  t.true(qs.length > 1000)
  t.true(qs.every((q) => q.costUsd !== undefined && q.timestamp !== undefined && q.requestId !== undefined))
  t.true(qs.some((q) => q.usage.serviceTier === 'standard'))
  // One transcript by path: its requests, with the file's lines.
  const one = await collect(join(REAL, 'real-07.jsonl'))
  t.true(one.length > 100)
  t.deepEqual(
    one.map((q) => q.requestId),
    qs.filter((q) => q.path === join(REAL, 'real-07.jsonl')).map((q) => q.requestId),
  )
})

test('requests() of a generated estate add up to stats, whole and for a day window', async (t) => {
  const root = tempDir('cj-requests-cost-')
  generateCostEstate({ out: root, sessions: 24, seed: 7 })
  const projects = join(root, 'projects')
  const qs = await assertSumsToStats(t, { projects }, 'estate')
  t.true(qs.some((q) => q.fast) && qs.some((q) => q.subagent))
  t.true(qs.some((q) => q.usage.cacheWrite1hTokens > 0))
  const days = [...new Set(qs.map((q) => q.timestamp!.slice(0, 10)))].sort()
  t.true(days.length >= 3, days.join(' '))
  const window = { projects, since: days[1], until: days[days.length - 2], timezone: 'UTC' }
  const inside = await assertSumsToStats(t, window, 'window')
  t.true(inside.length > 0 && inside.length < qs.length)
  t.true(inside.every((q) => q.timestamp!.slice(0, 10) >= days[1]))
})

test('requests() counts streamed fragments once, with the largest output, and drops replays', async (t) => {
  const root = writeTree({
    'p/s1.jsonl': [
      assistant({ messageId: 'm1', requestId: 'req_1', output: 5, timestamp: '2026-03-01T10:00:00.000Z' }),
      assistant({
        messageId: 'm1',
        requestId: 'req_1',
        output: 400,
        cacheWrite: 120,
        timestamp: '2026-03-01T10:00:01.000Z',
      }),
      assistant({ messageId: 'm1', requestId: 'req_1', output: 400, timestamp: '2026-03-01T10:00:02.000Z' }),
      assistant({
        messageId: 'm2',
        requestId: null,
        output: 7,
        model: 'claude-unknown-9',
        timestamp: '2026-03-01T09:00:00.000Z',
      }),
      assistant({ messageId: 'syn', output: 0, model: '<synthetic>' }),
      // A prompt above 200K tokens: Sonnet 4.5's long-context rates.
      assistant({ messageId: 'm3', output: 9, cacheRead: 250_000, timestamp: '2026-03-01T11:00:00.000Z' }),
    ],
    // A subagent's replay of the parent's message under a new requestId.
    'p/s1/subagents/agent-a1.jsonl': [
      assistant({ messageId: 'm1', requestId: 'req_replay', output: 400, sidechain: true }),
    ],
  })
  const qs = await collect({ paths: [root] })
  t.deepEqual(
    qs.map((q) => [q.messageId, q.requestId, q.usage.outputTokens, q.usage.cacheCreationInputTokens, q.line]),
    [
      ['m2', undefined, 7, 100, 4],
      ['m1', 'req_1', 400, 120, 2],
      ['m3', 'req_m3', 9, 100, 6],
    ],
  )
  t.deepEqual(
    qs.map((q) => q.longContext),
    [false, false, true],
  )
  t.is(qs[0].costUsd, undefined, 'a model of no known family is unpriced')
  t.false(qs[0].priceEstimated)
  t.true(qs[1].costUsd! > 0)
  t.is(qs[1].pricedAs, 'claude-sonnet-4-5')
})

test('requests() throws before the first request for a path that cannot be read or a bad option', async (t) => {
  const dir = tempDir('cj-requests-bad-')
  const e = await t.throwsAsync(collect(join(dir, 'missing.jsonl')))
  t.true(e instanceof ClaudeJsonlError)
  t.is((e as ClaudeJsonlError).exitCode, 3)
  const bad = await t.throwsAsync(collect({ paths: [dir], since: 'yesterday' }))
  t.is((bad as ClaudeJsonlError).exitCode, 2)
})
