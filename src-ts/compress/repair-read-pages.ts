// The `Read.pages` compatibility repair as a file operation: the exact `pages` member bytes of
// settled `Read` tool calls are removed natively (crate compress/read_pages), the result is
// published as a candidate (--out) or through the in-place replacement transaction, and what
// lands on disk is checked: the expected bytes and SHA-256, a second scan finding nothing left to
// patch, and the full validator finding no error the source did not already have. Publishing is
// repair-files.ts's, shared with `repair`. Compression never runs this repair; it is its own
// command.
import { statSync } from 'node:fs'
import { resolve } from 'node:path'
import native from '../native.js'
import type { ReadPagesRepair } from '#native'
import { ClaudeJsonlError, EXIT, inputError } from '../errors.js'
import { checkOutputPath } from './paths.js'
import { transcriptProblem } from '../read/record-types.js'
import { sessionPath } from '../read/session-ref.js'
import type { LiveReplacementOptions, receiptFields } from './in-place.js'
import type { ReplaceResult } from './transaction.js'
import { checkNoNewErrors, errorCount, publishRepairedCopy, readInput, repairInPlace } from './repair-files.js'

/** Which records `repairReadPages` repairs: those on the active chain, or every record in the file. */
export type RepairScope = 'active' | 'all'

/**
 * How `repairReadPages` runs: which records, and where the result goes (a new file, or the
 * transcript replaced in place).
 */
export interface RepairOptions {
  /** Which records to repair (default 'active'). */
  scope?: RepairScope
  /** Candidate mode: write the repaired file here. */
  out?: string
  /** Replace an existing file at `out`. */
  force?: boolean
  /** Live mode (instead of `out`). */
  inPlace?: LiveReplacementOptions
  /** Where a session uuid or prefix is looked up (default: the estate root of the environment). */
  projects?: string
}

/**
 * The report of a `Read.pages` repair (schema 1): the patches made (line, tool call, file, byte
 * range), the calls left alone and why, the digests before and after, and the validation.
 */
export interface RepairReport {
  reportSchemaVersion: 1
  operationState: 'committed' | 'nothing-to-repair'
  input: string
  output?: string
  scope: RepairScope
  records: number
  sourceSha256: string
  repairedSha256?: string
  bytesRemoved: number
  patches: { line: number; toolUseId: string; filePath: string; start: number; end: number }[]
  pending: ReadPagesRepair['pending']
  ineligible: ReadPagesRepair['ineligible']
  validation: { errors: number; warnings: number; sourceErrors: number }
  inPlace?: ReturnType<typeof receiptFields>
}

/**
 * The outcome of `repairReadPages`: its report, where the report was written, and in live mode the
 * replacement transaction.
 */
export interface RepairResult {
  report: RepairReport
  reportPath?: string
  /** Live mode only. */
  transaction?: ReplaceResult
}

/** Runs the native repair; a refusal becomes a one-line error. */
function planRepair(path: string, bytes: Buffer, scope: RepairScope): ReadPagesRepair {
  const r = native.repairReadPages(bytes, scope)
  // A file that is no transcript (an image, a text file) is refused, not "nothing to repair".
  if (r.records === 0) {
    const problem = transcriptProblem(native.validateBuffer(bytes))
    if (problem) throw inputError(path, problem)
  }
  const f = r.refusal
  if (!f) return r
  if (f.kind === 'topology')
    throw new ClaudeJsonlError(
      `${path}: the strict active chain cannot be chosen (${f.status}: ${f.message}); pass --scope all to repair every record`,
      EXIT.flagged,
      path,
    )
  if (f.kind === 'ambiguous')
    throw new ClaudeJsonlError(
      `${path}: line ${f.line}: ${f.message}; the pages member cannot be removed unambiguously, nothing written`,
      EXIT.flagged,
      path,
    )
  throw new ClaudeJsonlError(
    `${path}: the repair broke an invariant (${f.message}); nothing written`,
    EXIT.internal,
    path,
  )
}

/** The checks on the repaired bytes as they were read back from disk. */
function verifyRepaired(
  path: string,
  published: Buffer,
  expected: Buffer,
  scope: RepairScope,
  source: ReturnType<typeof errorCount>,
  report: RepairReport,
): void {
  if (!published.equals(expected) || native.sha256(published) !== native.sha256(expected))
    throw new ClaudeJsonlError(`${path}: the written file is not the expected repaired bytes`, EXIT.internal, path)
  const again = native.repairReadPages(published, scope)
  if (again.refusal || again.patches.length > 0)
    throw new ClaudeJsonlError(
      `${path}: a second scan of the repaired file still finds ${again.patches.length} patches`,
      EXIT.internal,
      path,
    )
  const v = errorCount(published)
  checkNoNewErrors(path, v, source)
  report.validation.errors = v.errors
  report.validation.warnings = v.warnings
}

function reportOf(
  input: string,
  scope: RepairScope,
  bytes: Buffer,
  r: ReadPagesRepair,
  source: ReturnType<typeof errorCount>,
): RepairReport {
  return {
    reportSchemaVersion: 1,
    operationState: r.output ? 'committed' : 'nothing-to-repair',
    input,
    scope,
    records: r.records,
    sourceSha256: native.sha256(bytes),
    repairedSha256: r.output ? native.sha256(r.output) : undefined,
    bytesRemoved: r.output ? bytes.length - r.output.length : 0,
    patches: r.patches,
    pending: r.pending,
    ineligible: r.ineligible,
    validation: { errors: source.errors, warnings: source.warnings, sourceErrors: source.errors },
  }
}

/** Repairs `input` into `opts.out` (candidate) or in place. Throws a ClaudeJsonlError on a
 * refusal; in live mode a transaction that did not commit is thrown too, except
 * committed-report-failed, which resolves with `transaction` set. */
export async function repairReadPages(input: string, opts: RepairOptions): Promise<RepairResult> {
  const scope = opts.scope ?? 'active'
  const path = resolve(sessionPath(input, opts))
  if (opts.inPlace) {
    let counts: ReturnType<typeof errorCount> | undefined
    return repairInPlace({
      path,
      live: opts.inPlace,
      suffix: 'read-pages',
      plan: (source) => {
        const r = planRepair(path, source, scope)
        counts = errorCount(source)
        return { report: reportOf(path, scope, source, r, counts), output: r.output }
      },
      verify: (written, expected, _source, report) => verifyRepaired(path, written, expected, scope, counts!, report),
    })
  }
  if (!opts.out) throw new ClaudeJsonlError('repair-read-pages needs --out FILE or --in-place', EXIT.usage)
  checkOutputPath(path, opts.out)
  const bytes = readInput(path)
  const before = statSync(path, { bigint: true })
  const r = planRepair(path, bytes, scope)
  const counts = errorCount(bytes)
  const report = reportOf(path, scope, bytes, r, counts)
  if (!r.output) return { report }
  const expected = r.output
  report.output = resolve(opts.out)
  const reportPath = await publishRepairedCopy({
    source: path,
    before,
    out: opts.out,
    force: opts.force,
    bytes: expected,
    verify: (at, written) => verifyRepaired(at, written, expected, scope, counts, report),
    report,
  })
  return { report, reportPath }
}
