#!/usr/bin/env node
// `node benches/requests.mjs [PROJECTS] [--rounds N]`: the TS API's requests() over the
// benchmark estate (every request made into an object and priced), beside stats() on the same
// estate, round-robin in one process after a warm-up round, medians. Also checks that the
// requests' costs add up to stats' total. Writes the "requests() over the estate" section of
// benches/RESULTS.md.
import { join } from 'node:path'
import { writeResultsSection } from './results-section.mjs'
import { median, repo, roundRobin, scriptArgs } from './script-args.mjs'

const { input: projects, rounds } = scriptArgs(
  join(repo, '.bench-cache', 'estate', 'projects'),
  'node benches/requests.mjs [PROJECTS] [--rounds N]',
  5,
)
const { requests, stats } = await import(join(repo, 'dist', 'src-ts', 'index.js'))

let report
let summed
const runs = {
  stats: async () => {
    report = await stats({ projects })
  },
  requests: async () => {
    let n = 0
    let cost = 0
    for await (const q of requests({ projects })) {
      n++
      cost += q.costUsd ?? 0
    }
    summed = { n, cost }
  },
}
const { times, cpus } = await roundRobin(runs, rounds)
const t = report.totals
if (summed.n !== t.requests || Math.abs(summed.cost - t.costUsd) > 1e-9 * Math.max(1, t.costUsd)) {
  console.error(
    `requests bench: requests() and stats() disagree (${summed.n} vs ${t.requests}, $${summed.cost} vs $${t.costUsd})`,
  )
  process.exit(1)
}
const gb = report.scope.bytes / 1e9
const row = (name, label) =>
  `| ${label} | ${median(times[name]).toFixed(0)} | ${(gb / (median(times[name]) / 1000)).toFixed(2)} | ${median(cpus[name]).toFixed(0)} |`
const section = [
  '## requests() over the estate',
  '',
  `Written by \`node benches/requests.mjs\` on ${new Date().toISOString().slice(0, 10)}: the ${gb.toFixed(2)} GB benchmark estate (${report.scope.files} files, ${t.requests} requests), ${rounds} counted rounds round-robin in one process after a warm-up round, medians. Both scan the estate natively; requests() then makes every request an object and prices it. Its costs add up to stats' total ($${t.costUsd.toFixed(2)}).`,
  '',
  '| call | median wall ms | GB/s | median CPU ms (all threads) |',
  '| --- | ---: | ---: | ---: |',
  row('stats', '`stats({ projects })`'),
  row('requests', '`for await (const q of requests({ projects }))`'),
  '',
  `requests() takes ${(median(times.requests) / median(times.stats)).toFixed(2)}x the wall time of stats().`,
  '',
].join('\n')
writeResultsSection(section)
console.log(
  JSON.stringify({
    projects,
    gb,
    requests: t.requests,
    statsMs: median(times.stats),
    requestsMs: median(times.requests),
  }),
)
