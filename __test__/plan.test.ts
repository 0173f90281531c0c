import test from 'ava'
import { spawnSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { plan, planIndex, type PlanOptions, type TranscriptPlan } from '../src-ts/compress/plan.js'
import { ClaudeJsonlError } from '../src-ts/errors.js'
import native from '../src-ts/native.js'
import { branched } from './helpers/resume-fixtures.js'
import { CLI, REAL, REPO, tempDir } from './helpers/transcripts.js'

const FIXTURES = join(REPO, 'fixtures', 'topology')
interface Run {
  options: PlanOptions
  status: string
  preserveMode?: string
  leaf?: string
  warnings?: string[]
  chainStart?: string
  priorCompact?: number
  precompact?: number
  segmentLive?: boolean
  legalStarts?: string[]
  minCut?: number
  control?: number
  side?: number
  exclBranch?: number
}
const expected: Record<string, { description: string; runs: Run[] }> = JSON.parse(
  readFileSync(join(FIXTURES, 'expected.json'), 'utf8'),
)

const SETS = [
  'summaryIndexes',
  'rawKeepIndexes',
  'sideKeepIndexes',
  'controlProjectionIndexes',
  'excludedBranchIndexes',
  'excludedUnattributedIndexes',
] as const

/** Every record index is in exactly one of the six sets. */
export function partitionCovers(p: TranscriptPlan): boolean {
  const seen = new Uint8Array(p.index.length)
  for (const k of SETS) for (const i of p.topology[k]) seen[i]++
  return seen.every((n) => n === 1)
}

const uuidAt = (p: TranscriptPlan, i: number) => p.index.record(i)?.uuid

test('every topology fixture has a file and at least one run', (t) => {
  const files = readdirSync(FIXTURES)
    .filter((f) => f.endsWith('.jsonl'))
    .map((f) => f.replace(/\.jsonl$/, ''))
    .sort()
  t.deepEqual(files, Object.keys(expected).sort())
  const statuses = new Set(Object.values(expected).flatMap((c) => c.runs.map((r) => r.status)))
  for (const s of [
    'valid',
    'absent',
    'malformed',
    'malformed-parent',
    'duplicate-uuid',
    'dangling',
    'loop',
    'non-monotonic',
    'session-mismatch',
    'extension-limit',
    'extension-branch',
    'extension-unsafe',
  ]) {
    t.true(statuses.has(s), `a fixture reaches ${s}`)
  }
})

for (const [name, c] of Object.entries(expected)) {
  test(`fixture ${name}: ${c.description}`, async (t) => {
    const path = join(FIXTURES, `${name}.jsonl`)
    const before = readFileSync(path)
    for (const run of c.runs) {
      const label = JSON.stringify(run.options)
      const p = await plan(path, run.options)
      const r = p.report
      t.is(r.status as string, run.status, `${label}: ${r.stop?.message ?? ''}`)
      t.true(partitionCovers(p), `${label}: the partition covers every record once`)
      if (run.preserveMode) t.is(r.preserveMode as string, run.preserveMode, label)
      if (run.leaf) t.is(r.selectedLeafUuid, run.leaf, label)
      for (const w of run.warnings ?? [])
        t.true(
          r.warnings.some((x) => x.code === w),
          `${label}: warning ${w}`,
        )
      if (run.chainStart) t.is(uuidAt(p, p.topology.chain[0]), run.chainStart, label)
      if (run.priorCompact !== undefined) t.is(r.priorCompactRecordCount, run.priorCompact, label)
      if (run.precompact !== undefined) t.is(r.precompactRecords, run.precompact, label)
      if (run.segmentLive !== undefined) t.is(r.preservedSegmentApplied, run.segmentLive, label)
      if (run.legalStarts)
        t.deepEqual(
          Array.from(p.topology.legalCuts, (k) => uuidAt(p, p.topology.chain[k])),
          run.legalStarts,
          label,
        )
      if (run.minCut !== undefined)
        t.true(
          p.topology.legalCuts.every((k) => k >= run.minCut!),
          label,
        )
      if (run.control !== undefined) t.is(r.controlProjectionRecords, run.control, label)
      if (run.side !== undefined) t.is(r.sideKeepRecords, run.side, label)
      if (run.exclBranch !== undefined) t.is(r.excludedBranchCount, run.exclBranch, label)
      if (r.valid) {
        t.is(r.stop, undefined)
        t.truthy(r.resumeLeafInfo.selectedLeafUuid, label)
      } else {
        t.truthy(r.stop && r.stop.message.length > 0 && r.stop.status === r.status, label)
      }
    }
    t.deepEqual(readFileSync(path), before, 'plan writes nothing')
  })
}

test('the excluded sets are reported as counts and content-free digests only', async (t) => {
  const p = await plan(join(FIXTURES, 'rewound-branch.jsonl'))
  const json = JSON.stringify(p.report)
  t.false(json.includes('REWOUND-TEXT'))
  t.is(p.report.excludedBranchCount, 2)
  t.regex(p.report.excludedBranchDigest, /^[0-9a-f]{64}$/)
  // Under the format's own name too, as a count and digest: never the lines themselves.
  t.deepEqual(p.report.excludedBranchIndexes, { count: 2, digest: p.report.excludedBranchDigest })
  // The digest is over line numbers: the same set gives the same digest, another set another.
  const q = await plan(join(FIXTURES, 'rewound-branch.jsonl'), { leafPolicy: 'strict' })
  t.is(q.report.excludedBranchDigest, p.report.excludedBranchDigest)
  const other = await plan(join(FIXTURES, 'stale-pointer-branch.jsonl'), { leafPolicy: 'client' })
  t.not(other.report.excludedBranchDigest, p.report.excludedBranchDigest)
})

test('the kept suffix never starts inside a turn, and the chosen cut is one of the legal ones', async (t) => {
  const p = await plan(join(FIXTURES, 'parallel-tools.jsonl'), { targetRatio: 0.25, minRecentRecords: 0 })
  const cut = p.topology.cut!
  t.true(Array.from(p.topology.legalCuts).includes(cut))
  t.is(uuidAt(p, p.topology.chain[cut]), 'u4', 'a human prompt in reach is preferred')
  t.true(p.report.cut!.promptStart)
  t.deepEqual(p.report.cut!.legalPositions, Array.from(p.topology.legalCuts))
})

test('planIndex plans an index the caller already has; a buffer that is not the index is refused', (t) => {
  const buffer = readFileSync(join(FIXTURES, 'compacted.jsonl'))
  const index = native.scanBuffer(buffer, 'full')
  const p = planIndex(index, buffer)
  t.is(p.report.status, 'valid')
  t.is(p.report.activeChainStartLine, 7)
  t.throws(() => planIndex(index, Buffer.concat([buffer, Buffer.from('\n')])), {
    instanceOf: ClaudeJsonlError,
    message: /not the one the index was scanned from/,
  })
})

test('plan rejects option combinations it cannot honour as usage errors', async (t) => {
  const path = join(FIXTURES, 'valid-linear.jsonl')
  await t.throwsAsync(plan(path, { checkpointPolicy: 'preserve-recent' }), {
    instanceOf: ClaudeJsonlError,
    message: /needs --preserve-physical-tail/,
  })
  await t.throwsAsync(plan(path, { leafPolicy: 'newest' as never }), { message: /strict, client or auto/ })
  await t.throwsAsync(plan(path, { targetRatio: 0 }), { message: /target-ratio/ })
  const ok = await plan(path, { checkpointPolicy: 'preserve-recent', preservePhysicalTail: true })
  t.is(ok.report.preserveMode, 'physical-tail')
  t.false(ok.report.branchIsolation)
})

function cli(...args: string[]) {
  return spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8' })
}

test('claude-jsonl plan: text report, exit 0 when valid', (t) => {
  const r = cli('plan', join(FIXTURES, 'compacted.jsonl'))
  t.is(r.status, 0, r.stderr)
  t.regex(r.stdout, /topology valid/)
  t.regex(r.stdout, /leaf: line 10 \(a4\): the last last-prompt \(line 11\) names line 10/)
  t.regex(r.stdout, /starts at the compact boundary on line 7/)
  t.regex(r.stdout, /partition: summary \d+, raw \d+/)
  t.regex(r.stdout, /excluded \(branch\): 6 before the last compact boundary/)
})

test('claude-jsonl plan: a topology stop is one line with status, lines and recovery, exit 1', (t) => {
  const r = cli('plan', join(FIXTURES, 'stale-pointer-branch.jsonl'))
  t.is(r.status, 1)
  t.is(r.stdout, '')
  const lines = r.stderr.trim().split('\n')
  t.is(lines.length, 1)
  t.regex(
    lines[0],
    /topology extension-branch \[lines 3,2,4\]: .*forks into 2 branches: strict leaf line 2, client leaf line 7; recovery: --resume-leaf a1 \(strict leaf\) or --leaf-policy client \(leaf line 7\)$/,
  )
  const j = cli('plan', join(FIXTURES, 'stale-pointer-branch.jsonl'), '--json')
  t.is(j.status, 1)
  t.is(JSON.parse(j.stdout).stop.status, 'extension-branch')
})

test('claude-jsonl plan: usage errors exit 2, unreadable or foreign input exits 3', (t) => {
  t.is(cli('plan').status, 2)
  t.is(cli('plan', join(FIXTURES, 'valid-linear.jsonl'), '--leaf-policy', 'newest').status, 2)
  t.is(cli('plan', join(FIXTURES, 'valid-linear.jsonl'), '--max-post-last-prompt-extension', 'x').status, 2)
  const missing = cli('plan', join(FIXTURES, 'nope.jsonl'))
  t.is(missing.status, 3)
  t.regex(missing.stderr, /no such file/)
  const dir = tempDir('cj-plan-')
  const codex = join(dir, 'rollout.jsonl')
  writeFileSync(codex, JSON.stringify({ type: 'session_meta', payload: {} }) + '\n')
  t.is(cli('plan', codex).status, 3)
  t.is(cli('plan', '--help').status, 0)
})

test('generated sessions of every era plan valid under auto, and stop or plan under strict', async (t) => {
  const { generateSession } = (await import(join(REPO, 'fixtures', 'generate.mjs'))) as {
    generateSession: (o: object) => unknown
  }
  const dir = tempDir('cj-plan-gen-')
  for (const era of ['E0', 'E1', 'E2', 'E3', 'E4']) {
    const out = join(dir, `${era}.jsonl`)
    generateSession({ out, targetMb: 0.4, seed: `plan-${era}`, era })
    const p = await plan(out)
    t.is(p.report.status, 'valid', `${era}: ${p.report.stop?.message ?? ''}`)
    t.true(partitionCovers(p), era)
    t.truthy(p.report.cut, era)
    // Files before E4 have no leafUuid: strict stops with absent or malformed, never crashes.
    const strict = await plan(out, { leafPolicy: 'strict' })
    if (era === 'E4') t.is(strict.report.status, 'valid', era)
    else t.true(['absent', 'malformed'].includes(strict.report.status), `${era}: ${strict.report.status}`)
  }
})

const hasReal = existsSync(REAL)
const realTest = hasReal ? test : test.skip
if (!hasReal) console.warn(`real transcripts not found at ${REAL}: those tests are skipped`)

realTest('the real transcripts: plan never crashes; every Claude Code file gets a valid plan under auto', async (t) => {
  const files = readdirSync(REAL)
    .filter((f) => f.endsWith('.jsonl'))
    .sort()
  t.true(files.length >= 12)
  for (const f of files) {
    let p: TranscriptPlan
    try {
      p = await plan(join(REAL, f))
    } catch (e) {
      // Two of the files are Codex rollouts: refused as input, not crashed on.
      t.true(
        e instanceof ClaudeJsonlError && /not a Claude Code transcript/.test((e as Error).message),
        `${f}: ${(e as Error).message}`,
      )
      continue
    }
    t.is(p.report.status, 'valid', `${f}: ${p.report.stop?.message ?? ''}`)
    t.true(partitionCovers(p), f)
    t.truthy(p.report.cut, `${f} has a cut`)
    // Under strict, files without a leaf pointer stop, they never crash.
    const strict = await plan(join(REAL, f), { leafPolicy: 'strict' })
    t.true(partitionCovers(strict), f)
  }
})

test('cutPosition narrows the cut to any legal position; an illegal one is a usage error', async (t) => {
  const path = join(FIXTURES, 'parallel-tools.jsonl')
  const p = await plan(path, { minRecentRecords: 0 })
  for (const c of p.topology.legalCuts) {
    const q = await plan(path, { cutPosition: c })
    t.is(q.topology.cut, c)
    t.is(q.report.rawKeepRecords, q.topology.chain.length - c)
  }
  await t.throwsAsync(plan(path, { cutPosition: 5 }), {
    instanceOf: ClaudeJsonlError,
    message: /cut position 5 is not a legal cut/,
  })
})

test('an interior pointer on a tool call: the plan resumes from its result, as the client does', async (t) => {
  // main U2 A2(tool) R2 A3, alt U2-alt A2-alt written last; the last last-prompt names A2.
  const src = branched().lastPrompt('A2')
  const path = join(tempDir('cj-plan-'), 'interior.jsonl')
  writeFileSync(path, src.bytes())
  const r = (await plan(path, { minRecentRecords: 1 })).report
  t.true(r.valid)
  t.is(r.selectedLeafUuid, src.uuid('R2'))
  t.true(r.warnings.some((w) => w.code === 'pointer-truncates' && w.lines.includes(5)))
})
