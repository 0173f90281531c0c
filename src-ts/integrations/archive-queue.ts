// The hooks' archive queue: a hook writes one small file naming the session to archive and
// starts the worker, detached, then returns; the worker archives what the queue holds. One
// worker runs per archive (a lock beside it); a hook that finds one running only adds to the
// queue, which that worker drains before it lets go, so sessions ending together coalesce
// into one archive run and processes never pile up.
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, unlinkSync } from 'node:fs'
import { createRequire } from 'node:module'
import { basename, dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { hookLogPath, hookStateDir, logLine } from './archive-target.js'
import { isLocked, tryLock, unlock } from '../durable-lock.cjs'
import { publishFile } from '../durable-files.js'

/** One session to archive. */
export interface QueueEntry {
  sessionId: string
  transcript: string
  /** The hook that asked (session-end, pre-compact). */
  event: string
  /** Wait until the client no longer runs the session (SessionEnd fires while the client still
   * writes its last records); PreCompact archives at once. */
  waitForClose: boolean
  queuedAt: string
}

const queueDir = (archive: string) => join(hookStateDir(archive), 'queue')
const lockPath = (archive: string) => join(hookStateDir(archive), 'worker.lock')

/** Adds the session to the archive's queue (one file per session: asking twice is one entry),
 * published durably: a hook whose machine dies right after it returned has still queued it. */
export async function enqueue(archive: string, entry: QueueEntry): Promise<void> {
  const dir = queueDir(archive)
  mkdirSync(dir, { recursive: true })
  const file = join(dir, `${entry.sessionId.replace(/[^A-Za-z0-9-]/g, '_')}.json`)
  await publishFile(file, JSON.stringify(entry) + '\n', { replace: true, mode: 0o600, within: hookStateDir(archive) })
}

/** Starts the worker for `archive`, detached from the hook (and from the client's process
 * group), unless one runs already: that one drains the queue. */
export function startWorker(archive: string, env: NodeJS.ProcessEnv = process.env): boolean {
  if (isLocked(lockPath(archive))) return false
  const script = join(dirname(fileURLToPath(import.meta.url)), 'archive-worker.js')
  // node:child_process is loaded only to start a worker: it loads the net and stream modules, a
  // few milliseconds of every hook call.
  const { spawn } = createRequire(import.meta.url)('node:child_process') as typeof import('node:child_process')
  const child = spawn(process.execPath, [script, archive], { detached: true, stdio: 'ignore', env })
  child.on('error', (e) => logLine(hookLogPath(archive), `cannot start the archive worker: ${e.message}`))
  child.unref()
  return true
}

function takeEntries(archive: string): QueueEntry[] {
  const dir = queueDir(archive)
  const out: QueueEntry[] = []
  let names: string[] = []
  try {
    names = readdirSync(dir).filter((n) => n.endsWith('.json'))
  } catch {
    return out
  }
  for (const n of names) {
    const file = join(dir, n)
    try {
      out.push(JSON.parse(readFileSync(file, 'utf8')) as QueueEntry)
    } catch (e) {
      logLine(hookLogPath(archive), `dropped unreadable queue entry ${file}: ${(e as Error).message}`)
    }
    try {
      unlinkSync(file)
    } catch {
      // taken already
    }
  }
  return out
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** The paths to archive for a session: its transcript and, when there is one, its session folder
 * (subagents, tool results). */
function sessionPaths(e: QueueEntry): string[] {
  const folder = join(dirname(e.transcript), basename(e.transcript, '.jsonl'))
  return [e.transcript, ...(existsSync(folder) ? [folder] : [])]
}

function stamp(paths: string[]): string {
  return paths
    .map((p) => {
      try {
        const s = statSync(p)
        return `${s.size}:${s.mtimeMs}`
      } catch {
        return '-'
      }
    })
    .join(' ')
}

export interface DrainOptions {
  env?: NodeJS.ProcessEnv
  /** How long to wait for the client to let a session go (default 10 s). */
  closeWaitMs?: number
  /** After archiving, how long the transcript must stay unchanged before the worker is done
   * (the client may still append; default 1 s). */
  settleMs?: number
}

/**
 * Archives every queued session into `archive`, one worker at a time: returns false at once
 * when another worker holds the archive (it drains what this one would have). Failures go to
 * the log beside the archive; nothing throws.
 */
export async function drainQueue(archive: string, opts: DrainOptions = {}): Promise<boolean> {
  const log = (line: string) => logLine(hookLogPath(archive), line)
  const lock = lockPath(archive)
  if (!tryLock(lock)) return false
  try {
    const { archive: runArchive } = await import('../archive/archive.js')
    const { sessionHolders } = await import('../read/live-sessions.js')
    const env = opts.env ?? process.env
    for (;;) {
      let entries = takeEntries(archive)
      if (entries.length === 0) {
        // Let go, then look once more: an entry queued between the last look and the release
        // found the lock held and started no worker.
        unlock(lock)
        if (readdirSafe(queueDir(archive)).length === 0 || !tryLock(lock)) return true
        continue
      }
      entries = entries.filter((e) => {
        if (existsSync(e.transcript)) return true
        log(`${e.event} ${e.sessionId}: no transcript at ${e.transcript}; nothing archived`)
        return false
      })
      // SessionEnd fires before the client's last writes: wait until it lets the session go.
      const deadline = Date.now() + (opts.closeWaitMs ?? 10_000)
      for (const e of entries.filter((x) => x.waitForClose)) {
        while (Date.now() < deadline && sessionHolders(e.sessionId, env, e.transcript).live.length > 0) await sleep(100)
      }
      const paths = entries.flatMap(sessionPaths)
      for (let pass = 0; paths.length > 0 && pass < 5; pass++) {
        const before = stamp(paths)
        try {
          const r = await runArchive({ paths, to: archive, env })
          for (const f of r.failures) log(`archive: ${f.message}`)
          if (pass === 0 || r.appended + r.added + r.generations > 0)
            log(
              `archived ${entries.map((e) => `${e.event} ${e.sessionId}`).join(', ')}: ${r.added} new, ${r.appended} appended, ${r.generations} new generations, ${r.unchanged} unchanged (${r.elapsedMs} ms)`,
            )
        } catch (e) {
          const msg = (e as Error).message.split('\n')[0]
          log(`archive failed (${entries.map((x) => x.sessionId).join(', ')}): ${msg}`)
          // another archive run holds the root: try again shortly
          if (!/another archive run/.test(msg)) break
          await sleep(1000)
          continue
        }
        await sleep(opts.settleMs ?? 1000)
        if (stamp(paths) === before) break
      }
    }
  } catch (e) {
    log(`archive worker: ${(e as Error).message.split('\n')[0]}`)
    return true
  } finally {
    unlock(lock)
  }
}

function readdirSafe(dir: string): string[] {
  try {
    return readdirSync(dir).filter((n) => n.endsWith('.json'))
  } catch {
    return []
  }
}
