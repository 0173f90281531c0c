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

/** Brings an archive's read view up to date and returns its folder (the latest generation of
 * every transcript, each with the source's mtime recorded at archive time). */
export function openArchiveView(root: string, env: NodeJS.ProcessEnv = process.env): string {
  const view = archiveViewDir(root, env)
  try {
    native.archiveView(resolve(root), view)
  } catch (e) {
    throw fromNative(e)
  }
  return view
}

/** The folder to scan for a root: an archive root's read view, any other root itself. */
export function readableRoot(root: string, env: NodeJS.ProcessEnv = process.env): string {
  return isArchiveRoot(root) ? openArchiveView(root, env) : root
}
