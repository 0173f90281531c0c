// The check compress tests need: a rewritten transcript resumes in the real client as
// [its summary] + the recent suffix of the original, exactly as the client sends it for the
// original, and nothing of what was excluded.
import { isDeepStrictEqual } from 'node:util'
import { ApiMessage, resumeWithRealClient, ResumeResult } from './claude-client.js'

const SESSION = '5e551011-0000-4000-8000-00000000abcd'

export interface ResumesLikeOptions {
  sessionId?: string
  /** Texts that must not reach the model from the rewritten file (e.g. planted on excluded branches). */
  excludedTexts?: string[]
}

export interface ResumesLike {
  original: ResumeResult
  compressed: ResumeResult
  /** How many messages of the original's history the compressed one keeps verbatim. */
  suffixMessages: number
}

/** The text of the last compact summary record in a transcript. */
function summaryText(bytes: Buffer): string {
  const lines = bytes.toString('utf8').split('\n')
  for (let k = lines.length - 1; k >= 0; k--) {
    if (!lines[k].includes('"isCompactSummary"')) continue
    const r = JSON.parse(lines[k])
    if (r.isCompactSummary !== true) continue
    const c = r.message?.content
    if (typeof c === 'string') return c
    if (Array.isArray(c))
      return c
        .filter((b: any) => b?.type === 'text')
        .map((b: any) => b.text)
        .join('')
  }
  throw new Error('assertResumesLike: the compressed transcript has no isCompactSummary record')
}

/** The client's final message without its own reminders: the trailing records and the prompt. */
function finalTail(r: ResumeResult): unknown[] {
  const c = r.finalMessage?.content
  const blocks = typeof c === 'string' ? [{ type: 'text', text: c }] : Array.isArray(c) ? c : []
  return blocks.filter(
    (b: any) => !(b?.type === 'text' && typeof b.text === 'string' && b.text.startsWith('<system-reminder>')),
  )
}

/** The compressed history without its summary: the summary is its first user message, or that
 * message's first text block when the client merged it with the next user record. */
function afterSummary(history: ApiMessage[], summary: string): ApiMessage[] {
  const first = history[0]
  if (first?.role !== 'user')
    throw new Error(
      `assertResumesLike: the compressed history starts with ${first?.role ?? 'nothing'}, not the summary`,
    )
  if (typeof first.content === 'string') {
    if (first.content !== summary) throw new Error('assertResumesLike: the first message is not the summary')
    return history.slice(1)
  }
  const [head, ...rest] = withoutClientReminders(first, '').content as any[]
  if (head?.type !== 'text' || (head.text !== summary && head.text !== `${summary}\n`))
    throw new Error('assertResumesLike: the first block sent is not the summary')
  return rest.length > 0 ? [{ role: 'user', content: rest }, ...history.slice(1)] : history.slice(1)
}

/**
 * A user message without the reminders the client adds of its own when it sends a history
 * (`<system-reminder>` text that the transcript does not hold, e.g. that the task tools have not
 * been used recently): where it adds one depends on the history's length, not on the file.
 */
function withoutClientReminders(m: ApiMessage, fileText: string): ApiMessage {
  if (m.role !== 'user' || typeof m.content === 'string') return m
  const blocks = (m.content as any[]).filter(
    (b) =>
      !(
        b?.type === 'text' &&
        /^<system-reminder>/.test(b.text) &&
        !fileText.includes(JSON.stringify(b.text).slice(1, -1))
      ),
  )
  return { ...m, content: blocks }
}

function asBlocks(m: ApiMessage): ApiMessage {
  return typeof m.content === 'string' ? { ...m, content: [{ type: 'text', text: m.content }] } : m
}

/** Every compact summary text in a transcript (an original compacted before). */
function priorSummaries(bytes: Buffer): Set<string> {
  const out = new Set<string>()
  for (const line of bytes.toString('utf8').split('\n')) {
    if (!line.includes('"isCompactSummary"')) continue
    try {
      const r = JSON.parse(line)
      const c = r.isCompactSummary === true ? r.message?.content : undefined
      if (typeof c === 'string') out.add(c.trim())
      else if (Array.isArray(c))
        out.add(
          c
            .filter((b: any) => b?.type === 'text')
            .map((b: any) => b.text)
            .join('')
            .trim(),
        )
    } catch {
      // not a record
    }
  }
  return out
}

/** The original's first kept message without the leading blocks of its own compact summary:
 * when the cut falls right after an earlier compaction, the client merged that summary into the
 * message, and the new summary replaces it (folded) in the compressed file. */
function withoutPriorSummary(m: ApiMessage, priors: Set<string>): ApiMessage {
  if (!Array.isArray(m.content)) return m
  let k = 0
  while (
    k < m.content.length - 1 &&
    (m.content[k] as any)?.type === 'text' &&
    priors.has(String((m.content[k] as any).text).trim())
  )
    k++
  return k === 0 ? m : { ...m, content: m.content.slice(k) }
}

/** Resumes both files with the real client and throws (with the first difference) unless the
 * compressed one is sent as [summary] + the original's recent suffix, exactly. */
export async function assertResumesLike(
  originalBytes: Buffer,
  compressedBytes: Buffer,
  opts: ResumesLikeOptions = {},
): Promise<ResumesLike> {
  const sessionId = opts.sessionId ?? SESSION
  // side by side: each resume has its own HOME and mock
  const [original, compressed] = await Promise.all([
    resumeWithRealClient(originalBytes, { sessionId }),
    resumeWithRealClient(compressedBytes, { sessionId }),
  ])
  for (const [name, r] of [
    ['original', original],
    ['compressed', compressed],
  ] as const) {
    if (r.exitCode !== 0 || !r.history)
      throw new Error(
        `assertResumesLike: the client failed on the ${name} (exit ${r.exitCode}): ${r.stderr.slice(0, 500)}`,
      )
  }
  const kept = afterSummary(compressed.history!, summaryText(compressedBytes))
  const originalText = originalBytes.toString('utf8')
  const compressedText = compressedBytes.toString('utf8')
  const from = original.history!.length - kept.length
  if (kept.length === 0 || from < 0)
    throw new Error(
      `assertResumesLike: ${kept.length} messages after the summary, the original has ${original.history!.length}`,
    )
  for (let k = 0; k < kept.length; k++) {
    // The client merges the summary with a following user message; string content then travels
    // as text blocks, which is the same message.
    const want = withoutClientReminders(
      k === 0
        ? withoutPriorSummary(asBlocks(original.history![from]), priorSummaries(originalBytes))
        : original.history![from + k],
      originalText,
    )
    const got = withoutClientReminders(k === 0 ? asBlocks(kept[0]) : kept[k], compressedText)
    // A cut between two user records the client sends as one message keeps the later ones: the
    // first kept message is then the tail of the original's (the earlier records are summarised).
    const tailOfMerged =
      k === 0 &&
      Array.isArray(got.content) &&
      Array.isArray(want.content) &&
      got.content.length < want.content.length &&
      isDeepStrictEqual(want.content.slice(want.content.length - got.content.length), got.content)
    if (!tailOfMerged && !isDeepStrictEqual(got, want)) {
      throw new Error(
        `assertResumesLike: message ${k + 1} after the summary differs from the original's message ${from + k + 1}:\n` +
          `  compressed: ${JSON.stringify(kept[k]).slice(0, 400)}\n  original:   ${JSON.stringify(original.history![from + k]).slice(0, 400)}`,
      )
    }
  }
  if (!isDeepStrictEqual(finalTail(compressed), finalTail(original))) {
    throw new Error(
      `assertResumesLike: the client's final message differs: ${JSON.stringify(finalTail(compressed)).slice(0, 300)} vs ${JSON.stringify(finalTail(original)).slice(0, 300)}`,
    )
  }
  const sent = JSON.stringify(compressed.history)
  for (const text of opts.excludedTexts ?? []) {
    if (sent.includes(JSON.stringify(text).slice(1, -1)))
      throw new Error(`assertResumesLike: excluded text reached the model: ${text.slice(0, 100)}`)
  }
  return { original, compressed, suffixMessages: kept.length }
}
