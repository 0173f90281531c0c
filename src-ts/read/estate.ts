// Where the estate is, and scanning it: roots resolved by policy here, the walk and the
// parallel scan done natively, off the JS thread.
import { statSync, type BigIntStats, type Stats } from 'node:fs'
import { homedir } from 'node:os'
import { join, resolve, sep } from 'node:path'
import native from '../native.js'
import type { EstateFileInfo, EstateScan, ProgressSnapshot, ScanMode } from '../native.js'
import { inputError } from '../errors.js'
import { readableRoot } from '../archive/view.js'
import { transcriptProblem } from './record-types.js'

/**
 * Which transcripts an estate-wide call reads: given paths, a projects folder, or the estate
 * roots of the environment ($CLAUDE_CONFIG_DIR, else ~/.claude).
 */
export interface EstateOptions {
  /** Files or folders to scan instead of the estate root (folders are walked recursively). */
  paths?: string[]
  /** The projects folder (like ~/.claude/projects). */
  projects?: string
  /** Called about ten times a second while the scan runs, and once at the end. */
  onProgress?: (p: ProgressSnapshot) => void
  /** Environment used for CLAUDE_CONFIG_DIR and HOME (defaults to process.env). */
  env?: NodeJS.ProcessEnv
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
 * Claude Code config folder. An archive root is read through its read view.
 */
export function resolveRoots(opts: EstateOptions = {}): Roots {
  const env = opts.env ?? process.env
  // an archive root (claude-jsonl archive --to) is read through its read view
  const readable = (roots: string[]) => roots.map((r) => readableRoot(r, env))
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
  /** In usage mode, also keep the tool results written as errors (for `scan.requestsAndToolCalls()`). */
  toolErrors = false,
): Promise<ScannedEstate> {
  const roots = resolveRoots(opts)
  const progress = new native.ScanProgress()
  const timer = opts.onProgress ? setInterval(() => opts.onProgress!(progress.snapshot()), 100) : undefined
  let scan: EstateScan
  try {
    scan = await native.scanEstate(roots.roots, mode, progress, { minMtimeMs, toolErrors })
  } finally {
    if (timer) clearInterval(timer)
  }
  opts.onProgress?.(progress.snapshot())
  const failure = scan.failure
  if (failure) {
    const hint =
      roots.source === 'paths'
        ? ''
        : ` (estate root from ${roots.source === 'projects' ? '--projects' : roots.source === 'home' ? '~/.claude' : '$CLAUDE_CONFIG_DIR'})`
    throw inputError(failure.path, failure.message + hint)
  }
  return { roots, scan, files: scan.files(summaries) }
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
