// Lock files and their owners, for the durable-files layer (durable-files.ts builds on this) and
// for the hooks' queue and the statusline: a lock is a file created exclusively, holding its
// owner's pid and process start time, fsynced. A lock whose owner no longer runs (killed,
// crashed) or whose pid now names another process is taken over; one that names no owner yet
// is held while young (its creator is between creating and writing it) and taken over once old.
// CommonJS with Node built-ins only, so the statusline's fast path can load it before anything
// else.
import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, statSync, unlinkSync, writeSync } from 'node:fs'
import { dirname } from 'node:path'

/** How long a lock file that names no owner counts as held. */
const OWNERLESS_HELD_MS = 10_000

/** A process's start time in clock ticks since boot (field 22 of /proc/<pid>/stat), when known. */
export function processStartTicks(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    // The command name (field 2) is in parentheses and may itself hold spaces or ')'.
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return rest[19] // field 22; `rest` starts at field 3
  } catch {
    return undefined
  }
}

/** Whether a process with this pid exists (one we may not signal counts). */
export function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/** This process as a lock or temp name records it: its pid and start time ('0' where unknown),
 * so a reused pid is not taken for the owner. */
export function ownerTag(): { pid: number; start: string } {
  return { pid: process.pid, start: processStartTicks(process.pid) ?? '0' }
}

/** Whether the process that wrote an owner tag still runs: the same pid with the same start time. */
export function ownerAlive(pid: number, start: string): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false
  const now = processStartTicks(pid)
  if (now !== undefined) return start === '0' || start === '' || now === start
  return processExists(pid)
}

/** Who holds the lock at `path`: its live owner, `ownerless` for a young lock that names no one
 * yet, or undefined when it is free (absent, or its owner gone). */
export function lockHolder(path: string): { pid: number; start: string } | 'ownerless' | undefined {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch {
    return undefined
  }
  return holderOf(path, text)
}

function holderOf(path: string, text: string): { pid: number; start: string } | 'ownerless' | undefined {
  const [pidText = '', start = '0'] = text.trim().split(' ')
  if (pidText === '') {
    try {
      return Date.now() - statSync(path).mtimeMs < OWNERLESS_HELD_MS ? 'ownerless' : undefined
    } catch {
      return undefined
    }
  }
  const pid = Number(pidText)
  return ownerAlive(pid, start) ? { pid, start } : undefined
}

/** Whether a live process (or a lock's creator still writing it) holds the lock at `path`. */
export function isLocked(path: string): boolean {
  return lockHolder(path) !== undefined
}

/**
 * Tries to take the lock at `path` (with `createFolder`, its folder is made first): true when this process holds it now,
 * else who holds it (pid 0 for a lock that names no owner yet). A lock whose owner is gone is
 * removed, only if it is still the one read, and taken. Any other failure (a folder it cannot
 * write) is thrown as it is.
 */
export function acquireLock(path: string, createFolder = false): true | { pid: number } {
  if (createFolder) mkdirSync(dirname(path), { recursive: true })
  const me = ownerTag()
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = openSync(path, 'wx', 0o600)
      try {
        writeSync(fd, `${me.pid} ${me.start}\n`)
        fsyncSync(fd)
      } catch (e) {
        try {
          unlinkSync(path) // a lock naming no owner would hold the next run off for a while
        } catch {
          // gone already
        }
        throw e
      } finally {
        closeSync(fd)
      }
      return true
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e
    }
    let text: string
    try {
      text = readFileSync(path, 'utf8')
    } catch {
      continue // released meanwhile
    }
    const holder = holderOf(path, text)
    if (holder !== undefined) return { pid: holder === 'ownerless' ? 0 : holder.pid }
    try {
      if (readFileSync(path, 'utf8') === text) unlinkSync(path) // its owner is gone
    } catch {
      // taken over by another process first
    }
  }
  return { pid: 0 }
}

/** Takes the lock at `path` for this process (its folder made first); false when someone else holds it. */
export function tryLock(path: string): boolean {
  return acquireLock(path, true) === true
}

/** Releases a lock this process holds (a lock taken over by another process stays). */
export function unlock(path: string): void {
  try {
    const me = ownerTag()
    if (readFileSync(path, 'utf8').trim() === `${me.pid} ${me.start}`) unlinkSync(path)
  } catch {
    // gone already
  }
}
