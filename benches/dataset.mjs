// The team dataset, whole processes of the installed command, wall time (CPU time of each from
// GNU time):
// - `export` of the bench estate (.bench-cache/estate/projects, read-only) into a fresh folder
//   beside `stats` of the same estate, in pairs that alternate which runs first; the ratio of
//   the medians is checked against its target (export within 1.5x of stats);
// - a simulated team: ten generated estates (different seeds, about 200 MB each, cached under
//   /tmp/claude-jsonl-bench-team) exported one after the other into one dataset, then
//   `stats --dataset` and a DuckDB group-by (`query`) over it, each timed, with the dataset's size
//   beside the estates' and the team's totals checked against `stats` of each estate summed.
// It writes the "## dataset: export, stats --dataset and DuckDB over a team" section of
// benches/RESULTS.md.
//
//   node benches/dataset.mjs [--rounds N] [--machines N] [--machine-mb M]
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { writeResultsSection } from './results-section.mjs'

const REPO = path.join(path.dirname(fileURLToPath(import.meta.url)), '..')
const args = process.argv.slice(2)
const opt = (name, fallback) => (args.includes(name) ? Number(args[args.indexOf(name) + 1]) : fallback)
const rounds = opt('--rounds', 5)
const machines = opt('--machines', 10)
const machineMb = opt('--machine-mb', 200)
const projects = path.join(REPO, '.bench-cache', 'estate', 'projects')
const BIN = path.join(REPO, 'dist', 'src-ts', 'cli', 'bin.cjs')
const TEAM = path.join(os.tmpdir(), 'claude-jsonl-bench-team')
const load = () => fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2
}
const log = (s) => process.stderr.write(`[dataset] ${s}\n`)

/** Runs the installed command with `argv` under GNU time: wall and CPU seconds, and stdout. */
function timed(argv) {
  const t = process.hrtime.bigint()
  const r = spawnSync('/usr/bin/time', ['-f', '%U %S %M', process.execPath, BIN, ...argv], {
    encoding: 'utf8',
    maxBuffer: 1 << 28,
  })
  const wallS = Number(process.hrtime.bigint() - t) / 1e9
  if (r.status !== 0) throw new Error(`claude-jsonl ${argv.join(' ')} failed (${r.status}): ${r.stderr}`)
  const [u, s, kb] = r.stderr.trim().split('\n').pop().split(' ').map(Number)
  return { wallS, cpuS: u + s, rssMb: kb / 1024, out: r.stdout }
}

function du(p) {
  const st = fs.lstatSync(p)
  if (!st.isDirectory()) return st.size
  return fs.readdirSync(p).reduce((a, n) => a + du(path.join(p, n)), 0)
}

if (!fs.existsSync(BIN)) {
  log(`${BIN} is missing: npm run build first`)
  process.exit(1)
}
if (!fs.existsSync(projects)) {
  log(`${projects} is missing: run node benches/run.mjs once to generate the bench estate`)
  process.exit(1)
}

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'cj-dataset-bench-'))
const before = load()
const result = { rounds, machines, machineMb }
try {
  // 1. export of the bench estate beside stats of it.
  const estateBytes = du(projects)
  const runs = { export: [], stats: [] }
  let exported
  for (let i = -1; i < rounds; i++) {
    // Round -1 warms the page cache and is not counted.
    const to = path.join(scratch, `estate-${i + 1}`)
    const doExport = () => timed(['export', '--projects', projects, '--to', to, '--machine', 'bench', '--json'])
    const doStats = () => timed(['stats', '--projects', projects, '--json'])
    let e, s
    if (i % 2 === 0) {
      e = doExport()
      s = doStats()
    } else {
      s = doStats()
      e = doExport()
    }
    if (i >= 0) {
      runs.export.push(e)
      runs.stats.push(s)
    }
    exported = { report: JSON.parse(e.out), bytes: du(to), stats: JSON.parse(s.out) }
    // Each round's dataset stays until the run ends (20 MB each). Deleted just before the next
    // export, its 528 files and folders would be inodes freed seconds earlier, which ext4
    // without a journal (this machine's disk) skips over one by one when it allocates the next
    // round's: measured at about 0.2 s of the export's CPU, a cost of the benchmark's loop, not of
    // an export into a new folder.
    log(`estate round ${i + 1}: export ${e.wallS.toFixed(2)} s, stats ${s.wallS.toFixed(2)} s`)
  }
  const rows = (t) => exported.report.tables.find((x) => x.table === t).rows
  result.estate = {
    bytes: estateBytes,
    datasetBytes: exported.bytes,
    requests: rows('requests'),
    toolCalls: rows('tool_calls'),
    sessions: rows('sessions'),
    statsRequests: exported.stats.totals.requests,
    export: {
      wallS: median(runs.export.map((r) => r.wallS)),
      cpuS: median(runs.export.map((r) => r.cpuS)),
      rssMb: median(runs.export.map((r) => r.rssMb)),
    },
    stats: {
      wallS: median(runs.stats.map((r) => r.wallS)),
      cpuS: median(runs.stats.map((r) => r.cpuS)),
      rssMb: median(runs.stats.map((r) => r.rssMb)),
    },
  }

  // 2. a simulated team: estates with different seeds, one dataset.
  const estates = []
  for (let m = 1; m <= machines; m++) {
    const name = `m${String(m).padStart(2, '0')}`
    const out = path.join(TEAM, name)
    const want = { sessions: Math.round(machineMb * 0.6), targetMb: machineMb, seed: `team-${name}` }
    const manifest = path.join(out, 'manifest.json')
    const have = fs.existsSync(manifest) ? JSON.parse(fs.readFileSync(manifest, 'utf8')).args : undefined
    if (!have || have.seed !== want.seed || have.targetMb !== want.targetMb || have.sessions !== want.sessions) {
      fs.rmSync(out, { recursive: true, force: true })
      const { generateEstate } = await import(path.join(REPO, 'fixtures', 'generate.mjs'))
      log(`generating ${name} (${machineMb} MB, seed ${want.seed})`)
      generateEstate({ out, ...want })
    }
    estates.push({ name, projects: path.join(out, 'projects') })
  }
  const team = path.join(scratch, 'team')
  const exports = []
  let want = { requests: 0, outputTokens: 0, costUsd: 0 }
  let teamBytes = 0
  for (const e of estates) {
    teamBytes += du(e.projects)
    const r = timed(['export', '--projects', e.projects, '--to', team, '--machine', e.name, '--json'])
    exports.push(r)
    const s = JSON.parse(timed(['stats', '--projects', e.projects, '--json']).out).totals
    want = {
      requests: want.requests + s.requests,
      outputTokens: want.outputTokens + s.outputTokens,
      costUsd: want.costUsd + s.costUsd,
    }
    log(`exported ${e.name} in ${r.wallS.toFixed(2)} s`)
  }
  const again = timed([
    'export',
    '--projects',
    estates[0].projects,
    '--to',
    team,
    '--machine',
    estates[0].name,
    '--json',
  ])
  const sql =
    'SELECT machine, model, count(*) AS requests, sum(output_tokens) AS output, round(sum(cost_usd), 2) AS cost FROM requests GROUP BY ALL ORDER BY cost DESC'
  const statsRuns = []
  const queryRuns = []
  let teamStats, groups
  for (let i = -1; i < rounds; i++) {
    const s = timed(['stats', '--dataset', team, '--by', 'machine', '--json'])
    const q = timed(['query', sql, '--dataset', team, '--json'])
    if (i >= 0) {
      statsRuns.push(s)
      queryRuns.push(q)
    }
    teamStats = JSON.parse(s.out)
    groups = JSON.parse(q.out).rows.length
  }
  result.team = {
    estatesBytes: teamBytes,
    datasetBytes: du(team),
    exportS: exports.reduce((a, r) => a + r.wallS, 0),
    exportMedianS: median(exports.map((r) => r.wallS)),
    rerunS: again.wallS,
    rerunWritten: JSON.parse(again.out).tables.reduce((a, t) => a + t.written, 0),
    statsDataset: {
      wallS: median(statsRuns.map((r) => r.wallS)),
      cpuS: median(statsRuns.map((r) => r.cpuS)),
      rssMb: median(statsRuns.map((r) => r.rssMb)),
    },
    query: {
      wallS: median(queryRuns.map((r) => r.wallS)),
      cpuS: median(queryRuns.map((r) => r.cpuS)),
      rssMb: median(queryRuns.map((r) => r.rssMb)),
    },
    groups,
    sql,
    totals: teamStats.totals,
    want,
    agrees:
      teamStats.totals.requests === want.requests &&
      teamStats.totals.outputTokens === want.outputTokens &&
      Math.abs(teamStats.totals.costUsd - want.costUsd) < 0.005,
  }
} finally {
  fs.rmSync(scratch, { recursive: true, force: true })
}
result.load = { before, after: load() }

const mb = (b) => `${(b / 1e6).toFixed(0)} MB`
const s2 = (x) => `${x.toFixed(2)} s`
const E = result.estate
const T = result.team
const ratio = E.export.wallS / E.stats.wallS
const lines = [
  '## dataset: export, stats --dataset and DuckDB over a team',
  '',
  `\`node benches/dataset.mjs\`: whole processes of the installed command, wall time, medians of ${rounds} rounds after a warm-up (export and stats alternate which runs first); 2 cores, load average ${result.load.before} before and ${result.load.after} after.`,
  '',
  `| what | median | CPU | peak RSS | target |`,
  `| --- | --- | --- | --- | --- |`,
  `| \`stats\` of the bench estate (${mb(E.bytes)}) | ${s2(E.stats.wallS)} | ${s2(E.stats.cpuS)} | ${E.stats.rssMb.toFixed(0)} MiB | |`,
  `| \`export\` of it into a fresh folder (${E.requests.toLocaleString('en-US')} requests, ${E.toolCalls.toLocaleString('en-US')} tool calls, ${E.sessions} sessions; dataset ${mb(E.datasetBytes)}) | ${s2(E.export.wallS)} | ${s2(E.export.cpuS)} | ${E.export.rssMb.toFixed(0)} MiB | ≤ 1.5x stats: **${ratio.toFixed(2)}x** ${ratio <= 1.5 ? '(met)' : '(not met)'} |`,
  `| a team of ${machines} generated estates (${mb(T.estatesBytes)} together) exported into one dataset (${mb(T.datasetBytes)}, ${((100 * T.datasetBytes) / T.estatesBytes).toFixed(1)}% of the estates) | ${s2(T.exportS)} in all, ${s2(T.exportMedianS)} per machine | | | |`,
  `| a re-run of one machine's export, nothing changed (${T.rerunWritten} partitions written) | ${s2(T.rerunS)} | | | |`,
  `| \`stats --dataset --by machine\` over the team's dataset | ${s2(T.statsDataset.wallS)} | ${s2(T.statsDataset.cpuS)} | ${T.statsDataset.rssMb.toFixed(0)} MiB | |`,
  `| DuckDB group-by (\`query\`, ${T.groups} groups) | ${s2(T.query.wallS)} | ${s2(T.query.cpuS)} | ${T.query.rssMb.toFixed(0)} MiB | |`,
  '',
  ...(ratio <= 1.5
    ? []
    : [
        "Where the export's time goes beyond `stats`' (the scan is the same): [the dataset's Scale section](../docs/dataset.md#scale).",
        '',
      ]),
  `The export's requests equal \`stats\`' (${E.requests === E.statsRequests ? 'yes' : `no: ${E.requests} vs ${E.statsRequests}`}); the team's \`stats --dataset\` totals equal \`stats\` of each estate summed, to the token and the cent: ${T.agrees ? 'yes' : `**no** (${JSON.stringify({ got: T.totals, want: T.want })})`} (${T.totals.requests.toLocaleString('en-US')} requests). The group-by: \`${T.sql}\`.`,
  '',
]
writeResultsSection(lines.join('\n'))
log(
  `export ${s2(E.export.wallS)} vs stats ${s2(E.stats.wallS)}: ${ratio.toFixed(2)}x; team: stats --dataset ${s2(T.statsDataset.wallS)}, query ${s2(T.query.wallS)}`,
)
