// Whether a path lies in Claude Code's own folders: a `.claude` folder anywhere on it, or one of
// the config folders ($CLAUDE_CONFIG_DIR, a comma-separated list). Symlinks on the path's existing
// part are followed, so a link into ~/.claude counts. Writers (compress, pack, restore) refuse
// such targets unless told otherwise.
import { realpathSync } from 'node:fs'
import { basename, dirname, resolve, sep } from 'node:path'
import { claudeConfigDirs } from './read/estate.js'

/** The absolute path with symlinks of its longest existing prefix resolved. */
export function resolvedPath(path: string): string {
  let head = resolve(path)
  const rest: string[] = []
  for (;;) {
    try {
      return [realpathSync(head), ...rest.reverse()].join(sep)
    } catch {
      const parent = dirname(head)
      if (parent === head) return resolve(path)
      rest.push(basename(head))
      head = parent
    }
  }
}

export function insideClaudeTree(path: string, env: NodeJS.ProcessEnv = process.env): boolean {
  const configs = claudeConfigDirs(env).flatMap((d) => [d, resolvedPath(d)])
  return [resolve(path), resolvedPath(path)].some(
    (p) =>
      p.split(sep).includes('.claude') || configs.some((d) => p === d || p.startsWith(d.endsWith(sep) ? d : d + sep)),
  )
}
