// The deterministic summary (`--summary deterministic`): the nine sections of the model summary,
// built from the summarised records alone. Every body line cites its source as `L<line>`.
// Candidate lines are ranked by the protocol's priorities (user wording and requested outcomes
// first, repetitive tool detail last) and taken while they fit the character budget; each
// section then lists what it got in source order. Selection uses cue words in several languages
// only to rank: every human prompt is a candidate whatever its language.
import { CommandRun, SummaryEntry, SummaryInputs, oneLine } from './summary-inputs.js'
import { SECTION, SECTION_HEADINGS, SUMMARY_SECTIONS } from './summary-sections.js'
import { anyPatternTest } from './any-pattern.js'

export const MIN_SUMMARY_CHAR_BUDGET = 4000
export const DEFAULT_SUMMARY_CHAR_BUDGET = 60000
/** Without --summary-char-budget, the deterministic summary takes at most this share of the
 * estimated tokens it replaces (as characters at 4 per token), between the minimum and the
 * default budget: a 20k-token session must not get a 15k-token summary. */
export const DETERMINISTIC_SUMMARY_SHARE = 0.1

/** The deterministic summary's default character budget for a part of `replacedTokens`. */
export function deterministicCharBudget(replacedTokens: number): number {
  const share = Math.round(replacedTokens * DETERMINISTIC_SUMMARY_SHARE * 4)
  return Math.max(MIN_SUMMARY_CHAR_BUDGET, Math.min(DEFAULT_SUMMARY_CHAR_BUDGET, share))
}

/** Claude Code's own opening for a continued session. */
export const CONTINUATION_PREAMBLE =
  'This session is being continued from a previous conversation. The summary below covers the earlier portion of the conversation.'

export interface DeterministicSummaryOptions {
  /** The original transcript, named so the model can read details (Claude Code does the same). */
  transcriptPath: string
  /** Character budget for the whole text (default 60000). */
  charBudget?: number
  /** The first line kept raw after the summary, when known. */
  firstKeptLine?: number
  /** Records kept raw after the summary, when known. */
  keptRecords?: number
  /** Without the preamble and closing pointer: the body that composeSummary frames. */
  bare?: boolean
  /** Heading level of the nine sections (default 2; 3 under a model summary's appendix). */
  headingLevel?: 2 | 3
  /** Prior compact summaries are embedded verbatim elsewhere: do not fold their lines in. */
  skipPriorSummaries?: boolean
}

export interface DeterministicSummary {
  text: string
  /** Candidate lines found and taken. */
  candidates: number
  included: number
}

interface Candidate {
  section: number
  /** 1 (user wording, requested outcomes) … 7 (repetitive detail), as the protocol ranks. */
  tier: number
  score: number
  /** Source order within the section. */
  order: number
  text: string
}

const CONSTRAINT =
  /\b(must|never|always|don'?t|do not|only|should|shouldn'?t|need|needs|please|make sure|require[sd]?|important|without|avoid|keep|no more|exactly)\b|必须|不要|别|请|务必|一定|只|しないで|ください|必ず|だけ|하지 ?마|반드시|꼭|nicht|immer|jamais|toujours|nunca|siempre|не |нельзя|всегда/i
const SUPERSEDE =
  /\b(instead|actually|scratch that|change of plan|no longer|forget|rather|switch|not that|stop|revert|undo|wait)\b|^\s*no[,.!\s]|其实|改为|不用了|やっぱり|代わりに|대신|stattdessen|plutôt|en lugar|вместо/i
const DECISION =
  /\b(decid\w*|decision|going with|go with|chose|choose|choosing|opt(?:ed)? for|settled on|the plan|approach|I'll use|we'll use|will use|switch(?:ed|ing)? to|the fix is|fixed by)\b|决定|选择|采用|方案|決定|方針|결정|선택|decid|entschied|решил/i
const REASON =
  /\b(because|since|so that|due to|reason|in order to|to avoid|to ensure|which means|therefore)\b|因为|所以|由于|ため|ので|때문|이유|porque|parce que|weil|потому/i
const RESEARCH =
  /\b(found|finding|root cause|the cause|turns out|confirmed|verified|the issue|the problem|the bug|it seems|appears|looks like|notice[ds]?|observ\w*|conclu\w*|discover\w*|shows that|indicates|measured|benchmark)\b|发现|原因|确认|発見|原因|확인|발견/i
const REJECT =
  /\b(instead of|rather than|reject\w*|won'?t work|doesn'?t work|does not work|didn'?t work|not work|abandon\w*|revert\w*|no longer|supersed\w*|dropp?(?:ed|ing)?|don'?t use|do not use|scrap\w*|wrong|incorrect|mistake|roll(?:ed)? back|dead end|not viable)\b|放弃|不行|不可行|やめ|却下|안 ?됨|포기/i
const RISK =
  /\b(TODO|FIXME|risk\w*|unknown|unclear|not sure|uncertain|follow[- ]up|remaining|still need|not yet|unresolved|open question|caveat|warning|might break|flaky|limitation|left to do|next step)\b|风险|待办|未解决|リスク|未解決|위험|미해결/i

/** Any cue at all: one fast test before the sentence split and the five tests (see any-pattern.ts). */
export const CUE_PATTERNS = [DECISION, REASON, RESEARCH, REJECT, RISK]
const anyCue = anyPatternTest(CUE_PATTERNS)

/** Sentences (or lines) of an assistant text, trimmed. */
function sentences(text: string): string[] {
  return text
    .split(/\n+|(?<=[.!?。！？])\s+/)
    .map((s) => s.replace(/^[\s>*#-]+/, '').trim())
    .filter((s) => s.length >= 24 && !s.endsWith(':'))
}

function quote(text: string, max: number): string {
  return `"${oneLine(text, max)}"`
}

const ERROR_WORDS =
  /\b(?:error|errors|fail|failed|failure|FAIL|panic|exception|cannot|can't|denied|not found|no such|fatal|traceback|undefined|refused)\b/i

function statusOf(c: CommandRun): string {
  if (!c.outcome) return 'no result in the summarised records'
  if (c.cancelled) return 'was cancelled (a parallel call failed)'
  if (!c.failed) return 'succeeded'
  // The first line that names an error, else the first line of output.
  const lines = c.outcome.text
    .split('\n')
    .filter((l) => l.trim() !== '' && !/^(?:Error: )?Exit code \d+$/.test(l.trim()))
  const first = lines.find((l) => ERROR_WORDS.test(l)) ?? lines[0]
  const code = c.outcome.exitCode !== undefined ? ` (exit ${c.outcome.exitCode})` : ''
  return `FAILED${code}${first ? `: ${oneLine(first, 200)}` : ''}`
}

/** What each kind of candidate line is drawn from, and where it is added. */
interface CandidateContext {
  inputs: SummaryInputs
  opts: DeterministicSummaryOptions
  add: (section: number, tier: number, score: number, order: number, text: string) => void
  /** An entry's position in the summarised records, 0 (first) to 1 (last). */
  recency: (e: SummaryEntry) => number
  humans: SummaryEntry[]
  /** The source's last line (at least 1), for the recency of line-numbered facts. */
  lastLine: number
}

/** Every line the summary could hold, with its section, tier, score and order. */
function candidates(inputs: SummaryInputs, opts: DeterministicSummaryOptions): Candidate[] {
  const out: Candidate[] = []
  const n = Math.max(1, inputs.entries.length)
  const position = new Map<SummaryEntry, number>()
  inputs.entries.forEach((e, i) => position.set(e, i / n))
  const ctx: CandidateContext = {
    inputs,
    opts,
    add: (section, tier, score, order, text) => out.push({ section, tier, score, order, text }),
    recency: (e) => position.get(e) ?? 0,
    humans: inputs.entries.filter((e) => e.human !== undefined),
    lastLine: Math.max(1, inputs.lastLine),
  }
  for (const step of [
    userWording,
    currentState,
    priorSummaries,
    assistantCues,
    fileEvidence,
    commandEvidence,
    errorsAndInterrupts,
  ])
    step(ctx)
  return out
}

/** Every prompt in the user's own words (tier 1), where the user changed direction, and the
 * latest request. */
function userWording({ add, recency, humans }: CandidateContext): void {
  for (const e of humans) {
    const text = e.human as string
    const constraint = CONSTRAINT.test(text)
    add(
      SECTION.wording,
      1,
      (constraint ? 3 : 0) + recency(e) * 2 - text.length / 20000,
      e.line,
      `- L${e.line} User${constraint ? ' (constraint)' : ''}: ${quote(text, 800)}`,
    )
    const supersedes = SUPERSEDE.test(text)
    add(
      SECTION.timeline,
      supersedes ? 2 : 3,
      recency(e) + (supersedes ? 1 : 0),
      e.line,
      `- L${e.line} ${supersedes ? 'User changed direction' : 'User asked'}: ${quote(text, 220)}`,
    )
    if (supersedes)
      add(
        SECTION.rejected,
        2,
        recency(e),
        e.line,
        `- L${e.line} User redirected (what came before is superseded): ${quote(text, 300)}`,
      )
  }
  const lastHuman = humans[humans.length - 1]
  if (lastHuman)
    add(SECTION.current, 1, 10, 0, `- L${lastHuman.line} Latest user request: ${quote(lastHuman.human as string, 600)}`)
}

/** Where the work stands: the latest todo list, the last failed command not run again, the last assistant message. */
function currentState({ inputs, add }: CandidateContext): void {
  const todo = inputs.todos[inputs.todos.length - 1]
  if (todo) {
    const from = todo.source === 'TodoWrite' ? 'TodoWrite' : 'the task records, TaskCreate/TaskUpdate'
    // The working state comes first (tier 1): the list's head and its open items, and the done
    // ones too while the list is short; a long list's done items compete with the rest.
    add(SECTION.current, 1, 9, 1, `- L${todo.line} Latest todo list (${from}), ${todo.todos.length} items:`)
    todo.todos.forEach((t, i) => {
      const rank = t.status === 'in_progress' ? 3 : t.status === 'pending' ? 2 : 1
      add(
        SECTION.current,
        t.status !== 'completed' || todo.todos.length <= 12 ? 1 : 2,
        8 + rank / 10 - i / 1000,
        2 + i / 1000,
        `- L${t.line ?? todo.line} [${t.status}] ${oneLine(t.content, 200)}`,
      )
      if (t.status !== 'completed')
        add(
          SECTION.risks,
          3,
          rank,
          todo.line + i / 1000,
          `- L${t.line ?? todo.line} Open todo [${t.status}]: ${oneLine(t.content, 200)}`,
        )
    })
  }
  // The last command that failed, while no later run of the same command replaced it: where
  // the work stood when the summary begins.
  const lastFailed = [...inputs.commands].reverse().find((c) => c.failed)
  if (lastFailed && ![...inputs.commands].some((c) => c.line > lastFailed.line && c.command === lastFailed.command))
    add(
      SECTION.current,
      1,
      9,
      1.5,
      `- L${lastFailed.line} Last failed command (not run again since): \`${oneLine(lastFailed.command, 200).replace(/`/g, "'")}\` ${statusOf(lastFailed)}`,
    )
  const lastText = [...inputs.entries].reverse().find((e) => e.texts.length > 0)
  if (lastText)
    add(SECTION.current, 2, 7, 3, `- L${lastText.line} Last assistant message: ${quote(lastText.texts.join(' '), 500)}`)
}

/** Prior compact summaries, which carry everything from before them (tier 2, their own order). */
function priorSummaries({ inputs, opts, add }: CandidateContext): void {
  for (const e of inputs.entries) {
    if (e.priorSummary === undefined || opts.skipPriorSummaries) continue
    add(
      SECTION.timeline,
      1,
      5,
      e.line,
      `- L${e.line} Earlier history, from a prior compact summary (${e.priorSummary.length} chars):`,
    )
    // Claude Code's own framing sentences carry no history; the rest of each line does.
    const lines = e.priorSummary
      .split('\n')
      .map((l) =>
        l
          .replace(
            /^This session is being continued from a previous conversation[^.]*\.\s*(?:The summary below covers the earlier portion of the conversation\.)?/,
            '',
          )
          .trim(),
      )
      .filter((l) => l !== '' && !/^(If you need specific details|Please continue the conversation)/.test(l))
    lines.forEach((l, i) =>
      add(
        SECTION.timeline,
        3,
        4 - i / lines.length,
        e.line + (i + 1) / (lines.length + 1),
        `- L${e.line} (prior summary) ${oneLine(l, 400)}`,
      ),
    )
  }
}

/** Decisions, research, rejections and risks in the assistant's text and thinking. */
function assistantCues({ inputs, add, recency }: CandidateContext): void {
  // Each distinct sentence is tested once; one pass with all cues together skips the sentences
  // that have none.
  const tested = new Set<string>()
  for (const e of inputs.entries) {
    const sources: [string, boolean][] = [
      ...e.texts.map((t): [string, boolean] => [t, false]),
      ...e.thinking.map((t): [string, boolean] => [t, true]),
    ]
    for (const [text, thinking] of sources) {
      // A text with no cue has no sentence with one (sentences are substrings cut at non-word
      // characters, so every match in a sentence is a match in its text): skip the split.
      if (!anyCue(text)) continue
      sentences(text).forEach((s, k) => {
        if (tested.has(s)) return
        tested.add(s)
        if (!anyCue(s)) return
        const order = e.line + k / 10000
        const r = recency(e) - (thinking ? 0.5 : 0)
        const line = oneLine(s, 400)
        const plain = `- L${e.line} ${line}`
        const labelled = thinking ? `- L${e.line} (thinking) ${line}` : plain
        const reason = REASON.test(s)
        if (DECISION.test(s)) add(SECTION.decisions, 2, r + (reason ? 1 : 0), order, labelled)
        else if (reason && !thinking) add(SECTION.decisions, 4, r, order, plain)
        if (REJECT.test(s)) add(SECTION.rejected, 3, r, order, labelled)
        if (RESEARCH.test(s)) add(SECTION.research, 4, r, order, labelled)
        if (RISK.test(s)) add(SECTION.risks, 4, r, order, plain)
      })
    }
  }
}

/** Each file created or edited: how often, by which tools, how many edits failed. */
function fileEvidence({ inputs, add, lastLine }: CandidateContext): void {
  const files = new Map<
    string,
    { first: number; last: number; tools: Set<string>; count: number; created: boolean; failed: number }
  >()
  for (const f of inputs.fileChanges) {
    const v = files.get(f.path) ?? {
      first: f.line,
      last: f.line,
      tools: new Set(),
      count: 0,
      created: false,
      failed: 0,
    }
    v.last = f.line
    v.tools.add(f.tool)
    v.count++
    v.created ||= f.created
    if (f.failed) v.failed++
    files.set(f.path, v)
  }
  for (const [path, v] of files) {
    const what = v.created ? 'created' : 'edited'
    const failed = v.failed ? `, ${v.failed} failed` : ''
    add(
      SECTION.evidence,
      5,
      v.last / lastLine + Math.min(v.count, 10) / 10,
      v.last,
      `- L${v.last} File ${what}: ${path} (${v.count}× ${[...v.tools].join('/')}${failed}${v.count > 1 ? `, first L${v.first}` : ''})`,
    )
  }
}

/** Commands run: failures (and those never run again since), validations, the rest. */
function commandEvidence({ inputs, add, lastLine }: CandidateContext): void {
  const lastRun = new Map<string, CommandRun>()
  for (const c of inputs.commands) lastRun.set(c.command, c)
  for (const c of inputs.commands) {
    const cmd = '`' + oneLine(c.command, 200).replace(/`/g, "'") + '`'
    const r = c.line / lastLine
    if (c.failed) {
      add(SECTION.evidence, 5, 2 + r, c.line, `- L${c.line} Command ${cmd} ${statusOf(c)}`)
      const later = lastRun.get(c.command)
      if (later === c) add(SECTION.risks, 3, 1 + r, c.line, `- L${c.line} Unresolved failure: ${cmd} ${statusOf(c)}`)
    } else if (c.validation && !c.cancelled)
      add(SECTION.evidence, 5, 1 + r, c.line, `- L${c.line} Validation ${cmd} ${statusOf(c)}`)
    else
      add(
        SECTION.evidence,
        7,
        r,
        c.line,
        `- L${c.line} Ran ${cmd}${c.description ? ` (${oneLine(c.description, 80)})` : ''}`,
      )
  }
}

/** API errors, tool errors other than cancelled parallel calls, and requests the user interrupted. */
function errorsAndInterrupts({ inputs, add, recency }: CandidateContext): void {
  for (const e of inputs.entries) {
    if (e.apiError !== undefined)
      add(SECTION.risks, 5, recency(e), e.line, `- L${e.line} API error: ${oneLine(e.apiError, 200)}`)
    for (const o of e.toolResults) {
      if (o.isError && o.name !== 'Bash' && !o.text.startsWith('<tool_use_error>Cancelled: parallel tool call'))
        add(
          SECTION.evidence,
          6,
          recency(e),
          e.line,
          `- L${e.line} Tool error${o.name ? ` (${o.name})` : ''}: ${oneLine(o.text, 200)}`,
        )
    }
    if (e.human !== undefined && /^\[Request interrupted by user/.test(e.human))
      add(SECTION.risks, 5, recency(e), e.line, `- L${e.line} The user interrupted a request here.`)
  }
}

function fallback(section: number, inputs: SummaryInputs): string {
  return SUMMARY_SECTIONS[section].fallback({
    at: `L${inputs.lastLine || 1}`,
    range: `L${inputs.firstLine || 1}–L${inputs.lastLine || 1}`,
  })
}

function boundaryLine(inputs: SummaryInputs, opts: DeterministicSummaryOptions): string {
  const range = `L${inputs.firstLine || 1}–L${inputs.lastLine || 1}`
  const kept =
    opts.firstKeptLine !== undefined
      ? ` The recent conversation continues verbatim after this summary from line ${opts.firstKeptLine}${opts.keptRecords !== undefined ? ` (${opts.keptRecords} records)` : ''}.`
      : ' The recent conversation continues verbatim after this summary.'
  return `- L${inputs.lastLine || 1} This summary covers ${inputs.entries.length} records, lines ${range} of the original transcript.${kept} Where the recent messages differ from this summary, they are newer and win.`
}

/** The deterministic summary of `inputs` within `charBudget` characters. */
export function deterministicSummary(inputs: SummaryInputs, opts: DeterministicSummaryOptions): DeterministicSummary {
  const budget = opts.charBudget ?? DEFAULT_SUMMARY_CHAR_BUDGET
  const head = opts.bare
    ? ''
    : `${CONTINUATION_PREAMBLE} It was written offline by claude-jsonl from the transcript itself; each line names its source line in the original transcript as L<number>.\n\n`
  const tail = opts.bare
    ? ''
    : `\nIf you need specific details from before compaction (like exact code snippets, error messages, or content you generated), read the full transcript at: ${opts.transcriptPath}\n`
  const all = candidates(inputs, opts)
  const chosen = new Map<number, Candidate[]>()
  const boundary = boundaryLine(inputs, opts)
  // The fixed frame: headings, the boundary line, and a fallback line per section.
  let used = head.length + tail.length
  const hashes = '#'.repeat(opts.headingLevel ?? 2)
  const fallbacks = SUMMARY_SECTIONS.map((_, i) => fallback(i, inputs))
  for (const [i, h] of SECTION_HEADINGS.entries())
    used += h.length + hashes.length + 3 + (i === SECTION.boundary ? boundary.length + 1 : fallbacks[i].length + 1)
  const ranked = [...all].sort(
    (a, b) => a.tier - b.tier || b.score - a.score || b.order - a.order || (a.text < b.text ? -1 : 1),
  )
  let included = 0
  for (const c of ranked) {
    const list = chosen.get(c.section) ?? []
    // A section's first real line replaces its fallback line.
    const cost =
      c.text.length + 1 - (list.length === 0 && c.section !== SECTION.boundary ? fallbacks[c.section].length + 1 : 0)
    if (used + cost > budget) continue
    used += cost
    list.push(c)
    chosen.set(c.section, list)
    included++
  }
  const parts: string[] = [head]
  for (const [i, h] of SECTION_HEADINGS.entries()) {
    parts.push(`${hashes} ${h}\n`)
    const list = (chosen.get(i) ?? []).sort((a, b) => a.order - b.order)
    if (i === SECTION.boundary) parts.push(boundary + '\n')
    else if (list.length === 0) parts.push(fallbacks[i] + '\n')
    for (const c of list) parts.push(c.text + '\n')
    parts.push('\n')
  }
  let text = parts.join('').replace(/\n+$/, '\n') + tail
  text = text.replace(/\n$/, '')
  return { text, candidates: all.length, included }
}
