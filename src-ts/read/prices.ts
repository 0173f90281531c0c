/**
 * Prices of Claude models and the cost function built on them. The figures live in
 * prices.json beside this file, one row per model (and per date the model's rates changed),
 * each naming its source page and the day it was checked; docs/prices.md says how the file is
 * kept. This module owns every pricing decision:
 *  - which model id a transcript's model string means (provider decorations removed);
 *  - which row applies on a given day (rows may carry a `from` date);
 *  - an unknown version of a known family (a new claude-opus-*, claude-fable-*, …) is priced
 *    at that family's newest rates and marked estimated; an unknown family has no price;
 *  - long-context (long-prompt) tiers: a request whose prompt (input + cache writes + cache
 *    reads) exceeds a row's `longContext.aboveTokens` is billed at those rates for the whole
 *    request. The native scan only sorts requests into bands at the thresholds this module
 *    gives it (`promptThresholds`);
 *  - fast mode (`usage.speed: "fast"`): every rate, cache rates included, times the row's
 *    `fast.multiplier`, over the whole context window. A fast request on a model without a
 *    fast-mode rate is priced at the standard rates (the API then serves it at standard speed).
 */
import table from './prices.json' with { type: 'json' }
import { compareText } from './order.js'
import { utcDay } from './days.js'

export interface Rates {
  input: number
  output: number
  cacheWrite5m: number
  cacheWrite1h: number
  cacheRead: number
}

export interface LongContextPrice extends Rates {
  /** A request is "long" when its prompt (input + cache write + cache read) exceeds this. */
  thresholdTokens: number
}

/**
 * One row of the price table: a model's rates in USD per million tokens, its long-context and
 * fast-mode rates, the day it applies from, and its source.
 */
export interface ModelPrice extends Rates {
  longContext?: LongContextPrice
  /** Fast mode multiplies every rate by this; absent when the model has no fast-mode rate. */
  fastMultiplier?: number
  /** The table row's model id. */
  model: string
  /** First day (UTC, YYYY-MM-DD) the row applies; absent: since the model's release. */
  from?: string
  source: string
  /** Day the source was last checked. */
  checked: string
}

/** The price row a model id resolves to, and whether it is an estimate. */
export interface PriceMatch {
  price: ModelPrice
  /** True when the model is not in the table and is priced as its family's newest model. */
  estimated: boolean
}

/** One request's tokens by kind, as `costUsd` prices them. */
export interface TokenCounts {
  inputTokens: number
  outputTokens: number
  cacheWrite5mTokens: number
  cacheWrite1hTokens: number
  cacheReadTokens: number
}

/** What decides the rates for `costUsd`: fast mode, the day of use, and whether to estimate. */
export interface CostOptions {
  /** The request ran in fast mode. */
  fast?: boolean
  /** When the tokens were used (ms since the epoch): picks the row in force that day. */
  at?: number
  /** Price an unknown version of a known family at the family's newest rates. */
  estimate?: boolean
}

interface Row {
  model: string
  from?: string
  input: number
  output: number
  cacheWrite5m: number
  cacheWrite1h: number
  cacheRead: number
  longContext?: Rates & { aboveTokens: number }
  fast?: { multiplier: number; source: string; checked: string }
  source: string
  checked: string
}

const ROWS: readonly Row[] = table.rows as Row[]
const ALIASES: ReadonlyMap<string, string> = new Map(Object.entries(table.aliases))

/** Date the table was last checked against its sources (the latest row's date). */
export const PRICE_TABLE_DATE: string = ROWS.reduce((d, r) => (r.checked > d ? r.checked : d), '')

function toPrice(r: Row): ModelPrice {
  const p: ModelPrice = {
    model: r.model,
    input: r.input,
    output: r.output,
    cacheWrite5m: r.cacheWrite5m,
    cacheWrite1h: r.cacheWrite1h,
    cacheRead: r.cacheRead,
    source: r.source,
    checked: r.checked,
  }
  if (r.from) p.from = r.from
  if (r.longContext) {
    const { aboveTokens, ...rates } = r.longContext
    p.longContext = { thresholdTokens: aboveTokens, ...rates }
  }
  if (r.fast) p.fastMultiplier = r.fast.multiplier
  return p
}

/** Rows of each model id, oldest `from` first. */
const BY_MODEL: ReadonlyMap<string, readonly ModelPrice[]> = (() => {
  const m = new Map<string, ModelPrice[]>()
  for (const r of ROWS) {
    const list = m.get(r.model) ?? []
    list.push(toPrice(r))
    m.set(r.model, list)
  }
  for (const list of m.values()) list.sort((a, b) => compareText(a.from ?? '', b.from ?? ''))
  return m
})()

interface Family {
  name: string
  version: number[]
}

/** `claude-opus-4-6` → opus [4, 6]; `claude-3-5-sonnet` → sonnet [3, 5]; else undefined. */
export function familyOf(id: string): Family | undefined {
  const modern = /^claude-([a-z]+)-(\d+(?:-\d+)*)$/.exec(id)
  if (modern) return { name: modern[1]!, version: modern[2]!.split('-').map(Number) }
  const legacy = /^claude-(\d+(?:-\d+)*)-([a-z]+)$/.exec(id)
  if (legacy) return { name: legacy[2]!, version: legacy[1]!.split('-').map(Number) }
  return undefined
}

function newer(a: number[], b: number[]): boolean {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0)
    if (d !== 0) return d > 0
  }
  return false
}

/** The newest model id of each family in the table. */
const NEWEST: ReadonlyMap<string, { id: string; version: number[] }> = (() => {
  const m = new Map<string, { id: string; version: number[] }>()
  for (const id of BY_MODEL.keys()) {
    const f = familyOf(id)
    if (!f) continue
    const cur = m.get(f.name)
    if (!cur || newer(f.version, cur.version)) m.set(f.name, { id, version: f.version })
  }
  return m
})()

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

/** The row of `rows` in force at `at` (ms; undefined or NaN: the newest). */
function rowAt(rows: readonly ModelPrice[], at: number | undefined): ModelPrice {
  if (rows.length === 1 || at === undefined || Number.isNaN(at)) return rows[rows.length - 1]!
  const day = utcDay(at)
  let pick = rows[0]!
  for (const r of rows) if (!r.from || r.from <= day) pick = r
  return pick
}

function copy(p: ModelPrice): ModelPrice {
  return p.longContext ? { ...p, longContext: { ...p.longContext } } : { ...p }
}

/** The rows that price `model`: its own, else (when `estimate`) its family's newest model's. */
function rowsFor(model: string, estimate: boolean): { rows: readonly ModelPrice[]; estimated: boolean } | undefined {
  const id = normalizeModelId(model)
  const own = BY_MODEL.get(id)
  if (own) return { rows: own, estimated: false }
  if (!estimate) return undefined
  const family = familyOf(id)
  const newest = family && NEWEST.get(family.name)
  return newest ? { rows: BY_MODEL.get(newest.id)!, estimated: true } : undefined
}

/** Price of a model in the table (at `at`, default: today's rates), or undefined when unknown. */
export function priceFor(model: string, at?: number): ModelPrice | undefined {
  const found = rowsFor(model, false)
  return found && copy(rowAt(found.rows, at))
}

/** Like priceFor, but an unknown version of a known family is priced as the family's newest model. */
export function estimatePriceFor(model: string, at?: number): PriceMatch | undefined {
  const found = rowsFor(model, true)
  return found && { price: copy(rowAt(found.rows, at)), estimated: found.estimated }
}

/**
 * Prices many requests of few models: resolves each model once, then picks the row by date.
 * Returns undefined for a model of an unknown family.
 */
export function priceResolver(): (model: string, at?: number) => PriceMatch | undefined {
  const cache = new Map<string, { rows: readonly ModelPrice[]; estimated: boolean } | undefined>()
  return (model, at) => {
    let found = cache.get(model)
    if (found === undefined && !cache.has(model)) cache.set(model, (found = rowsFor(model, true)))
    return found && { price: rowAt(found.rows, at), estimated: found.estimated }
  }
}

/** Every prompt size (tokens) at which some model's long-context rates begin, ascending. */
export function promptThresholds(): number[] {
  const set = new Set<number>()
  for (const r of ROWS) if (r.longContext) set.add(r.longContext.aboveTokens)
  return [...set].sort((a, b) => a - b)
}

/**
 * Whether a request in prompt band `band` (how many of `thresholds` its prompt exceeds) is
 * billed at `price`'s long-context rates.
 */
export function isLongContext(price: ModelPrice, band: number, thresholds: readonly number[]): boolean {
  if (!price.longContext) return false
  const k = thresholds.indexOf(price.longContext.thresholdTokens)
  return k >= 0 && band > k
}

/** USD cost of `tokens` at `price`, with the long-context tier and fast mode as given. */
export function costAt(price: ModelPrice, tokens: TokenCounts, longContext: boolean, fast: boolean): number {
  return costWith(appliedRates(price, longContext, fast), tokens)
}

/** The rates a request is billed at, and the multiplier over them (fast mode's, else 1). */
export interface AppliedRates {
  rates: Rates
  multiplier: number
}

function appliedRates(price: ModelPrice, longContext: boolean, fast: boolean): AppliedRates {
  return {
    rates: longContext && price.longContext ? price.longContext : price,
    multiplier: fast && price.fastMultiplier !== undefined ? price.fastMultiplier : 1,
  }
}

function costWith(q: AppliedRates, tokens: TokenCounts): number {
  const r = q.rates
  const micro =
    n(tokens.inputTokens) * r.input +
    n(tokens.outputTokens) * r.output +
    n(tokens.cacheWrite5mTokens) * r.cacheWrite5m +
    n(tokens.cacheWrite1hTokens) * r.cacheWrite1h +
    n(tokens.cacheReadTokens) * r.cacheRead
  return (micro * q.multiplier) / 1_000_000
}

/** How one request (or a bucket of requests alike) is priced. */
export interface RequestPricing {
  /** USD; undefined when the model is of no known family (unpriced). */
  costUsd?: number
  /** The model is not in the table: priced at its family's newest rates (`pricedAs`). */
  estimated: boolean
  /** The table's model whose rates were used. */
  pricedAs?: string
  /** `usage.speed` is `fast`. */
  fast: boolean
  /** Fast, but the model has no fast-mode rate: priced at standard rates. */
  fastWithoutRate: boolean
  /** Billed at the model's long-context rates. */
  longContext: boolean
}

/**
 * Prices tokens of `model` used at `at` (ms since the epoch; NaN when unknown) with `speed` as
 * written (`fast` is fast mode; any other value is priced as standard), in prompt band
 * `promptBand` of `thresholds` (see `isLongContext`). `resolve` is a `priceResolver()`.
 */
export function priceRequest(
  resolve: (model: string, at?: number) => PriceMatch | undefined,
  model: string,
  at: number,
  tokens: TokenCounts,
  speed: string | undefined,
  promptBand: number,
  thresholds: readonly number[],
): RequestPricing {
  const fast = speed === 'fast'
  const match = resolve(model, at)
  if (!match) return { estimated: false, fast, fastWithoutRate: false, longContext: false }
  const longContext = isLongContext(match.price, promptBand, thresholds)
  const out: RequestPricing = {
    costUsd: costAt(match.price, tokens, longContext, fast),
    estimated: match.estimated,
    pricedAs: match.price.model,
    fast,
    fastWithoutRate: fast && match.price.fastMultiplier === undefined,
    longContext,
  }
  return out
}

/**
 * Price keys, as columns (one value per key). A key is what decides a request's price besides
 * its tokens: its model, speed, prompt band and UTC day (rates change from one day to the next
 * at most), so every request of a key is priced alike.
 */
export interface PriceKeyColumns {
  /** Each key's model, as an index into `models`. */
  model: ArrayLike<number>
  models: readonly string[]
  /** `usage.speed` as an index into `speeds` (undefined or '': not given). */
  speed: ArrayLike<number>
  speeds: readonly (string | undefined | null)[]
  /** How many of `thresholds` the prompts of the key's requests exceed. */
  promptBand: ArrayLike<number>
  /** A time on the key's day (ms; NaN: unknown, priced at the newest rates). */
  timeMs: ArrayLike<number>
}

/** How each price key is priced (`priceKeys`), as columns. */
export interface KeyPricing {
  /** The rates applied; undefined when the model is of no known family (unpriced). */
  applied: (AppliedRates | undefined)[]
  estimated: Uint8Array
  fast: Uint8Array
  longContext: Uint8Array
  /** The table's model whose rates were used; undefined when unpriced. */
  pricedAs: (string | undefined)[]
}

/** Prices each key as `priceRequest` prices a request of it, each model resolved once. */
export function priceKeys(k: PriceKeyColumns, thresholds: readonly number[]): KeyPricing {
  const n = k.model.length
  const out: KeyPricing = {
    applied: new Array<AppliedRates | undefined>(n),
    estimated: new Uint8Array(n),
    fast: new Uint8Array(n),
    longContext: new Uint8Array(n),
    pricedAs: new Array<string | undefined>(n),
  }
  const resolve = priceResolver()
  const none = noTokens()
  for (let i = 0; i < n; i++) {
    const at = k.timeMs[i]
    const match = resolve(k.models[k.model[i]], at)
    const q = priceRequest(() => match, '', at, none, k.speeds[k.speed[i]] ?? undefined, k.promptBand[i], thresholds)
    out.applied[i] = match && appliedRates(match.price, q.longContext, q.fast)
    out.estimated[i] = q.estimated ? 1 : 0
    out.fast[i] = q.fast ? 1 : 0
    out.longContext[i] = q.longContext ? 1 : 0
    out.pricedAs[i] = q.pricedAs
  }
  return out
}

function noTokens(): TokenCounts {
  return { inputTokens: 0, outputTokens: 0, cacheWrite5mTokens: 0, cacheWrite1hTokens: 0, cacheReadTokens: 0 }
}

/** Each request's tokens, as columns (one value per request). */
export interface TokenColumns {
  inputTokens: ArrayLike<number>
  outputTokens: ArrayLike<number>
  cacheWrite5mTokens: ArrayLike<number>
  cacheWrite1hTokens: ArrayLike<number>
  cacheReadInputTokens: ArrayLike<number>
}

/**
 * Each request's cost (USD; NaN when unpriced), `key[i]` being request i's price key in
 * `pricing`: exactly what `priceRequest` gives it.
 */
export function costsOf(pricing: KeyPricing, key: ArrayLike<number>, t: TokenColumns): Float64Array {
  const n = key.length
  const cost = new Float64Array(n)
  // (one object, its counts set for each request in turn)
  const tokens = noTokens()
  for (let i = 0; i < n; i++) {
    const applied = pricing.applied[key[i]]
    if (applied === undefined) {
      cost[i] = NaN
      continue
    }
    tokens.inputTokens = t.inputTokens[i]
    tokens.outputTokens = t.outputTokens[i]
    tokens.cacheWrite5mTokens = t.cacheWrite5mTokens[i]
    tokens.cacheWrite1hTokens = t.cacheWrite1hTokens[i]
    tokens.cacheReadTokens = t.cacheReadInputTokens[i]
    cost[i] = costWith(applied, tokens)
  }
  return cost
}

/**
 * USD cost of the given tokens on `model`.
 *
 * `longContext` = the tokens belong to requests whose prompt (input + cache writes + cache
 * reads) exceeded the model's long-context threshold; Anthropic then bills the whole request —
 * input, cache and output — at the premium rates. It has no effect on models without a
 * long-context tier. Returns undefined when the model is unknown (and, with `estimate`, of an
 * unknown family).
 */
export function costUsd(
  tokens: TokenCounts,
  model: string,
  longContext: boolean,
  opts: CostOptions = {},
): number | undefined {
  const found = rowsFor(model, opts.estimate === true)
  if (!found) return undefined
  return costAt(rowAt(found.rows, opts.at), tokens, longContext, opts.fast === true)
}

/** Missing or non-finite counts contribute nothing rather than poisoning the sum with NaN. */
function n(x: number): number {
  return Number.isFinite(x) ? x : 0
}
