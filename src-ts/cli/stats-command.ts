// `claude-jsonl stats [PATH...]`: token usage and cost of the estate as tables (or the report as
// JSON), with a progress bar on a terminal.
import type { DatasetGroupBy } from '../dataset/stats.js'
import { stats, type GroupBy, type StatsReport, type TokenTotals, type ToolTargets } from '../read/stats.js'
import { emptyEstateNotice } from '../read/estate.js'
import { EXIT, usageError } from '../errors.js'
import { withProgress } from '../terminal/progress.js'
import { defineCommand, flag, text, wholeNumber } from './command.js'
import { JSON_OUTPUT, PROJECTS, ARCHIVE_STATE } from './common-options.js'
import { formatBytes, formatInt, formatUsd, count } from '../terminal/format.js'
import { renderTable } from '../terminal/table.js'
import { writeStderr } from '../terminal/output.cjs'

const right = 'right' as const

/** The cost, marked `~` when part of it is estimated and `*` when part of it could not be priced. */
function cost(t: TokenTotals): string {
  return formatUsd(t.costUsd) + (t.estimatedRequests > 0 ? '~' : '') + (t.unpricedRequests > 0 ? '*' : '')
}

function tokenCells(t: TokenTotals, fast: boolean): string[] {
  const cells = [
    formatInt(t.requests),
    formatInt(t.inputTokens),
    formatInt(t.cacheCreationInputTokens),
    formatInt(t.cacheReadInputTokens),
    formatInt(t.outputTokens),
    cost(t),
  ]
  if (fast) cells.push(formatInt(t.fastRequests), formatUsd(t.fastCostUsd))
  return cells
}

/** The token columns; the fast-mode pair only when the report has fast requests. */
function tokenColumns(fast: boolean) {
  const columns = [
    { header: 'Requests', align: right },
    { header: 'Input', align: right },
    { header: 'Cache write', align: right },
    { header: 'Cache read', align: right },
    { header: 'Output', align: right },
    { header: 'Cost (USD)', align: right },
  ]
  if (fast) columns.push({ header: 'Fast req', align: right }, { header: 'Fast cost', align: right })
  return columns
}

function renderToolTargets(tools: ToolTargets[]): string {
  const rows: string[][] = []
  for (const t of tools) {
    const kind = t.kind ? count(t.distinctTargets, t.kind) : ''
    const [first, ...rest] = t.top
    rows.push([t.name, formatInt(t.calls), kind, first?.target ?? '', first ? formatInt(first.calls) : ''])
    for (const x of rest) rows.push(['', '', '', x.target, formatInt(x.calls)])
  }
  return renderTable(
    [
      { header: 'Tool' },
      { header: 'Calls', align: right },
      { header: 'Targets' },
      { header: 'Top targets' },
      { header: 'Calls', align: right },
    ],
    rows,
  )
}

export function renderStats(r: StatsReport): string {
  const out: string[] = []
  const s = r.scope
  const window = s.since || s.until ? `, ${s.since ?? '…'} to ${s.until ?? '…'} (${s.timezone})` : ''
  out.push(
    `${count(s.files, 'file')} (${count(s.sessions, 'session')}, ${count(s.subagentFiles, 'subagent file')}), ${formatBytes(s.bytes)}${window}`,
  )
  for (const k of s.skipped) out.push(`skipped ${k.path}: ${k.problem}`)
  out.push('')
  const fast = r.totals.fastRequests > 0
  if (r.groups && r.by) {
    const label = { day: 'Day', session: 'Session', project: 'Project', model: 'Model' }[r.by]
    out.push(
      renderTable(
        [{ header: label }, ...tokenColumns(fast), { header: 'Tool calls', align: right }],
        r.groups.map((g) => [g.key, ...tokenCells(g, fast), formatInt(g.toolCalls)]),
        { footer: ['Total', ...tokenCells(r.totals, fast), formatInt(r.tools.reduce((a, t) => a + t.calls, 0))] },
      ),
    )
  } else {
    out.push(
      renderTable(
        [{ header: 'Model' }, ...tokenColumns(fast)],
        r.models.map((m) => [m.model, ...tokenCells(m, fast)]),
        { footer: ['Total', ...tokenCells(r.totals, fast)] },
      ),
    )
  }
  out.push('')
  const t = r.totals
  out.push(
    `Cache writes: ${formatInt(t.cacheWrite5mTokens)} at the 5-minute rate, ${formatInt(t.cacheWrite1hTokens)} at the 1-hour rate`,
  )
  out.push(
    `Billing lanes (requests): vertex ${formatInt(r.lanes.vertex)}, other ${formatInt(r.lanes.other)}, none ${formatInt(r.lanes.none)}`,
  )
  if (r.subagents.requests > 0) out.push(`Subagents: ${count(r.subagents.requests, 'request')}, ${cost(r.subagents)}`)
  out.push(
    s.since !== undefined || s.until !== undefined
      ? `Entries on the days shown: ${count(r.entries.assistant, 'assistant entry')} deduplicated to ${count(t.requests, 'request')}`
      : `Entries: ${count(r.entries.assistant, 'assistant entry')} deduplicated to ${count(t.requests, 'request')}; ${count(r.entries.sidechainReplaysDropped, 'sidechain replay')} and ${count(r.entries.synthetic, 'synthetic entry')} not counted`,
  )
  if (r.tools.length > 0 && !r.toolTargets) {
    const top = r.tools.slice(0, 12).map((x) => `${x.name} ${formatInt(x.calls)}`)
    out.push(`Tool calls: ${top.join(', ')}${r.tools.length > 12 ? `, … (${r.tools.length} tools)` : ''}`)
  }
  const p = r.pricing
  if (fast)
    out.push(
      `Fast mode: ${count(t.fastRequests, 'request')}, ${formatUsd(t.fastCostUsd)} of the cost (the model's rates, cache rates included, times its fast-mode multiplier)`,
    )
  for (const f of p.fastWithoutRate)
    out.push(
      `Fast mode on ${f.model} (${count(f.requests, 'request')}): no fast-mode rate known, priced at standard rates`,
    )
  if (p.speeds.other.length > 0)
    out.push(
      `Unknown usage.speed values, priced at standard rates: ${p.speeds.other.map((x) => `'${x.speed}' ${count(x.requests, 'request')}`).join(', ')}`,
    )
  if (r.entries.malformedUsage > 0)
    out.push(
      `Malformed usage: ${count(r.entries.malformedUsage, 'assistant entry')} (unreadable token counts taken as 0)`,
    )
  for (const e of p.estimated)
    out.push(
      `~ estimated: ${e.model} (${count(e.requests, 'request')}) is not in the price table; priced as ${e.pricedAs}, the newest of its family`,
    )
  if (r.unpricedModels.length > 0) out.push(`* not priced (unknown model): ${r.unpricedModels.join(', ')}`)
  out.push(`Prices as checked on ${p.tableDate}`)
  if (r.toolTargets) {
    out.push('')
    out.push(r.toolTargets.length > 0 ? renderToolTargets(r.toolTargets) : 'No tool calls.')
  }
  return out.join('\n')
}

/**
 * Lines for stderr, printed whatever the output format: an empty estate (where it looked), and
 * each model that could not be priced, once.
 */
export function statsNotices(r: StatsReport): string[] {
  const out: string[] = []
  if (r.scope.files === 0) out.push(emptyEstateNotice({ roots: r.scope.roots, source: r.scope.rootsSource }))
  for (const m of r.pricing.unpriced)
    out.push(`no price for model '${m.model}' (${count(m.requests, 'request')}): not in the cost totals`)
  return out
}

export const command = defineCommand({
  name: 'stats',
  args: '[PATH...]',
  options: {
    projects: PROJECTS,
    ...ARCHIVE_STATE,
    by: text('day|session|project|model', 'one row per group, with tool calls, and a total row'),
    since: text('DATE', 'first day included (YYYY-MM-DD or YYYYMMDD)'),
    until: text('DATE', 'last day included'),
    timezone: text('TZ', "IANA zone for days (default: the system's)"),
    tools: flag('per tool: its calls and top targets (files, commands, hosts, queries, patterns)'),
    limit: wholeNumber('N', 'with --tools: at most N targets per tool (default 5)', { min: 1 }),
    dataset: text('DEST', 'the team report from a dataset written by export (a folder or s3://bucket/prefix)'),
    json: JSON_OUTPUT,
  },
  description: `Token usage and cost per model (or per day, session, project or model with --by), deduplicated
per API request. PATHs may be transcript files or folders (walked recursively); without PATH,
the estate root. With --dataset, the same report from a team dataset (--by machine too; days in
UTC). Nothing is written.`,
  exitCodes: 'Exit codes: 0 ok, 2 bad usage, 3 a missing or unreadable path or a file that is not JSONL.',
  async run({ values, positionals, print }) {
    if (values.limit !== undefined && !values.tools) throw usageError('stats: --limit needs --tools')
    if (values.dataset !== undefined) {
      const given = ['projects', 'timezone'].find((k) => values[k as keyof typeof values] !== undefined)
      if (positionals.length > 0 || given)
        throw usageError(`stats: --dataset reads the dataset only (no PATH, --${given ?? 'projects'})`)
      const { openDestination } = await import('../dataset/open.js')
      const { datasetStats } = await import('../dataset/stats.js')
      const dest = await openDestination(values.dataset, { create: false })
      const team = await datasetStats(dest, {
        by: values.by as DatasetGroupBy | undefined,
        since: values.since,
        until: values.until,
        tools: values.tools,
        toolLimit: values.limit,
      })
      print(values.json ? JSON.stringify(team, null, 2) : renderStats(team as unknown as StatsReport))
      return EXIT.ok
    }
    const report = await withProgress((onProgress) =>
      stats({
        paths: positionals,
        projects: values.projects,
        generation: values.generation,
        asOf: values['as-of'],
        by: values.by as GroupBy | undefined,
        since: values.since,
        until: values.until,
        timezone: values.timezone,
        tools: values.tools,
        toolLimit: values.limit,
        onProgress,
      }),
    )
    for (const line of statsNotices(report)) writeStderr(`claude-jsonl: ${line}\n`)
    print(values.json ? JSON.stringify(report, null, 2) : renderStats(report))
    return EXIT.ok
  },
})
