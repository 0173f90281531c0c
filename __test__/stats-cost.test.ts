// stats on 2026 transcripts: fast mode, new models, bad usage, per-tool targets, and the cost
// side by side with ccusage on a generated estate.
import test from 'ava'
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { stats } from '../src-ts/index.js'
import { CLI, assistant, tempDir, writeTree } from './helpers/transcripts.js'
// @ts-expect-error: a plain .mjs generator without types
import { generateCostEstate } from '../../fixtures/cost-estate.mjs'

function run(args: string[], env: NodeJS.ProcessEnv = {}) {
  const r = spawnSync(process.execPath, [CLI, ...args], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH, HOME: '/nonexistent-home', ...env },
  })
  return { code: r.status, stdout: r.stdout, stderr: r.stderr }
}

// ccusage 20.0.24 (`daily --json --offline`) on the estate generateCostEstate writes with
// sessions 24, seed 7 (the generator is deterministic). Recorded with `node benches/cost.mjs`;
// when the bench's pinned ccusage is installed, the test also runs it live.
const CCUSAGE_ON_COST_ESTATE = {
  totalCost: 196.5718255,
  inputTokens: 22_912,
  outputTokens: 1_643_349,
  cacheCreationTokens: 4_343_363,
  cacheReadTokens: 73_676_922,
}

test('cost within 1% of ccusage 20.0.24 on an estate with fast-mode and Fable requests', async (t) => {
  const root = tempDir('cj-cost-')
  const manifest = generateCostEstate({ out: root, sessions: 24, seed: 7 })
  t.true(manifest.totals.fastRequests > 100)
  const ours = run(['stats', '--json', '--projects', join(root, 'projects')])
  t.is(ours.code, 0, ours.stderr)
  const o = JSON.parse(ours.stdout)
  const c = CCUSAGE_ON_COST_ESTATE
  // Same tokens: the comparison is about prices alone.
  t.deepEqual(
    [o.totals.inputTokens, o.totals.outputTokens, o.totals.cacheCreationInputTokens, o.totals.cacheReadInputTokens],
    [c.inputTokens, c.outputTokens, c.cacheCreationTokens, c.cacheReadTokens],
  )
  t.is(o.totals.requests, manifest.totals.requests)
  t.is(o.totals.fastRequests, manifest.totals.fastRequests)
  const diff = Math.abs(o.totals.costUsd - c.totalCost) / c.totalCost
  t.log(
    `ours $${o.totals.costUsd.toFixed(4)}, ccusage $${c.totalCost.toFixed(4)}, difference ${(diff * 100).toFixed(4)}%`,
  )
  t.true(diff < 0.01, `ours ${o.totals.costUsd} vs ccusage ${c.totalCost}`)
  // Fast mode is a large part of this estate's cost: leaving it out would miss the target.
  t.true(o.totals.fastCostUsd / o.totals.costUsd > 0.2)
  t.deepEqual(o.pricing.unpriced, [])
  t.deepEqual(o.pricing.estimated, [])

  // @ts-expect-error: a plain .mjs module without types
  const { PEER_BIN } = await import('../../benches/ccusage-peer.mjs')
  if (!existsSync(PEER_BIN)) {
    t.log(`ccusage not installed at ${PEER_BIN} (node benches/cost.mjs installs it): compared with its recorded totals`)
    return
  }
  const home = join(root, 'empty-home')
  mkdirSync(home)
  const peer = spawnSync(PEER_BIN, ['daily', '--json', '--offline'], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH, HOME: home, CLAUDE_CONFIG_DIR: root, NO_COLOR: '1' },
  })
  t.is(peer.status, 0, peer.stderr)
  t.like(JSON.parse(peer.stdout).totals, CCUSAGE_ON_COST_ESTATE, 'ccusage live gives the recorded totals')
})

test('fast-mode requests and their cost are shown apart, in the table and in --json', (t) => {
  const root = writeTree({
    'p/s.jsonl': [
      fastEntry('f1', 'claude-opus-4-6', 'fast'),
      fastEntry('f2', 'claude-opus-4-6', 'standard'),
      fastEntry('f3', 'claude-opus-5', 'fast'),
    ],
  })
  const j = JSON.parse(run(['stats', '--json', root]).stdout)
  // 1M input + 1M output: Opus 4.6 $30 standard, x6 fast; Opus 5 x2 fast
  t.is(j.totals.fastRequests, 2)
  t.true(Math.abs(j.totals.fastCostUsd - (180 + 60)) < 1e-9)
  t.true(Math.abs(j.totals.costUsd - (180 + 30 + 60)) < 1e-9)
  t.deepEqual(j.pricing.speeds, { standard: 1, fast: 2, other: [] })
  const opus46 = j.models.find((m: { model: string }) => m.model === 'claude-opus-4-6')
  t.like(opus46, { requests: 2, fastRequests: 1 })
  const table = run(['stats', root]).stdout
  t.regex(table, /Fast req\s+Fast cost/)
  t.regex(table, /claude-opus-4-6 .* 1\s+\$180\.00/)
  t.regex(table, /Fast mode: 2 requests, \$240\.00 of the cost/)
  // --by keeps the columns
  t.regex(run(['stats', '--by', 'model', root]).stdout, /Fast req/)
  // No fast request: no fast columns.
  const plain = writeTree({ 'p/s.jsonl': [fastEntry('s1', 'claude-opus-4-6', 'standard')] })
  t.notRegex(run(['stats', plain]).stdout, /Fast/)
})

function fastEntry(id: string, model: string, speed: unknown, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    type: 'assistant',
    uuid: `u-${id}`,
    parentUuid: null,
    timestamp: '2026-11-20T10:00:00.000Z',
    sessionId: 's',
    requestId: `req_${id}`,
    message: {
      id: `msg_${id}`,
      model,
      role: 'assistant',
      content: [{ type: 'text', text: 'x' }],
      usage: { input_tokens: 1_000_000, output_tokens: 1_000_000, speed, ...extra },
    },
  })
}

test('unknown models, malformed usage and unknown speeds are counted and reported, never $0 without a word', (t) => {
  const root = writeTree({
    'p/s.jsonl': [
      fastEntry('a', 'claude-opus-7', 'standard'), // a new Opus: estimated
      fastEntry('b', 'claude-nova-1', 'standard'), // an unknown family: unpriced
      fastEntry('c', 'claude-nova-1', 'standard'),
      fastEntry('d', 'claude-opus-4-6', 'turbo'), // unknown speed: standard rates
      fastEntry('e', 'claude-opus-4-5', 'fast'), // fast without a fast-mode rate
      fastEntry('f', 'claude-opus-4-6', 7), // malformed speed
      fastEntry('g', 'claude-opus-4-6', 'standard', { input_tokens: 'many' }),
      JSON.stringify({
        type: 'assistant',
        timestamp: '2026-11-20T10:00:00.000Z',
        requestId: 'req_h',
        message: { id: 'msg_h', model: 'claude-opus-4-6', content: [], usage: 'n/a' },
      }),
    ],
  })
  const r = run(['stats', '--json', root])
  t.is(r.code, 0, r.stderr)
  const j = JSON.parse(r.stdout)
  t.deepEqual(j.pricing.estimated, [{ model: 'claude-opus-7', pricedAs: 'claude-opus-5-5', requests: 1 }])
  t.deepEqual(j.pricing.unpriced, [{ model: 'claude-nova-1', requests: 2 }])
  t.deepEqual(j.unpricedModels, ['claude-nova-1'])
  t.deepEqual(j.pricing.speeds.other, [{ speed: 'turbo', requests: 1 }])
  t.deepEqual(j.pricing.fastWithoutRate, [{ model: 'claude-opus-4-5', requests: 1 }])
  t.is(j.entries.malformedUsage, 3)
  t.is(j.totals.requests, 8)
  t.is(j.totals.estimatedRequests, 1)
  t.is(j.totals.unpricedRequests, 2)
  // The estimated Opus is priced at the newest Opus rates ($4 + $20), not at zero.
  const est = j.models.find((m: { model: string }) => m.model === 'claude-opus-7')
  t.true(Math.abs(est.costUsd - 24) < 1e-9)
  // The unknown family is named once on stderr, whatever the output format.
  const lines = r.stderr.trim().split('\n')
  t.deepEqual(lines, ["claude-jsonl: no price for model 'claude-nova-1' (2 requests): not in the cost totals"])
  const table = run(['stats', root])
  t.is(table.stderr, r.stderr)
  t.regex(table.stdout, /~ estimated: claude-opus-7 \(1 request\) is not in the price table; priced as claude-opus-5-5/)
  t.regex(table.stdout, /\* not priced \(unknown model\): claude-nova-1/)
  t.regex(table.stdout, /Unknown usage\.speed values, priced at standard rates: 'turbo' 1 request/)
  t.regex(table.stdout, /Fast mode on claude-opus-4-5 \(1 request\): no fast-mode rate known/)
  t.regex(table.stdout, /Malformed usage: 3 assistant entries/)
  t.regex(table.stdout, /\$\d[\d,.]*~\*/, 'the total is marked both estimated and incomplete')
})

/** An assistant entry calling tools: [id, name, input] each. */
function toolEntry(
  id: string,
  calls: [string, string, Record<string, unknown>][],
  timestamp = '2026-11-20T10:00:00.000Z',
) {
  return JSON.stringify({
    type: 'assistant',
    timestamp,
    requestId: `req_${id}`,
    message: {
      id: `msg_${id}`,
      model: 'claude-opus-4-6',
      content: calls.map(([tid, name, input]) => ({ type: 'tool_use', id: tid, name, input })),
      usage: { input_tokens: 1, output_tokens: 1 },
    },
  })
}

test('stats --tools: calls and top targets per tool, deduplicated by tool_use id, in the table and --json', async (t) => {
  const root = writeTree({
    'p/s.jsonl': [
      toolEntry('1', [['t1', 'Read', { file_path: '/src/a.ts' }]]),
      // the same tool_use streamed again counts once
      toolEntry('1', [
        ['t1', 'Read', { file_path: '/src/a.ts' }],
        ['t2', 'Bash', { command: 'git status --short' }],
      ]),
      toolEntry('2', [
        ['t3', 'Read', { file_path: '/src/a.ts' }],
        ['t4', 'Read', { file_path: '/src/b.ts' }],
        ['t5', 'Bash', { command: 'git log' }],
        ['t6', 'Bash', { command: 'npm test' }],
        ['t7', 'WebFetch', { url: 'https://docs.rs/napi/latest/napi/' }],
        ['t8', 'WebSearch', { query: 'simd-json tape' }],
        ['t9', 'Task', { subagent_type: 'Explore', prompt: 'look' }],
        ['t10', 'Grep', { pattern: 'TODO' }],
        ['t11', 'Glob', { pattern: '**/*.rs' }],
        ['t12', 'NotebookEdit', { notebook_path: '/n.ipynb' }],
        ['t13', 'mcp__x__y', { anything: 1 }],
      ]),
      toolEntry('3', [['t14', 'Read', { file_path: '/src/old.ts' }]], '2026-10-01T10:00:00.000Z'),
    ],
  })
  const r = await stats({ paths: [root], tools: true, toolLimit: 1 })
  const by = Object.fromEntries(r.toolTargets!.map((x) => [x.name, x]))
  t.like(by.Read, { kind: 'file', calls: 4, distinctTargets: 3, top: [{ target: '/src/a.ts', calls: 2 }] })
  t.like(by.Bash, { kind: 'command', calls: 3, distinctTargets: 2, top: [{ target: 'git', calls: 2 }] })
  t.like(by.WebFetch, { kind: 'host', top: [{ target: 'docs.rs', calls: 1 }] })
  t.like(by.WebSearch, { kind: 'query', top: [{ target: 'simd-json tape', calls: 1 }] })
  t.like(by.Task, { kind: 'subagent type', top: [{ target: 'Explore', calls: 1 }] })
  t.like(by.Grep, { kind: 'pattern', top: [{ target: 'TODO', calls: 1 }] })
  t.like(by.Glob, { kind: 'pattern', top: [{ target: '**/*.rs', calls: 1 }] })
  t.like(by.NotebookEdit, { kind: 'file', top: [{ target: '/n.ipynb', calls: 1 }] })
  t.like(by.mcp__x__y, { calls: 1, callsWithoutTarget: 1, distinctTargets: 0, top: [] })
  t.is(by.mcp__x__y!.kind, undefined)
  // The per-tool counts are the report's tool counts.
  t.deepEqual(r.toolTargets!.map((x) => [x.name, x.calls]).sort(), r.tools.map((x) => [x.name, x.calls]).sort())
  // The window applies to targets too.
  const nov = await stats({ paths: [root], tools: true, since: '2026-11-01', timezone: 'UTC' })
  t.like(
    nov.toolTargets!.find((x) => x.name === 'Read'),
    { calls: 3, distinctTargets: 2 },
  )
  // Without --tools, no targets are reported.
  t.is((await stats({ paths: [root] })).toolTargets, undefined)

  const json = JSON.parse(run(['stats', '--tools', '--limit', '2', '--json', root]).stdout)
  t.deepEqual(json.toolTargets.find((x: { name: string }) => x.name === 'Read').top, [
    { target: '/src/a.ts', calls: 2 },
    { target: '/src/b.ts', calls: 1 },
  ])
  const table = run(['stats', '--tools', root]).stdout
  t.regex(table, /Tool\s+Calls\s+Targets\s+Top targets\s+Calls/)
  t.regex(table, /Read\s+4\s+3 files\s+\/src\/a\.ts\s+2\n\s+\/src\/b\.ts\s+1/)
  t.regex(table, /Bash\s+3\s+2 commands\s+git\s+2/)
  // Bad --limit, and --limit without --tools, are usage errors.
  t.is(run(['stats', '--tools', '--limit', '0', root]).code, 2)
  t.is(run(['stats', '--tools', '--limit', 'x', root]).code, 2)
  t.is(run(['stats', '--limit', '3', root]).code, 2)
})

test('an empty estate says where it looked and how to look elsewhere, and exits 0', (t) => {
  const home = tempDir('cj-empty-home-')
  mkdirSync(join(home, '.claude', 'projects'), { recursive: true })
  const hint = /no transcripts found in .*\.claude\/projects .*--projects DIR.*CLAUDE_CONFIG_DIR/
  const s = run(['stats'], { HOME: home })
  t.is(s.code, 0, s.stderr)
  t.regex(s.stderr, hint)
  t.regex(s.stdout, /^0 files/)
  t.regex(s.stdout, /Total\s+0\s+0\s+0\s+0\s+0\s+\$0\.00/)
  const j = run(['stats', '--json'], { HOME: home })
  t.is(j.code, 0)
  t.is(JSON.parse(j.stdout).totals.requests, 0)
  t.regex(j.stderr, hint)
  const l = run(['sessions'], { HOME: home })
  t.is(l.code, 0, l.stderr)
  t.regex(l.stderr, hint)
  const f = run(['find', 'anything', '--no-index'], { HOME: home })
  t.is(f.code, 0, f.stderr)
  t.regex(f.stderr, hint)
  // Through CLAUDE_CONFIG_DIR and --projects, the line names that source.
  const viaEnv = run(['sessions'], { HOME: home, CLAUDE_CONFIG_DIR: join(home, '.claude') })
  t.regex(viaEnv.stderr, /projects folder of \$CLAUDE_CONFIG_DIR/)
  const viaFlag = run(['stats', '--projects', join(home, '.claude', 'projects')], { HOME: home })
  t.regex(viaFlag.stderr, /given by --projects/)
  // A non-empty estate prints no such line.
  const full = writeTree({ 'projects/p/s.jsonl': [assistant({ messageId: 'm', output: 3 })] })
  t.is(run(['stats'], { CLAUDE_CONFIG_DIR: full }).stderr, '')
})
