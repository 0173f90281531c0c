// The estate archive: every session and subagent transcript mirrored into a session
// store root, incrementally and byte-exact; restore; and the read view through which every
// estate reader (stats, show, sessions, find, doctor) reads an archive root unchanged.
// The work is native (crate/core/src/archive); this module owns policy: roots, targets, selection.
import { basename, dirname, resolve, sep } from 'node:path'
import native from '../native.js'
import type { ProgressSnapshot } from '../native.js'
import type { ArchiveListing, ArchiveSummary, ArchivedFile } from '#native'
import { resolveRoots } from '../read/estate.js'
import type { EstateOptions } from '../read/estate.js'
import { ClaudeJsonlError, EXIT, fromNative, inputError, usageError } from '../errors.js'
import { isArchiveRoot } from './view.js'
import { insideClaudeTree } from '../claude-tree.js'

export type { ArchivedFile, ArchiveListing }

/** What `archive` copies (the estate, as for every read command) and where to. */
export interface ArchiveOptions extends EstateOptions {
  /** The archive root (created when missing). */
  to: string
  /** Also archive the files Claude Code's cleanup deletes from the config folder outside
   * `projects/` (file-history, todos, tasks, session-env, debug, plans, shell-snapshots,
   * paste-cache); each estate root must then be a config folder's `projects/`. */
  includeConfig?: boolean
  /** The archive format of a new root: 2 (default: one compressed stream per session) or 1 (one
   * store file per transcript, readable by older versions and by `Store`). A root that already
   * holds an archive keeps its own format. */
  format?: 1 | 2
}

/** One run: what the native run counted (files, unchanged, appended, added, generations,
 * touched, bytesIn, bytesStored, failures), plus its scope and ratios. */
export interface ArchiveReport extends Omit<
  ArchiveSummary,
  'archivedFiles' | 'archivedConfigFiles' | 'archivedBytes' | 'storeBytes' | 'format'
> {
  /** `config`: the config folders archived too (`includeConfig`), else empty. */
  scope: { roots: string[]; source: string; to: string; config: string[] }
  /** bytesIn / bytesStored (null when nothing was stored). */
  ratio: number | null
  /** The whole archive after the run (latest generations' bytes; store bytes of all; the
   * format it is written in); `configFiles` of `files` are config-folder files. */
  archive: {
    files: number
    configFiles: number
    bytes: number
    storeBytes: number
    ratio: number | null
    format: number
  }
  elapsedMs: number
}

function withProgress<T>(
  onProgress: ((p: ProgressSnapshot) => void) | undefined,
  run: (p: InstanceType<typeof native.ScanProgress>) => Promise<T>,
): Promise<T> {
  const progress = new native.ScanProgress()
  const timer = onProgress ? setInterval(() => onProgress(progress.snapshot()), 100) : undefined
  return run(progress).finally(() => {
    if (timer) clearInterval(timer)
    onProgress?.(progress.snapshot())
  })
}

/** Mirrors every transcript under the estate roots (same rules as `stats`) into `opts.to`. */
export async function archive(opts: ArchiveOptions): Promise<ArchiveReport> {
  const started = performance.now()
  const roots = resolveRoots(opts)
  const to = resolve(opts.to)
  for (const r of roots.roots) {
    if (to === r || to.startsWith(r + sep)) throw usageError(`archive: --to ${to} is inside the estate root ${r}`)
  }
  const config = opts.includeConfig ? roots.roots.map(configFolderOf) : []
  let s
  try {
    s = await withProgress(opts.onProgress, (p) =>
      native.archiveEstate(roots.roots, to, p, new Date().toISOString(), config, opts.format),
    )
  } catch (e) {
    throw fromNative(e)
  }
  const ratio = (a: number, b: number) => (b > 0 ? a / b : null)
  const { archivedFiles, archivedConfigFiles, archivedBytes, storeBytes, format, ...counts } = s
  return {
    scope: { roots: roots.roots, source: roots.source, to, config },
    ...counts,
    ratio: ratio(s.bytesIn, s.bytesStored),
    archive: {
      files: archivedFiles,
      configFiles: archivedConfigFiles,
      bytes: archivedBytes,
      storeBytes,
      ratio: ratio(archivedBytes, storeBytes),
      format,
    },
    elapsedMs: Math.round(performance.now() - started),
  }
}

/** The config folder whose `projects/` folder `projects` is (exit 2 when it is not one). */
function configFolderOf(projects: string): string {
  if (basename(projects) !== 'projects')
    throw usageError(
      `--include-config: ${projects} is not the projects folder of a Claude config folder (its config files are found beside it)`,
    )
  return dirname(projects)
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

/** What `restore` writes back from an archive, and where. */
export interface RestoreOptions {
  /** Session uuids (or unique prefixes): each session's transcript and its subagents. */
  sessions?: string[]
  /** Everything in the archive. */
  all?: boolean
  /** The folder to restore into, laid out like a projects folder. */
  to: string
  /** Allow a target inside a `.claude` tree (off by default: Claude Code owns it). */
  intoClaudeDir?: boolean
  /** Also restore archived config-folder files (the named sessions' own, or all with `all`)
   * into the config folder that `to` is the `projects/` folder of. */
  includeConfig?: boolean
  /** Environment used to find the `.claude` trees a target must stay out of (defaults to process.env). */
  env?: NodeJS.ProcessEnv
  /** Called about ten times a second while files are restored, and once at the end. */
  onProgress?: (p: ProgressSnapshot) => void
  /** Restore generation N (1 is the first archived) of each named session's transcript, with its
   * subagents and session files as they were while it was the latest (format 2). */
  generation?: number
  /** Restore each session as the last archive run at or before this time left it (an ISO 8601
   * date or time; a date alone is its midnight UTC). With `all`, every session archived by then. */
  asOf?: string
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
async function filesAsOf(root: string, files: ArchivedFile[], opts: RestoreOptions): Promise<ArchivedFile[]> {
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
function parseAsOf(text: string): number {
  const ms = Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(text) ? `${text}T00:00:00Z` : text)
  if (Number.isNaN(ms))
    throw usageError(`restore: --as-of ${text} is not a date or time (for example 2026-06-01 or 2026-06-01T12:00:00Z)`)
  return ms
}

/**
 * One restore: each file with where it went and whether it was written, already identical, or
 * failed (with why), and the totals.
 */
export interface RestoreReport {
  to: string
  /** The config folder config-folder files went into (`includeConfig`), else null. */
  configTo: string | null
  files: {
    key: string
    target: string
    status: 'written' | 'identical' | 'failed'
    bytes: number
    /** A config-folder file (`includeConfig`). */
    config: boolean
    error?: string
  }[]
  /** Config-folder files the selection holds that were not restored (no `includeConfig`). */
  configSkipped: number
  /** Files restored as an earlier state than the archive index records (a stream cut back):
   * one line each. They count as restored; the command exits 1. */
  warnings: string[]
  written: number
  identical: number
  failed: number
  bytes: number
  elapsedMs: number
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

/** The chosen sessions' files plus the old-layout subagent files (`<project>/agent-*.jsonl`)
 * of their projects whose records name one of them (the first `sessionId`, as the estate
 * reader groups them). An agent file whose owner cannot be read is reported as failed: it may
 * belong to a chosen session. */
async function withOldLayoutAgents(
  to: string,
  files: ArchivedFile[],
  chosen: ArchivedFile[],
): Promise<{ files: ArchivedFile[]; unknown: RestoreReport['files'] }> {
  const sessions = new Set(chosen.filter((f) => f.sessionId).map((f) => `${f.project}/${f.sessionId}`))
  const projects = new Set(chosen.map((f) => f.project))
  const agents = files.filter((f) => f.sessionId == null && projects.has(f.project) && !f.path.includes('/'))
  if (agents.length === 0) return { files: chosen, unknown: [] }
  let owners
  try {
    owners = await native.archiveOwners(agents)
  } catch (e) {
    throw fromNative(e)
  }
  const byKey = new Map(owners.map((o) => [o.key, o]))
  const keep = new Set<ArchivedFile>(chosen)
  const unknown: RestoreReport['files'] = []
  for (const f of agents) {
    const o = byKey.get(f.key)
    if (o?.error)
      unknown.push({
        key: f.key,
        target: resolve(to, f.key),
        status: 'failed',
        bytes: 0,
        config: false,
        error: `${o.error} (cannot tell which session it belongs to)`,
      })
    else if (o?.sessionId && sessions.has(`${f.project}/${o.sessionId}`)) keep.add(f)
  }
  return { files: files.filter((f) => keep.has(f)), unknown }
}

/** `restore` of an earlier state (`generation`, `asOf`): the chosen sessions' streams read as of
 * the run that left it, without config-folder files or old-layout agent files (their own
 * streams; `--all --as-of` includes them). */
async function restorePast(
  root: string,
  to: string,
  opts: RestoreOptions,
  started: number,
  env: NodeJS.ProcessEnv,
): Promise<RestoreReport> {
  const files = listArchive(root).filter((f) => !f.config)
  const which = await filesAsOf(root, files, opts)
  let results
  try {
    results = await withProgress(opts.onProgress, (p) =>
      native.archiveRestore(which, to, !opts.intoClaudeDir || !insideClaudeTree(to, env), p, undefined),
    )
  } catch (e) {
    throw fromNative(e)
  }
  const out: RestoreReport['files'] = results.map((r) => ({
    key: r.key,
    target: r.target,
    status: r.error ? 'failed' : r.written ? 'written' : 'identical',
    bytes: r.bytes,
    config: false,
    ...(r.error ? { error: r.error } : {}),
  }))
  return reportOf({ to, configTo: null, files: out, configSkipped: 0, warnings: [] }, started)
}

/** A restore's report: its files with the totals counted from them. */
function reportOf(
  r: Pick<RestoreReport, 'to' | 'configTo' | 'files' | 'configSkipped' | 'warnings'>,
  started: number,
): RestoreReport {
  const out = r.files
  return {
    ...r,
    written: out.filter((f) => f.status === 'written').length,
    identical: out.filter((f) => f.status === 'identical').length,
    failed: out.filter((f) => f.status === 'failed').length,
    bytes: out.reduce((n, f) => n + f.bytes, 0),
    elapsedMs: Math.round(performance.now() - started),
  }
}

/** The damaged store files and the files no store file holds, as failed restore entries: all of
 * them (`all`), or those of the sessions a list of refs names (by exact id or prefix, matched
 * like `selectSessions`). */
function unreadableOf(listing: ArchiveListing, to: string) {
  const entries: (RestoreReport['files'][number] & { sessionId: string | null })[] = [
    ...listing.damaged.map((d) => ({
      key: d.storePath,
      target: '',
      status: 'failed' as const,
      bytes: 0,
      config: false,
      error: `${d.error} (every file of this store file is left unrestored)`,
      sessionId: d.sessionId ?? null,
    })),
    ...listing.lacking
      .filter((l) => !l.partlyHeld)
      .map((l) => ({
        key: l.key,
        target: resolve(to, l.key),
        status: 'failed' as const,
        bytes: 0,
        config: l.config,
        error: l.error,
        sessionId: l.sessionId ?? null,
      })),
  ]
  const strip = ({ sessionId: _, ...f }: (typeof entries)[number]): RestoreReport['files'][number] => f
  const hits = (ref: string) => {
    const want = ref.toLowerCase()
    const exact = entries.filter((e) => e.sessionId?.toLowerCase() === want)
    return exact.length > 0 ? exact : entries.filter((e) => e.sessionId?.toLowerCase().startsWith(want))
  }
  const readable = (ref: string, files: ArchivedFile[]) => {
    const want = ref.toLowerCase()
    return files.some((f) => f.sessionId?.toLowerCase().startsWith(want))
  }
  return {
    all: entries.map(strip),
    /** A ref that names only unreadable files (no readable session). */
    matches: (ref: string, files: ArchivedFile[]) => !readable(ref, files) && hits(ref).length > 0,
    /** Those of the chosen sessions, and of the refs that name only unreadable files. */
    of: (refs: string[], files: ArchivedFile[], chosen: Set<string>) => {
      const out = new Set(entries.filter((e) => e.sessionId != null && chosen.has(e.sessionId)))
      for (const ref of refs) if (!readable(ref, files)) for (const e of hits(ref)) out.add(e)
      return [...out].map(strip)
    },
  }
}

/** Writes archived transcripts back, byte-identical (SHA-256 checked against the hash recorded
 * at archive time), as `<to>/<project>/<file>`; never replaces a different existing file. */
export async function restore(root: string, opts: RestoreOptions): Promise<RestoreReport> {
  const started = performance.now()
  const env = opts.env ?? process.env
  if (!opts.all && !(opts.sessions && opts.sessions.length > 0))
    throw usageError('restore: name the sessions to restore, or --all')
  if (opts.all && opts.sessions && opts.sessions.length > 0)
    throw usageError('restore: give sessions or --all, not both')
  if (opts.generation !== undefined && opts.asOf !== undefined)
    throw usageError('restore: give --generation or --as-of, not both')
  if ((opts.generation !== undefined || opts.asOf !== undefined) && opts.includeConfig)
    throw usageError(
      'restore: --include-config restores the latest config files; it does not go with --generation or --as-of',
    )
  if (opts.generation !== undefined && opts.all)
    throw usageError(
      'restore: --generation goes with named sessions (each has its own generations); --all takes --as-of',
    )
  if (opts.generation !== undefined && !(Number.isInteger(opts.generation) && opts.generation >= 1))
    throw usageError(`restore: --generation ${opts.generation} is not a generation number (1 is the first archived)`)
  const to = resolve(opts.to)
  if (!opts.intoClaudeDir && insideClaudeTree(to, env)) {
    throw usageError(
      `restore: ${to} is inside a .claude folder, which Claude Code owns; pass --into-claude-dir to restore there`,
    )
  }
  const archiveRoot = resolve(root)
  if (to === archiveRoot || to.startsWith(archiveRoot + sep))
    throw usageError(`restore: --to ${to} is inside the archive ${archiveRoot}`)
  // the config folder is `to`'s parent: inside a .claude folder only when `to` is (refused above)
  const configTo = opts.includeConfig ? configFolderOf(to) : null
  if (opts.generation !== undefined || opts.asOf !== undefined) return restorePast(root, to, opts, started, env)
  const listing = listArchiveAll(root)
  const all = listing.files
  const files = all.filter((f) => !f.config)
  // what cannot be restored: damaged store files and files in no store file, named per session
  const unreadable = unreadableOf(listing, to)
  const refs = opts.all ? [] : opts.sessions!.filter((ref) => !unreadable.matches(ref, files))
  const chosen = opts.all
    ? { files, unknown: unreadable.all }
    : await withOldLayoutAgents(to, files, refs.length > 0 ? selectSessions(files, refs) : [])
  if (!opts.all) {
    const ids = new Set(chosen.files.map((f) => f.sessionId).filter((s) => s != null))
    chosen.unknown.push(...unreadable.of(opts.sessions!, files, ids))
  }
  // config-folder files: every one with --all, else those named after a chosen session
  const sessions = new Set(chosen.files.map((f) => f.sessionId).filter((s) => s != null))
  const config = all.filter((f) => f.config && (opts.all || (f.sessionId != null && sessions.has(f.sessionId))))
  const which = configTo ? [...chosen.files, ...config] : chosen.files
  let results
  try {
    // restored into Claude Code's own folder, the recorded mtime would make its cleanup
    // delete the files again at its next start: they get the current time there
    results = await withProgress(opts.onProgress, (p) =>
      native.archiveRestore(which, to, !opts.intoClaudeDir || !insideClaudeTree(to, env), p, configTo ?? undefined),
    )
  } catch (e) {
    throw fromNative(e)
  }
  const out: RestoreReport['files'] = results.map((r, i) => ({
    key: r.key,
    target: r.target,
    status: r.error ? 'failed' : r.written ? 'written' : 'identical',
    bytes: r.bytes,
    config: which[i].config,
    ...(r.error ? { error: r.error } : {}),
  }))
  out.push(...chosen.unknown)
  const restoredKeys = new Set(out.filter((f) => f.status !== 'failed').map((f) => f.key))
  const warnings = listing.lacking.filter((l) => l.partlyHeld && restoredKeys.has(l.key)).map((l) => l.error)
  return reportOf({ to, configTo, files: out, configSkipped: configTo ? 0 : config.length, warnings }, started)
}
