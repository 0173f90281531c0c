// Which files are Claude Code transcripts: the record types Claude Code writes are the native
// core's list (crate/core/src/client/records.rs); the doctor, validate, plan and compress all ask here.
import native from '../native.js'
import type { FirstLine } from '#native'

/** Record types Claude Code writes; anything else is passed through and listed as unknown. */
export const KNOWN_TYPES: ReadonlySet<string> = new Set(native.knownRecordTypes())

/** The refusal for a file none of whose records has a Claude Code type. */
export const NOT_CLAUDE_CODE = 'not a Claude Code transcript (no record has a Claude Code type)'

/** A file is a Claude Code transcript when at least one record has a Claude Code type. */
export function isClaudeCodeTranscript(types: readonly { name: string }[]): boolean {
  return types.some((t) => KNOWN_TYPES.has(t.name))
}

/** What a file's scan says of it: enough to tell a transcript from anything else. */
export interface TranscriptShape {
  records: number
  firstLine: string
  types: readonly { name: string }[]
}

/**
 * Why a file is not a Claude Code transcript (one wording for every command: not JSONL, no
 * records, or no Claude Code type), or undefined when it is one.
 */
export function transcriptProblem(s: TranscriptShape): string | undefined {
  if (s.records === 0) return native.notJsonlReason(s.firstLine as FirstLine) ?? 'no records: not a transcript'

  return isClaudeCodeTranscript(s.types) ? undefined : NOT_CLAUDE_CODE
}
