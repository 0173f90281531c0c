// repair: each kind of damage made at test time in a copy of a real transcript is mended back to
// the undamaged bytes and the result validates; --out, --in-place (the compress transaction:
// numbered backup, report in the work dir), --dry-run and --json; refusals write nothing; doctor
// names each repair; repair --all goes through the compress batch (accounting, manifest).
import test from 'ava'
import { existsSync, mkdirSync, readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import native from '../src-ts/native.js'
import { repairTranscript } from '../src-ts/compress/repair.js'
import { doctor } from '../src-ts/read/doctor.js'
import { backups, cli, inPlaceArgs, leftovers, liveEstate } from './helpers/live-estate.js'
import {
  callRecordLost,
  callResultLines,
  danglingParent,
  join as joinLines,
  linesOf,
  loneSurrogate,
  nulPadding,
  recordsOnOneLine,
  relinkableLines,
  resultOffItsCall,
  textLines,
  tornBeforeRecord,
  tornTail,
  type Damaged,
} from './helpers/damage.js'
import { REAL, tempDir } from './helpers/transcripts.js'

const SOURCE = join(REAL, 'real-05.jsonl')
const have = existsSync(SOURCE)
const real = () => readFileSync(SOURCE)

const errors = (bytes: Buffer) => native.validateBuffer(bytes).findings.filter((f) => f.severity === 'error')

function kinds(): Record<string, () => Damaged> {
  const b = real()
  const { lines } = linesOf(b)
  const summaryLike = Buffer.from(`{"type":"summary","summary":"Fix the build","leafUuid":"${'a'.repeat(8)}"}`)
  return {
    'records-on-one-line': () => recordsOnOneLine(b, 40),
    // A record and a summary record on one line, as real transcripts carry them.
    'records-on-one-line (summary)': () => {
      const l = linesOf(b)
      const withSummary = Buffer.concat([
        b,
        b[b.length - 1] === 0x0a ? Buffer.alloc(0) : Buffer.from('\n'),
        summaryLike,
        Buffer.from('\n'),
      ])
      return recordsOnOneLine(withSummary, l.lines.length - 1)
    },
    'torn-line (tail)': () => tornTail(b, lines[60], 200),
    'torn-line (before a record)': () => tornBeforeRecord(b, 70, 150),
    'non-json-bytes (own line)': () => nulPadding(b, 80, 4096, true),
    'non-json-bytes (before a record)': () => nulPadding(b, 90, 512, false),
    'lone-surrogates': () => loneSurrogate(b, textLines(b, 'assistant')[3]),
    'dangling-parent': () => danglingParent(b, relinkableLines(b)[10]),
    'orphan-tool-result': () => resultOffItsCall(b, callResultLines(b)[5]),
  }
}

for (const name of have ? Object.keys(kinds()) : ['(real transcripts missing)']) {
  test(`${name}: repair gives back the undamaged bytes, and validate passes`, (t) => {
    if (!have) return t.fail(`${SOURCE} is missing`)
    const { damaged, expected } = kinds()[name]()
    t.notDeepEqual(damaged, expected)
    const r = native.repairTranscript(damaged)
    t.is(r.refusal, undefined, r.refusal?.message)
    t.true(r.output!.equals(expected), 'the repaired bytes are the undamaged file')
    t.deepEqual(errors(r.output!), [])
    t.is(r.mends[0].kind, name.split(' ')[0])
    // Mended once, nothing is left to mend.
    t.is(native.repairTranscript(r.output!).mends.length, 0)
  })
}

function inFile(bytes: Buffer, name = 'd5a1c7e2-0000-4000-8000-000000000001.jsonl') {
  const dir = tempDir('cj-repair-')
  const input = join(dir, name)
  writeFileSync(input, bytes)
  return { dir, input, out: join(dir, 'repaired.jsonl') }
}

test('--out writes the repaired copy and its report; the input is untouched', (t) => {
  if (!have) return t.fail(`${SOURCE} is missing`)
  const { damaged, expected } = tornTail(real(), linesOf(real()).lines[10], 300)
  const { input, out } = inFile(damaged)
  const r = cli(['repair', input, '--out', out], process.env)
  t.is(r.code, 0, r.stderr)
  t.true(readFileSync(out).equals(expected))
  t.true(readFileSync(input).equals(damaged))
  t.regex(r.stdout, /1 edit\(s\) \(torn-line 1\)/)
  t.regex(r.stdout, /line \d+ torn-line: the last line is a record cut short \(300 bytes\): cut \["/)
  const report = JSON.parse(readFileSync(`${out}.report.json`, 'utf8'))
  t.is(report.operationState, 'committed')
  t.true(Buffer.from(report.edits[0].removedBase64, 'base64').equals(linesOf(real()).lines[10].subarray(0, 300)))
  t.is(report.validation.errors, 0)
})

test('--dry-run --json says what would change, line by line, and writes nothing', (t) => {
  if (!have) return t.fail(`${SOURCE} is missing`)
  const a = recordsOnOneLine(real(), 40)
  const b = nulPadding(a.damaged, 100, 64, true)
  const { dir, input } = inFile(b.damaged)
  const before = readdirSync(dir)
  const r = cli(['repair', input, '--dry-run', '--json'], process.env)
  t.is(r.code, 0, r.stderr)
  const rep = JSON.parse(r.stdout)
  t.is(rep.operationState, 'dry-run')
  t.deepEqual(
    rep.edits.map((e: any) => [e.kind, e.line]),
    [
      ['records-on-one-line', 41],
      ['non-json-bytes', 101],
    ],
  )
  t.deepEqual(readdirSync(dir), before)
  const text = cli(['repair', input, '--dry-run'], process.env)
  t.regex(text.stdout, /^repair \(dry run: nothing written\): .* would make 2 edit\(s\)/)
  t.regex(text.stdout, /\n {2}line 41 records-on-one-line: 2 records on one line/)
})

test('--in-place replaces the session through the transaction: verified backup, report in the work dir', (t) => {
  const e = liveEstate()
  const { damaged, expected } = recordsOnOneLine(e.original, 20)
  writeFileSync(e.target, damaged)
  const past = new Date(Date.now() - 60_000)
  utimesSync(e.target, past, past)
  const r = cli([...inPlaceArgs(e, 'repair'), '--json'], e.env)
  t.is(r.code, 0, r.stderr)
  const rep = JSON.parse(r.stdout)
  t.is(rep.operationState, 'committed')
  // real-01's first record is a slice's root whose parent was never written: made a root too.
  t.deepEqual(Object.keys(rep.counts).sort(), ['dangling-parent', 'records-on-one-line'])
  const now = readFileSync(e.target)
  // The split gives back the undamaged bytes; the root's relink is the one the undamaged file gets.
  t.true(now.equals(native.repairTranscript(expected).output!))
  t.deepEqual(errors(now), [])
  const [backup] = backups(e)
  t.true(readFileSync(backup).equals(damaged))
  t.deepEqual(leftovers(e), [])
  t.is(rep.inPlace.backup, backup)
  t.true(readdirSync(e.work).some((f) => f.endsWith('.repaired.jsonl.report.json')))
  // A second run finds nothing to repair and writes nothing.
  const again = cli(inPlaceArgs(e, 'repair'), e.env)
  t.is(again.code, 0, again.stderr)
  t.regex(again.stdout, /nothing to repair; nothing written/)
  t.is(backups(e).length, 1)
})

test('refusals: not a transcript (3), damage it cannot mend safely (1), a recently written session (1); nothing written', (t) => {
  const foreign = inFile(Buffer.from('{"a":1}{"b":2}\n'))
  let r = cli(['repair', foreign.input, '--out', foreign.out], process.env)
  t.is(r.code, 3)
  t.regex(r.stderr, /^claude-jsonl: .*not a Claude Code transcript.*nothing written\n$/)
  t.false(existsSync(foreign.out))

  const user = '{"type":"user","uuid":"u1","parentUuid":null,"message":{"role":"user","content":"hi"}}'
  const odd = inFile(Buffer.from(`${user}\n[1,2]\n{"type":"user","uu\n`))
  r = cli(['repair', odd.input, '--out', odd.out], process.env)
  t.is(r.code, 1)
  t.regex(r.stderr, /cannot be repaired safely: line 2: valid JSON that is not an object/)
  t.is(r.stderr.split('\n').length, 2)
  t.false(existsSync(odd.out))

  const e = liveEstate()
  const { damaged } = recordsOnOneLine(e.original, 20)
  writeFileSync(e.target, damaged)
  r = cli([...inPlaceArgs(e, 'repair').slice(0, -2), '--stable-for', '3600'], e.env)
  t.is(r.code, 1)
  t.regex(r.stderr, /within the 3600 s stability window/)
  t.true(readFileSync(e.target).equals(damaged))
  t.deepEqual(backups(e), [])
})

test('the API: repairTranscript in candidate mode, and a clean file needs nothing', async (t) => {
  if (!have) return t.fail(`${SOURCE} is missing`)
  const { input } = inFile(real())
  const r = await repairTranscript(input, { dryRun: true })
  t.is(r.report.operationState, 'nothing-to-repair')
  t.deepEqual(r.report.edits, [])
})

test('a torn line that held a call with its result: written and verified, the result whose call was lost left', async (t) => {
  if (!have) return t.fail(`${SOURCE} is missing`)
  const { lines, terminated } = linesOf(real())
  const k = callResultLines(real())[5]
  const torn = Buffer.concat([lines[k - 1].subarray(0, 200), lines[k]])
  const { input, out } = inFile(joinLines([...lines.slice(0, k - 1), torn, ...lines.slice(k + 1)], terminated))
  const r = await repairTranscript(input, { out })
  t.is(r.report.operationState, 'committed')
  t.deepEqual(
    r.report.left.map((l) => l.kind),
    ['orphan-tool-result'],
  )
  // The orphan the torn line hid is reported as left, not taken for an error the repair made.
  t.deepEqual(r.report.validation.codes, ['orphan-tool-result'])
  t.true(existsSync(out))
})

test('doctor names each repair and says it is repairable with claude-jsonl repair', async (t) => {
  if (!have) return t.fail(`${SOURCE} is missing`)
  const a = recordsOnOneLine(real(), 40)
  const b = loneSurrogate(a.damaged, textLines(a.damaged, 'assistant')[3])
  const root = tempDir('cj-repair-doctor-')
  mkdirSync(join(root, 'p'))
  writeFileSync(join(root, 'p', 'd5a1c7e2-0000-4000-8000-000000000002.jsonl'), b.damaged)
  const r = await doctor({ paths: [root] })
  const f = r.files[0].findings
  const one = f.find((x) => x.code === 'records-on-one-line')!
  t.is(one.severity, 'flag')
  t.regex(one.message, /1 edit \(line 41\): repairable with `claude-jsonl repair`/)
  t.is(f.find((x) => x.code === 'lone-surrogates')?.severity, 'info')
})

test('doctor: a result whose call is off the chain is repairable; one whose call was lost is not', async (t) => {
  if (!have) return t.fail(`${SOURCE} is missing`)
  const k = callResultLines(real())[5]
  const root = tempDir('cj-repair-doctor-tools-')
  mkdirSync(join(root, 'p'))
  writeFileSync(join(root, 'p', 'd5a1c7e2-0000-4000-8000-000000000003.jsonl'), resultOffItsCall(real(), k).damaged)
  writeFileSync(join(root, 'p', 'd5a1c7e2-0000-4000-8000-000000000004.jsonl'), callRecordLost(real(), k))
  const r = await doctor({ paths: [root] })
  const of = (n: string) => r.files.find((x) => x.path.endsWith(`${n}.jsonl`))!.findings
  const off = of('03').find((x) => x.code === 'orphan-tool-result')!
  t.is(off.severity, 'flag')
  t.regex(off.message, new RegExp(`1 edit \\(line ${k + 1}\\): repairable with \`claude-jsonl repair\``))
  const lost = of('04').filter((x) => x.code === 'orphan-tool-result')
  t.deepEqual(
    lost.map((x) => x.severity),
    ['info'],
  )
  t.notRegex(lost[0].message, /repairable/)
  t.regex(lost[0].message, /in no record of the file/)
})

test('repair --all goes through the compress batch: repaired, nothing to repair, unchanged on a re-run', (t) => {
  const e = liveEstate()
  const { damaged } = nulPadding(e.original, 5, 100, true)
  writeFileSync(e.target, damaged)
  const clean = join(e.project, 'd5a1c7e2-0000-4000-8000-000000000003.jsonl')
  writeFileSync(clean, native.repairTranscript(damaged).output!)
  const past = new Date(Date.now() - 60_000)
  utimesSync(e.target, past, past)
  utimesSync(clean, past, past)
  const args = ['repair', '--all', '--in-place', '--work-dir', e.work, '--confirm-session-closed', '--stable-for', '0']
  const r = cli([...args, '--json'], e.env)
  t.is(r.code, 0, r.stderr)
  const rep = JSON.parse(r.stdout)
  t.is(rep.totals.repaired, 1)
  t.deepEqual(rep.totals.skippedByReason, { 'nothing-to-repair': 1 })
  const entry = rep.sessions.find((s: any) => s.path === e.target)
  t.deepEqual(entry.repairs, { 'non-json-bytes': 1, 'dangling-parent': 1 })
  t.is(backups(e).length, 1)
  t.deepEqual(errors(readFileSync(e.target)), [])
  const again = cli(args, e.env)
  t.is(again.code, 0, again.stderr)
  t.regex(again.stdout, /repaired 0, skipped 2 \(2 unchanged\)/)
})
