#!/usr/bin/env node
// `node benches/records.mjs [--rounds N] [--file FILE]`: the TS API's records() against what a
// tooling author writes without it (readline + JSON.parse + a type filter), both yielding the
// assistant records of the ~50 MB benchmark transcript, round-robin in one process, medians.
// Writes the "records() streaming" section of benches/RESULTS.md (kept by a full `npm run bench`,
// which runs this after benches/run.mjs).
import { spawnSync } from 'node:child_process'
import { createReadStream, existsSync, mkdirSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { writeResultsSection } from './results-section.mjs'
import { roundRobin } from './script-args.mjs'

const REPO = join(dirname(fileURLToPath(import.meta.url)), '..')
const argv = process.argv.slice(2)
const arg = (name, fallback) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : fallback)
const rounds = Number(arg('--rounds', '7'))
const file = arg('--file', join(REPO, '.bench-cache', 'records', 'single.jsonl'))
if (!existsSync(file)) {
  mkdirSync(dirname(file), { recursive: true })
  const gen = ['single', '--out', file, '--target-mb', '50', '--seed', '42-single']
  const r = spawnSync(process.execPath, [join(REPO, 'fixtures', 'generate.mjs'), ...gen], { stdio: 'inherit' })
  if (r.status !== 0) process.exit(1)
}
const { records } = await import(join(REPO, 'dist', 'src-ts', 'index.js'))

async function plain() {
  let n = 0
  const rl = createInterface({ input: createReadStream(file), crlfDelay: Infinity })
  for await (const line of rl) {
    let v
    try {
      v = JSON.parse(line)
    } catch {
      continue
    }
    if (v !== null && typeof v === 'object' && v.type === 'assistant') n++
  }
  return n
}
async function ours() {
  let n = 0
  for await (const item of records(file, { types: ['assistant'], problems: false })) if (item.record) n++
  return n
}

const counts = {}
const { times, cpus } = await roundRobin(
  {
    plain: async () => (counts.plain = await plain()),
    ours: async () => (counts.ours = await ours()),
  },
  rounds,
)
if (counts.plain !== counts.ours) {
  console.error(`records bench: the two readers disagree (${counts.plain} vs ${counts.ours} assistant records)`)
  process.exit(1)
}
const median = (a) => [...a].sort((x, y) => x - y)[a.length >> 1]
const mb = readFileSync(file).length / 1e6
const plainMs = median(times.plain)
const oursMs = median(times.ours)
const ratio = plainMs / oursMs
const plainCpu = median(cpus.plain)
const oursCpu = median(cpus.ours)
const section = [
  '## records() streaming',
  '',
  `Written by \`node benches/records.mjs\` on ${new Date().toISOString().slice(0, 10)}: the assistant records of a ${mb.toFixed(1)} MB generated transcript (${counts.ours} records), ${rounds} counted rounds round-robin in one process after a warm-up round, medians.`,
  '',
  '| reader | median wall ms | MB/s | median CPU ms (all threads) |',
  '| --- | ---: | ---: | ---: |',
  `| readline + JSON.parse + filter (plain JS) | ${plainMs.toFixed(0)} | ${(mb / (plainMs / 1000)).toFixed(0)} | ${plainCpu.toFixed(0)} |`,
  `| \`records(file, { types: ['assistant'] })\` | ${oursMs.toFixed(0)} | ${(mb / (oursMs / 1000)).toFixed(0)} | ${oursCpu.toFixed(0)} |`,
  '',
  `records() is ${ratio.toFixed(2)}x faster in wall time and takes ${(plainCpu / oursCpu).toFixed(2)}x less CPU (target: at least 2x faster). The native selection runs on every core; on a machine shared with other work, the wall time of that part waits for a core.`,
  '',
].join('\n')
writeResultsSection(section)
console.log(JSON.stringify({ file, mb, plainMs, oursMs, ratio, plainCpu, oursCpu }))
