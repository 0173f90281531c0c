// Where the estate is, and scanning it: roots resolved by policy here, the walk and the
// parallel scan done natively, off the JS thread.
import { readFileSync, statSync, type BigIntStats, type Stats } from 'node:fs'
import { homedir } from 'node:os'
import { join, resolve, sep } from 'node:path'
import native from '../native.js'
import type { DiscoveredFile, EstateFileInfo, EstateFileTotals, EstateScan, ScanMode } from '../native.js'
import type { ArchivedFile } from '#native'
import { fromNative, inputError, usageError } from '../errors.js'
import { withNativeProgress, type LongOperationOptions } from '../native-progress.js'
import { isArchiveRoot } from '../archive/view.js'
import { discoverArchive, discoverArchiveLatest, rememberArchived } from '../archive/in-memory.js'
import { readerFiles, type ArchiveWarn } from '../archive/generations.js'
import { transcriptProblem } from './record-types.js'

/**
 * Which transcripts an estate-wide call reads: given paths, a projects folder, or the estate
 * roots of the environment ($CLAUDE_CONFIG_DIR, else ~/.claude).
 */
export interface EstateOptions extends LongOperationOptions {
  /** Files or folders to scan instead of the estate root (folders are walked recursively). */
  paths?: string[]
  /** The projects folder (like ~/.claude/projects). */
  projects?: string
  /** Environment used for CLAUDE_CONFIG_DIR and HOME (defaults to process.env). */
  env?: NodeJS.ProcessEnv
  /** An archive root among the roots is read as generation N of each session that has one
   * (1 is the first archived) instead of the latest. */
  generation?: number
  /** An archive root among the roots is read as the last archive run at or before this time
   * (ISO 8601; a date alone is its midnight UTC) left it. */
  asOf?: string
  /** Where warnings about an archive go (a damaged store file left out): stderr by default. */
  warn?: ArchiveWarn
}

/** The folders an estate-wide call reads, and what chose them. */
export interface Roots {
  roots: string[]
  /** What chose them: explicit paths, --projects, $CLAUDE_CONFIG_DIR, or ~/.claude. */
  source: 'paths' | 'projects' | 'CLAUDE_CONFIG_DIR' | 'home'
}

/** Claude Code's config folders: $CLAUDE_CONFIG_DIR (comma-separated list allowed), else ~/.claude. */
export function claudeConfigDirs(env: NodeJS.ProcessEnv = process.env): string[] {
  const fromEnv = (env.CLAUDE_CONFIG_DIR ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
  if (fromEnv.length > 0) return fromEnv.map((d) => resolve(d))
  return [join(env.HOME || homedir(), '.claude')]
}

/**
 * The folders to read: the given paths, else `projects`, else the `projects` folder of each
 * Claude Code config folder. An archive root is among them as itself: `discoverEstate` and
 * `scanEstateFiles` read its streams.
 */
export function resolveRoots(opts: EstateOptions = {}): Roots {
  return rootsOf(opts, (roots) => roots)
}

/** Refuses (exit 3) an archive root among `roots` for a command that changes or copies an
 * estate's files (compress --all, archive): an archive is read, never written through. */
export function refuseArchiveRoots(roots: string[], what: string, instead: string): void {
  const archive = roots.find((r) => isArchiveRoot(r))
  if (archive) throw inputError(archive, `is an archive: ${what} reads an estate (${instead})`)
}

/**
 * Lists the transcript files under the roots without reading them, an archive root's from its
 * streams' directories (the latest generation; see `discoverEstate` for an earlier state).
 * A missing root is an input error naming it.
 */
export function discoverRoots(roots: string[], warn: ArchiveWarn = warnToStderr): DiscoveredFile[] {
  const out: DiscoveredFile[] = []
  for (const root of roots) {
    if (isArchiveRoot(root)) out.push(...discoverArchiveLatest(root, warn))
    else
      try {
        out.push(...native.discoverFiles([root]))
      } catch (e) {
        throw fromNative(e)
      }
  }
  return out
}

/** `discoverRoots` of the estate `opts` names, an archive root read in the state `generation` or
 * `asOf` names (either given with no archive among the roots: a usage error). */
export async function discoverEstate(opts: EstateOptions = {}): Promise<DiscoveredFile[]> {
  const { roots } = resolveRoots(opts)
  const warn = opts.warn ?? warnToStderr
  if (opts.generation === undefined && opts.asOf === undefined) return discoverRoots(roots, warn)
  if (!roots.some((r) => isArchiveRoot(r)))
    throw usageError(`--generation and --as-of read an archive; ${roots.join(', ')} holds none`)
  const out: DiscoveredFile[] = []
  for (const root of roots)
    out.push(...(isArchiveRoot(root) ? await discoverArchive(root, opts, warn) : discoverRoots([root], warn)))
  return out
}

/** The folders to read, as `resolveRoots` finds them, with `readable` applied to named ones. */
function rootsOf(opts: EstateOptions, readable: (roots: string[]) => string[]): Roots {
  const env = opts.env ?? process.env
  if (opts.paths && opts.paths.length > 0) {
    const roots = opts.paths.map((p) => resolve(p))
    roots.forEach(checkNamedPath)
    return { roots: readable(roots), source: 'paths' }
  }
  if (opts.projects) {
    const root = resolve(opts.projects)
    checkNamedPath(root)
    return { roots: readable([root]), source: 'projects' }
  }
  const source = env.CLAUDE_CONFIG_DIR ? 'CLAUDE_CONFIG_DIR' : 'home'
  return { roots: claudeConfigDirs(env).map((d) => join(d, 'projects')), source }
}

/**
 * Refuses a named path that is neither a regular file nor a folder (a FIFO, a socket, a device)
 * before anything opens it: opening a FIFO for reading blocks until a writer comes, and a device
 * never ends. Exit code 3, naming what the path is. (The core checks the same in its own opens.)
 */
export function checkRegularFile(path: string, st: Stats | BigIntStats): void {
  if (st.isFile() || st.isDirectory()) return
  const what = st.isFIFO()
    ? 'a FIFO (named pipe)'
    : st.isSocket()
      ? 'a socket'
      : st.isBlockDevice() || st.isCharacterDevice()
        ? 'a device'
        : 'not a regular file'
  throw inputError(path, `is ${what}, not a transcript file; not read`)
}

/**
 * A file named as a root must be a transcript: a FIFO, device or socket (reading one would hang)
 * or a file whose first line is no JSON object is refused (exit 3), the same in every command.
 * A missing path is left to the walk, which names it; a folder is walked.
 */
function checkNamedPath(path: string): void {
  let st
  try {
    st = statSync(path)
  } catch {
    return
  }
  if (st.isDirectory()) return
  checkRegularFile(path, st)
  // The core's rule, as the walkers apply it: first line not a JSON object and no record.
  const why = native.notATranscript(path)
  if (why) throw inputError(path, why)
}

/**
 * What to tell a person whose command found no transcript: where it looked, and how to point
 * it elsewhere. One line, without a trailing newline.
 */
export function emptyEstateNotice(roots: Roots): string {
  const where = roots.roots.join(', ')
  if (roots.source === 'paths') return `no transcripts found in ${where}`
  const from =
    roots.source === 'projects'
      ? 'given by --projects'
      : roots.source === 'CLAUDE_CONFIG_DIR'
        ? 'the projects folder of $CLAUDE_CONFIG_DIR'
        : "Claude Code's default estate; $CLAUDE_CONFIG_DIR is not set"
  return (
    `no transcripts found in ${where} (${from}); to read another estate pass --projects DIR, ` +
    'or set CLAUDE_CONFIG_DIR to the Claude config folder whose projects/ holds them'
  )
}

/** True when the file sits in a folder Claude Code itself cleans up. */
export function inClaudeProjects(path: string, env: NodeJS.ProcessEnv = process.env): boolean {
  return claudeProjectsRoot(path, env) !== undefined
}

/** The Claude projects folder `path` lies in (`…/.claude/projects` or `$CLAUDE_CONFIG_DIR/projects`),
 * read from the path as written; undefined when it lies in none. */
export function claudeProjectsRoot(path: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const abs = resolve(path)
  const marker = `${sep}.claude${sep}projects${sep}`
  const at = abs.indexOf(marker)
  if (at >= 0) return abs.slice(0, at + marker.length - 1)
  return claudeConfigDirs(env)
    .map((d) => join(d, 'projects'))
    .find((d) => abs.startsWith(d + sep))
}

export interface ScannedEstate {
  roots: Roots
  scan: EstateScan
  files: EstateFileInfo[]
  /** The archived transcripts of the scan, by the path it lists them at
   * (`<archive>/<project>/<path>`, where no file is: see `transcriptBytes`). */
  archived: Map<string, ArchivedFile>
}

export const warnToStderr: ArchiveWarn = (line) => process.stderr.write(`claude-jsonl: warning: ${line}\n`)

/** A scanned transcript's bytes: read from its file, or (an archived one) decoded from its
 * archive's stream into memory, SHA-256 checked. Throws when it cannot be read. */
export function transcriptBytes(estate: Pick<ScannedEstate, 'archived'>, path: string): Buffer {
  const archived = estate.archived.get(path)
  if (!archived) return readFileSync(path)
  try {
    return native.archiveReadFile(archived)
  } catch (e) {
    throw fromNative(e)
  }
}

/**
 * Finds and scans every transcript under the roots. Throws a ClaudeJsonlError (exit code 3)
 * when a root is missing or cannot be listed. Nothing is ever written.
 */
export async function scanEstateFiles(
  opts: EstateOptions,
  mode: ScanMode,
  minMtimeMs?: number,
  summaries = true,
  /**
   * What an export also needs: in usage mode, the tool results written as errors (for
   * `scan.datasetRows()`), and each session's own transcript's facts (`scan.sessionFactsAt()`).
   */
  forDataset = false,
): Promise<ScannedEstate> {
  const scanned = await scanOnly(opts, mode, minMtimeMs, forDataset)
  const files = scanned.scan.files(summaries)
  warnUndecodable(files, scanned.archived, opts)
  return { ...scanned, files }
}

/** `scanEstateFiles` without an entry per file: the files in sum, and the entries of those in
 * which `fileProblem` can find a problem (what `stats` needs, a JS object for each of a few files
 * rather than for each of thousands). */
export async function scanEstateTotals(
  opts: EstateOptions,
  mode: ScanMode,
  minMtimeMs?: number,
  /** As for `scanEstateFiles`. */
  forDataset = false,
): Promise<Omit<ScannedEstate, 'files'> & { totals: EstateFileTotals }> {
  const scanned = await scanOnly(opts, mode, minMtimeMs, forDataset)
  const totals = scanned.scan.fileTotals()
  warnUndecodable(totals.unread, scanned.archived, opts)
  return { ...scanned, totals }
}

/** An archived file that does not decode (a damaged frame), named as the read view names it. */
function warnUndecodable(files: EstateFileInfo[], archived: Map<string, ArchivedFile>, opts: EstateOptions): void {
  if (archived.size > 0)
    for (const f of files) if (f.error && archived.has(f.path)) (opts.warn ?? warnToStderr)(`${f.error} (skipped)`)
}

async function scanOnly(
  opts: EstateOptions,
  mode: ScanMode,
  minMtimeMs: number | undefined,
  forDataset: boolean,
): Promise<Omit<ScannedEstate, 'files'>> {
  // an archive root is read from its streams in memory (nothing written), not through a view
  const roots = rootsOf(opts, (r) => r)
  const archiveRoots = roots.roots.filter((r) => isArchiveRoot(r))
  if ((opts.generation !== undefined || opts.asOf !== undefined) && archiveRoots.length === 0)
    throw usageError(`--generation and --as-of read an archive; ${roots.roots.join(', ')} holds none`)
  const archives: { root: string; files: ArchivedFile[] }[] = []
  for (const root of archiveRoots)
    archives.push({ root, files: await readerFiles(root, opts, opts.warn ?? warnToStderr) })
  const plain = roots.roots.filter((r) => !archiveRoots.includes(r))
  const archived = new Map<string, ArchivedFile>()
  for (const a of archives)
    for (const f of a.files) {
      archived.set(join(a.root, f.project, f.path), f)
      rememberArchived(join(a.root, f.project, f.path), f)
    }
  const scan: EstateScan = await withNativeProgress(opts, (progress) =>
    native.scanEstate(plain, mode, progress, {
      minMtimeMs,
      archives,
      toolErrors: forDataset,
      sessionFacts: forDataset,
    }),
  )
  const failure = scan.failure
  if (failure) {
    const hint =
      roots.source === 'paths'
        ? ''
        : ` (estate root from ${roots.source === 'projects' ? '--projects' : roots.source === 'home' ? '~/.claude' : '$CLAUDE_CONFIG_DIR'})`
    throw inputError(failure.path, failure.message + hint)
  }
  return { roots, scan, archived }
}

/** Why a scanned file cannot be used, or undefined when it is a readable transcript. */
export function fileProblem(f: EstateFileInfo): string | undefined {
  if (f.error) return f.error
  if (!f.pruned && f.size > 0 && f.records === 0 && (f.firstLine === 'invalid' || f.firstLine === 'non-object')) {
    return transcriptProblem({ records: 0, firstLine: f.firstLine, types: [] })
  }
  return undefined
}

/**
 * The scanned files that cannot be used, with why. A file named among the roots (explicit paths)
 * must be usable: for one that is not, throws an input error (exit code 3) naming it.
 */
export function unusableFiles(roots: Roots, files: EstateFileInfo[]): { path: string; problem: string }[] {
  const skipped: { path: string; problem: string }[] = []
  const explicit = new Set(roots.source === 'paths' ? roots.roots : [])
  for (const f of files) {
    const problem = fileProblem(f)
    if (!problem) continue
    if (explicit.has(f.path)) throw inputError(f.path, problem)
    skipped.push({ path: f.path, problem })
  }
  return skipped
}
