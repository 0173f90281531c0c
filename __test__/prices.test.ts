import test from 'ava'

import { readFileSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import {
  PRICE_TABLE_DATE,
  costUsd,
  estimatePriceFor,
  familyOf,
  isLongContext,
  normalizeModelId,
  priceFor,
  costsOf,
  priceKeys,
  priceRequest,
  priceResolver,
  promptThresholds,
  type TokenCounts,
} from '../src-ts/read/prices.js'
import { stats } from '../src-ts/index.js'
import { REAL, REPO } from './helpers/transcripts.js'

const ZERO: TokenCounts = {
  inputTokens: 0,
  outputTokens: 0,
  cacheWrite5mTokens: 0,
  cacheWrite1hTokens: 0,
  cacheReadTokens: 0,
}
const tok = (t: Partial<TokenCounts>): TokenCounts => ({ ...ZERO, ...t })
const M = 1_000_000

const near = (actual: number | undefined, expected: number): boolean =>
  actual !== undefined && Math.abs(actual - expected) < 1e-9

test('PRICE_TABLE_DATE is an ISO date', (t) => {
  t.regex(PRICE_TABLE_DATE, /^\d{4}-\d{2}-\d{2}$/)
})

test('normalizeModelId strips dates, provider prefixes and suffixes', (t) => {
  const cases: [string, string][] = [
    ['claude-sonnet-4-5-20250929', 'claude-sonnet-4-5'],
    ['claude-sonnet-4-5', 'claude-sonnet-4-5'],
    ['anthropic/claude-sonnet-4-5', 'claude-sonnet-4-5'],
    ['anthropic/claude-sonnet-4.5', 'claude-sonnet-4-5'],
    ['claude-sonnet-4-5@20250929', 'claude-sonnet-4-5'],
    ['us.anthropic.claude-sonnet-4-5-20250929-v1:0', 'claude-sonnet-4-5'],
    ['anthropic.claude-3-5-sonnet-20241022-v2:0', 'claude-3-5-sonnet'],
    ['global.anthropic.claude-opus-4-6-v1', 'claude-opus-4-6'],
    [
      'arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.anthropic.claude-opus-4-1-20250805-v1:0',
      'claude-opus-4-1',
    ],
    ['claude-3-5-sonnet-v2@20241022', 'claude-3-5-sonnet'],
    ['projects/p/locations/us-east5/publishers/anthropic/models/claude-haiku-4-5@20251001', 'claude-haiku-4-5'],
    ['claude-opus-4-6[1m]', 'claude-opus-4-6'],
    ['claude-sonnet-4-5-20250929[1m]', 'claude-sonnet-4-5'],
    ['Claude-Opus-4-20250514', 'claude-opus-4'],
    ['claude-opus-4-0', 'claude-opus-4'],
    ['claude-sonnet-4-0', 'claude-sonnet-4'],
    ['claude-3-7-sonnet-latest', 'claude-3-7-sonnet'],
    ['anthropic/claude-3.7-sonnet:thinking', 'claude-3-7-sonnet'],
    ['claude-3-haiku-20240307', 'claude-3-haiku'],
    ['  claude-haiku-4-5-20251001  ', 'claude-haiku-4-5'],
    ['<synthetic>', '<synthetic>'],
  ]
  for (const [input, expected] of cases) t.is(normalizeModelId(input), expected, input)
})

test('priceFor knows the documented models', (t) => {
  t.like(priceFor('claude-opus-4-5-20251101'), {
    input: 5,
    output: 25,
    cacheWrite5m: 6.25,
    cacheWrite1h: 10,
    cacheRead: 0.5,
  })
  t.like(priceFor('claude-opus-4-6'), { input: 5, output: 25 })
  t.like(priceFor('claude-opus-4-1-20250805'), {
    input: 15,
    output: 75,
    cacheWrite5m: 18.75,
    cacheWrite1h: 30,
    cacheRead: 1.5,
  })
  t.like(priceFor('claude-opus-4-20250514'), { input: 15, output: 75 })
  t.like(priceFor('claude-sonnet-4-6'), { input: 3, output: 15, cacheWrite5m: 3.75, cacheWrite1h: 6, cacheRead: 0.3 })
  t.like(priceFor('claude-3-7-sonnet-20250219'), { input: 3, output: 15 })
  t.like(priceFor('claude-3-5-sonnet-20241022'), { input: 3, output: 15 })
  t.like(priceFor('claude-haiku-4-5-20251001'), {
    input: 1,
    output: 5,
    cacheWrite5m: 1.25,
    cacheWrite1h: 2,
    cacheRead: 0.1,
  })
  t.like(priceFor('claude-3-5-haiku-20241022'), {
    input: 0.8,
    output: 4,
    cacheWrite5m: 1,
    cacheWrite1h: 1.6,
    cacheRead: 0.08,
  })
  t.like(priceFor('claude-3-haiku-20240307'), {
    input: 0.25,
    output: 1.25,
    cacheWrite5m: 0.3,
    cacheWrite1h: 0.5,
    cacheRead: 0.03,
  })
  t.like(priceFor('claude-3-opus-20240229'), { input: 15, output: 75 })
})

test('cache rates follow the published multipliers (1.25x, 2x, 0.1x)', (t) => {
  for (const model of [
    'claude-opus-4-6',
    'claude-opus-4-1',
    'claude-sonnet-4-5',
    'claude-haiku-4-5',
    'claude-3-5-haiku',
  ]) {
    const p = priceFor(model)!
    t.true(Math.abs(p.cacheWrite5m - p.input * 1.25) < 1e-9, model)
    t.true(Math.abs(p.cacheWrite1h - p.input * 2) < 1e-9, model)
    t.true(Math.abs(p.cacheRead - p.input * 0.1) < 1e-9, model)
  }
})

test('long-context tier only on Sonnet 4 / 4.5', (t) => {
  t.like(priceFor('claude-sonnet-4-5')?.longContext, {
    thresholdTokens: 200_000,
    input: 6,
    output: 22.5,
    cacheWrite5m: 7.5,
    cacheWrite1h: 12,
    cacheRead: 0.6,
  })
  t.like(priceFor('claude-sonnet-4-20250514')?.longContext, { input: 6, output: 22.5 })
  t.is(priceFor('claude-opus-4-6')?.longContext, undefined)
  t.is(priceFor('claude-haiku-4-5')?.longContext, undefined)
})

test('unknown models and <synthetic> have no price', (t) => {
  t.is(priceFor('<synthetic>'), undefined)
  t.is(priceFor('gpt-4o'), undefined)
  t.is(priceFor(''), undefined)
  t.is(priceFor('claude-opus-9-9'), undefined)
  t.is(costUsd(tok({ inputTokens: M }), '<synthetic>', false), undefined)
  t.is(costUsd(tok({ inputTokens: M }), 'some-other-model', true), undefined)
})

test('priceFor returns a copy: mutating it does not change the table', (t) => {
  const p = priceFor('claude-sonnet-4-5')!
  p.input = 999
  p.longContext!.input = 999
  t.is(priceFor('claude-sonnet-4-5')!.input, 3)
  t.is(priceFor('claude-sonnet-4-5')!.longContext!.input, 6)
})

test('known cost: 1M input + 1M output on Sonnet 4.5 = $18', (t) => {
  t.is(costUsd(tok({ inputTokens: M, outputTokens: M }), 'claude-sonnet-4-5-20250929', false), 18)
})

test('hand-computed mixed cost on Opus 4.5', (t) => {
  // 12,345 in × $5 + 6,789 out × $25 + 100,000 5m-write × $6.25 + 50,000 1h-write × $10 + 2,000,000 read × $0.50
  const expected = (12_345 * 5 + 6_789 * 25 + 100_000 * 6.25 + 50_000 * 10 + 2_000_000 * 0.5) / M
  const got = costUsd(
    {
      inputTokens: 12_345,
      outputTokens: 6_789,
      cacheWrite5mTokens: 100_000,
      cacheWrite1hTokens: 50_000,
      cacheReadTokens: 2_000_000,
    },
    'claude-opus-4-5-20251101',
    false,
  )
  t.true(near(got, expected), `${got} vs ${expected}`)
  t.true(near(got, 2.356_45), String(got)) // 0.061725 + 0.169725 + 0.625 + 0.5 + 1.0
})

test('1h cache writes cost 2x input, 5m cache writes 1.25x', (t) => {
  const w5 = costUsd(tok({ cacheWrite5mTokens: M }), 'claude-sonnet-4-5', false)
  const w1 = costUsd(tok({ cacheWrite1hTokens: M }), 'claude-sonnet-4-5', false)
  t.true(near(w5, 3.75))
  t.true(near(w1, 6))
  t.true(near(costUsd(tok({ cacheWrite1hTokens: M }), 'claude-opus-4-1', false), 30))
  t.true(near(costUsd(tok({ cacheReadTokens: M }), 'claude-haiku-4-5', false), 0.1))
})

test('long-context premium prices the whole request on Sonnet 4.5', (t) => {
  const tokens = {
    inputTokens: 50_000,
    outputTokens: 10_000,
    cacheWrite5mTokens: 100_000,
    cacheWrite1hTokens: 20_000,
    cacheReadTokens: 150_000,
  }
  const base = (50_000 * 3 + 10_000 * 15 + 100_000 * 3.75 + 20_000 * 6 + 150_000 * 0.3) / M
  const premium = (50_000 * 6 + 10_000 * 22.5 + 100_000 * 7.5 + 20_000 * 12 + 150_000 * 0.6) / M
  t.true(near(costUsd(tokens, 'claude-sonnet-4-5', false), base))
  t.true(near(costUsd(tokens, 'claude-sonnet-4-5', true), premium))
  t.true(near(costUsd(tok({ inputTokens: M, outputTokens: M }), 'claude-sonnet-4', true), 28.5))
})

test('longContext flag is ignored for models without a long-context tier', (t) => {
  const tokens = tok({ inputTokens: M, outputTokens: M })
  t.is(costUsd(tokens, 'claude-opus-4-6', true), costUsd(tokens, 'claude-opus-4-6', false))
  t.true(near(costUsd(tokens, 'claude-opus-4-6', true), 30))
  t.true(near(costUsd(tokens, 'claude-haiku-4-5', true), 6))
})

test('cost accepts provider-decorated model ids', (t) => {
  const tokens = tok({ inputTokens: M, outputTokens: M })
  t.is(costUsd(tokens, 'us.anthropic.claude-sonnet-4-5-20250929-v1:0', false), 18)
  t.is(costUsd(tokens, 'claude-sonnet-4-5@20250929', false), 18)
  t.is(costUsd(tokens, 'claude-sonnet-4-5[1m]', false), 18)
})

test('zero tokens cost zero; non-finite counts are ignored', (t) => {
  t.is(costUsd(ZERO, 'claude-sonnet-4-5', false), 0)
  t.is(costUsd(tok({ inputTokens: Number.NaN, outputTokens: M }), 'claude-sonnet-4-5', false), 15)
})

const TABLE = JSON.parse(readFileSync(join(REPO, 'src-ts', 'read', 'prices.json'), 'utf8'))

test('every row of prices.json names an https source and the ISO day it was checked', (t) => {
  t.true(TABLE.rows.length >= 25)
  const seen = new Set<string>()
  for (const r of TABLE.rows) {
    const what = `${r.model}${r.from ? ` from ${r.from}` : ''}`
    t.regex(r.source, /^https:\/\/\S+$/, what)
    t.regex(r.checked, /^\d{4}-\d{2}-\d{2}$/, what)
    if (r.from) t.regex(r.from, /^\d{4}-\d{2}-\d{2}$/, what)
    if (r.fast) {
      t.regex(r.fast.source, /^https:\/\/\S+$/, `${what} fast`)
      t.regex(r.fast.checked, /^\d{4}-\d{2}-\d{2}$/, `${what} fast`)
      t.true(r.fast.multiplier > 1, what)
    }
    for (const k of ['input', 'output', 'cacheWrite5m', 'cacheWrite1h', 'cacheRead'])
      t.true(typeof r[k] === 'number' && r[k] > 0, `${what} ${k}`)
    t.false(seen.has(what), `duplicate row ${what}`)
    seen.add(what)
    t.is(normalizeModelId(r.model), r.model, `${what} is a normalized id`)
  }
  for (const [alias, target] of Object.entries(TABLE.aliases)) t.truthy(priceFor(target as string), alias)
  t.is(
    PRICE_TABLE_DATE,
    TABLE.rows
      .map((r: { checked: string }) => r.checked)
      .sort()
      .at(-1),
  )
})

test('2026 models: Fable, Mythos, Opus 5 and 5.5, Sonnet 5 and 5.5, Haiku 5.5', (t) => {
  t.like(priceFor('claude-fable-5'), { input: 10, output: 50, cacheWrite5m: 12.5, cacheWrite1h: 20, cacheRead: 1 })
  t.like(priceFor('claude-mythos-5'), { input: 10, output: 50, cacheRead: 1 })
  t.like(priceFor('claude-fable-5-1'), { input: 10, output: 50, cacheWrite5m: 12.5, cacheWrite1h: 20, cacheRead: 0.25 })
  t.like(priceFor('claude-mythos-5-1'), { cacheRead: 0.25 })
  t.like(priceFor('claude-fable-5-2'), { input: 8, output: 40, cacheWrite5m: 10, cacheWrite1h: 16, cacheRead: 0.2 })
  t.like(priceFor('claude-opus-5'), { input: 5, output: 25, cacheWrite5m: 6.25, cacheWrite1h: 10, cacheRead: 0.5 })
  t.like(priceFor('claude-opus-5-5'), { input: 4, output: 20, cacheWrite5m: 5, cacheWrite1h: 8, cacheRead: 0.2 })
  t.like(priceFor('claude-sonnet-5'), { input: 2, output: 10, cacheWrite5m: 2.5, cacheWrite1h: 4, cacheRead: 0.2 })
  t.like(priceFor('claude-haiku-5-5'), { input: 0.1, output: 0.5, cacheRead: 0.01 })
  t.like(priceFor('claude-haiku-5-5')?.longContext, { thresholdTokens: 100_000, input: 0.5, output: 2.5 })
  // Bedrock and dated spellings of the new models
  t.like(priceFor('us.anthropic.claude-fable-5-20260609-v1:0'), { input: 10 })
})

test('dated rows: Sonnet 5.5 cache hits cost $0.20 before 2026-10-07 and $0.10 from then', (t) => {
  const before = Date.parse('2026-10-06T23:59:59Z')
  const after = Date.parse('2026-10-07T00:00:00Z')
  t.is(priceFor('claude-sonnet-5-5', before)?.cacheRead, 0.2)
  t.is(priceFor('claude-sonnet-5-5', after)?.cacheRead, 0.1)
  t.is(priceFor('claude-sonnet-5-5')?.cacheRead, 0.1, 'no date: the newest row')
  t.is(priceFor('claude-sonnet-5-5', Number.NaN)?.cacheRead, 0.1)
  t.true(near(costUsd(tok({ cacheReadTokens: M }), 'claude-sonnet-5-5', false, { at: before }), 0.2))
})

test('fast mode multiplies every rate, cache rates included: 6x on Opus 4.6/4.7, 2x on Opus 4.8/5/5.5', (t) => {
  const all = tok({ inputTokens: M, outputTokens: M, cacheWrite5mTokens: M, cacheWrite1hTokens: M, cacheReadTokens: M })
  const standard = 5 + 25 + 6.25 + 10 + 0.5
  for (const [model, k] of [
    ['claude-opus-4-6', 6],
    ['claude-opus-4-7', 6],
    ['claude-opus-4-8', 2],
    ['claude-opus-5', 2],
  ] as const) {
    t.true(near(costUsd(all, model, false), standard), model)
    t.true(near(costUsd(all, model, false, { fast: true }), standard * k), model)
    t.is(priceFor(model)?.fastMultiplier, k, model)
  }
  t.true(near(costUsd(tok({ inputTokens: M, outputTokens: M }), 'claude-opus-4-6', false, { fast: true }), 180))
  t.true(near(costUsd(tok({ inputTokens: M, outputTokens: M }), 'claude-opus-5-5', false, { fast: true }), 48))
  // No fast-mode rate: the API serves such a request at standard speed, and it is priced so.
  t.is(priceFor('claude-opus-4-5')?.fastMultiplier, undefined)
  t.is(costUsd(all, 'claude-opus-4-5', false, { fast: true }), costUsd(all, 'claude-opus-4-5', false))
})

test('an unknown version of a known family is estimated at the family newest rates; an unknown family is not', (t) => {
  t.deepEqual(familyOf('claude-opus-4-6'), { name: 'opus', version: [4, 6] })
  t.deepEqual(familyOf('claude-3-5-sonnet'), { name: 'sonnet', version: [3, 5] })
  t.is(familyOf('gpt-5.5'), undefined)
  const opus = estimatePriceFor('claude-opus-9-9-20270101')
  t.true(opus?.estimated)
  t.is(opus?.price.model, 'claude-opus-5-5')
  t.is(estimatePriceFor('claude-fable-6')?.price.model, 'claude-fable-5-2')
  t.is(estimatePriceFor('claude-haiku-7')?.price.model, 'claude-haiku-5-5')
  t.false(estimatePriceFor('claude-opus-4-6')!.estimated)
  t.is(estimatePriceFor('claude-nova-1'), undefined)
  t.is(estimatePriceFor('<synthetic>'), undefined)
  t.is(costUsd(tok({ inputTokens: M }), 'claude-opus-9-9', false), undefined, 'costUsd estimates only when asked')
  t.true(near(costUsd(tok({ inputTokens: M }), 'claude-opus-9-9', false, { estimate: true }), 4))
  const resolve = priceResolver()
  t.is(resolve('claude-fable-9', 0)?.estimated, true)
  t.is(resolve('claude-fable-9', 0)?.price.model, 'claude-fable-5-2')
  t.is(resolve('mystery'), undefined)
})

test('priceKeys and costsOf price each request of its key as priceRequest does', (t) => {
  const models = ['claude-sonnet-5-5', 'claude-opus-5-5', 'claude-fable-9', 'mystery', 'claude-sonnet-4-5']
  const speeds = [null, 'fast', 'standard', '']
  const days = [
    NaN,
    Date.parse('2026-10-06T23:59:59Z'),
    Date.parse('2026-10-07T00:00:00Z'),
    Date.parse('2025-01-02T12:00:00Z'),
  ]
  const keys: { model: number; at: number; speed: number; band: number }[] = []
  for (let m = 0; m < models.length; m++)
    for (const at of days)
      for (let sp = 0; sp < speeds.length; sp++)
        for (const band of [0, 1, 2]) keys.push({ model: m, at, speed: sp, band })
  // three requests of each key, with tokens of their own, the keys met out of order
  const requests: { key: number; k: number }[] = []
  for (let round = 0; round < 3; round++)
    for (let key = 0; key < keys.length; key++) requests.push({ key: (key * 7) % keys.length, k: requests.length + 1 })
  const th = promptThresholds()
  const pricing = priceKeys(
    {
      models,
      model: keys.map((r) => r.model),
      timeMs: keys.map((r) => r.at),
      speeds,
      speed: keys.map((r) => r.speed),
      promptBand: keys.map((r) => r.band),
    },
    th,
  )
  const col = (f: (r: (typeof requests)[number]) => number) => requests.map(f)
  const tokensOf = (k: number): TokenCounts => ({
    inputTokens: k * 1000,
    outputTokens: k * 37,
    cacheWrite5mTokens: k * 11,
    cacheWrite1hTokens: (k % 3) * 5000,
    cacheReadTokens: k * 20_000,
  })
  const cost = costsOf(
    pricing,
    col((r) => r.key),
    {
      inputTokens: col((r) => tokensOf(r.k).inputTokens),
      outputTokens: col((r) => tokensOf(r.k).outputTokens),
      cacheWrite5mTokens: col((r) => tokensOf(r.k).cacheWrite5mTokens),
      cacheWrite1hTokens: col((r) => tokensOf(r.k).cacheWrite1hTokens),
      cacheReadInputTokens: col((r) => tokensOf(r.k).cacheReadTokens),
    },
  )
  const resolve = priceResolver()
  requests.forEach((req, i) => {
    const r = keys[req.key]
    const one = priceRequest(resolve, models[r.model], r.at, tokensOf(req.k), speeds[r.speed] ?? undefined, r.band, th)
    const at = `request ${i} (${models[r.model]}, ${r.at}, ${speeds[r.speed]}, band ${r.band})`
    t.is(Number.isNaN(cost[i]) ? undefined : cost[i], one.costUsd, at)
    t.is(pricing.estimated[req.key], one.estimated ? 1 : 0, at)
    t.is(pricing.fast[req.key], one.fast ? 1 : 0, at)
    t.is(pricing.longContext[req.key], one.longContext ? 1 : 0, at)
    t.is(pricing.pricedAs[req.key], one.pricedAs, at)
  })
  // the rule of the day matters: a model priced from a date has keys on both sides of it
  t.not(pricing.pricedAs.filter((p) => p === 'claude-sonnet-5-5').length, 0)
})

test('long-context thresholds come from the table, and a prompt band maps to each model tier', (t) => {
  const th = promptThresholds()
  t.deepEqual(th, [100_000, 200_000])
  const sonnet = priceFor('claude-sonnet-4-5')!
  const haiku = priceFor('claude-haiku-5-5')!
  // band = how many thresholds the prompt exceeds
  t.false(isLongContext(sonnet, 1, th), 'over 100K but not 200K')
  t.true(isLongContext(sonnet, 2, th))
  t.true(isLongContext(haiku, 1, th))
  t.false(isLongContext(haiku, 0, th))
  t.false(isLongContext(priceFor('claude-opus-4-6')!, 2, th))
})

/** Every .jsonl under `dir`. */
function jsonlUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n)
    return statSync(p).isDirectory() ? jsonlUnder(p) : n.endsWith('.jsonl') ? [p] : []
  })
}

test('every model in the fixtures, the generators and the real transcripts has a price of its own', async (t) => {
  const roots = [join(REPO, 'fixtures')]
  try {
    statSync(REAL)
    roots.push(REAL)
  } catch {
    t.log(`${REAL} is absent: checking the fixtures only`)
  }
  const models = new Set<string>()
  for (const root of roots) {
    const r = await stats({ paths: [root] })
    for (const m of r.models) models.add(m.model)
    t.deepEqual(r.pricing.unpriced, [], root)
    t.deepEqual(r.pricing.estimated, [], root)
  }
  t.true(jsonlUnder(join(REPO, 'fixtures')).length > 10)
  // Model ids the generators write, read from their source.
  for (const gen of ['generate.mjs', 'cost-estate.mjs']) {
    const src = readFileSync(join(REPO, 'fixtures', gen), 'utf8')
    for (const m of src.matchAll(/'(claude-(?:opus|sonnet|haiku|fable|mythos)-[0-9][a-z0-9-]*)'/g)) models.add(m[1]!)
  }
  t.true(models.size >= 8, [...models].join(', '))
  for (const m of models) t.truthy(priceFor(m), `no price for ${m}`)
})
