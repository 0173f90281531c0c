#!/usr/bin/env node
// Cost side by side with ccusage on a 2026 estate (fast-mode Opus requests, Fable and Mythos):
// generates it with fixtures/cost-estate.mjs under .bench-cache/cost-estate, runs
// `claude-jsonl stats --json` and `ccusage daily --json --offline` on it, and prints both costs.
// Exits 1 when the token totals differ or the costs are more than 1% apart.
//
//   node benches/cost.mjs [--sessions N] [--seed S] [--json]
import fs from 'node:fs'
import path from 'node:path'
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { generateCostEstate } from '../fixtures/cost-estate.mjs'
import { PEER_BIN, PEER_VERSION, installPeer } from './ccusage-peer.mjs'

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const OUT = path.join(REPO, '.bench-cache', 'cost-estate')
const EMPTY_HOME = path.join(REPO, '.bench-cache', 'cost-empty-home')
const OUR_CLI = path.join(REPO, 'dist', 'src-ts', 'cli', 'main.js')
/** The tolerance the cost must meet against ccusage. */
export const COST_TOLERANCE = 0.01

/** Runs both tools on the cost estate written to `out`; returns their totals and the difference. */
export function compareCost({ out = OUT, sessions = 24, seed = 7, peerBin = PEER_BIN } = {}) {
  fs.rmSync(out, { recursive: true, force: true })
  const manifest = generateCostEstate({ out, sessions, seed })
  const ours = spawnSync(process.execPath, [OUR_CLI, 'stats', '--json', '--projects', path.join(out, 'projects')], {
    encoding: 'utf8',
    maxBuffer: 1 << 26,
  })
  if (ours.status !== 0) throw new Error(`claude-jsonl stats failed: ${ours.stderr}`)
  fs.rmSync(EMPTY_HOME, { recursive: true, force: true })
  fs.mkdirSync(EMPTY_HOME, { recursive: true })
  const env = { PATH: process.env.PATH, HOME: EMPTY_HOME, CLAUDE_CONFIG_DIR: out, NO_COLOR: '1' }
  const peer = spawnSync(peerBin, ['daily', '--json', '--offline'], { encoding: 'utf8', env, maxBuffer: 1 << 26 })
  if (peer.status !== 0) throw new Error(`ccusage failed: ${peer.stderr}`)
  const o = JSON.parse(ours.stdout).totals
  const c = JSON.parse(peer.stdout).totals
  const tokens = {
    ours: [o.inputTokens, o.outputTokens, o.cacheCreationInputTokens, o.cacheReadInputTokens],
    ccusage: [c.inputTokens, c.outputTokens, c.cacheCreationTokens, c.cacheReadTokens],
  }
  return {
    manifest,
    ours: { costUsd: o.costUsd, fastRequests: o.fastRequests, fastCostUsd: o.fastCostUsd, requests: o.requests },
    ccusage: { version: PEER_VERSION, costUsd: c.totalCost },
    tokensAgree: tokens.ours.every((v, i) => v === tokens.ccusage[i]),
    difference: Math.abs(o.costUsd - c.totalCost) / c.totalCost,
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    options: { sessions: { type: 'string' }, seed: { type: 'string' }, json: { type: 'boolean' } },
  })
  if (!fs.existsSync(PEER_BIN) && installPeer() !== 0) {
    process.stderr.write(`cost.mjs: could not install ccusage ${PEER_VERSION}\n`)
    process.exit(1)
  }
  const r = compareCost({
    sessions: values.sessions ? Number(values.sessions) : undefined,
    seed: values.seed ? Number(values.seed) : undefined,
  })
  if (values.json) process.stdout.write(JSON.stringify(r, null, 2) + '\n')
  else {
    const m = r.manifest.totals
    process.stdout.write(
      `cost estate: ${m.requests} requests (${m.fastRequests} fast), seed ${r.manifest.seed}\n` +
        `claude-jsonl stats: $${r.ours.costUsd.toFixed(4)} (fast mode $${r.ours.fastCostUsd.toFixed(4)})\n` +
        `ccusage ${PEER_VERSION} daily --offline: $${r.ccusage.costUsd.toFixed(4)}\n` +
        `difference ${(r.difference * 100).toFixed(4)}% (target < ${COST_TOLERANCE * 100}%), token totals ${r.tokensAgree ? 'equal' : 'DIFFER'}\n`,
    )
  }
  process.exit(r.tokensAgree && r.difference < COST_TOLERANCE ? 0 : 1)
}
