#!/usr/bin/env node
// The Claude Code integration: what each piece costs the client. In fresh processes, wall time,
// medians (p95 beside), round-robin where two commands are compared:
//   - hook: `hook session-end` from start to exit (the archive itself runs in the detached worker);
//   - mcp start-up: spawn of `claude-jsonl mcp` to its answer to `initialize`;
//   - search_sessions on the ~1 GB estate, index warm (the first call, which builds it, beside);
//   - statusline on the 50 MB transcript after its first call, beside `node -e 0` and
//     `ccusage statusline` on the same JSON.
// It replaces the "## Claude Code integration" section of benches/RESULTS.md.
//
//   node benches/claude-code.mjs [--rounds N] [--skip-peer]
import { spawn, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { PEER_BIN, PEER_VERSION, installPeer } from './ccusage-peer.mjs'
import { writeResultsSection } from './results-section.mjs'

const HERE = path.dirname(fileURLToPath(import.meta.url))
const REPO = path.join(HERE, '..')
const BIN = path.join(REPO, 'dist', 'src-ts', 'cli', 'bin.cjs')
const ESTATE = path.join(REPO, '.bench-cache', 'estate', 'projects')
const SINGLE = path.join(REPO, '.bench-cache', 'single', 'projects')
const args = process.argv.slice(2)
const rounds = Number(args[args.indexOf('--rounds') + 1] || 15) || 15
const skipPeer = args.includes('--skip-peer')

const quantile = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.floor(q * (s.length - 1) + 0.5))]
}
const ms = (x) => `${x.toFixed(1)} ms`
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cj-bench-cc-'))
const timed = (cmd, argv, opts) => {
  const t = performance.now()
  const r = spawnSync(cmd, argv, { encoding: 'utf8', ...opts })
  const wall = performance.now() - t
  if (r.status !== 0) throw new Error(`${cmd} ${argv.join(' ')}: exit ${r.status}: ${r.stderr}`)
  return { wall, stdout: r.stdout }
}
const sleep = (n) => new Promise((r) => setTimeout(r, n))

// ---- hook session-end
async function hookBench() {
  const projects = path.join(tmp, 'config', 'projects', '-bench')
  fs.mkdirSync(projects, { recursive: true })
  const session = '7e57ab1e-0000-4000-8000-000000000001'
  const transcript = path.join(projects, `${session}.jsonl`)
  fs.copyFileSync(
    fs
      .readdirSync(SINGLE)
      .map((d) => path.join(SINGLE, d))
      .flatMap((d) =>
        fs
          .readdirSync(d)
          .filter((f) => f.endsWith('.jsonl'))
          .map((f) => path.join(d, f)),
      )[0],
    transcript,
  )
  const archive = path.join(tmp, 'archive')
  const env = { ...process.env, CLAUDE_CONFIG_DIR: path.join(tmp, 'config') }
  const input = JSON.stringify({
    session_id: session,
    transcript_path: transcript,
    hook_event_name: 'SessionEnd',
    reason: 'other',
  })
  const walls = []
  for (let i = 0; i <= rounds; i++) {
    fs.appendFileSync(transcript, '{"type":"system","subtype":"bench","content":"x"}\n')
    const { wall } = timed(process.execPath, [BIN, 'hook', 'session-end', '--to', archive], { input, env })
    if (i > 0) walls.push(wall)
    // the next round starts once the worker let the archive go
    while (fs.existsSync(path.join(`${archive}.hook`, 'worker.lock'))) await sleep(50)
  }
  const log = fs.readFileSync(`${archive}.hook.log`, 'utf8').trim().split('\n')
  const worker = log
    .map((l) => /\((\d+) ms\)$/.exec(l)?.[1])
    .filter(Boolean)
    .map(Number)
  return {
    p50: quantile(walls, 0.5),
    p95: quantile(walls, 0.95),
    worker: worker.length ? quantile(worker, 0.5) : undefined,
  }
}

// ---- MCP
function mcpServer(projects, env) {
  const child = spawn(process.execPath, [BIN, 'mcp', '--projects', projects], {
    env,
    stdio: ['pipe', 'pipe', 'inherit'],
  })
  let buf = ''
  const waiting = new Map()
  child.stdout.setEncoding('utf8').on('data', (c) => {
    buf += c
    for (let i; (i = buf.indexOf('\n')) >= 0;) {
      const msg = JSON.parse(buf.slice(0, i))
      buf = buf.slice(i + 1)
      waiting.get(msg.id)?.(msg)
    }
  })
  let id = 0
  const request = (method, params) =>
    new Promise((resolve) => {
      waiting.set(++id, resolve)
      child.stdin.write(JSON.stringify({ jsonrpc: '2.0', id, method, params }) + '\n')
    })
  return { child, request }
}
const INIT = { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } }

async function mcpStartBench() {
  const walls = []
  for (let i = 0; i <= rounds; i++) {
    const t = performance.now()
    const s = mcpServer(SINGLE, process.env)
    await s.request('initialize', INIT)
    if (i > 0) walls.push(performance.now() - t)
    s.child.stdin.end()
    await new Promise((r) => s.child.on('close', r))
  }
  return { p50: quantile(walls, 0.5), p95: quantile(walls, 0.95) }
}

async function searchBench() {
  const env = { ...process.env, XDG_CACHE_HOME: path.join(tmp, 'xdg-cache') }
  const s = mcpServer(ESTATE, env)
  await s.request('initialize', INIT)
  const queries = ['database migration', 'refactor the parser', 'failing test', 'deploy config', 'memory leak']
  const call = async (q) => {
    const t = performance.now()
    const r = await s.request('tools/call', { name: 'search_sessions', arguments: { query: q } })
    if (r.result?.isError) throw new Error(r.result.content[0].text)
    return performance.now() - t
  }
  const cold = await call('index warm-up')
  const walls = []
  for (let i = 0; i < rounds; i++) walls.push(await call(queries[i % queries.length]))
  s.child.stdin.end()
  await new Promise((r) => s.child.on('close', r))
  return { cold, p50: quantile(walls, 0.5), p95: quantile(walls, 0.95) }
}

// ---- statusline
function statuslineBench() {
  const transcript = fs
    .readdirSync(path.join(SINGLE, 'p'))
    .filter((f) => f.endsWith('.jsonl'))
    .map((f) => path.join(SINGLE, 'p', f))[0]
  const input = JSON.stringify({
    session_id: path.basename(transcript, '.jsonl'),
    transcript_path: transcript,
    cwd: '/p',
    model: { id: 'claude-sonnet-4-5-20250929', display_name: 'Sonnet 4.5' },
    workspace: { current_dir: '/p', project_dir: '/p' },
    version: '2.1.332',
    cost: { total_cost_usd: 1.23, total_duration_ms: 1000 },
    context_window: {
      total_input_tokens: 41100,
      total_output_tokens: 2000,
      context_window_size: 200000,
      used_percentage: 21,
      current_usage: {
        input_tokens: 100,
        output_tokens: 50,
        cache_creation_input_tokens: 1000,
        cache_read_input_tokens: 40000,
      },
    },
  })
  const env = {
    ...process.env,
    XDG_CACHE_HOME: path.join(tmp, 'statusline-cache'),
    CLAUDE_CONFIG_DIR: path.dirname(SINGLE),
  }
  const ours = () => timed(process.execPath, [BIN, 'statusline', '--projects', SINGLE], { input, env })
  const first = ours()
  const peer = !skipPeer && (fs.existsSync(PEER_BIN) || installPeer() === 0)
  const runs = { node: [], ours: [], peer: [] }
  let peerLine
  if (peer) peerLine = timed(PEER_BIN, ['statusline'], { input, env }).stdout.trim() // its own first call
  for (let i = 0; i <= rounds; i++) {
    const n = timed(process.execPath, ['-e', '0'], {}).wall
    const o = ours().wall
    const p = peer ? timed(PEER_BIN, ['statusline'], { input, env }).wall : undefined
    if (i === 0) continue
    runs.node.push(n)
    runs.ours.push(o)
    if (p !== undefined) runs.peer.push(p)
  }
  const q = (xs) => (xs.length ? { p50: quantile(xs, 0.5), p95: quantile(xs, 0.95) } : undefined)
  return {
    first: first.wall,
    line: first.stdout.trim(),
    peerLine,
    node: q(runs.node),
    ours: q(runs.ours),
    peer: q(runs.peer),
  }
}

const hook = await hookBench()
const start = await mcpStartBench()
const search = fs.existsSync(ESTATE) ? await searchBench() : undefined
const line = statuslineBench()
fs.rmSync(tmp, { recursive: true, force: true })

const x = (v) => `${(v / line.node.p50).toFixed(2)}x`
const load = os.loadavg()[0].toFixed(1)
const section = `## Claude Code integration

Fresh processes, wall time, ${rounds} counted rounds after one uncounted; load average ${load} on
${os.cpus().length} cores when it ran (\`node benches/claude-code.mjs\`).

| what | p50 | p95 | p50 / \`node -e 0\` | target |
| --- | ---: | ---: | ---: | --- |
| \`hook session-end\` (queue + detached worker start) | ${ms(hook.p50)} | ${ms(hook.p95)} | ${x(hook.p50)} | under 300 ms |
| its archive run in the worker (50 MB transcript, appended) | ${hook.worker !== undefined ? ms(hook.worker) : '-'} | | | off the client's clock |
| \`mcp\` start-up to the \`initialize\` answer | ${ms(start.p50)} | ${ms(start.p95)} | ${x(start.p50)} | under 300 ms |
${search ? `| \`search_sessions\` on the ~1 GB estate, index warm | ${ms(search.p50)} | ${ms(search.p95)} | | (first call, building the index: ${ms(search.cold)}) |\n` : ''}| \`node -e 0\` | ${ms(line.node.p50)} | ${ms(line.node.p95)} | 1.00x | |
| \`statusline\`, 50 MB transcript, after its first call | ${ms(line.ours.p50)} | ${ms(line.ours.p95)} | **${x(line.ours.p50)}** | p50 within 1.3x of \`node -e 0\` |
${line.peer ? `| \`ccusage statusline\` ${PEER_VERSION}, same input | ${ms(line.peer.p50)} | ${ms(line.peer.p95)} | ${x(line.peer.p50)} | ours is **${(line.peer.p50 / line.ours.p50).toFixed(1)}x** faster at p50 |\n` : ''}
The statusline's first call (it counts the 50 MB transcript and the estate's day): ${ms(line.first)}.
Our line: \`${line.line}\`${line.peerLine ? `; ccusage's: \`${line.peerLine.replace(/\u001b\[[0-9;]*m/g, '')}\`` : ''}.
`
writeResultsSection(section)
process.stdout.write(section)
