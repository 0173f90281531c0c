// Property tests (fast-check) on random transcript graphs: the six-way partition covers every
// record once, nothing from a rewound branch reaches a kept set, the validator accepts every
// valid generated transcript and rejects each planted defect, and damage confined to a rewound
// branch never blocks a plan.
import test from 'ava'
import fc from 'fast-check'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { planIndex, type LeafPolicy, type TranscriptPlan } from '../src-ts/compress/plan.js'
import native from '../src-ts/native.js'
import { build, PLANTED, SESSION, shapeArb, toJsonl, type Built } from './helpers/random-transcript.js'
import { tempDir } from './helpers/transcripts.js'

const RUNS = 80
const KEPT = ['summaryIndexes', 'rawKeepIndexes', 'sideKeepIndexes', 'controlProjectionIndexes'] as const
const ALL = [...KEPT, 'excludedBranchIndexes', 'excludedUnattributedIndexes'] as const

const optionsArb = fc.record({
  leafPolicy: fc.constantFrom<LeafPolicy>('strict', 'client', 'auto'),
  targetRatio: fc.double({ min: 0.05, max: 1, noNaN: true }),
  minRecentRecords: fc.integer({ min: 0, max: 30 }),
})

function planOf(b: Built | Buffer, options = {}): TranscriptPlan {
  const buffer = Buffer.isBuffer(b) ? b : toJsonl(b.records)
  return planIndex(native.scanBuffer(buffer, 'full'), buffer, options)
}

function recordBytes(p: TranscriptPlan, i: number): string {
  const off = p.index.offsets()[i]
  return p.buffer.subarray(off, off + p.index.lengths()[i]).toString('utf8')
}

test('the partition covers every record exactly once, whatever the options', (t) => {
  fc.assert(
    fc.property(shapeArb, optionsArb, (shape, options) => {
      const p = planOf(build(shape), options)
      const seen = new Uint8Array(p.index.length)
      for (const k of ALL) for (const i of p.topology[k]) seen[i]++
      return seen.every((n) => n === 1) && p.report.status === 'valid'
    }),
    { numRuns: RUNS },
  )
  t.pass()
})

test('text planted on a rewound branch never appears in a kept set', (t) => {
  fc.assert(
    fc.property(shapeArb, optionsArb, (shape, options) => {
      const b = build(shape)
      const p = planOf(b, options)
      const excluded = new Set(p.topology.excludedBranchIndexes)
      for (const i of b.branch) if (!excluded.has(i)) return false
      for (const k of KEPT) for (const i of p.topology[k]) if (recordBytes(p, i).includes(PLANTED)) return false
      // The chosen cut is a legal one and the leaf is the pointer's.
      return (
        (p.topology.cut === undefined || p.topology.legalCuts.includes(p.topology.cut)) &&
        p.report.selectedLeafUuid === b.leaf
      )
    }),
    { numRuns: RUNS },
  )
  t.pass()
})

test('the cut never separates fragments of one message.id or a tool call from its results', (t) => {
  fc.assert(
    fc.property(shapeArb, (shape) => {
      const p = planOf(build(shape))
      const chain = Array.from(p.topology.chain, (i) => p.index.record(i)!)
      for (const cut of p.topology.legalCuts) {
        const before = chain.slice(0, cut)
        const after = chain.slice(cut)
        const ids = (rs: typeof chain) =>
          new Set(rs.flatMap((r) => (r.type === 'assistant' && r.messageId ? [r.messageId] : [])))
        const tools = (rs: typeof chain) =>
          new Set(rs.flatMap((r) => [...r.toolUses.map((u) => u.id), ...r.toolResultIds]))
        for (const m of ids(after)) if (ids(before).has(m)) return false
        for (const x of tools(after)) if (tools(before).has(x)) return false
        // Never inside a run of user records the client merges into one message.
        const prev = [...before]
          .reverse()
          .find((r) => r.type === 'user' || r.type === 'assistant' || r.type === 'attachment')
        if (cut > p.topology.priorCompact.length && after[0].type !== 'assistant' && prev && prev.type !== 'assistant')
          return false
      }
      return true
    }),
    { numRuns: RUNS },
  )
  t.pass()
})

const DEFECTS = [
  'duplicate-uuid',
  'dangling-parent',
  'parent-cycle',
  'bad-json',
  'internal-field',
  'empty-text-block',
  'orphan-tool-result',
] as const
type Defect = (typeof DEFECTS)[number]

/** Plants one defect on the main line; returns the records and the finding code expected. */
function plant(b: Built, defect: Defect, pick: number): (Record<string, any> | string)[] | null {
  const records: (Record<string, any> | string)[] = b.records.map((r) => structuredClone(r))
  const byUuid = (u: string) => records.findIndex((r) => typeof r !== 'string' && r.uuid === u)
  const mainIdx = b.main.map(byUuid)
  const visible = b.visible.filter((i) => {
    const r = records[i] as Record<string, any>
    return r.type === 'user' || r.type === 'assistant'
  })
  const at = <T>(xs: T[]) => (xs.length === 0 ? undefined : xs[pick % xs.length])
  switch (defect) {
    case 'duplicate-uuid': {
      const i = at(mainIdx.slice(1))!
      ;(records[i] as any).uuid = b.main[0]
      return records
    }
    case 'dangling-parent': {
      const i = at(mainIdx.filter((k) => (records[k] as any).parentUuid))
      if (i === undefined) return null
      ;(records[i] as any).parentUuid = 'never-written-parent'
      return records
    }
    case 'parent-cycle': {
      ;(records[mainIdx[0]] as any).parentUuid = b.leaf
      return records
    }
    case 'bad-json':
      records.splice(pick % records.length, 0, '{"type":"user","uuid":')
      return records
    case 'internal-field':
      ;(records[at(mainIdx)!] as any).summaryIndexes = [1, 2]
      return records
    case 'empty-text-block': {
      const i = at(
        visible.filter(
          (k) => (records[k] as any).type === 'assistant' && (records[k] as any).message.content[0].type === 'text',
        ),
      )
      if (i === undefined) return null
      // Whitespace-only text beside the record's other blocks: the client sends it (it drops an
      // empty one, and a record of blank text only).
      ;(records[i] as any).message.content.unshift({ type: 'text', text: ' ' })
      return records
    }
    case 'orphan-tool-result': {
      const i = at(
        visible.filter(
          (k) =>
            Array.isArray((records[k] as any).message?.content) &&
            (records[k] as any).message.content[0]?.type === 'tool_result',
        ),
      )
      if (i === undefined) return null
      ;(records[i] as any).message.content[0].tool_use_id = 'toolu_nobody'
      return records
    }
  }
}

test('the validator accepts every generated transcript and rejects each planted defect', async (t) => {
  const dir = tempDir('cj-prop-')
  let planted = 0
  await fc.assert(
    fc.asyncProperty(shapeArb, fc.constantFrom(...DEFECTS), fc.nat(), async (shape, defect, pick) => {
      const b = build(shape)
      const path = join(dir, `${SESSION}.jsonl`)
      writeFileSync(path, toJsonl(b.records))
      const ok = await native.validateFile(path, { fileSessionId: SESSION })
      const errors = ok.findings.filter((f) => f.severity === 'error')
      if (errors.length > 0) throw new Error(`valid transcript rejected: ${JSON.stringify(errors)}`)
      const bad = plant(b, defect, pick)
      if (bad === null) return true
      planted++
      writeFileSync(path, toJsonl(bad as Record<string, any>[]))
      const r = await native.validateFile(path, { fileSessionId: SESSION })
      const codes = r.findings.filter((f) => f.severity === 'error').map((f) => f.code)
      // A result re-pointed at no call is no longer spliced in: its call is then unanswered.
      const accepted = defect === 'orphan-tool-result' ? ['orphan-tool-result', 'tool-use-without-result'] : [defect]
      if (!codes.some((c) => accepted.includes(c))) throw new Error(`${defect} not found: ${JSON.stringify(codes)}`)
      return true
    }),
    { numRuns: RUNS },
  )
  t.true(planted > RUNS / 2, `${planted} defects planted`)
})

test('topology damage on the active chain stops the plan; the same damage on a rewound branch does not', (t) => {
  const withBranch = shapeArb.filter((s) => s.branches.length > 0)
  fc.assert(
    fc.property(
      withBranch,
      fc.constantFrom('dangling', 'malformed-parent', 'loop'),
      fc.nat(),
      (shape, damage, pick) => {
        const b = build(shape)
        const clean = b.records
        if (b.branch.length === 0) return true
        // On the chain: a model-visible record that has a parent; the chain's root for the others.
        const onChain = b.visible.filter((i) => clean[i].parentUuid)
        const root = b.visible[0]
        const chainDamaged = clean.map((r) => structuredClone(r))
        const i = onChain[pick % onChain.length]
        if (damage === 'dangling') chainDamaged[i].parentUuid = 'never-written-parent'
        else if (damage === 'malformed-parent') chainDamaged[root].parentUuid = 17
        else chainDamaged[root].parentUuid = b.leaf
        if (planOf(toJsonl(chainDamaged)).report.status === 'valid') return false
        // On a rewound branch: a dangling parent nothing can be re-attached to (older than every
        // record), a malformed parent, or a cycle through the branch's own records.
        const branchDamaged = clean.map((r) => structuredClone(r))
        const conv = b.branch.filter((k) => clean[k].type === 'user' || clean[k].type === 'assistant')
        const k = conv[pick % conv.length]
        const branchUuids = new Set(b.branch.map((x) => clean[x].uuid))
        const branchRoot = b.branch.find((x) => !branchUuids.has(clean[x].parentUuid))!
        if (damage === 'dangling')
          Object.assign(branchDamaged[k], { parentUuid: 'never-written-parent', timestamp: '2000-01-01T00:00:00.000Z' })
        else if (damage === 'malformed-parent') branchDamaged[branchRoot].parentUuid = 17
        else branchDamaged[branchRoot].parentUuid = clean[b.branch[b.branch.length - 1]].uuid
        const p = planOf(toJsonl(branchDamaged))
        if (p.report.status !== 'valid' || p.report.selectedLeafUuid !== b.leaf) return false
        for (const set of KEPT) for (const x of p.topology[set]) if (recordBytes(p, x).includes(PLANTED)) return false
        return true
      },
    ),
    { numRuns: RUNS },
  )
  t.pass()
})
