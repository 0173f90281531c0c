// The archive beside `tar cf - projects | zstd -3 -T2`, in pairs, both durable: each pair runs
// the installed command's `archive` of the bench estate into a fresh folder (it syncs what it
// writes before it exits), then the pipe into a fresh file followed by `sync` of that file, and
// the next pair starts with the pipe (alternating, so neither always runs first on a page cache
// the other warmed). Whole processes, wall time; CPU time (user + system) of each from GNU time.
// Folders and files of all pairs are removed only at the end: on ext4, creating thousands of
// files just after deleting thousands makes the kernel scan past the freed inodes, which would
// measure the benchmark's clean-up. It writes the "## archive beside tar | zstd, paired" section
// of benches/RESULTS.md.
//
//   node benches/archive-paired.mjs [--pairs N]
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { writeResultsSection } from './results-section.mjs'

const REPO = path.join(path.dirname(fileURLToPath(import.meta.url)), '..')
const args = process.argv.slice(2)
const pairs = Number(args.includes('--pairs') ? args[args.indexOf('--pairs') + 1] : 5)
const projects = path.join(REPO, '.bench-cache', 'estate', 'projects')
const BIN = path.join(REPO, 'dist', 'src-ts', 'cli', 'bin.cjs')
const load = () => fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2
}
const q = (s) => `'${s.replaceAll("'", "'\\''")}'`

/** Runs `cmd` in sh under GNU time: wall seconds and CPU seconds of the whole pipeline. */
function timed(cmd) {
  const t = process.hrtime.bigint()
  const r = spawnSync('/usr/bin/time', ['-f', '%U %S', 'sh', '-c', cmd], { encoding: 'utf8' })
  const wallS = Number(process.hrtime.bigint() - t) / 1e9
  if (r.status !== 0) throw new Error(`${cmd} failed: ${r.stderr}`)
  const [u, s] = r.stderr.trim().split('\n').pop().split(' ').map(Number)
  return { wallS, cpuS: u + s }
}

function du(p) {
  const st = fs.statSync(p)
  if (!st.isDirectory()) return st.size
  return fs.readdirSync(p).reduce((a, n) => a + du(path.join(p, n)), 0)
}

let bytes = 0
const walk = (d) => {
  for (const e of fs.readdirSync(d, { withFileTypes: true })) {
    const p = path.join(d, e.name)
    if (e.isDirectory()) walk(p)
    else if (e.isFile()) bytes += fs.readFileSync(p).length // also warms the page cache
  }
}
walk(projects)

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'cj-archive-paired-'))
const runs = { archive: [], pipe: [] }
const sizes = { archive: 0, pipe: 0 }
const before = load()
try {
  for (let i = -1; i < pairs; i++) {
    // Round -1 is an uncounted warm-up of both.
    const to = path.join(scratch, `a${i + 1}`)
    const tar = path.join(scratch, `t${i + 1}.tar.zst`)
    const doArchive = () =>
      timed(`${q(process.execPath)} ${q(BIN)} archive --projects ${q(projects)} --to ${q(to)} > /dev/null`)
    const doPipe = () =>
      timed(
        `tar cf - -C ${q(path.dirname(projects))} ${q(path.basename(projects))} | zstd -3 -T2 -q -c > ${q(tar)} && sync ${q(tar)}`,
      )
    const [a, p] =
      i % 2 === 0
        ? [doArchive(), doPipe()]
        : (() => {
            const p = doPipe()
            return [doArchive(), p]
          })()
    if (i >= 0) {
      runs.archive.push(a)
      runs.pipe.push(p)
    }
    sizes.archive = du(to)
    sizes.pipe = fs.statSync(tar).size
    process.stderr.write(
      `[archive-paired] pair ${i + 1}: archive ${a.wallS.toFixed(2)} s, pipe ${p.wallS.toFixed(2)} s\n`,
    )
  }
} finally {
  fs.rmSync(scratch, { recursive: true, force: true })
}
const after = load()
const w = (k) => runs[k].map((r) => r.wallS)
const ratios = runs.archive.map((a, k) => runs.pipe[k].wallS / a.wallS)
const m = median(ratios)
const row = (name, k) =>
  `| ${name} | ${median(w(k)).toFixed(2)} | ${Math.min(...w(k)).toFixed(2)} | ${Math.max(...w(k)).toFixed(2)} | ${(bytes / 1e6 / median(w(k))).toFixed(0)} | ${median(runs[k].map((r) => r.cpuS)).toFixed(2)} | ${(bytes / sizes[k]).toFixed(2)}x |`
const L = [
  '## archive beside tar | zstd, paired',
  '',
  `Written by \`node benches/archive-paired.mjs${args.length ? ' ' + args.join(' ') : ''}\` on ${new Date().toISOString()}: the bench estate (${(bytes / 1e6).toFixed(1)} MB), ${pairs} pairs after one uncounted pair, alternating which runs first; each a whole process, durable (the archive syncs what it writes; the pipe's output is synced by \`sync FILE\`). Load average ${before} at the start, ${after} at the end, on ${os.cpus().length} cores.`,
  '',
  '| run | wall median s | min s | max s | MB/s (median) | CPU s (median) | size ratio |',
  '| --- | ------------: | ----: | ----: | ------------: | -------------: | ---------: |',
  row('claude-jsonl archive --to NEW (CLI)', 'archive'),
  row('tar cf - projects \\| zstd -3 -T2 > F && sync F', 'pipe'),
  '',
  `Per pair, the pipe's wall time over the archive's: ${[...ratios]
    .sort((a, b) => a - b)
    .map((x) => x.toFixed(2) + 'x')
    .join(
      ', ',
    )}; median ${m.toFixed(2)}x (target: at least 1.00x, the pipe's speed): ${m >= 1 ? 'met' : 'not met'}. Ratio of the medians: ${(median(w('pipe')) / median(w('archive'))).toFixed(2)}x.`,
  '',
]
const section = L.join('\n')
process.stdout.write(section + '\n')
writeResultsSection(section)
