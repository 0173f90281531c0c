// `timeline` as a table: one row per turn of the active chain (and, with --requests, one per
// request under its turn) with its duration, models and tokens.
import type { TimelineResult } from '../read/timeline.js'
import { formatDuration, formatInt, formatTimestamp, formatTokensCompact, count } from '../terminal/format.js'
import { renderTable } from '../terminal/table.js'

const right = 'right' as const

/** The timeline as a table; with `requests`, one indented row per request under its turn. */
export function renderTimeline(t: TimelineResult, opts: { requests?: boolean } = {}): string {
  const rows: string[][] = []
  const tok = (x: {
    inputTokens: number
    cacheCreationInputTokens: number
    cacheReadInputTokens: number
    outputTokens: number
  }) => [
    formatTokensCompact(x.inputTokens),
    formatTokensCompact(x.cacheCreationInputTokens),
    formatTokensCompact(x.cacheReadInputTokens),
    formatTokensCompact(x.outputTokens),
  ]
  for (const turn of t.turns) {
    const what = turn.compaction
      ? `[compacted${turn.compaction.preTokens !== undefined ? `, ${count(turn.compaction.preTokens, 'token')} before` : ''}]${turn.prompt ? ' ' + turn.prompt : ''}`
      : (turn.prompt ?? '')
    rows.push([
      turn.branch ? `b${turn.index}` : String(turn.index),
      formatTimestamp(turn.startedAt),
      turn.durationMs !== undefined ? formatDuration(turn.durationMs) : '',
      turn.models.join(', '),
      formatInt(turn.requests.length),
      formatInt(turn.toolCalls),
      ...tok(turn.tokens),
      (turn.branch ? '(branch) ' : '') + what,
    ])
    if (opts.requests) {
      for (const r of turn.requests)
        rows.push(['', `  ${formatTimestamp(r.timestamp)}`, '', r.model ?? '', '1', '', ...tok(r), r.key])
    }
  }
  const head = [
    `Session ${t.sessionId} (${t.path})`,
    `Leaf: line ${t.leaf.line} by ${t.leaf.rule}${t.omittedTurns > 0 ? `; ${formatInt(t.omittedTurns)} earlier turns not shown` : ''}`,
    '',
  ]
  const table = renderTable(
    [
      { header: 'Turn', align: right },
      { header: 'Started (UTC)' },
      { header: 'Duration', align: right },
      { header: 'Model' },
      { header: 'Requests', align: right },
      { header: 'Tools', align: right },
      { header: 'Input', align: right },
      { header: 'Cache write', align: right },
      { header: 'Cache read', align: right },
      { header: 'Output', align: right },
      { header: 'Prompt' },
    ],
    rows,
    {
      footer: [
        'Total',
        '',
        formatDuration(t.totals.durationMs),
        '',
        formatInt(t.totals.requests),
        formatInt(t.turns.filter((x) => !x.branch).reduce((a, x) => a + x.toolCalls, 0)),
        ...tok(t.totals),
        '',
      ],
    },
  )
  return head.join('\n') + '\n' + table
}
