// How one session of a batch is compressed and where the result goes: the batch's mode. The
// batch itself (selection, manifest, pool, accounting) is the same for every mode; a mode only
// turns one session into an outcome. Runs inside a pool worker.
import { mkdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { ClaudeJsonlError, EXIT, usageError } from '../errors.js'
import { insideClaudeTree } from '../claude-tree.js'
import { checkWithin, LinkRefusal } from '../durable-files.js'
import { compressCandidate, type CompressOptions, type CompressReport } from './compress.js'
import { compressInPlace } from './in-place.js'
import type { Summarizer } from './summarizer-contract.js'
import { CompressRefusal } from './refusal.js'

/** One session to compress, as the batch selected it. */
export interface SessionJob {
  path: string
  sessionId: string
  /** The project folder's name. */
  project: string
  /** `<project>/<session>.jsonl`: where it lands under the out dir, and its manifest key. */
  relPath: string
  size: number
  mtimeMs: number
}

export type SkipReason =
  | 'too-small'
  | 'nothing-to-gain'
  | 'live'
  | 'ambiguous-leaf'
  | 'invalid-source'
  | 'token-ceiling'
  | 'unchanged'
  /** Writing it would follow a symbolic link (out of the estate or the out dir, or the
   * transcript is itself a link): refused, nothing written. */
  | 'symlink'
  /** `repair --all`: no damage found. */
  | 'nothing-to-repair'
  /** `repair --all`: damage that cannot be mended safely (the reason in the message). */
  | 'unmendable'

export type FailReason = 'summary-failed' | 'write-failed' | 'internal'

/** What happened to one session. */
export interface SessionOutcome {
  /** `repaired` for `repair --all`, `compressed` for `compress --all`. */
  status: 'compressed' | 'repaired' | 'skipped' | 'failed'
  reason?: SkipReason | FailReason
  /** The option that would change a skip, when one does (e.g. the leaf option of an ambiguous leaf). */
  option?: string
  /** The one-line message of a skip or failure. */
  message?: string
  bytesBefore: number
  bytesAfter?: number
  tokensBefore?: number
  tokensAfter?: number
  /** Where the candidate and its report are (candidate mode; absent in a dry run). */
  output?: string
  reportPath?: string
  sourceSha256?: string
  candidateSha256?: string
  /** The model summary failed and the deterministic one was used instead. */
  summaryFallback?: string
  /** `repair --all`: the edits made, per repair. */
  repairs?: Partial<Record<string, number>>
  /** In place: the verified numbered backup of the original. */
  backup?: string
  /** The session file's size and modification time after the run, when the run replaced it
   * (in place): what a re-run compares with. */
  finalSize?: number
  finalMtimeMs?: number
}

/**
 * How a batch publishes each compressed session: as a candidate file in `outDir`, or by replacing
 * the transcript in place (Claude Code closed for it, a work folder outside every `.claude` tree).
 */
export type ModeConfig =
  | { kind: 'candidate'; outDir: string }
  | { kind: 'in-place'; workDir: string; confirmSessionClosed: boolean; stableForMs?: number }

/** A batch mode: compresses one session. */
export interface BatchMode {
  readonly kind: ModeConfig['kind']
  /** Compresses one session of the batch with these options and summariser, and says how it went. */
  run(job: SessionJob, options: CompressOptions, summarize: Summarizer): Promise<SessionOutcome>
}

/** The mode a config names; its preconditions are checked here, before any session. */
export function batchMode(cfg: ModeConfig): BatchMode {
  if (cfg.kind === 'candidate') return candidateMode(cfg.outDir)
  if (!cfg.workDir) throw usageError('--in-place needs --work-dir DIR (a folder outside every .claude tree)')
  if (!cfg.confirmSessionClosed)
    throw usageError(
      'compress --all --in-place replaces live transcripts: close Claude Code for them, then pass --confirm-session-closed',
    )
  if (insideClaudeTree(cfg.workDir))
    throw usageError(`--work-dir ${cfg.workDir} lies inside a .claude tree; give a folder outside it`)
  return inPlaceMode(cfg)
}

/** Messages of the in-place refusals that mean the session is in use: a running Claude Code
 * holds it, or it was written within the stability window. */
export const IN_USE = /Claude Code is running this session|stability window/

/**
 * In-place mode: each session through the in-place transaction (a verified numbered backup
 * beside it, the candidate and its report in the work folder, an atomic swap). A session in use
 * is skipped as live with the holder named. A dry run builds the candidate and writes nothing.
 */
export function inPlaceMode(cfg: Extract<ModeConfig, { kind: 'in-place' }>): BatchMode {
  const dry = candidateMode(cfg.workDir)
  return {
    kind: 'in-place',
    async run(job, options, summarize) {
      if (options.dryRun) return dry.run(job, options, summarize)
      try {
        const { result, report, reportPath } = await compressInPlace(
          job.path,
          {
            ...options,
            workDir: cfg.workDir,
            confirmSessionClosed: cfg.confirmSessionClosed,
            stableForMs: cfg.stableForMs,
          },
          summarize,
        )
        if (result.operationState === 'not-committed') return outcomeOfError(result.error, job)
        const r = result.details as CompressReport
        const now = statSync(job.path)
        return {
          ...compressedOutcome(r),
          output: job.path,
          reportPath: report ? reportPath : undefined,
          backup: result.backup,
          message:
            result.operationState === 'committed-report-failed'
              ? `${job.path}: replaced and verified, but its report could not be written (${result.error?.message})`
              : undefined,
          finalSize: now.size,
          finalMtimeMs: now.mtimeMs,
        }
      } catch (e) {
        if (e instanceof ClaudeJsonlError && !(e instanceof CompressRefusal) && IN_USE.test(e.message))
          return { status: 'skipped', reason: 'live', message: e.message, bytesBefore: job.size }
        return outcomeOfError(e, job)
      }
    },
  }
}

/** Candidate mode: `<outDir>/<project>/<session>.jsonl` and its report; the original untouched. */
export function candidateMode(outDir: string): BatchMode {
  return {
    kind: 'candidate',
    async run(job, options, summarize) {
      const out = join(outDir, job.relPath)
      try {
        // A changed source is compressed again over its earlier candidate. The project's folder
        // is made only for a candidate about to be published: a skip leaves no trace.
        const r = await compressCandidate(
          job.path,
          out,
          summarize,
          { ...options, force: true },
          {
            beforePublish: () => {
              mkdirSync(join(outDir, job.project), { recursive: true })
              // A project folder in the out dir that is a link out of it is never written through.
              checkWithin(out, outDir)
            },
          },
        )
        return {
          ...compressedOutcome(r),
          output: options.dryRun ? undefined : out,
          reportPath: options.dryRun || options.report === false ? undefined : `${out}.report.json`,
        }
      } catch (e) {
        return outcomeOfError(e, job)
      }
    },
  }
}

/** What a compress report says of a compressed session, in either mode. */
function compressedOutcome(r: CompressReport): SessionOutcome {
  return {
    status: 'compressed',
    bytesBefore: r.inputBytes,
    bytesAfter: r.outputBytes,
    tokensBefore: r.inputEstimatedMessageTokens,
    tokensAfter: r.outputEstimatedMessageTokens,
    sourceSha256: r.sourceSha256,
    candidateSha256: r.candidateSha256,
    summaryFallback: r.summaryMetadata.summaryFallback as string | undefined,
  }
}

/** A session that could not be compressed: skipped when the session itself is the cause (it is
 * left as it is, and that is the right outcome), failed when something went wrong. */
export function outcomeOfError(e: unknown, job: SessionJob): SessionOutcome {
  const base = { bytesBefore: job.size }
  if (e instanceof CompressRefusal) {
    return {
      ...base,
      status: 'skipped',
      reason: e.reason,
      option: e.option,
      message: e.message,
      tokensBefore: e.tokens ? Math.round(e.tokens.before) : undefined,
      tokensAfter: e.tokens?.after !== undefined ? Math.ceil(e.tokens.after) : undefined,
    }
  }
  if (e instanceof LinkRefusal) return { ...base, status: 'skipped', reason: 'symlink', message: e.message }
  if (e instanceof BatchSummaryError) return { ...base, status: 'failed', reason: 'summary-failed', message: e.message }
  if (e instanceof ClaudeJsonlError) {
    // A source that changed while it was read is being written to: a live session.
    if (/changed during the run|disappeared during the run/.test(e.message))
      return { ...base, status: 'skipped', reason: 'live', message: e.message }
    // Unreadable, not JSONL, not a Claude Code transcript: the input's fault, not the batch's.
    if (e.exitCode === EXIT.input && e.path === job.path)
      return { ...base, status: 'skipped', reason: 'invalid-source', message: e.message }
    if (e.exitCode === EXIT.input && e.path !== undefined)
      return { ...base, status: 'failed', reason: 'write-failed', message: e.message }
    return { ...base, status: 'failed', reason: 'internal', message: e.message }
  }
  return { ...base, status: 'failed', reason: 'internal', message: (e as Error)?.message ?? String(e) }
}

/** A model summary that failed every try, with no fallback allowed. */
export class BatchSummaryError extends ClaudeJsonlError {
  constructor(message: string, path: string) {
    super(message, EXIT.input, path)
  }
}
