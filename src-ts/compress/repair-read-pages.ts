// The `Read.pages` compatibility repair as a file operation: the exact `pages` member bytes of
// settled `Read` tool calls are removed natively (crate compress/read_pages), the result is
// published as a candidate (--out) or through the in-place replacement transaction, and what
// lands on disk is checked: the expected bytes and SHA-256, a second scan finding nothing left to
// patch, and the full validator finding no error the source did not already have.
// Compression never runs this repair; it is its own command.
import { readFileSync, statSync } from 'node:fs'
import { basename, join, resolve } from 'node:path'
import native from '../native.js'
import type { ReadPagesRepair } from '#native'
import { ClaudeJsonlError, EXIT, inputError } from '../errors.js'
import { publishFile } from '../durable-files.js'
import { checkSessionClosed, type StaleRecord } from '../read/live-sessions.js'
import { checkOutputPath } from './paths.js'
import { transcriptProblem } from '../read/record-types.js'
import { FOLDER_NOT_FILE, sessionPath } from '../read/session-ref.js'
import { checkLiveReplacement, receiptFields, workDirFor, type LiveReplacementOptions } from './in-place.js'
import { replaceInPlace, type ReplaceResult } from './transaction.js'

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

/** The validator's errors by code, and its warning count (the repairs compare before and after). */
export function errorCount(bytes: Buffer): { errors: number; warnings: number; codes: Map<string, number> } {
  const v = native.validateBuffer(bytes)
  const codes = new Map<string, number>()
  let errors = 0
  for (const f of v.findings)
    if (f.severity === 'error') {
      errors++
      codes.set(f.code, (codes.get(f.code) ?? 0) + 1)
    }
  return { errors, warnings: v.findings.length - errors, codes }
}

/** The checks on the repaired bytes as they were read back from disk. */
function verifyRepaired(
  path: string,
  published: Buffer,
  expected: Buffer,
  scope: RepairScope,
  source: ReturnType<typeof errorCount>,
): ReturnType<typeof errorCount> {
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
  for (const [code, n] of v.codes)
    if (n > (source.codes.get(code) ?? 0))
      throw new ClaudeJsonlError(`${path}: the repaired file has a new validation error (${code})`, EXIT.internal, path)
  return v
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

/** The bytes of a transcript file; a folder or a missing file is a one-line input error. */
export function readInput(path: string): Buffer {
  try {
    if (statSync(path).isDirectory()) throw inputError(path, FOLDER_NOT_FILE)
    return readFileSync(path)
  } catch (e) {
    if (e instanceof ClaudeJsonlError) throw e
    const code = (e as NodeJS.ErrnoException).code
    throw inputError(path, code === 'ENOENT' ? 'no such file or directory' : (code ?? (e as Error).message))
  }
}

/** Repairs `input` into `opts.out` (candidate) or in place. Throws a ClaudeJsonlError on a
 * refusal; in live mode a transaction that did not commit is thrown too, except
 * committed-report-failed, which resolves with `transaction` set. */
export async function repairReadPages(input: string, opts: RepairOptions): Promise<RepairResult> {
  const scope = opts.scope ?? 'active'
  const path = resolve(sessionPath(input, opts))
  if (opts.inPlace) return repairInPlace(path, scope, opts.inPlace)
  if (!opts.out) throw new ClaudeJsonlError('repair-read-pages needs --out FILE or --in-place', EXIT.usage)
  checkOutputPath(path, opts.out)
  const bytes = readInput(path)
  const before = statSync(path, { bigint: true })
  const r = planRepair(path, bytes, scope)
  const source = errorCount(bytes)
  const report = reportOf(path, scope, bytes, r, source)
  if (!r.output) return { report }
  const expected = r.output
  await publishFile(opts.out, expected, {
    replace: opts.force,
    check: (temp) => {
      const v = verifyRepaired(temp, readFileSync(temp), expected, scope, source)
      report.validation.errors = v.errors
      report.validation.warnings = v.warnings
      const now = statSync(path, { bigint: true })
      if (now.mtimeNs !== before.mtimeNs || now.size !== before.size || now.ino !== before.ino)
        throw new ClaudeJsonlError(`${path}: the source changed during the run; nothing written`, EXIT.input, path)
    },
  })
  report.output = resolve(opts.out)
  const reportPath = `${opts.out}.report.json`
  try {
    await publishFile(reportPath, JSON.stringify(report, null, 2) + '\n', { replace: true })
  } catch (e) {
    throw new ClaudeJsonlError(
      `${opts.out}: repaired file written, but its report could not be (${(e as Error).message})`,
      EXIT.input,
      opts.out,
    )
  }
  return { report, reportPath }
}

async function repairInPlace(path: string, scope: RepairScope, live: LiveReplacementOptions): Promise<RepairResult> {
  const stale: StaleRecord[] = checkLiveReplacement(path, live)
  const workDir = workDirFor(live.workDir)
  const env = live.env ?? process.env
  let report: RepairReport | undefined
  let reportPath: string | undefined
  let source: ReturnType<typeof errorCount> | undefined
  let expected: Buffer | undefined
  let nothing = false
  const transaction = await replaceInPlace({
    target: path,
    workDir,
    env,
    guard: () => void checkSessionClosed(path, { stableForMs: 0, env }),
    produce: async (frozen) => {
      const r = planRepair(path, frozen.bytes, scope)
      source = errorCount(frozen.bytes)
      report = reportOf(path, scope, frozen.bytes, r, source)
      if (!r.output) {
        nothing = true
        throw new ClaudeJsonlError(`${path}: nothing to repair`, EXIT.ok, path)
      }
      expected = r.output
      const candidate = join(workDir, `${basename(path, '.jsonl')}.${frozen.sha256.slice(0, 16)}.read-pages.jsonl`)
      reportPath = `${candidate}.report.json`
      await publishFile(candidate, expected, { replace: true })
      return { bytes: expected, path: candidate }
    },
    verify: (bytes) => {
      const v = verifyRepaired(path, bytes, expected!, scope, source!)
      report!.validation.errors = v.errors
      report!.validation.warnings = v.warnings
    },
    report: async (receipt) => {
      report!.output = path
      report!.inPlace = receiptFields(receipt, stale)
      await publishFile(reportPath!, JSON.stringify(report, null, 2) + '\n', { replace: true })
    },
  })
  if (nothing) return { report: report! }
  if (transaction.operationState === 'not-committed') throw transaction.error!
  return { report: report!, reportPath, transaction }
}
