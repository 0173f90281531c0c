// The estate archive: every session and subagent transcript mirrored into a session
// store root, incrementally and byte-exact; restore; and the read view through which every
// estate reader (stats, show, sessions, find, doctor) reads an archive root unchanged.
// The work is native (crate/core/src/archive); this module owns policy: roots, targets, selection.
import { basename, dirname, join, resolve, sep } from 'node:path'
import native from '../native.js'
import { withNativeProgress } from '../native-progress.js'
import type { ProgressSnapshot } from '../native.js'
import type { ArchiveListing, ArchiveSummary, ArchivedFile } from '#native'
import { refuseArchiveRoots, resolveRoots } from '../read/estate.js'
import type { EstateOptions } from '../read/estate.js'
import { fromNative, usageError } from '../errors.js'
import { insideClaudeTree } from '../claude-tree.js'
import { filesAsOf, listArchive, listArchiveAll, selectSessions } from './generations.js'
import { DIFFERS, recoverTargets, replaceWithArchived } from './replace.js'
import { monotonicMs } from '../monotonic.js'

export type { ArchivedFile, ArchiveListing }
export { archiveHistory, listArchive, listArchiveAll, selectSessions } from './generations.js'
export type { GenerationInfo, SessionHistory } from './generations.js'

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

/** Mirrors every transcript under the estate roots (same rules as `stats`) into `opts.to`. */
export async function archive(opts: ArchiveOptions): Promise<ArchiveReport> {
  const started = monotonicMs()
  const roots = resolveRoots(opts)
  refuseArchiveRoots(roots.roots, 'archive', 'its generations are kept already; restore one to archive it elsewhere')
  const to = resolve(opts.to)
  for (const r of roots.roots) {
    if (to === r || to.startsWith(r + sep)) throw usageError(`archive: --to ${to} is inside the estate root ${r}`)
  }
  const config = opts.includeConfig ? roots.roots.map(configFolderOf) : []
  let s
  try {
    s = await withNativeProgress({ onProgress: opts.onProgress }, (p) =>
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
    elapsedMs: Math.round(monotonicMs() - started),
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
  /** Replace a file that exists and differs (else an error for that file) through the in-place
   * transaction: the current file is kept as a verified numbered `.backup` beside it; a session
   * Claude Code is running, or one written within `stableForMs`, is refused. Config-folder files
   * are never replaced. */
  replace?: boolean
  /** With `replace`: refuse a session written more recently than this (default 10 s). */
  stableForMs?: number
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
    /** `replaced`: a different file was there (`replace`); it is kept as `backup`. */
    status: 'written' | 'identical' | 'replaced' | 'failed'
    bytes: number
    /** The numbered backup the file that was replaced is kept as. */
    backup?: string
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
  replaced: number
  failed: number
  bytes: number
  elapsedMs: number
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
  if (opts.replace) recoverTargets(targetsOf(which, to), to)
  let results
  try {
    results = await withNativeProgress({ onProgress: opts.onProgress }, (p) =>
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
  if (opts.replace) await replaceDiffering(out, which, to, opts, env)
  return reportOf({ to, configTo: null, files: out, configSkipped: 0, warnings: [] }, started)
}

/** Where the files go under `to` (as the core places them, after its checks). */
const targetsOf = (files: ArchivedFile[], to: string) => files.map((f) => join(to, f.project, f.path))

/** `replace`: each file of the projects folder that exists and differs (`out[i]` for `which[i]`)
 * replaced through the in-place transaction, one after another. */
async function replaceDiffering(
  out: RestoreReport['files'],
  which: ArchivedFile[],
  to: string,
  opts: RestoreOptions,
  env: NodeJS.ProcessEnv,
): Promise<void> {
  for (let i = 0; i < out.length; i++) {
    const f = out[i]
    if (f.status !== 'failed' || f.config || !f.error?.endsWith(DIFFERS)) continue
    const r = await replaceWithArchived(which[i], f.target, to, env, opts.stableForMs)
    out[i] = r.error
      ? { ...f, error: r.error }
      : { key: f.key, target: f.target, status: 'replaced', bytes: r.bytes, config: false, backup: r.backup }
  }
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
    replaced: out.filter((f) => f.status === 'replaced').length,
    failed: out.filter((f) => f.status === 'failed').length,
    bytes: out.reduce((n, f) => n + f.bytes, 0),
    elapsedMs: Math.round(monotonicMs() - started),
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
  const started = monotonicMs()
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
  if (opts.replace) recoverTargets(targetsOf(chosen.files, to), to)
  let results
  try {
    // restored into Claude Code's own folder, the recorded mtime would make its cleanup
    // delete the files again at its next start: they get the current time there
    results = await withNativeProgress({ onProgress: opts.onProgress }, (p) =>
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
  if (opts.replace) await replaceDiffering(out, which, to, opts, env)
  out.push(...chosen.unknown)
  const restoredKeys = new Set(out.filter((f) => f.status !== 'failed').map((f) => f.key))
  const warnings = listing.lacking.filter((l) => l.partlyHeld && restoredKeys.has(l.key)).map((l) => l.error)
  return reportOf({ to, configTo, files: out, configSkipped: configTo ? 0 : config.length, warnings }, started)
}
