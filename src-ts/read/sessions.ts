// Listing sessions: who, where, what and when, read from the head and tail of each transcript
// (the way Claude Code's own resume picker reads its metadata, which it re-appends at the end),
// so that choosing what to list costs about half a megabyte per session at most. Only the
// sessions listed are then read whole, natively, for exact message counts.
import { resolve, sep } from 'node:path'
import native from '../native.js'
import type { TranscriptFactsInfo } from '../native.js'
import { discoverEstate, EstateOptions, resolveRoots, warnToStderr, type Roots } from './estate.js'
import { archivedAt, transcriptBytesAt } from '../archive/in-memory.js'
import { fromNative, inputError, usageError } from '../errors.js'
import { dayFormatter, parseDay } from './days.js'

/** Files up to this size are read whole (their message count is exact); larger ones in a head and
 * a tail window (the core's rule). */
export const WHOLE_BYTES = native.TRANSCRIPT_WHOLE_BYTES
/** Allowance for a record timestamp later than its file's mtime (clock skew, restored files). */
const MTIME_SKEW_MS = 86_400_000

/**
 * Where a session's title came from: the title a person set, the one the client generated, a
 * summary record, or the first prompt.
 */
export type TitleSource = 'custom-title' | 'ai-title' | 'summary' | 'first-prompt'

/** What the head and tail (and, for the count, samples) of one transcript say. */
export interface TranscriptFacts {
  sessionId: string | null
  cwd: string | null
  entrypoint: string | null
  version: string | null
  title: string | null
  titleSource: TitleSource | null
  customTitle: string | null
  aiTitle: string | null
  summary: string | null
  firstPrompt: string | null
  /** Timestamp of the last record that has one, in the bytes read. */
  lastTimestamp: string | null
  /** user + assistant records: exact when `complete`, else estimated from the bytes read. */
  messages: number
  /** True when the whole file was read (messages is then exact). */
  complete: boolean
  bytesRead: number
  /** Why the file is no transcript (its head holds no record and line 1 is no JSON object), else null. */
  problem: string | null
}

/**
 * One session as `listSessions` shows it: id, path, project, working directory, title, last
 * activity, sizes, message count and the client that wrote it.
 */
export interface SessionSummary {
  sessionId: string
  path: string
  /** The project folder's name (Claude Code's lossy encoding of the cwd: never decoded). */
  project: string
  /** Working directory read from the records (the first one in the file); null when none has one. */
  cwd: string | null
  title: string | null
  titleSource: TitleSource | null
  /** ISO time of the last record with a timestamp, else of the file's mtime. */
  lastActivity: string
  lastActivityFrom: 'record' | 'mtime'
  /** Bytes of the main transcript. */
  size: number
  subagentCount: number
  /** Bytes of its subagent transcripts, apart from `size`. */
  subagentSize: number
  /** user + assistant records: exact when messageCountExact, else extrapolated from the bytes read. */
  messageCount: number
  messageCountExact: boolean
  entrypoint: string | null
  version: string | null
  /** A version-5 uuid: the session was spawned programmatically (SDK, teleport, Remote Control). */
  isV5: boolean
}

/** Which sessions `listSessions` lists: how many, since when, and under which working directory. */
export interface SessionsOptions extends EstateOptions {
  /** How many sessions (most recent first); default 20. Infinity lists all. */
  recent?: number
  /** Only sessions active today (local day in `timezone`). */
  today?: boolean
  /** Only sessions active on or after this day (YYYY-MM-DD or YYYYMMDD, in `timezone`). */
  since?: string
  /** Only sessions whose cwd is this path or inside it (the rule: docs/commands/sessions.md). */
  project?: string
  /** IANA time zone for days (default: the system's). */
  timezone?: string
  /** The current time in ms (tests). */
  now?: number
}

/**
 * The result of `listSessions`: the roots, the filters applied, what was read, and the sessions,
 * most recent first.
 */
export interface SessionListing {
  roots: string[]
  /** What chose the roots: explicit paths, --projects, $CLAUDE_CONFIG_DIR or ~/.claude (home). */
  rootsSource: Roots['source']
  filters: { recent: number | null; today: boolean; since: string | null; project: string | null; timezone: string }
  scope: {
    /** Sessions found under the roots (subagent files excluded). */
    sessions: number
    /** Subagent files found. */
    subagentFiles: number
    /** Transcripts opened, and bytes read from them. */
    filesRead: number
    bytesRead: number
    /** Sessions not opened because their mtime is too old for --since/--today. */
    prunedByMtime: number
    /** Files found by walking a folder that are not transcripts (line 1 is no JSON object), left out. */
    skipped: { path: string; problem: string }[]
  }
  sessions: SessionSummary[]
}

// ---------------------------------------------------------------- reading bytes

/**
 * The title rule: a session's title texts in the order they win (custom-title, then the last
 * ai-title, then a legacy summary record, then the first human prompt). `sessions` shows the
 * first non-empty one (the core picks it: `title`, `titleSource`); `teleport-id --title` matches
 * any of them.
 */
export function titleFields(
  f: Pick<TranscriptFacts, 'customTitle' | 'aiTitle' | 'summary' | 'firstPrompt'>,
): Array<[TitleSource, string | null]> {
  return [
    ['custom-title', f.customTitle],
    ['ai-title', f.aiTitle],
    ['summary', f.summary],
    ['first-prompt', f.firstPrompt],
  ]
}

/** The core's facts with absent values as null, as `TranscriptFacts` promises. */
export function factsFromNative(x: TranscriptFactsInfo): TranscriptFacts {
  return {
    sessionId: x.sessionId ?? null,
    cwd: x.cwd ?? null,
    entrypoint: x.entrypoint ?? null,
    version: x.version ?? null,
    title: x.title ?? null,
    titleSource: x.titleSource ?? null,
    customTitle: x.customTitle ?? null,
    aiTitle: x.aiTitle ?? null,
    summary: x.summary ?? null,
    firstPrompt: x.firstPrompt ?? null,
    lastTimestamp: x.lastTimestamp ?? null,
    messages: x.messages,
    complete: x.complete,
    bytesRead: x.bytesRead,
    problem: x.problem ?? null,
  }
}

/**
 * Head-and-tail facts of one transcript (`read::transcript_facts` in the core), read
 * synchronously: a few hundred kilobytes at most. Throws on I/O errors. With `counts: false`
 * the records are not counted (`messages` is 0 and `problem` null): counting them is most of the
 * cost, and a reader of titles, cwd and times needs none of it.
 */
export function transcriptFactsSync(path: string, size: number, opts: { counts?: boolean } = {}): TranscriptFacts {
  const counts = opts.counts ?? true
  // an archived transcript: its bytes decoded into memory (no file is at its path)
  if (archivedAt(path)) return factsFromNative(native.transcriptFactsOf(transcriptBytesAt(path), counts))
  try {
    return factsFromNative(native.transcriptFacts(path, size, counts))
  } catch (e) {
    throw fromNative(e)
  }
}

// ---------------------------------------------------------------- the listing

/**
 * A session's last activity, in ms: the timestamp of its last record that has one, else (no
 * record has a timestamp) the file's mtime. `sessions` orders by it and `compress --all
 * --older-than/--newer-than` selects by it, so a copied estate (fresh mtimes) keeps its ages.
 */
export function lastActivityOf(facts: Pick<TranscriptFacts, 'lastTimestamp'>, mtimeMs: number): number {
  return facts.lastTimestamp !== null ? Date.parse(facts.lastTimestamp) : mtimeMs
}

/** lastActivityOf for a file, read head and tail; the mtime when it cannot be read. */
export function lastActivityMs(path: string, size: number, mtimeMs: number): number {
  try {
    return lastActivityOf(transcriptFactsSync(path, size), mtimeMs)
  } catch {
    return mtimeMs
  }
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** Character 15 of the uuid (the version nibble) is '5': a name-based, programmatically made id. */
export function isV5Uuid(id: string): boolean {
  return UUID_RE.test(id) && id[14] === '5'
}

/** How Claude Code names a project folder: every character but ASCII letters and digits becomes '-'. */
export function encodeProjectDir(cwd: string): string {
  return cwd.replace(/[^a-zA-Z0-9]/g, '-')
}

/**
 * The --project rule. A folder name (starts with '-', no '/') matches that project folder exactly.
 * Otherwise PATH is resolved against the current directory and matches sessions whose cwd, read
 * from their records, is PATH or lies inside it; a session whose records carry no cwd matches when
 * its folder is PATH encoded the way Claude Code encodes it (encoding forward is exact; the folder
 * name is never decoded, since `/a/b-c` and `/a/b/c` encode alike).
 */
export function projectMatcher(project: string): (s: { cwd: string | null; project: string }) => boolean {
  if (project.startsWith('-') && !project.includes('/') && !project.includes('\\')) return (s) => s.project === project
  const abs = resolve(project)
  const encoded = encodeProjectDir(abs)
  const under = abs.endsWith(sep) ? abs : abs + sep
  return (s) => (s.cwd !== null ? s.cwd === abs || s.cwd.startsWith(under) : s.project === encoded)
}

/**
 * Lists sessions, most recent activity first. Reads the head and tail of each transcript only,
 * and only as many transcripts as needed: files are taken newest-mtime first and reading stops
 * once no remaining file can be among the `recent` most recent (a record is never stamped later
 * than its file's mtime; a day is allowed for clock skew). Subagent transcripts are counted
 * against their session, never listed. Throws a ClaudeJsonlError: exit 3 for a missing root,
 * exit 2 for a bad date, time zone or count. Nothing is written.
 */
export async function listSessions(opts: SessionsOptions = {}): Promise<SessionListing> {
  const recent = opts.recent ?? 20
  if (!(recent === Infinity || (Number.isInteger(recent) && recent > 0)))
    throw usageError(`recent expects a positive whole number, got '${opts.recent}'`)
  // The system's zone and the day formatter start ICU, which costs more than the rest of a small
  // listing: both are made only when a day or the zone is used (a given zone is checked at once).
  let zone = opts.timezone
  const timezone = () => (zone ??= Intl.DateTimeFormat().resolvedOptions().timeZone)
  let dayOf = opts.timezone !== undefined ? dayFormatter(opts.timezone) : undefined
  const day = (ms: number) => (dayOf ??= dayFormatter(timezone()))(ms)
  const now = opts.now ?? Date.now()
  const since = opts.since !== undefined ? parseDay('--since', opts.since) : undefined
  const today = opts.today ? day(now) : undefined
  const fromDay = [since, today]
    .filter((d): d is string => d !== undefined)
    .sort()
    .pop()
  const matchProject = opts.project !== undefined ? projectMatcher(opts.project) : undefined

  const { roots, source: rootsSource } = resolveRoots(opts)
  const files = await discoverEstate(opts)
  const mains = files.filter((f) => f.kind === 'session')
  const subs = files.filter((f) => f.kind === 'subagent')
  // Days start at the earliest offset any zone has (UTC+14); two days of margin as in `stats`.
  const minMtime = fromDay ? Date.parse(`${fromDay}T00:00:00Z`) - 2 * 86_400_000 : -Infinity
  const candidates = mains.filter((f) => f.mtimeMs >= minMtime).sort((a, b) => b.mtimeMs - a.mtimeMs)
  const prunedByMtime = mains.length - candidates.length

  const found: Array<SessionSummary & { ms: number }> = []
  const skipped: { path: string; problem: string }[] = []
  const named = new Set(rootsSource === 'paths' ? roots : [])
  let filesRead = 0
  let bytesRead = 0
  const BATCH = 16
  for (let i = 0; i < candidates.length; i += BATCH) {
    if (found.length >= recent) {
      found.sort((a, b) => b.ms - a.ms)
      found.length = Math.min(found.length, recent)
      if (candidates[i].mtimeMs + MTIME_SKEW_MS < found[found.length - 1].ms) break
    }
    const batch = candidates.slice(i, i + BATCH)
    // Synchronous reads: for a few hundred kilobytes a file they beat a trip through the thread
    // pool by far; the event loop gets a turn between batches.
    if (i > 0) await new Promise((r) => setImmediate(r))
    const facts = batch.map((f) => {
      try {
        return transcriptFactsSync(f.path, f.size)
      } catch (e) {
        // an archived one that does not decode (a damaged frame) is named; a file vanished or
        // unreadable since the walk is left out
        if (archivedAt(f.path)) (opts.warn ?? warnToStderr)(`${(e as Error).message} (skipped)`)
        return undefined
      }
    })
    batch.forEach((f, j) => {
      const x = facts[j]
      if (!x) return
      bytesRead += x.bytesRead
      if (x.problem) {
        // A file named on the command line must be a transcript; one found by walking is left out.
        if (named.has(f.path)) throw inputError(f.path, x.problem)
        skipped.push({ path: f.path, problem: x.problem })
        return
      }
      filesRead++
      const sessionId = f.sessionId ?? x.sessionId ?? ''
      const fromRecord = x.lastTimestamp !== null
      const ms = lastActivityOf(x, f.mtimeMs)
      const s = {
        sessionId,
        path: f.path,
        project: f.project,
        cwd: x.cwd,
        title: x.title,
        titleSource: x.titleSource,
        lastActivity: new Date(ms).toISOString(),
        lastActivityFrom: fromRecord ? ('record' as const) : ('mtime' as const),
        size: f.size,
        subagentCount: 0,
        subagentSize: 0,
        messageCount: x.messages,
        messageCountExact: x.complete,
        entrypoint: x.entrypoint,
        version: x.version,
        isV5: isV5Uuid(sessionId),
        ms,
      }
      if (fromDay && day(ms) < fromDay) return
      if (matchProject && !matchProject(s)) return
      found.push(s)
    })
  }
  found.sort((a, b) => b.ms - a.ms || (a.sessionId < b.sessionId ? -1 : 1))
  const sessions = found.slice(0, recent === Infinity ? found.length : recent).map(({ ms: _ms, ...s }) => s)
  // Exact message counts for the listed sessions that were read only in part: one native pass
  // over just those files (about 1 GB/s), instead of reading every transcript of the estate.
  const partial = sessions.filter((x) => !x.messageCountExact)
  if (partial.length > 0) {
    const onDisk = partial.filter((x) => !archivedAt(x.path))
    const scan = await native.scanEstate(
      onDisk.map((x) => x.path),
      'full',
    )
    const byPath = new Map<string, { types: { name: string; count: number }[] } | undefined>(
      scan.files(true).map((f) => [f.path, f.summary ?? undefined]),
    )
    scan.release()
    // an archived one: its bytes decoded into memory, one session at a time
    for (const x of partial)
      if (archivedAt(x.path))
        try {
          byPath.set(x.path, native.scanBuffer(transcriptBytesAt(x.path), 'full').summary())
        } catch {
          // undecodable since it was listed: its count stays the partial one
        }
    for (const x of partial) {
      const f = byPath.get(x.path)
      if (!f) continue
      x.messageCount = f.types
        .filter((t) => t.name === 'user' || t.name === 'assistant')
        .reduce((a, t) => a + t.count, 0)
      x.messageCountExact = true
      bytesRead += x.size
    }
  }
  // Subagents of the listed sessions: new-layout files name their session in their path, old-layout
  // `agent-*.jsonl` files beside the sessions in their records (read for listed projects only).
  const listed = new Map(sessions.map((s) => [`${s.project}\0${s.sessionId}`, s]))
  const projectsListed = new Set(sessions.map((s) => s.project))
  for (const sub of subs) {
    if (!projectsListed.has(sub.project)) continue
    const s = listed.get(`${sub.project}\0${sub.sessionId ?? native.subagentParentSession(sub.path) ?? ''}`)
    if (!s) continue
    s.subagentCount++
    s.subagentSize += sub.size
  }
  return {
    roots,
    rootsSource,
    filters: {
      recent: recent === Infinity ? null : recent,
      today: !!opts.today,
      since: since ?? null,
      project: opts.project ?? null,
      get timezone() {
        return timezone()
      },
    },
    scope: {
      sessions: mains.length - skipped.length,
      subagentFiles: subs.length,
      filesRead,
      bytesRead,
      prunedByMtime,
      skipped,
    },
    sessions,
  }
}
