// An archive's contents and history: the files it holds at their latest generation (damaged
// store files named apart), every generation of every session, and the files as an earlier
// run left them (`--generation`, `--as-of`), for restore and for the readers alike. The work
// is native (crate/core/src/archive/history.rs); this module owns the selection rules.
import { resolve } from 'node:path'
import native from '../native.js'
import type { ArchiveListing, ArchivedFile } from '#native'
import { ClaudeJsonlError, EXIT, fromNative, inputError, usageError } from '../errors.js'
import { isArchiveRoot } from './view.js'

/** Which state of an archive to read: the latest (neither set), generation N of each session
 * (`generation`, 1 the first archived), or as the last run at or before a time left it (`asOf`).
 * `sessions` (uuids or unique prefixes) or `all` says whose. */
export interface ArchiveState {
  sessions?: string[]
  all?: boolean
  generation?: number
  asOf?: string
}

/** The latest generation of every archived file (transcripts, session files and, with
 * `config: true`, config-folder files). A damaged store file is an error (see
 * `listArchiveAll`, which names it apart and lists the rest). */
export function listArchive(root: string): ArchivedFile[] {
  const abs = resolve(root)
  if (!isArchiveRoot(abs)) throw inputError(abs, 'not an archive (no archive index or archived transcript in it)')
  try {
    return native.archiveList(abs)
  } catch (e) {
    throw fromNative(e)
  }
}

/** Every readable file of an archive at its latest generation, each damaged store file named
 * apart (its files cannot be read; the others can), and each file the archive index records
 * that no store file holds (a lost stream), or holds only at an earlier state. */
export function listArchiveAll(root: string): ArchiveListing {
  const abs = resolve(root)
  if (!isArchiveRoot(abs)) throw inputError(abs, 'not an archive (no archive index or archived transcript in it)')
  try {
    return native.archiveListAll(abs)
  } catch (e) {
    throw fromNative(e)
  }
}

/** One generation of a session's transcript, as `restore --list` shows it. */
export interface GenerationInfo {
  /** 1 for the first archived. */
  generation: number
  /** When the run that archived it started (ISO 8601); for streams written before runs recorded
   * it, the newest source mtime that run stored (`archivedAtRecorded: false`). */
  archivedAt: string
  archivedAtRecorded: boolean
  bytes: number
  sha256: string
  /** A compressed candidate of ours (our compact pair in it). */
  compressed: boolean
  /** The generation this one replaced (null for the first). */
  replaced: number | null
}

/** A session's history in an archive: every generation of its transcript. */
export interface SessionHistory {
  sessionId: string
  project: string
  storePath: string
  /** Its transcript is gone from the estate it was archived from. */
  deleted: boolean
  /** Files its stream holds (transcript, subagents, session files). */
  files: number
  generations: GenerationInfo[]
}

/** The sessions of an archive (all, or those `refs` name) with every generation of their
 * transcripts (format 2 streams; each generation decoded to tell a compressed candidate). */
export async function archiveHistory(root: string, refs: string[] = []): Promise<SessionHistory[]> {
  const files = listArchive(root).filter((f) => !f.config)
  const chosen = refs.length > 0 ? selectSessions(files, refs) : files
  const transcripts = chosen.filter((f) => f.sessionId && f.path === `${f.sessionId}.jsonl`)
  format2(transcripts)
  const streams = await historyOf(root, transcripts, true)
  return transcripts.map((t) => {
    const h = streams.get(t.storePath)!
    const file = h.files.find((f) => f.key === t.key)!
    const time = (k: number) => segmentTime(h, k)
    return {
      sessionId: t.sessionId!,
      project: t.project,
      storePath: t.storePath,
      deleted: file.deleted === true,
      files: h.files.length,
      generations: file.generations.map((g) => ({
        generation: g.generation,
        archivedAt: new Date(time(g.fromSegment).ms).toISOString(),
        archivedAtRecorded: time(g.fromSegment).recorded,
        bytes: g.bytes,
        sha256: g.sha256,
        compressed: g.compressed === true,
        replaced: g.generation > 1 ? g.generation - 1 : null,
      })),
    }
  })
}

type History = Awaited<ReturnType<typeof native.archiveHistory>>[number]

/** The histories of the streams holding `files`, by store path (an unreadable one is an error
 * naming it). */
async function historyOf(root: string, files: ArchivedFile[], scan: boolean): Promise<Map<string, History>> {
  const paths = [...new Set(files.map((f) => f.storePath))]
  let all
  try {
    all = await native.archiveHistory(resolve(root), paths, scan)
  } catch (e) {
    throw fromNative(e)
  }
  for (const h of all) if (h.error) throw new ClaudeJsonlError(h.error, EXIT.input)
  return new Map(all.map((h) => [h.storePath, h]))
}

/** When segment `k` of a stream was archived: the run's recorded time, else the newest source
 * mtime it stored (a lower bound). */
function segmentTime(h: History, k: number): { ms: number; recorded: boolean } {
  const s = h.segments[k]
  const at = s.archivedAt ? Date.parse(s.archivedAt) : NaN
  return Number.isNaN(at) ? { ms: s.newestMtimeMs, recorded: false } : { ms: at, recorded: true }
}

/** Generations are read from format-2 streams; a format-1 archive keeps them as store sessions. */
function format2(files: ArchivedFile[]) {
  const old = files.find((f) => !f.storePath.endsWith('.v2.zst'))
  if (old)
    throw new ClaudeJsonlError(
      `${old.storePath}: a format-1 archive: --list, --generation and --as-of read format-2 streams (its generations are store sessions: new Store({ root }).list())`,
      EXIT.input,
    )
}

/** The files to restore for `--generation`/`--as-of`: each chosen session's stream read as of the
 * run that left the wanted state. Every session is checked before anything is written: a
 * generation that does not exist or a time before a session's first run is one line per session
 * naming what exists (exit 3). */
export async function filesAsOf(root: string, files: ArchivedFile[], opts: ArchiveState): Promise<ArchivedFile[]> {
  const asOf = opts.asOf === undefined ? undefined : parseAsOf(opts.asOf)
  const sessions = opts.all ? files : selectSessions(files, opts.sessions!)
  // --all --as-of: every stream, lone files included; by session: each session's own stream
  const anchors = opts.all
    ? [...new Map(sessions.map((f) => [f.storePath, f])).values()]
    : sessions.filter((f) => f.sessionId && f.path === `${f.sessionId}.jsonl`)
  format2(anchors)
  const streams = await historyOf(root, anchors, false)
  const errors: string[] = []
  const points: { file: ArchivedFile; segments: number }[] = []
  for (const a of anchors) {
    const h = streams.get(a.storePath)!
    const who = a.sessionId ? `session ${a.sessionId}` : a.key
    const file = h.files.find((f) => f.key === a.key)!
    const gens = file.generations
    if (opts.generation !== undefined) {
      const g = gens.find((x) => x.generation === opts.generation)
      if (!g) errors.push(`${who}: no generation ${opts.generation} (it has ${rangeOf(gens.length)})`)
      else points.push({ file: a, segments: g.untilSegment })
      continue
    }
    const n = h.segments.filter((_, k) => segmentTime(h, k).ms <= asOf!).length
    const first = new Date(segmentTime(h, 0).ms).toISOString()
    if (n > 0) points.push({ file: a, segments: n })
    else if (!opts.all)
      errors.push(`${who}: ${opts.asOf} is before its first archive run (${first}; ${rangeOf(gens.length)})`)
  }
  if (opts.all && asOf !== undefined && points.length === 0 && anchors.length > 0) {
    const first = Math.min(...[...streams.values()].map((h) => segmentTime(h, 0).ms))
    errors.push(`${opts.asOf} is before the archive's first run (${new Date(first).toISOString()})`)
  }
  if (errors.length > 0) throw new ClaudeJsonlError(errors.join('\n'), EXIT.input)
  const out: ArchivedFile[] = []
  for (const p of points) {
    try {
      out.push(...native.archiveStreamAt(resolve(root), p.file.storePath, p.segments).filter((f) => !f.config))
    } catch (e) {
      throw fromNative(e)
    }
  }
  return out
}

const rangeOf = (n: number) => (n === 1 ? 'generation 1 only' : `generations 1 to ${n}`)

/** An `--as-of` time in ms (a usage error when it is not a date). */
export function parseAsOf(text: string): number {
  const ms = Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(text) ? `${text}T00:00:00Z` : text)
  if (Number.isNaN(ms))
    throw usageError(`restore: --as-of ${text} is not a date or time (for example 2026-06-01 or 2026-06-01T12:00:00Z)`)
  return ms
}

/** Which archived transcripts a list of session refs names (exit 2 when a prefix is ambiguous,
 * exit 3 when nothing matches). */
export function selectSessions(files: ArchivedFile[], refs: string[]): ArchivedFile[] {
  const out = new Set<ArchivedFile>()
  const sessions = [
    ...new Set(
      files.filter((f) => f.sessionId && f.path === `${f.sessionId}.jsonl`).map((f) => `${f.project}/${f.sessionId}`),
    ),
  ]
  for (const ref of refs) {
    const want = ref.toLowerCase()
    const exact = sessions.filter((s) => s.split('/')[1].toLowerCase() === want)
    const matches = exact.length > 0 ? exact : sessions.filter((s) => s.split('/')[1].toLowerCase().startsWith(want))
    if (matches.length === 0)
      throw new ClaudeJsonlError(
        `no archived session matches '${ref}' (${sessions.length} sessions in the archive)`,
        EXIT.input,
      )
    if (matches.length > 1)
      throw usageError(
        `'${ref}' matches ${matches.length} archived sessions: ${matches.slice(0, 10).join(', ')}${matches.length > 10 ? ', …' : ''}`,
      )
    const [project, sid] = matches[0].split('/')
    for (const f of files) if (f.project === project && f.sessionId === sid) out.add(f)
  }
  return files.filter((f) => out.has(f))
}

/** Where a reader's warnings about an archive go: one line each. */
export type ArchiveWarn = (line: string) => void

/**
 * The archived transcripts a reader (`stats`, `doctor`, …) reads from an archive root: the
 * latest generation of every file, a damaged store file and a file no store file holds each
 * named through `warn` and left out; or the state `asOf` names (every stream as the last run at
 * or before it left it; a time before the archive's first run is an error, exit 3); or
 * generation N of every session that has one (`generation`; none has it: exit 3, naming the most
 * any session has). Config-folder files are not transcripts and are left out.
 */
export async function readerFiles(
  root: string,
  state: Pick<ArchiveState, 'generation' | 'asOf'>,
  warn: ArchiveWarn,
): Promise<ArchivedFile[]> {
  const listing = listArchiveAll(root)
  for (const d of listing.damaged) warn(`${d.error} (skipped)`)
  for (const l of listing.lacking) if (!l.config) warn(l.error)
  const files = listing.files.filter((f) => !f.config)
  if (state.generation !== undefined && state.asOf !== undefined)
    throw usageError('give --generation or --as-of, not both')
  if (state.asOf !== undefined) return filesAsOf(root, files, { all: true, asOf: state.asOf })
  if (state.generation === undefined) return files
  const transcripts = files.filter((f) => f.sessionId && f.path === `${f.sessionId}.jsonl`)
  format2(transcripts)
  const have = transcripts.filter((f) => f.generations >= state.generation!)
  if (have.length === 0) {
    const most = Math.max(0, ...transcripts.map((f) => f.generations))
    throw new ClaudeJsonlError(
      `${resolve(root)}: no session has generation ${state.generation} (the most any of its ${transcripts.length} sessions has: ${most})`,
      EXIT.input,
    )
  }
  return filesAsOf(root, files, { sessions: have.map((f) => f.sessionId!), generation: state.generation })
}
