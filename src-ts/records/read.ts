// Streaming a transcript's records to a tooling author. The native side checks every line and
// chooses the records (by type, time or active chain) as byte spans, so records that are not wanted never
// become JavaScript strings; each chosen record is read from the file, parsed and typed here, one
// window of the file at a time, so files beyond V8's string limit stream as well as small ones.
import { fromNative, usageError } from '../errors.js'
import native from '../native.js'
import { isKnownRecord } from './guards.js'
import { openTranscript, spanTexts } from './spans.js'
import type { KnownRecord, UnknownRecord } from './types.js'

/**
 * Which records `records()` yields: by type, time and chain, and whether lines that are not
 * records are yielded too.
 */
export interface RecordsOptions {
  /** Record types (`type`) to yield; all when absent. */
  types?: readonly string[]
  /** Only records written at or after this time (a Date, ms since the epoch or an ISO 8601 string).
   * Records without a timestamp (titles, pointers, snapshots) are left out when a time bound is given. */
  since?: Date | number | string
  /** Only records written at or before this time. */
  until?: Date | number | string
  /** Only the active chain: the conversation the client would resume, root to leaf. */
  activeChain?: boolean
  /** Also yield the lines that are not records (default true). They match no filter, so they are
   * yielded whatever the filters are. */
  problems?: boolean
}

interface Position {
  /** 1-based line number in the file. */
  line: number
  /** Byte offset of the line in the file. */
  offset: number
}

/** A record of a known type whose declared fields have their declared JS types. */
export interface KnownRecordItem extends Position {
  kind: 'record'
  record: KnownRecord
}

/** A JSON object that is not a known record (a new type, or a known type with a field of another JS type), kept whole. */
export interface UnknownRecordItem extends Position {
  kind: 'unknown'
  record: UnknownRecord
}

/** A non-blank line that is not a record. */
export interface LineProblem extends Position {
  kind: 'problem'
  /** `not-json`, or `not-an-object` (JSON, but an array, string or number). */
  reason: 'not-json' | 'not-an-object'
  /** The line's length in bytes, without its terminator. */
  length: number
}

/** What `records()` yields, in file order. */
export type RecordItem = KnownRecordItem | UnknownRecordItem | LineProblem

function timeOf(name: string, v: Date | number | string | undefined): number | undefined {
  if (v === undefined) return undefined
  const ms = v instanceof Date ? v.getTime() : typeof v === 'number' ? v : Date.parse(v)
  if (!Number.isFinite(ms)) throw usageError(`${name}: not a time: ${String(v)}`)
  return ms
}

/**
 * The records of the transcript at `path`, typed, in file order, each with its line and byte
 * offset. Lines that are not JSON objects are yielded as problems, records of unknown types or
 * shapes as `unknown`; iteration never throws for the content of a line. It throws a
 * `ClaudeJsonlError` when the file cannot be read (exit code 3), when an option is invalid (2), or
 * when the file shrinks while it is being read (3).
 */
export async function* records(path: string, options: RecordsOptions = {}): AsyncGenerator<RecordItem> {
  const sinceMs = timeOf('since', options.since)
  const untilMs = timeOf('until', options.until)
  let sel
  try {
    sel = await native.selectRecords(path, {
      types: options.types ? [...options.types] : undefined,
      sinceMs,
      untilMs,
      activeChain: options.activeChain ?? false,
    })
  } catch (e) {
    throw fromNative(e, path)
  }
  const wantProblems = options.problems ?? true
  const fh = await openTranscript(path)
  try {
    let p = 0 // next problem
    for await (const [k, text] of spanTexts(fh, path, sel.offsets, sel.lengths)) {
      const line = sel.lines[k]
      const offset = sel.offsets[k]
      for (; wantProblems && p < sel.problemLines.length && sel.problemLines[p] < line; p++) yield problemAt(sel, p)
      let value: unknown
      try {
        value = JSON.parse(text)
      } catch {
        // The grammar check passed it but JSON.parse does not: report, never throw.
        yield { kind: 'problem', line, offset, reason: 'not-json', length: sel.lengths[k] }
        continue
      }
      if (isKnownRecord(value)) yield { kind: 'record', line, offset, record: value }
      else yield { kind: 'unknown', line, offset, record: value as UnknownRecord }
    }
    for (; wantProblems && p < sel.problemLines.length; p++) yield problemAt(sel, p)
  } finally {
    await fh.close()
  }
}

function problemAt(
  sel: { problemLines: Uint32Array; problemOffsets: Float64Array; problemLengths: Uint32Array; problemKinds: string[] },
  p: number,
): LineProblem {
  return {
    kind: 'problem',
    line: sel.problemLines[p],
    offset: sel.problemOffsets[p],
    reason: sel.problemKinds[p] as LineProblem['reason'],
    length: sel.problemLengths[p],
  }
}
