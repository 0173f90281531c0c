import test from 'ava'

import { PRICE_TABLE_DATE, costUsd, normalizeModelId, priceFor, type TokenCounts } from '../src-ts/read/prices.js'

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
