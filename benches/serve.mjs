#!/usr/bin/env node
// `node benches/serve.mjs [PROJECTS] [--rounds N]`: `claude-jsonl serve` over the benchmark estate,
// as a person would run it (the CLI in its own process): how long until it answers, then each
// page's latency once warm (median and p95 of N requests, round-robin over the pages), and the
// server's memory (peak and current RSS from /proc) after every page was served. Writes the
// "serve: the web view" section of benches/RESULTS.md.
import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { request } from 'node:http'
import { join } from 'node:path'
import { writeResultsSection } from './results-section.mjs'
import { median, repo, scriptArgs } from './script-args.mjs'

const { input: projects, rounds } = scriptArgs(
  join(repo, '.bench-cache', 'estate', 'projects'),
  'node benches/serve.mjs [PROJECTS] [--rounds N]',
  20,
)
const TARGET_MS = 100
const t0 = performance.now()
const child = spawn(
  process.execPath,
  [join(repo, 'dist', 'src-ts', 'cli', 'bin.cjs'), 'serve', '--projects', projects, '--port', '0', '--timezone', 'UTC'],
  { stdio: ['ignore', 'pipe', 'inherit'] },
)
let out = ''
const port = await new Promise((resolve, reject) => {
  child.stdout.setEncoding('utf8').on('data', (c) => {
    out += c
    const m = /http:\/\/127\.0\.0\.1:(\d+)\//.exec(out)
    if (m) resolve(Number(m[1]))
  })
  child.on('exit', (code) => reject(new Error(`serve exited ${code} before answering`)))
})
const readyMs = performance.now() - t0

function get(path) {
  return new Promise((resolve, reject) => {
    const t = performance.now()
    const req = request({ host: '127.0.0.1', port, path, headers: { host: `127.0.0.1:${port}` } }, (res) => {
      let bytes = 0
      res.on('data', (c) => (bytes += c.length))
      res.on('end', () => resolve({ status: res.statusCode, ms: performance.now() - t, bytes }))
    })
    req.on('error', reject)
    req.end()
  })
}

// A mid-sized session (its page is rendered once, then kept) and a word every estate holds.
const home = await get('/')
const list = await new Promise((resolve) => {
  const req = request({ host: '127.0.0.1', port, path: '/', headers: { host: `127.0.0.1:${port}` } }, (res) => {
    let body = ''
    res.setEncoding('utf8')
    res.on('data', (c) => (body += c))
    res.on('end', () => resolve(body))
  })
  req.end()
})
const ids = [...list.matchAll(/<tr data-session="([^"]+)"/g)].map((m) => m[1])
const sessionId = ids[Math.floor(ids.length / 2)]
const pages = {
  'sessions (/)': '/',
  'sessions, page 5, filtered': '/?page=5&q=a',
  usage: '/usage',
  'usage, a month': '/usage?since=2026-01-01&until=2026-01-31',
  'search (ranked)': '/search?q=error+test',
  'session page': `/session/${sessionId}`,
}
const first = {}
for (const [name, path] of Object.entries(pages)) first[name] = (await get(path)).ms
const times = Object.fromEntries(Object.keys(pages).map((k) => [k, []]))
// A search not asked before (the index warm, the answer not cached): the cost of a new query.
const NEW_QUERY = 'search, a new query each time'
times[NEW_QUERY] = []
const words = ['retry', 'timeout', 'config', 'parser', 'cache', 'token', 'buffer', 'schema', 'commit', 'deploy']
for (let r = 0; r < rounds; r++) {
  for (const [name, path] of Object.entries(pages)) {
    const res = await get(path)
    if (res.status !== 200) throw new Error(`${path}: status ${res.status}`)
    times[name].push(res.ms)
  }
  const res = await get(`/search?q=${words[r % words.length]}+${words[(r * 3 + 1) % words.length]}+r${r}`)
  if (res.status !== 200) throw new Error(`new query: status ${res.status}`)
  times[NEW_QUERY].push(res.ms)
}
pages[NEW_QUERY] = '(a new query each round)'
first[NEW_QUERY] = NaN
const status = readFileSync(`/proc/${child.pid}/status`, 'utf8')
const kb = (key) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN)
const peakMiB = kb('VmHWM') / 1024
const rssMiB = kb('VmRSS') / 1024
child.kill('SIGTERM')

const p95 = (xs) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil(xs.length * 0.95) - 1)]
const rows = Object.keys(pages).map((name) => ({
  name,
  first: first[name],
  median: median(times[name]),
  p95: p95(times[name]),
}))
const worst = Math.max(...rows.map((r) => r.median))
const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')
const md = [
  '## serve: the web view',
  '',
  `\`claude-jsonl serve\` over ${projects.replace(repo + '/', '')} (its own process, the CLI as a person runs it): ready in ${(readyMs / 1000).toFixed(2)} s (the first view of the estate is built before the URL is printed), then ${rounds} requests per page, round-robin, once warm. Load average at the end: ${load}.`,
  '',
  '| page | first request | median (warm) | p95 (warm) |',
  '| --- | ---: | ---: | ---: |',
  ...rows.map(
    (r) =>
      `| ${r.name} | ${Number.isNaN(r.first) ? '—' : `${r.first.toFixed(1)} ms`} | ${r.median.toFixed(1)} ms | ${r.p95.toFixed(1)} ms |`,
  ),
  '',
  `Server memory after every page: peak RSS ${peakMiB.toFixed(0)} MiB, RSS now ${rssMiB.toFixed(0)} MiB (what it keeps: the session list, usage by day, model and project, and at most 8 rendered session pages, 32 MB in all).`,
  '',
  `Target: every page under ${TARGET_MS} ms once warm: ${worst < TARGET_MS ? 'met' : 'not met'} (slowest median ${worst.toFixed(1)} ms).`,
  '',
].join('\n')
writeResultsSection(md)
console.log(md)
console.log(JSON.stringify({ readyMs, rows, peakMiB, rssMiB, firstHomeMs: home.ms }))
