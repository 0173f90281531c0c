// Reading an archive root as if it were an estate, for the readers that open transcripts by
// path (sessions, find, show, timeline, teleport-id, compress and pack of an archived session):
// its read view is a cache folder holding the latest generation of every archived transcript,
// laid out like a projects folder and refreshed incrementally (natively), which they then scan
// unchanged. It is said on stderr when it is made, a view unused for 30 days is removed by the
// next reader that opens one, and `claude-jsonl cache clean` removes them all.
// (`stats` and `doctor` read the streams in memory instead: read/estate.ts.)
import { createHash } from 'node:crypto'
import { existsSync, lstatSync, readdirSync, realpathSync, rmSync } from 'node:fs'
import { homedir } from 'node:os'
import { isAbsolute, join, resolve } from 'node:path'
import native from '../native.js'
import { fromNative } from '../errors.js'

/** True when `dir` is an archive root (its index, or an archive header in its layout). */
export function isArchiveRoot(dir: string): boolean {
  return native.archiveDetect(resolve(dir))
}

/** Where every archive's read view is: $XDG_CACHE_HOME/claude-jsonl/archive-view (else ~/.cache/…). */
export function archiveViewsDir(env: NodeJS.ProcessEnv = process.env): string {
  const base =
    env.XDG_CACHE_HOME && isAbsolute(env.XDG_CACHE_HOME) ? env.XDG_CACHE_HOME : join(env.HOME || homedir(), '.cache')
  return join(base, 'claude-jsonl', 'archive-view')
}

/** The read view's folder: $XDG_CACHE_HOME/claude-jsonl/archive-view/<hash of the root>. */
export function archiveViewDir(root: string, env: NodeJS.ProcessEnv = process.env): string {
  const id = createHash('sha256').update(realpathSync(root)).digest('hex').slice(0, 16)
  return join(archiveViewsDir(env), id)
}

/** One archive's read view on disk: its folder and the bytes of the files in it. */
export interface ArchiveViewInfo {
  dir: string
  bytes: number
  files: number
}

/** Bytes and files below `dir`, symbolic links not followed. */
function sizeOf(dir: string): { bytes: number; files: number } {
  let bytes = 0
  let files = 0
  const walk = (d: string) => {
    let names: string[]
    try {
      names = readdirSync(d)
    } catch {
      return
    }
    for (const n of names) {
      const p = join(d, n)
      const st = lstatSync(p, { throwIfNoEntry: false })
      if (!st) continue
      if (st.isDirectory()) walk(p)
      else if (st.isFile()) {
        bytes += st.size
        files++
      }
    }
  }
  walk(dir)
  return { bytes, files }
}

/** The folders of the archive read views in the cache folder. */
function viewDirs(env: NodeJS.ProcessEnv): string[] {
  const base = archiveViewsDir(env)
  let names: string[] = []
  try {
    names = readdirSync(base)
  } catch {
    return []
  }
  return names.map((n) => join(base, n)).filter((d) => lstatSync(d, { throwIfNoEntry: false })?.isDirectory())
}

/** Every archive read view in the cache folder, with its size. */
export function listArchiveViews(env: NodeJS.ProcessEnv = process.env): ArchiveViewInfo[] {
  return viewDirs(env).map((dir) => ({ dir, ...sizeOf(dir) }))
}

/** A read view no reader has refreshed for this long is removed by the next reader that opens
 * one (every read refreshes its view's state file): the cache holds the archives in use. */
export const VIEW_UNUSED_MS = 30 * 86_400_000

/** Removes the read views other than `keep` whose state file (rewritten at every read) is older
 * than VIEW_UNUSED_MS (one without a state file may be being made: left alone). */
function pruneUnusedViews(env: NodeJS.ProcessEnv, keep: string): void {
  const now = Date.now()
  for (const dir of viewDirs(env)) {
    if (dir === keep) continue
    const state = lstatSync(join(dir, '.claude-jsonl-view'), { throwIfNoEntry: false })
    if (!state || now - state.mtimeMs < VIEW_UNUSED_MS) continue
    rmSync(dir, { recursive: true, force: true })
  }
}

/** Removes every archive read view (the next reader of an archive that needs one makes it
 * again); returns what was removed. Symbolic links inside are removed, never followed. */
export function cleanArchiveViews(env: NodeJS.ProcessEnv = process.env): ArchiveViewInfo[] {
  const views = listArchiveViews(env)
  for (const v of views) rmSync(v.dir, { recursive: true, force: true })
  const base = archiveViewsDir(env)
  if (existsSync(base) && readdirSync(base).length === 0) rmSync(base, { recursive: true, force: true })
  return views
}

/** Where a reader's warnings about an archive go: one line each (damaged store files left out
 * of the view, files the index has that no store file holds). */
export type ArchiveWarn = (line: string) => void

const toStderr: ArchiveWarn = (line) => process.stderr.write(`claude-jsonl: warning: ${line}\n`)

/** Brings an archive's read view up to date and returns its folder (the latest generation of
 * every transcript, each with the source's mtime recorded at archive time). A damaged store
 * file is left out and named through `warn` (stderr by default); the rest is read. */
export function openArchiveView(
  root: string,
  env: NodeJS.ProcessEnv = process.env,
  warn: ArchiveWarn = toStderr,
  note: ArchiveWarn = (line) => process.stderr.write(`claude-jsonl: note: ${line}\n`),
): string {
  const view = archiveViewDir(root, env)
  const made = !existsSync(view)
  let summary
  try {
    summary = native.archiveView(resolve(root), view)
  } catch (e) {
    throw fromNative(e)
  }
  for (const w of summary.warnings) warn(w)
  pruneUnusedViews(env, view)
  if (made)
    note(
      `this command reads ${resolve(root)} through a read cache: ${summary.files} transcripts (${(summary.bytes / 1e6).toFixed(1)} MB) decoded into ${view}, refreshed on later reads; \`claude-jsonl cache clean\` removes it`,
    )
  return view
}

/** The folder to scan for a root: an archive root's read view, any other root itself. */
export function readableRoot(root: string, env: NodeJS.ProcessEnv = process.env, warn?: ArchiveWarn): string {
  return isArchiveRoot(root) ? openArchiveView(root, env, warn) : root
}
