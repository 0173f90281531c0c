#!/usr/bin/env node
// Times `find`: a cold run (every transcript read, no index) and warm queries (index fresh),
// in one running Node process and through the CLI (with Node's start-up); and `find --exact`
// (always cold: it keeps no index) for an identifier fragment, case-insensitive and -sensitive,
// a non-ASCII needle (the Unicode folding path) and with --tools (tool results read too).
//
//   node benches/find.mjs [ESTATE] [--rounds N] [--terms "a b c"]
//
// ESTATE defaults to .bench-cache/estate (made by `npm run bench`). The index goes to a temp
// folder that is removed afterwards. Prints a short table and one JSON line.
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { median, repo, scriptArgs } from './script-args.mjs'

const {
  input: estate,
  rounds,
  opt,
} = scriptArgs(join(repo, '.bench-cache', 'estate'), 'node benches/find.mjs [ESTATE] [--rounds N] [--terms "a b"]', 5)
const terms = opt('--terms', 'surrogate parser lone').split(/\s+/)

const { find, findExact } = await import(join(repo, 'dist', 'src-ts', 'read', 'find.js'))
const time = async (f) => {
  const t0 = process.hrtime.bigint()
  const r = await f()
  return [Number(process.hrtime.bigint() - t0) / 1e6, r]
}

const indexDir = mkdtempSync(join(tmpdir(), 'cj-find-bench-'))
try {
  // Cold: no index, every byte read and tokenized (the page cache is warmed by a first pass).
  await find(terms, { projects: estate, noIndex: true })
  const cold = []
  let report
  for (let i = 0; i < rounds; i++) {
    const [ms, r] = await time(() => find(terms, { projects: estate, noIndex: true }))
    cold.push(ms)
    report = r
  }
  const bytes = report.scope.bytesTotal
  // Building the index (cold plus the write), then warm queries against it.
  const [buildMs] = await time(() => find(terms, { projects: estate, indexDir }))
  const warm = []
  for (let i = 0; i < rounds; i++) warm.push((await time(() => find(terms, { projects: estate, indexDir })))[0])
  const other = [['needle'], ['timeout', 'retry', 'backoff'], ['"lock file"', 'stale']]
  const warmOther = []
  for (const t of other) warmOther.push((await time(() => find(t, { projects: estate, indexDir })))[0])
  // The CLI, start-up included: a script runs runFind the way main.ts would.
  const script = join(indexDir, 'cli.mjs')
  writeFileSync(
    script,
    `import { runFind } from ${JSON.stringify(join(repo, 'dist', 'src-ts', 'cli', 'find-command.js'))}\nprocess.exitCode = await runFind(process.argv.slice(2))\n`,
  )
  const cli = (extra) => {
    const t0 = process.hrtime.bigint()
    const r = spawnSync(process.execPath, [script, ...terms, '--projects', estate, ...extra], { encoding: 'utf8' })
    if (r.status !== 0) throw new Error(r.stderr)
    return Number(process.hrtime.bigint() - t0) / 1e6
  }
  const cliCold = median(Array.from({ length: 3 }, () => cli(['--no-index'])))
  // find --exact: each variant's median over the rounds, after one warm-up of the page cache.
  const exactRuns = [
    { name: 'identifier fragment, case-insensitive', text: 'stampOverride::sort', opts: {} },
    { name: 'identifier fragment, case-sensitive', text: 'stampOverride::sort', opts: { caseSensitive: true } },
    { name: 'non-ASCII needle (Unicode folding)', text: 'Überprüfung', opts: {} },
    { name: 'with --tools (tool results read too)', text: 'stampOverride::sort', opts: { tools: true } },
  ]
  await findExact(exactRuns[0].text, { projects: estate })
  const exact = []
  for (const x of exactRuns) {
    const ms = []
    let r
    for (let i = 0; i < rounds; i++) {
      const [t, rep] = await time(() => findExact(x.text, { projects: estate, ...x.opts }))
      ms.push(t)
      r = rep
    }
    exact.push({
      name: x.name,
      text: x.text,
      ms: median(ms),
      MBperS: bytes / 1e6 / (median(ms) / 1000),
      matches: r.scope.matches,
    })
  }
  const exactCliMs = median(
    Array.from({ length: 3 }, () => {
      const t0 = process.hrtime.bigint()
      const r = spawnSync(process.execPath, [script, '--exact', exactRuns[0].text, '--projects', estate], {
        encoding: 'utf8',
      })
      if (r.status !== 0) throw new Error(r.stderr)
      return Number(process.hrtime.bigint() - t0) / 1e6
    }),
  )
  const cliWarm = median(Array.from({ length: 3 }, () => cli(['--index-dir', indexDir])))
  const result = {
    estate,
    bytes,
    sessions: report.scope.sessionsTotal,
    files: report.scope.filesTotal,
    terms,
    coldMs: median(cold),
    coldMBperS: bytes / 1e6 / (median(cold) / 1000),
    indexBuildMs: buildMs,
    warmMs: median(warm),
    warmOtherQueriesMs: warmOther,
    cliColdMs: cliCold,
    cliColdMBperS: bytes / 1e6 / (cliCold / 1000),
    cliWarmMs: cliWarm,
    exact,
    exactCliMs,
    exactCliMBperS: bytes / 1e6 / (exactCliMs / 1000),
    maxRssKiB: process.resourceUsage().maxRSS,
  }
  const f = (n) => n.toFixed(0)
  process.stderr.write(
    `find on ${(bytes / 1e6).toFixed(0)} MB (${result.sessions} sessions, ${result.files} files), terms: ${terms.join(' ')}\n` +
      `  cold, in process:  ${f(result.coldMs)} ms  (${f(result.coldMBperS)} MB/s)\n` +
      `  cold, CLI:         ${f(cliCold)} ms  (${f(result.cliColdMBperS)} MB/s)\n` +
      `  index build:       ${f(buildMs)} ms\n` +
      `  warm, in process:  ${f(result.warmMs)} ms  (other queries: ${warmOther.map(f).join(', ')} ms)\n` +
      `  warm, CLI:         ${f(cliWarm)} ms\n` +
      exact.map((x) => `  --exact ${x.name}: ${f(x.ms)} ms (${f(x.MBperS)} MB/s, ${x.matches} matches)\n`).join('') +
      `  --exact, CLI:      ${f(exactCliMs)} ms (${f(result.exactCliMBperS)} MB/s)\n`,
  )
  process.stdout.write(JSON.stringify(result) + '\n')
} finally {
  rmSync(indexDir, { recursive: true, force: true })
}
