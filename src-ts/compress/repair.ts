// `repair` as a file operation: the native core finds the damage and mends it by byte-span edits
// (crate repair: records on one line split, torn lines and non-JSON bytes cut, lone surrogates
// rewritten, dangling parents and tool results whose call is off the chain relinked where
// unambiguous; refused when the client would resume less or other than what the damage hid).
// This module decides what is refused and how, and what is checked on the bytes that land on
// disk: the expected bytes, a second repair finding nothing left to mend, and the validator
// finding no error the damaged file did not already have. Publishing (a candidate copy, or in
// place through the replacement transaction) is repair-files.ts's, shared with repair-read-pages.
import { statSync } from 'node:fs'
import { resolve } from 'node:path'
import native from '../native.js'
import type { TranscriptRepair } from '#native'
import { ClaudeJsonlError, EXIT, inputError } from '../errors.js'
import { checkOutputPath } from './paths.js'
import { checkLiveReplacement, type receiptFields, type LiveReplacementOptions } from './in-place.js'
import type { ReplaceResult } from './transaction.js'
import { checkNoNewErrors, errorCount, publishRepairedCopy, readInput, repairInPlace } from './repair-files.js'

/** The named repairs, as reports and `doctor` findings spell them. */
export const REPAIR_KINDS = [
  'records-on-one-line',
  'torn-line',
  'non-json-bytes',
  'lone-surrogates',
  'dangling-parent',
  'orphan-tool-result',
] as const
/** The name of one repair (also its `doctor` finding code). */
export type RepairKind = (typeof REPAIR_KINDS)[number]

/** How `repairTranscript` runs: where the result goes, or nowhere (a dry run). */
export interface RepairTranscriptOptions {
  /** Candidate mode: write the repaired file here (FILE.report.json beside it). */
  out?: string
  /** Replace an existing file at `out`. */
  force?: boolean
  /** Replace the transcript itself through the in-place transaction. */
  inPlace?: LiveReplacementOptions
  /** Say what would change, line by line; write nothing. */
  dryRun?: boolean
}

/** One edit: which repair, the source line, the bytes it replaced or cut. */
export interface RepairEdit {
  kind: RepairKind
  line: number
  /** Byte range edited (for a relink: in the bytes after the line repairs). */
  start: number
  end: number
  /** The bytes cut or replaced: their count, as text (invalid UTF-8 shown as U+FFFD) and exactly (base64). */
  removedBytes: number
  removedText: string
  removedBase64: string
  message: string
}

/**
 * The report of a transcript repair (schema 1): each edit (kind, line, bytes cut), the damage left
 * as it is and why, the digests before and after, and the validation of the repaired bytes.
 */
export interface TranscriptRepairReport {
  reportSchemaVersion: 1
  operationState: 'committed' | 'nothing-to-repair' | 'dry-run'
  input: string
  output?: string
  records: number
  bytesBefore: number
  bytesAfter: number
  sourceSha256: string
  repairedSha256?: string
  /** Edits per kind. */
  counts: Partial<Record<RepairKind, number>>
  edits: RepairEdit[]
  /** Damage found and left as it is (an ambiguous relink), with why. */
  left: { kind: RepairKind; line: number; message: string }[]
  /** The validator on the repaired bytes; `sourceErrors` on the damaged ones. */
  validation: { errors: number; warnings: number; sourceErrors: number; codes: string[] }
  inPlace?: ReturnType<typeof receiptFields>
}

/** The outcome of `repairTranscript`: the report, where it was written, and in place the transaction. */
export interface TranscriptRepairResult {
  report: TranscriptRepairReport
  reportPath?: string
  transaction?: ReplaceResult
}

/** Runs the native repair; a refusal becomes a one-line error (nothing written). */
function planRepair(path: string, bytes: Buffer): TranscriptRepair {
  const r = native.repairTranscript(bytes)
  const f = r.refusal
  if (!f) return r
  if (f.kind === 'not-transcript') throw inputError(path, `${f.message}; nothing written`)
  throw new ClaudeJsonlError(`${path}: cannot be repaired safely: ${f.message}`, EXIT.flagged, path)
}

function reportOf(input: string, bytes: Buffer, r: TranscriptRepair, dryRun: boolean): TranscriptRepairReport {
  const source = errorCount(bytes)
  const edits: RepairEdit[] = r.mends.map((m) => ({
    kind: m.kind as RepairKind,
    line: m.line,
    start: m.start,
    end: m.end,
    removedBytes: m.removed.length,
    removedText: m.removed.toString('utf8'),
    removedBase64: m.removed.toString('base64'),
    message: m.message,
  }))
  const counts: TranscriptRepairReport['counts'] = {}
  for (const e of edits) counts[e.kind] = (counts[e.kind] ?? 0) + 1
  const after = r.output ? errorCount(r.output) : source
  return {
    reportSchemaVersion: 1,
    operationState: !r.output ? 'nothing-to-repair' : dryRun ? 'dry-run' : 'committed',
    input,
    records: r.records,
    bytesBefore: bytes.length,
    bytesAfter: r.output ? r.output.length : bytes.length,
    sourceSha256: native.sha256(bytes),
    repairedSha256: r.output ? native.sha256(r.output) : undefined,
    counts,
    edits,
    left: r.left.map((l) => ({ kind: l.kind as RepairKind, line: l.line, message: l.message })),
    validation: {
      errors: after.errors,
      warnings: after.warnings,
      sourceErrors: source.errors,
      codes: [...after.codes.keys()],
    },
  }
}

/** The checks on the repaired bytes as they were read back from disk. */
function verifyRepaired(path: string, published: Buffer, expected: Buffer, source: Buffer): void {
  if (!published.equals(expected))
    throw new ClaudeJsonlError(`${path}: the written file is not the expected repaired bytes`, EXIT.internal, path)
  const again = native.repairTranscript(published)
  if (again.refusal || again.mends.length > 0)
    throw new ClaudeJsonlError(
      `${path}: a second repair of the repaired file still finds ${again.mends.length} edits`,
      EXIT.internal,
      path,
    )
  // A tool result the damage hid whose call was lost with it (a torn line held both) comes back
  // as an orphan the validator flags: damage the repair reports as left, not one it made.
  const left = again.left.filter((l) => l.kind === 'orphan-tool-result').length
  checkNoNewErrors(path, errorCount(published), errorCount(source), new Map([['orphan-tool-result', left]]))
}

/**
 * Repairs the transcript at `input` into `opts.out` (candidate), in place, or nowhere (dry run).
 * Throws a ClaudeJsonlError on a refusal (nothing written); in place, a transaction that did not
 * commit is thrown too, except committed-report-failed, which resolves with `transaction` set.
 */
export async function repairTranscript(input: string, opts: RepairTranscriptOptions): Promise<TranscriptRepairResult> {
  const path = resolve(input)
  if (opts.inPlace) return inPlace(path, opts.inPlace, opts.dryRun === true)
  if (!opts.out && !opts.dryRun)
    throw new ClaudeJsonlError('repair needs --out FILE, --in-place or --dry-run', EXIT.usage)
  if (opts.out) checkOutputPath(path, opts.out)
  const bytes = readInput(path)
  const before = statSync(path, { bigint: true })
  const r = planRepair(path, bytes)
  const report = reportOf(path, bytes, r, opts.dryRun === true)
  if (!r.output || opts.dryRun) return { report }
  const expected = r.output
  const out = opts.out!
  report.output = resolve(out)
  const reportPath = await publishRepairedCopy({
    source: path,
    before,
    out,
    force: opts.force,
    bytes: expected,
    verify: (at, written) => verifyRepaired(at, written, expected, bytes),
    report,
  })
  return { report, reportPath }
}

function plannedRepair(path: string, source: Buffer, dryRun: boolean) {
  const r = planRepair(path, source)
  return { report: reportOf(path, source, r, dryRun), output: r.output }
}

function inPlace(path: string, live: LiveReplacementOptions, dryRun: boolean): Promise<TranscriptRepairResult> {
  if (dryRun) {
    checkLiveReplacement(path, live)
    return Promise.resolve({ report: plannedRepair(path, readInput(path), true).report })
  }
  return repairInPlace({
    path,
    live,
    suffix: 'repaired',
    plan: (source) => plannedRepair(path, source, false),
    verify: (written, expected, source) => verifyRepaired(path, written, expected, source),
  })
}
