#!/usr/bin/env node
// Times claude-jsonl's stats() inside one running Node process: what an application embedding
// the API sees, without Node's start-up (about 70 ms here) in every measurement.
//
//   node benches/in-process.mjs PATH [--rounds N]
//
// Prints one JSON line: {bytes, rounds, medianS, minS, mbPerS, maxRssKiB, totals}.
import { statSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const args = process.argv.slice(2)
const path = args[0]
const roundsAt = args.indexOf('--rounds')
const rounds = roundsAt >= 0 ? Number(args[roundsAt + 1]) : 5
if (!path || !(rounds > 0)) {
  process.stderr.write('usage: node benches/in-process.mjs PATH [--rounds N]\n')
  process.exit(2)
}

const api = await import(join(dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'src-ts', 'index.js'))
const opts = statSync(path).isDirectory() ? { projects: path } : { paths: [path] }

let report = await api.stats(opts) // warm-up: loads the addon, fills caches
const times = []
for (let i = 0; i < rounds; i++) {
  const t0 = process.hrtime.bigint()
  report = await api.stats(opts)
  times.push(Number(process.hrtime.bigint() - t0) / 1e9)
}
times.sort((a, b) => a - b)
const mid = times.length >> 1
const medianS = times.length % 2 ? times[mid] : (times[mid - 1] + times[mid]) / 2
const bytes = report.scope.bytes
process.stdout.write(
  JSON.stringify({
    bytes,
    rounds,
    medianS,
    minS: times[0],
    mbPerS: bytes / 1e6 / medianS,
    maxRssKiB: process.resourceUsage().maxRSS,
    totals: report.totals,
  }) + '\n',
)
