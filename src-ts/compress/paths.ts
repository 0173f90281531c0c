// Where compression may write: never onto its input, never inside a `.claude` tree (the
// candidate, its report and packs are process files the user inspects before anything goes live).
import { usageError } from '../errors.js'
import { insideClaudeTree, resolvedPath } from '../claude-tree.js'

export { insideClaudeTree, resolvedPath }

/** Refuses an output path that is the input or lies inside a `.claude` tree (usage error). */
export function checkOutputPath(input: string, output: string, what = '--out'): void {
  if (resolvedPath(input) === resolvedPath(output))
    throw usageError(`${what} must differ from the input file (${input})`)
  if (insideClaudeTree(output))
    throw usageError(`${what} ${output} lies inside a .claude tree; write candidates elsewhere`)
}
