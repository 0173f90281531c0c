// `repair` as a file operation: the native core finds the damage and mends it by byte-span edits
// (crate repair: records on one line split, torn lines and non-JSON bytes cut, lone surrogates
// rewritten, dangling parents relinked where unambiguous; refused when the client would resume
// less or other than what the damage hid). This module decides what is refused and how, and
// publishes the result as a candidate (--out) or through the in-place replacement transaction,
// then checks what landed on disk: the expected bytes, a second repair finding nothing left to
// mend, and the validator finding no error the damaged file did not already have.
import { statSync } from 'node:fs'
import { basename, join, resolve } from 'node:path'
import native from '../native.js'
import type { TranscriptRepair } from '#native'
import { ClaudeJsonlError, EXIT, inputError } from '../errors.js'
import { publishFile } from '../durable-files.js'
import { checkSessionClosed, type StaleRecord } from '../read/live-sessions.js'
import { checkOutputPath } from './paths.js'
import { checkLiveReplacement, receiptFields, workDirFor, type LiveReplacementOptions } from './in-place.js'
import { replaceInPlace, type ReplaceResult } from './transaction.js'
import { errorCount, readInput } from './repair-read-pages.js'

/** The named repairs, as reports and `doctor` findings spell them. */
export const REPAIR_KINDS = [
  'records-on-one-line',
  'torn-line',
  'non-json-bytes',
  'lone-surrogates',
  'dangling-parent',
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
  const before = errorCount(source).codes
  for (const [code, n] of errorCount(published).codes)
    if (n > (before.get(code) ?? 0))
      throw new ClaudeJsonlError(`${path}: the repaired file has a new validation error (${code})`, EXIT.internal, path)
}

const json = (report: TranscriptRepairReport) => JSON.stringify(report, null, 2) + '\n'

/**
 * Repairs the transcript at `input` into `opts.out` (candidate), in place, or nowhere (dry run).
 * Throws a ClaudeJsonlError on a refusal (nothing written); in place, a transaction that did not
 * commit is thrown too, except committed-report-failed, which resolves with `transaction` set.
 */
export async function repairTranscript(input: string, opts: RepairTranscriptOptions): Promise<TranscriptRepairResult> {
  const path = resolve(input)
  if (opts.inPlace) return repairInPlace(path, opts.inPlace, opts.dryRun === true)
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
  await publishFile(out, expected, {
    replace: opts.force,
    check: (temp) => {
      verifyRepaired(temp, readInput(temp), expected, bytes)
      const now = statSync(path, { bigint: true })
      if (now.mtimeNs !== before.mtimeNs || now.size !== before.size || now.ino !== before.ino)
        throw new ClaudeJsonlError(`${path}: the source changed during the run; nothing written`, EXIT.input, path)
    },
  })
  const reportPath = `${out}.report.json`
  try {
    await publishFile(reportPath, json(report), { replace: true })
  } catch (e) {
    throw new ClaudeJsonlError(
      `${out}: repaired file written, but its report could not be (${(e as Error).message})`,
      EXIT.input,
      out,
    )
  }
  return { report, reportPath }
}

async function repairInPlace(
  path: string,
  live: LiveReplacementOptions,
  dryRun: boolean,
): Promise<TranscriptRepairResult> {
  const stale: StaleRecord[] = checkLiveReplacement(path, live)
  if (dryRun) {
    const bytes = readInput(path)
    return { report: reportOf(path, bytes, planRepair(path, bytes), true) }
  }
  const workDir = workDirFor(live.workDir)
  const env = live.env ?? process.env
  let report: TranscriptRepairReport | undefined
  let reportPath: string | undefined
  let source: Buffer | undefined
  let expected: Buffer | undefined
  let nothing = false
  const transaction = await replaceInPlace({
    target: path,
    workDir,
    env,
    guard: () => void checkSessionClosed(path, { stableForMs: 0, env }),
    produce: async (frozen) => {
      const r = planRepair(path, frozen.bytes)
      source = frozen.bytes
      report = reportOf(path, frozen.bytes, r, false)
      if (!r.output) {
        nothing = true
        throw new ClaudeJsonlError(`${path}: nothing to repair`, EXIT.ok, path)
      }
      const bytes = r.output
      expected = bytes
      const candidate = join(workDir, `${basename(path, '.jsonl')}.${frozen.sha256.slice(0, 16)}.repaired.jsonl`)
      reportPath = `${candidate}.report.json`
      await publishFile(candidate, bytes, { replace: true })
      return { bytes, path: candidate, details: report }
    },
    verify: (bytes) => verifyRepaired(path, bytes, expected!, source!),
    report: async (receipt) => {
      report!.output = path
      report!.inPlace = receiptFields(receipt, stale)
      await publishFile(reportPath!, json(report!), { replace: true })
    },
  })
  if (nothing) return { report: report! }
  if (transaction.operationState === 'not-committed') throw transaction.error!
  return { report: report!, reportPath, transaction }
}
