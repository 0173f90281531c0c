// Loaded by ava into every test file's process (package.json "ava.require"). When
// CLAUDE_JSONL_TEST_TIMINGS names a file, each test file appends one line to it as its process
// exits, `{"file":…,"ms":…}`: the time from before the test file loads to its exit. scripts/test.mjs
// prints the slowest ten from it; without the variable this does nothing.
import test from 'ava'
import { appendFileSync } from 'node:fs'
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
    appendFileSync(out, JSON.stringify({ file, ms: Math.round(performance.now() - started) }) + '\n')
  })
}
