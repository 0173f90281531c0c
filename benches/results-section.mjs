// Replaces one `## TITLE` section of benches/RESULTS.md (or adds it before "## History"), for the
// benches that each keep a section of their own.
import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const RESULTS_MD = join(dirname(fileURLToPath(import.meta.url)), 'RESULTS.md')
const PRETTIER = join(dirname(fileURLToPath(import.meta.url)), '..', 'node_modules', 'prettier', 'bin', 'prettier.cjs')

/** Formats benches/RESULTS.md as the repository's style check wants it (tables padded), when
 * prettier is installed: a bench run leaves `npm test` passing. */
export function formatResults() {
  if (existsSync(PRETTIER)) spawnSync(process.execPath, [PRETTIER, '--write', RESULTS_MD], { stdio: 'ignore' })
}

/** Writes `section` (starting with its `## title` line) in place of the section of that title. */
export function writeResultsSection(section) {
  const heading = section.slice(0, section.indexOf('\n') + 1)
  const previous = existsSync(RESULTS_MD) ? readFileSync(RESULTS_MD, 'utf8') : '# Benchmark results\n'
  const start = previous.indexOf(`\n${heading}`)
  let next
  if (start >= 0) {
    const end = previous.indexOf('\n## ', start + 1)
    next = previous.slice(0, start + 1) + section + (end >= 0 ? previous.slice(end) : '')
  } else {
    const history = previous.indexOf('\n## History\n')
    next = history >= 0 ? previous.slice(0, history + 1) + section + previous.slice(history) : previous + '\n' + section
  }
  writeFileSync(RESULTS_MD, next)
  formatResults()
}
