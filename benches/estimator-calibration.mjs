#!/usr/bin/env node
// How the local token estimate (crate/core/src/estimate.rs, a per-character heuristic) compares
// with what Claude Code's API requests recorded. On the active chain after the last compaction,
// each assistant message's first record carries the request's usage; its context size is
// input + cache read + cache creation tokens. The context grows from one request to the next by
// the records in between (the previous answer, tool results, the next prompt), so
//   ratio = estimated tokens of those records / (context of request k+1 - context of request k).
// Steps where the context shrank (cache expiry, thinking dropped) are left out and counted.
//
//   node benches/estimator-calibration.mjs [FILES...]   (default: the shared real transcripts)
//
// Prints a table and one JSON line: per file the whole-span ratio, and over all steps the median,
// p10 and p90 of the per-step ratios.
import { readdirSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const repo = join(dirname(fileURLToPath(import.meta.url)), '..')
const { default: native } = await import(join(repo, 'dist', 'src-ts', 'native.js'))
const { plan } = await import(join(repo, 'dist', 'src-ts', 'compress', 'plan.js'))
const realDir = [join(repo, '..', 'shared', 'real-transcripts'), '/work/shared/real-transcripts'].find((p) => {
  try {
    return readdirSync(p).length > 0
  } catch {
    return false
  }
})
const files = process.argv.slice(2).length
  ? process.argv.slice(2)
  : readdirSync(realDir)
      .filter((f) => f.endsWith('.jsonl'))
      .sort()
      .map((f) => join(realDir, f))

const quantile = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length ? s[Math.min(s.length - 1, Math.floor(q * s.length))] : NaN
}
const rows = []
const steps = []
for (const file of files) {
  let p
  try {
    p = await plan(file, { leafPolicy: 'client' })
  } catch {
    continue // not a Claude Code transcript
  }
  const t = p.topology
  if (!t.chain.length) continue
  const est = native.estimateRecordTokens(p.buffer, p.index, t.chain)
  // Requests on the chain: the first record of each assistant message with usage.
  const requests = []
  const seen = new Set()
  for (let k = 0; k < t.chain.length; k++) {
    const r = p.index.record(t.chain[k])
    if (r.type !== 'assistant' || !r.usage || !r.messageId || seen.has(r.messageId)) continue
    seen.add(r.messageId)
    const u = r.usage
    requests.push({ k, context: u.inputTokens + u.cacheReadInputTokens + u.cacheCreationInputTokens })
  }
  let estimated = 0
  let recorded = 0
  let shrank = 0
  for (let j = 1; j < requests.length; j++) {
    const grew = requests[j].context - requests[j - 1].context
    let e = 0
    for (let k = requests[j - 1].k; k < requests[j].k; k++) e += est[k]
    if (grew <= 0) {
      shrank++
      continue
    }
    estimated += e
    recorded += grew
    steps.push(e / grew)
  }
  if (recorded > 0)
    rows.push({
      file: file.split('/').pop(),
      requests: requests.length,
      estimated: Math.round(estimated),
      recorded,
      ratio: estimated / recorded,
      shrankSteps: shrank,
    })
}
const ratios = rows.map((r) => r.ratio)
const result = {
  files: rows,
  overall: {
    estimated: rows.reduce((a, r) => a + r.estimated, 0),
    recorded: rows.reduce((a, r) => a + r.recorded, 0),
  },
  perFile: { min: Math.min(...ratios), median: quantile(ratios, 0.5), max: Math.max(...ratios) },
  perStep: { steps: steps.length, p10: quantile(steps, 0.1), median: quantile(steps, 0.5), p90: quantile(steps, 0.9) },
}
result.overall.ratio = result.overall.estimated / result.overall.recorded
for (const r of rows)
  process.stderr.write(
    `${r.file.padEnd(16)} requests ${String(r.requests).padStart(4)}  estimated ${String(r.estimated).padStart(8)}  recorded ${String(r.recorded).padStart(8)}  ratio ${r.ratio.toFixed(2)}\n`,
  )
process.stderr.write(
  `overall ratio ${result.overall.ratio.toFixed(2)}; per file ${result.perFile.min.toFixed(2)}..${result.perFile.max.toFixed(2)} (median ${result.perFile.median.toFixed(2)}); per step p10 ${result.perStep.p10.toFixed(2)}, median ${result.perStep.median.toFixed(2)}, p90 ${result.perStep.p90.toFixed(2)} over ${steps.length} steps\n`,
)
process.stdout.write(JSON.stringify(result) + '\n')
