// CLI start-up: what the command line costs before a command does any work. Two measures, each
// taken in fresh Node processes, round-robin, and reported as medians of CPU time (user +
// system, from process.cpuUsage() in the child: on a shared machine wall time mostly measures
// the other processes) with the wall time beside it:
//   - import: inside the child, around `await import(X)` of the argument parser and command
//     registry (ours, and optionally commander or gunshi from a folder given with
//     --libraries DIR, for the "a library only if it costs under 5 ms" rule);
//   - process: the whole process for `claude-jsonl --version`, `--help` and `stats --help`,
//     beside bare `node -e ""`, and optionally an older build given with --baseline DIR.
// It replaces the "## CLI start-up" section of benches/RESULTS.md.
//
//   node benches/cli-startup.mjs [--rounds N] [--libraries DIR] [--baseline DIR]
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const HERE = path.dirname(fileURLToPath(import.meta.url))
const REPO = path.join(HERE, '..')
const RESULTS_MD = path.join(HERE, 'RESULTS.md')
const TITLE = '## CLI start-up'

const args = process.argv.slice(2)
const opt = (name) => {
  const i = args.indexOf(name)
  return i >= 0 ? args[i + 1] : undefined
}
const rounds = Number(opt('--rounds') ?? 25)
const libraries = opt('--libraries')
const baseline = opt('--baseline')

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2
}

/** CPU and wall milliseconds spent importing `specifiers` in order, inside a fresh child. */
function importMs(specifiers, cwd = REPO) {
  const code = `const c = process.cpuUsage(), t = performance.now(); for (const s of ${JSON.stringify(specifiers)}) await import(s); const u = process.cpuUsage(c); process.stdout.write(JSON.stringify([(u.user + u.system) / 1000, performance.now() - t]))`
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', code], { encoding: 'utf8', cwd })
  if (r.status !== 0) throw new Error(`import of ${specifiers.join(', ')} failed: ${r.stderr}`)
  return JSON.parse(r.stdout)
}

// Preloaded into each measured process: prints its whole CPU time (bootstrap included) at exit.
const CPU_AT_EXIT =
  'data:text/javascript,' +
  encodeURIComponent(
    "process.on('exit', () => { const u = process.cpuUsage(); process.stderr.write('\\ncpu-ms ' + (u.user + u.system) / 1000) })",
  )

function processMs(argv) {
  const t = process.hrtime.bigint()
  const r = spawnSync(process.execPath, ['--import', CPU_AT_EXIT, ...argv], { encoding: 'utf8' })
  const wall = Number(process.hrtime.bigint() - t) / 1e6
  const cpu = /cpu-ms ([\d.]+)$/.exec(r.stderr)
  if (!cpu || (r.status !== 0 && !argv.includes('--help'))) throw new Error(`${argv.join(' ')} failed: ${r.stderr}`)
  return [Number(cpu[1]), wall]
}

const url = (p) => pathToFileURL(p).href
const ours = path.join(REPO, 'dist', 'src-ts', 'cli')
const imports = [
  ['node:util parseArgs (builtin)', ['node:util']],
  ['ours: command.js + registry.js', [url(path.join(ours, 'command.js')), url(path.join(ours, 'registry.js'))]],
]
{
  // Loaded by the table renderer only for a cell that is not printable ASCII.
  const dir = path.join(REPO, 'node_modules', 'string-width')
  const version = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')).version
  imports.push([`string-width ${version} (first non-ASCII cell only)`, [url(path.join(dir, 'index.js'))]])
}
if (libraries) {
  for (const lib of ['commander', 'gunshi']) {
    const dir = path.join(libraries, 'node_modules', lib)
    if (!fs.existsSync(dir)) continue
    const version = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')).version
    // A bare specifier in `node -e` code resolves from the child's working folder.
    imports.push([`${lib} ${version}`, [lib], libraries])
  }
}
const main = path.join(ours, 'main.js')
// The installed command (package.json "bin"): answers --version before loading the CLI's modules.
const bin = path.join(ours, 'bin.cjs')
// A real command on almost no data: start-up dominates.
const TINY = path.join(REPO, 'fixtures', 'topology', 'valid-linear.jsonl')
const walls = [
  ['node -e ""', ['-e', '']],
  ['claude-jsonl --version (installed bin.cjs)', [bin, '--version']],
  ['claude-jsonl --version (main.js)', [main, '--version']],
  ['claude-jsonl --help', [main, '--help']],
  ['claude-jsonl stats --help', [main, 'stats', '--help']],
  ['claude-jsonl stats --json TINY', [main, 'stats', '--json', TINY]],
]
if (baseline) {
  const old = path.join(baseline, 'dist', 'src-ts', 'cli', 'main.js')
  walls.push(['baseline --version', [old, '--version']], ['baseline --help', [old, '--help']])
  walls.push(['baseline stats --help', [old, 'stats', '--help']])
  walls.push(['baseline stats --json TINY', [old, 'stats', '--json', TINY]])
}

const importRuns = imports.map(() => [])
const wallRuns = walls.map(() => [])
for (let round = -1; round < rounds; round++) {
  // Round -1 warms the page cache and is not counted.
  imports.forEach(([, specs, cwd], i) => {
    const ms = importMs(specs, cwd)
    if (round >= 0) importRuns[i].push(ms)
  })
  walls.forEach(([, argv], i) => {
    const ms = processMs(argv)
    if (round >= 0) wallRuns[i].push(ms)
  })
}

const f1 = (x) => x.toFixed(1)
const row = (name, runs) => {
  const cpu = runs.map((r) => r[0])
  const wall = runs.map((r) => r[1])
  return `| ${name} | ${f1(median(cpu))} | ${f1(Math.min(...cpu))} | ${f1(Math.max(...cpu))} | ${f1(median(wall))} |`
}
const L = [
  TITLE,
  '',
  `Written by \`node benches/cli-startup.mjs${args.length ? ' ' + args.join(' ') : ''}\` on ${new Date().toISOString()}, Node ${process.version}, ${rounds} counted rounds after one warm-up, round-robin. The machine was shared (load average ${fs.readFileSync('/proc/loadavg', 'utf8').split(' ')[0]} at the end), so read the medians as ranges.`,
  '',
  '| import (inside a fresh child) | CPU median ms | CPU min ms | CPU max ms | wall median ms |',
  '| ----------------------------- | ------------: | ---------: | ---------: | -------------: |',
  ...imports.map(([name], i) => row(name, importRuns[i])),
  '',
  '| whole process | CPU median ms | CPU min ms | CPU max ms | wall median ms |',
  '| ------------- | ------------: | ---------: | ---------: | -------------: |',
  ...walls.map(([name], i) => row(name, wallRuns[i])),
  '',
  (() => {
    const wall = (i) => median(wallRuns[i].map((r) => r[1]))
    const ratio = wall(1) / wall(0)
    return `The installed \`claude-jsonl --version\` takes ${ratio.toFixed(2)}x the wall time of \`node -e ""\` (target: at most 1.15x): ${ratio <= 1.15 ? 'met' : 'not met'}.`
  })(),
  '',
]
const section = L.join('\n')
process.stdout.write(section + '\n')

let md = fs.existsSync(RESULTS_MD) ? fs.readFileSync(RESULTS_MD, 'utf8') : ''
const start = md.indexOf(TITLE)
if (start >= 0) {
  const next = md.indexOf('\n## ', start + 1)
  // Keep the notes written under the tables (everything after the generated part).
  const old = md.slice(start, next >= 0 ? next + 1 : md.length)
  const notesAt = old.indexOf('\n### ')
  const notes = notesAt >= 0 ? old.slice(notesAt + 1) : ''
  md = md.slice(0, start) + section + (notes ? '\n' + notes : '') + (next >= 0 ? md.slice(next) : '\n')
} else {
  // A new section goes before the hand-written History, which closes the file.
  const history = md.indexOf('\n## History\n')
  md =
    history >= 0 ? md.slice(0, history + 1) + section + '\n' + md.slice(history + 1) : md.trimEnd() + '\n\n' + section
}
fs.writeFileSync(RESULTS_MD, md.replace(/\n{3,}/g, '\n\n'))
