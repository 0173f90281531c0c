// Our scanner and stats against the hand-checked edge cases and the generator's ground truth.
import test from 'ava'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { doctor, scanFile, stats } from '../src-ts/index.js'
import { REPO, tempDir } from './helpers/transcripts.js'

const EDGE = join(REPO, 'fixtures', 'edge')
interface Expected {
  files?: number
  lines: number
  records: number
  types: Record<string, number>
  totals?: Record<string, number>
  lanes?: Record<string, number>
  sidechainReplays?: number
  [count: string]: unknown
}
const expected: Record<string, Expected> = JSON.parse(readFileSync(join(EDGE, 'expected.json'), 'utf8'))

for (const [name, want] of Object.entries(expected)) {
  test(`edge case ${name}`, async (t) => {
    const path = join(EDGE, name)
    if (name.endsWith('/')) {
      const r = await doctor({ paths: [path] })
      t.is(r.totals.files, want.files!)
      t.is(r.totals.lines, want.lines)
      t.is(r.totals.records, want.records)
      t.deepEqual(Object.fromEntries(r.types.map((x) => [x.name, x.count])), want.types)
    } else {
      const s = (await scanFile(path)).summary()
      const got = {
        lines: s.lines,
        records: s.records,
        blankLines: s.blankLines,
        badJsonLines: s.badJsonLines,
        nonObjectLines: s.nonObjectLines,
        loneSurrogateLines: s.loneSurrogateLines,
        tornTail: s.tornTail,
        types: Object.fromEntries(s.types.map((x) => [x.name, x.count])),
      }
      const { totals: _t, lanes: _l, ...counts } = want
      t.deepEqual(got, counts)
    }
    if (want.totals) {
      const r = await stats({ paths: [path] })
      const { requests, inputTokens, cacheCreationInputTokens, cacheReadInputTokens, outputTokens } = r.totals
      t.deepEqual({ requests, inputTokens, cacheCreationInputTokens, cacheReadInputTokens, outputTokens }, want.totals)
      t.deepEqual(r.lanes, want.lanes)
      if (want.sidechainReplays !== undefined) t.is(r.entries.sidechainReplaysDropped, want.sidechainReplays)
    }
  })
}

test('stats over a generated estate equal the generator manifest to the token', async (t) => {
  const { generateEstate } = await import(join(REPO, 'fixtures', 'generate.mjs'))
  const out = tempDir('cj-gen-')
  const manifest = generateEstate({ out, sessions: 12, targetMb: 8, seed: 7 })
  const r = await stats({ projects: join(out, 'projects') })
  const { requests, inputTokens, cacheCreationInputTokens, cacheReadInputTokens, outputTokens } = r.totals
  t.deepEqual({ requests, inputTokens, cacheCreationInputTokens, cacheReadInputTokens, outputTokens }, manifest.totals)
  t.deepEqual(r.lanes, manifest.lanes)
  t.deepEqual(Object.fromEntries(r.tools.map((x) => [x.name, x.calls])), manifest.toolCalls)
  t.is(r.scope.sessions, manifest.sessions)
  t.is(r.scope.subagentFiles, manifest.subagentFiles)
  t.is(r.scope.bytes, manifest.bytes)
  const d = await doctor({ projects: join(out, 'projects') })
  t.is(d.totals.lines, manifest.lines)
  t.is(d.totals.loneSurrogateLines, manifest.loneSurrogateLines)
  t.deepEqual(Object.fromEntries(d.types.map((x) => [x.name, x.count])), manifest.recordTypes)
})
