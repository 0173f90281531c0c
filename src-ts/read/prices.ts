/**
 * Price table for Claude models seen in Claude Code transcripts, and the cost
 * function built on it. No runtime dependencies.
 *
 * All prices are USD per million tokens (MTok), standard (non-batch) API rates.
 *
 * Sources (retrieved 2026-11-30):
 *  - Anthropic, "Pricing" — https://platform.claude.com/docs/en/about-claude/pricing
 *    ("Model pricing" table: base input, 5m cache writes, 1h cache writes,
 *    cache hits & refreshes, output). The same table is mirrored on the
 *    zh-CN edition of that page and on the older docs.anthropic.com URL.
 *  - Same page, "Long context pricing" section (also on the docs.anthropic.com
 *    edition): for Claude Sonnet 4 / Sonnet 4.5 with the 1M-token context
 *    window, a request whose input exceeds 200K tokens is billed at $6 input /
 *    $22.50 output per MTok for the WHOLE request, and the prompt-caching
 *    multipliers apply on top of those premium rates. Input for the threshold
 *    counts input + cache writes + cache reads.
 *  - Per-model overview pages (platform.claude.com/docs/en/models/<model>/overview)
 *    for the model IDs and to confirm Opus 4.6 at $5/$25 and Sonnet 4.6 at $3/$15.
 *
 * Cache multipliers as published: 5-minute write = 1.25x input, 1-hour write =
 * 2x input, cache read = 0.1x input. Every figure below is the published
 * per-model figure; they all match the multipliers except Claude Haiku 3,
 * whose published 5m-write ($0.30) and cache-read ($0.03) are rounded rather
 * than 1.25x / 0.1x of $0.25 — the published figures are used.
 *
 * Known gaps / uncertainty (deliberately not guessed):
 *  - Opus 4.6 and Sonnet 4.6: the current pricing page lists flat rates for
 *    the full 1M window, so no long-context tier is recorded. Third-party
 *    reports say that while the 1M window was a beta (Feb–Mar 2026) requests
 *    over 200K input were billed at a premium (2x input / 1.5x output); this is
 *    not confirmed from an Anthropic page and the table is not date-aware, so
 *    such historical requests are priced at the flat rates here.
 *  - Opus "fast mode", batch (-50%), data-residency/regional multipliers and
 *    server-tool charges (web search etc.) are not modelled.
 *  - Claude 3.5 Sonnet: priced at $3/$15 with the standard cache multipliers,
 *    as listed (marked deprecated) on the docs.anthropic.com pricing page.
 *  - Opus 4.7 / 4.8 are listed on the pricing page at the Opus 4.5 rates; other
 *    future 4.x model IDs are NOT assumed and return undefined until added.
 */

export interface LongContextPrice {
  /** A request is "long" when its total input (input + cache write + cache read) exceeds this. */
  thresholdTokens: number
  input: number
  output: number
  cacheWrite5m: number
  cacheWrite1h: number
  cacheRead: number
}

export interface ModelPrice {
  input: number
  output: number
  cacheWrite5m: number
  cacheWrite1h: number
  cacheRead: number
  longContext?: LongContextPrice
}

export interface TokenCounts {
  inputTokens: number
  outputTokens: number
  cacheWrite5mTokens: number
  cacheWrite1hTokens: number
  cacheReadTokens: number
}

/** Date the table below was last checked against Anthropic's pricing page. */
export const PRICE_TABLE_DATE: string = '2026-11-30'

function rates(
  input: number,
  output: number,
  cacheWrite5m: number,
  cacheWrite1h: number,
  cacheRead: number,
): ModelPrice {
  return { input, output, cacheWrite5m, cacheWrite1h, cacheRead }
}

const OPUS_45_TIER = rates(5, 25, 6.25, 10, 0.5)
const OPUS_4_TIER = rates(15, 75, 18.75, 30, 1.5)
const SONNET_TIER = rates(3, 15, 3.75, 6, 0.3)
/** Sonnet 4 / 4.5 long-context (>200K input) premium: $6 / $22.50, caching multipliers on top. */
const SONNET_LONG_CONTEXT: LongContextPrice = {
  thresholdTokens: 200_000,
  input: 6,
  output: 22.5,
  cacheWrite5m: 7.5,
  cacheWrite1h: 12,
  cacheRead: 0.6,
}

/** Keyed by normalized model id (see normalizeModelId). */
const PRICES: ReadonlyMap<string, Readonly<ModelPrice>> = new Map<string, ModelPrice>([
  // Opus 4.5 and later 4.x: $5 / $25
  ['claude-opus-4-8', OPUS_45_TIER],
  ['claude-opus-4-7', OPUS_45_TIER],
  ['claude-opus-4-6', OPUS_45_TIER],
  ['claude-opus-4-5', OPUS_45_TIER],
  // Opus 4 / 4.1: $15 / $75
  ['claude-opus-4-1', OPUS_4_TIER],
  ['claude-opus-4', OPUS_4_TIER],
  // Sonnet: $3 / $15
  ['claude-sonnet-4-6', SONNET_TIER],
  ['claude-sonnet-4-5', { ...SONNET_TIER, longContext: SONNET_LONG_CONTEXT }],
  ['claude-sonnet-4', { ...SONNET_TIER, longContext: SONNET_LONG_CONTEXT }],
  ['claude-3-7-sonnet', SONNET_TIER],
  ['claude-3-5-sonnet', SONNET_TIER],
  // Haiku
  ['claude-haiku-4-5', rates(1, 5, 1.25, 2, 0.1)],
  ['claude-3-5-haiku', rates(0.8, 4, 1, 1.6, 0.08)],
  ['claude-3-haiku', rates(0.25, 1.25, 0.3, 0.5, 0.03)],
  // Opus 3
  ['claude-3-opus', OPUS_4_TIER],
])

/** Model ids that are published under a second spelling. */
const ALIASES: ReadonlyMap<string, string> = new Map([
  ['claude-opus-4-0', 'claude-opus-4'],
  ['claude-sonnet-4-0', 'claude-sonnet-4'],
  // newer-style spellings of the Claude 3.x family
  ['claude-sonnet-3-7', 'claude-3-7-sonnet'],
  ['claude-sonnet-3-5', 'claude-3-5-sonnet'],
  ['claude-haiku-3-5', 'claude-3-5-haiku'],
  ['claude-haiku-3', 'claude-3-haiku'],
  ['claude-opus-3', 'claude-3-opus'],
])

/**
 * Reduce a model string as it appears in transcripts or provider consoles to a
 * canonical id without date/version decorations, e.g.
 *   'claude-sonnet-4-5-20250929'                        → 'claude-sonnet-4-5'
 *   'anthropic/claude-sonnet-4.5'                        → 'claude-sonnet-4-5'
 *   'claude-sonnet-4-5@20250929' (Vertex AI)             → 'claude-sonnet-4-5'
 *   'us.anthropic.claude-sonnet-4-5-20250929-v1:0' (Bedrock) → 'claude-sonnet-4-5'
 *   'claude-opus-4-6[1m]'                                → 'claude-opus-4-6'
 * Strings that are not Claude model ids (e.g. '<synthetic>') come back trimmed
 * and lower-cased but otherwise unchanged.
 */
export function normalizeModelId(model: string): string {
  let id = model.trim().toLowerCase()
  // Claude Code context-window suffix such as '[1m]' (any trailing [...] tag).
  id = id.replace(/(?:\[[^\]]*\])+$/, '')
  // Path-like prefixes: 'anthropic/…', 'openrouter/anthropic/…',
  // 'projects/…/publishers/anthropic/models/…', Bedrock ARNs '…:inference-profile/…'.
  const slash = id.lastIndexOf('/')
  if (slash >= 0) id = id.slice(slash + 1)
  // Bedrock: '[us.|eu.|apac.|global.]anthropic.claude-…'
  const bedrock = id.match(/^(?:[a-z]{2,8}\.)?anthropic\.(.+)$/)
  if (bedrock) id = bedrock[1]!
  // Vertex AI '@20250929' / '@latest' version suffix.
  const at = id.indexOf('@')
  if (at >= 0) id = id.slice(0, at)
  // Bedrock ':0' revision and OpenRouter-style ':thinking' / ':beta' variants.
  const colon = id.indexOf(':')
  if (colon >= 0) id = id.slice(0, colon)
  // Bedrock '-v1' / Vertex 'claude-3-5-sonnet-v2' version tags.
  id = id.replace(/-v\d+$/, '')
  // Release date and '-latest'.
  id = id.replace(/-(?:\d{8}|latest)$/, '')
  // Bedrock/Vertex sometimes put the version tag before the date was stripped.
  id = id.replace(/-v\d+$/, '')
  // Dotted versions ('claude-sonnet-4.5', 'claude-3.5-sonnet') → dashed.
  if (id.startsWith('claude-')) id = id.replace(/(\d)\.(\d)/g, '$1-$2')
  return ALIASES.get(id) ?? id
}

/** Price for a model, or undefined when the model is unknown (including '<synthetic>'). */
export function priceFor(model: string): ModelPrice | undefined {
  const price = PRICES.get(normalizeModelId(model))
  if (price === undefined) return undefined
  // Return a copy so callers cannot mutate the shipped table.
  return price.longContext ? { ...price, longContext: { ...price.longContext } } : { ...price }
}

/**
 * USD cost of the given tokens on `model`.
 *
 * `longContext` = the tokens belong to requests whose total input (input +
 * cache writes + cache reads) exceeded the model's long-context threshold;
 * Anthropic then bills the whole request — input, cache and output — at the
 * premium rates. It has no effect on models without a long-context tier.
 * Returns undefined when the model is unknown.
 */
export function costUsd(tokens: TokenCounts, model: string, longContext: boolean): number | undefined {
  const price = PRICES.get(normalizeModelId(model))
  if (price === undefined) return undefined
  const r = longContext && price.longContext ? price.longContext : price
  const micro =
    n(tokens.inputTokens) * r.input +
    n(tokens.outputTokens) * r.output +
    n(tokens.cacheWrite5mTokens) * r.cacheWrite5m +
    n(tokens.cacheWrite1hTokens) * r.cacheWrite1h +
    n(tokens.cacheReadTokens) * r.cacheRead
  return micro / 1_000_000
}

/** Missing or non-finite counts contribute nothing rather than poisoning the sum with NaN. */
function n(x: number): number {
  return Number.isFinite(x) ? x : 0
}
