// The conversation the real client sends when it resumes a transcript, typed. Which records make
// which API message, which of their blocks are sent and in what order are the native core's
// client rules (crate/core/src/client); they cross as byte spans and block positions, and each block
// is then taken verbatim from its record, read from the file one window at a time. No client
// rule is decided here.
import { fromNative } from '../errors.js'
import native from '../native.js'
import type { ContentBlock, TextBlock } from './blocks.js'
import { openTranscript, spanTexts } from './spans.js'
import type { EstateOptions } from '../read/estate.js'
import { sessionPath } from '../read/session-ref.js'

/** A record an API message is built from. */
export interface ConversationRecordRef {
  /** 1-based line of the record in the file. */
  line: number
  /** Byte offset of the line. */
  offset: number
  /** The record's `uuid`, when it has one. */
  uuid?: string
}

/** One API message as the client sends it. */
export interface ConversationMessage {
  role: 'user' | 'assistant'
  /** A string for a lone user record whose content is a string; blocks otherwise, each exactly as
   * its record holds it (a record's string content sent among blocks is a text block of it). */
  content: string | ContentBlock[]
  /** The records it is built from, in order (assistant fragments of one `message.id`,
   * consecutive user records). */
  records: ConversationRecordRef[]
}

/** A record on the chain that the client sends nothing for, and why. */
export interface DroppedRecord {
  line: number
  /** `blank-text`: an assistant record of blank text (and thinking) only; `thinking-only`: an
   * assistant message of thinking blocks only. */
  reason: 'blank-text' | 'thinking-only'
}

/** Non-blank lines that are not JSON objects. The client skips them; a chain through one stops there. */
export interface BadLinesProblem {
  kind: 'bad-lines'
  /** How many there are. */
  count: number
  /** The first few of them (the native scan keeps a sample), in file order. */
  lines: { line: number; offset: number; reason: 'not-json' | 'not-an-object' }[]
}

/** The last line is cut short (a write that was interrupted): the client skips it. */
export interface TornTailProblem {
  kind: 'torn-tail'
}

/** The file has no conversation record: there is nothing to resume (`messages` is empty). */
export interface NoConversationProblem {
  kind: 'no-conversation'
}

/** The file changed after it was scanned: a record could not be read back (the file is shorter,
 * or the line no longer parses). `messages` stop before the message it belongs to. */
export interface ChangedProblem {
  kind: 'changed'
  /** The 1-based line of the record that could not be read back. */
  line: number
}

/** Something about the file that the result cannot hide. Reading never throws for these. */
export type ConversationProblem = BadLinesProblem | TornTailProblem | NoConversationProblem | ChangedProblem

/** What `conversation()` returns. */
export interface Conversation {
  /** The record the client resumes from; absent when the file has no conversation record. */
  leaf?: ConversationRecordRef
  /** The API messages of the loaded history, in order: what the client sends before its own
   * final user message (reminders and the new prompt). */
  messages: ConversationMessage[]
  /** Records on the loaded chain that the client sends nothing for. */
  dropped: DroppedRecord[]
  problems: ConversationProblem[]
}

/** The n-th item of `content` that is an object with a string `type` (the client's blocks). */
function nthBlock(content: unknown, n: number): ContentBlock | undefined {
  if (!Array.isArray(content)) return undefined
  for (const b of content) {
    if (b !== null && typeof b === 'object' && !Array.isArray(b) && typeof b.type === 'string' && n-- === 0)
      return b as ContentBlock
  }
  return undefined
}

/**
 * The conversation the real Claude Code client sends when it resumes a session (a transcript path,
 * a session uuid or a unique prefix of one, looked up under `opts.projects`):
 * its API messages (role and content blocks, typed), each with the records it was built from,
 * the leaf it resumed from, the records it drops, and problems. The client's rules (leaf, chain,
 * compact boundary, merging, dropped blocks) are the native core's; the blocks are read from the
 * file, so a file larger than V8's string limit works. Throws a `ClaudeJsonlError` only when the
 * file cannot be read at all (exit code 3); what is wrong inside it comes back in `problems`.
 */
export async function conversation(session: string, opts: EstateOptions = {}): Promise<Conversation> {
  const path = sessionPath(session, opts)
  let spans
  try {
    spans = await native.conversationSpans(path)
  } catch (e) {
    throw fromNative(e, path)
  }
  const problems: ConversationProblem[] = []
  if (spans.badLineCount > 0)
    problems.push({
      kind: 'bad-lines',
      count: spans.badLineCount,
      lines: spans.badLines.map((b) => ({
        line: b.line,
        offset: b.offset,
        reason: b.kind === 'non-object' ? 'not-an-object' : 'not-json',
      })),
    })
  if (spans.tornTail) problems.push({ kind: 'torn-tail' })
  const ref = (k: number): ConversationRecordRef => {
    const r: ConversationRecordRef = { line: spans.recordLines[k], offset: spans.recordOffsets[k] }
    const uuid = spans.recordUuids[k]
    if (uuid) r.uuid = uuid
    return r
  }
  const result: Conversation = { messages: [], dropped: [], problems }
  if (spans.leafLine !== undefined && spans.leafLine !== null) {
    result.leaf = { line: spans.leafLine, offset: spans.leafOffset ?? 0 }
    if (spans.leafUuid) result.leaf.uuid = spans.leafUuid
  } else problems.push({ kind: 'no-conversation' })
  result.dropped = [...spans.droppedLines].map((line, k) => ({
    line,
    reason: spans.droppedReasons[k] as DroppedRecord['reason'],
  }))

  // Each record's `message.content`, read in file order (a chain is not in file order: results
  // are spliced after their calls, a preserved segment after its summary).
  const n = spans.recordLines.length
  const order = Array.from({ length: n }, (_, k) => k).sort((a, b) => spans.recordOffsets[a] - spans.recordOffsets[b])
  const contents: unknown[] = new Array(n)
  const unreadable = new Set<number>()
  const fh = await openTranscript(path)
  try {
    const offsets = order.map((k) => spans.recordOffsets[k])
    const lengths = order.map((k) => spans.recordLengths[k])
    let next = 0
    try {
      for await (const [j, text] of spanTexts(fh, path, offsets, lengths)) {
        next = j + 1
        try {
          const v = JSON.parse(text)
          contents[order[j]] = v?.message?.content
        } catch {
          unreadable.add(order[j])
        }
      }
    } catch {
      // The file got shorter (or a read failed): every record not read yet is unreadable.
      for (let j = next; j < n; j++) unreadable.add(order[j])
    }
  } finally {
    await fh.close()
  }

  for (const m of spans.messages) {
    const at = (i: number) => m.recordStart + i
    const bad = Array.from({ length: m.recordCount }, (_, i) => at(i)).find((k) => unreadable.has(k))
    const blockAt = (b: number): ContentBlock | undefined => {
      const c = contents[at(m.blockRecords[b])]
      const item = m.blockItems[b]
      if (item === -2) return { type: 'text', text: spans.noContentText } satisfies TextBlock
      if (item === -1) return typeof c === 'string' ? ({ type: 'text', text: c } satisfies TextBlock) : undefined
      return nthBlock(c, item)
    }
    let content: string | ContentBlock[] | undefined
    if (bad === undefined && m.stringContent) {
      const c = contents[at(0)]
      if (typeof c === 'string') content = c
    } else if (bad === undefined) {
      const blocks = Array.from(m.blockItems, (_, b) => blockAt(b))
      if (blocks.every((x) => x !== undefined)) content = blocks as ContentBlock[]
    }
    if (content === undefined) {
      // The bytes read back are not the ones scanned: stop before this message.
      const k = bad ?? at(0)
      problems.push({ kind: 'changed', line: spans.recordLines[k] })
      break
    }
    result.messages.push({
      role: m.role as ConversationMessage['role'],
      content,
      records: Array.from({ length: m.recordCount }, (_, i) => ref(at(i))),
    })
  }
  return result
}
