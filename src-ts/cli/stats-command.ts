// `claude-jsonl stats [PATH...]`: token usage and cost of the estate as tables (or the report as
// JSON), with a progress bar on a terminal.
import { stats, type GroupBy, type StatsReport, type TokenTotals } from '../read/stats.js'
import { EXIT } from '../errors.js'
import { withProgress } from '../terminal/progress.js'
import { defineCommand, text } from './command.js'
import { JSON_OUTPUT, PROJECTS } from './common-options.js'
import { formatBytes, formatInt, formatUsd } from '../terminal/format.js'
import { renderTable } from '../terminal/table.js'

const right = 'right' as const

function cost(t: TokenTotals): string {
  return formatUsd(t.costUsd) + (t.unpricedRequests > 0 ? '*' : '')
}

function tokenCells(t: TokenTotals): string[] {
  return [
    formatInt(t.requests),
    formatInt(t.inputTokens),
    formatInt(t.cacheCreationInputTokens),
    formatInt(t.cacheReadInputTokens),
    formatInt(t.outputTokens),
    cost(t),
  ]
}

const tokenColumns = [
  { header: 'Requests', align: right },
  { header: 'Input', align: right },
  { header: 'Cache write', align: right },
  { header: 'Cache read', align: right },
  { header: 'Output', align: right },
  { header: 'Cost (USD)', align: right },
]

export function renderStats(r: StatsReport): string {
  const out: string[] = []
  const s = r.scope
  const window = s.since || s.until ? `, ${s.since ?? '…'} to ${s.until ?? '…'} (${s.timezone})` : ''
  out.push(
    `${formatInt(s.files)} files (${formatInt(s.sessions)} sessions, ${formatInt(s.subagentFiles)} subagent files), ${formatBytes(s.bytes)}${window}`,
  )
  for (const k of s.skipped) out.push(`skipped ${k.path}: ${k.problem}`)
  out.push('')
  if (r.groups && r.by) {
    const label = { day: 'Day', session: 'Session', project: 'Project', model: 'Model' }[r.by]
    out.push(
      renderTable(
        [{ header: label }, ...tokenColumns, { header: 'Tool calls', align: right }],
        r.groups.map((g) => [g.key, ...tokenCells(g), formatInt(g.toolCalls)]),
        { footer: ['Total', ...tokenCells(r.totals), formatInt(r.tools.reduce((a, t) => a + t.calls, 0))] },
      ),
    )
  } else {
    out.push(
      renderTable(
        [{ header: 'Model' }, ...tokenColumns],
        r.models.map((m) => [m.model, ...tokenCells(m)]),
        { footer: ['Total', ...tokenCells(r.totals)] },
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
  if (r.subagents.requests > 0) out.push(`Subagents: ${formatInt(r.subagents.requests)} requests, ${cost(r.subagents)}`)
  out.push(
    `Entries: ${formatInt(r.entries.assistant)} assistant entries deduplicated to ${formatInt(t.requests)} requests; ${formatInt(r.entries.sidechainReplaysDropped)} sidechain replays and ${formatInt(r.entries.synthetic)} synthetic entries not counted`,
  )
  if (r.tools.length > 0) {
    const top = r.tools.slice(0, 12).map((x) => `${x.name} ${formatInt(x.calls)}`)
    out.push(`Tool calls: ${top.join(', ')}${r.tools.length > 12 ? `, … (${r.tools.length} tools)` : ''}`)
  }
  if (r.unpricedModels.length > 0) out.push(`* not priced (unknown model): ${r.unpricedModels.join(', ')}`)
  return out.join('\n')
}

export const command = defineCommand({
  name: 'stats',
  args: '[PATH...]',
  options: {
    projects: PROJECTS,
    by: text('day|session|project|model', 'one row per group, with tool calls, and a total row'),
    since: text('DATE', 'first day included (YYYY-MM-DD or YYYYMMDD)'),
    until: text('DATE', 'last day included'),
    timezone: text('TZ', "IANA zone for days (default: the system's)"),
    json: JSON_OUTPUT,
  },
  description: `Token usage and cost per model (or per day, session, project or model with --by), deduplicated
per API request. PATHs may be transcript files or folders (walked recursively); without PATH,
the estate root. Nothing is written.`,
  exitCodes: 'Exit codes: 0 ok, 2 bad usage, 3 a missing or unreadable path or a file that is not JSONL.',
  async run({ values, positionals, print }) {
    const report = await withProgress((onProgress) =>
      stats({
        paths: positionals,
        projects: values.projects,
        by: values.by as GroupBy | undefined,
        since: values.since,
        until: values.until,
        timezone: values.timezone,
        onProgress,
      }),
    )
    print(values.json ? JSON.stringify(report, null, 2) : renderStats(report))
    return EXIT.ok
  },
})
