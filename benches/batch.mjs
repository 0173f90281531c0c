#!/usr/bin/env node
// Times `compress --all` in candidate mode over an estate, whole process through the CLI (Node
// start-up included), with its peak RSS; then the re-run over the unchanged estate (the manifest
// skips every session). Checks that every compressed session has its candidate and report.
//
//   node benches/batch.mjs PROJECTS_DIR [--rounds 3]
//
// Then the outcome over the estate and over the real sample transcripts (a dry run): sessions of
// 20k or more estimated message tokens skipped as nothing to gain, compressed ones that keep more
// than 40% of their tokens, and the share of the estate's tokens that remains (a skipped session
// counted as kept whole).
//
// Prints a table and, last, one JSON line (benches/run.mjs reads it).
import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { cpus, loadavg, tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const repo = join(dirname(fileURLToPath(import.meta.url)), '..')
const args = process.argv.slice(2)
const projects = args[0]
const opt = (name, dflt) => {
  const i = args.indexOf(name)
  return i >= 0 ? args[i + 1] : dflt
}
const rounds = Number(opt('--rounds', '3'))
if (!projects || !existsSync(projects)) {
  process.stderr.write('usage: node benches/batch.mjs PROJECTS_DIR [--rounds N]\n')
  process.exit(2)
}
const CLI = join(repo, 'dist', 'src-ts', 'cli', 'main.js')
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2
}

/** The outcome of one `compress --all --json` report: see the header. */
export function outcome(report) {
  let before = 0
  let after = 0
  let big = 0
  let bigNothingToGain = 0
  let bigOver40 = 0
  let worstBigKept = 0
  const bigRefused = {}
  for (const s of report.sessions) {
    const b = s.tokensBefore ?? 0
    before += b
    after += s.status === 'compressed' ? s.tokensAfter : b
    if (b < 20000) continue
    big++
    if (s.status !== 'compressed') {
      bigRefused[s.reason] = (bigRefused[s.reason] ?? 0) + 1
      if (s.reason === 'nothing-to-gain') bigNothingToGain++
      continue
    }
    const kept = s.tokensAfter / b
    if (kept > 0.4) bigOver40++
    worstBigKept = Math.max(worstBigKept, kept)
  }
  return {
    big,
    bigNothingToGain,
    bigOver40,
    worstBigKept,
    bigRefused,
    tokensBefore: before,
    tokensAfter: after,
    keptShare: before > 0 ? after / before : 0,
  }
}

/** One CLI run: wall ms, peak RSS (MiB, the largest process of the child's tree), CPU s, report. */
function run(outDir, roots = ['--projects', projects], extra = []) {
  const t0 = process.hrtime.bigint()
  const r = spawnSync(
    'python3',
    [
      '-c',
      'import resource,subprocess,sys; p=subprocess.run(sys.argv[1:], stdout=subprocess.PIPE); sys.stdout.buffer.write(p.stdout); u=resource.getrusage(resource.RUSAGE_CHILDREN); print(); print(u.ru_maxrss, u.ru_utime+u.ru_stime); sys.exit(p.returncode)',
      process.execPath,
      CLI,
      'compress',
      '--all',
      ...roots,
      '--out-dir',
      outDir,
      '--json',
      ...extra,
    ],
    { encoding: 'utf8', maxBuffer: 1 << 28 },
  )
  const ms = Number(process.hrtime.bigint() - t0) / 1e6
  if (r.status !== 0 && r.status !== 1) throw new Error(`compress --all failed (exit ${r.status}): ${r.stderr}`)
  const lines = r.stdout.trimEnd().split('\n')
  const [rssKiB, cpuS] = lines.pop().split(' ').map(Number)
  return { ms, rssMiB: rssKiB / 1024, cpuS, report: JSON.parse(lines.join('\n')) }
}

const work = mkdtempSync(join(tmpdir(), 'cj-batch-bench-'))
try {
  const first = []
  const rerun = []
  let report
  let rerunReport
  for (let i = 0; i <= rounds; i++) {
    const out = join(work, `out-${i}`)
    const a = run(out)
    const b = run(out)
    rmSync(out, { recursive: true, force: true })
    if (i === 0) continue // warms the page cache
    first.push(a)
    rerun.push(b)
    report = a.report
    rerunReport = b.report
    const missing = a.report.sessions.filter((s) => s.status === 'compressed' && !s.reportPath)
    if (missing.length) throw new Error(`${missing.length} compressed sessions have no report`)
  }
  const t = report.totals
  const result = {
    cores: cpus().length,
    load: loadavg()[0],
    sessions: t.sessions,
    subagentFiles: report.subagentFiles,
    bytes: t.bytesBefore,
    compressed: t.compressed,
    skippedByReason: t.skippedByReason,
    failed: t.failed,
    compressedBytesBefore: t.compressedBytesBefore,
    compressedBytesAfter: t.compressedBytesAfter,
    compressedTokensBefore: t.compressedTokensBefore,
    compressedTokensAfter: t.compressedTokensAfter,
    reports: report.sessions.filter((s) => s.reportPath).length,
    firstMs: median(first.map((x) => x.ms)),
    firstMinMs: Math.min(...first.map((x) => x.ms)),
    firstMaxMs: Math.max(...first.map((x) => x.ms)),
    firstCpuS: median(first.map((x) => x.cpuS)),
    firstRssMiB: Math.max(...first.map((x) => x.rssMiB)),
    rerunMs: median(rerun.map((x) => x.ms)),
    rerunRssMiB: Math.max(...rerun.map((x) => x.rssMiB)),
    rerunUnchanged: rerunReport.totals.skippedByReason.unchanged ?? 0,
    rounds,
    outcome: outcome(report),
  }
  const real = [join(repo, '..', 'shared', 'real-transcripts'), '/work/shared/real-transcripts'].find((p) =>
    existsSync(p),
  )
  if (real) result.realOutcome = { dir: real, ...outcome(run(join(work, 'real'), [real], ['--dry-run']).report) }
  process.stdout.write(
    [
      `compress --all over ${projects}: ${t.sessions} sessions, ${(t.bytesBefore / 1e6).toFixed(1)} MB; ${t.compressed} compressed, ${t.skipped} skipped, ${t.failed} failed`,
      `  first run  median ${(result.firstMs / 1000).toFixed(2)} s (min ${(result.firstMinMs / 1000).toFixed(2)}, max ${(result.firstMaxMs / 1000).toFixed(2)}), ${result.firstCpuS.toFixed(1)} CPU s, peak RSS ${result.firstRssMiB.toFixed(1)} MiB`,
      `  re-run     median ${(result.rerunMs / 1000).toFixed(2)} s (${result.rerunUnchanged} unchanged), peak RSS ${result.rerunRssMiB.toFixed(1)} MiB`,
      ...[
        ['estate', result.outcome],
        ['real samples', result.realOutcome],
      ]
        .filter(([, o]) => o)
        .map(
          ([name, o]) =>
            `  outcome (${name}): ${o.big} sessions of >= 20k tokens, ${o.bigNothingToGain} skipped as nothing to gain, ${o.bigOver40} compressed keep > 40% (worst ${(100 * o.worstBigKept).toFixed(1)}%); ${(100 * o.keptShare).toFixed(1)}% of ${o.tokensBefore.toFixed(0)} tokens remain`,
        ),
      JSON.stringify(result),
      '',
    ].join('\n'),
  )
} finally {
  rmSync(work, { recursive: true, force: true })
}
