// A lock held by a live process: a file created exclusively, holding its owner's pid and start
// time. A lock whose owner is gone (killed, crashed) or whose pid now names another process is
// taken over. CommonJS with Node built-ins only, so the statusline's fast path can check it
// before loading anything else.
import { closeSync, mkdirSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs'
import { dirname } from 'node:path'

/** The process start time in clock ticks since boot (field 22 of /proc/<pid>/stat), when known. */
function startTicks(pid: number): string {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? ''
  } catch {
    return ''
  }
}

/** Whether the lock's recorded owner ("<pid> <start ticks>") runs now. */
export function ownerAlive(content: string): boolean {
  const [pidText, ticks = ''] = content.trim().split(' ')
  const pid = Number(pidText)
  if (!Number.isInteger(pid) || pid <= 0) return false
  try {
    process.kill(pid, 0)
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EPERM') return false
  }
  const now = startTicks(pid)
  return ticks === '' || now === '' || now === ticks
}

/** Whether a live process holds the lock at `path`. */
export function isLocked(path: string): boolean {
  try {
    return ownerAlive(readFileSync(path, 'utf8'))
  } catch {
    return false
  }
}

/** Takes the lock at `path` for this process; false when a live process holds it. */
export function tryLock(path: string): boolean {
  mkdirSync(dirname(path), { recursive: true })
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, 'wx', 0o600)
      writeSync(fd, `${process.pid} ${startTicks(process.pid)}\n`)
      closeSync(fd)
      return true
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e
    }
    let content = ''
    try {
      content = readFileSync(path, 'utf8')
    } catch {
      continue // released meanwhile
    }
    // Just created, its owner not written yet: someone holds it.
    if (content === '' || ownerAlive(content)) return false
    try {
      unlinkSync(path) // the owner is gone
    } catch {
      // taken over by another process first
    }
  }
  return false
}

/** Releases a lock this process holds (a lock taken over by another process stays). */
export function unlock(path: string): void {
  try {
    if (Number(readFileSync(path, 'utf8').split(' ')[0]) === process.pid) unlinkSync(path)
  } catch {
    // already gone
  }
}
