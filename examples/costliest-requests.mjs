#!/usr/bin/env node
// The most expensive API requests of an estate, deduplicated as `stats` counts them: time, model,
// tokens and cost, and where the request was written.
//   node examples/costliest-requests.mjs [PROJECTS_DIR] [--top N] [--since YYYY-MM-DD]
import { parseArgs } from 'node:util'
import { requests } from 'claude-jsonl'

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { top: { type: 'string', default: '10' }, since: { type: 'string' } },
})
const top = Number(values.top)
const kept = [] // the `top` most expensive so far, most expensive first
let total = 0
let count = 0
for await (const q of requests({ projects: positionals[0], since: values.since })) {
  count++
  total += q.costUsd ?? 0
  if (q.costUsd === undefined) continue
  if (kept.length < top || q.costUsd > kept[kept.length - 1].costUsd) {
    kept.push(q)
    kept.sort((a, b) => b.costUsd - a.costUsd)
    kept.length = Math.min(kept.length, top)
  }
}
for (const q of kept) {
  const u = q.usage
  const tokens = `in ${u.inputTokens} out ${u.outputTokens} cache w ${u.cacheCreationInputTokens} r ${u.cacheReadInputTokens}`
  const mark = q.priceEstimated ? ' (estimated price)' : ''
  console.log(`$${q.costUsd.toFixed(4)}${mark}  ${q.timestamp ?? '-'}  ${q.model}  ${tokens}  ${q.path}:${q.line}`)
}
console.log(`${count} requests, $${total.toFixed(2)} in all`)
