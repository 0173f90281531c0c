// `repair --all`: how one session of a batch is repaired and where the result goes. The batch
// itself (selection, manifest, pool, accounting) is compress's (batch.ts); this is the mode a
// pool worker runs for the repair operation: a candidate in the out dir, or the transcript
// replaced through the in-place transaction (a session in use skipped as live).
import { mkdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { ClaudeJsonlError, EXIT } from '../errors.js'
import { repairTranscript, type TranscriptRepairReport } from './repair.js'
import {
  IN_USE,
  outcomeOfError,
  type BatchMode,
  type ModeConfig,
  type SessionJob,
  type SessionOutcome,
} from './batch-modes.js'

/** What a repair report says of a session, in either mode. */
function repairedOutcome(r: TranscriptRepairReport): SessionOutcome {
  if (r.operationState === 'nothing-to-repair')
    return { status: 'skipped', reason: 'nothing-to-repair', bytesBefore: r.bytesBefore, sourceSha256: r.sourceSha256 }
  return {
    status: 'repaired',
    bytesBefore: r.bytesBefore,
    bytesAfter: r.bytesAfter,
    sourceSha256: r.sourceSha256,
    candidateSha256: r.repairedSha256,
    repairs: r.counts,
  }
}

/** A session the repair refused: the session itself is the cause (left as it is). */
function refusedOutcome(e: unknown, job: SessionJob): SessionOutcome {
  if (e instanceof ClaudeJsonlError && e.exitCode === EXIT.flagged && e.path === job.path) {
    if (IN_USE.test(e.message)) return { status: 'skipped', reason: 'live', message: e.message, bytesBefore: job.size }
    return { status: 'skipped', reason: 'unmendable', message: e.message, bytesBefore: job.size }
  }
  return outcomeOfError(e, job)
}

/** The repair mode of a batch (see the module doc). A dry run writes nothing. */
export function repairMode(cfg: ModeConfig): BatchMode {
  return {
    kind: cfg.kind,
    async run(job, options) {
      try {
        if (cfg.kind === 'in-place') {
          const r = await repairTranscript(job.path, {
            dryRun: options.dryRun,
            inPlace: {
              workDir: cfg.workDir,
              confirmSessionClosed: cfg.confirmSessionClosed,
              stableForMs: cfg.stableForMs,
            },
          })
          const outcome = repairedOutcome(r.report)
          if (outcome.status !== 'repaired' || options.dryRun) return outcome
          const now = statSync(job.path)
          return {
            ...outcome,
            output: job.path,
            reportPath: r.reportPath,
            backup: r.transaction?.backup,
            message:
              r.transaction?.operationState === 'committed-report-failed' ? r.transaction.error?.message : undefined,
            finalSize: now.size,
            finalMtimeMs: now.mtimeMs,
          }
        }
        // The project's folder is made only for a repair about to be published: a skip leaves no trace.
        const planned = repairedOutcome((await repairTranscript(job.path, { dryRun: true })).report)
        if (planned.status !== 'repaired' || options.dryRun) return planned
        const out = join(cfg.outDir, job.relPath)
        mkdirSync(join(cfg.outDir, job.project), { recursive: true })
        const r = await repairTranscript(job.path, { out, force: true })
        return { ...repairedOutcome(r.report), output: out, reportPath: r.reportPath }
      } catch (e) {
        return refusedOutcome(e, job)
      }
    },
  }
}
