// repair-read-pages: exactly the `pages` member bytes of settled Read calls go, everything else
// stays byte for byte (BOM, CRLF, escapes, unknown fields); pending and unsettled calls are
// reported and left; the strict chain by default, --scope all on request; ambiguity refuses;
// --out and --in-place (same transaction as compress) with their reports.
import test from 'ava'
import { existsSync, mkdirSync, readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import native from '../src-ts/native.js'
import { processStartTicks } from '../src-ts/read/live-sessions.js'
import { FIXTURE_SESSION, Transcript } from './helpers/resume-fixtures.js'
import { backups, cli, inPlaceArgs, leftovers, liveEstate } from './helpers/live-estate.js'
import { tempDir } from './helpers/transcripts.js'

const PAGES = ',"pages":"1-3"'

function read(t: Transcript, name: string, parent: string, id: string, input: Record<string, unknown>): Transcript {
  return t.assistant(name, parent, [{ type: 'tool_use', id, name: 'Read', input }])
}
function settled(t: Transcript, name: string, call: string, id: string): Transcript {
  return t.user(name, call, [{ tool_use_id: id, type: 'tool_result', content: 'page text' }], {
    sourceToolAssistantUUID: t.uuid(call),
  })
}

/** U1, a settled paged Read (A1/R1), a settled Read of another file on a rewound branch (B1/RB),
 * a Read whose result never came (A2, pending), the pointer on A2. */
function session(): Transcript {
  const t = new Transcript()
  t.user('U1', null, 'read the report')
  read(t, 'A1', 'U1', 'toolu_read1', { file_path: '/docs/report.pdf', pages: '1-3' })
  settled(t, 'R1', 'A1', 'toolu_read1')
  read(t, 'B1', 'U1', 'toolu_branch', { file_path: '/docs/old.pdf', pages: '9' })
  settled(t, 'RB', 'B1', 'toolu_branch')
  read(t, 'A2', 'R1', 'toolu_pending', { file_path: '/docs/next.pdf', pages: '4' })
  t.lastPrompt('A2')
  return t
}

function inFile(bytes: Buffer): { dir: string; input: string; out: string } {
  const dir = tempDir('cj-repair-')
  const input = join(dir, `${FIXTURE_SESSION}.jsonl`)
  writeFileSync(input, bytes)
  return { dir, input, out: join(dir, 'repaired.jsonl') }
}

test('--out removes exactly the settled call’s pages member; pending and off-chain calls stay', (t) => {
  const bytes = session().bytes()
  const { input, out } = inFile(bytes)
  const r = cli(['repair-read-pages', input, '--out', out, '--json'], process.env)
  t.is(r.code, 0, r.stderr)
  const text = bytes.toString('utf8')
  const a1 = text.indexOf('"toolu_read1"')
  const at = text.indexOf(PAGES, a1)
  const expected = Buffer.from(text.slice(0, at) + text.slice(at + PAGES.length))
  t.true(readFileSync(out).equals(expected), 'only the member and its comma are gone')
  const report = JSON.parse(r.stdout)
  t.is(report.operationState, 'committed')
  t.is(report.patches.length, 1)
  t.like(report.patches[0], { toolUseId: 'toolu_read1', filePath: '/docs/report.pdf', line: 2 })
  t.deepEqual(
    report.pending.map((p: any) => p.toolUseId),
    ['toolu_pending'],
  )
  t.is(report.bytesRemoved, PAGES.length)
  t.is(report.repairedSha256, native.sha256(expected))
  t.deepEqual(JSON.parse(readFileSync(`${out}.report.json`, 'utf8')), { ...report })
  t.true(readFileSync(input).equals(bytes), 'the input is never touched in candidate mode')
  // Idempotent: the repaired file has nothing left to repair, and nothing is written.
  const again = cli(['repair-read-pages', out, '--out', join(tempDir(), 'x.jsonl')], process.env)
  t.is(again.code, 0)
  t.regex(again.stdout, /nothing to repair; nothing written/)
  t.regex(again.stdout, /pending \(left unchanged\): line 6 toolu_pending/)
})

test('--scope all also repairs the rewound branch', (t) => {
  const { input, out } = inFile(session().bytes())
  const r = cli(['repair-read-pages', input, '--out', out, '--scope', 'all', '--json'], process.env)
  t.is(r.code, 0, r.stderr)
  t.deepEqual(
    JSON.parse(r.stdout).patches.map((p: any) => p.toolUseId),
    ['toolu_read1', 'toolu_branch'],
  )
  t.false(readFileSync(out, 'utf8').includes('"pages":"9"'))
  t.true(readFileSync(out, 'utf8').includes('"pages":"4"'), 'the pending call keeps its pages')
})

test('BOM, CRLF, escapes and unknown fields survive byte for byte', (t) => {
  const lines = session()
    .bytes()
    .toString('utf8')
    .trimEnd()
    .split('\n')
    .map((l) => l.replace('"/docs/report.pdf"', '"/docs/r\\u00e9port \u00e9.pdf","x-unknown":{"k":[1,"}"]}'))
  const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(lines.join('\r\n') + '\r\n')])
  const { input, out } = inFile(bytes)
  const r = cli(['repair-read-pages', input, '--out', out], process.env)
  t.is(r.code, 0, r.stderr)
  const want = bytes.toString('latin1').replace(PAGES, '')
  t.is(readFileSync(out).toString('latin1'), want)
})

test('an ambiguous member (a duplicated key) refuses the repair and writes nothing', (t) => {
  const text = session().bytes().toString('utf8').replace(PAGES, `${PAGES},"pages":"2"`)
  const { dir, input, out } = inFile(Buffer.from(text))
  const r = cli(['repair-read-pages', input, '--out', out], process.env)
  t.is(r.code, 1)
  t.regex(r.stderr, /line 2: .*occurs twice.*nothing written/)
  t.deepEqual(readdirSync(dir), [`${FIXTURE_SESSION}.jsonl`])
})

test('bad usage is exit 2 with one line', (t) => {
  const { input, out } = inFile(session().bytes())
  for (const [args, message] of [
    [['repair-read-pages', input], /exactly one of --out FILE or --in-place/],
    [['repair-read-pages', input, '--out', out, '--scope', 'some'], /unknown --scope 'some' \(active or all\)/],
    [['repair-read-pages', input, '--out', input], /must differ from the input/],
    [['repair-read-pages', input, '--out', out, '--work-dir', '/tmp'], /go with --in-place/],
  ] as const) {
    const r = cli([...args], process.env)
    t.is(r.code, 2, r.stderr)
    t.regex(r.stderr, message)
  }
  t.false(existsSync(out))
})

test('--in-place: the same transaction as compress, backup and a camelCase operationState report', (t) => {
  const bytes = session().bytes()
  const e = liveEstate(undefined, FIXTURE_SESSION)
  writeFileSync(e.target, bytes)
  const past = new Date(Date.now() - 60_000)
  utimesSync(e.target, past, past)
  const r = cli([...inPlaceArgs(e, 'repair-read-pages'), '--json'], e.env)
  t.is(r.code, 0, r.stderr)
  const text = bytes.toString('utf8')
  t.is(readFileSync(e.target, 'utf8'), text.replace(PAGES, ''))
  t.true(readFileSync(backups(e)[0]).equals(bytes))
  t.deepEqual(leftovers(e), [])
  const report = JSON.parse(r.stdout)
  t.is(report.operationState, 'committed')
  t.is(report.inPlace.frozenSha256, native.sha256(bytes))
  t.is(report.inPlace.publishedSha256, native.sha256(readFileSync(e.target)))
  const reports = readdirSync(e.work).filter((f) => f.endsWith('.report.json'))
  t.is(reports.length, 1)

  // A live holder refuses it, as for compress.
  writeFileSync(e.target, bytes)
  utimesSync(e.target, past, past)
  mkdirSync(join(e.config, 'sessions'), { recursive: true })
  writeFileSync(
    join(e.config, 'sessions', `${process.pid}.json`),
    JSON.stringify({ pid: process.pid, sessionId: FIXTURE_SESSION, procStart: processStartTicks(process.pid) }),
  )
  const live = cli(inPlaceArgs(e, 'repair-read-pages'), e.env)
  t.is(live.code, 1)
  t.regex(live.stderr, new RegExp(`pid ${process.pid}`))
  t.true(readFileSync(e.target).equals(bytes))
})

test('--in-place with a report that cannot be written: exit 3, operationState committed-report-failed', (t) => {
  const bytes = session().bytes()
  const e = liveEstate(undefined, FIXTURE_SESSION)
  writeFileSync(e.target, bytes)
  const past = new Date(Date.now() - 60_000)
  utimesSync(e.target, past, past)
  const sha = native.sha256(bytes).slice(0, 16)
  mkdirSync(join(e.work, `${FIXTURE_SESSION}.${sha}.read-pages.jsonl.report.json`, 'blocker'), { recursive: true })
  const r = cli(inPlaceArgs(e, 'repair-read-pages'), e.env)
  t.is(r.code, 3, r.stderr)
  const receipt = JSON.parse(r.stdout)
  t.is(receipt.operationState, 'committed-report-failed')
  t.is(receipt.frozenSha256, native.sha256(bytes))
  t.is(receipt.publishedSha256, native.sha256(readFileSync(e.target)))
})
