// `show`: the conversation on the active chain, as Claude Code itself would resume it. The
// native graph picks the leaf and the chain (fragments and tool results spliced in) and the core
// splits it into turns; only the records of the turns shown are read (by their byte spans) and
// parsed here, into typed turns.
import { closeSync, openSync, readSync } from 'node:fs'
import native from '../native.js'
import type { TranscriptIndex } from '../native.js'
import type { ActiveChain, ChainTurns, ToolTargetKind } from '#native'
export type { ToolTargetKind }
import { EstateOptions } from './estate.js'
import { resolveSessionAt, SessionRef } from './session-ref.js'
import { archivedAt, transcriptBytesAt } from '../archive/in-memory.js'
import { transcriptProblem } from './record-types.js'
import { fromNative, inputError } from '../errors.js'

/**
 * What `showSession` includes of the conversation: tool traffic, thinking, human text only, the
 * last turns, abandoned branches.
 */
export interface ShowOptions extends Pick<EstateOptions, 'projects' | 'env' | 'generation' | 'asOf'> {
  /** Tool calls (one per call, with its target), their results, and meta injections. */
  tools?: boolean
  /** Thinking blocks. */
  thinking?: boolean
  /** Human text only (and compaction markers). */
  humanOnly?: boolean
  /** Only the last N turns of the active chain. */
  last?: number
  /** Also the rewound/abandoned branches, each after the turn it forks from. */
  allBranches?: boolean
  /** Tool results are cut to this many characters (default 2000). */
  resultChars?: number
}

/** The tokens of one API request in a turn. */
export interface RequestUsage {
  /** requestId, else message.id */
  key: string
  model?: string
  timestamp?: string
  inputTokens: number
  cacheCreationInputTokens: number
  cacheReadInputTokens: number
  outputTokens: number
}

interface At {
  /** 1-based line of the record in the file. */
  line: number
  timestamp?: string
}

/**
 * One thing in a turn, in file order: a prompt, injected meta text, assistant text, thinking, a
 * tool call or its result, a compaction marker, or a line that is not a record.
 */
export type Item =
  | ({ kind: 'human'; text: string; uuid?: string } & At)
  | ({ kind: 'meta'; text: string } & At)
  | ({ kind: 'assistant'; messageId?: string; model?: string; text: string } & At)
  | ({ kind: 'thinking'; text: string } & At)
  | ({
      kind: 'tool-call'
      id: string
      name: string
      target?: { kind: ToolTargetKind; value: string }
      input: string
    } & At)
  | ({ kind: 'tool-result'; toolUseId: string; name?: string; text: string; truncated: boolean; isError: boolean } & At)
  | ({ kind: 'compaction'; trigger?: string; preTokens?: number; summary?: string } & At)
  | { kind: 'corrupt'; line: number; problem: string }

/**
 * One turn of the conversation: from a human prompt to the next, with its items, times, requests,
 * tokens and models.
 */
export interface Turn {
  /** 1-based position among the turns of the active chain (branch turns: of their branch). */
  index: number
  /** Set on turns of a branch off the active chain. */
  branch?: { id: string; forkLine?: number }
  startedAt?: string
  /** Timestamp of the last record of the turn. */
  endedAt?: string
  durationMs?: number
  items: Item[]
  /** One row per API request (deduplicated by requestId: the row with the largest output). */
  requests: RequestUsage[]
  tokens: { inputTokens: number; cacheCreationInputTokens: number; cacheReadInputTokens: number; outputTokens: number }
  models: string[]
}

/**
 * A conversation as `showSession` reads it: the transcript, the leaf it resumes from and how it was
 * chosen, the record counts, and the turns of the active chain.
 */
export interface ShowResult {
  path: string
  sessionId: string
  leaf: { line?: number; uuid?: string; rule: string; pointer: string; pointerLine?: number }
  records: number
  chainRecords: number
  corruptLines: number
  /** Turns of the active chain left out by `last`. */
  omittedTurns: number
  turns: Turn[]
}

/** The core's table: which tools have a target, its kind, and the input fields naming it. */
let targetRules: Map<string, { kind: ToolTargetKind; fields: string[] }> | undefined

/**
 * What a tool call is aimed at, by the rule `stats --tools` counts with (the core's table): its
 * kind and the field's whole text (the full command, the URL, where counting keeps the first
 * word or the host). A subagent call also says what it was asked ("Explore: find the parser").
 * Tools without a target (MCP tools, TodoWrite, …) have none here either.
 */
export function toolTarget(name: string, input: unknown): { kind: ToolTargetKind; value: string } | undefined {
  if (!input || typeof input !== 'object') return undefined
  targetRules ??= new Map(native.toolTargetRules().map((r) => [r.tool, { kind: r.kind, fields: r.fields }]))
  const rule = targetRules.get(name)
  if (!rule) return undefined
  const o = input as Record<string, unknown>
  const field = (k: string) =>
    typeof o[k] === 'string' && (o[k] as string).trim() !== '' ? (o[k] as string) : undefined
  const value = rule.fields.map(field).find((v) => v !== undefined)
  if (rule.kind === 'subagent type') {
    const what = field('description')
    return value === undefined && what === undefined
      ? undefined
      : { kind: rule.kind, value: value && what ? `${value}: ${what}` : (what ?? value)! }
  }
  return value === undefined ? undefined : { kind: rule.kind, value }
}

function blockText(content: unknown): string {
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) return ''
  return content
    .map((b) => {
      if (!b || typeof b !== 'object') return ''
      const t = (b as { type?: string }).type
      if (t === 'text') return String((b as { text?: unknown }).text ?? '')
      if (t === 'image') return '[image]'
      if (t === 'document') return '[document]'
      return ''
    })
    .filter((s) => s !== '')
    .join('\n')
}

function cut(text: string, max: number): { text: string; truncated: boolean } {
  return text.length > max ? { text: text.slice(0, max), truncated: true } : { text, truncated: false }
}

let traceRead: ((offset: number) => void) | undefined

/** For tests: `f` is called with the byte offset of each record `show` reads. */
export function traceShowReads(f?: (offset: number) => void): void {
  traceRead = f
}

/** Reads records by their byte spans; nothing else of the file is read. */
class SpanReader {
  private fd: number | undefined
  constructor(
    path: string,
    private offsets: Float64Array,
    private lengths: Uint32Array,
    /** The transcript's bytes when they are in memory (an archived session): read from them. */
    private bytes?: Buffer,
  ) {
    if (!bytes) this.fd = openSync(path, 'r')
  }
  json(i: number): Record<string, unknown> | undefined {
    traceRead?.(this.offsets[i])
    let text: string
    if (this.bytes) text = this.bytes.toString('utf8', this.offsets[i], this.offsets[i] + this.lengths[i])
    else {
      const buf = Buffer.allocUnsafe(this.lengths[i])
      let done = 0
      while (done < buf.length) {
        const n = readSync(this.fd!, buf, done, buf.length - done, this.offsets[i] + done)
        if (n === 0) break
        done += n
      }
      text = buf.toString('utf8', 0, done)
    }
    try {
      const v = JSON.parse(text)
      return v && typeof v === 'object' && !Array.isArray(v) ? v : undefined
    } catch {
      return undefined
    }
  }
  close(): void {
    if (this.fd !== undefined) closeSync(this.fd)
  }
}

const emptyTokens = () => ({ inputTokens: 0, cacheCreationInputTokens: 0, cacheReadInputTokens: 0, outputTokens: 0 })

/**
 * Builds turns from records in chain order. The turn of each record is the core's (it decides
 * from the scan alone, so the records of turns not shown are never read); the items come from
 * the records read here. Shared state dedupes tool calls and requests.
 */
class TurnBuilder {
  /** the turn each record (by index) landed in */
  turnOf = new Map<number, Turn>()
  private plan: ChainTurns
  /** The turns built, by the core's number. */
  private byTurn = new Map<number, Turn>()
  /** The turn of the record added last (the core's numbering). */
  private at = -1
  private seenTools = new Set<string>()
  private seenResults = new Set<string>()
  private toolNames = new Map<string, string>()
  private requests = new Set<string>()
  private messages = new Map<string, Extract<Item, { kind: 'assistant' }>>()
  private badLines: { line: number; problem: string; turn: number }[]
  /** Position among the turns with content, for each of the core's turns. */
  private numbers: number[] = []
  /** Chain positions from here on are read (the last turns when `last` is given). */
  readonly from: number
  /** Turns with content in the whole chain. */
  readonly total: number

  constructor(
    private index: TranscriptIndex,
    private reader: SpanReader,
    private records: Uint32Array,
    private resultChars: number,
    badLines: { line: number; problem: string }[],
    private branch?: Turn['branch'],
    last?: number,
  ) {
    const plan = native.chainTurns(
      index,
      records,
      Uint32Array.from(badLines, (b) => b.line),
      last,
    )
    this.plan = plan
    let n = 0
    for (const c of plan.content) this.numbers.push(c ? ++n : 0)
    this.total = n
    this.from = plan.from
    // The turns read: from the first one (it may hold only lines before the first record) or
    // from the turn of the first record read.
    const first = plan.from === 0 ? 0 : plan.from < records.length ? plan.turns[plan.from] : Number.POSITIVE_INFINITY
    this.badLines = badLines.map((b, k) => ({ ...b, turn: plan.badTurns[k] })).filter((b) => b.turn >= first)
    plan.priorToolIds.forEach((id, k) => {
      this.seenTools.add(id)
      this.toolNames.set(id, plan.priorToolNames[k])
    })
    for (const id of plan.priorResultIds) this.seenResults.add(id)
    for (const key of plan.priorRequestKeys) this.requests.add(key)
  }

  /** Adds the records from `from` on and returns the turns with content, numbered. */
  build(): Turn[] {
    for (let p = this.from; p < this.records.length; p++) this.add(p)
    return this.finish()
  }

  private turn(k: number): Turn {
    let t = this.byTurn.get(k)
    if (!t) {
      t = { index: 0, items: [], requests: [], tokens: emptyTokens(), models: [] }
      if (this.branch) t.branch = this.branch
      this.byTurn.set(k, t)
    }
    if (k !== this.at) {
      // Fragments of one message merge only within the turn that holds it.
      this.messages.clear()
      this.at = k
    }
    return t
  }

  private push(item: Item, turn: Turn): void {
    turn.items.push(item)
  }

  private corruptBefore(line: number): void {
    while (this.badLines.length > 0 && this.badLines[0].line < line) {
      const b = this.badLines.shift()!
      this.push({ kind: 'corrupt', line: b.line, problem: b.problem }, this.turn(b.turn))
    }
  }

  private finish(): Turn[] {
    this.corruptBefore(Number.POSITIVE_INFINITY)
    for (const t of this.byTurn.values()) {
      t.models = [...new Set(t.requests.map((r) => r.model).filter((m): m is string => !!m))]
      t.tokens = emptyTokens()
      for (const r of t.requests) {
        t.tokens.inputTokens += r.inputTokens
        t.tokens.cacheCreationInputTokens += r.cacheCreationInputTokens
        t.tokens.cacheReadInputTokens += r.cacheReadInputTokens
        t.tokens.outputTokens += r.outputTokens
      }
      if (t.startedAt && t.endedAt) t.durationMs = Date.parse(t.endedAt) - Date.parse(t.startedAt)
    }
    const kept: Turn[] = []
    for (const [k, t] of [...this.byTurn].sort((x, y) => x[0] - y[0])) {
      if (this.numbers[k] === 0) continue
      t.index = this.numbers[k]
      kept.push(t)
    }
    return kept
  }

  private groups?: number[]
  /** The API message a record belongs to (fragments of one message.id): the native core's rule. */
  private messageGroup(i: number): number {
    this.groups ??= native.messageGroups(this.index)
    return this.groups[i] ?? i
  }

  private counted?: Int32Array
  /** The record whose usage counts for record i's request (the core's rule), if i is counted. */
  private countedEntry(i: number): number | undefined {
    this.counted ??= native.countedEntries(this.index)
    const c = this.counted[i]
    return c === undefined || c < 0 ? undefined : c
  }

  private requestKeys?: (string | null | undefined)[]
  /** The request a record belongs to: the native core owns the key (requestId, else message.id). */
  private requestKey(i: number): string | undefined {
    this.requestKeys ??= native.requestKeys(this.index)
    return this.requestKeys[i] ?? undefined
  }

  /** Adds the record at chain position p to the turn the core puts it in. */
  private add(p: number): void {
    const i = this.records[p]
    const info = this.index.record(i)
    if (!info) return
    this.corruptBefore(info.line)
    const at: At = { line: info.line, timestamp: info.timestamp }
    const type = info.type
    const wanted = type === 'user' || type === 'assistant' || (type === 'system' && info.subtype === 'compact_boundary')
    const turn = this.turn(this.plan.turns[p])
    if (wanted) {
      const rec = this.reader.json(i)
      if (!rec) {
        this.push({ kind: 'corrupt', line: info.line, problem: 'unreadable record' }, turn)
      } else if (type === 'system') {
        const meta = (rec.compactMetadata ?? {}) as { trigger?: unknown; preTokens?: unknown }
        this.push(
          {
            kind: 'compaction',
            ...at,
            trigger: typeof meta.trigger === 'string' ? meta.trigger : undefined,
            preTokens: typeof meta.preTokens === 'number' ? meta.preTokens : undefined,
          },
          turn,
        )
      } else if (type === 'user') {
        this.user(rec, info, at, turn)
      } else {
        this.assistant(
          rec,
          { ...info, record: i, requestKey: this.requestKey(i), message: this.messageGroup(i) },
          at,
          turn,
        )
      }
    }
    this.turnOf.set(i, turn)
    if (info.timestamp) {
      if (!turn.startedAt) turn.startedAt = info.timestamp
      turn.endedAt = info.timestamp
    }
  }

  private user(
    rec: Record<string, unknown>,
    info: { isMeta: boolean; isCompactSummary: boolean; uuid?: string },
    at: At,
    turn: Turn,
  ): void {
    const msg = (rec.message ?? {}) as { content?: unknown }
    const content = msg.content
    if (info.isCompactSummary) {
      const last = [...turn.items].reverse().find((x) => x.kind === 'compaction')
      const summary = blockText(content)
      if (last && last.kind === 'compaction' && last.summary === undefined) last.summary = summary
      else this.push({ kind: 'compaction', ...at, summary }, turn)
      return
    }
    if (info.isMeta) {
      this.push({ kind: 'meta', ...at, text: blockText(content) }, turn)
      return
    }
    const results = Array.isArray(content)
      ? content.filter((b) => b && typeof b === 'object' && b.type === 'tool_result')
      : []
    if (results.length > 0) {
      for (const r of results as { tool_use_id?: unknown; content?: unknown; is_error?: unknown }[]) {
        const id = String(r.tool_use_id ?? '')
        if (this.seenResults.has(id)) continue
        this.seenResults.add(id)
        const c = cut(blockText(r.content), this.resultChars)
        this.push(
          {
            kind: 'tool-result',
            ...at,
            toolUseId: id,
            name: this.toolNames.get(id),
            text: c.text,
            truncated: c.truncated,
            isError: r.is_error === true,
          },
          turn,
        )
      }
      return
    }
    const text = blockText(content)
    if (text !== '') this.push({ kind: 'human', ...at, text, uuid: info.uuid }, turn)
  }

  private assistant(
    rec: Record<string, unknown>,
    info: {
      /** Its record index. */
      record: number
      messageId?: string
      model?: string
      requestKey?: string
      /** The first record of its API message. */
      message: number
      usage?: {
        inputTokens: number
        cacheCreationInputTokens: number
        cacheReadInputTokens: number
        outputTokens: number
      }
    },
    at: At,
    turn: Turn,
  ): void {
    const msg = (rec.message ?? {}) as { content?: unknown }
    const blocks = Array.isArray(msg.content)
      ? msg.content
      : typeof msg.content === 'string'
        ? [{ type: 'text', text: msg.content }]
        : []
    const key = String(info.message)
    for (const b of blocks as Record<string, unknown>[]) {
      if (!b || typeof b !== 'object') continue
      if (b.type === 'text' && typeof b.text === 'string' && b.text.trim() !== '') {
        const m = this.messages.get(key)
        if (m && turn.items.includes(m)) {
          if (!m.text.split('\n\n').includes(b.text)) m.text += '\n\n' + b.text
        } else {
          const item: Extract<Item, { kind: 'assistant' }> = {
            kind: 'assistant',
            ...at,
            messageId: info.messageId,
            model: info.model,
            text: b.text,
          }
          this.messages.set(key, item)
          this.push(item, turn)
        }
      } else if (b.type === 'thinking' && typeof b.thinking === 'string' && b.thinking !== '') {
        this.push({ kind: 'thinking', ...at, text: b.thinking }, turn)
      } else if (b.type === 'tool_use') {
        const id = String(b.id ?? '')
        if (this.seenTools.has(id)) continue
        this.seenTools.add(id)
        const name = String(b.name ?? '?')
        this.toolNames.set(id, name)
        const input = cut(JSON.stringify(b.input ?? {}), this.resultChars).text
        this.push({ kind: 'tool-call', ...at, id, name, target: toolTarget(name, b.input), input }, turn)
      }
    }
    // Tokens: one row per request, from the entry the core counts for it (stats' rule), in the
    // turn where the request's first entry is.
    const counted = this.countedEntry(info.record)
    if (counted !== undefined) {
      const rk = info.requestKey ?? `line:${at.line}`
      if (!this.requests.has(rk)) {
        const entry = counted === info.record ? info : this.index.record(counted)
        const u = entry?.usage ?? info.usage!
        const row: RequestUsage = {
          key: rk,
          model: entry?.model ?? info.model,
          timestamp: at.timestamp,
          inputTokens: u.inputTokens,
          cacheCreationInputTokens: u.cacheCreationInputTokens,
          cacheReadInputTokens: u.cacheReadInputTokens,
          outputTokens: u.outputTokens,
        }
        this.requests.add(rk)
        turn.requests.push(row)
      }
    }
  }
}

export interface Loaded {
  ref: SessionRef
  index: TranscriptIndex
  chain: ActiveChain
  /** The transcript's bytes, when they were decoded into memory (an archived session). */
  bytes?: Buffer
}

/** Resolves and scans a session and picks its active chain. */
export async function loadSession(
  ref: string,
  opts: Pick<ShowOptions, 'projects' | 'env' | 'allBranches' | 'generation' | 'asOf'> = {},
): Promise<Loaded> {
  const session = await resolveSessionAt(ref, {
    projects: opts.projects,
    env: opts.env,
    generation: opts.generation,
    asOf: opts.asOf,
  })
  // an archived session: that one transcript decoded into memory, nothing written
  let bytes: Buffer | undefined
  let index: TranscriptIndex
  try {
    if (archivedAt(session.path)) {
      bytes = transcriptBytesAt(session.path)
      index = native.scanBuffer(bytes, 'full')
    } else index = await native.scanFile(session.path)
  } catch (e) {
    throw fromNative(e, session.path)
  }
  const chain = native.activeChain(index, { allBranches: opts.allBranches ?? false })
  if (chain.leaf === undefined) {
    const s = index.summary()
    const why =
      (s.records === 0 ? transcriptProblem(s) : undefined) ??
      'no Claude Code conversation in it (no user or assistant record)'
    throw inputError(session.path, why)
  }
  return { ref: session, index, chain, bytes }
}

/** The session's active chain as typed turns. */
export async function showSession(ref: string, opts: ShowOptions = {}): Promise<ShowResult> {
  const { ref: session, index, chain, bytes } = await loadSession(ref, opts)
  const summary = index.lineProblems()
  const bad = summary.badLines.map((b) => ({
    line: b.line,
    problem: b.problem,
  }))
  if (summary.tornTail) bad.push({ line: summary.lines, problem: 'last line cut short (interrupted write)' })
  const reader = new SpanReader(session.path, index.offsets(), index.lengths(), bytes)
  const resultChars = opts.resultChars ?? 2000
  try {
    // Without branches only the records of the last turns are read (branches attach to any turn).
    const last = opts.last !== undefined && opts.last >= 0 ? opts.last : undefined
    const main = new TurnBuilder(
      index,
      reader,
      chain.indexes,
      resultChars,
      bad,
      undefined,
      // As a slice of the whole result would: a fraction of a turn is a turn.
      opts.allBranches || last === undefined ? undefined : Math.min(Math.ceil(last), 0xffffffff),
    )
    let turns = main.build()
    const total = main.total
    if (last !== undefined && last < turns.length) turns = turns.slice(turns.length - last)
    if (opts.allBranches && chain.branchIndexes && chain.branchIds && chain.branchForks) {
      turns = withBranches(turns, main, index, reader, resultChars, chain)
    }
    for (const t of turns) t.items = t.items.filter((x) => keep(x, opts))
    const leafInfo = index.record(chain.leaf!)
    return {
      path: session.path,
      sessionId: session.sessionId,
      leaf: {
        line: leafInfo?.line,
        uuid: leafInfo?.uuid,
        rule: chain.rule,
        pointer: chain.pointer,
        pointerLine: chain.pointerRecord !== undefined ? index.record(chain.pointerRecord)?.line : undefined,
      },
      records: index.length,
      chainRecords: chain.indexes.length,
      corruptLines: summary.badJsonLines + summary.nonObjectLines + (summary.tornTail ? 1 : 0),
      omittedTurns: total - turns.filter((t) => !t.branch).length,
      turns,
    }
  } finally {
    reader.close()
  }
}

function keep(x: Item, opts: ShowOptions): boolean {
  if (opts.humanOnly) return x.kind === 'human' || x.kind === 'compaction' || x.kind === 'corrupt'
  if (x.kind === 'tool-call' || x.kind === 'tool-result' || x.kind === 'meta') return !!opts.tools
  if (x.kind === 'thinking') return !!opts.thinking
  return true
}

/** Each branch's turns right after the turn holding its fork point. */
function withBranches(
  turns: Turn[],
  main: TurnBuilder,
  index: TranscriptIndex,
  reader: SpanReader,
  resultChars: number,
  chain: ActiveChain,
): Turn[] {
  const ids = chain.branchIds!
  const forks = chain.branchForks!
  const recs = chain.branchIndexes!
  const after = new Map<Turn | undefined, Turn[]>()
  for (let k = 0; k < recs.length;) {
    const id = ids[k]
    const fork = forks[k]
    const forkTurn = fork === 0xffffffff ? undefined : main.turnOf.get(fork)
    let end = k
    while (end < recs.length && ids[end] === id) end++
    const b = new TurnBuilder(index, reader, recs.subarray(k, end), resultChars, [], {
      id: index.record(id)?.uuid ?? String(id),
      forkLine: fork === 0xffffffff ? undefined : index.record(fork)?.line,
    })
    k = end
    const bt = b.build()
    if (forkTurn && !turns.includes(forkTurn)) continue // its fork point is outside the turns shown
    const list = after.get(forkTurn) ?? []
    list.push(...bt)
    after.set(forkTurn, list)
  }
  const out: Turn[] = []
  for (const t of turns) out.push(t, ...(after.get(t) ?? []))
  out.push(...(after.get(undefined) ?? []))
  return out
}
