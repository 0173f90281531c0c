// What is an archive root, and the read views earlier versions kept: a cache folder per archive
// holding the latest generation of every transcript, which the readers that open transcripts by
// path read through. Readers now read an archive's streams in memory (archive/in-memory.ts,
// read/estate.ts) and make none; `claude-jsonl cache` lists the folders left behind and
// `cache clean` removes them.
import { existsSync, lstatSync, readdirSync, rmSync } from 'node:fs'
import { homedir } from 'node:os'
import { isAbsolute, join, resolve } from 'node:path'
import native from '../native.js'

/** True when `dir` is an archive root (its index, or an archive header in its layout). */
export function isArchiveRoot(dir: string): boolean {
  return native.archiveDetect(resolve(dir))
}

/** Where earlier versions kept every archive's read view: $XDG_CACHE_HOME/claude-jsonl/archive-view (else ~/.cache/…). */
export function archiveViewsDir(env: NodeJS.ProcessEnv = process.env): string {
  const base =
    env.XDG_CACHE_HOME && isAbsolute(env.XDG_CACHE_HOME) ? env.XDG_CACHE_HOME : join(env.HOME || homedir(), '.cache')
  return join(base, 'claude-jsonl', 'archive-view')
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

/** The folders of the archive read views left in the cache folder. */
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

/** Every archive read view left in the cache folder, with its size. */
export function listArchiveViews(env: NodeJS.ProcessEnv = process.env): ArchiveViewInfo[] {
  return viewDirs(env).map((dir) => ({ dir, ...sizeOf(dir) }))
}

/** Removes every archive read view left in the cache folder (no reader needs one now); returns
 * what was removed. Symbolic links inside are removed, never followed. */
export function cleanArchiveViews(env: NodeJS.ProcessEnv = process.env): ArchiveViewInfo[] {
  const views = listArchiveViews(env)
  for (const v of views) rmSync(v.dir, { recursive: true, force: true })
  const base = archiveViewsDir(env)
  if (existsSync(base) && readdirSync(base).length === 0) rmSync(base, { recursive: true, force: true })
  return views
}
