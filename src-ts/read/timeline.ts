// `timeline`: one row per turn of the active chain: when it started, how long it ran (from its
// prompt to its last record), the models used and the tokens of each request (deduplicated per
// request as in `stats`: the entry with the largest output).
import { showSession, RequestUsage, ShowOptions, ShowResult, Turn } from './show.js'

/** Which turns `timeline` lists: where to find the session, the last N turns, abandoned branches. */
export interface TimelineOptions extends Pick<
  ShowOptions,
  'projects' | 'env' | 'last' | 'allBranches' | 'generation' | 'asOf'
> {}

/**
 * One turn as `timeline` lists it: its times and duration, the prompt that opened it, models,
 * tool calls, requests and tokens.
 */
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

/** A session's turns with their durations and tokens, and the totals over them. */
export interface TimelineResult {
  path: string
  sessionId: string
  leaf: ShowResult['leaf']
  omittedTurns: number
  turns: TimelineTurn[]
  totals: Turn['tokens'] & { requests: number; durationMs: number }
}

/**
 * The turns of a session (a path, uuid or unique prefix) with their durations and tokens, from the
 * active chain the client resumes (the output of `claude-jsonl timeline`).
 */
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
