// The API view of a transcript: the `messages` the real Claude Code client (2.1.332) sends to the
// model when it resumes the file, minus its own final user message (reminders + the new prompt).
// The native graph chooses the leaf and the active chain (fragments and tool results spliced in,
// as the client does); this module applies the client's loading rules to the records on it, as
// observed with the client itself (docs/claude-code-client.md; probes and the sample
// transcripts in __test__/real-client.test.ts):
// - only what follows the last compact boundary of the loaded chain is sent (a live
//   `preservedSegment` is relinked after the summary first); the summary is a user message;
// - attachment records become system-reminder texts (renderAttachment) that move up in front of
//   the user records they follow, up to an assistant message, a tool result or another reminder;
// - consecutive user records become one user message: a lone record keeps string content, merged
//   ones become text blocks, and a text followed by a non-reminder text gets a newline; a
//   reminder after a tool result is folded into that result's content; tool results lead;
// - consecutive assistant records sharing `message.id` become one message (different ids do not
//   merge); thinking blocks are sent only when the record's model is the request's model;
// - within one user message, tool results are in file order (as the graph splices them);
// - an assistant record whose calls no result answers is dropped (unless the history ends on
//   it: the client answers it as interrupted); results that answer no call are removed;
// - a history that ends on a user prompt or a tool result gets "No response requested."; one
//   that ends on records starting with a meta record (a local command's caveat) does not: those
//   go into the client's final message (`pending`).
// Records are parsed with JSON.parse from their byte spans; nothing is re-serialised.
import native from '../../src-ts/native.js'
import type { ActiveChain } from '#native'
import type { RecordInfo, TranscriptIndex } from '../../src-ts/native.js'

export interface ApiBlock {
  type: string
  [key: string]: unknown
}

export interface ApiMessage {
  role: 'user' | 'assistant'
  content: string | ApiBlock[]
}

export interface ApiViewOptions {
  /** The request's model: thinking blocks of records written by another model are not sent.
   * Default: the model of the last assistant record (the one the client restores). */
  model?: string
}

export interface ApiView {
  /** The loaded history: what the client sends before its own final user message. */
  messages: ApiMessage[]
  /** Blocks of trailing user records that the client puts into its final user message, between
   * its reminders and the new prompt (undefined when the history is closed by an answer). */
  pending?: ApiBlock[]
  /** Indexes of the records the messages are built from (after the compact cut, before the
   * tool repairs), in order. */
  records: number[]
  chain: ActiveChain
  model?: string
}

/** The client's text for a chain that ends without an answer (appended as an assistant message). */
export const NO_RESPONSE = 'No response requested.'
/** The result the client fills in for a tool call the session ended on. */
export const INTERRUPTED_TOOL_RESULT =
  "[Tool call interrupted: the session ended before this call's result was recorded, so its outcome is unknown. Check whether it took effect before relying on it or running it again.]"

type Rec = Record<string, any>

function parse(bytes: Uint8Array, info: { offset: number; length: number }): Rec | undefined {
  try {
    const v = JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset + info.offset, info.length).toString('utf8'))
    return v && typeof v === 'object' && !Array.isArray(v) ? v : undefined
  } catch {
    return undefined
  }
}

const isBoundary = (r: Rec | RecordInfo | undefined) => r?.type === 'system' && r?.subtype === 'compact_boundary'

/** The records the client loads from the chain: a live preserved segment on the file's last
 * compact boundary (its anchor is the boundary's summary, its tail reaches its head) is relinked
 * as boundary, summary, head … leaf, as the client's own `/compact` output loads. */
function loadedRecords(index: TranscriptIndex, bytes: Uint8Array, chain: number[]): number[] {
  const infos = index.records()
  let last = -1
  for (let i = infos.length - 1; i >= 0; i--) {
    if (isBoundary(infos[i]) && !infos[i].isSidechain) {
      last = i
      break
    }
  }
  if (last < 0) return chain
  const seg = parse(bytes, infos[last])?.compactMetadata?.preservedSegment
  if (!seg) return chain
  const byUuid = new Map<string, number>()
  infos.forEach((r, i) => r.uuid && byUuid.set(r.uuid, i))
  const summary = infos.findIndex((r) => r.isCompactSummary && r.parentUuid === infos[last].uuid)
  const head = byUuid.get(seg.headUuid)
  const tail = byUuid.get(seg.tailUuid)
  if (summary < 0 || infos[summary].uuid !== seg.anchorUuid || head === undefined || tail === undefined) return chain
  const seen = new Set<number>()
  for (
    let at: number | undefined = tail;
    at !== undefined && !seen.has(at);
    at = infos[at].parentUuid ? byUuid.get(infos[at].parentUuid!) : undefined
  ) {
    seen.add(at)
    if (at === head) {
      const k = chain.indexOf(head)
      return k < 0 ? chain : [last, summary, ...chain.slice(k)]
    }
  }
  return chain
}

function blocksOf(content: unknown): ApiBlock[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }]
  return Array.isArray(content) ? content.filter((b) => b && typeof b === 'object').map((b) => ({ ...b })) : []
}

const REMINDER_OPEN = '<system-reminder>\n'
const reminder = (body: string) => `${REMINDER_OPEN}${body}\n</system-reminder>`
const AMBIENT =
  '\n\nThis is ambient context — do not narrate it to the user unless they ask or it is directly relevant to their request.'

/** Marks the place of an attachment whose rendering is not emulated (see [[renderAttachment]]):
 * `matchesApiView` accepts any one system-reminder there. */
export const OPAQUE = '\u0000'
const opaque = (type: string) => reminder(`${OPAQUE}${type}${OPAQUE}`)

/** Attachment kinds the client sends nothing for (observed). */
const SILENT_ATTACHMENTS = new Set([
  'hook_success',
  'hook_system_message',
  'hook_cancelled',
  'hook_non_blocking_error',
  'command_permissions',
  // Bookkeeping the client keeps out of its messages.
  'thinking_drop',
  'tool_results_cut',
  'credential_org',
  'tool_offer_record',
  'prompt_snapshot',
  'prompt_render_point',
  'whole_texts_withdrawn',
  'deferred_tools_record',
])

/** The system-reminder text the client renders for an attachment record, for the kinds whose
 * rendering is a fixed template of the record's fields (observed with client 2.1.332); other
 * kinds that render something (edited files, diagnostics, task lists, queued notifications...)
 * get an OPAQUE placeholder; silent kinds give nothing. */
export function renderAttachment(a: Rec): string | undefined {
  const list = (v: unknown) => (Array.isArray(v) ? v.filter((x) => typeof x === 'string') : [])
  const none = (v: unknown) => list(v).length === 0
  switch (a?.type) {
    case 'date_change':
      return reminder(
        `The date has changed. Today's date is now ${a.newDate}. No need to announce the new date — the user's own clock shows it.`,
      )
    case 'hook_additional_context': {
      const event = a.hookEvent ?? String(a.hookName ?? '').split(':')[0]
      return reminder(`${event} hook additional context: ${list(a.content).join('\n')}`)
    }
    case 'skill_listing':
      return reminder(`The following skills are available for use with the Skill tool:\n\n${a.content}`)
    case 'task_reminder':
      if (a.itemCount === 0)
        return reminder(
          "The task tools haven't been used recently. If you're working on tasks that would benefit from tracking progress, consider using TaskCreate to add new tasks and TaskUpdate to update task status (set to in_progress when starting, completed when done). Also consider cleaning up the task list if it has become stale. Only use these if relevant to the current work. This is just a gentle reminder - ignore if not applicable.\n",
        )
      break
    case 'deferred_tools_delta':
      if (none(a.removedNames) && none(a.readdedNames) && !none(a.addedLines))
        return reminder(
          `The following deferred tools are now available via ToolSearch. Their schemas are NOT loaded — calling them directly will fail with InputValidationError. Use ToolSearch with query "select:<name>[,<name>...]" to load tool schemas before calling them:\n${list(a.addedLines).join('\n')}`,
        )
      if (
        none(a.addedNames) &&
        none(a.readdedNames) &&
        !none(a.removedNames) &&
        !list(a.removedNames).some((n) => n.startsWith('mcp__'))
      )
        return reminder(
          `The following deferred tools are no longer available in this session. Do not search for them — ToolSearch will return no match:\n${list(a.removedNames).join('\n')}${AMBIENT}`,
        )
      break
    case 'mcp_instructions_delta':
      if (none(a.removedNames) && !none(a.addedBlocks))
        return reminder(
          `# MCP Server Instructions\n\nThe following MCP servers have provided instructions for how to use their tools and resources:\n\n${list(a.addedBlocks).join('\n\n')}`,
        )
      if (none(a.addedNames) && !none(a.removedNames))
        return reminder(
          `The following MCP servers have disconnected. Their instructions above no longer apply:\n${list(a.removedNames).join('\n')}${AMBIENT}`,
        )
      break
    default:
      if (SILENT_ATTACHMENTS.has(a?.type)) return undefined
  }
  return opaque(String(a?.type))
}

/** One message-to-be: a record (or an attachment's reminder) before the client merges them. */
interface Item {
  role: 'user' | 'assistant'
  blocks: ApiBlock[]
  /** A single user record keeps string content as a string until it is merged. */
  text?: string
  attachment?: boolean
  messageId?: string
  meta?: boolean
  record: number
}

const isReminder = (b: ApiBlock | undefined) =>
  b?.type === 'text' && typeof b.text === 'string' && b.text.startsWith(REMINDER_OPEN)
const toolUses = (blocks: ApiBlock[]) => blocks.filter((b) => b.type === 'tool_use').map((b) => String(b.id))
const toolResults = (blocks: ApiBlock[]) =>
  blocks.filter((b) => b.type === 'tool_result').map((b) => String(b.tool_use_id))
const contentOf = (it: Item): string | ApiBlock[] => (it.text !== undefined ? it.text : it.blocks)

/** Computes the API view of a transcript from its bytes. */
export function apiView(bytes: Uint8Array, options: ApiViewOptions = {}): ApiView {
  const index = native.scanBuffer(bytes, 'full')
  const chain = native.activeChain(index)
  const loaded = loadedRecords(index, bytes, [...chain.indexes])
  const offsets = index.offsets()
  const lengths = index.lengths()
  const recs = loaded.map((i) => parse(bytes, { offset: offsets[i], length: lengths[i] }))
  let cut = -1
  recs.forEach((r, k) => isBoundary(r) && (cut = k))
  let model = options.model
  for (let k = recs.length - 1; k >= 0 && model === undefined; k--) {
    const r = recs[k]
    if (r?.type === 'assistant' && typeof r.message?.model === 'string' && r.message.model !== '<synthetic>')
      model = r.message.model
  }
  const items: Item[] = []
  for (let k = cut + 1; k < recs.length; k++) {
    const r = recs[k]
    const record = loaded[k]
    if (!r || r.isSidechain) continue
    if (r.type === 'attachment') {
      const text = renderAttachment(r.attachment)
      // Alone (between two replies) it is sent as a string, like a lone prompt.
      if (text !== undefined)
        items.push({ role: 'user', blocks: [{ type: 'text', text }], text, attachment: true, record })
      continue
    }
    if ((r.type !== 'user' && r.type !== 'assistant') || r.isApiErrorMessage) continue
    const message = r.message
    if (!message || typeof message !== 'object') continue
    if (r.type === 'user') {
      items.push({
        role: 'user',
        blocks: blocksOf(message.content),
        text: typeof message.content === 'string' ? message.content : undefined,
        meta: r.isMeta === true,
        record,
      })
      continue
    }
    const sameModel = message.model === model
    const all = blocksOf(message.content)
    if (blankAssistant(all)) continue
    const blocks = all.filter(
      (b) =>
        (sameModel || (b.type !== 'thinking' && b.type !== 'redacted_thinking')) &&
        !(b.type === 'text' && b.text === ''),
    )
    if (blocks.length > 0)
      items.push({
        role: 'assistant',
        blocks,
        messageId: typeof message.id === 'string' ? message.id : undefined,
        record,
      })
  }
  const { messages, pending } = assemble(repairTools(orderResults(dropThinkingOnly(items))))
  return { messages, pending, records: items.map((it) => it.record), chain, model }
}

const isThinking = (b: ApiBlock) => b.type === 'thinking' || b.type === 'redacted_thinking'
const isBlankText = (b: ApiBlock) => b.type === 'text' && typeof b.text === 'string' && b.text.trim() === ''

/** The texts the client writes for an empty message and a removed empty block. */
const PLACEHOLDERS = ['(no content)', '[Empty text removed]']

/** An assistant record the client drops whole, a reply that says nothing: thinking blocks, then
 * one or more texts that are blank or the client's placeholders, and nothing after them (a
 * thinking block after such a text makes it an ordinary reply). */
function blankAssistant(blocks: ApiBlock[]): boolean {
  const first = blocks.findIndex((b) => !isThinking(b))
  const saysNothing = (b: ApiBlock) =>
    b.type === 'text' && (typeof b.text !== 'string' || ['', ...PLACEHOLDERS].includes(b.text.trim()))
  return first >= 0 && blocks.slice(first).every(saysNothing)
}

/** Assistant messages (consecutive fragments of one message.id) of thinking blocks only are not sent. */
function dropThinkingOnly(items: Item[]): Item[] {
  const out: Item[] = []
  for (let a = 0; a < items.length;) {
    let b = a + 1
    if (items[a].role === 'assistant' && items[a].messageId)
      while (b < items.length && items[b].role === 'assistant' && items[b].messageId === items[a].messageId) b++
    const run = items.slice(a, b)
    if (!(run[0].role === 'assistant' && run.every((it) => it.blocks.every(isThinking)))) out.push(...run)
    a = b
  }
  return out
}

/** Within a run of user records, tool results in file order, whatever the order of the calls. */
function orderResults(items: Item[]): Item[] {
  const out = [...items]
  for (let a = 0; a < out.length;) {
    let b = a
    while (b < out.length && out[b].role === 'user') b++
    const slots = []
    for (let k = a; k < b; k++) if (toolResults(out[k].blocks).length > 0) slots.push(k)
    const sorted = slots.map((k) => out[k]).sort((x, y) => x.record - y.record)
    slots.forEach((k, j) => (out[k] = sorted[j]))
    a = b + 1
  }
  return out
}

/** Tool pairing as the client repairs it: an assistant record with a call that no result in the
 * history answers is dropped (unless the history ends on it: the client then answers it as
 * interrupted); results that answer no call are removed ("(no content)" when nothing is left). */
function repairTools(items: Item[]): Item[] {
  const answered = new Set(items.flatMap((it) => (it.role === 'user' ? toolResults(it.blocks) : [])))
  const lastAssistant = items.map((it) => it.role).lastIndexOf('assistant')
  const tail = items.slice(lastAssistant + 1).every((it) => it.attachment || it.meta)
  const kept = items.filter(
    (it, k) =>
      it.role !== 'assistant' || (tail && k === lastAssistant) || toolUses(it.blocks).every((id) => answered.has(id)),
  )
  const calls = new Set(kept.flatMap((it) => (it.role === 'assistant' ? toolUses(it.blocks) : [])))
  return kept.map((it) => {
    if (it.role !== 'user' || toolResults(it.blocks).every((id) => calls.has(id))) return it
    const blocks = it.blocks.filter((b) => b.type !== 'tool_result' || calls.has(String(b.tool_use_id)))
    return blocks.length > 0
      ? { ...it, blocks, text: undefined }
      : { ...it, blocks: [{ type: 'text', text: '(no content)' }], text: '(no content)' }
  })
}

/** Appends user item `b` to user message `a` the way the client joins them: a system-reminder
 * that follows a tool result is folded into that result's content; otherwise a text block that
 * is followed by a non-reminder text gets a newline. */
function joinUser(a: Item, b: Item): Item {
  const blocks = a.text !== undefined ? [{ type: 'text', text: a.text }] : [...a.blocks]
  const incoming = b.text !== undefined ? [{ type: 'text', text: b.text }] : b.blocks
  incoming.forEach((block, k) => {
    const last = blocks[blocks.length - 1]
    if (isReminder(block) && last?.type === 'tool_result') {
      const c = last.content
      if (typeof c === 'string') blocks[blocks.length - 1] = { ...last, content: `${c.trim()}\n\n${block.text}` }
      else if (Array.isArray(c)) {
        const inner = c.map((x: ApiBlock) => ({ ...x }))
        const tail = inner[inner.length - 1]
        if (tail?.type === 'text') tail.text = `${tail.text}\n`
        blocks[blocks.length - 1] = { ...last, content: [...inner, { type: 'text', text: block.text }] }
      } else blocks[blocks.length - 1] = { ...last, content: block.text }
      return
    }
    if (k === 0 && last?.type === 'text' && block.type === 'text' && !isReminder(block))
      blocks[blocks.length - 1] = { ...last, text: `${last.text}\n` }
    blocks.push(block)
  })
  return { ...a, blocks, text: undefined, attachment: a.attachment && b.attachment }
}

/** Attachments move up past user records (not past an assistant message, a tool result or
 * another attachment); consecutive user items merge; fragments of one message.id merge; tool
 * results lead their user message. The trailing user records the client merges into its own
 * final message come back as `pending`, unless the history ends on a prompt or a tool call,
 * which the client closes with its synthetic answers. */
function assemble(input: Item[]): { messages: ApiMessage[]; pending?: ApiBlock[] } {
  const items: Item[] = []
  for (const it of input) {
    let at = items.length
    if (it.attachment)
      while (
        at > 0 &&
        items[at - 1].role === 'user' &&
        !items[at - 1].attachment &&
        toolResults(items[at - 1].blocks).length === 0
      )
        at--
    items.splice(at, 0, it)
  }
  const merged: Item[] = []
  for (const it of items) {
    const prev = merged[merged.length - 1]
    if (prev?.role === 'user' && it.role === 'user') merged[merged.length - 1] = joinUser(prev, it)
    else if (prev?.role === 'assistant' && it.role === 'assistant' && it.messageId && prev.messageId === it.messageId)
      merged[merged.length - 1] = { ...prev, blocks: [...prev.blocks, ...it.blocks] }
    else merged.push(it)
  }
  for (const m of merged) {
    if (m.role !== 'user' || m.text !== undefined) continue
    // Empty and whitespace-only texts of a user message are dropped (a lone string is not).
    if (m.blocks.some(isBlankText)) {
      m.blocks = m.blocks.filter((b) => !isBlankText(b))
      if (m.blocks.length === 0) m.blocks = [{ type: 'text', text: '(no content)' }]
    }
    const results = m.blocks.filter((b) => b.type === 'tool_result')
    m.blocks = [...results, ...m.blocks.filter((b) => b.type !== 'tool_result')]
    if (
      results.some((b) => Array.isArray(b.content) && b.content.some((x: ApiBlock) => x?.type === 'tool_reference')) &&
      !m.blocks.some((b) => b.type === 'text' && b.text === 'Tool loaded.')
    )
      m.blocks.push({ type: 'text', text: 'Tool loaded.' })
  }
  const last = merged[merged.length - 1]
  let pending: ApiBlock[] | undefined
  if (last?.role === 'assistant' && toolUses(last.blocks).length > 0) {
    merged.push({
      role: 'user',
      blocks: toolUses(last.blocks).map((id) => ({
        type: 'tool_result',
        content: INTERRUPTED_TOOL_RESULT,
        is_error: true,
        tool_use_id: id,
      })),
      record: -1,
    })
  }
  const end = merged[merged.length - 1]
  if (end?.role === 'user') {
    const prompted = input.length > 0 && endsOnPrompt(input)
    if (prompted || toolResults(end.blocks).length > 0)
      merged.push({ role: 'assistant', blocks: [{ type: 'text', text: NO_RESPONSE }], record: -1 })
    else {
      // As it sits in the client's final message: joined to the prompt, which follows it.
      const joined = joinUser(merged.pop()!, { role: 'user', blocks: [], text: 'continue', record: -1 })
      pending = joined.blocks.slice(0, -1)
    }
  }
  return { messages: merged.map((m) => ({ role: m.role, content: contentOf(m) })), pending }
}

/** Whether the history ends on a user turn the client treats as an unanswered prompt (and closes
 * with "No response requested."): user records after the last assistant one, unless that run
 * starts with a meta record (a local command's caveat, which the client folds into its next
 * prompt instead: observed on real files and probes). */
function endsOnPrompt(items: Item[]): boolean {
  const lastAssistant = items.map((it) => it.role).lastIndexOf('assistant')
  const first = items.slice(lastAssistant + 1).find((it) => !it.attachment)
  return first !== undefined && !first.meta
}
