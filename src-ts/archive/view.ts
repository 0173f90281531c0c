// Reading an archive root as if it were an estate: its read view is a cache folder holding the
// latest generation of every archived transcript, laid out like a projects folder and
// refreshed incrementally (natively), which the estate readers then scan unchanged.
import { createHash } from 'node:crypto'
import { realpathSync } from 'node:fs'
import { homedir } from 'node:os'
import { isAbsolute, join, resolve } from 'node:path'
import native from '../native.js'
import { fromNative } from '../errors.js'

/** True when `dir` is an archive root (its index, or an archive header in its layout). */
export function isArchiveRoot(dir: string): boolean {
  return native.archiveDetect(resolve(dir))
}

/** The read view's folder: $XDG_CACHE_HOME/claude-jsonl/archive-view/<hash of the root>. */
export function archiveViewDir(root: string, env: NodeJS.ProcessEnv = process.env): string {
  const base =
    env.XDG_CACHE_HOME && isAbsolute(env.XDG_CACHE_HOME) ? env.XDG_CACHE_HOME : join(env.HOME || homedir(), '.cache')
  const id = createHash('sha256').update(realpathSync(root)).digest('hex').slice(0, 16)
  return join(base, 'claude-jsonl', 'archive-view', id)
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
): string {
  const view = archiveViewDir(root, env)
  let summary
  try {
    summary = native.archiveView(resolve(root), view)
  } catch (e) {
    throw fromNative(e)
  }
  for (const w of summary.warnings) warn(w)
  return view
}

/** The folder to scan for a root: an archive root's read view, any other root itself. */
export function readableRoot(root: string, env: NodeJS.ProcessEnv = process.env, warn?: ArchiveWarn): string {
  return isArchiveRoot(root) ? openArchiveView(root, env, warn) : root
}
