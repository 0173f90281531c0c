// Whole-process start-up and one-session speed, in paired runs: the installed command
// (dist/src-ts/cli/bin.cjs, as `claude-jsonl` runs) beside `node -e 0` and beside ccusage's native
// binary, round-robin in one run (one uncounted warm-up round), medians with the spread, the
// machine's load average at the start and the end of each part. Three parts:
//   - fixed cost: stats, show, sessions and find on an empty estate against `node -e 0`
//     (target: within 25 ms, median wall);
//   - one session: `stats --json` on the 50 MB bench transcript against `ccusage daily --json
//     --offline` (target: at least 1.5x faster, median wall);
//   - with --estate: `stats --json` on the 1 GB bench estate against ccusage, paired (target: at
//     least 3x faster in the median of the pairs' ratios; the spread of both is printed).
// It writes the "## Start-up and one session, paired" section of benches/RESULTS.md.
//
//   node benches/startup-paired.mjs [--rounds N] [--estate] [--estate-pairs N]
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { PEER_BIN, PEER_VERSION, installPeer } from './ccusage-peer.mjs'
// Built by tsc with the tests (npm run build:ts).
import { median, timeProcess } from '../dist/__test__/helpers/process-time.js'
import { writeResultsSection } from './results-section.mjs'

const REPO = path.join(path.dirname(fileURLToPath(import.meta.url)), '..')
const CACHE = path.join(REPO, '.bench-cache')
const args = process.argv.slice(2)
const opt = (name, dflt) => {
  const i = args.indexOf(name)
  return i >= 0 ? args[i + 1] : dflt
}
const rounds = Number(opt('--rounds', 15))
const withEstate = args.includes('--estate')
const estatePairs = Number(opt('--estate-pairs', 7))

const BIN = path.join(REPO, 'dist', 'src-ts', 'cli', 'bin.cjs')
const SINGLE = path.join(CACHE, 'single')
const ESTATE = path.join(CACHE, 'estate')
const EMPTY_HOME = path.join(CACHE, 'empty-home')
const load = () => fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')
const rel = (p) => path.relative(REPO, p)

if (!fs.existsSync(PEER_BIN) && installPeer() !== 0) throw new Error('could not install ccusage')
if (!fs.existsSync(path.join(SINGLE, 'projects')))
  throw new Error('no bench transcript: run node benches/run.mjs first')
fs.mkdirSync(EMPTY_HOME, { recursive: true })
const empty = fs.mkdtempSync(path.join(fs.realpathSync(process.env.TMPDIR ?? '/tmp'), 'claude-jsonl-empty-'))
const emptyProjects = path.join(empty, 'projects')
fs.mkdirSync(emptyProjects)
const peerEnv = (root) => {
  const env = { ...process.env, HOME: EMPTY_HOME, CLAUDE_CONFIG_DIR: root, NO_COLOR: '1' }
  return env
}
const oursEnv = { ...process.env }
delete oursEnv.CLAUDE_CONFIG_DIR

/** Runs `rows` round-robin; returns each row's runs ({wallMs, cpuMs, status}). */
function roundRobin(rows, n) {
  const runs = rows.map(() => [])
  for (let round = -1; round < n; round++)
    rows.forEach((r, i) => {
      const t = timeProcess(r.argv, r.env)
      if (round >= 0) runs[i].push(t)
    })
  return runs
}

const ms = (x) => x.toFixed(1)
const s3 = (x) => (x / 1000).toFixed(3)
const lines = []

// Fixed cost. `show` names a session the empty estate does not hold (exit 3, after the command
// has loaded); the others run to their end on the empty estate.
const fixedRows = [
  { name: 'node -e 0', argv: [process.execPath, '-e', '0'] },
  { name: 'stats', argv: [process.execPath, BIN, 'stats', '--projects', emptyProjects] },
  { name: 'show', argv: [process.execPath, BIN, 'show', '--projects', emptyProjects, '0123abcd'] },
  { name: 'sessions', argv: [process.execPath, BIN, 'sessions', '--projects', emptyProjects] },
  { name: 'find', argv: [process.execPath, BIN, 'find', 'word', '--projects', emptyProjects] },
  { name: 'stats --json', argv: [process.execPath, BIN, 'stats', '--json', '--projects', emptyProjects] },
].map((r) => ({ ...r, env: { ...oursEnv, XDG_CACHE_HOME: path.join(empty, 'cache') } }))
const loadBefore = load()
const fixed = roundRobin(fixedRows, rounds)
const loadAfter = load()
const base = fixed[0]
lines.push(
  '## Start-up and one session, paired',
  '',
  `Written by \`node benches/startup-paired.mjs${args.length ? ' ' + args.join(' ') : ''}\` on ${new Date().toISOString()}, Node ${process.version}. Whole processes of the installed command (\`${rel(BIN)}\`), round-robin: one uncounted warm-up round, then the counted rounds; wall time around each process, CPU time (user + system, all threads) from bash's \`times\`. "Over node -e 0" is the median of each round's difference, so both sides of a pair ran at the same moment of the machine's load.`,
  '',
  ...(process.env.NODE_EXTRA_CA_CERTS
    ? [
        // Node (before 22) parses that file's certificates at start-up, before any of our code, on
        // the one thread that then runs the command: tens of ms of CPU that ccusage's binary does
        // not pay, and that grow with the machine's load.
        '`NODE_EXTRA_CA_CERTS` is set in this environment: every Node process here (`node -e 0` too) parses those certificates at start-up, before any of our code runs; unset it to measure without that cost.',
        '',
      ]
    : []),
  `### Fixed cost on an empty estate (${rounds} rounds; load average ${loadBefore} at the start, ${loadAfter} at the end)`,
  '',
  '| process | wall median ms | wall min ms | wall max ms | over node -e 0, wall ms | CPU median ms | over node -e 0, CPU ms | exit |',
  '| ------- | -------------: | ----------: | ----------: | ----------------------: | ------------: | ---------------------: | ---: |',
)
const fixedVerdicts = []
fixedRows.forEach((r, i) => {
  const w = fixed[i].map((t) => t.wallMs)
  const c = fixed[i].map((t) => t.cpuMs)
  const dw = median(fixed[i].map((t, k) => t.wallMs - base[k].wallMs))
  const dc = median(fixed[i].map((t, k) => t.cpuMs - base[k].cpuMs))
  if (i > 0 && i < 5) fixedVerdicts.push([r.name, dw, dc])
  const over = i === 0 ? ['', ''] : [ms(dw), ms(dc)]
  lines.push(
    `| ${r.name === 'node -e 0' ? r.name : 'claude-jsonl ' + r.name} | ${ms(median(w))} | ${ms(Math.min(...w))} | ${ms(Math.max(...w))} | ${over[0]} | ${ms(median(c))} | ${over[1]} | ${fixed[i][0].status} |`,
  )
})
lines.push('')
const worst = fixedVerdicts.reduce((a, b) => (b[1] > a[1] ? b : a))
lines.push(
  `Target: each of stats, show, sessions and find within 25 ms of \`node -e 0\` (median wall): ${fixedVerdicts.map(([n, dw]) => `${n} +${ms(dw)} ms`).join(', ')}; ${fixedVerdicts.every(([, dw]) => dw <= 25) ? 'met' : `not met (worst: ${worst[0]})`}.`,
  '',
)

/**
 * Paired ours/peer runs on `root` (a folder holding projects/): per-pair ratios and both sides.
 * `env` is ours (default: this process's, less CLAUDE_CONFIG_DIR).
 */
function paired(root, n, env = oursEnv) {
  const rows = [
    {
      name: 'claude-jsonl stats --json',
      argv: [process.execPath, BIN, 'stats', '--json', '--projects', path.join(root, 'projects')],
      env,
    },
    {
      name: `ccusage ${PEER_VERSION} daily --json --offline`,
      argv: [PEER_BIN, 'daily', '--json', '--offline'],
      env: peerEnv(root),
    },
  ]
  const before = load()
  const runs = roundRobin(rows, n)
  const after = load()
  const ratios = runs[0].map((t, k) => runs[1][k].wallMs / t.wallMs)
  return { rows, runs, ratios, before, after }
}

function pairedTable(title, p, target) {
  const L = [title, '']
  L.push('| process | wall median s | wall min s | wall max s | max/min | CPU median s |')
  L.push('| ------- | ------------: | ---------: | ---------: | ------: | -----------: |')
  p.rows.forEach((r, i) => {
    const w = p.runs[i].map((t) => t.wallMs)
    const c = p.runs[i].map((t) => t.cpuMs)
    L.push(
      `| ${r.name} | ${s3(median(w))} | ${s3(Math.min(...w))} | ${s3(Math.max(...w))} | ${(Math.max(...w) / Math.min(...w)).toFixed(2)} | ${s3(median(c))} |`,
    )
  })
  const m = median(p.ratios)
  const sorted = [...p.ratios].sort((a, b) => a - b)
  L.push(
    '',
    `Per pair, ccusage's wall time over ours: ${sorted.map((x) => x.toFixed(2) + 'x').join(', ')}; median ${m.toFixed(2)}x (target: at least ${target}x): ${m >= target ? 'met' : 'not met'}. Ratio of the medians: ${(median(p.runs[1].map((t) => t.wallMs)) / median(p.runs[0].map((t) => t.wallMs))).toFixed(2)}x.`,
    '',
  )
  return L
}

const single = paired(SINGLE, rounds)
const singleMb = fs
  .readdirSync(path.join(SINGLE, 'projects', 'p'))
  .filter((f) => f.endsWith('.jsonl'))
  .reduce((a, f) => a + fs.statSync(path.join(SINGLE, 'projects', 'p', f)).size, 0)
lines.push(
  ...pairedTable(
    `### One session: the ${(singleMb / 1e6).toFixed(1)} MB bench transcript (${rounds} pairs; load average ${single.before} at the start, ${single.after} at the end)`,
    single,
    1.5,
  ),
)
if (withEstate) {
  const estate = paired(ESTATE, estatePairs)
  lines.push(
    ...pairedTable(
      `### The 1 GB bench estate (${estatePairs} pairs; load average ${estate.before} at the start, ${estate.after} at the end)`,
      estate,
      3,
    ),
  )
  if (process.env.NODE_EXTRA_CA_CERTS) {
    // The same pairs with our process spared the certificates Node parses before any script
    // (ccusage's binary never reads them): what the comparison is where the variable is unset.
    const withoutCa = { ...oursEnv }
    delete withoutCa.NODE_EXTRA_CA_CERTS
    const bare = paired(ESTATE, estatePairs, withoutCa)
    lines.push(
      ...pairedTable(
        `### The 1 GB bench estate, \`NODE_EXTRA_CA_CERTS\` unset for our process (${estatePairs} pairs; load average ${bare.before} at the start, ${bare.after} at the end)`,
        bare,
        3,
      ),
    )
  }
}
fs.rmSync(empty, { recursive: true, force: true })
const section = lines.join('\n') + '\n'
process.stdout.write(section)
writeResultsSection(section)
