// The file side of a repair, one owner for `repair` and `repair-read-pages`: reading the input,
// the validator's error counts the checks compare, and publishing the repaired bytes: as a
// candidate copy (through a temp file, checked before its rename, refused when the source
// changed meanwhile; its report beside it) or in place through the replacement transaction
// (candidate and report in the work dir, the checks on the bytes read back).
import { readFileSync, statSync, type BigIntStats } from 'node:fs'
import { basename, join } from 'node:path'
import native from '../native.js'
import { ClaudeJsonlError, EXIT, inputError } from '../errors.js'
import { publishFile } from '../durable-files.js'
import { checkSessionClosed } from '../read/live-sessions.js'
import { FOLDER_NOT_FILE } from '../read/session-ref.js'
import { checkLiveReplacement, receiptFields, workDirFor, type LiveReplacementOptions } from './in-place.js'
import { replaceInPlace, type ReplaceResult } from './transaction.js'

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

/** Fails when the repaired bytes have a validation error the source did not have as often
 * (`allowed`: how many more of a code are damage the repair found and reported as left). */
export function checkNoNewErrors(
  path: string,
  repaired: ReturnType<typeof errorCount>,
  source: ReturnType<typeof errorCount>,
  allowed: ReadonlyMap<string, number> = new Map(),
): void {
  for (const [code, n] of repaired.codes)
    if (n > (source.codes.get(code) ?? 0) + (allowed.get(code) ?? 0))
      throw new ClaudeJsonlError(`${path}: the repaired file has a new validation error (${code})`, EXIT.internal, path)
}

const json = (report: object) => JSON.stringify(report, null, 2) + '\n'

/** A repair's result before publishing: its report, and the repaired bytes (none when nothing
 * needs repairing). */
export interface PlannedRepair<Report> {
  report: Report
  output?: Buffer
}

/** The report fields publishing fills in. */
interface Published {
  output?: string
  inPlace?: ReturnType<typeof receiptFields>
}

/**
 * Writes `bytes`, the repair of `source` (as it was when `before` was taken), to `out` and its
 * report to `out.report.json`. `verify` checks the bytes read back from the temp file before its
 * rename; a source that changed meanwhile leaves nothing written. Returns the report's path.
 */
export async function publishRepairedCopy(opts: {
  source: string
  before: BigIntStats
  out: string
  force?: boolean
  bytes: Buffer
  verify: (path: string, written: Buffer) => void
  report: object
}): Promise<string> {
  const { source, before, out } = opts
  await publishFile(out, opts.bytes, {
    replace: opts.force,
    check: (temp) => {
      opts.verify(temp, readInput(temp))
      const now = statSync(source, { bigint: true })
      if (now.mtimeNs !== before.mtimeNs || now.size !== before.size || now.ino !== before.ino)
        throw new ClaudeJsonlError(`${source}: the source changed during the run; nothing written`, EXIT.input, source)
    },
  })
  const reportPath = `${out}.report.json`
  try {
    await publishFile(reportPath, json(opts.report), { replace: true })
  } catch (e) {
    throw new ClaudeJsonlError(
      `${out}: repaired file written, but its report could not be (${(e as Error).message})`,
      EXIT.input,
      out,
    )
  }
  return reportPath
}

/**
 * Repairs the transcript at `path` in place: `plan` runs on the frozen source; with nothing to
 * repair nothing is written (the report says so); otherwise the candidate
 * `<session>.<hash16>.<suffix>.jsonl` and its report go to the work dir, and `verify` checks the
 * bytes the transaction reads back (`expected` the planned ones, `source` the frozen ones). A
 * transaction that did not commit is thrown; committed-report-failed resolves with it.
 */
export async function repairInPlace<Report extends Published>(opts: {
  path: string
  live: LiveReplacementOptions
  suffix: string
  plan: (source: Buffer) => PlannedRepair<Report>
  verify: (written: Buffer, expected: Buffer, source: Buffer, report: Report) => void
}): Promise<{ report: Report; reportPath?: string; transaction?: ReplaceResult }> {
  const { path, live } = opts
  const stale = checkLiveReplacement(path, live)
  const workDir = workDirFor(live.workDir)
  const env = live.env ?? process.env
  let planned: (PlannedRepair<Report> & { source: Buffer }) | undefined
  let reportPath: string | undefined
  const transaction = await replaceInPlace({
    target: path,
    workDir,
    env,
    guard: () => void checkSessionClosed(path, { stableForMs: 0, env }),
    produce: async (frozen) => {
      planned = { ...opts.plan(frozen.bytes), source: frozen.bytes }
      if (!planned.output) throw new ClaudeJsonlError(`${path}: nothing to repair`, EXIT.ok, path)
      const candidate = join(workDir, `${basename(path, '.jsonl')}.${frozen.sha256.slice(0, 16)}.${opts.suffix}.jsonl`)
      reportPath = `${candidate}.report.json`
      await publishFile(candidate, planned.output, { replace: true })
      return { bytes: planned.output, path: candidate, details: planned.report }
    },
    verify: (bytes) => opts.verify(bytes, planned!.output!, planned!.source, planned!.report),
    report: async (receipt) => {
      planned!.report.output = path
      planned!.report.inPlace = receiptFields(receipt, stale)
      await publishFile(reportPath!, json(planned!.report), { replace: true })
    },
  })
  if (planned && !planned.output) return { report: planned.report }
  if (transaction.operationState === 'not-committed') throw transaction.error!
  return { report: planned!.report, reportPath, transaction }
}
