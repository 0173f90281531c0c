// What an earlier batch did with each session, kept in the batch's own folder, so that a re-run
// skips every session that has not changed since: same size and modification time, the same
// options, and (for a compressed one) its candidate still there at the size it was written.
// Failed and live sessions are not recorded: a re-run tries them again.
import { createHash } from 'node:crypto'
import { mkdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { publishFile } from '../durable-files.js'
import type { SessionJob, SessionOutcome } from './batch-modes.js'

export const MANIFEST_NAME = '.claude-jsonl-batch.json'
const MANIFEST_VERSION = 1

export interface ManifestEntry {
  size: number
  mtimeMs: number
  outcome: SessionOutcome
}

export interface Manifest {
  version: number
  /** Digest of the options that decide a session's outcome. */
  optionsDigest: string
  sessions: Record<string, ManifestEntry>
}

/** SHA-256 of the outcome-deciding options, in a canonical order. */
export function optionsDigest(options: Record<string, unknown>): string {
  const keys = Object.keys(options).sort()
  return createHash('sha256')
    .update(JSON.stringify(keys.map((k) => [k, options[k] ?? null])))
    .digest('hex')
}

/** The manifest in `dir`, or an empty one (missing, unreadable, another version or options). */
export function loadManifest(dir: string, digest: string): Manifest {
  const empty: Manifest = { version: MANIFEST_VERSION, optionsDigest: digest, sessions: {} }
  try {
    const m = JSON.parse(readFileSync(join(dir, MANIFEST_NAME), 'utf8')) as Manifest
    if (m.version !== MANIFEST_VERSION || m.optionsDigest !== digest || typeof m.sessions !== 'object') return empty
    return m
  } catch {
    return empty
  }
}

/** The earlier outcome of a session that has not changed since, or undefined. */
export function unchangedOutcome(m: Manifest, job: SessionJob): SessionOutcome | undefined {
  const e = m.sessions[job.relPath]
  // Times within a millisecond are the same: the walk and a stat may round a nanosecond time
  // differently.
  if (!e || e.size !== job.size || Math.abs(e.mtimeMs - job.mtimeMs) >= 1) return undefined
  if (e.outcome.status === 'compressed' || e.outcome.status === 'repaired') {
    // What it wrote must still be there as written (a size check; the run never rewrites it).
    try {
      if (!e.outcome.output || statSync(e.outcome.output).size !== e.outcome.bytesAfter) return undefined
    } catch {
      return undefined
    }
  }
  return e.outcome
}

/** Records this run's outcomes (replacing earlier ones of the same sessions) and publishes the
 * manifest atomically. Sessions not in this run keep their earlier entries. */
export async function saveManifest(
  dir: string,
  m: Manifest,
  done: { job: SessionJob; outcome: SessionOutcome }[],
): Promise<void> {
  for (const { job, outcome } of done) {
    // A failure, or a session in use, is tried again next time.
    if (outcome.status === 'failed' || outcome.reason === 'live') delete m.sessions[job.relPath]
    else
      m.sessions[job.relPath] = {
        size: outcome.finalSize ?? job.size,
        mtimeMs: outcome.finalMtimeMs ?? job.mtimeMs,
        outcome,
      }
  }
  mkdirSync(dir, { recursive: true })
  await publishFile(join(dir, MANIFEST_NAME), JSON.stringify(m) + '\n', { replace: true, fault: 'manifest' })
}
