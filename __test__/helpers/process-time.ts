// Times one whole child process: the wall time around it and the CPU time (user + system) of the
// process, its threads and children, read from bash's `times` builtin (millisecond resolution).
// No `--import` hook is added to the measured process, so none of the harness is in its cost.
// Used by the start-up guard test and by benches/startup-paired.mjs.
import { spawnSync } from 'node:child_process'

const SCRIPT = 's=$EPOCHREALTIME; "$@" >/dev/null 2>/dev/null; r=$?; e=$EPOCHREALTIME; echo "$s $e $r"; times'

export interface ProcessTime {
  wallMs: number
  cpuMs: number
  status: number
}

/** Runs `argv` (a command and its arguments) once, its output discarded, in `env` when given. */
export function timeProcess(argv: string[], env?: NodeJS.ProcessEnv): ProcessTime {
  const r = spawnSync('bash', ['-c', SCRIPT, 'timed', ...argv], { encoding: 'utf8', env: env ?? process.env })
  const lines = (r.stdout ?? '').trim().split('\n')
  const [start, end, status] = (lines[0] ?? '').split(' ')
  // The second line of `times` is the children's user and system time: "0m0.052s 0m0.012s".
  const m = /(\d+)m([\d.]+)s (\d+)m([\d.]+)s/.exec(lines[2] ?? '')
  if (r.status !== 0 || !m || start === undefined) throw new Error(`could not time ${argv.join(' ')}: ${r.stderr}`)
  const cpuMs = (Number(m[1]) * 60 + Number(m[2]) + Number(m[3]) * 60 + Number(m[4])) * 1000
  return { wallMs: (Number(end) - Number(start)) * 1000, cpuMs, status: Number(status) }
}

/** The median of `xs` (the mean of the middle two for an even count). */
export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2
}
