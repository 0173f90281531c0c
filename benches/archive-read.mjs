#!/usr/bin/env node
// Times `stats` over an archive of an estate beside `stats` over the estate itself, whole
// process through the CLI, round by round in turn (so both see the same load), with each run's
// peak RSS: the archive read from its streams in memory (what `stats ARCHIVE` does), and, for
// the record, through a read view (a decoded copy of every transcript in a cache folder, what
// readers did before; refreshed and already up to date, so only its scan is timed).
//
//   node benches/archive-read.mjs [PROJECTS] [--rounds N] [--archive DIR]
//
// PROJECTS defaults to .bench-cache/estate/projects (read only). The archive is made in
// --archive DIR (default a folder under the temp dir, kept for the next run: a re-run of
// `archive` on an unchanged estate costs a few hundred ms); the view goes to a temp folder
// removed at the end. Prints a short log on stderr and one JSON line on stdout.
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { cpus, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { median, repo, scriptArgs } from './script-args.mjs'

const {
  input: projects,
  rounds,
  opt,
} = scriptArgs(
  join(repo, '.bench-cache', 'estate', 'projects'),
  'node benches/archive-read.mjs [PROJECTS] [--rounds N] [--archive DIR]',
  5,
)
const root = opt('--archive', join(tmpdir(), 'cj-archive-read-bench', 'archive'))
const cli = join(repo, 'dist', 'src-ts', 'cli', 'main.js')
const log = (s) => process.stderr.write(s + '\n')

/** Runs node with `args` under GNU time: wall ms, CPU s and peak RSS (MiB). */
function timed(args, env = process.env) {
  const r = spawnSync('/usr/bin/time', ['-f', '%e %U %S %M', process.execPath, ...args], {
    encoding: 'utf8',
    env,
    maxBuffer: 64 << 20,
  })
  if (r.status !== 0) throw new Error(`${args.join(' ')} failed (${r.status}): ${r.stderr.slice(-400)}`)
  const [e, u, s, kb] = r.stderr.trim().split('\n').pop().split(' ').map(Number)
  return { ms: e * 1000, cpuS: u + s, rssMiB: kb / 1024, stdout: r.stdout }
}

const made = spawnSync(process.execPath, [cli, 'archive', '--projects', projects, '--to', root], { encoding: 'utf8' })
if (made.status !== 0) throw new Error(`archive failed: ${made.stderr}`)
log(`[archive-read] archive at ${root}: ${made.stdout.trim().split('\n')[0]}`)
const scratch = mkdtempSync(join(tmpdir(), 'cj-archive-view-bench-'))
const env = { ...process.env, XDG_CACHE_HOME: scratch }
// stats through a read view: the view refreshed (nothing to decode once it is made), then
// scanned as an estate, in one process as the readers did
const viaView = [
  '--input-type=module',
  '-e',
  `const v = await import(${JSON.stringify(join(repo, 'dist', 'src-ts', 'archive', 'view.js'))});
   const s = await import(${JSON.stringify(join(repo, 'dist', 'src-ts', 'read', 'stats.js'))});
   const r = await s.stats({ projects: v.openArchiveView(${JSON.stringify(root)}) });
   process.stdout.write(JSON.stringify(r.totals) + '\\n')`,
]
const runs = {
  estate: () => timed([cli, 'stats', '--projects', projects, '--json']),
  archive: () => timed([cli, 'stats', root, '--json']),
  view: () => timed(viaView, env),
}
const out = { rounds, cores: cpus().length, load: loadavg()[0], archivePath: root }
try {
  const first = timed(viaView, env) // makes the view (not counted)
  out.viewFirstMs = first.ms
  const du = (d) => Number(spawnSync('du', ['-sb', d], { encoding: 'utf8' }).stdout.split('\t')[0])
  out.archiveBytes = du(root)
  out.viewBytes = du(scratch)
  const got = Object.fromEntries(Object.keys(runs).map((k) => [k, []]))
  for (let round = -1; round < rounds; round++) {
    for (const [name, run] of Object.entries(runs)) {
      const r = run()
      if (round >= 0) got[name].push(r)
    }
  }
  const totals = (r) => JSON.stringify(JSON.parse(r.stdout).totals ?? JSON.parse(r.stdout))
  if (totals(got.estate[0]) !== totals(got.archive[0]))
    throw new Error('stats over the archive differ from stats over the estate')
  for (const [name, rs] of Object.entries(got)) {
    out[name] = {
      medianMs: median(rs.map((r) => r.ms)),
      cpuS: median(rs.map((r) => r.cpuS)),
      peakRssMiB: Math.max(...rs.map((r) => r.rssMiB)),
    }
  }
  out.archiveOverEstate = out.archive.medianMs / out.estate.medianMs
  out.viewOverEstate = out.view.medianMs / out.estate.medianMs
  out.loadAfter = loadavg()[0]
  log(
    `[archive-read] stats estate ${out.estate.medianMs.toFixed(0)} ms, archive ${out.archive.medianMs.toFixed(0)} ms (${out.archiveOverEstate.toFixed(2)}x, peak ${out.archive.peakRssMiB.toFixed(0)} MiB), through a view ${out.view.medianMs.toFixed(0)} ms (${out.viewOverEstate.toFixed(2)}x)`,
  )
} finally {
  rmSync(scratch, { recursive: true, force: true })
}
process.stdout.write(JSON.stringify(out) + '\n')
