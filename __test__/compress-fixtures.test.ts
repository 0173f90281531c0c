// Whatever leaf policy chose the leaf, the compressed file resumes in the real client from that
// leaf and its chain: for every topology fixture that plans as valid under `auto` (pointer absent,
// stale over a linear continuation, interior on one branch, rewound branches, parallel calls,
// compaction, preserved segments, legacy progress, lineage...), the candidate is sent as its
// summary followed by the original's recent messages, exactly as the client sends them for the
// original.
import test from 'ava'
import { readFileSync, readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { compressWith } from '../src-ts/compress/compress.js'
import type { Summarizer } from '../src-ts/compress/summarizer-contract.js'
import { plan } from '../src-ts/compress/plan.js'
import { ClaudeJsonlError } from '../src-ts/errors.js'
import { validate } from '../src-ts/read/validate.js'
import { REPO, tempDir } from './helpers/transcripts.js'
import { assertResumesLike } from './helpers/resume-like.js'

const DIR = join(REPO, 'fixtures', 'topology')
const summarize: Summarizer = async (req) => ({
  text: `This session is being continued from a previous conversation. Fixture summary of ${req.plan.topology.summaryIndexes.length} records.`,
  mode: 'deterministic',
})

// `npm test` compresses and resumes every second fixture (each fixture's own resume, as our API
// view, is in real-client.test.ts whatever the run); `npm run test:full` (CLAUDE_JSONL_TEST_FULL)
// every one.
const FULL = process.env.CLAUDE_JSONL_TEST_FULL === '1'
for (const name of readdirSync(DIR)
  .filter((f) => f.endsWith('.jsonl'))
  .sort()
  .filter((_, i) => FULL || i % 2 === 0)) {
  // (side by side: each resume has its own HOME and mock; two run at a time)
  test(`${name}: a candidate resumes like the original`, async (t) => {
    const input = join(DIR, name)
    const planned = await plan(input, { leafPolicy: 'auto', minRecentRecords: 1, targetRatio: 0.5 })
    if (planned.report.status !== 'valid' || !planned.report.cut || planned.report.summarizedRecords === 0) {
      // A stop, or nothing to summarise: compress refuses it (tested in compress.test.ts).
      t.pass(`not compressible under auto: ${planned.report.status}`)
      return
    }
    // The client finds a session by its file name: give both files the same uuid name.
    const dir = tempDir('cj-fixture-')
    const original = join(dir, '6d0f4c1e-2b3a-4c5d-8e9f-0a1b2c3d4e5f.jsonl')
    writeFileSync(original, readFileSync(input))
    const out = join(dir, 'candidate.jsonl')
    let report
    try {
      report = await compressWith(original, out, summarize, {
        // These fixtures are small: their summary outweighs what it replaces (the size gate
        // has its own tests); they test topology and resumption.
        minGain: 100,
        leafPolicy: 'auto',
        minRecentRecords: 1,
        targetRatio: 0.5,
      })
    } catch (e) {
      // Only a source already invalid where records are kept verbatim (e.g. a tool call with no
      // result) is refused, as the source's defect, exit 1.
      t.false((await validate(original)).valid)
      t.is((e as ClaudeJsonlError).exitCode, 1, (e as Error).message)
      t.regex((e as Error).message, /the source is invalid where compress must keep it verbatim/)
      return
    }
    t.true(report.validation.valid, JSON.stringify(report.validation.findings))
    const r = await assertResumesLike(readFileSync(original), readFileSync(out))
    t.true(r.suffixMessages > 0)
    // The client resumed the candidate from the leaf the plan chose.
    t.is(report.selectedLeafUuid, planned.report.selectedLeafUuid)
  })
}
