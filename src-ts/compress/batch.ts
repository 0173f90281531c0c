// `compress --all`: every session of an estate (or a selection of them) compressed in one run.
// This module is the policy: which sessions (the estate roots of `stats`, then size, project,
// last activity and id filters; subagent transcripts never), what an earlier run already did
// (the manifest), the pool that runs them, and the accounting. How one session is compressed
// and where it lands is the mode's (batch-modes.ts); every session runs in a pool worker.
import { availableParallelism } from 'node:os'
import { mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, resolve, sep } from 'node:path'
import type { DiscoveredFile } from '../native.js'
import { ClaudeJsonlError, EXIT, inputError, usageError } from '../errors.js'
import { refuseArchiveRoots, resolveRoots, type EstateOptions } from '../read/estate.js'
import { discoverFiles } from '../read/session-ref.js'
import { lastActivityMs, projectMatcher } from '../read/sessions.js'
import { inClaudeProjects } from '../read/estate.js'
import type { CompressOptions, CompressReport } from './compress.js'
import { selectionPolicy, summarizerFor } from './summary-source.js'
import { minGainOf } from './refusal.js'
import { usesModel, type BatchSummaryPolicy } from './batch-summary.js'
import { batchMode, type ModeConfig, type SessionJob, type SessionOutcome, type SkipReason } from './batch-modes.js'
import { loadManifest, optionsDigest, saveManifest, unchangedOutcome } from './batch-manifest.js'
import { runPool } from './batch-pool.js'
import { checkWithin, errno, releaseLock, takeLock } from '../durable-files.js'
import { recoverInterrupted, type Recovery } from './transaction.js'
import { ownCandidate } from './in-place.js'
import { insideClaudeTree, resolvedPath } from './paths.js'
import { monotonicMs } from '../monotonic.js'

export interface BatchSelection {
  /** Sessions smaller than this many bytes are skipped as too small (not read). */
  minBytes?: number
  /** Sessions whose active chain holds fewer estimated message tokens are skipped as too small. */
  minEstimatedTokens?: number
  /** A project folder name (`-home-me-app`) or a path (sessions whose folder encodes it). */
  project?: string
  /** Last activity (the file's modification time) at least this long ago: `30m`, `12h`, `7d`, `2w`, or a date. */
  olderThan?: string
  /** Last activity at most this long ago (same forms). */
  newerThan?: string
  /** Only these session ids. */
  sessions?: string[]
}

/** How far a batch has got: sessions and bytes done of the total selected. */
export interface BatchProgress {
  sessionsDone: number
  sessionsTotal: number
  bytesDone: number
  bytesTotal: number
}

/**
 * What `compressEstate` compresses (the estate and a selection of its sessions), how each is
 * compressed, and how it is published.
 */
export interface BatchOptions extends Omit<EstateOptions, 'onProgress'>, BatchSelection {
  /** What is done to each session: compressed (the default) or repaired (`repair --all`). */
  operation?: 'compress' | 'repair'
  /** Candidate files in a folder, or in-place replacement. */
  mode: ModeConfig
  /** Plan, summarise and validate every session; write nothing (no candidate, report or manifest). */
  dryRun?: boolean
  /** How each session is compressed (topology, budgets, summary source, --min-gain). */
  compress?: CompressOptions
  /** Worker threads (default: the machine's cores). */
  jobs?: number
  /** Model summaries running at once across the batch (default 4). */
  summaryJobs?: number
  /** Retries of a failed model summary and what a session gets when every try fails. */
  summaryPolicy?: BatchSummaryPolicy
  /** Called at the start and as each session finishes, with the sessions and bytes done so far. */
  onProgress?: (p: BatchProgress) => void
  /** Clock for --older-than/--newer-than (tests). */
  now?: number
}

export interface BatchSessionEntry extends SessionOutcome {
  session: string
  path: string
  project: string
  /** For an 'unchanged' skip: what the earlier run did. */
  previous?: { status: SessionOutcome['status']; reason?: SessionOutcome['reason'] }
}

/**
 * Counts over the whole batch: sessions compressed, skipped and failed (by reason), and bytes and
 * estimated tokens before and after.
 */
export interface BatchTotals {
  sessions: number
  compressed: number
  /** `repair --all`: sessions repaired. */
  repaired: number
  skipped: number
  failed: number
  skippedByReason: Partial<Record<SkipReason, number>>
  failedByReason: Record<string, number>
  /** Bytes of every selected session, and what the estate holds after the run (a compressed
   * session counts at its candidate's size, any other at its own). */
  bytesBefore: number
  bytesAfter: number
  /** Estimated message tokens of the compressed sessions, before and after. */
  compressedBytesBefore: number
  compressedBytesAfter: number
  compressedTokensBefore: number
  compressedTokensAfter: number
}

/** One batch run: its mode and scope, an entry per selected session, and the totals. */
export interface BatchReport {
  mode: ModeConfig['kind']
  dryRun: boolean
  roots: string[]
  outDir?: string
  /** In place: where the candidates, their reports and the manifest are. */
  workDir?: string
  sessions: BatchSessionEntry[]
  /** Ids given with --sessions that no session of the estate has. */
  notFound: string[]
  /** Subagent transcripts seen (never compressed, never touched). */
  subagentFiles: number
  /** In place: interrupted transactions of a killed earlier run, finished or rolled back before
   * this run started (their locks and stage files removed). */
  recovered: Recovery[]
  totals: BatchTotals
  elapsedMs: number
}

const DURATION = /^(\d+(?:\.\d+)?)(m|h|d|w)$/
const UNIT_MS = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 } as const

/** `7d` -> a time that long before `now`; a date -> that time. Usage error otherwise. */
export function parseAge(flag: string, v: string, now: number): number {
  const m = DURATION.exec(v.trim())
  if (m) return now - Number(m[1]) * UNIT_MS[m[2] as keyof typeof UNIT_MS]
  const t = /^\d{4}-\d{2}-\d{2}/.test(v) ? Date.parse(v) : NaN
  if (Number.isNaN(t)) throw usageError(`${flag} takes a duration like 30m, 12h, 7d, 2w or a date, not '${v}'`)
  return t
}

/** Session ids from a --sessions file: one per line; blank lines and # comments ignored. */
export function readSessionList(path: string): string[] {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code
    throw inputError(path, code === 'ENOENT' ? 'no such file or directory' : (e as Error).message)
  }
  return text
    .split(/\r?\n/)
    .map((l) => l.replace(/#.*/, '').trim())
    .filter(Boolean)
}

interface Selected {
  jobs: SessionJob[]
  /** Sessions left out by the byte floor: skipped as too small without being read. */
  tooSmall: SessionJob[]
  duplicates: SessionJob[]
  notFound: string[]
  subagentFiles: number
}

function jobOf(f: DiscoveredFile): SessionJob {
  const sessionId = f.sessionId ?? ''
  return {
    path: f.path,
    sessionId,
    project: f.project,
    relPath: `${f.project}/${sessionId}.jsonl`,
    size: f.size,
    mtimeMs: f.mtimeMs,
  }
}

/** The selection: main session transcripts only, filtered by project, activity, ids and size. */
export function selectBatchSessions(files: DiscoveredFile[], o: BatchSelection, now: number): Selected {
  const mains = files.filter((f) => f.kind === 'session' && f.sessionId)
  const matchProject = o.project !== undefined ? projectMatcher(o.project) : undefined
  const olderThan = o.olderThan !== undefined ? parseAge('--older-than', o.olderThan, now) : undefined
  const newerThan = o.newerThan !== undefined ? parseAge('--newer-than', o.newerThan, now) : undefined
  const wanted = o.sessions ? new Set(o.sessions.map((s) => s.toLowerCase())) : undefined
  const seenIds = new Set<string>()
  const seenRel = new Set<string>()
  const out: Selected = {
    jobs: [],
    tooSmall: [],
    duplicates: [],
    notFound: [],
    subagentFiles: files.length - mains.length,
  }
  for (const f of mains) {
    const job = jobOf(f)
    const id = job.sessionId.toLowerCase()
    if (wanted && !wanted.has(id)) continue
    seenIds.add(id)
    if (matchProject && !matchProject({ cwd: null, project: f.project })) continue
    if (olderThan !== undefined || newerThan !== undefined) {
      const last = lastActivityMs(f.path, f.size, f.mtimeMs)
      if (olderThan !== undefined && last > olderThan) continue
      if (newerThan !== undefined && last < newerThan) continue
    }
    if (seenRel.has(job.relPath)) {
      out.duplicates.push(job)
      continue
    }
    seenRel.add(job.relPath)
    if (o.minBytes !== undefined && f.size < o.minBytes) out.tooSmall.push(job)
    else out.jobs.push(job)
  }
  if (wanted) out.notFound = [...wanted].filter((id) => !seenIds.has(id))
  return out
}

/** What decides a session's outcome, for the manifest: a change re-runs every session. */
function outcomeOptions(o: BatchOptions): Record<string, unknown> {
  const c = o.compress ?? {}
  if (o.operation === 'repair') return { operation: 'repair', mode: o.mode.kind }
  return {
    mode: o.mode.kind,
    ...selectionPolicy(c),
    minGain: minGainOf(c.minGain),
    minEstimatedTokens: o.minEstimatedTokens ?? null,
    summary: c.summary ?? null,
    summarizerCmd: c.summarizerCmd ?? null,
    summarizer: c.summarizer ?? null,
    model: c.model ?? null,
    handoff: c.handoff ?? null,
    modelPackCharBudget: c.modelPackCharBudget ?? null,
    modelPackEstimatedTokenBudget: c.modelPackEstimatedTokenBudget ?? null,
    preservePriorSummariesVerbatim: c.preservePriorSummariesVerbatim ?? null,
    summaryFallback: usesModel(c) ? (o.summaryPolicy?.fallback ?? 'fail') : null,
  }
}

function within(path: string, dir: string): boolean {
  const d = dir.endsWith(sep) ? dir : dir + sep
  return path === dir || path.startsWith(d)
}

function checkOptions(o: BatchOptions, roots: string[]): void {
  const c = o.compress ?? {}
  if (c.modelSummary !== undefined)
    throw usageError('compress --all: --model-summary FILE answers one session; use --summarizer-cmd or --summarizer')
  if (c.resumeLeaf !== undefined) throw usageError('compress --all: --resume-leaf names a record of one session')
  summarizerFor(c) // checks the summary options (a usage error names the bad one)
  batchMode(o.mode) // a mode this build cannot run is refused here, before any session
  minGainOf(c.minGain)
  const whole = (v: number | undefined, name: string, min = 0) => {
    if (v !== undefined && !(Number.isInteger(v) && v >= min))
      throw usageError(`${name} must be a whole number >= ${min}`)
  }
  whole(o.jobs, '--jobs', 1)
  whole(o.summaryJobs, '--summary-jobs', 1)
  whole(o.minBytes, '--min-bytes')
  whole(o.minEstimatedTokens, '--min-estimated-tokens')
  whole(o.summaryPolicy?.retries, '--summary-retries')
  const fb = o.summaryPolicy?.fallback
  if (fb !== undefined && fb !== 'fail' && fb !== 'deterministic')
    throw usageError(`--summary-fallback must be fail or deterministic, not '${fb}'`)
  {
    const out = resolve(o.mode.kind === 'candidate' ? o.mode.outDir : o.mode.workDir || '.')
    const flagName = o.mode.kind === 'candidate' ? `--out-dir ${o.mode.outDir}` : `--work-dir ${o.mode.workDir}`
    if (insideClaudeTree(out)) throw usageError(`${flagName}: must lie outside any .claude tree`)
    // Compared as written and with links resolved: a work dir that is a link into the estate
    // is inside it.
    const real = resolvedPath(out)
    for (const r of roots) {
      const realRoot = resolvedPath(r)
      if (within(out, r) || within(r, out) || within(real, realRoot) || within(realRoot, real))
        throw usageError(`${flagName}: must lie outside the estate it compresses (${r})`)
    }
  }
  // Options that cannot work are refused once, before any session is touched.
  if (o.mode.kind === 'in-place')
    for (const r of roots)
      if (!inClaudeProjects(join(r, 'x.jsonl'), o.env))
        throw usageError(
          `compress --all --in-place: ${r} is not under a Claude projects folder (.claude/projects or $CLAUDE_CONFIG_DIR/projects); for other folders write candidates with --out-dir DIR`,
        )
  const folder = o.mode.kind === 'candidate' ? o.mode.outDir : o.mode.workDir
  if (folder) {
    let st
    try {
      st = statSync(folder)
    } catch {
      st = undefined // made when needed
    }
    if (st && !st.isDirectory())
      throw usageError(`${o.mode.kind === 'candidate' ? '--out-dir' : '--work-dir'} ${folder}: is a file, not a folder`)
  }
}

/**
 * Compresses every selected session of the estate. Resolves with the accounting whatever each
 * session's outcome; throws only for bad options (exit 2) or a missing estate root (exit 3).
 */
export async function compressEstate(o: BatchOptions): Promise<BatchReport> {
  const started = monotonicMs()
  const now = o.now ?? Date.now()
  const estate = { paths: o.paths, projects: o.projects, env: o.env }
  const { roots } = resolveRoots(estate)
  refuseArchiveRoots(
    roots,
    'compress --all',
    'restore it first, or compress one archived session: compress SESSION --projects ARCHIVE --out FILE',
  )
  checkOptions(o, roots)
  const files = discoverFiles(estate)
  const sel = selectBatchSessions(files, o, now)
  const manifestDir = o.mode.kind === 'candidate' ? resolve(o.mode.outDir) : resolve(o.mode.workDir)
  // One batch at a time per out or work folder: two would each rewrite the manifest without the
  // other's sessions.
  const lock = o.dryRun
    ? undefined
    : lockBatchFolder(manifestDir, o.mode.kind === 'candidate' ? '--out-dir' : '--work-dir')
  try {
    return await runBatch(o, roots, sel, manifestDir, started)
  } finally {
    if (lock) releaseLock(lock)
  }
}

/** The batch folder's lock (`.claude-jsonl-batch.lock`, naming its owner); a live holder refuses. */
function lockBatchFolder(dir: string, flag: string): string {
  try {
    mkdirSync(dir, { recursive: true })
    return takeLock(
      join(dir, BATCH_LOCK),
      (pid) =>
        new ClaudeJsonlError(
          `${flag} ${dir}: another compress --all${pid > 0 ? ` (pid ${pid})` : ''} is using this folder; wait for it to finish, or give another folder`,
          EXIT.input,
          dir,
        ),
    )
  } catch (e) {
    if (e instanceof ClaudeJsonlError) throw e
    throw inputError(dir, `cannot lock the batch folder (${errno(e)})`)
  }
}

async function runBatch(
  o: BatchOptions,
  roots: string[],
  sel: Selected,
  manifestDir: string,
  started: number,
): Promise<BatchReport> {
  const digest = optionsDigest(outcomeOptions(o))
  const manifest = loadManifest(manifestDir, digest)
  const inPlace = o.mode.kind === 'in-place' && !o.dryRun
  // In place, what a killed earlier run left is recovered first, folder by folder.
  const recovered: Recovery[] = []
  if (inPlace) {
    const dirs = new Set([...sel.jobs, ...sel.tooSmall].map((j) => dirname(j.path)))
    for (const dir of dirs) {
      const root = roots.find((r) => within(dir, r))
      try {
        // (a name inside the folder: the folder itself may be the root)
        if (root !== undefined) checkWithin(join(dir, '.recovery'), root)
      } catch {
        continue // a folder linked out of the estate: never written in (its sessions are refused)
      }
      recovered.push(...recoverInterrupted(dir))
    }
  }
  const workNames = inPlace ? safeReaddir(manifestDir) : []

  const entries = new Map<string, BatchSessionEntry>()
  const record = (job: SessionJob, outcome: SessionOutcome, previous?: BatchSessionEntry['previous']) =>
    entries.set(job.relPath, {
      session: job.sessionId,
      path: job.path,
      project: job.project,
      ...outcome,
      previous,
    })
  for (const job of sel.tooSmall)
    record(job, {
      status: 'skipped',
      reason: 'too-small',
      option: '--min-bytes',
      message: `${job.path}: too small: ${job.size} bytes, under --min-bytes ${o.minBytes}`,
      bytesBefore: job.size,
    })
  for (const job of sel.duplicates)
    record(job, {
      status: 'failed',
      reason: 'internal',
      message: `${job.path}: another selected session has the same ${job.relPath}; left as it is`,
      bytesBefore: job.size,
    })
  const todo: SessionJob[] = []
  const done: { job: SessionJob; outcome: SessionOutcome }[] = []
  for (const job of sel.jobs) {
    const before = o.dryRun ? undefined : unchangedOutcome(manifest, job)
    // An unchanged session is reported as the estate holds it now: in place, a session compressed
    // by an earlier run is its compressed self, not the size the manifest recorded before it.
    const inPlaceDone = before?.status === 'compressed' && o.mode.kind === 'in-place'
    if (before) {
      record(
        job,
        {
          ...before,
          bytesBefore: job.size,
          tokensBefore: inPlaceDone ? before.tokensAfter : before.tokensBefore,
          status: 'skipped',
          reason: 'unchanged',
          option: undefined,
          message: undefined,
        },
        { status: before.status, reason: before.reason },
      )
      continue
    }
    // A session a killed run replaced before it could record it holds that run's candidate:
    // recorded as compressed then, never compressed again.
    const own = inPlace ? ownCandidate(manifestDir, job.path, workNames) : undefined
    if (own) {
      const outcome = earlierInPlaceOutcome(job, own)
      done.push({ job, outcome })
      record(
        job,
        {
          ...outcome,
          status: 'skipped',
          reason: 'unchanged',
          message: `${job.path}: already compressed in place by an earlier run that was interrupted (it holds that run's candidate ${own}); not compressed again`,
        },
        { status: 'compressed' },
      )
    } else todo.push(job)
  }
  // Largest first: the long sessions start early and the small ones fill the gaps at the end.
  todo.sort((a, b) => b.size - a.size)

  const bytesTotal = todo.reduce((s, j) => s + j.size, 0)
  const progress: BatchProgress = { sessionsDone: 0, sessionsTotal: todo.length, bytesDone: 0, bytesTotal }
  o.onProgress?.({ ...progress })
  const cores = availableParallelism()
  const workers = o.jobs ?? cores
  const model = usesModel(o.compress ?? {})
  const summaryJobs = o.summaryJobs ?? 4
  const compressOptions: CompressOptions = {
    ...o.compress,
    dryRun: o.dryRun,
    minEstimatedTokens: o.minEstimatedTokens,
  }
  await runPool(todo, {
    workers,
    // Two sessions a worker: one computes while the other waits on its disk flushes (or, with
    // a model, as many as keep the summary permits busy). Memory stays bounded by the slots.
    slots: model ? Math.max(2, Math.ceil(summaryJobs / Math.min(workers, Math.max(1, todo.length)))) : 2,
    summaryPermits: summaryJobs,
    init: {
      operation: o.operation,
      mode: absoluteMode(o.mode),
      options: compressOptions,
      summaryPolicy: o.summaryPolicy ?? {},
    },
    onDone: (job, outcome) => {
      done.push({ job, outcome })
      record(job, outcome)
      progress.sessionsDone++
      progress.bytesDone += job.size
      o.onProgress?.({ ...progress })
    },
    signal: o.signal,
  })
  if (!o.dryRun && done.length > 0) {
    try {
      await saveManifest(manifestDir, manifest, done)
    } catch (e) {
      throw new ClaudeJsonlError(
        `${manifestDir}: the sessions were compressed, but the batch manifest could not be written (${errno(e)}); the next run redoes them`,
        EXIT.input,
        manifestDir,
      )
    }
  }
  // Aborted: what was done is in the manifest (the next run takes it as done); the call rejects.
  o.signal?.throwIfAborted()
  const sessions = [...entries.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
  return {
    mode: o.mode.kind,
    dryRun: o.dryRun === true,
    roots,
    outDir: o.mode.kind === 'candidate' ? resolve(o.mode.outDir) : undefined,
    workDir: o.mode.kind === 'in-place' ? resolve(o.mode.workDir) : undefined,
    sessions,
    notFound: sel.notFound,
    subagentFiles: sel.subagentFiles,
    recovered,
    totals: totalsOf(sessions),
    elapsedMs: Math.round(monotonicMs() - started),
  }
}

/** The mode with its folders absolute, so every path the workers report is. */
function absoluteMode(m: ModeConfig): ModeConfig {
  return m.kind === 'candidate' ? { ...m, outDir: resolve(m.outDir) } : { ...m, workDir: resolve(m.workDir) }
}

export function totalsOf(sessions: BatchSessionEntry[]): BatchTotals {
  const t: BatchTotals = {
    sessions: sessions.length,
    compressed: 0,
    repaired: 0,
    skipped: 0,
    failed: 0,
    skippedByReason: {},
    failedByReason: {},
    bytesBefore: 0,
    bytesAfter: 0,
    compressedBytesBefore: 0,
    compressedBytesAfter: 0,
    compressedTokensBefore: 0,
    compressedTokensAfter: 0,
  }
  for (const s of sessions) {
    t.bytesBefore += s.bytesBefore
    // An unchanged session the earlier run compressed is compressed in the estate's account.
    const compressed = s.status === 'compressed' || (s.reason === 'unchanged' && s.previous?.status === 'compressed')
    const rewritten =
      compressed || s.status === 'repaired' || (s.reason === 'unchanged' && s.previous?.status === 'repaired')
    t.bytesAfter += rewritten && s.bytesAfter !== undefined ? s.bytesAfter : s.bytesBefore
    if (compressed) {
      t.compressedBytesBefore += s.bytesBefore
      t.compressedBytesAfter += s.bytesAfter ?? s.bytesBefore
      t.compressedTokensBefore += s.tokensBefore ?? 0
      t.compressedTokensAfter += s.tokensAfter ?? 0
    }
    if (s.status === 'compressed') t.compressed++
    else if (s.status === 'repaired') t.repaired++
    else if (s.status === 'skipped') {
      t.skipped++
      const r = s.reason as SkipReason
      t.skippedByReason[r] = (t.skippedByReason[r] ?? 0) + 1
    } else {
      t.failed++
      const r = s.reason ?? 'internal'
      t.failedByReason[r] = (t.failedByReason[r] ?? 0) + 1
    }
  }
  return t
}

const BATCH_LOCK = '.claude-jsonl-batch.lock'

function safeReaddir(dir: string): string[] {
  try {
    return readdirSync(dir)
  } catch {
    return []
  }
}

/** What an interrupted earlier run did to a session it had replaced, from its report when it
 * wrote one (else from the file as it is now). */
function earlierInPlaceOutcome(job: SessionJob, candidate: string): SessionOutcome {
  const st = statSync(job.path)
  let r: Partial<CompressReport> = {}
  try {
    r = JSON.parse(readFileSync(`${candidate}.report.json`, 'utf8')) as CompressReport
  } catch {
    // killed before its report: the numbers it would have held are not known
  }
  return {
    status: 'compressed',
    bytesBefore: r.inputBytes ?? st.size,
    bytesAfter: st.size,
    tokensBefore: r.inputEstimatedMessageTokens,
    tokensAfter: r.outputEstimatedMessageTokens,
    output: job.path,
    sourceSha256: r.sourceSha256,
    candidateSha256: r.candidateSha256,
    finalSize: st.size,
    finalMtimeMs: st.mtimeMs,
  }
}
