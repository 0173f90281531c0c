#!/usr/bin/env node
// What the session-keeper plugin costs a headless Claude Code run (the pinned client, against the
// loopback mock the real-client tests use): the same `-p` prompt with and without `--plugin-dir
// plugin`, in pairs that alternate which runs first, whole process. The difference bounds what the
// plugin adds to the run, its SessionStart and SessionEnd hooks and its MCP server included, so it
// also bounds how long the SessionEnd hook delays the client's exit (target: at most 0.5 s).
// It replaces the "## Claude Code plugin: the client's run with and without it" section of
// benches/RESULTS.md. Needs `npm run build` (dist/__test__) and the client (fetched once into
// .cache/, or CLAUDE_JSONL_CLIENT_CACHE).
//
//   node benches/client-exit.mjs [--pairs N]
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { writeResultsSection } from './results-section.mjs'

const HERE = path.dirname(fileURLToPath(import.meta.url))
const REPO = path.join(HERE, '..')
const helpers = path.join(REPO, 'dist', '__test__', 'helpers', 'claude-client.js')
if (!existsSync(helpers)) {
  console.error('client-exit: run `npm run build` first (dist/__test__ is missing)')
  process.exit(2)
}
const { clientEnv, CLIENT_MODEL, ensureClaudeClient, runProcess, startMockApi } = await import(helpers)
const args = process.argv.slice(2)
const pairs = Number(args[args.indexOf('--pairs') + 1] || 6) || 6

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2
}
const bin = await ensureClaudeClient()
const tmp = mkdtempSync(path.join(os.tmpdir(), 'cj-bench-exit-'))
const mock = await startMockApi(30 * 60_000)
const loadBefore = os.loadavg()

// The plugin, and two copies of it with one part each: its hooks alone, its MCP server alone,
// to tell which part costs what. A copy finds this checkout's CLI through node_modules.
const PLUGIN = path.join(REPO, 'plugin')
const part = (name, drop, keepHook) => {
  const dir = path.join(tmp, name)
  cpSync(PLUGIN, dir, { recursive: true })
  rmSync(path.join(dir, drop), { recursive: true, force: true })
  if (keepHook) {
    const file = path.join(dir, 'hooks', 'hooks.json')
    const h = JSON.parse(readFileSync(file, 'utf8'))
    h.hooks = { [keepHook]: h.hooks[keepHook] }
    writeFileSync(file, JSON.stringify(h))
  }
  mkdirSync(path.join(dir, 'node_modules'), { recursive: true })
  symlinkSync(REPO, path.join(dir, 'node_modules', 'claude-jsonl'))
  return dir
}
const VARIANTS = {
  plain: undefined,
  plugin: PLUGIN,
  hooks: part('hooks-only', '.mcp.json'),
  sessionEnd: part('session-end-only', '.mcp.json', 'SessionEnd'),
  mcp: part('mcp-only', 'hooks'),
}

/** One `-p` run in a fresh HOME, with the plugin folder `dir` (none: the plain client). */
async function run(variant, k) {
  const dir = VARIANTS[variant]
  const home = path.join(tmp, `${variant}-${k}`)
  const cwd = path.join(home, 'work')
  mkdirSync(path.join(home, '.claude', 'projects'), { recursive: true })
  mkdirSync(cwd, { recursive: true })
  const env = {
    ...clientEnv(home, tmp, mock.url),
    PATH: `${path.dirname(process.execPath)}:/usr/bin:/bin`,
    CLAUDE_JSONL_ARCHIVE: path.join(home, 'archive'),
  }
  const argv = ['-p', 'say hello', '--max-turns', '1', '--model', CLIENT_MODEL]
  if (dir) argv.push('--plugin-dir', dir)
  const t = performance.now()
  const r = await runProcess(bin, argv, cwd, env, 120_000)
  const wall = performance.now() - t
  if (r.code !== 0) throw new Error(`claude ${argv.join(' ')}: exit ${r.code}: ${r.stderr.slice(0, 500)}`)
  return wall
}

const names = Object.keys(VARIANTS)
const walls = Object.fromEntries(names.map((n) => [n, []]))
const diffs = Object.fromEntries(names.map((n) => [n, []]))
try {
  for (const n of names) await run(n, 'warm')
  for (let k = 0; k < pairs; k++) {
    // round-robin, starting one further each round
    const order = names.map((_, i) => names[(i + k) % names.length])
    const got = {}
    for (const n of order) got[n] = await run(n, k)
    for (const n of names) {
      walls[n].push(got[n])
      diffs[n].push(got[n] - got.plain)
    }
  }
} finally {
  await mock.close()
}
// The SessionEnd hook's detached worker archived each session of a run with hooks; it is left
// to finish before the folder goes.
await new Promise((r) => setTimeout(r, 2000))
const withHooks = readdirSync(tmp).filter((d) => /^(plugin|hooks|sessionEnd)-/.test(d))
const archived = withHooks.filter((d) => existsSync(path.join(tmp, d, 'archive'))).length
rmSync(tmp, { recursive: true, force: true })

const s = (x) => `${(x / 1000).toFixed(2)} s`
const LABEL = {
  plain: 'the client alone',
  plugin: 'with the plugin (hooks and MCP server)',
  hooks: 'with its hooks only',
  sessionEnd: 'with its SessionEnd hook only',
  mcp: 'with its MCP server only',
}
const endDelta = median(diffs.sessionEnd)
const section = [
  "## Claude Code plugin: the client's run with and without it",
  '',
  `\`node benches/client-exit.mjs --pairs ${pairs}\` on ${new Date().toISOString()}: the pinned client runs \`-p "say hello"\` against the loopback mock, in a fresh HOME each time, alone, with \`--plugin-dir plugin\`, and with copies of the plugin holding only its hooks (SessionStart, SessionEnd, PreCompact) only its SessionEnd hook, or only its MCP server; ${pairs} rounds after one uncounted round, round-robin with the order turned each round; whole process, wall time. Load average ${loadBefore.map((l) => l.toFixed(2)).join(' ')} at the start, ${os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(
      ' ',
    )} at the end, on 2 cores. The SessionEnd hook's detached worker archived ${archived} of the ${withHooks.length} sessions of runs with hooks, after the client had exited.`,
  '',
  '| run | median | min | max | over the client alone (median of rounds) |',
  '| --- | ---: | ---: | ---: | ---: |',
  ...names.map(
    (n) =>
      `| ${LABEL[n]} | ${s(median(walls[n]))} | ${s(Math.min(...walls[n]))} | ${s(Math.max(...walls[n]))} | ${n === 'plain' ? '' : s(median(diffs[n]))} |`,
  ),
  '',
  `The SessionEnd hook alone, which the client runs before it exits, delays the exit by ${s(endDelta)} at the median: target at most 0.50 s, **${endDelta <= 500 ? 'met' : 'not met'}**.`,
  '',
].join('\n')
writeResultsSection(section)
console.log(section)
