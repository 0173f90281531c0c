#!/usr/bin/env node
// Times the readers over an archive of an estate beside the same readers over the estate itself,
// whole process through the CLI, round by round in turn (so both see the same load), with each
// run's peak RSS: `stats` (the target), `sessions` (the 20 most recent) and `find --no-index`
// (every transcript decoded and indexed in memory). The archive is read from its streams in
// memory: no reader writes a copy of it (the cache folder is checked to stay empty).
//
//   node benches/archive-read.mjs [PROJECTS] [--rounds N] [--archive DIR]
//
// PROJECTS defaults to .bench-cache/estate/projects (read only). The archive is made in
// --archive DIR (default a folder under the temp dir, kept for the next run: a re-run of
// `archive` on an unchanged estate costs a few hundred ms). Prints a short log on stderr and one
// JSON line on stdout.
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
const scratch = mkdtempSync(join(tmpdir(), 'cj-archive-read-bench-'))
const env = { ...process.env, XDG_CACHE_HOME: scratch }
const FIND = ['find', 'migration', 'plan', '--no-index', '--json']
const runs = {
  estate: () => timed([cli, 'stats', '--projects', projects, '--json'], env),
  archive: () => timed([cli, 'stats', root, '--json'], env),
  sessionsEstate: () => timed([cli, 'sessions', '--projects', projects, '--json'], env),
  sessionsArchive: () => timed([cli, 'sessions', '--projects', root, '--json'], env),
  findEstate: () => timed([cli, ...FIND, '--projects', projects], env),
  findArchive: () => timed([cli, ...FIND, '--projects', root], env),
}
const out = { rounds, cores: cpus().length, load: loadavg()[0], archivePath: root }
try {
  const du = (d) => Number(spawnSync('du', ['-sb', d], { encoding: 'utf8' }).stdout.split('\t')[0])
  out.archiveBytes = du(root)
  const got = Object.fromEntries(Object.keys(runs).map((k) => [k, []]))
  for (let round = -1; round < rounds; round++) {
    for (const [name, run] of Object.entries(runs)) {
      const r = run()
      if (round >= 0) got[name].push(r)
    }
  }
  const totals = (r) => JSON.stringify(JSON.parse(r.stdout).totals)
  if (totals(got.estate[0]) !== totals(got.archive[0]))
    throw new Error('stats over the archive differ from stats over the estate')
  const ids = (r, key) => JSON.stringify(JSON.parse(r.stdout)[key].map((x) => x.sessionId))
  if (ids(got.sessionsEstate[0], 'sessions') !== ids(got.sessionsArchive[0], 'sessions'))
    throw new Error('sessions over the archive differ from sessions over the estate')
  if (ids(got.findEstate[0], 'hits') !== ids(got.findArchive[0], 'hits'))
    throw new Error('find over the archive differs from find over the estate')
  out.cacheFiles = du(scratch) > 4096 ? spawnSync('find', [scratch, '-type', 'f'], { encoding: 'utf8' }).stdout : ''
  if (out.cacheFiles) throw new Error(`a reader wrote into the cache folder: ${out.cacheFiles}`)
  for (const [name, rs] of Object.entries(got)) {
    out[name] = {
      medianMs: median(rs.map((r) => r.ms)),
      cpuS: median(rs.map((r) => r.cpuS)),
      peakRssMiB: Math.max(...rs.map((r) => r.rssMiB)),
    }
  }
  out.archiveOverEstate = out.archive.medianMs / out.estate.medianMs
  out.sessionsOverEstate = out.sessionsArchive.medianMs / out.sessionsEstate.medianMs
  out.findOverEstate = out.findArchive.medianMs / out.findEstate.medianMs
  out.loadAfter = loadavg()[0]
  log(
    `[archive-read] stats estate ${out.estate.medianMs.toFixed(0)} ms, archive ${out.archive.medianMs.toFixed(0)} ms (${out.archiveOverEstate.toFixed(2)}x, peak ${out.archive.peakRssMiB.toFixed(0)} MiB); sessions ${out.sessionsOverEstate.toFixed(2)}x; find --no-index ${out.findOverEstate.toFixed(2)}x (peak ${out.findArchive.peakRssMiB.toFixed(0)} MiB)`,
  )
} finally {
  rmSync(scratch, { recursive: true, force: true })
}
process.stdout.write(JSON.stringify(out) + '\n')
