// Compress never publishes a candidate that is not smaller (--min-gain), says so in plain words
// (also for a chain too short to cut), and the plan and compress reports carry the six-way
// partition under the compressor format's own names.
import test from 'ava'
import { spawnSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { compress } from '../src-ts/compress/compress.js'
import { lineSetDigest, plan } from '../src-ts/compress/plan.js'
import { CompressRefusal } from '../src-ts/compress/refusal.js'
import { CLI, REAL, REPO, tempDir } from './helpers/transcripts.js'
import { Transcript } from './helpers/resume-fixtures.js'

const cli = (...args: string[]) => spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8' })

/** A real transcript compressed so that its chain is one compact pair plus three records: the
 * shape of a session compressed before and barely used since. */
async function compactedOnce(): Promise<{ dir: string; file: string }> {
  const dir = tempDir('cj-min-gain-')
  const file = join(dir, 'once.jsonl')
  const r = await compress(join(REAL, 'real-05.jsonl'), file, { minRecentRecords: 1, targetRatio: 0.005 })
  if (r.recentRecordsPreserved !== 3) throw new Error(`expected 3 kept records, got ${r.recentRecordsPreserved}`)
  return { dir, file }
}

test('a compacted real transcript with three records since is refused: nothing to gain, by how much, nothing written', async (t) => {
  const { dir, file } = await compactedOnce()
  const before = readdirSync(dir).sort()
  const out = join(dir, 'again.jsonl')
  const r = cli('compress', file, '--out', out)
  t.is(r.status, 1, r.stderr)
  t.regex(
    r.stderr,
    /nothing to gain: the candidate would hold (at least )?~\d+ estimated message tokens, \d+% of the source's ~\d+; --min-gain 0\.9 allows at most ~\d+, missed by ~\d+; nothing written/,
  )
  t.is(r.stderr.trim().split('\n').length, 1, 'one line')
  t.false(existsSync(out))
  t.deepEqual(readdirSync(dir).sort(), before, 'no report, no temp file')
  // The figures are the candidate's and the source's estimates.
  const m = /would hold (?:at least )?~(\d+) .* source's ~(\d+); .* at most ~(\d+), missed by ~(\d+)/.exec(r.stderr)!
  const [cand, src, allowed, missed] = m.slice(1).map(Number)
  t.true(cand > src * 0.9)
  t.true(Math.abs(allowed - src * 0.9) <= 1)
  t.is(missed, cand - allowed)
})

test('--min-gain sets the fraction: a looser one publishes what the default refuses, a stricter one refuses what it publishes', async (t) => {
  const { dir, file } = await compactedOnce()
  const out = join(dir, 'again.jsonl')
  const e = await t.throwsAsync(compress(file, out))
  t.true(e instanceof CompressRefusal)
  t.is((e as CompressRefusal).reason, 'nothing-to-gain')
  t.is((e as CompressRefusal).exitCode, 1)
  const tokens = (e as CompressRefusal).tokens!
  t.true(tokens.after! > tokens.before * 0.9)
  // Allowing the candidate to grow publishes it; its estimate is within the fraction.
  const grown = await compress(file, out, { minGain: 3 })
  t.true(grown.outputEstimatedMessageTokens <= 3 * grown.inputEstimatedMessageTokens)
  t.true(existsSync(out))
  // A real transcript with a long history compresses under the default, and a fraction it
  // cannot meet refuses it.
  const real = join(dir, 'real.jsonl')
  const ok = await compress(join(REAL, 'real-12.jsonl'), real)
  t.true(ok.outputEstimatedMessageTokens <= 0.9 * ok.inputEstimatedMessageTokens)
  const strict = ok.outputEstimatedMessageTokens / ok.inputEstimatedMessageTokens / 2
  const e2 = await t.throwsAsync(compress(join(REAL, 'real-12.jsonl'), join(dir, 'strict.jsonl'), { minGain: strict }))
  t.regex(e2!.message, /nothing to gain/)
  t.false(existsSync(join(dir, 'strict.jsonl')))
  t.is(cli('compress', file, '--out', join(dir, 'x.jsonl'), '--min-gain', 'lots').status, 2)
  t.is(cli('compress', file, '--out', join(dir, 'x.jsonl'), '--min-gain', '0').status, 2)
})

test('a chain of three records says there is nothing to gain in plain words, not "no legal cut"', (t) => {
  const dir = tempDir('cj-min-gain-')
  const session = '5e551011-0000-4000-8000-00000000c11e'
  const input = join(dir, `${session}.jsonl`)
  const out = join(dir, 'out.jsonl')
  // Three user records in a row are one message to the API: no position can start a suffix.
  const merged = new Transcript()
  merged
    .user('U1', null, 'U1: what does this repository do?')
    .user('U2', 'U1', 'U2: and where are its tests?')
    .user('U3', 'U2', 'U3: answer briefly')
  merged.raw({ type: 'last-prompt', leafUuid: merged.uuid('U3'), sessionId: session })
  // One tool call and its result: a cut exists, but the summary outweighs what it replaces.
  const call = new Transcript()
  call
    .user('U1', null, 'U1: list the files')
    .call('A1', 'U1', 'toolu_ls')
    .result('R1', 'A1', 'toolu_ls', 'README.md src tests')
  call.raw({ type: 'last-prompt', leafUuid: call.uuid('R1'), sessionId: session })
  for (const [tr, re] of [
    [
      merged,
      /nothing to gain: the active chain has only 3 records and no place to cut it: every position would split an API turn or a merged message; nothing written/,
    ],
    [call, /nothing to gain: the candidate would hold (at least )?~\d+ estimated message tokens/],
  ] as const) {
    writeFileSync(input, tr.bytes())
    for (const extra of [[], ['--min-recent-records', '0', '--target-ratio', '0.01']]) {
      const r = cli('compress', input, '--out', out, ...extra)
      t.is(r.status, 1, r.stderr)
      t.regex(r.stderr, re)
      t.notRegex(r.stderr, /no legal cut/)
      t.false(existsSync(out))
    }
  }
})

/** Every record line of a transcript (1-based), i.e. every line that is a JSON object. */
function recordLines(bytes: Buffer): number[] {
  const out: number[] = []
  bytes
    .toString('utf8')
    .split('\n')
    .forEach((l, i) => {
      try {
        const v = JSON.parse(l)
        if (v && typeof v === 'object' && !Array.isArray(v)) out.push(i + 1)
      } catch {
        // not a record
      }
    })
  return out
}

for (const source of [
  'fixtures/topology/rewound-branch.jsonl',
  'fixtures/topology/metadata-and-checkpoints.jsonl',
  'REAL/real-08.jsonl',
]) {
  test(`the six partition sets under the format's names: ${source}`, async (t) => {
    const path = source.startsWith('REAL/') ? join(REAL, source.slice(5)) : join(REPO, source)
    const r = (await plan(path, { minRecentRecords: 1 })).report
    t.is(r.status, 'valid')
    // The four line lists are the source lines of their sets; omittedIndexes is summaryIndexes.
    t.deepEqual(r.summaryIndexes, r.summarySourceLines)
    t.deepEqual(r.rawKeepIndexes, r.rawKeepSourceLines)
    t.deepEqual(r.sideKeepIndexes, r.sideKeepSourceLines)
    t.deepEqual(r.controlProjectionIndexes, r.controlProjectionSourceLines)
    t.deepEqual(r.omittedIndexes, r.summaryIndexes)
    t.true(r.summaryIndexes.length > 0 && r.rawKeepIndexes.length > 0)
    // Mutually exclusive, and with the excluded sets they cover every record line.
    const shown = [...r.summaryIndexes, ...r.rawKeepIndexes, ...r.sideKeepIndexes, ...r.controlProjectionIndexes]
    t.is(new Set(shown).size, shown.length, 'no line in two sets')
    const all = recordLines(readFileSync(path))
    const rest = all.filter((l) => !shown.includes(l))
    t.is(rest.length, r.excludedBranchIndexes.count + r.excludedUnattributedIndexes.count)
    // The excluded sets are content-free: a count and the digest of their line numbers, and
    // the digest of the two together is the digest of every line not in the four lists.
    for (const x of [r.excludedBranchIndexes, r.excludedUnattributedIndexes]) {
      t.deepEqual(Object.keys(x).sort(), ['count', 'digest'])
      t.regex(x.digest, /^[0-9a-f]{64}$/)
    }
    t.is(r.excludedBranchIndexes.digest, r.excludedBranchDigest)
    t.is(r.excludedUnattributedIndexes.digest, r.excludedUnattributedDigest)
    if (r.excludedUnattributedIndexes.count === 0) t.is(r.excludedBranchIndexes.digest, lineSetDigest(rest))
    if (r.excludedBranchIndexes.count === 0) t.is(r.excludedUnattributedIndexes.digest, lineSetDigest(rest))
  })
}

test('the compress report and `plan --json` carry the same names', async (t) => {
  const dir = tempDir('cj-min-gain-')
  const out = join(dir, 'c.jsonl')
  const r = cli('compress', join(REAL, 'real-08.jsonl'), '--out', out, '--json')
  t.is(r.status, 0, r.stderr)
  const report = JSON.parse(readFileSync(`${out}.report.json`, 'utf8'))
  t.deepEqual(JSON.parse(r.stdout).summaryIndexes, report.summaryIndexes)
  const p = JSON.parse(cli('plan', join(REAL, 'real-08.jsonl'), '--json').stdout)
  for (const k of [
    'summaryIndexes',
    'rawKeepIndexes',
    'sideKeepIndexes',
    'controlProjectionIndexes',
    'excludedBranchIndexes',
    'excludedUnattributedIndexes',
    'omittedIndexes',
  ]) {
    t.deepEqual(report[k], p[k], k)
  }
  t.true(report.summaryIndexes.length > 0)
  // The compact metadata's digest of the summarised lines is the digest of summaryIndexes.
  const boundary = JSON.parse(
    readFileSync(out, 'utf8')
      .split('\n')
      .find((l) => l.includes('compact_boundary'))!,
  )
  t.is(boundary.compactMetadata.summarySourceLinesDigest, lineSetDigest(report.summaryIndexes))
})
