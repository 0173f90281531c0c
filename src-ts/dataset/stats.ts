// `stats --dataset`: the team report from a dataset, in the shape `stats` reports an estate. One
// SQL aggregate over the requests (DuckDB reads only the columns it sums), folded here into the
// same totals, per-model rows, lanes and groups; the days are the dataset's UTC days.
import {
  emptyTotals,
  type GroupBy,
  type StatsGroup,
  type StatsReport,
  type TokenTotals,
  type ToolTargets,
} from '../read/stats.js'
import native from '../native.js'
import { parseDay } from '../read/days.js'
import { PRICE_TABLE_DATE } from '../read/prices.js'
import { usageError } from '../errors.js'
import type { DatasetDestination } from './destination.js'
import { openDataset, run, type QueryResult } from './query.js'

/** How `stats --dataset` groups: as `stats`, or by the machine that exported the rows. */
export type DatasetGroupBy = Exclude<GroupBy, 'session'> | 'session' | 'machine'

export interface DatasetStatsOptions {
  by?: DatasetGroupBy
  /** First and last UTC day included (YYYY-MM-DD or YYYYMMDD). */
  since?: string
  until?: string
  /** Per tool: its calls and most frequent targets (`toolTargets`), as `stats --tools`. */
  tools?: boolean
  /** Targets listed per tool with `tools` (default 5). */
  toolLimit?: number
}

export type DatasetStatsReport = Omit<StatsReport, 'by'> & { by?: DatasetGroupBy; dataset: string; machines: string[] }

const KEY: Record<DatasetGroupBy, string> = {
  day: 'day',
  session: 'session_id',
  project: 'project',
  model: 'model',
  machine: 'machine',
}

function add(t: TokenTotals, r: Record<string, number | string | boolean | null>): void {
  const n = Number(r.n)
  t.requests += n
  t.inputTokens += Number(r.input)
  t.outputTokens += Number(r.output)
  t.cacheCreationInputTokens += Number(r.cache_write)
  t.cacheReadInputTokens += Number(r.cache_read)
  t.cacheWrite5mTokens += Number(r.cache_5m)
  t.cacheWrite1hTokens += Number(r.cache_1h)
  t.costUsd += Number(r.cost)
  if (!r.priced) t.unpricedRequests += n
  if (r.fast) {
    t.fastRequests += n
    t.fastCostUsd += Number(r.cost)
  }
  if (r.price_estimated) t.estimatedRequests += n
}

const byCode = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

/**
 * Per tool, its calls and its `limit` most frequent targets, from (tool, target, calls) rows, in
 * the order `stats --tools` gives (calls, then name); each tool's kind of target is the core's
 * rule for it.
 */
function toolTargetsOf(r: QueryResult, limit: number): ToolTargets[] {
  const kinds = new Map(native.toolTargetRules().map((x) => [x.tool, x.kind]))
  const per = new Map<string, ToolTargets & { all: { target: string; calls: number }[] }>()
  for (const [tool, target, n] of r.rows as [string, string | null, number][]) {
    let t = per.get(tool)
    if (!t) per.set(tool, (t = { name: tool, calls: 0, callsWithoutTarget: 0, distinctTargets: 0, top: [], all: [] }))
    t.calls += n
    if (target === null) t.callsWithoutTarget += n
    else t.all.push({ target, calls: n })
  }
  return [...per.values()]
    .map(({ all, ...t }) => {
      const kind = kinds.get(t.name)
      all.sort((a, b) => b.calls - a.calls || byCode(a.target, b.target))
      return { ...t, ...(kind ? { kind } : {}), distinctTargets: all.length, top: all.slice(0, limit) }
    })
    .sort((a, b) => b.calls - a.calls || byCode(a.name, b.name))
}

/** The team report of the dataset at `dest`. */
export async function datasetStats(
  dest: DatasetDestination,
  opts: DatasetStatsOptions = {},
): Promise<DatasetStatsReport> {
  if (opts.by && !(opts.by in KEY))
    throw usageError(`--by expects day, session, project, model or machine, got '${opts.by}'`)
  const since = opts.since === undefined ? undefined : parseDay('--since', opts.since)
  const until = opts.until === undefined ? undefined : parseDay('--until', opts.until)
  if (since && until && since > until) throw usageError(`--since ${since} is after --until ${until}`)
  const where = [since ? `day >= '${since}'` : '', until ? `day <= '${until}' AND day <> 'unknown'` : '']
    .filter(Boolean)
    .join(' AND ')
  const key = opts.by ? KEY[opts.by] : `''`
  const { connection, close } = await openDataset(dest)
  try {
    const sql = `SELECT ${key} AS k, model, agent_id IS NOT NULL AS sub,
      CASE WHEN request_id LIKE 'req_vrtx_%' THEN 'vertex' WHEN request_id LIKE 'req_%' THEN 'other' ELSE 'none' END AS lane,
      priced, price_estimated, fast, coalesce(speed, '') AS speed, coalesce(priced_as, '') AS priced_as,
      count(*)::DOUBLE AS n, sum(input_tokens)::DOUBLE AS input, sum(output_tokens)::DOUBLE AS output,
      sum(cache_creation_input_tokens)::DOUBLE AS cache_write, sum(cache_read_input_tokens)::DOUBLE AS cache_read,
      sum(cache_write_5m_tokens)::DOUBLE AS cache_5m, sum(cache_write_1h_tokens)::DOUBLE AS cache_1h,
      sum(coalesce(cost_usd, 0))::DOUBLE AS cost,
      epoch_ms(min(timestamp))::DOUBLE AS first_ms, epoch_ms(max(timestamp))::DOUBLE AS last_ms
      FROM requests ${where ? `WHERE ${where}` : ''} GROUP BY ALL ORDER BY ALL`
    const agg = await run(connection, sql)
    const rows = agg.rows.map((r) => Object.fromEntries(agg.columns.map((c, i) => [c, r[i]]))) as Record<
      string,
      number | string | boolean | null
    >[]
    const scope = await run(
      connection,
      `SELECT count(DISTINCT session_id)::DOUBLE, count(*)::DOUBLE, coalesce(sum(bytes), 0)::DOUBLE, list(DISTINCT machine ORDER BY machine) FROM sessions`,
    )
    const tools = await run(
      connection,
      `SELECT tool, count(*)::DOUBLE FROM tool_calls ${where ? `WHERE ${where}` : ''} GROUP BY tool ORDER BY 2 DESC, 1`,
    )
    const toolTargets = opts.tools
      ? toolTargetsOf(
          await run(
            connection,
            `SELECT tool, target, count(*)::DOUBLE FROM tool_calls ${where ? `WHERE ${where}` : ''} GROUP BY ALL`,
          ),
          opts.toolLimit ?? 5,
        )
      : undefined
    // Calls per group, as `stats` gives each group its tool calls (a call's day is its own).
    const callsByKey = new Map<string, number>()
    if (opts.by) {
      const perGroup = await run(
        connection,
        `SELECT ${key} AS k, count(*)::DOUBLE FROM tool_calls ${where ? `WHERE ${where}` : ''} GROUP BY 1`,
      )
      for (const [k, n] of perGroup.rows) callsByKey.set(String(k), Number(n))
    }
    const totals = emptyTotals()
    const subagents = emptyTotals()
    const lanes = { vertex: 0, other: 0, none: 0 }
    const models = new Map<string, TokenTotals & { model: string }>()
    const groups = new Map<string, StatsGroup>()
    const estimated = new Map<string, { model: string; pricedAs: string; requests: number }>()
    const unpriced = new Map<string, number>()
    const speeds = { standard: 0, fast: 0, other: new Map<string, number>() }
    for (const r of rows) {
      add(totals, r)
      if (r.sub) add(subagents, r)
      lanes[r.lane as keyof typeof lanes] += Number(r.n)
      const model = String(r.model)
      let m = models.get(model)
      if (!m) models.set(model, (m = { ...emptyTotals(), model }))
      add(m, r)
      if (!r.priced) unpriced.set(model, (unpriced.get(model) ?? 0) + Number(r.n))
      if (r.price_estimated) {
        const e = estimated.get(model) ?? { model, pricedAs: String(r.priced_as), requests: 0 }
        e.requests += Number(r.n)
        estimated.set(model, e)
      }
      const speed = String(r.speed)
      if (speed === '' || speed === 'standard') speeds.standard += Number(r.n)
      else if (speed === 'fast') speeds.fast += Number(r.n)
      else speeds.other.set(speed, (speeds.other.get(speed) ?? 0) + Number(r.n))
      if (opts.by) {
        const k = String(r.k)
        let g = groups.get(k)
        if (!g) groups.set(k, (g = { ...emptyTotals(), key: k, toolCalls: 0 }))
        add(g, r)
        const first = Number(r.first_ms)
        const last = Number(r.last_ms)
        if (Number.isFinite(first) && (!g.firstActivity || first < Date.parse(g.firstActivity)))
          g.firstActivity = new Date(first).toISOString()
        if (Number.isFinite(last) && (!g.lastActivity || last > Date.parse(g.lastActivity)))
          g.lastActivity = new Date(last).toISOString()
      }
    }
    const [sessions, sessionRows, bytes, machines] = scope.rows[0] as [number, number, number, string[]]
    return {
      dataset: dest.label,
      machines: machines ?? [],
      scope: {
        roots: [dest.label],
        rootsSource: 'paths',
        files: sessionRows,
        sessions,
        subagentFiles: 0,
        bytes,
        prunedByMtime: 0,
        skipped: [],
        ...(since ? { since } : {}),
        ...(until ? { until } : {}),
        ...(since || until || opts.by === 'day' ? { timezone: 'UTC' } : {}),
      },
      totals,
      subagents,
      lanes,
      models: [...models.values()].sort((a, b) => b.costUsd - a.costUsd || (a.model < b.model ? -1 : 1)),
      tools: tools.rows.map(([name, calls]) => ({ name: String(name), calls: Number(calls) })),
      entries: { assistant: totals.requests, synthetic: 0, sidechainReplaysDropped: 0, malformedUsage: 0 },
      unpricedModels: [...unpriced.keys()].sort(),
      pricing: {
        tableDate: PRICE_TABLE_DATE,
        estimated: [...estimated.values()],
        unpriced: [...unpriced].map(([model, requests]) => ({ model, requests })),
        speeds: {
          standard: speeds.standard,
          fast: speeds.fast,
          other: [...speeds.other].map(([speed, requests]) => ({ speed, requests })),
        },
        fastWithoutRate: [],
      },
      ...(toolTargets ? { toolTargets } : {}),
      ...(opts.by
        ? {
            by: opts.by,
            groups: [...groups.values()]
              .map((g) => ({ ...g, toolCalls: callsByKey.get(g.key) ?? 0 }))
              .sort((a, b) => (a.key < b.key ? -1 : 1)),
          }
        : {}),
    }
  } finally {
    close()
  }
}
