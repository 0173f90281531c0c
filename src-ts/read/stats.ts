// Token and cost statistics: the native scan dedupes requests estate-wide and sums them into
// 15-minute buckets; this file groups, filters and prices those buckets.
import { costUsd } from './prices.js'
import type { UsageColumns } from '../native.js'
import { EstateOptions, fileProblem, scanEstateFiles } from './estate.js'
import { inputError, usageError } from '../errors.js'
import { dayFormatter, parseDay } from './days.js'

export type GroupBy = 'day' | 'session' | 'project' | 'model'

export interface StatsOptions extends EstateOptions {
  by?: GroupBy
  /** First day included, YYYY-MM-DD or YYYYMMDD, in `timezone`. */
  since?: string
  /** Last day included. */
  until?: string
  /** IANA time zone for days (default: the system's). */
  timezone?: string
}

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
}

export interface StatsGroup extends TokenTotals {
  key: string
  project?: string
  sessionId?: string
  firstActivity?: string
  lastActivity?: string
  toolCalls: number
}

export interface StatsReport {
  scope: {
    roots: string[]
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
  entries: { assistant: number; synthetic: number; sidechainReplaysDropped: number }
  unpricedModels: string[]
  by?: GroupBy
  groups?: StatsGroup[]
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
  }
}

/** The cost of every bucket (NaN when its model is not priced), pricing each model once. */
function bucketCosts(u: UsageColumns): Float64Array {
  const out = new Float64Array(u.requests.length)
  const known = new Map<string, boolean>()
  for (let i = 0; i < out.length; i++) {
    const model = u.models[u.model[i]]
    if (known.get(model) === false) {
      out[i] = NaN
      continue
    }
    const cost = costUsd(
      {
        inputTokens: u.inputTokens[i],
        outputTokens: u.outputTokens[i],
        cacheWrite5mTokens: u.cacheWrite5mTokens[i],
        cacheWrite1hTokens: u.cacheWrite1hTokens[i],
        cacheReadTokens: u.cacheReadInputTokens[i],
      },
      model,
      u.longContext[i] === 1,
    )
    known.set(model, cost !== undefined)
    out[i] = cost ?? NaN
  }
  return out
}

/** Adds bucket `i` of `u`, whose cost is `cost` (NaN: unpriced), into `t`. */
function addBucket(t: TokenTotals, u: UsageColumns, i: number, cost: number): void {
  t.requests += u.requests[i]
  t.inputTokens += u.inputTokens[i]
  t.cacheCreationInputTokens += u.cacheCreationInputTokens[i]
  t.cacheReadInputTokens += u.cacheReadInputTokens[i]
  t.outputTokens += u.outputTokens[i]
  t.cacheWrite5mTokens += u.cacheWrite5mTokens[i]
  t.cacheWrite1hTokens += u.cacheWrite1hTokens[i]
  if (Number.isNaN(cost)) t.unpricedRequests += u.requests[i]
  else t.costUsd += cost
}

/** Token and cost statistics over an estate (or given paths), deduplicated per request. */
export async function stats(opts: StatsOptions = {}): Promise<StatsReport> {
  const since = opts.since === undefined ? undefined : parseDay('--since', opts.since)
  const until = opts.until === undefined ? undefined : parseDay('--until', opts.until)
  if (since && until && since > until) throw usageError(`--since ${since} is after --until ${until}`)
  // Days need ICU's time-zone data, slow to start: only build the formatter when days are used.
  const needsDays = opts.by === 'day' || since !== undefined || until !== undefined
  const timezone = needsDays ? (opts.timezone ?? Intl.DateTimeFormat().resolvedOptions().timeZone) : opts.timezone
  const dayOf = needsDays ? dayFormatter(timezone!) : () => 'unknown'
  if (!needsDays && opts.timezone) dayFormatter(opts.timezone) // still reject an unknown zone
  if (opts.by && !['day', 'session', 'project', 'model'].includes(opts.by)) {
    throw usageError(`--by expects day, session, project or model, got '${opts.by}'`)
  }

  // A file last written before the window cannot hold a record inside it. Two days of margin
  // cover every UTC offset and modest clock skew.
  const minMtimeMs = since ? Date.parse(`${since}T00:00:00Z`) - 2 * 86_400_000 : undefined
  const { roots, scan, files } = await scanEstateFiles(opts, 'usage', minMtimeMs, false)
  const skipped: { path: string; problem: string }[] = []
  const explicit = new Set(roots.source === 'paths' ? roots.roots : [])
  for (const f of files) {
    const problem = fileProblem(f)
    if (!problem) continue
    // A file named on the command line must be usable; one found by walking is reported and skipped.
    if (explicit.has(f.path)) throw inputError(f.path, problem)
    skipped.push({ path: f.path, problem })
  }
  const sessions = scan.sessions()
  const u = scan.usage()
  scan.release()

  const totals = emptyTotals()
  const subagents = emptyTotals()
  const lanes = { vertex: 0, other: 0, none: 0 }
  const byModel = new Map<string, TokenTotals>()
  const groups = new Map<string, StatsGroup>()
  const included = new Uint8Array(u.requests.length)
  const costs = bucketCosts(u)
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

  for (let i = 0; i < u.requests.length; i++) {
    if (since || until) {
      const day = dayOf(u.slotMs[i])
      if (day === 'unknown' || (since && day < since) || (until && day > until)) continue
    }
    included[i] = 1
    const model = u.models[u.model[i]]
    const cost = costs[i]
    addBucket(totals, u, i, cost)
    if (u.subagent[i]) addBucket(subagents, u, i, cost)
    let m = byModel.get(model)
    if (!m) byModel.set(model, (m = emptyTotals()))
    addBucket(m, u, i, cost)
    if (Number.isNaN(cost)) unpriced.add(model)
    const lane = u.lane[i] === 1 ? 'vertex' : u.lane[i] === 2 ? 'other' : 'none'
    lanes[lane] += u.requests[i]
    const g = groupOf(i)
    if (g) addBucket(g, u, i, cost)
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

  const report: StatsReport = {
    scope: {
      roots: roots.roots,
      files: files.length,
      sessions: sessions.filter((s) => s.mainFile !== undefined && s.mainFile !== null).length,
      subagentFiles: files.filter((f) => f.kind === 'subagent').length,
      bytes: files.reduce((a, f) => a + f.size, 0),
      prunedByMtime: files.filter((f) => f.pruned).length,
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
      .sort((a, b) => b.calls - a.calls || a.name.localeCompare(b.name)),
    entries: {
      assistant: u.assistantEntries,
      synthetic: u.syntheticEntries,
      sidechainReplaysDropped: u.sidechainReplays,
    },
    unpricedModels: [...unpriced].sort(),
  }
  if (opts.by) {
    report.by = opts.by
    const list = [...groups.values()]
    report.groups =
      opts.by === 'day'
        ? list.sort((a, b) => a.key.localeCompare(b.key))
        : list.sort((a, b) => b.costUsd - a.costUsd || a.key.localeCompare(b.key))
  }
  return report
}
