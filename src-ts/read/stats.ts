// Token and cost statistics: the native scan dedupes requests estate-wide and sums them into
// 15-minute buckets; this file groups, filters and prices those buckets.
import { compareText } from './order.js'
import { PRICE_TABLE_DATE, priceRequest, priceResolver, promptThresholds } from './prices.js'
import type { ToolTargetsInfo, UsageColumns } from '../native.js'
import { EstateOptions, scanEstateTotals, unusableFiles, type Roots } from './estate.js'
import { usageError } from '../errors.js'
import { dayWindow } from './days.js'

/** What `stats` groups requests by. */
export type GroupBy = 'day' | 'session' | 'project' | 'model'

/**
 * What `stats` counts: the estate or given paths, a day range in a time zone, the grouping, and
 * whether to report tool targets.
 */
export interface StatsOptions extends EstateOptions {
  /** Group by day, session, project or model (default: no groups, totals only). */
  by?: GroupBy
  /** First day included, YYYY-MM-DD or YYYYMMDD, in `timezone`. */
  since?: string
  /** Last day included. */
  until?: string
  /** IANA time zone for days (default: the system's). */
  timezone?: string
  /** Also report each tool's most frequent targets (files, commands, hosts, …). */
  tools?: boolean
  /** Targets listed per tool with `tools` (default 5). */
  toolLimit?: number
}

/** Deduplicated request and token counts and their cost, for a group or the whole estate. */
export interface TokenTotals {
  requests: number
  inputTokens: number
  cacheCreationInputTokens: number
  cacheReadInputTokens: number
  outputTokens: number
  /** Cache writes priced at the 5-minute rate (includes writes without a TTL split). */
  cacheWrite5mTokens: number
  cacheWrite1hTokens: number
  /** USD for the priced part; see `unpricedRequests`. */
  costUsd: number
  /** Requests whose model is not in the price table (their cost is not in costUsd). */
  unpricedRequests: number
  /** Requests that ran in fast mode (`usage.speed: "fast"`), and their part of costUsd. */
  fastRequests: number
  fastCostUsd: number
  /** Requests priced at their model family's newest rates (the model is not in the table). */
  estimatedRequests: number
}

/** The totals of one group (a day, session, project or model), with its activity span and tool calls. */
export interface StatsGroup extends TokenTotals {
  key: string
  project?: string
  sessionId?: string
  firstActivity?: string
  lastActivity?: string
  toolCalls: number
}

/**
 * The result of `stats`: the scope read, the totals (whole estate, subagents, per model, per
 * billing lane), the groups, how the cost was priced and, when asked, the tool targets.
 */
export interface StatsReport {
  scope: {
    roots: string[]
    /** What chose the roots: explicit paths, --projects, $CLAUDE_CONFIG_DIR or ~/.claude (home). */
    rootsSource: Roots['source']
    files: number
    sessions: number
    subagentFiles: number
    bytes: number
    /** Files not read because they were last modified before --since (minus two days). */
    prunedByMtime: number
    /** Files that could not be used (unreadable, not JSONL), with why. */
    skipped: { path: string; problem: string }[]
    since?: string
    until?: string
    /** The zone days were computed in (absent when no day was needed). */
    timezone?: string
  }
  totals: TokenTotals
  /** The part of the totals made by subagents (their own transcripts). */
  subagents: TokenTotals
  /** Requests per billing lane: requestId `req_vrtx_…` vertex, other `req_…` other, none. */
  lanes: { vertex: number; other: number; none: number }
  models: (TokenTotals & { model: string })[]
  tools: { name: string; calls: number }[]
  /** With `tools`: per tool, its calls and most frequent targets. */
  toolTargets?: ToolTargets[]
  entries: {
    /** Assistant entries read (with since/until: those of the days shown). */
    assistant: number
    synthetic: number
    sidechainReplaysDropped: number
    /** Entries whose usage was not an object or had a count or speed of the wrong type. */
    malformedUsage: number
  }
  unpricedModels: string[]
  pricing: PricingNotes
  by?: GroupBy
  groups?: StatsGroup[]
}

/** One tool's calls and its most frequent targets (files, commands, hosts, ...). */
export interface ToolTargets {
  name: string
  /** What the targets are: file, command (its first word), host, query, subagent type, pattern, skill. */
  kind?: string
  calls: number
  /** Calls that named no target (all of them for tools without targets). */
  callsWithoutTarget: number
  distinctTargets: number
  top: { target: string; calls: number }[]
}

/** How the cost was reached, and what it could not price. */
export interface PricingNotes {
  /** Date the price table was last checked against its sources. */
  tableDate: string
  /** Models not in the table, priced at their family's newest rates. */
  estimated: { model: string; pricedAs: string; requests: number }[]
  /** Models of no known family: their requests are not in any cost. */
  unpriced: { model: string; requests: number }[]
  /** Requests by `usage.speed`: standard (or absent), fast, and any other value (priced as standard). */
  speeds: { standard: number; fast: number; other: { speed: string; requests: number }[] }
  /** Models with fast requests but no fast-mode rate: priced at standard rates. */
  fastWithoutRate: { model: string; requests: number }[]
}

export function emptyTotals(): TokenTotals {
  return {
    requests: 0,
    inputTokens: 0,
    cacheCreationInputTokens: 0,
    cacheReadInputTokens: 0,
    outputTokens: 0,
    cacheWrite5mTokens: 0,
    cacheWrite1hTokens: 0,
    costUsd: 0,
    unpricedRequests: 0,
    fastRequests: 0,
    fastCostUsd: 0,
    estimatedRequests: 0,
  }
}

/** Per bucket: its cost (NaN when its model has no price) and how it was priced. */
interface BucketPricing {
  cost: Float64Array
  fast: Uint8Array
  estimated: Uint8Array
  /** Adds bucket `i` to the notes (called for the buckets the report includes). */
  count(i: number): void
  notes(): PricingNotes
}

/** Prices every bucket, resolving each model once. */
function priceBuckets(u: UsageColumns, thresholds: readonly number[]): BucketPricing {
  const n = u.requests.length
  const cost = new Float64Array(n)
  const fast = new Uint8Array(n)
  const estimated = new Uint8Array(n)
  const resolve = priceResolver()
  const pricedAs = new Map<string, string>()
  const other = new Set<number>()
  const fastWithoutRate = new Uint8Array(n)
  for (let i = 0; i < n; i++) {
    const model = u.models[u.model[i]]
    const speed = u.speeds[u.speed[i]]
    if (speed !== 'fast' && speed !== 'standard' && speed !== '') other.add(i)
    const priced = priceRequest(
      resolve,
      model,
      u.slotMs[i],
      {
        inputTokens: u.inputTokens[i],
        outputTokens: u.outputTokens[i],
        cacheWrite5mTokens: u.cacheWrite5mTokens[i],
        cacheWrite1hTokens: u.cacheWrite1hTokens[i],
        cacheReadTokens: u.cacheReadInputTokens[i],
      },
      speed,
      u.promptBand[i],
      thresholds,
    )
    fast[i] = priced.fast ? 1 : 0
    cost[i] = priced.costUsd ?? NaN
    if (priced.estimated) {
      estimated[i] = 1
      pricedAs.set(model, priced.pricedAs!)
    }
    if (priced.fastWithoutRate) fastWithoutRate[i] = 1
  }
  const tally = () => new Map<string, number>()
  const estimatedBy = tally()
  const unpricedBy = tally()
  const otherBy = tally()
  const fastWithoutBy = tally()
  const speeds = { standard: 0, fast: 0 }
  const add = (m: Map<string, number>, k: string, v: number) => m.set(k, (m.get(k) ?? 0) + v)
  const list = (m: Map<string, number>) =>
    [...m].map(([model, requests]) => ({ model, requests })).sort((a, b) => compareText(a.model, b.model))
  return {
    cost,
    fast,
    estimated,
    count(i) {
      const model = u.models[u.model[i]]
      const r = u.requests[i]
      if (Number.isNaN(cost[i])) add(unpricedBy, model, r)
      if (estimated[i]) add(estimatedBy, model, r)
      if (fastWithoutRate[i]) add(fastWithoutBy, model, r)
      if (other.has(i)) add(otherBy, u.speeds[u.speed[i]], r)
      else if (fast[i]) speeds.fast += r
      else speeds.standard += r
    },
    notes: () => ({
      tableDate: PRICE_TABLE_DATE,
      estimated: list(estimatedBy).map((e) => ({ ...e, pricedAs: pricedAs.get(e.model)! })),
      unpriced: list(unpricedBy),
      speeds: {
        ...speeds,
        other: [...otherBy]
          .map(([speed, requests]) => ({ speed, requests }))
          .sort((a, b) => compareText(a.speed, b.speed)),
      },
      fastWithoutRate: list(fastWithoutBy),
    }),
  }
}

/** Adds bucket `i` of `u` into `t`, as `p` priced it. */
function addBucket(t: TokenTotals, u: UsageColumns, i: number, p: BucketPricing): void {
  const cost = p.cost[i]
  t.requests += u.requests[i]
  t.inputTokens += u.inputTokens[i]
  t.cacheCreationInputTokens += u.cacheCreationInputTokens[i]
  t.cacheReadInputTokens += u.cacheReadInputTokens[i]
  t.outputTokens += u.outputTokens[i]
  t.cacheWrite5mTokens += u.cacheWrite5mTokens[i]
  t.cacheWrite1hTokens += u.cacheWrite1hTokens[i]
  if (p.fast[i]) t.fastRequests += u.requests[i]
  if (p.estimated[i]) t.estimatedRequests += u.requests[i]
  if (Number.isNaN(cost)) t.unpricedRequests += u.requests[i]
  else {
    t.costUsd += cost
    if (p.fast[i]) t.fastCostUsd += cost
  }
}

function toolTargetsOf(t: ToolTargetsInfo): ToolTargets {
  const out: ToolTargets = {
    name: t.tool,
    calls: t.calls,
    callsWithoutTarget: t.callsWithoutTarget,
    distinctTargets: t.distinctTargets,
    top: t.top,
  }
  if (t.kind) out.kind = t.kind
  return out
}

/** Token and cost statistics over an estate (or given paths), deduplicated per request. */
export async function stats(opts: StatsOptions = {}): Promise<StatsReport> {
  const { since, until, timezone, dayOf, includes, minMtimeMs } = dayWindow(opts, opts.by === 'day')
  if (opts.toolLimit !== undefined && !(Number.isInteger(opts.toolLimit) && opts.toolLimit >= 1)) {
    throw usageError(`toolLimit expects a positive whole number, got '${opts.toolLimit}'`)
  }
  if (opts.by && !['day', 'session', 'project', 'model'].includes(opts.by)) {
    throw usageError(`by expects day, session, project or model, got '${opts.by}'`)
  }

  const { roots, scan, totals: fileTotals } = await scanEstateTotals(opts, 'usage', minMtimeMs)
  // A file named on the command line must be usable; one found by walking is reported and skipped.
  const skipped = unusableFiles(roots, fileTotals.unread)
  const sessions = scan.sessions()
  const thresholds = promptThresholds()
  // Targets are counted only for --tools (a third of the native aggregation's work otherwise).
  // Totals alone (no groups, no day window) need buckets by UTC day only, not by session and
  // 15-minute slot: a seventh of the buckets to price and sum here.
  const totalsOnly = !opts.by && since === undefined && until === undefined
  const u = scan.usage(thresholds, opts.tools === true, totalsOnly)

  const totals = emptyTotals()
  const subagents = emptyTotals()
  const lanes = { vertex: 0, other: 0, none: 0 }
  const byModel = new Map<string, TokenTotals>()
  const groups = new Map<string, StatsGroup>()
  const included = new Uint8Array(u.requests.length)
  const pricing = priceBuckets(u, thresholds)
  const unpriced = new Set<string>()

  const groupOf = (i: number): StatsGroup | undefined => {
    if (!opts.by) return undefined
    const s = sessions[u.session[i]]
    const key =
      opts.by === 'day'
        ? dayOf(u.slotMs[i])
        : opts.by === 'model'
          ? u.models[u.model[i]]
          : opts.by === 'project'
            ? s.project
            : `${s.project}/${s.sessionId}`
    let g = groups.get(key)
    if (!g) {
      g = { key, ...emptyTotals(), toolCalls: 0 }
      if (opts.by === 'session' || opts.by === 'project') g.project = s.project
      if (opts.by === 'session') g.sessionId = s.sessionId
      groups.set(key, g)
    }
    const ms = u.slotMs[i]
    if (!Number.isNaN(ms)) {
      const iso = new Date(ms).toISOString()
      if (!g.firstActivity || iso < g.firstActivity) g.firstActivity = iso
      if (!g.lastActivity || iso > g.lastActivity) g.lastActivity = iso
    }
    return g
  }

  let entriesShown = 0
  for (let i = 0; i < u.requests.length; i++) {
    if (!includes(u.slotMs[i])) continue
    included[i] = 1
    entriesShown += u.entries[i]
    const model = u.models[u.model[i]]
    pricing.count(i)
    addBucket(totals, u, i, pricing)
    if (u.subagent[i]) addBucket(subagents, u, i, pricing)
    let m = byModel.get(model)
    if (!m) byModel.set(model, (m = emptyTotals()))
    addBucket(m, u, i, pricing)
    if (Number.isNaN(pricing.cost[i])) unpriced.add(model)
    const lane = u.lane[i] === 1 ? 'vertex' : u.lane[i] === 2 ? 'other' : 'none'
    lanes[lane] += u.requests[i]
    const g = groupOf(i)
    if (g) addBucket(g, u, i, pricing)
  }

  const tools = new Map<string, number>()
  for (let j = 0; j < u.toolCalls.length; j++) {
    const b = u.toolBucket[j]
    if (!included[b]) continue
    const name = u.toolNames[u.toolName[j]]
    tools.set(name, (tools.get(name) ?? 0) + u.toolCalls[j])
    const g = groupOf(b)
    if (g) g.toolCalls += u.toolCalls[j]
  }
  // Targets are counted natively over the same buckets; only the per-tool table crosses.
  const toolTargets = opts.tools ? scan.toolTargets(included, opts.toolLimit ?? 5).map(toolTargetsOf) : undefined
  scan.release()

  const report: StatsReport = {
    scope: {
      roots: roots.roots,
      rootsSource: roots.source,
      files: fileTotals.files,
      sessions: sessions.filter((s) => s.mainFile !== undefined && s.mainFile !== null).length,
      subagentFiles: fileTotals.subagentFiles,
      bytes: fileTotals.bytes,
      prunedByMtime: fileTotals.pruned,
      skipped,
      since,
      until,
      timezone,
    },
    totals,
    subagents,
    lanes,
    models: [...byModel]
      .map(([model, t]) => ({ model, ...t }))
      .sort((a, b) => b.costUsd - a.costUsd || b.requests - a.requests),
    tools: [...tools]
      .map(([name, calls]) => ({ name, calls }))
      .sort((a, b) => b.calls - a.calls || compareText(a.name, b.name)),
    entries: {
      // With --since/--until, the entries of the days shown (replays and synthetic entries have
      // no day: they stay the scan's); else every assistant entry read.
      assistant: since !== undefined || until !== undefined ? entriesShown : u.assistantEntries,
      synthetic: u.syntheticEntries,
      sidechainReplaysDropped: u.sidechainReplays,
      malformedUsage: u.malformedUsageEntries,
    },
    unpricedModels: [...unpriced].sort(),
    pricing: pricing.notes(),
  }
  if (toolTargets) report.toolTargets = toolTargets
  if (opts.by) {
    report.by = opts.by
    const list = [...groups.values()]
    report.groups =
      opts.by === 'day'
        ? list.sort((a, b) => compareText(a.key, b.key))
        : list.sort((a, b) => b.costUsd - a.costUsd || compareText(a.key, b.key))
  }
  return report
}
