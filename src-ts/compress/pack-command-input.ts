// What `claude-jsonl pack` summarises, and where it may write. STAND-IN: until the topology plan
// is wired in, summaryIndexesFor() takes the client's active chain and summarises the records
// before the last 30% of its bytes. Swap this one function for the plan's `summaryIndexes`.
import { closeSync, fsyncSync, openSync, realpathSync, renameSync, rmSync, writeSync } from 'node:fs'
import { basename, dirname, join, resolve, sep } from 'node:path'
import native from '../native.js'
import type { TranscriptIndex } from '../native.js'
import { inputError, usageError } from '../errors.js'

/** STAND-IN for the topology plan: the older part of the active chain, in chain order. */
export function summaryIndexesFor(index: TranscriptIndex, _buffer: Uint8Array): Uint32Array {
  const chain = native.activeChain(index).indexes
  const lengths = index.lengths()
  let total = 0
  for (const i of chain) total += lengths[i]
  let upTo = 0
  let bytes = 0
  while (upTo < chain.length && bytes + lengths[chain[upTo]] <= total * 0.7) bytes += lengths[chain[upTo++]]
  return chain.slice(0, upTo)
}

/** The path with symlinks of its longest existing prefix resolved. */
function resolvedPath(path: string): string {
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

/** Refuses an output that is the input or lies in a `.claude` tree or $CLAUDE_CONFIG_DIR. */
export function checkPackOutput(input: string, output: string, what = '--out'): void {
  const out = resolvedPath(output)
  if (out === resolvedPath(input)) throw usageError(`${what} must differ from the input file (${input})`)
  const config = process.env.CLAUDE_CONFIG_DIR ? resolvedPath(process.env.CLAUDE_CONFIG_DIR) : undefined
  if (out.split(sep).includes('.claude') || (config && (out === config || out.startsWith(config + sep))))
    throw usageError(`${what} ${output} lies inside a .claude tree; write packs elsewhere`)
}

/** Writes `text` to `path` through a temp file in the same folder, fsync and rename. */
export function writeFileAtomic(path: string, text: string): void {
  const tmp = join(dirname(resolve(path)), `.${basename(path)}.${process.pid}.${Date.now()}.tmp`)
  try {
    const fd = openSync(tmp, 'wx', 0o644)
    try {
      writeSync(fd, text)
      fsyncSync(fd)
    } finally {
      closeSync(fd)
    }
    renameSync(tmp, path)
  } catch (e) {
    rmSync(tmp, { force: true })
    throw inputError(path, `cannot write: ${(e as Error).message.split('\n')[0]}`)
  }
  try {
    const dir = openSync(dirname(resolve(path)), 'r')
    fsyncSync(dir)
    closeSync(dir)
  } catch {
    // Best effort: some platforms cannot fsync a directory.
  }
}
