// Replacing a live transcript with a validated candidate so that, whatever happens (a crash, a
// full disk, another process writing), the transcript's path holds either the complete original
// or the complete validated candidate, and a byte-exact backup of the original exists before the
// original is ever replaced:
//   1. read and hash the complete original (the frozen source);
//   2. build and validate the candidate outside every .claude tree (the caller's producer);
//   3. re-read the source: it must still be the frozen bytes;
//   4. write an exclusive numbered backup beside it (<file>.backup, <file>.backup1, ...) and
//      verify it byte for byte;
//   5. re-check the candidate's bytes and stage them beside the target (write, fsync, read back);
//   6. capture the target (open it, verify its full bytes against the frozen source) and swap
//      the stage in: one atomic exchange of the two names, then a check that what came out is
//      the captured file, unchanged; anything else is swapped back, so a file another process
//      put there is never overwritten;
//   7. read the published file back and verify its bytes and structure; on failure the captured
//      original is swapped back.
// A verified backup is never deleted by any cleanup. The report is the caller's, written only
// after the commit; if it fails the result says `committed-report-failed` (the commit stands).
// Every step can be stopped from outside for crash tests (CLAUDE_JSONL_FAULT_STOP).
import {
  closeSync,
  fstatSync,
  linkSync,
  lstatSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  renameSync,
  unlinkSync,
  constants as fsConstants,
  type Stats,
} from 'node:fs'
import { randomBytes } from 'node:crypto'
import { basename, dirname, join } from 'node:path'
import native from '../native.js'
import { ClaudeJsonlError, EXIT } from '../errors.js'
import { insideClaudeTree } from '../claude-tree.js'
import { claudeProjectsRoot } from '../read/estate.js'
import {
  checkWithin,
  errno,
  faultPoint,
  fsyncDirSync as fsyncDir,
  linkAsNumberedBackup,
  LinkRefusal,
  lockHolder,
  ownerAlive,
  ownerTag,
  takeLock,
  tryUnlink,
  writeNew,
  writeNumberedBackup,
} from '../durable-files.js'

export { writeNumberedBackup }

/** The steps, in order; a fault point follows each (see `faultPoint`). */
export const TRANSACTION_STEPS = [
  'locked',
  'frozen',
  'candidate',
  'rechecked',
  'backed-up',
  'staged',
  'captured',
  'published',
  'verified',
  'cleaned',
  /** Only without an atomic exchange: the original renamed aside, the name not yet claimed. */
  'moved-aside',
] as const
export type TransactionStep = (typeof TRANSACTION_STEPS)[number]

/**
 * The source as the transaction froze it: its path, bytes and SHA-256. The candidate is built from
 * these bytes, and the target must still hold them when it is replaced.
 */
export interface Frozen {
  path: string
  bytes: Buffer
  sha256: string
}

/** What a producer builds from the frozen source: the bytes that replace the target. */
export interface Candidate {
  bytes: Buffer
  /** Where the producer wrote it (in the work folder), when it did. */
  path?: string
  /** Anything the producer wants back in the result (its report). */
  details?: unknown
}

/**
 * What `replaceInPlace` replaces, and the steps the caller supplies: build the candidate, check
 * it, refuse, and write the report.
 */
export interface ReplaceOptions {
  /** The transcript to replace: a regular file (not a symlink). */
  target: string
  /** Where the candidate is built; must lie outside every .claude tree. */
  workDir: string
  /** Builds the candidate from the frozen source. Throws (a ClaudeJsonlError) to refuse. */
  produce: (frozen: Frozen) => Promise<Candidate>
  /** Checks candidate bytes (structure, validator); throws to refuse. Run on the candidate, on
   * the staged copy and on the published file. */
  verify: (bytes: Buffer) => void
  /** Writes the caller's report, after the commit, from the receipt. */
  report?: (receipt: Receipt) => void | Promise<void>
  /** Throws to refuse; run again after the source re-check and just before the capture (a
   * Claude Code started on the session meanwhile). */
  guard?: () => void
  /** Environment used to find the `.claude` trees the work folder must stay out of (defaults to process.env). */
  env?: NodeJS.ProcessEnv
  /** The root the target must be reached in without following a symbolic link out of it:
   * checked before the lock and again just before the capture. Default: the Claude projects
   * folder the target lies in (when it lies in one), so every caller (compress, repair, restore)
   * keeps the rule. */
  within?: string
}

/**
 * How a replacement ended: the target was replaced (and the report written, or not), or it was not
 * touched.
 */
export type OperationState = 'committed' | 'committed-report-failed' | 'not-committed'

/**
 * What the transaction did, step by step: the backups it made, the digests of the frozen source,
 * the candidate and the published file, and how it published.
 */
export interface Receipt {
  target: string
  /** The verified numbered backup of the original. */
  backup?: string
  /** Further numbered backups made when another process replaced the target meanwhile. */
  extraBackups: string[]
  candidate?: string
  frozenSha256: string
  candidateSha256?: string
  publishedSha256?: string
  /** How the candidate was published: an atomic exchange, or (where the platform has none)
   * a rename of the original aside and a no-clobber link. */
  publishMethod?: 'exchange' | 'rename-and-link'
  /** Parent-folder fsync after the publish: best effort. */
  parentDirFsync?: 'ok' | 'unsupported' | string
  /** Leftovers of earlier interrupted runs removed or restored first. */
  recovered: string[]
  /** What recovering an earlier interrupted run of this transcript did (finished or rolled
   * back), when there was one. */
  recovery?: Recovery
}

/** The outcome of `replaceInPlace`: its receipt, how it ended, and why it did not commit. */
export interface ReplaceResult extends Receipt {
  operationState: OperationState
  /** Why it did not commit, or why the report failed. */
  error?: ClaudeJsonlError
  details?: unknown
}

/** Reads the whole of an open file. */
function readFd(fd: number, size: number): Buffer {
  const buf = Buffer.allocUnsafe(size)
  let at = 0
  while (at < size) {
    const n = readSync(fd, buf, at, size - at, at)
    if (n === 0) break
    at += n
  }
  // Anything past the size seen at open means the file grew meanwhile.
  const more = Buffer.alloc(1)
  const extra = readSync(fd, more, 0, 1, size)
  return extra > 0 ? Buffer.concat([buf.subarray(0, at), more]) : buf.subarray(0, at)
}

function sameInode(a: Stats, b: Stats): boolean {
  return a.ino === b.ino && a.dev === b.dev
}

const TEMP_TAG = '.in-place-'
const LOCK_SUFFIX = '.in-place.lock'

/** Temp names beside the target: `.<file>.in-place-<pid>-<start>-<random>.<kind>`, so a later
 * run can tell whether their owner still runs. */
function tempName(target: string, kind: 'stage' | 'lock'): string {
  const { start } = ownerTag()
  const rand = randomBytes(4).toString('hex')
  return kind === 'lock'
    ? `${target}${LOCK_SUFFIX}`
    : join(dirname(target), `.${basename(target)}${TEMP_TAG}${process.pid}-${start}-${rand}.${kind}`)
}

/** The numbered backup of `target` that holds exactly `bytes`, if one does. */
function sameBackup(target: string, bytes: Buffer): string | undefined {
  const dir = dirname(target)
  let names: string[]
  try {
    names = readdirSync(dir)
  } catch {
    return undefined
  }
  const prefix = `${basename(target)}.backup`
  for (const n of names) {
    if (!n.startsWith(prefix) || !/^\d*$/.test(n.slice(prefix.length))) continue
    const p = join(dir, n)
    try {
      if (lstatSync(p).isFile() && lstatSync(p).size === bytes.length && native.fileEquals(p, bytes)) return p
    } catch {
      continue
    }
  }
  return undefined
}

/** Takes the per-transcript lock (an exclusive file beside it naming its owner). A lock whose
 * owner no longer runs is taken over; a live one refuses. */
function acquireLock(target: string): string {
  const lock = tempName(target, 'lock')
  return takeLock(
    lock,
    (pid) =>
      new ClaudeJsonlError(
        pid > 0
          ? `${target}: another in-place run (pid ${pid}) is replacing this transcript; wait for it to finish (or remove ${lock} if that process is not claude-jsonl)`
          : `${target}: could not take the in-place lock ${lock}`,
        EXIT.flagged,
        target,
      ),
  )
}

/** The owner of a temp name beside the target (`.<file>.in-place-<pid>-<start>-...`), if any. */
function tempOwner(target: string, name: string): { pid: number; start: string } | undefined {
  const prefix = `.${basename(target)}${TEMP_TAG}`
  if (!name.startsWith(prefix)) return undefined
  const [pid, start] = name.slice(prefix.length).split('-')
  return Number(pid) > 0 ? { pid: Number(pid), start } : undefined
}

/**
 * Puts back an original that an interrupted run had renamed aside (only where the platform has
 * no atomic exchange is the name ever empty): when the target is missing and a dead run's
 * `.original` exists, it returns to the target name. Returns the path restored, if any.
 */
export function recoverInterruptedPublish(target: string): string | undefined {
  try {
    lstatSync(target)
    return undefined
  } catch {
    // missing: look for an original set aside
  }
  let names: string[] = []
  try {
    names = readdirSync(dirname(target))
  } catch {
    return undefined
  }
  for (const name of names) {
    const owner = tempOwner(target, name)
    if (!owner || !name.endsWith('.stage.original') || ownerAlive(owner.pid, owner.start)) continue
    const aside = join(dirname(target), name)
    try {
      linkSync(aside, target)
      unlinkSync(aside)
      return aside
    } catch {
      return undefined
    }
  }
  return undefined
}

/** What the recovery of one interrupted transaction did. */
export interface Recovery {
  /** The transcript the killed run was replacing. */
  target: string
  /** `finished`: the killed run had published its candidate, which verifies, so it stands;
   * `rolled-back`: it had not (or what it published does not verify), so the transcript is the
   * original; `cleaned`: only a stale lock or a copy of a backup was left. */
  action: 'finished' | 'rolled-back' | 'cleaned'
  /** One line for a person. */
  message: string
  /** The leftovers removed (stage files, a stale lock, an original set aside). */
  removed: string[]
}

const noErrors = (bytes: Buffer) => native.validateBuffer(bytes).findings.every((f) => f.severity !== 'error')

/**
 * Finishes or rolls back what interrupted runs whose owner is gone left beside the target, by the
 * transaction's recovery rules: an original renamed aside goes back to an empty name; a stage
 * identical to a numbered backup holds the original after the swap, so the candidate had been
 * published: it stands when it verifies (the stage is removed) and is swapped back when it does
 * not; any other stage holds an unpublished candidate and is removed; an original set aside that
 * a backup holds too is removed. Never touches a verified backup. The lock is the caller's.
 */
function recoverStages(target: string): Recovery | undefined {
  const dir = dirname(target)
  const removed: string[] = []
  let action: Recovery['action'] | undefined
  const notes: string[] = []
  const restored = recoverInterruptedPublish(target)
  if (restored) {
    action = 'rolled-back'
    notes.push(`put the original set aside back (${restored})`)
  }
  let names: string[] = []
  try {
    names = readdirSync(dir)
  } catch {
    return undefined
  }
  const backups = names.filter((n) => n.startsWith(`${basename(target)}.backup`)).map((n) => join(dir, n))
  for (const name of names) {
    const owner = tempOwner(target, name)
    if (!owner || ownerAlive(owner.pid, owner.start)) continue
    const path = join(dir, name)
    let bytes: Buffer
    try {
      bytes = readFileSync(path)
    } catch {
      continue
    }
    const backup = backups.find((b) => native.fileEquals(b, bytes))
    if (name.endsWith('.stage.original')) {
      if (!backup) continue // keep: it is no backup's copy
      if (tryUnlink(path)) removed.push(path)
      action ??= 'cleaned'
      continue
    }
    if (!name.endsWith('.stage')) continue
    if (backup) {
      // Swapped: the transcript holds the killed run's candidate, the stage the original.
      let published: Buffer | undefined
      try {
        published = readFileSync(target)
      } catch {
        published = undefined
      }
      if (published && noErrors(published)) {
        action = 'finished'
        notes.push(`the killed run had published its candidate; it verifies and stands (the original is in ${backup})`)
      } else {
        try {
          if (!native.exchangePaths(path, target)) renameSync(path, target)
        } catch {
          continue // leave the stage: it holds the original, beside its backup
        }
        action = 'rolled-back'
        notes.push(`what the killed run published does not verify; the original was put back (also in ${backup})`)
      }
    } else {
      action = action === 'finished' ? action : 'rolled-back'
      notes.push(
        'the killed run had not published; its staged candidate was removed and the transcript is the original',
      )
    }
    if (tryUnlink(path)) removed.push(path)
  }
  if (!action) return undefined
  return {
    target,
    action,
    message: `${target}: recovered an interrupted in-place run: ${notes.join('; ') || 'removed its leftovers'}`,
    removed,
  }
}

/**
 * Recovers every interrupted in-place transaction in a folder (or only `target`'s): for each
 * transcript with leftovers of a run that no longer runs (its lock, its stage files), the stages
 * are finished or rolled back (`recoverStages`) and the stale lock is removed. A transcript whose
 * lock a live run holds is left alone. Returns what was done, one entry per transcript.
 */
export function recoverInterrupted(dir: string, target?: string): Recovery[] {
  let names: string[]
  try {
    names = readdirSync(dir)
  } catch {
    return []
  }
  const targets = new Set<string>()
  for (const name of names) {
    if (name.endsWith(LOCK_SUFFIX)) targets.add(name.slice(0, -LOCK_SUFFIX.length))
    else if (name.startsWith('.') && name.includes(TEMP_TAG)) targets.add(name.slice(1, name.indexOf(TEMP_TAG)))
  }
  const out: Recovery[] = []
  for (const file of targets) {
    const path = join(dir, file)
    if (target !== undefined && path !== target) continue
    const lock = `${path}${LOCK_SUFFIX}`
    let lockText: string | undefined
    try {
      lockText = readFileSync(lock, 'utf8')
    } catch {
      lockText = undefined
    }
    if (lockText !== undefined && lockHolder(lock)) continue // a live run is at work on it
    const r = recoverStages(path)
    const rec = r ?? {
      target: path,
      action: 'cleaned' as const,
      message: `${path}: removed a stale in-place lock`,
      removed: [],
    }
    try {
      if (lockText !== undefined && readFileSync(lock, 'utf8') === lockText && tryUnlink(lock)) rec.removed.push(lock)
    } catch {
      // gone meanwhile
    }
    if (r || rec.removed.length) out.push(rec)
  }
  return out
}

const fail = (message: string, code: number = EXIT.input, path?: string) => new ClaudeJsonlError(message, code, path)

/**
 * Runs the replacement transaction. Never exits the process and never throws for an outcome:
 * the result says whether it committed, with the receipt; `error` tells why not.
 */
export async function replaceInPlace(opts: ReplaceOptions): Promise<ReplaceResult> {
  const env = opts.env ?? process.env
  const target = opts.target
  const receipt: Receipt = { target, extraBackups: [], frozenSha256: '', recovered: [] }
  let lock: string | undefined
  let stage: string | undefined
  let committed = false
  let details: unknown
  try {
    if (insideClaudeTree(opts.workDir, env))
      throw fail(`--work-dir ${opts.workDir} lies inside a .claude tree; give a folder outside it`, EXIT.usage)
    let st: Stats
    try {
      st = lstatSync(target)
    } catch (e) {
      throw fail(`${target}: ${errno(e) === 'ENOENT' ? 'no such file' : errno(e)}`, EXIT.input, target)
    }
    if (st.isSymbolicLink())
      throw new LinkRefusal(
        `${target}: is a symbolic link; in-place replaces only a regular file (name the file the link points to)`,
        target,
      )
    if (!st.isFile()) throw fail(`${target}: not a regular file`, EXIT.usage, target)
    const within = opts.within ?? claudeProjectsRoot(target, env)
    if (within !== undefined) checkWithin(target, within)
    try {
      lock = acquireLock(target)
    } catch (e) {
      if (e instanceof ClaudeJsonlError) throw e
      throw fail(
        `${dirname(target)}: cannot write beside the transcript (${errno(e)}); nothing changed`,
        EXIT.input,
        target,
      )
    }
    receipt.recovery = recoverStages(target)
    receipt.recovered = receipt.recovery?.removed ?? []
    faultPoint('locked', env)

    // 1. The frozen source.
    const frozenBytes = readFileSync(target)
    const frozen: Frozen = { path: target, bytes: frozenBytes, sha256: native.sha256(frozenBytes) }
    receipt.frozenSha256 = frozen.sha256
    faultPoint('frozen', env)

    // 2. The candidate, built and validated outside .claude.
    const candidate = await opts.produce(frozen)
    details = candidate.details
    receipt.candidate = candidate.path
    if (candidate.path && insideClaudeTree(candidate.path, env))
      throw fail(`${candidate.path}: the candidate lies inside a .claude tree`, EXIT.internal)
    const candidateBytes = Buffer.from(candidate.bytes) // our own immutable copy
    const candidateSha = native.sha256(candidateBytes)
    receipt.candidateSha256 = candidateSha
    opts.verify(candidateBytes)
    if (candidate.path && !native.fileEquals(candidate.path, candidateBytes))
      throw fail(`${candidate.path}: the candidate on disk is not the validated bytes`, EXIT.internal)
    faultPoint('candidate', env)

    // 3. The source must not have changed while the candidate was built.
    const st1 = lstatSync(target)
    if (!sameInode(st, st1) || !native.fileEquals(target, frozen.bytes))
      throw fail(`${target}: the transcript changed during the run (is Claude Code using it?); nothing replaced`)
    opts.guard?.()
    faultPoint('rechecked', env)

    // 4. The numbered backup, verified.
    try {
      // A backup an interrupted earlier run made of these very bytes serves (compared byte for
      // byte): a re-run after a kill adds no second copy of the same original.
      receipt.backup = sameBackup(target, frozen.bytes) ?? writeNumberedBackup(target, frozen.bytes, env)
      fsyncDir(dirname(target)) // best effort: the backup's name survives a power cut too
    } catch (e) {
      throw fail(`${target}: cannot write its backup (${errno(e)}); nothing replaced`)
    }
    faultPoint('backed-up', env)

    // 5. The stage: the candidate's bytes checked again, written beside the target.
    if (native.sha256(candidateBytes) !== candidateSha)
      throw fail('the candidate changed in memory before staging; nothing replaced', EXIT.internal)
    stage = tempName(target, 'stage')
    try {
      // The replacement keeps the original's permission bits.
      writeNew(stage, candidateBytes, env, 'stage', st.mode & 0o7777)
    } catch (e) {
      stage = undefined
      throw fail(`${dirname(target)}: cannot stage the candidate (${errno(e)}); nothing replaced`)
    }
    opts.verify(readFileSync(stage))
    faultPoint('staged', env)

    // 6. Capture the target and swap the stage in.
    opts.guard?.()
    if (within !== undefined) checkWithin(target, within)
    let fd: number
    try {
      fd = openSync(target, fsConstants.O_RDONLY | (fsConstants.O_NOFOLLOW ?? 0))
    } catch (e) {
      throw fail(`${target}: disappeared or changed before publishing (${errno(e)}); nothing replaced`)
    }
    try {
      const captured = fstatSync(fd)
      if (!captured.isFile() || !readFd(fd, captured.size).equals(frozen.bytes))
        throw fail(`${target}: the transcript changed before publishing (is Claude Code using it?); nothing replaced`)
      faultPoint('captured', env)
      await publish(target, stage, captured, fd, frozen, receipt, env)
    } finally {
      closeSync(fd)
    }
    committed = true
    faultPoint('published', env)

    // 7. What is published must be the candidate, byte for byte, and valid.
    try {
      const published = readFileSync(target)
      receipt.publishedSha256 = native.sha256(published)
      if (!published.equals(candidateBytes)) throw new Error('the published bytes are not the candidate')
      opts.verify(published)
    } catch (e) {
      committed = false
      try {
        rollBack(target, stage!, receipt)
      } catch (e2) {
        stage = undefined // it may hold the original: leave it for the user, beside the backup
        throw e2
      }
      throw fail(`${target}: ${(e as Error).message}; the original was put back`, EXIT.internal)
    }
    receipt.parentDirFsync = fsyncDir(dirname(target))
    faultPoint('verified', env)
    // The stage now holds the original, identical to the verified backup.
    tryUnlink(stage!)
    stage = undefined
    faultPoint('cleaned', env)
  } catch (e) {
    if (stage) tryUnlink(stage) // holds the candidate: nothing was published
    if (lock) tryUnlink(lock)
    const error = e instanceof ClaudeJsonlError ? e : new ClaudeJsonlError((e as Error).message, EXIT.internal)
    return { ...receipt, operationState: committed ? 'committed' : 'not-committed', error, details }
  }
  if (lock) tryUnlink(lock)
  try {
    await opts.report?.(receipt)
  } catch (e) {
    return {
      ...receipt,
      operationState: 'committed-report-failed',
      error: new ClaudeJsonlError(
        `${target}: replaced and verified, but the report could not be written (${(e as Error).message})`,
        EXIT.input,
        target,
      ),
      details,
    }
  }
  return { ...receipt, operationState: 'committed', details }
}

/** Step 6's publish. With an atomic exchange the target name is never empty: after the swap the
 * stage name holds what was at the target, which must be the captured file with the frozen bytes;
 * anything else (another process replaced or appended to the target) is swapped straight back. */
async function publish(
  target: string,
  stage: string,
  captured: Stats,
  capturedFd: number,
  frozen: Frozen,
  receipt: Receipt,
  env: NodeJS.ProcessEnv,
): Promise<void> {
  let exchanged: boolean
  try {
    // CLAUDE_JSONL_NO_EXCHANGE=1 takes the fallback where the exchange exists (tests).
    exchanged = env.CLAUDE_JSONL_NO_EXCHANGE === '1' ? false : native.exchangePaths(stage, target)
  } catch (e) {
    throw fail(`${target}: cannot publish (${(e as Error).message}); nothing replaced`)
  }
  if (exchanged) {
    receipt.publishMethod = 'exchange'
    const out = lstatSync(stage)
    const intact = sameInode(out, captured) && native.fileEquals(stage, frozen.bytes)
    if (intact) return
    native.exchangePaths(stage, target) // theirs back at the target, the candidate at the stage
    if (!sameInode(out, captured)) {
      // The captured original is no longer at any name: keep it as a further numbered backup.
      const extra = writeNumberedBackup(target, readFd(capturedFd, captured.size), env)
      receipt.extraBackups.push(extra)
      throw fail(
        `${target}: another process replaced the transcript during the run; left it in place, not published (the original is kept in ${receipt.backup} and ${extra})`,
      )
    }
    throw fail(
      `${target}: the transcript was written to during the publish (is Claude Code using it?); put back, not published`,
    )
  }
  // No exchange on this platform: move the original aside, then claim the name with a link,
  // which fails rather than overwrite a file another process created meanwhile.
  receipt.publishMethod = 'rename-and-link'
  const aside = `${stage}.original`
  renameSync(target, aside)
  faultPoint('moved-aside', env)
  const moved = lstatSync(aside)
  if (!sameInode(moved, captured) || !native.fileEquals(aside, frozen.bytes)) {
    putBack(target, aside, receipt)
    throw fail(`${target}: another process replaced the transcript during the run; not published`)
  }
  try {
    linkSync(stage, target)
  } catch (e) {
    putBack(target, aside, receipt)
    throw fail(
      errno(e) === 'EEXIST'
        ? `${target}: another process recreated the transcript during the run; left it in place, not published`
        : `${target}: cannot publish (${errno(e)}); the original was put back`,
    )
  }
  // The stage name now holds the original, as after an exchange.
  renameSync(aside, stage)
}

/** Returns a moved-aside original to the target name without clobbering: if the name is taken
 * again, it becomes a further numbered backup instead. */
function putBack(target: string, aside: string, receipt: Receipt): void {
  try {
    linkSync(aside, target)
    unlinkSync(aside)
  } catch (e) {
    if (errno(e) !== 'EEXIST') throw e
    receipt.extraBackups.push(linkAsNumberedBackup(target, aside))
  }
}

/** Step 7 failed: the stage name holds the original; swap it back. If that fails the verified
 * backup stays and the error says where. */
function rollBack(target: string, stage: string, receipt: Receipt): void {
  try {
    if (!native.exchangePaths(stage, target)) {
      renameSync(stage, target)
    }
  } catch (e) {
    throw fail(
      `${target}: verification failed and the original could not be put back (${(e as Error).message}); restore it from ${receipt.backup}`,
      EXIT.internal,
    )
  }
}
