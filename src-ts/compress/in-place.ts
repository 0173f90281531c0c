// Live replacement: a rewritten transcript (compressed, or repaired) put back where Claude Code
// resumes it, through the replacement transaction (transaction.ts). The preconditions are the
// same for every rewrite: one existing regular `.jsonl` under a Claude projects folder, a work
// folder outside every .claude tree, the caller's word that the session is closed, no live
// Claude Code holding it, and no write within the stability window.
// Only the one transcript is read and replaced: files it refers to (tool-results, subagent
// transcripts, file-history), settings and other sessions are never opened, changed or deleted.
import { lstatSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { basename, dirname, join, resolve } from 'node:path'
import native from '../native.js'
import { ClaudeJsonlError, EXIT, usageError } from '../errors.js'
import { insideClaudeTree } from '../claude-tree.js'
import { checkWithin, LinkRefusal, publishFile } from '../durable-files.js'
import { claudeProjectsRoot } from '../read/estate.js'
import { validateAs } from '../read/validate.js'
import { checkSessionClosed, type StaleRecord } from '../read/live-sessions.js'
import { compressWith, type CompressOptions, type CompressReport } from './compress.js'
import { summarizerFor } from './summary-source.js'
import { CompressRefusal } from './refusal.js'
import type { Summarizer } from './summarizer-contract.js'
import {
  recoverInterrupted,
  recoverInterruptedPublish,
  replaceInPlace,
  type Recovery,
  type Receipt,
  type ReplaceResult,
} from './transaction.js'

/**
 * What a replacement of a live transcript needs: a work folder outside every `.claude` tree, the
 * caller's word that Claude Code is closed for the session, and how long the file must have been
 * left untouched.
 */
export interface LiveReplacementOptions {
  /** Where candidates, backups and reports are written; must lie outside every `.claude` tree. */
  workDir: string
  /** The caller's assertion that Claude Code is closed for this session. */
  confirmSessionClosed?: boolean
  /** Refuse a transcript modified more recently than this (default 10 s). */
  stableForMs?: number
  /** Environment used to find Claude Code's config folders and live-session registry (defaults to process.env). */
  env?: NodeJS.ProcessEnv
}

/** Checks everything a live replacement needs before it reads anything; returns the stale
 * registry records that were ignored. Throws a ClaudeJsonlError naming the file, the reason
 * and the flag that would change it. */
export function checkLiveReplacement(input: string, opts: LiveReplacementOptions): StaleRecord[] {
  const env = opts.env ?? process.env
  const path = resolve(input)
  recoverInterruptedPublish(path)
  if (!opts.workDir) throw usageError('--in-place needs --work-dir DIR (a folder outside every .claude tree)')
  if (!opts.confirmSessionClosed)
    throw usageError(
      `${path}: --in-place replaces a live transcript: close Claude Code for this session, then pass --confirm-session-closed`,
    )
  let st
  try {
    st = lstatSync(path)
  } catch {
    throw new ClaudeJsonlError(`${path}: no such file`, EXIT.input, path)
  }
  if (st.isSymbolicLink())
    throw new LinkRefusal(
      `${path}: is a symbolic link; --in-place replaces only a regular file (name the file it points to)`,
      path,
    )
  if (!st.isFile() || !path.endsWith('.jsonl'))
    throw usageError(`${path}: --in-place needs a regular .jsonl transcript`)
  const root = claudeProjectsRoot(path, env)
  if (root === undefined)
    throw usageError(
      `${path}: not under a Claude projects folder (.claude/projects or $CLAUDE_CONFIG_DIR/projects); for other files write a candidate with --out`,
    )
  // The transcript, its backup and its stage are written in its folder: no link on the way
  // there may lead out of the projects folder.
  checkWithin(path, root)
  if (insideClaudeTree(opts.workDir, env))
    throw usageError(`--work-dir ${opts.workDir} lies inside a .claude tree; give a folder outside it`)
  return checkSessionClosed(path, { stableForMs: opts.stableForMs, env })
}

/** The work folder, created when missing. */
export function workDirFor(dir: string): string {
  const abs = resolve(dir)
  try {
    mkdirSync(abs, { recursive: true })
  } catch (e) {
    throw usageError(`--work-dir ${abs}: cannot create it (${(e as NodeJS.ErrnoException).code})`)
  }
  return abs
}

/**
 * The candidate an earlier in-place run with this work folder published at `target`, when the
 * target holds exactly it: that run was killed after the swap, before it recorded the session
 * (its manifest entry, its report). Such a session is never compressed again. `names` is the
 * work folder's listing, when the caller has it.
 */
export function ownCandidate(workDir: string, target: string, names?: string[]): string | undefined {
  const session = basename(target, '.jsonl')
  let size: number
  try {
    size = statSync(target).size
    names ??= readdirSync(workDir)
  } catch {
    return undefined
  }
  let bytes: Buffer | undefined
  for (const n of names) {
    if (!n.startsWith(`${session}.`) || !n.endsWith('.compressed.jsonl')) continue
    const p = join(workDir, n)
    try {
      if (statSync(p).size !== size) continue
      bytes ??= readFileSync(target)
      if (native.fileEquals(p, bytes)) return p
    } catch {
      continue
    }
  }
  return undefined
}

/** The receipt in the report's spelling (`snake` for compress reports, camelCase for repair). */
export function receiptFields(r: Receipt, stale: StaleRecord[]) {
  return {
    target: r.target,
    backup: r.backup,
    extraBackups: r.extraBackups,
    candidate: r.candidate,
    frozenSha256: r.frozenSha256,
    candidateSha256: r.candidateSha256,
    publishedSha256: r.publishedSha256,
    publishMethod: r.publishMethod,
    parentDirFsync: r.parentDirFsync,
    recoveredLeftovers: r.recovered,
    recovery: r.recovery,
    staleRegistryRecordsIgnored: stale.map((s) => ({ pid: s.pid, reason: s.reason, registry: s.registry })),
    externalReferences: 'not read, changed or deleted',
  }
}

export interface InPlaceOptions extends CompressOptions, LiveReplacementOptions {
  /** Told what the recovery of an interrupted earlier run on the transcript did, before this run starts. */
  onRecovered?: (r: Recovery) => void
}

export interface InPlaceCompressReport extends CompressReport {
  operation_state: 'committed'
  inPlace: ReturnType<typeof receiptFields>
}

/**
 * The outcome of `compressInPlace`: the replacement transaction's result, the compression report
 * (when it committed) and where that report was written.
 */
export interface InPlaceCompressResult {
  result: ReplaceResult
  report?: InPlaceCompressReport
  reportPath: string
}

/** A validator run that must find no error: `validate`'s check of `bytes` published at `path`. */
export function assertValid(bytes: Buffer, what: string, path: string): void {
  const v = validateAs(bytes, path)
  const error = v.findings.find((f) => f.severity === 'error')
  if (error) throw new ClaudeJsonlError(`${what} failed validation (${error.code}: ${error.message})`, EXIT.internal)
}

/**
 * Compresses the session at `input` and replaces it in place. Resolves with the transaction's
 * result (its operationState says whether it committed); throws only for a refusal before the
 * transaction starts.
 */
export async function compressInPlace(
  input: string,
  options: InPlaceOptions,
  /** The summariser (default: the one the options name; a batch passes its own). */
  summarize: Summarizer = summarizerFor(options),
): Promise<InPlaceCompressResult> {
  const target = resolve(input)
  // First what a killed run left of its transaction on this transcript: finished or rolled back,
  // its lock and stage removed (never through a link out of the projects folder).
  const root = claudeProjectsRoot(target, options.env)
  if (root !== undefined) {
    checkWithin(target, root)
    for (const r of recoverInterrupted(dirname(target), target)) options.onRecovered?.(r)
  }
  const own = options.workDir ? ownCandidate(resolve(options.workDir), target) : undefined
  if (own)
    throw new CompressRefusal(
      `${target}: already compressed in place by an earlier run (it holds that run's candidate ${own}); not compressed again`,
      'nothing-to-gain',
      target,
    )
  const stale = checkLiveReplacement(target, options)
  const workDir = workDirFor(options.workDir)
  const env = options.env ?? process.env
  const session = basename(target, '.jsonl')
  let report: InPlaceCompressReport | undefined
  let reportPath = ''
  let compressReport: CompressReport | undefined
  const result = await replaceInPlace({
    target,
    workDir,
    env,
    guard: () => void checkSessionClosed(target, { stableForMs: 0, env }),
    produce: async (frozen) => {
      const candidate = join(workDir, `${session}.${frozen.sha256.slice(0, 16)}.compressed.jsonl`)
      reportPath = `${candidate}.report.json`
      compressReport = await compressWith(target, candidate, summarize, {
        ...options,
        force: true,
        report: false,
        publishedPath: target,
      })
      if (compressReport.sourceSha256 !== frozen.sha256)
        throw new ClaudeJsonlError(
          `${target}: the transcript changed during the run; nothing replaced`,
          EXIT.input,
          target,
        )
      return { bytes: readFileSync(candidate), path: candidate, details: compressReport }
    },
    verify: (bytes) => assertValid(bytes, 'the candidate', target),
    report: async (receipt) => {
      report = { ...compressReport!, operation_state: 'committed', inPlace: receiptFields(receipt, stale) }
      await publishFile(reportPath, JSON.stringify(report, null, 2) + '\n', { replace: true })
    },
  })
  return { result, report, reportPath }
}
