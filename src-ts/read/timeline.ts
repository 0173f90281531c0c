// `timeline`: one row per turn of the active chain: when it started, how long it ran (from its
// prompt to its last record), the models used and the tokens of each request (deduplicated per
// request as in `stats`: the entry with the largest output).
import { showSession, RequestUsage, ShowOptions, ShowResult, Turn } from './show.js'
import { duration } from './show-render.js'
import { formatInt, formatTokensCompact, renderTable } from '../cli/table.js'

export interface TimelineOptions extends Pick<ShowOptions, 'projects' | 'env' | 'last' | 'allBranches'> {}

export interface TimelineTurn {
  index: number
  branch?: Turn['branch']
  startedAt?: string
  endedAt?: string
  durationMs?: number
  /** The human prompt that opened the turn (first line, cut to 120 characters). */
  prompt?: string
  compaction?: { trigger?: string; preTokens?: number }
  models: string[]
  toolCalls: number
  requests: RequestUsage[]
  tokens: Turn['tokens']
}

export interface TimelineResult {
  path: string
  sessionId: string
  leaf: ShowResult['leaf']
  omittedTurns: number
  turns: TimelineTurn[]
  totals: Turn['tokens'] & { requests: number; durationMs: number }
}

export async function timeline(ref: string, opts: TimelineOptions = {}): Promise<TimelineResult> {
  const r = await showSession(ref, { ...opts, tools: true, resultChars: 0 })
  const turns = r.turns.map((t): TimelineTurn => {
    const human = t.items.find((x) => x.kind === 'human')
    const comp = t.items.find((x) => x.kind === 'compaction')
    const line = human && human.kind === 'human' ? human.text.trim().split('\n')[0] : undefined
    return {
      index: t.index,
      branch: t.branch,
      startedAt: t.startedAt,
      endedAt: t.endedAt,
      durationMs: t.durationMs,
      prompt: line === undefined ? undefined : line.length > 120 ? line.slice(0, 119) + '…' : line,
      compaction: comp && comp.kind === 'compaction' ? { trigger: comp.trigger, preTokens: comp.preTokens } : undefined,
      models: t.models,
      toolCalls: t.items.filter((x) => x.kind === 'tool-call').length,
      requests: t.requests,
      tokens: t.tokens,
    }
  })
  const totals = {
    requests: 0,
    durationMs: 0,
    inputTokens: 0,
    cacheCreationInputTokens: 0,
    cacheReadInputTokens: 0,
    outputTokens: 0,
  }
  for (const t of turns.filter((x) => !x.branch)) {
    totals.requests += t.requests.length
    totals.durationMs += t.durationMs ?? 0
    totals.inputTokens += t.tokens.inputTokens
    totals.cacheCreationInputTokens += t.tokens.cacheCreationInputTokens
    totals.cacheReadInputTokens += t.tokens.cacheReadInputTokens
    totals.outputTokens += t.tokens.outputTokens
  }
  return { path: r.path, sessionId: r.sessionId, leaf: r.leaf, omittedTurns: r.omittedTurns, turns, totals }
}

const right = 'right' as const

function clock(ts?: string): string {
  return ts ? ts.replace('T', ' ').replace(/\.\d+Z$/, 'Z') : ''
}

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
      ? `[compacted${turn.compaction.preTokens !== undefined ? `, ${formatInt(turn.compaction.preTokens)} tokens before` : ''}]${turn.prompt ? ' ' + turn.prompt : ''}`
      : (turn.prompt ?? '')
    rows.push([
      turn.branch ? `b${turn.index}` : String(turn.index),
      clock(turn.startedAt),
      turn.durationMs !== undefined ? duration(turn.durationMs) : '',
      turn.models.join(', '),
      formatInt(turn.requests.length),
      formatInt(turn.toolCalls),
      ...tok(turn.tokens),
      (turn.branch ? '(branch) ' : '') + what,
    ])
    if (opts.requests) {
      for (const r of turn.requests)
        rows.push(['', `  ${clock(r.timestamp)}`, '', r.model ?? '', '1', '', ...tok(r), r.key])
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
        duration(t.totals.durationMs),
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
