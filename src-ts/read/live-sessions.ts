// Which sessions a running Claude Code holds. While a client runs it keeps a registry record
// `<config dir>/sessions/<pid>.json` ({pid, sessionId, procStart, pidDomain, status, ...}) and
// removes it when it exits. A record counts as live only when its pid exists and that process
// started at the recorded time (`procStart`, clock ticks since boot, field 22 of
// /proc/<pid>/stat): a record left by a crashed client, or whose pid was reused, is stale.
// Rewriting a transcript that a live client appends to would lose its writes, so in-place
// writers refuse such a session and readers warn.
import { readdirSync, readFileSync, readlinkSync, statSync } from 'node:fs'
import { basename, join, resolve, sep } from 'node:path'
import { claudeConfigDirs } from './estate.js'
import { ClaudeJsonlError, EXIT } from '../errors.js'
import { processExists, processStartTicks } from '../durable-lock.cjs'

// The process facts a live session is checked by (a pid and its start time) are the lock files' own.
export { processExists, processStartTicks }

/**
 * One record of Claude Code's live-session registry (`sessions/<pid>.json` in a config folder):
 * the process that has a session open, and the file it came from.
 */
export interface RegistryRecord {
  /** The registry file. */
  registry: string
  pid: number
  sessionId?: string
  procStart?: string
  pidDomain?: string
  status?: string
  kind?: string
  cwd?: string
  version?: string
}

/** A registry record whose process is running (or could not be checked, and is taken as running). */
export interface LiveHolder extends RegistryRecord {
  /** False when the process could not be checked (another machine or pid namespace, no
   * /proc, no recorded start time): treated as live, to be safe. */
  verified: boolean
  /** Why it could not be checked. */
  unverified?: string
}

/** A registry record left behind by a process that is gone: it holds no session. */
export interface StaleRecord extends RegistryRecord {
  /** Why it does not count: the pid is gone, or it now names a process started at another time. */
  reason: 'no-such-process' | 'pid-reused'
}

/** The registry as read now: the live holders, the stale records, and the files that could not be read. */
export interface LiveSessions {
  live: LiveHolder[]
  stale: StaleRecord[]
  /** Registry files that could not be read or parsed (skipped). */
  unreadable: string[]
}

/** This machine and pid namespace as the client writes them in `pidDomain`
 * (`linux:<machine id>:pid:[<namespace inode>]`), or undefined off Linux. */
function ownPidDomain(): { machine?: string; ns: string } | undefined {
  let ns: string
  try {
    ns = readlinkSync('/proc/self/ns/pid')
  } catch {
    return undefined
  }
  for (const f of ['/etc/machine-id', '/var/lib/dbus/machine-id']) {
    try {
      return { machine: readFileSync(f, 'utf8').trim(), ns }
    } catch {
      // try the next
    }
  }
  return { ns }
}

export type RecordState =
  | { live: true; verified: true }
  | { live: true; verified: false; why: string }
  | { live: false; reason: StaleRecord['reason'] }

/** Whether a process with the recorded start time runs now. A record from another machine or
 * pid namespace (a shared config folder, a container) cannot be checked from here: it counts as
 * live, to be safe. */
export function recordState(r: RegistryRecord): RecordState {
  const own = ownPidDomain()
  if (own && r.pidDomain?.startsWith('linux:')) {
    const [, machine, ...ns] = r.pidDomain.split(':')
    if (own.machine !== undefined && machine !== own.machine)
      return { live: true, verified: false, why: 'registered on another machine' }
    if (ns.join(':') !== own.ns) return { live: true, verified: false, why: 'registered in another pid namespace' }
  }
  const started = processStartTicks(r.pid)
  if (started !== undefined) {
    if (r.procStart === undefined) return { live: true, verified: false, why: 'no start time recorded' }
    return started === String(r.procStart) ? { live: true, verified: true } : { live: false, reason: 'pid-reused' }
  }
  if (own) return { live: false, reason: 'no-such-process' } // /proc exists, the pid does not
  return processExists(r.pid)
    ? { live: true, verified: false, why: 'start time not checkable here' }
    : { live: false, reason: 'no-such-process' }
}

function readRecord(path: string): RegistryRecord | undefined {
  const v = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>
  const pid = typeof v.pid === 'number' ? v.pid : Number(v.pid)
  if (!Number.isInteger(pid) || pid <= 0) return undefined
  const str = (k: string) => (typeof v[k] === 'string' ? (v[k] as string) : undefined)
  return {
    registry: path,
    pid,
    sessionId: str('sessionId'),
    procStart: v.procStart === undefined ? undefined : String(v.procStart),
    pidDomain: str('pidDomain'),
    status: str('status'),
    kind: str('kind'),
    cwd: str('cwd'),
    version: str('version'),
  }
}

/** The config folder a transcript lives in (the parent of its `projects` folder), if any. */
export function configDirOf(transcript: string): string | undefined {
  const parts = resolve(transcript).split(sep)
  const at = parts.lastIndexOf('projects')
  return at > 0 ? parts.slice(0, at).join(sep) || sep : undefined
}

/** Every registry record under the config folders (and `extraDirs`), sorted into live and stale. */
export function liveSessions(env: NodeJS.ProcessEnv = process.env, extraDirs: string[] = []): LiveSessions {
  const out: LiveSessions = { live: [], stale: [], unreadable: [] }
  for (const dir of new Set([...claudeConfigDirs(env), ...extraDirs.map((d) => resolve(d))])) {
    const sessions = join(dir, 'sessions')
    let names: string[]
    try {
      names = readdirSync(sessions)
    } catch {
      continue
    }
    for (const name of names.sort()) {
      if (!/^\d+\.json$/.test(name)) continue
      const path = join(sessions, name)
      let r: RegistryRecord | undefined
      try {
        r = readRecord(path)
      } catch {
        r = undefined
      }
      if (!r) {
        out.unreadable.push(path)
        continue
      }
      const s = recordState(r)
      if (s.live) out.live.push({ ...r, verified: s.verified, ...(s.verified ? {} : { unverified: s.why }) })
      else out.stale.push({ ...r, reason: s.reason })
    }
  }
  return out
}

/** The live processes holding `sessionId`, and the stale records naming it; the registry of
 * `transcript`'s own config folder is read too, whatever $CLAUDE_CONFIG_DIR says. */
export function sessionHolders(
  sessionId: string,
  env: NodeJS.ProcessEnv = process.env,
  transcript?: string,
): LiveSessions {
  const own = transcript ? configDirOf(transcript) : undefined
  const all = liveSessions(env, own ? [own] : [])
  const wanted = sessionId.toLowerCase()
  const mine = <T extends RegistryRecord>(rs: T[]) => rs.filter((r) => r.sessionId?.toLowerCase() === wanted)
  return { live: mine(all.live), stale: mine(all.stale), unreadable: all.unreadable }
}

/** One line naming who holds a session, for refusals and warnings. */
export function describeHolders(holders: LiveHolder[]): string {
  return holders
    .map(
      (h) =>
        `pid ${h.pid}${h.verified ? '' : ` (${h.unverified}; remove the record if that process is gone)`}${h.status ? `, ${h.status}` : ''} (${h.registry})`,
    )
    .join('; ')
}

/** Milliseconds since the file was last modified (negative when its clock is ahead). */
export function msSinceModified(path: string, now = Date.now()): number {
  return now - statSync(path).mtimeMs
}

export interface ClosedCheckOptions {
  /** A file modified more recently than this is refused (default 10 s). */
  stableForMs?: number
  env?: NodeJS.ProcessEnv
  /** The flag naming the stability window, for the refusal text. */
  stableFlag?: string
}

export const DEFAULT_STABLE_FOR_MS = 10_000

/**
 * Refuses (throws a ClaudeJsonlError, exit 1) a transcript that a live Claude Code holds or
 * that was modified within the stability window; returns the stale registry records that were
 * ignored. The session is the file's name.
 */
export function checkSessionClosed(path: string, opts: ClosedCheckOptions = {}): StaleRecord[] {
  const sessionId = basename(path, '.jsonl')
  const holders = sessionHolders(sessionId, opts.env, path)
  if (holders.live.length > 0) {
    throw new ClaudeJsonlError(
      `${path}: Claude Code is running this session (${describeHolders(holders.live)}); close it first (--confirm-session-closed does not override a live process)`,
      EXIT.flagged,
      path,
    )
  }
  const window = opts.stableForMs ?? DEFAULT_STABLE_FOR_MS
  const age = msSinceModified(path)
  // A window of 0 means no window: a file written this very millisecond has an mtime with
  // sub-millisecond digits ahead of Date.now(), and must not read as "modified in the future".
  if (window > 0 && age < window) {
    throw new ClaudeJsonlError(
      `${path}: modified ${Math.max(0, Math.round(age / 1000))} s ago, within the ${window / 1000} s stability window (is it still being written?); wait, or pass ${opts.stableFlag ?? '--stable-for'} SECONDS`,
      EXIT.flagged,
      path,
    )
  }
  return holders.stale
}
