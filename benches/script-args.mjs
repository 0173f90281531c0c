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

/**
 * Runs each of `runs` (name → async function) once per round, round-robin, after one uncounted
 * warm-up round; returns per name the wall and CPU (all threads) milliseconds of the counted rounds.
 */
export async function roundRobin(runs, rounds) {
  const times = Object.fromEntries(Object.keys(runs).map((k) => [k, []]))
  const cpus = Object.fromEntries(Object.keys(runs).map((k) => [k, []]))
  for (let round = -1; round < rounds; round++) {
    for (const [name, run] of Object.entries(runs)) {
      const t0 = performance.now()
      const c0 = process.cpuUsage()
      await run()
      const c = process.cpuUsage(c0)
      if (round >= 0) {
        times[name].push(performance.now() - t0)
        cpus[name].push((c.user + c.system) / 1000)
      }
    }
  }
  return { times, cpus }
}
