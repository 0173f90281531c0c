// Where compression may write: never onto its input, never inside a `.claude` tree (the
// candidate, its report and packs are process files the user inspects before anything goes live).
import { realpathSync } from 'node:fs'
import { basename, dirname, resolve, sep } from 'node:path'
import { usageError } from '../errors.js'

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

/** True when the path lies in a `.claude` folder or in `$CLAUDE_CONFIG_DIR`. */
export function insideClaudeTree(path: string): boolean {
  const p = resolvedPath(path)
  if (p.split(sep).includes('.claude')) return true
  const config = process.env.CLAUDE_CONFIG_DIR
  if (!config) return false
  const root = resolvedPath(config)
  return p === root || p.startsWith(root.endsWith(sep) ? root : root + sep)
}

/** Refuses an output path that is the input or lies inside a `.claude` tree (usage error). */
export function checkOutputPath(input: string, output: string, what = '--out'): void {
  if (resolvedPath(input) === resolvedPath(output)) throw usageError(`${what} must differ from the input file (${input})`)
  if (insideClaudeTree(output)) throw usageError(`${what} ${output} lies inside a .claude tree; write candidates elsewhere`)
}
