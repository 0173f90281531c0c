#!/usr/bin/env node
// `node benches/serve.mjs [PROJECTS] [--rounds N] [--many PROJECTS]`: `claude-jsonl serve` as a
// person would run it (the CLI in its own process), over two estates: the 1 GB benchmark estate
// (600 sessions, large ones) and an estate of 10,000 small sessions (generated once into
// .bench-cache/estate-10k), where the session list, its paging and its filters are what costs.
// For each: how long until it answers, each page's latency once warm (median and p95 of N
// requests, round-robin over the pages), and the server's memory (peak and current RSS from
// /proc) after every page was served. Writes the "serve: the web view" section of
// benches/RESULTS.md.
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { request } from 'node:http'
import { join } from 'node:path'
import { writeResultsSection } from './results-section.mjs'
import { median, repo, scriptArgs } from './script-args.mjs'

const {
  input: projects,
  rounds,
  opt,
} = scriptArgs(
  join(repo, '.bench-cache', 'estate', 'projects'),
  'node benches/serve.mjs [PROJECTS] [--rounds N] [--many PROJECTS]',
  20,
)
const TARGET_MS = 100
const MANY_SESSIONS = 10_000
const MANY_ARGS = ['estate', '--sessions', String(MANY_SESSIONS), '--target-mb', '300', '--seed', '10000']

/** The estate of many small sessions: the one given with --many, else generated once. */
function manySessionsEstate() {
  const given = opt('--many')
  if (given) return given
  const out = join(repo, '.bench-cache', 'estate-10k')
  if (!existsSync(join(out, 'manifest.json'))) {
    console.error(`[serve] generating ${out}: node fixtures/generate.mjs ${MANY_ARGS.join(' ')} --out ${out}`)
    const r = spawnSync(process.execPath, [join(repo, 'fixtures', 'generate.mjs'), ...MANY_ARGS, '--out', out], {
      stdio: 'inherit',
    })
    if (r.status !== 0) throw new Error('generating the 10,000-session estate failed')
  }
  return join(out, 'projects')
}

/** Starts `serve` over `dir`; resolves once it printed its URL. */
async function startServer(dir) {
  const t0 = performance.now()
  const child = spawn(
    process.execPath,
    [join(repo, 'dist', 'src-ts', 'cli', 'bin.cjs'), 'serve', '--projects', dir, '--port', '0', '--timezone', 'UTC'],
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
  return { child, port, readyMs: performance.now() - t0 }
}

function get(port, path) {
  return new Promise((resolve, reject) => {
    const t = performance.now()
    const req = request({ host: '127.0.0.1', port, path, headers: { host: `127.0.0.1:${port}` } }, (res) => {
      const chunks = []
      res.on('data', (c) => chunks.push(c))
      res.on('end', () => {
        const body = Buffer.concat(chunks)
        resolve({ status: res.statusCode, ms: performance.now() - t, bytes: body.length, body: body.toString('utf8') })
      })
    })
    req.on('error', reject)
    req.end()
  })
}

/**
 * Serves `dir`, asks each page of `pagesFor(first list page)` once (the first request), then
 * `rounds` times round-robin; `extra(round)` names a page that differs each round (a query not
 * asked before). Returns the rows and the server's memory.
 */
async function measure(dir, pagesFor, extra) {
  const { child, port, readyMs } = await startServer(dir)
  try {
    const list = await get(port, '/')
    const pages = pagesFor(list.body)
    const first = {}
    for (const [name, path] of Object.entries(pages)) first[name] = (await get(port, path)).ms
    const times = Object.fromEntries(Object.keys(pages).map((k) => [k, []]))
    if (extra) times[extra.name] = []
    for (let r = 0; r < rounds; r++) {
      for (const [name, path] of Object.entries(pages)) {
        const res = await get(port, path)
        if (res.status !== 200) throw new Error(`${path}: status ${res.status}`)
        times[name].push(res.ms)
      }
      if (extra) {
        const res = await get(port, extra.path(r))
        if (res.status !== 200) throw new Error(`${extra.name}: status ${res.status}`)
        times[extra.name].push(res.ms)
      }
    }
    const status = readFileSync(`/proc/${child.pid}/status`, 'utf8')
    const kb = (key) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN)
    const rows = Object.keys(times).map((name) => ({
      name,
      first: first[name] ?? NaN,
      median: median(times[name]),
      p95: p95(times[name]),
    }))
    const sessions = Number(/ of ([\d,]+) sessions/.exec(list.body)?.[1].replace(/,/g, '') ?? NaN)
    return { readyMs, rows, sessions, peakMiB: kb('VmHWM') / 1024, rssMiB: kb('VmRSS') / 1024 }
  } finally {
    child.kill('SIGTERM')
  }
}

const p95 = (xs) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil(xs.length * 0.95) - 1)]
const sessionIds = (body) => [...body.matchAll(/<tr data-session="([^"]+)"/g)].map((m) => m[1])
// The project filter's first choice (values are HTML-escaped; a folder name needs only URL escaping).
const projectOf = (body) => /<option value="([^"]+)"/.exec(body)?.[1]

// The 1 GB estate: every page kind, a mid-sized session's page, and a search not asked before.
const words = ['retry', 'timeout', 'config', 'parser', 'cache', 'token', 'buffer', 'schema', 'commit', 'deploy']
const big = await measure(
  projects,
  (body) => {
    const ids = sessionIds(body)
    return {
      'sessions (/)': '/',
      'sessions, page 5, filtered': '/?page=5&q=a',
      usage: '/usage',
      'usage, a month': '/usage?since=2026-01-01&until=2026-01-31',
      'search (ranked)': '/search?q=error+test',
      'session page': `/session/${ids[Math.floor(ids.length / 2)]}`,
    }
  },
  {
    name: 'search, a new query each time',
    path: (r) => `/search?q=${words[r % words.length]}+${words[(r * 3 + 1) % words.length]}+r${r}`,
  },
)

// 10,000 sessions: the list, paged deep, filtered by project and by text, a new text each round.
const manyDir = manySessionsEstate()
const many = await measure(
  manyDir,
  (body) => {
    const project = projectOf(body)
    return {
      'sessions (/)': '/',
      'sessions, page 50': '/?page=50',
      'sessions, last page': '/?page=100000',
      ...(project ? { 'sessions of one project': `/?project=${encodeURIComponent(project)}` } : {}),
      'sessions filtered by text': '/?q=test',
      'filtered by text, page 3': '/?q=a&page=3',
    }
  },
  { name: 'sessions filtered by a new text each time', path: (r) => `/?q=${words[r % words.length]}${r}` },
)

const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')
const table = (m) => [
  '| page | first request | median (warm) | p95 (warm) |',
  '| --- | ---: | ---: | ---: |',
  ...m.rows.map(
    (r) =>
      `| ${r.name} | ${Number.isNaN(r.first) ? '—' : `${r.first.toFixed(1)} ms`} | ${r.median.toFixed(1)} ms | ${r.p95.toFixed(1)} ms |`,
  ),
]
const worst = (m) => Math.max(...m.rows.map((r) => r.median))
const verdict = (m) =>
  `Target: every page under ${TARGET_MS} ms once warm: ${worst(m) < TARGET_MS ? 'met' : 'not met'} (slowest median ${worst(m).toFixed(1)} ms).`
const md = [
  '## serve: the web view',
  '',
  `\`claude-jsonl serve\` in its own process (the CLI as a person runs it), ${rounds} requests per page, round-robin, once warm. Load average at the end: ${load}.`,
  '',
  `### The 1 GB estate (${projects.replace(repo + '/', '')})`,
  '',
  `Ready in ${(big.readyMs / 1000).toFixed(2)} s (the first view of the estate is built before the URL is printed).`,
  '',
  ...table(big),
  '',
  `Server memory after every page: peak RSS ${big.peakMiB.toFixed(0)} MiB, RSS now ${big.rssMiB.toFixed(0)} MiB (what it keeps: the session list, usage by day, model and project, and at most 8 rendered session pages, 32 MB in all).`,
  '',
  verdict(big),
  '',
  `### ${Number.isNaN(many.sessions) ? 'Many' : many.sessions.toLocaleString('en-US')} sessions (${manyDir.replace(repo + '/', '')}, \`node fixtures/generate.mjs ${MANY_ARGS.join(' ')}\`)`,
  '',
  `Ready in ${(many.readyMs / 1000).toFixed(2)} s.`,
  '',
  ...table(many),
  '',
  `Server memory after every page: peak RSS ${many.peakMiB.toFixed(0)} MiB, RSS now ${many.rssMiB.toFixed(0)} MiB.`,
  '',
  verdict(many),
  '',
].join('\n')
writeResultsSection(md)
console.log(md)
console.log(JSON.stringify({ big, many }))
