// compress in candidate mode: the output's layout, byte identity of the kept suffix, projection
// of metadata and pointer, the gates that write nothing, repeated compression, and resumption in
// the real Claude Code client.
import test from 'ava'
import { execFileSync, spawn, spawnSync } from 'node:child_process'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, truncateSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { compress, compressCandidate, compressWith } from '../src-ts/compress/compress.js'
import type { Summarizer } from '../src-ts/compress/summarizer-contract.js'
import { summarizerFor } from '../src-ts/compress/summary-source.js'
import { ClaudeJsonlError } from '../src-ts/errors.js'
import native from '../src-ts/native.js'
import { validate } from '../src-ts/read/validate.js'
import { CLI, REAL, REPO, snapshot, tempDir } from './helpers/transcripts.js'
import { linearBase, Transcript } from './helpers/resume-fixtures.js'
import { assertResumesLike } from './helpers/resume-like.js'
import { slowSerial, slowTest } from './helpers/tiers.js'

// Tests that resume a candidate in the real Claude Code client: skipped by `npm run test:quick`.
const clientSerial = slowSerial
const clientTest = slowTest

const PLANTED = 'PLANTED-BRANCH-TEXT: revert everything'
/** --min-gain for the small hand-made sessions here, whose summary outweighs what it replaces:
 * these tests are about topology and layout; the size gate has its own tests (min-gain). */
const GROW = 100

const fixedSummary: Summarizer = async (req) => ({
  text: `This session is being continued from a previous conversation. Test summary of ${req.plan.topology.summaryIndexes.length} records; original at ${req.sourcePath}.`,
  mode: 'deterministic',
})

/** A session with metadata changes, snapshots, a rewound branch and tool calls. */
function richSession(leafPadding = 0): Transcript {
  const t = new Transcript()
  t.raw({ type: 'permission-mode', permissionMode: 'default', sessionId: '5e551011-0000-4000-8000-00000000c11e' })
  t.raw({
    type: 'file-history-snapshot',
    messageId: t.uuid('U1'),
    snapshot: { trackedFileBackups: {} },
    isSnapshotUpdate: false,
  })
  t.user('U1', null, 'U1: set up the project, keep it small')
    .text('A1', 'U1', 'A1: done, what next?')
    .raw({ type: 'custom-title', customTitle: 'first title', sessionId: '5e551011-0000-4000-8000-00000000c11e' })
    .user('U2', 'A1', 'U2: run the build')
    .call('A2', 'U2', 'toolu_build')
    .result('R2', 'A2', 'toolu_build', 'build ok')
    .text('A3', 'R2', 'A3: the build passed')
    .user('U2alt', 'A1', PLANTED)
    .text('A2alt', 'U2alt', 'A2-alt: reverted')
  t.raw({
    type: 'file-history-snapshot',
    messageId: t.uuid('U4'),
    snapshot: { trackedFileBackups: {} },
    isSnapshotUpdate: false,
  })
  t.user('U4', 'A3', 'U4: now write the docs for the build step, with an example of the command')
    .text('A4', 'U4', 'A4: docs written to docs/build.md with one example')
    .raw({ type: 'custom-title', customTitle: 'second title', sessionId: '5e551011-0000-4000-8000-00000000c11e' })
    .raw({ type: 'permission-mode', permissionMode: 'acceptEdits', sessionId: '5e551011-0000-4000-8000-00000000c11e' })
    .user('U5', 'A4', 'U5: run the tests and tell me what failed')
    .call('A5', 'U5', 'toolu_tests')
    .result('R5', 'A5', 'toolu_tests', '2 passed, 1 failed: test_docs')
    .text('A6', 'R5', 'A6: one test failed, test_docs; the example path is wrong' + ' detail'.repeat(leafPadding))
  t.raw({
    type: 'last-prompt',
    lastPrompt: 'U5: run the tests',
    leafUuid: t.uuid('A6'),
    sessionId: '5e551011-0000-4000-8000-00000000c11e',
    explicit: true,
  })
  return t
}

function writeSession(bytes: Buffer): { dir: string; input: string; out: string } {
  const dir = tempDir('cj-compress-')
  const input = join(dir, '5e551011-0000-4000-8000-00000000c11e.jsonl')
  writeFileSync(input, bytes)
  return { dir, input, out: join(dir, 'candidate.jsonl') }
}

const lines = (b: Buffer) =>
  b
    .toString('utf8')
    .split('\n')
    .filter((l) => l !== '')

test('the candidate is side records, one compact pair, the suffix byte for byte, latest metadata, one pointer', async (t) => {
  const src = richSession()
  const { input, out } = writeSession(src.bytes())
  const report = await compressWith(input, out, fixedSummary, { minGain: GROW, targetRatio: 0.7, minRecentRecords: 1 })
  t.true(report.validation.valid, JSON.stringify(report.validation))
  const inLines = lines(readFileSync(input))
  const outLines = lines(readFileSync(out))
  const recs = outLines.map((l) => JSON.parse(l))
  const kinds = recs.map((r) => r.type + (r.subtype ? '/' + r.subtype : '') + (r.isCompactSummary ? '/summary' : ''))
  const b = kinds.indexOf('system/compact_boundary')
  t.is(kinds.filter((k) => k === 'system/compact_boundary').length, 1)
  t.is(kinds[b + 1], 'user/summary')
  t.true(
    kinds.slice(0, b).every((k) => k === 'file-history-snapshot'),
    kinds.join(','),
  )
  // Only the snapshot of a kept record survives.
  t.deepEqual(
    recs.slice(0, b).map((r) => r.messageId),
    [src.uuid('U4')],
  )
  const boundary = recs[b]
  const summary = recs[b + 1]
  t.is(summary.parentUuid, boundary.uuid)
  t.is(boundary.parentUuid, null)
  t.is(boundary.compactMetadata.summaryUuid, summary.uuid)
  t.is(boundary.compactMetadata.codexOfflineCompressionVersion, 'v10')
  t.is(boundary.compactMetadata.selectedLeafUuid, src.uuid('A6'))
  t.is(summary.message.content.startsWith('This session is being continued'), true)
  // Claude Code's layout: parentUuid first, compact separators.
  t.true(outLines[b].startsWith('{"parentUuid":null,"isSidechain":false,'))
  t.true(outLines[b + 1].startsWith(`{"parentUuid":"${boundary.uuid}","isSidechain":false,`))
  t.regex(outLines[b + 1], /"uuid":"[0-9a-f-]{36}","timestamp":"/)
  // The suffix: the source lines of U4..A6, in order; only U4's parentUuid changed.
  const suffixNames = ['U4', 'A4', 'U5', 'A5', 'R5', 'A6']
  const suffix = outLines.slice(b + 2, b + 2 + suffixNames.length)
  const sourceOf = (name: string) => inLines.find((l) => JSON.parse(l).uuid === src.uuid(name))!
  t.is(suffix[0], sourceOf('U4').replace(`"parentUuid":"${src.uuid('A3')}"`, `"parentUuid":"${summary.uuid}"`))
  t.deepEqual(suffix.slice(1), suffixNames.slice(1).map(sourceOf))
  // Synthetic timestamps just before the first kept record, never "now".
  const firstTs = Date.parse(JSON.parse(suffix[0]).timestamp)
  t.is(Date.parse(boundary.timestamp), firstTs - 2)
  t.is(Date.parse(summary.timestamp), firstTs - 1)
  // Then the latest metadata values and the pointer, deep-copied with unknown fields.
  const tail = recs.slice(b + 2 + suffixNames.length)
  t.deepEqual(
    tail.map((r) => r.type),
    ['custom-title', 'permission-mode', 'last-prompt'],
  )
  t.is(tail[0].customTitle, 'second title')
  t.is(tail[1].permissionMode, 'acceptEdits')
  t.like(tail[2], { leafUuid: src.uuid('A6'), lastPrompt: 'U5: run the tests', explicit: true })
  // Nothing of the rewound branch, nor of the summarised records' bodies.
  const text = readFileSync(out, 'utf8')
  t.false(text.includes('PLANTED-BRANCH-TEXT'))
  t.false(text.includes('U2: run the build'))
  // The report beside it.
  const sidecar = JSON.parse(readFileSync(`${out}.report.json`, 'utf8'))
  t.is(sidecar.reportSchemaVersion, 1)
  t.is(sidecar.recentRecordsPreserved, 6)
  t.is(sidecar.excludedBranchCount, 2)
})

test('CRLF, BOM and lone-surrogate escapes in kept records survive byte for byte', async (t) => {
  const src = new Transcript()
    .user('U1', null, 'U1: first')
    .text('A1', 'U1', 'A1: ok')
    .user('U2', 'A1', 'U2: second \ud83d half an emoji')
    .text('A2', 'U2', 'A2: ok')
    .lastPrompt('A2')
  const body = src.bytes().toString('utf8').replace(/\n/g, '\r\n')
  const { input, out } = writeSession(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(body)]))
  await compressWith(input, out, fixedSummary, { minGain: GROW, targetRatio: 0.7, minRecentRecords: 1 })
  const bytes = readFileSync(out)
  t.deepEqual([...bytes.subarray(0, 3)], [0xef, 0xbb, 0xbf])
  const text = bytes.toString('utf8').slice(1)
  t.true(
    text
      .split('\r\n')
      .slice(0, -1)
      .every((l) => !l.includes('\n')),
  )
  t.true(text.includes('"U2: second \\ud83d half an emoji"'))
})

test('every gate writes nothing: path rules, topology stop, token ceiling, a source changed during the run', async (t) => {
  // The leaf alone is over 1000 estimated tokens: no suffix fits the ceiling below.
  const { dir, input, out } = writeSession(richSession(800).bytes())
  const before = snapshot(dir)
  const fails = async (p: Promise<unknown>, code: number, re: RegExp) => {
    const e = await t.throwsAsync(p)
    t.true(e instanceof ClaudeJsonlError)
    t.is((e as ClaudeJsonlError).exitCode, code, e!.message)
    t.regex(e!.message, re)
    // Only the input may differ (the live-source case appends to it): no output, no temp file.
    t.deepEqual(
      snapshot(dir).filter((l) => !l.startsWith(input)),
      before.filter((l) => !l.startsWith(input)),
    )
  }
  await fails(compressWith(input, input, fixedSummary), 2, /must differ from the input/)
  const claude = join(dir, '.claude', 'projects', 'p')
  mkdirSync(claude, { recursive: true })
  await fails(compressWith(input, join(claude, 'x.jsonl'), fixedSummary), 2, /inside a \.claude tree/)
  await fails(
    compressWith(input, out, fixedSummary, {
      minGain: GROW,
      targetEstimatedTokens: 1000,
      summaryCharBudget: 4000,
      minRecentRecords: 1,
    }),
    1,
    /exceed --target-estimated-tokens 1000/,
  )
  await fails(
    compressCandidate(
      input,
      out,
      fixedSummary,
      { minGain: GROW, minRecentRecords: 1 },
      { beforePublish: () => appendFileSync(input, '{"type":"x"}\n') },
    ),
    3,
    /changed during the run/,
  )
  t.false(existsSync(out))
})

test('a source truncated while it is compressed is refused as changed, without a crash, nothing written', async (t) => {
  // The source is read through a mapping of the file (Linux): pages the file no longer has must
  // read as zeros and be reported, not kill the process with SIGBUS.
  const { dir, input, out } = writeSession(richSession(60).bytes())
  const deterministic = summarizerFor({})
  let lastByte = -1
  let intact = true
  const truncating: Summarizer = Object.assign(
    async (req: Parameters<Summarizer>[0]) => {
      truncateSync(input, 0)
      const b = req.plan.buffer
      lastByte = b[b.length - 1]
      intact = native.mappedIntact(b)
      return deterministic(req)
    },
    { readsThroughSpans: deterministic.readsThroughSpans },
  )
  const e = await t.throwsAsync(compressWith(input, out, truncating, { minGain: GROW, minRecentRecords: 1 }))
  t.true(e instanceof ClaudeJsonlError, e?.stack)
  t.is((e as ClaudeJsonlError).exitCode, 3, e!.message)
  t.regex(e!.message, /changed during the run/)
  t.false(existsSync(out))
  t.deepEqual(snapshot(dir).filter((l) => !l.startsWith(input)).length, 0)
  if (process.platform === 'linux') {
    // The guard fired: the lost page read as zeros and the mapping says so.
    t.is(lastByte, 0)
    t.false(intact)
  }
})

test.serial(
  'a source read into memory (CLAUDE_JSONL_NO_MMAP, or no mapping) gives the same candidate as a mapped one',
  async (t) => {
    // Where files are not mapped, the source buffer's pages are given back and reloaded from the
    // file (FileSpans); both paths must build the same bytes. Serial: it sets the environment.
    const dir = tempDir('cj-compress-nommap-')
    const input = join(REAL, 'real-08.jsonl')
    const run = async (name: string, noMmap: boolean) => {
      const was = process.env.CLAUDE_JSONL_NO_MMAP
      if (noMmap) process.env.CLAUDE_JSONL_NO_MMAP = '1'
      else delete process.env.CLAUDE_JSONL_NO_MMAP
      try {
        const out = join(dir, name)
        const report = await compress(input, out, { summary: 'deterministic', minGain: GROW })
        return readFileSync(out, 'utf8').replaceAll(report.boundaryUuid, 'B').replaceAll(report.summaryUuid, 'S')
      } finally {
        if (was === undefined) delete process.env.CLAUDE_JSONL_NO_MMAP
        else process.env.CLAUDE_JSONL_NO_MMAP = was
      }
    }
    const mapped = await run('mapped.jsonl', false)
    const read = await run('read.jsonl', true)
    t.true(mapped.length > 100_000)
    t.is(read, mapped)
  },
)

test('a topology stop names the status and the recovery option, exit 1, nothing written', async (t) => {
  const src = new Transcript()
    .user('U1', null, 'U1: a')
    .text('A1', 'U1', 'A1: b')
    .user('U2', 'A1', 'U2: c')
    .text('A2', 'U2', 'A2: d')
  src.records.push({ ...src.records[1], message: { role: 'assistant', content: [{ type: 'text', text: 'dup' }] } })
  const { dir, input, out } = writeSession(src.lastPrompt('A2').bytes())
  const before = snapshot(dir)
  const r = spawnSync(
    process.execPath,
    [CLI, 'compress', input, '--out', out, '--summary', 'deterministic', '--min-gain', String(GROW)],
    {
      encoding: 'utf8',
    },
  )
  t.is(r.status, 1, r.stderr)
  t.regex(r.stderr, /^claude-jsonl: .*duplicate-uuid/)
  t.is(r.stderr.trim().split('\n').length, 1)
  t.deepEqual(snapshot(dir), before)
})

test('repeated compression folds the old pair into one new summary', async (t) => {
  const { input, out } = writeSession(richSession().bytes())
  await compressWith(input, out, fixedSummary, { minGain: GROW, targetRatio: 0.6, minRecentRecords: 1 })
  const again = join(tempDir('cj-compress-'), 'again.jsonl')
  const r = await compressWith(out, again, fixedSummary, { minGain: GROW, targetRatio: 0.3, minRecentRecords: 1 })
  t.true(r.validation.valid)
  t.is(r.priorCompactRecordCount, 2)
  const recs = lines(readFileSync(again)).map((l) => JSON.parse(l))
  t.is(recs.filter((x) => x.subtype === 'compact_boundary').length, 1)
  t.is(recs.filter((x) => x.isCompactSummary).length, 1)
})

clientSerial(
  'the real client resumes a candidate as summary + the original suffix, without the rewound branch',
  async (t) => {
    const { input, out } = writeSession(richSession().bytes())
    await compressWith(input, out, fixedSummary, { minGain: GROW, targetRatio: 0.7, minRecentRecords: 1 })
    const r = await assertResumesLike(readFileSync(input), readFileSync(out), { excludedTexts: [PLANTED] })
    t.is(r.suffixMessages, 6)
  },
)

// real-06 and real-09 were compacted by the client already: their chain starts at its boundary.
for (const name of ['real-05.jsonl', 'real-06.jsonl', 'real-08.jsonl', 'real-09.jsonl', 'real-12.jsonl']) {
  // (side by side: each compresses into its own folder, and each resume has its own HOME and mock)
  clientTest(`the real client resumes the candidate of ${name} like the original's recent suffix`, async (t) => {
    const dir = tempDir('cj-compress-')
    const out = join(dir, 'candidate.jsonl')
    const report = await compressWith(join(REAL, name), out, fixedSummary)
    t.true(report.validation.valid)
    const r = await assertResumesLike(readFileSync(join(REAL, name)), readFileSync(out))
    // real-06's short chain after its boundary keeps a few messages; the others keep more.
    t.true(r.suffixMessages >= (name === 'real-06.jsonl' ? 3 : 6), `${r.suffixMessages} messages kept`)
    // The CLI's validator agrees.
    t.notThrows(() => execFileSync(process.execPath, [CLI, 'validate', out]))
  })
}

const BENCH_SINGLE = join(REPO, '.bench-cache', 'single', 'projects', 'p')
const bigTest = existsSync(BENCH_SINGLE) ? clientSerial : test.serial.skip
bigTest('the 50 MB generated session compresses, and the real client resumes it like the original', async (t) => {
  t.timeout(600_000)
  const name = readdirSync(BENCH_SINGLE).find((n) => n.endsWith('.jsonl'))!
  const input = join(BENCH_SINGLE, name)
  const out = join(tempDir('cj-compress-big-'), name)
  const report = await compress(input, out)
  t.true(report.validation.valid)
  t.true(report.outputEstimatedMessageTokens <= 0.4 * report.inputEstimatedMessageTokens)
  const r = await assertResumesLike(readFileSync(input), readFileSync(out), { sessionId: name.slice(0, 36) })
  t.true(r.suffixMessages > 2)
})

test('every candidate compress publishes passes validate under its published name', async (t) => {
  // Named as Claude Code names them, after the session of their first record: in sessions
  // continued from another, the chain ends in a later session than the name's.
  const dir = tempDir('cj-compress-names-')
  let checked = 0
  for (const n of readdirSync(REAL).filter((x) => x.endsWith('.jsonl'))) {
    const bytes = readFileSync(join(REAL, n))
    const sid = bytes.toString('utf8', 0, 4096).match(/"sessionId":"([0-9a-f-]{36})"/)?.[1]
    if (!sid) continue
    const input = join(dir, 'in', `${sid}.jsonl`)
    mkdirSync(join(dir, 'in'), { recursive: true })
    writeFileSync(input, bytes)
    const out = join(dir, 'out', `${sid}.jsonl`)
    mkdirSync(join(dir, 'out'), { recursive: true })
    let report
    try {
      report = await compress(input, out)
    } catch (e) {
      // Only a refusal (exit 1) may stop one; a candidate failing its own check is exit 4.
      t.is((e as ClaudeJsonlError).exitCode, 1, `${n}: ${(e as Error).message}`)
      continue
    }
    const v = await validate(out)
    t.true(report.validation.valid, n)
    t.true(v.valid, `${n}: ${JSON.stringify(v.findings.filter((f) => f.severity === 'error'))}`)
    t.deepEqual(
      report.validation.findings.map((f) => f.code).sort(),
      v.findings.map((f) => f.code).sort(),
      `${n}: one verdict`,
    )
    checked++
  }
  t.true(checked >= 8, `${checked} candidates checked`)
})

const MECHANICAL = join(REPO, 'fixtures', 'mechanical-summarizer.mjs')
const cli = (...args: string[]) => spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8' })

clientSerial(
  'model-assisted: pack, a summariser command, v11 checks, applied; the real client resumes it',
  async (t) => {
    const { input, out } = writeSession(richSession().bytes())
    const r = cli(
      'compress',
      '--min-gain',
      String(GROW),
      input,
      '--out',
      out,
      '--target-ratio',
      '0.7',
      '--min-recent-records',
      '1',
      '--summarizer-cmd',
      `"${process.execPath}" "${MECHANICAL}"`,
      '--json',
    )
    t.is(r.status, 0, r.stderr)
    const report = JSON.parse(r.stdout)
    t.is(report.semanticSummaryMode, 'model-assisted-v11')
    const boundary = lines(readFileSync(out))
      .map((l) => JSON.parse(l))
      .find((x) => x.subtype === 'compact_boundary')
    t.is(boundary.compactMetadata.semanticSummaryMode, 'model-assisted-v11')
    t.regex(boundary.compactMetadata.modelPackRequestDigest, /^[0-9a-f]{64}$/)
    const resumed = await assertResumesLike(readFileSync(input), readFileSync(out), { excludedTexts: [PLANTED] })
    t.is(resumed.suffixMessages, 6)
  },
)

test('a model summary is refused with the rule it breaks; nothing written', (t) => {
  const { dir, input, out } = writeSession(richSession().bytes())
  const pack = join(dir, 'pack.md')
  t.is(cli('pack', input, '--out', pack, '--target-ratio', '0.45', '--min-recent-records', '1').status, 0)
  const good = execFileSync(process.execPath, [MECHANICAL], { input: readFileSync(pack) }).toString()
  const write = (name: string, text: string) => (writeFileSync(join(dir, name), text), join(dir, name))
  const summaries = {
    good: write('good.md', good),
    noCoverage: write('no-coverage.md', good.replace(/^- L\d+ support_text_json=.*\n/m, '')),
    renamed: write('renamed.md', good.replace('## Current State', '## Where We Are')),
  }
  const before = snapshot(dir)
  const refuse = (summary: string, re: RegExp, ...extra: string[]) => {
    const r = cli(
      'compress',
      '--min-gain',
      String(GROW),
      input,
      '--out',
      out,
      '--target-ratio',
      '0.45',
      '--min-recent-records',
      '1',
      '--model-summary',
      summary,
      ...extra,
    )
    t.is(r.status, 3, r.stderr)
    t.regex(r.stderr, re)
    t.is(r.stderr.trim().split('\n').length, 1)
    t.deepEqual(snapshot(dir), before)
  }
  // Applied under other selection options than the pack was made with: the digests differ.
  refuse(summaries.good, /rule digest/, '--target-ratio', '0.3')
  // A mandatory coverage line dropped.
  refuse(summaries.noCoverage, /rule coverage/)
  // A section renamed.
  refuse(summaries.renamed, /rule (section|heading)/)
  // The same summary under the pack's own options is accepted.
  t.is(
    cli(
      'compress',
      '--min-gain',
      String(GROW),
      input,
      '--out',
      out,
      '--target-ratio',
      '0.45',
      '--min-recent-records',
      '1',
      '--model-summary',
      summaries.good,
    ).status,
    0,
  )
})

test('--target-estimated-tokens moves the cut later until the candidate fits', async (t) => {
  const dir = tempDir('cj-compress-')
  const free = await compressWith(join(REAL, 'real-08.jsonl'), join(dir, 'free.jsonl'), fixedSummary, {
    summaryCharBudget: 4000,
  })
  const ceiling = Math.round(free.outputEstimatedMessageTokens / 2)
  const capped = await compressWith(join(REAL, 'real-08.jsonl'), join(dir, 'capped.jsonl'), fixedSummary, {
    summaryCharBudget: 4000,
    targetEstimatedTokens: ceiling,
  })
  t.true(capped.outputEstimatedMessageTokens <= ceiling, `${capped.outputEstimatedMessageTokens} > ${ceiling}`)
  t.true(capped.recentRecordsPreserved < free.recentRecordsPreserved)
  t.true(capped.cut!.legalPositions.includes(capped.cut!.position))
  t.true(capped.validation.valid)
})

test('--summarizer anthropic asks the Messages API (a mock on 127.0.0.1) and applies the checked answer', async (t) => {
  const { input, out } = writeSession(richSession().bytes())
  const requests: { url?: string; key?: string; model: string; pack: string }[] = []
  const server = createServer((req, res) => {
    let raw = ''
    req.on('data', (c) => (raw += c))
    req.on('end', () => {
      const body = JSON.parse(raw)
      const pack = body.messages[0].content as string
      requests.push({
        url: req.url,
        key: (req.headers['x-api-key'] as string) ?? req.headers.authorization?.replace(/^Bearer /, ''),
        model: body.model,
        pack,
      })
      const text = execFileSync(process.execPath, [MECHANICAL], { input: pack }).toString()
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(
        JSON.stringify({
          id: 'msg_1',
          type: 'message',
          role: 'assistant',
          model: body.model,
          content: [{ type: 'text', text }],
          stop_reason: 'end_turn',
          stop_sequence: null,
          usage: { input_tokens: 1, output_tokens: 1 },
        }),
      )
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  try {
    const port = (server.address() as AddressInfo).port
    const child = spawn(
      process.execPath,
      [
        CLI,
        'compress',
        input,
        '--min-gain',
        String(GROW),
        '--out',
        out,
        '--target-ratio',
        '0.45',
        '--min-recent-records',
        '1',
        '--summarizer',
        'anthropic',
        '--model',
        'claude-test-model',
        '--json',
      ],
      {
        env: { ...process.env, ANTHROPIC_BASE_URL: `http://127.0.0.1:${port}`, ANTHROPIC_API_KEY: 'test-key' },
      },
    )
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (c) => (stdout += c))
    child.stderr.on('data', (c) => (stderr += c))
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve))
    t.is(code, 0, stderr)
    t.is(JSON.parse(stdout).semanticSummaryMode, 'model-assisted-v11')
    t.is(requests.length, 1)
    t.like(requests[0], { url: '/v1/messages', key: 'test-key', model: 'claude-test-model' })
    t.true(requests[0].pack.includes('SOURCE_JSONL'))
    t.false(requests[0].pack.includes(input), 'the pack names no local path')
    t.false(requests[0].pack.includes('PLANTED-BRANCH-TEXT'), 'no excluded-branch text reaches the model')
  } finally {
    await new Promise((r) => server.close(r))
  }
})

test('--preserve-prior-summaries-verbatim embeds the earlier summary as it is, and says so', async (t) => {
  const { input, out } = writeSession(richSession().bytes())
  const first: Summarizer = async () => ({
    text: 'This session is being continued from a previous conversation. PRIOR-SUMMARY-MARKER: the build step was set up at L3.',
    mode: 'deterministic',
  })
  await compressWith(input, out, first, { minGain: GROW, targetRatio: 0.6, minRecentRecords: 1 })
  const again = join(tempDir('cj-compress-'), 'again.jsonl')
  const r = cli(
    'compress',
    '--min-gain',
    String(GROW),
    out,
    '--out',
    again,
    '--target-ratio',
    '0.3',
    '--min-recent-records',
    '1',
    '--preserve-prior-summaries-verbatim',
    '--json',
  )
  t.is(r.status, 0, r.stderr)
  const report = JSON.parse(r.stdout)
  t.is(report.summaryMetadata.priorSummaryVerbatimPolicy, 'verbatim')
  const summary = lines(readFileSync(again))
    .map((l) => JSON.parse(l))
    .find((x) => x.isCompactSummary)
  t.true(summary.message.content.includes('PRIOR-SUMMARY-MARKER: the build step was set up at L3.'))
})

clientTest(
  'a kept assistant record of blank text is kept byte for byte, and the candidate resumes as the source',
  async (t) => {
    t.timeout(240_000)
    // Real transcripts hold streamed fragments like [{"type":"text","text":"\n\n"}]: the client does
    // not send them, so the validator does not refuse them, and compress copies them as they are.
    const src = linearBase()
      .user('U4', 'A3', 'U4: now the docs')
      .assistant('A4a', 'U4', [{ type: 'text', text: '\n\n' }], 'msg_docs')
      .call('A4b', 'A4a', 'toolu_docs', 'msg_docs')
      .result('R4', 'A4b', 'toolu_docs', 'docs written')
      .assistant('A5', 'R4', [{ type: 'text', text: '\n\n' }])
      .user('U6', 'A5', 'U6: and the tests?')
      .text('A6', 'U6', 'A6: tests pass')
      .lastPrompt('A6')
    const { input, out } = writeSession(src.bytes())
    const report = await compressWith(input, out, fixedSummary, { targetRatio: 0.6, minRecentRecords: 7 })
    t.true(report.validation.valid, JSON.stringify(report.validation))
    const outLines = lines(readFileSync(out))
    const sourceOf = (name: string) => lines(readFileSync(input)).find((l) => JSON.parse(l).uuid === src.uuid(name))!
    for (const name of ['A4a', 'A5']) t.true(outLines.includes(sourceOf(name)), `${name} kept byte for byte`)
    const view = native.clientView(native.scanBuffer(readFileSync(out), 'full'), readFileSync(out))
    t.deepEqual(view.droppedReasons, ['blank-text', 'blank-text'])
    await assertResumesLike(readFileSync(input), readFileSync(out), { excludedTexts: ['U2: run the build'] })
  },
)
