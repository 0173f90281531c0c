#!/usr/bin/env node
// Daily cost to CSV: one row per day with requests, tokens and cost, each request counted once.
//   node examples/daily-cost-csv.mjs [PROJECTS_DIR] > cost.csv
import { stats } from 'claude-jsonl'

const report = await stats({ projects: process.argv[2], by: 'day' })
console.log('day,requests,input,cache_write,cache_read,output,cost_usd')
for (const g of report.groups ?? [])
  console.log(
    [
      g.key,
      g.requests,
      g.inputTokens,
      g.cacheCreationInputTokens,
      g.cacheReadInputTokens,
      g.outputTokens,
      g.costUsd.toFixed(4),
    ].join(','),
  )
