#!/usr/bin/env node
// Times `archive` and `restore` on an estate, beside the zstd CLI at level 3 and what a user
// would run instead of the archive (`tar cf - projects | zstd -3 -T2`, round by round beside it):
// a cold archive into an empty root (MB/s, size ratio, CPU seconds), a re-run on the unchanged
// estate (in process and through the CLI), and a restore of everything (MB/s). Two floors put
// the speeds in this machine's terms: `cp -r` + sync of the estate (the file-system work of any
// restore), and the CPU the archive cannot avoid, measured alone with our own code
// (crate/core/examples/archive_floor.rs, built here when cargo is there).
//
//   node benches/archive.mjs [PROJECTS] [--rounds N]
//
// PROJECTS defaults to .bench-cache/estate/projects (made by `npm run bench`). Archives and
// restores go to temp folders that are removed at the end. zstd is skipped when not installed.
// Prints a short log on stderr and one JSON line on stdout.
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { cpus, loadavg, tmpdir } from 'node:os'
import { basename, dirname, join } from 'node:path'
import { median, repo, scriptArgs } from './script-args.mjs'

const { input: projects, rounds } = scriptArgs(
  join(repo, '.bench-cache', 'estate', 'projects'),
  'node benches/archive.mjs [PROJECTS] [--rounds N]',
  3,
)
const { archive, restore } = await import(join(repo, 'dist', 'src-ts', 'archive', 'archive.js'))
const cli = join(repo, 'dist', 'src-ts', 'cli', 'main.js')
const log = (s) => process.stderr.write(s + '\n')
const time = async (f) => {
  const c0 = process.cpuUsage()
  const t0 = process.hrtime.bigint()
  const r = await f()
  const c = process.cpuUsage(c0)
  return { ms: Number(process.hrtime.bigint() - t0) / 1e6, cpuS: (c.user + c.system) / 1e6, r }
}

const files = []
const walk = (d) => {
  for (const n of readdirSync(d)) {
    const p = join(d, n)
    if (statSync(p).isDirectory()) walk(p)
    else if (n.endsWith('.jsonl')) files.push(p)
  }
}
walk(projects)
let bytes = 0
for (const f of files) bytes += readFileSync(f).length // also warms the page cache
const mbps = (b, ms) => b / 1e6 / (ms / 1000)
/** Runs a shell command under GNU time: { ms, cpuS } (user + system of the whole pipeline), or
 * null when it failed. */
const shellTimed = (cmd) => {
  const r = spawnSync('/usr/bin/time', ['-f', '%e %U %S', 'sh', '-c', cmd], { encoding: 'utf8' })
  if (r.status !== 0) return null
  const [e, u, s] = r.stderr.trim().split('\n').pop().split(' ').map(Number)
  return { ms: e * 1000, cpuS: u + s }
}
const scratch = mkdtempSync(join(tmpdir(), 'cj-archive-bench-'))
const out = { files: files.length, bytes, rounds, cores: cpus().length, load: loadavg()[0] }
try {
  // cold archive: a fresh root each round. Earlier rounds' folders are removed only at the end:
  // on ext4, creating thousands of files just after deleting thousands makes the kernel scan
  // past the recently freed inodes (about a tenth of the CPU time in a profile), which would
  // measure the benchmark's own clean-up rather than the archive.
  // Each round also runs what a user would do instead, `tar cf - projects | zstd -3 -T2`, right
  // after the archive, so both see the same load on a shared machine.
  const hasZstd = spawnSync('zstd', ['--version']).status === 0
  const cold = []
  const tarRuns = []
  const tarZst = join(scratch, 'projects.tar.zst')
  let report
  for (let i = 0; i < rounds; i++) {
    const to = join(scratch, `a${i}`)
    const t = await time(() => archive({ projects, to }))
    cold.push(t)
    report = t.r
    if (hasZstd) {
      const r = shellTimed(
        `tar cf - -C '${dirname(projects)}' '${basename(projects)}' | zstd -3 -T2 -q -c > '${tarZst}'`,
      )
      if (r) tarRuns.push(r)
    }
  }
  const root = join(scratch, `a${rounds - 1}`)
  const coldMs = median(cold.map((t) => t.ms))
  out.archive = {
    medianMs: coldMs,
    mbPerS: mbps(bytes, coldMs),
    cpuS: median(cold.map((t) => t.cpuS)),
    bytesStored: report.bytesStored,
    ratio: report.bytesIn / report.bytesStored,
    failures: report.failures.length,
  }
  log(
    `[archive] cold ${(coldMs / 1000).toFixed(2)} s, ${out.archive.mbPerS.toFixed(0)} MB/s, ${out.archive.cpuS.toFixed(1)} CPU-s, ratio ${out.archive.ratio.toFixed(2)}x`,
  )
  if (tarRuns.length === rounds) {
    const ms = median(tarRuns.map((r) => r.ms))
    out.tarZstd = {
      medianMs: ms,
      mbPerS: mbps(bytes, ms),
      cpuS: median(tarRuns.map((r) => r.cpuS)),
      ratio: bytes / statSync(tarZst).size,
    }
    log(
      `[tar | zstd -3 -T2] ${(ms / 1000).toFixed(2)} s, ${out.tarZstd.mbPerS.toFixed(0)} MB/s, ${out.tarZstd.cpuS.toFixed(1)} CPU-s, ratio ${out.tarZstd.ratio.toFixed(2)}x`,
    )
  }
  // re-run on the unchanged estate (one uncounted run first: the cold run's writes are still
  // being flushed)
  await archive({ projects, to: root })
  const rerun = []
  for (let i = 0; i < 5; i++) rerun.push(await time(() => archive({ projects, to: root })))
  const cliRerun = []
  for (let i = 0; i < 3; i++) {
    const t0 = process.hrtime.bigint()
    const r = spawnSync(process.execPath, [cli, 'archive', '--projects', projects, '--to', root], { encoding: 'utf8' })
    if (r.status !== 0) throw new Error(`archive CLI re-run failed: ${r.stderr}`)
    cliRerun.push(Number(process.hrtime.bigint() - t0) / 1e6)
  }
  const rerunMs = median(rerun.map((t) => t.ms))
  out.rerun = {
    inProcessMs: rerunMs,
    cpuMs: median(rerun.map((t) => t.cpuS * 1000)),
    cliMs: median(cliRerun),
    per2000FilesMs: (rerunMs * 2000) / files.length,
  }
  log(
    `[archive] unchanged re-run ${out.rerun.inProcessMs.toFixed(0)} ms in process (${out.rerun.cpuMs.toFixed(0)} ms CPU; ${out.rerun.per2000FilesMs.toFixed(0)} ms per 2,000 files), ${out.rerun.cliMs.toFixed(0)} ms CLI`,
  )
  // restore everything; beside each round, the file-system floor of any restore: copying the
  // estate's files as they are with cp -r, then syncing them (restore also syncs)
  const rest = []
  const copies = []
  for (let i = 0; i < rounds; i++) {
    const to = join(scratch, `r${i}`)
    const t = await time(() => restore(root, { all: true, to }))
    if (t.r.failed) throw new Error(`restore failed: ${t.r.files.find((f) => f.error).error}`)
    rest.push(t)
    const c = shellTimed(`cp -r '${projects}' '${join(scratch, `c${i}`)}' && sync -f '${scratch}'`)
    if (c) copies.push(c)
  }
  const restMs = median(rest.map((t) => t.ms))
  out.restore = { medianMs: restMs, mbPerS: mbps(bytes, restMs), cpuS: median(rest.map((t) => t.cpuS)) }
  log(`[restore] ${(restMs / 1000).toFixed(2)} s, ${out.restore.mbPerS.toFixed(0)} MB/s`)
  if (copies.length === rounds) {
    const ms = median(copies.map((c) => c.ms))
    out.copy = { medianMs: ms, mbPerS: mbps(bytes, ms), cpuS: median(copies.map((c) => c.cpuS)) }
    log(`[cp -r + sync] ${(ms / 1000).toFixed(2)} s, ${out.copy.mbPerS.toFixed(0)} MB/s`)
  }
  const list = join(scratch, 'files')
  writeFileSync(list, files.join('\n') + '\n')
  // zstd -3 over the same bytes (one stream of all files: cross-file context helps its ratio)
  if (hasZstd) {
    const z = join(scratch, 'all.zst')
    const peer = {}
    for (const threads of [1, 2]) {
      const runs = []
      for (let i = 0; i < rounds; i++)
        runs.push(shellTimed(`xargs -d '\\n' cat < '${list}' | zstd -3 -T${threads} -q -c > '${z}'`))
      const ms = median(runs.map((r) => r.ms))
      peer[`t${threads}`] = { medianMs: ms, mbPerS: mbps(bytes, ms), cpuS: median(runs.map((r) => r.cpuS)) }
    }
    peer.ratio = bytes / statSync(z).size
    const dec = []
    for (let i = 0; i < rounds; i++) {
      const r = spawnSync('/usr/bin/time', ['-f', '%e', 'sh', '-c', `zstd -dc -q '${z}' > /dev/null`], {
        encoding: 'utf8',
      })
      dec.push(Number(r.stderr.trim().split('\n').pop()) * 1000)
    }
    peer.decompressMBperS = mbps(bytes, median(dec))
    out.zstd = peer
    log(
      `[zstd -3] -T1 ${peer.t1.mbPerS.toFixed(0)} MB/s, -T2 ${peer.t2.mbPerS.toFixed(0)} MB/s, ratio ${peer.ratio.toFixed(2)}x; zstd -dc ${peer.decompressMBperS.toFixed(0)} MB/s`,
    )
  } else {
    log('[zstd] not installed: peer skipped')
  }
  // what the archive cannot avoid, measured alone with our own code: compressing each session
  // as one stream (its frames and zstd parameters) and SHA-256, one core
  // (crate/core/examples/archive_floor.rs)
  const built = spawnSync(
    'cargo',
    [
      'build',
      '--release',
      '--quiet',
      '--example',
      'archive_floor',
      '--manifest-path',
      join(repo, 'crate', 'core', 'Cargo.toml'),
    ],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  )
  if (built.status === 0) {
    const r = spawnSync(join(repo, 'target', 'release', 'examples', 'archive_floor'), [list], { encoding: 'utf8' })
    if (r.status === 0) {
      const f = JSON.parse(r.stdout)
      const cpuS = f.zstdCpuS + f.sha256CpuS
      out.floor = { ...f, cpuS, ceilingMBperS: mbps(bytes, (cpuS / out.cores) * 1000) }
      log(
        `[floor] zstd ${f.zstdCpuS.toFixed(2)} + sha256 ${f.sha256CpuS.toFixed(2)} CPU-s: at most ${out.floor.ceilingMBperS.toFixed(0)} MB/s on ${out.cores} cores`,
      )
    }
  }
} finally {
  rmSync(scratch, { recursive: true, force: true })
}
process.stdout.write(JSON.stringify(out) + '\n')
