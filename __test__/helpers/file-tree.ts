// What a folder holds, for tests that compare trees written by archive and restore.
import { existsSync, lstatSync, readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'

/** Every file under `dir` (symbolic links not followed): relative path → bytes. */
export function fileTree(dir: string): Map<string, Buffer> {
  const out = new Map<string, Buffer>()
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name)
      if (lstatSync(p).isDirectory()) walk(p)
      else out.set(relative(dir, p), readFileSync(p))
    }
  }
  if (existsSync(dir)) walk(dir)
  return out
}

/** Every folder, file and link under `dir` (links not followed), relative to it, sorted. */
export function pathsBelow(dir: string): string[] {
  const out: string[] = []
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name)
      out.push(relative(dir, p))
      if (lstatSync(p).isDirectory()) walk(p)
    }
  }
  if (existsSync(dir)) walk(dir)
  return out
}
