// What the single-purpose bench scripts (find.mjs, archive.mjs) share: the repository's root,
// `[INPUT] [--name value]...` arguments, and the median.
import { existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

export const repo = join(dirname(fileURLToPath(import.meta.url)), '..')

/** The first argument (else `fallback`) and an option reader; exits 2 with `usage` when the
 * input is missing or --rounds is not positive. */
export function scriptArgs(fallback, usage, roundsDefault) {
  const args = process.argv.slice(2)
  const opt = (name, dflt) => {
    const i = args.indexOf(name)
    return i >= 0 ? args[i + 1] : dflt
  }
  const input = args[0] && !args[0].startsWith('--') ? args[0] : fallback
  const rounds = Number(opt('--rounds', String(roundsDefault)))
  if (!existsSync(input) || !(rounds > 0)) {
    process.stderr.write(`usage: ${usage} (no input at ${input})\n`)
    process.exit(2)
  }
  return { input, rounds, opt }
}

export function median(xs) {
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2
}
