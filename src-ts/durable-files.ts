// The durable-files layer: every file claude-jsonl publishes, every numbered backup it makes, every
// lock file it takes and the rule that no write follows a symbolic link out of its root go
// through this one module, so each rule is written once:
// - publishing: a temp file in the target's folder, written, fsynced (and checked), then renamed
//   over the target or hard-linked to refuse an existing one, then the folder fsynced; a failure
//   at any step removes the temp file and leaves the target as it was;
// - a new file (a backup, a stage) is created exclusively, fsynced and read back;
// - a lock is an exclusive file naming its owner (pid and process start time); one whose owner no
//   longer runs is taken over;
// - a path to write is refused when reaching it from its root passes through a symbolic link
//   that leads out of the root, or when the file itself is a link;
// - the crash tests' fault injection: a stop after a named step, an errno for a named write.
import {
  closeSync,
  fchmodSync,
  fsync,
  fsyncSync,
  linkSync,
  lstatSync,
  openSync,
  readFileSync,
  realpathSync,
  renameSync,
  unlinkSync,
  writeSync,
} from 'node:fs'
import { promisify } from 'node:util'
import { basename, dirname, join, relative, resolve, sep, isAbsolute } from 'node:path'
import native from './native.js'
import { ClaudeJsonlError, EXIT, inputError } from './errors.js'
import { acquireLock, lockHolder, ownerAlive, ownerTag, unlock } from './durable-lock.cjs'
import { createRequire } from 'node:module'

/** The errno code of a file-system error (or its message when it has none). */
export const errno = (e: unknown): string => (e as NodeJS.ErrnoException).code ?? (e as Error).message

export function tryUnlink(path: string): boolean {
  try {
    unlinkSync(path)
    return true
  } catch {
    return false
  }
}

// ---- fault injection (crash and full-disk tests) ----

/** Test hook: `CLAUDE_JSONL_FAULT_STOP=<step>` makes the process announce the step on stderr
 * and stop itself (SIGSTOP) right after it, so a test can kill it there or let it go on. */
export function faultPoint(step: string, env: NodeJS.ProcessEnv = process.env): void {
  if (env.CLAUDE_JSONL_FAULT_STOP !== step) return
  // Written to fd 2 at once: from a worker thread process.stderr is forwarded to the main
  // thread later, which would come after the stop.
  writeSync(2, `claude-jsonl: fault point ${step}\n`)
  process.kill(process.pid, 'SIGSTOP')
  // The kernel stops a thread other than the one that takes the signal only when it next enters
  // the kernel, and the main thread may wait to be scheduled first: a worker thread would run on
  // past the step meanwhile. It waits (in the kernel, where the stop reaches it) until the
  // process shows as stopped.
  // (node:worker_threads loaded only here: it loads the stream modules, a few milliseconds of
  // every command's start-up)
  if (!(createRequire(import.meta.url)('node:worker_threads') as typeof import('node:worker_threads')).isMainThread)
    untilProcessStopped()
}

function untilProcessStopped(): void {
  const nap = new Int32Array(new SharedArrayBuffer(4))
  for (let waited = 0; waited < 10_000; waited++) {
    let state = ''
    try {
      const stat = readFileSync('/proc/self/stat', 'latin1')
      state = stat.charAt(stat.lastIndexOf(')') + 2)
    } catch {
      return // no /proc: nothing to wait on
    }
    if (state === 'T' || state === 't') return
    Atomics.wait(nap, 0, 0, 1)
  }
}

/** The writes a test can make fail (`CLAUDE_JSONL_FAULT_ERRNO=<write>:<CODE>`, e.g. `stage:ENOSPC`). */
export type FaultWrite = 'backup' | 'stage' | 'manifest'

/** Test hook: fails the named write as the file system would (`CLAUDE_JSONL_FAULT_ERRNO`). */
export function injectedError(what: FaultWrite | undefined, env: NodeJS.ProcessEnv = process.env): void {
  const spec = env.CLAUDE_JSONL_FAULT_ERRNO
  if (!what || !spec || !spec.startsWith(`${what}:`)) return
  const code = spec.slice(what.length + 1)
  const e = new Error(`${code}: injected failure, write`) as NodeJS.ErrnoException
  e.code = code
  throw e
}

// ---- folders ----

const fsyncAsync = promisify(fsync)

/** Fsyncs a folder so the names just made in it survive a power cut: `ok`, `unsupported` where
 * the platform cannot, or `failed (<errno>)`. */
export function fsyncDirSync(dir: string): 'ok' | 'unsupported' | string {
  let fd: number
  try {
    fd = openSync(dir, 'r')
  } catch (e) {
    return `failed (${errno(e)})`
  }
  try {
    fsyncSync(fd)
    return 'ok'
  } catch (e) {
    const c = errno(e)
    return c === 'EINVAL' || c === 'ENOTSUP' || c === 'EISDIR' ? 'unsupported' : `failed (${c})`
  } finally {
    closeSync(fd)
  }
}

/** fsyncDirSync on the thread pool (best effort: the rename itself is still atomic). A caller
 * running several publications (a batch) computes meanwhile instead of idling in fsync. */
export async function fsyncDir(dir: string): Promise<void> {
  try {
    const fd = openSync(dir, 'r')
    try {
      await fsyncAsync(fd)
    } finally {
      closeSync(fd)
    }
  } catch {
    // Some platforms cannot fsync a directory.
  }
}

// ---- the symlink rule ----

/** A write refused because it would follow a symbolic link (out of its root, or at the file's
 * own name). Nothing was written. Exit code 2, as for a named symlink. */
export class LinkRefusal extends ClaudeJsonlError {
  constructor(message: string, path: string) {
    super(message, EXIT.usage, path)
  }
}

/**
 * Refuses to write `path` when reaching it from `root` would follow a symbolic link out of the
 * root: every existing part of the path below the root that is a link must lead inside the root
 * (its real path), and the file itself must not be a link. A path not below the root at all is
 * refused too. Parts that do not exist yet are fine (the writer creates them inside the root).
 */
export function checkWithin(path: string, root: string): void {
  const abs = resolve(path)
  const top = resolve(root)
  const rel = relative(top, abs)
  if (rel === '' || rel.startsWith('..') || isAbsolute(rel))
    throw new LinkRefusal(`${abs}: lies outside ${top}; nothing written`, abs)
  let realTop: string
  try {
    realTop = realpathSync(top)
  } catch {
    return // nothing below a root that does not exist yet exists either
  }
  const parts = rel.split(sep)
  let p = top
  for (let i = 0; i < parts.length; i++) {
    p = join(p, parts[i])
    let st
    try {
      st = lstatSync(p)
    } catch {
      return
    }
    if (!st.isSymbolicLink()) continue
    if (i === parts.length - 1)
      throw new LinkRefusal(`${p}: is a symbolic link; not followed, not replaced (name the file it points to)`, p)
    let real: string
    try {
      real = realpathSync(p)
    } catch {
      throw new LinkRefusal(`${p}: a symbolic link that leads nowhere; nothing written through it`, p)
    }
    if (real !== realTop && !real.startsWith(realTop.endsWith(sep) ? realTop : realTop + sep))
      throw new LinkRefusal(`${p}: a symbolic link leading out of ${top} (to ${real}); nothing written through it`, abs)
  }
}

// ---- publishing ----

export interface PublishOptions {
  /** Replace an existing target (rename); otherwise an existing target is an error (hard link). */
  replace?: boolean
  /** Runs on the written, fsynced temp file before it becomes visible; a throw aborts. */
  check?: (tempPath: string) => void | Promise<void>
  /** The folder the target must stay inside (checkWithin, run before the temp file is made and
   * again just before the target becomes visible). */
  within?: string
  /** Permission bits of the published file (default 0644). */
  mode?: number
  /** Without `replace`: an existing target is left as it is and the call returns false
   * (instead of refusing); how a lock file is taken, whole or not at all. */
  keepExisting?: boolean
  /** Which fault-injection write this is (tests). */
  fault?: FaultWrite
  env?: NodeJS.ProcessEnv
}

export async function publishFile(
  target: string,
  bytes: Uint8Array | string,
  options: PublishOptions = {},
): Promise<boolean> {
  const dir = dirname(target)
  if (options.within !== undefined) checkWithin(target, options.within)
  // (Math.random, not node:crypto, which costs a command a few milliseconds to load: the name
  // need only differ from another writer's, and the file is created exclusively)
  const temp = join(dir, `.${basename(target)}.tmp-${process.pid}-${Math.random().toString(16).slice(2, 10)}`)
  let fd: number
  try {
    fd = openSync(temp, 'wx', options.mode ?? 0o644)
  } catch (e) {
    throw inputError(dir, `cannot write here (${errno(e)})`)
  }
  let visible = false
  try {
    try {
      if (options.mode !== undefined) fchmodSync(fd, options.mode)
      injectedError(options.fault, options.env)
      const buf = typeof bytes === 'string' ? Buffer.from(bytes) : bytes
      for (let at = 0; at < buf.length;) at += writeSync(fd, buf, at, buf.length - at)
      await fsyncAsync(fd)
    } finally {
      closeSync(fd)
    }
    await options.check?.(temp)
    if (options.within !== undefined) checkWithin(target, options.within)
    if (options.replace) renameSync(temp, target)
    else {
      try {
        linkSync(temp, target)
      } catch (e) {
        if (errno(e) === 'EEXIST' && options.keepExisting) return false
        if (errno(e) === 'EEXIST')
          throw new ClaudeJsonlError(`${target}: already exists (pass --force to replace it)`, EXIT.usage, target)
        throw e
      }
      unlinkSync(temp)
    }
    visible = true
    await fsyncDir(dir)
    return true
  } finally {
    if (!visible) tryUnlink(temp)
  }
}

/** Writes `bytes` to a new file (never an existing one) with `mode`, fsyncs it and reads it back. */
export function writeNew(
  path: string,
  bytes: Buffer,
  env: NodeJS.ProcessEnv,
  what: FaultWrite | undefined,
  mode = 0o600,
): void {
  const fd = openSync(path, 'wx', 0o600)
  let ok = false
  try {
    fchmodSync(fd, mode)
    injectedError(what, env)
    for (let at = 0; at < bytes.length;) at += writeSync(fd, bytes, at, bytes.length - at)
    fsyncSync(fd)
    ok = true
  } finally {
    closeSync(fd)
    if (!ok) tryUnlink(path)
  }
  if (!native.fileEquals(path, bytes)) {
    tryUnlink(path)
    throw new Error(`${path} does not read back as the bytes written`)
  }
}

/** The name of the n-th numbered backup of `target`: `<file>.backup`, `<file>.backup1`, ... */
export function backupName(target: string, n: number): string {
  return `${target}.backup${n === 0 ? '' : n}`
}

/** `<file>.backup`, `<file>.backup1`, ...: the first free name, created exclusively, with the
 * original's permission bits at most (`mode`, default 0600), verified byte for byte. */
export function writeNumberedBackup(
  target: string,
  bytes: Buffer,
  env: NodeJS.ProcessEnv = process.env,
  mode = 0o600,
): string {
  for (let n = 0; n < 10_000; n++) {
    const path = backupName(target, n)
    try {
      writeNew(path, bytes, env, 'backup', mode)
      return path
    } catch (e) {
      if (errno(e) === 'EEXIST') continue
      throw e
    }
  }
  throw new Error(`${target}: 10000 numbered backups exist already`)
}

/** Links `from` to the first free numbered backup name of `target` (never clobbering), then
 * removes `from`. Returns the backup's path. */
export function linkAsNumberedBackup(target: string, from: string): string {
  for (let n = 1; ; n++) {
    const path = backupName(target, n)
    try {
      linkSync(from, path)
      unlinkSync(from)
      return path
    } catch (e) {
      if (errno(e) !== 'EEXIST') throw e
    }
  }
}

// ---- owners and locks ----

// A lock file's owner, liveness and takeover are durable-lock.cts's (CommonJS, so the statusline
// can take the same locks before loading this module).
export { lockHolder, ownerAlive, ownerTag }

/**
 * Takes a lock: an exclusive file at `lock` naming its owner. A lock whose owner no longer runs
 * is taken over (removed only if it is still the one read); a live one throws what `refused`
 * builds from its pid (0 for a lock that names no owner yet). Any other failure (a folder it
 * cannot write) is thrown as it is.
 */
export function takeLock(lock: string, refused: (pid: number) => ClaudeJsonlError): string {
  const taken = acquireLock(lock)
  if (taken !== true) throw refused(taken.pid)
  return lock
}

/** Releases a lock this process holds (only if it still names this process). */
export function releaseLock(lock: string): void {
  unlock(lock)
}
