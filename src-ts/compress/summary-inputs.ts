// What a summary needs from the summarised records (`summaryIndexes`, in chain order): the
// native side parses them in parallel and hands over one JSON string holding only usable text
// (full human, assistant and thinking text and prior compact summaries; tool inputs and results
// cut). Here those become typed entries plus the derived facts every summary uses: commands and
// their outcomes, file changes, the todo lists.
import native from '../native.js'
import type { TranscriptIndex } from '../native.js'
import type { SourceSpans } from './source-spans.js'

/** One content block of a summarised record, as the native `summaryRecordsJson` writes it. */
interface SummaryBlock {
  /** 'text' | 'thinking' | 'tool_use' | 'tool_result' | 'image' | another block type */
  kind: string
  /** text/thinking in full; tool_result content as text, cut */
  text?: string
  name?: string
  /** tool_use id, or the tool_use_id a tool_result answers */
  id?: string
  /** tool_use input as compact JSON, long strings cut */
  input?: string
  isError?: boolean
  /** characters before cutting (text, thinking, tool_result) */
  chars: number
  cut?: boolean
}

/** One summarised record (absent values and false flags left out): an element of the JSON
 * array `summaryRecordsJson` returns. */
interface SummaryRecord {
  record: number
  /** 1-based physical line */
  line: number
  type?: string
  subtype?: string
  role?: string
  uuid?: string
  timestamp?: string
  isMeta?: boolean
  isCompactSummary?: boolean
  isApiErrorMessage?: boolean
  /** message.content when it is a string, in full */
  content?: string
  blocks: SummaryBlock[]
  /** the `type` of an object toolUseResult ('create', 'update', 'text', …) */
  toolUseResultType?: string
  /** a system record's content, else its error as compact JSON */
  systemText?: string
  /** false when the line is not a JSON object */
  parsed?: boolean
}

export interface ToolCall {
  line: number
  id: string
  name: string
  /** The input with long strings cut (valid JSON, parsed); undefined when it did not parse. */
  input: unknown
  /** The same input as compact JSON text. */
  inputJson: string
}

export interface ToolOutcome {
  line: number
  toolUseId: string
  /** The tool's name, from its call. */
  name?: string
  /** The result's text, head and tail kept when long. */
  text: string
  /** Characters of the whole result. */
  chars: number
  isError: boolean
  /** From an `Exit code N` first line (Bash). */
  exitCode?: number
  /** A Write whose toolUseResult has `"type":"create"`: the file did not exist before. */
  created?: boolean
}

export interface CommandRun {
  line: number
  command: string
  description?: string
  toolUseId: string
  outcome?: ToolOutcome
  failed: boolean
  /** Cancelled by Claude Code because a parallel call failed: it never ran. */
  cancelled: boolean
  /** A test, lint, type-check or build command. */
  validation: boolean
}

export interface FileChange {
  line: number
  tool: string
  path: string
  /** Write with a `create` result: the file did not exist before. */
  created: boolean
  failed: boolean
}

export interface TodoItem {
  content: string
  status: string
  activeForm?: string
  /** The line that last set this item (task records change one item at a time). */
  line?: number
}

export interface TodoSnapshot {
  line: number
  todos: TodoItem[]
  /** Where the list comes from: one `TodoWrite` call, or the client's task records
   * (`TaskCreate`/`TaskUpdate` calls, replayed up to `line`). */
  source: 'TodoWrite' | 'tasks'
}

/** The id the client gives a task it created, from its result (`Task #3 created successfully: …`). */
const TASK_CREATED = /^Task #(\S+) created/

/** One summarised record, by what it says. */
export interface SummaryEntry {
  record: number
  /** 1-based physical line in the source: the `L` anchor. */
  line: number
  type?: string
  role?: string
  uuid?: string
  timestamp?: string
  /** What a person typed (not meta, not a tool result, not a compact summary). */
  human?: string
  /** Injected user-side text (isMeta, local command output, reminders). */
  meta?: string
  /** The text of a prior compact summary (isCompactSummary). */
  priorSummary?: string
  texts: string[]
  thinking: string[]
  toolCalls: ToolCall[]
  toolResults: ToolOutcome[]
  /** A system api_error record, or an assistant API-error message. */
  apiError?: string
  systemText?: string
  subtype?: string
  /** False when the line is not a JSON object. */
  parsed: boolean
}

/**
 * What the deterministic summary is written from, read from the records to summarise: the entries
 * with their lines, the commands run, the files changed and the todo lists.
 */
export interface SummaryInputs {
  entries: SummaryEntry[]
  commands: CommandRun[]
  fileChanges: FileChange[]
  todos: TodoSnapshot[]
  /** Smallest and largest L among the entries (0 when there are none). */
  firstLine: number
  lastLine: number
}

export interface SummaryInputOptions {
  /** Strings inside tool inputs are cut to this many characters (default 400). */
  stringChars?: number
  /** Tool results are cut to this many characters, head and tail kept (default 1200). */
  resultChars?: number
  /** Results that report no failure are cut to this many instead (default: resultChars); 0
   * leaves their text out (the deterministic summary reports failures only). */
  successResultChars?: number
  /** When the buffer holds only what is loaded: each batch's records are loaded before they
   * are read and released after (compress's deterministic path). */
  spans?: SourceSpans
}

/** `text` cut to at most `max` UTF-16 units, never inside a surrogate pair, marked with `…`. */
export function cutText(text: string, max: number): string {
  if (text.length <= max) return text
  let end = Math.max(0, max - 1)
  const c = text.charCodeAt(end - 1)
  if (c >= 0xd800 && c <= 0xdbff) end--
  return text.slice(0, end) + '…'
}

/** Whitespace runs (newlines included) collapsed to one space, then cut. */
export function oneLine(text: string, max: number): string {
  // A long text is first collapsed from a prefix only: the collapsed prefix is a prefix of the
  // collapsed whole, so when it is still longer than `max` the cut keeps the same characters.
  const prefix = max * 2 + 64
  if (text.length > prefix * 2) {
    const head = text.slice(0, prefix).replace(/\s+/g, ' ').trim()
    if (head.length > max) return cutText(head, max)
  }
  return cutText(text.replace(/\s+/g, ' ').trim(), max)
}

const EDIT_TOOLS = new Set(['Edit', 'Write', 'MultiEdit', 'NotebookEdit'])
/** A test, lint, type-check or build program at the start of a command or of a part after `&&`, `;` or `|`. */
const VALIDATION =
  /(?:^|&&|\|\||;|\|)\s*(?:\w+=\S*\s+)*(?:npx\s+|bunx\s+|uv\s+run\s+|poetry\s+run\s+)?(?:pytest|jest|vitest|ava|mocha|tsc|mypy|ruff|eslint|prettier\s+--check|golangci-lint|shellcheck|cargo\s+(?:test|build|check|clippy|nextest)|go\s+(?:test|vet|build)|npm\s+(?:test|run)|pnpm\s+(?:test|run|lint|build)|yarn\s+(?:test|run|lint|build)|bun\s+test|make|mise\s+run|gradle|\.\/gradlew|mvn|dotnet\s+(?:test|build)|python3?\s+-m\s+(?:pytest|unittest|mypy)|deno\s+test|swift\s+(?:test|build))\b/
/** A parallel call Claude Code cancelled because a sibling failed: it never ran. */
const CANCELLED = /^<tool_use_error>Cancelled: parallel tool call/
const INJECTED = /^\s*<(?:local-command-|system-reminder|command-message)/

function blocksText(blocks: SummaryBlock[]): string {
  return blocks
    .map((b) =>
      b.kind === 'text' ? (b.text ?? '') : b.kind === 'image' ? '[image]' : b.kind === 'document' ? '[document]' : '',
    )
    .filter((s) => s !== '')
    .join('\n')
}

function parseJson(text: string | undefined): unknown {
  if (text === undefined) return undefined
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

function entryOf(r: SummaryRecord): SummaryEntry {
  const e: SummaryEntry = {
    record: r.record,
    line: r.line,
    type: r.type,
    role: r.role,
    uuid: r.uuid,
    timestamp: r.timestamp,
    subtype: r.subtype,
    texts: [],
    thinking: [],
    toolCalls: [],
    toolResults: [],
    parsed: r.parsed === true,
  }
  if (r.type === 'user') {
    const text = r.content ?? blocksText(r.blocks)
    if (r.isCompactSummary) e.priorSummary = text
    else if (r.isMeta || INJECTED.test(text)) e.meta = text || undefined
    else if (text.trim() !== '') e.human = text
    for (const b of r.blocks) {
      if (b.kind !== 'tool_result') continue
      const exit = /^(?:Error: )?Exit code (\d+)/.exec(b.text ?? '')
      e.toolResults.push({
        line: r.line,
        toolUseId: b.id ?? '',
        text: b.text ?? '',
        chars: b.chars,
        isError: b.isError === true,
        exitCode: exit ? Number(exit[1]) : undefined,
        created: r.toolUseResultType === 'create' || undefined,
      })
    }
  } else if (r.type === 'assistant') {
    if (r.content !== undefined && r.content.trim() !== '') e.texts.push(r.content)
    for (const b of r.blocks) {
      if (b.kind === 'text' && b.text && b.text.trim() !== '') e.texts.push(b.text)
      else if (b.kind === 'thinking' && b.text && b.text.trim() !== '') e.thinking.push(b.text)
      else if (b.kind === 'tool_use' || b.kind === 'server_tool_use')
        e.toolCalls.push({
          line: r.line,
          id: b.id ?? '',
          name: b.name ?? '',
          input: parseJson(b.input),
          inputJson: b.input ?? '',
        })
    }
    if (r.isApiErrorMessage) e.apiError = e.texts.join('\n') || 'API error'
  } else if (r.type === 'system') {
    e.systemText = r.systemText
    if (r.subtype === 'api_error') e.apiError = r.systemText ?? 'api_error'
  }
  return e
}

function str(o: unknown, key: string): string | undefined {
  const v = o && typeof o === 'object' ? (o as Record<string, unknown>)[key] : undefined
  return typeof v === 'string' && v !== '' ? v : undefined
}

/** Derives commands, file changes and todo lists, pairing each tool call with its result by id. */
export function deriveFacts(entries: SummaryEntry[]): SummaryInputs {
  const outcomes = new Map<string, ToolOutcome>()
  for (const e of entries) {
    for (const o of e.toolResults) outcomes.set(o.toolUseId, o)
  }
  const commands: CommandRun[] = []
  const fileChanges: FileChange[] = []
  const todos: TodoSnapshot[] = []
  // The client's task list as its TaskCreate/TaskUpdate calls leave it, in creation order.
  const tasks = new Map<string, TodoItem>()
  const taskSnapshot = (line: number) =>
    todos.push({ line, todos: [...tasks.values()].map((t) => ({ ...t })), source: 'tasks' })
  for (const e of entries) {
    for (const c of e.toolCalls) {
      const outcome = outcomes.get(c.id)
      if (outcome) outcome.name = c.name
      const cancelled = outcome !== undefined && CANCELLED.test(outcome.text)
      const failed =
        outcome !== undefined &&
        !cancelled &&
        (outcome.isError || (outcome.exitCode !== undefined && outcome.exitCode !== 0))
      if (c.name === 'Bash') {
        const command = str(c.input, 'command')
        if (command)
          commands.push({
            line: c.line,
            command,
            description: str(c.input, 'description'),
            toolUseId: c.id,
            outcome,
            failed,
            cancelled,
            validation: VALIDATION.test(command),
          })
      } else if (EDIT_TOOLS.has(c.name)) {
        const path = str(c.input, 'file_path') ?? str(c.input, 'notebook_path')
        if (path) fileChanges.push({ line: c.line, tool: c.name, path, created: outcome?.created === true, failed })
      } else if (c.name === 'TodoWrite') {
        const list = c.input && typeof c.input === 'object' ? (c.input as { todos?: unknown }).todos : undefined
        if (Array.isArray(list)) {
          todos.push({
            line: c.line,
            todos: list
              .filter((t): t is Record<string, unknown> => !!t && typeof t === 'object')
              .map((t) => ({
                content: String(t.content ?? ''),
                status: String(t.status ?? ''),
                activeForm: str(t, 'activeForm'),
              })),
            source: 'TodoWrite',
          })
        }
      } else if (c.name === 'TaskCreate' && outcome && !outcome.isError) {
        const id = TASK_CREATED.exec(outcome.text)?.[1]
        const subject = str(c.input, 'subject')
        if (id && subject) {
          tasks.set(id, { content: subject, status: 'pending', activeForm: str(c.input, 'activeForm'), line: c.line })
          taskSnapshot(c.line)
        }
      } else if (c.name === 'TaskUpdate' && outcome && !outcome.isError) {
        const id = str(c.input, 'taskId')
        const task = id === undefined ? undefined : tasks.get(id)
        if (id !== undefined && task) {
          const status = str(c.input, 'status')
          if (status === 'deleted') tasks.delete(id)
          else {
            if (status) task.status = status
            task.content = str(c.input, 'subject') ?? task.content
            task.activeForm = str(c.input, 'activeForm') ?? task.activeForm
            task.line = c.line
          }
          taskSnapshot(c.line)
        }
      }
    }
  }
  let firstLine = 0
  let lastLine = 0
  for (const e of entries) {
    if (firstLine === 0 || e.line < firstLine) firstLine = e.line
    if (e.line > lastLine) lastLine = e.line
  }
  return { entries, commands, fileChanges, todos, firstLine, lastLine }
}

/** Records per native call: small enough that no batch's JSON text is a large transient string
 * (one string for 50 MB of records would be several MB, parsed into a second copy). */
const BATCH_RECORDS = 256

/**
 * Reads the summary inputs of `summaryIndexes` (record indexes of `index`, in chain order) from
 * `buffer`, the bytes `index` was scanned from.
 */
export function readSummaryInputs(
  buffer: Uint8Array,
  index: TranscriptIndex,
  summaryIndexes: ArrayLike<number>,
  options: SummaryInputOptions = {},
): SummaryInputs {
  const all = Uint32Array.from(summaryIndexes)
  const limits = {
    stringChars: options.stringChars,
    resultChars: options.resultChars,
    successResultChars: options.successResultChars,
  }
  const entries: SummaryEntry[] = []
  for (let at = 0; at < all.length; at += BATCH_RECORDS) {
    const batch = all.subarray(at, at + BATCH_RECORDS)
    let json = options.spans?.summaryRecordsJson?.(batch, limits)
    if (json === undefined) {
      options.spans?.load(batch)
      json = native.summaryRecordsJson(buffer, index, batch, limits)
      options.spans?.release()
    }
    const records = JSON.parse(json) as SummaryRecord[]
    for (const r of records) entries.push(entryOf(r))
  }
  return deriveFacts(entries)
}
