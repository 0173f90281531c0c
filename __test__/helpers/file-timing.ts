// Loaded by ava into every test file's process (package.json "ava.require"). When
// CLAUDE_JSONL_TEST_TIMINGS names a file, each test file appends one line to it as its process
// exits, `{"file":…,"ms":…,"cpuMs":…}`: the time from before the test file loads to its exit, and
// the CPU time its process and the child processes it waited for used (on a shared 2-core machine
// wall time says how long a file ran beside others, CPU time what it costs the run). scripts/test.mjs
// prints the slowest ten from it; without the variable this does nothing.
import test from 'ava'
import { appendFileSync, readFileSync } from 'node:fs'
import { relative } from 'node:path'

export default function recordFileTiming(): void {
  const out = process.env.CLAUDE_JSONL_TEST_TIMINGS
  if (!out) return
  const started = performance.now()
  const file = relative(
    process.cwd(),
    test.meta.file.startsWith('file:') ? new URL(test.meta.file).pathname : test.meta.file,
  )
  process.on('exit', () => {
    const ms = Math.round(performance.now() - started)
    appendFileSync(out, JSON.stringify({ file, ms, cpuMs: cpuMs() }) + '\n')
  })
}

/**
 * This process's CPU time with that of the children it has waited for, in ms: utime, stime,
 * cutime and cstime of /proc/self/stat (in clock ticks of 10 ms on Linux). Elsewhere, the process's
 * own CPU time only.
 */
function cpuMs(): number {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8')
    // The fields after the command name (which may hold spaces) in parentheses.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    // utime is field 14 of the whole line, so index 11 after the pid and the name.
    const ticks = fields.slice(11, 15).reduce((sum, f) => sum + Number(f), 0)
    return ticks * 10
  } catch {
    const { user, system } = process.cpuUsage()
    return Math.round((user + system) / 1000)
  }
}
