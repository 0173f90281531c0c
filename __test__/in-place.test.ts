// compress --in-place: the replacement, its backup and report, every refusal (nothing written),
// the live-session registry (live, dead and reused pids), the stability window, and the
// committed-but-report-failed state.
import test from 'ava'
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  statSync,
  symlinkSync,
  writeFileSync,
  utimesSync,
} from 'node:fs'
import { join } from 'node:path'
import native from '../src-ts/native.js'
import { checkSessionClosed, processStartTicks, recordState, sessionHolders } from '../src-ts/read/live-sessions.js'
import { backups, cli, inPlaceArgs, leftovers, liveEstate, type LiveEstate } from './helpers/live-estate.js'
import { tempDir } from './helpers/transcripts.js'

const errors = (b: Buffer) => native.validateBuffer(b).findings.filter((f) => f.severity === 'error')

/** Nothing beside the target but the target itself, still the original. */
function untouched(t: any, e: LiveEstate) {
  t.deepEqual(readdirSync(e.project), [`${e.session}.jsonl`])
  t.true(readFileSync(e.target).equals(e.original))
}

function registry(e: LiveEstate, pid: number, fields: Record<string, unknown>): string {
  const dir = join(e.config, 'sessions')
  mkdirSync(dir, { recursive: true })
  const path = join(dir, `${pid}.json`)
  writeFileSync(path, JSON.stringify({ pid, sessionId: e.session, status: 'busy', kind: 'interactive', ...fields }))
  return path
}

test('the session is replaced by a validated candidate, with a verified backup and a report written after it', (t) => {
  const e = liveEstate()
  const r = cli([...inPlaceArgs(e), '--json'], e.env)
  t.is(r.code, 0, r.stderr)
  const now = readFileSync(e.target)
  t.false(now.equals(e.original))
  t.deepEqual(errors(now), [])
  t.true(now.length < e.original.length)
  const [backup, ...more] = backups(e)
  t.deepEqual(more, [])
  t.true(readFileSync(backup).equals(e.original), 'the backup is the original byte for byte')
  t.deepEqual(leftovers(e), [])
  const report = JSON.parse(r.stdout)
  t.is(report.operation_state, 'committed')
  t.is(report.inPlace.frozenSha256, native.sha256(e.original))
  t.is(report.inPlace.publishedSha256, native.sha256(now))
  t.is(report.inPlace.candidateSha256, report.inPlace.publishedSha256)
  t.is(report.inPlace.backup, backup)
  t.is(report.inPlace.publishMethod, 'exchange')
  t.regex(report.inPlace.parentDirFsync, /^(ok|unsupported|failed)/)
  t.is(report.inPlace.externalReferences, 'not read, changed or deleted')
  // The report and the candidate are in the work folder, never beside the transcript.
  const work = readdirSync(e.work).sort()
  t.is(work.length, 2)
  t.true(readFileSync(join(e.work, work[0])).equals(now))
  t.deepEqual(JSON.parse(readFileSync(join(e.work, work[1]), 'utf8')), report)
})

test('the replacement keeps the original permission bits', (t) => {
  const e = liveEstate()
  chmodSync(e.target, 0o640)
  t.is(cli(inPlaceArgs(e), e.env).code, 0)
  t.is(statSync(e.target).mode & 0o777, 0o640)
})

test('a second run keeps the first backup and takes the next number', (t) => {
  const e = liveEstate()
  t.is(cli(inPlaceArgs(e), e.env).code, 0)
  const first = readFileSync(e.target)
  const r = cli([...inPlaceArgs(e), '--target-ratio', '0.5', '--min-recent-records', '2'], e.env)
  const b = backups(e)
  t.true(readFileSync(b[0]).equals(e.original))
  if (r.code === 0) {
    t.is(b.length, 2)
    t.true(readFileSync(b[1]).equals(first))
  } else {
    t.is(r.code, 1, r.stderr) // nothing left to summarise: refused, nothing written
    t.is(b.length, 1)
    t.true(readFileSync(e.target).equals(first))
  }
})

test('refusals name the file and the flag, and write nothing', (t) => {
  const e = liveEstate()
  const base = ['compress', e.target, '--in-place', '--work-dir', e.work, '--stable-for', '0']
  const cases: [string[], number, RegExp][] = [
    [base, 2, /close Claude Code for this session, then pass --confirm-session-closed/],
    [['compress', e.target, '--in-place', '--confirm-session-closed'], 2, /--work-dir DIR/],
    [[...base, '--confirm-session-closed', '--out', join(e.work, 'x.jsonl')], 2, /not both/],
    [['compress', e.target, '--work-dir', e.work, '--out', join(e.work, 'x.jsonl')], 2, /go with --in-place/],
    [
      ['compress', e.target, '--in-place', '--confirm-session-closed', '--work-dir', join(e.config, 'work')],
      2,
      /lies inside a \.claude tree/,
    ],
    [[...base, '--confirm-session-closed', '--stable-for', 'soon'], 2, /--stable-for takes seconds/],
  ]
  for (const [args, code, message] of cases) {
    const r = cli(args, e.env)
    t.is(r.code, code, `${args.join(' ')}: ${r.stderr}`)
    t.regex(r.stderr, message)
    t.notRegex(r.stderr, /\n.+\n/, 'one line')
    untouched(t, e)
  }
  t.false(existsSync(join(e.config, 'work')))
})

test('a file outside a Claude projects folder, or a symlink, is refused', (t) => {
  const e = liveEstate()
  const outside = join(tempDir('cj-outside-'), `${e.session}.jsonl`)
  writeFileSync(outside, e.original)
  const r = cli(['compress', outside, '--in-place', '--work-dir', e.work, '--confirm-session-closed'], e.env)
  t.is(r.code, 2)
  t.regex(r.stderr, /not under a Claude projects folder.*--out/)
  t.true(readFileSync(outside).equals(e.original))

  const link = join(e.project, 'linked.jsonl')
  symlinkSync(e.target, link)
  const l = cli(['compress', link, '--in-place', '--work-dir', e.work, '--confirm-session-closed'], e.env)
  t.is(l.code, 2)
  t.regex(l.stderr, /is a symbolic link/)
  t.true(readFileSync(e.target).equals(e.original))
  t.deepEqual(readdirSync(e.project).sort(), [`${e.session}.jsonl`, 'linked.jsonl'])
})

test('a file written within the stability window is refused until --stable-for allows it', (t) => {
  const e = liveEstate()
  const now = new Date()
  utimesSync(e.target, now, now)
  const args = ['compress', e.target, '--in-place', '--work-dir', e.work, '--confirm-session-closed']
  const r = cli(args, e.env)
  t.is(r.code, 1)
  t.regex(r.stderr, /within the 10 s stability window.*--stable-for SECONDS/)
  untouched(t, e)
  t.is(cli([...args, '--stable-for', '0'], e.env).code, 0)
})

test('a window of 0 is no window: a file written within this millisecond (mtime ahead of Date.now()) passes', (t) => {
  const e = liveEstate()
  // Sub-millisecond mtime digits put a file written just now slightly ahead of Date.now();
  // 50 ms ahead stands for that here, so the check cannot catch up with it.
  const ahead = (Date.now() + 50) / 1000
  utimesSync(e.target, ahead, ahead)
  t.deepEqual(checkSessionClosed(e.target, { stableForMs: 0, env: e.env }), [])
  t.throws(() => checkSessionClosed(e.target, { stableForMs: 10_000, env: e.env }), { message: /stability window/ })
})

test('a live registry record refuses the session naming the pid, even with --confirm-session-closed', (t) => {
  const e = liveEstate()
  // This test's own process is alive, with a real start time.
  const start = processStartTicks(process.pid)
  t.truthy(start)
  const path = registry(e, process.pid, { procStart: start })
  const r = cli(inPlaceArgs(e), e.env)
  t.is(r.code, 1)
  t.regex(r.stderr, new RegExp(`Claude Code is running this session \\(pid ${process.pid}, busy`))
  t.regex(r.stderr, /--confirm-session-closed does not override a live process/)
  untouched(t, e)
  t.is(sessionHolders(e.session, e.env).live[0].registry, path)
})

test('stale registry records (a dead pid, a reused pid) are ignored and reported', (t) => {
  const e = liveEstate()
  const dead = 2 ** 22 - 7 // above the default pid_max: no such process
  registry(e, dead, { procStart: '12345' })
  registry(e, process.pid, { procStart: '1' }) // our pid, another start time: reused
  const h = sessionHolders(e.session, e.env)
  t.deepEqual(h.live, [])
  t.deepEqual(
    h.stale.map((s) => [s.pid, s.reason]).sort(),
    [
      [process.pid, 'pid-reused'],
      [dead, 'no-such-process'],
    ].sort(),
  )
  const r = cli([...inPlaceArgs(e), '--json'], e.env)
  t.is(r.code, 0, r.stderr)
  const reasons = JSON.parse(r.stdout)
    .inPlace.staleRegistryRecordsIgnored.map((s: any) => s.reason)
    .sort()
  t.deepEqual(reasons, ['no-such-process', 'pid-reused'])
})

test('a record without procStart, from another machine or another pid namespace counts as live (unverified)', (t) => {
  t.like(recordState({ registry: 'x', pid: process.pid }), { live: true, verified: false })
  const machine = readFileSync('/etc/machine-id', 'utf8').trim()
  const start = processStartTicks(process.pid)
  t.like(recordState({ registry: 'x', pid: 1, procStart: '1', pidDomain: 'linux:another-machine:pid:[1]' }), {
    live: true,
    verified: false,
    why: 'registered on another machine',
  })
  t.like(recordState({ registry: 'x', pid: process.pid, procStart: start, pidDomain: `linux:${machine}:pid:[1]` }), {
    live: true,
    verified: false,
    why: 'registered in another pid namespace',
  })
  const ns = readlinkSync('/proc/self/ns/pid')
  t.like(recordState({ registry: 'x', pid: process.pid, procStart: start, pidDomain: `linux:${machine}:${ns}` }), {
    live: true,
    verified: true,
  })
})

test('committed but the report failed: exit 3, operation_state committed-report-failed and a receipt', (t) => {
  const e = liveEstate()
  mkdirSync(e.work, { recursive: true })
  const sha = native.sha256(e.original).slice(0, 16)
  // A folder where the report file must go: its publication fails after the commit.
  mkdirSync(join(e.work, `${e.session}.${sha}.compressed.jsonl.report.json`, 'blocker'), { recursive: true })
  const r = cli(inPlaceArgs(e), e.env)
  t.is(r.code, 3, r.stderr)
  t.regex(r.stderr, /replaced and verified, but the report could not be written/)
  const receipt = JSON.parse(r.stdout)
  t.is(receipt.operation_state, 'committed-report-failed')
  const now = readFileSync(e.target)
  t.is(receipt.frozenSha256, native.sha256(e.original))
  t.is(receipt.publishedSha256, native.sha256(now))
  t.is(receipt.candidateSha256, receipt.publishedSha256)
  t.deepEqual(errors(now), [])
  t.true(readFileSync(backups(e)[0]).equals(e.original), 'committed: not rolled back, backup kept')
  t.deepEqual(leftovers(e), [])
})

test('teleport-id warns when a live Claude Code holds the transcript', async (t) => {
  const { teleportUuid } = await import('../src-ts/read/teleport.js')
  const id = 'session_01Abcdefghijklmnopqrstuv'
  const e = liveEstate(undefined, teleportUuid(id))
  const quiet = cli(['teleport-id', id], e.env)
  t.is(quiet.code, 0, quiet.stderr)
  t.notRegex(quiet.stdout, /warning/)
  registry(e, process.pid, { procStart: processStartTicks(process.pid) })
  const r = cli(['teleport-id', id], e.env)
  t.is(r.code, 0)
  t.regex(r.stdout, new RegExp(`warning: Claude Code is running this session now \\(pid ${process.pid}`))
  t.regex(r.stdout, /two writers/)
})

test('the transaction API: a published file that fails verification is swapped back; a verified backup stays', async (t) => {
  const { replaceInPlace } = await import('../src-ts/compress/transaction.js')
  const e = liveEstate()
  const candidate = Buffer.from(e.original.toString('utf8').split('\n').slice(0, 5).join('\n') + '\n')
  let calls = 0
  const r = await replaceInPlace({
    target: e.target,
    workDir: e.work,
    env: e.env,
    produce: async () => ({ bytes: candidate }),
    verify: () => {
      // candidate, stage, then the published file: the last one fails
      if (++calls === 3) throw new Error('published file rejected by the test')
    },
  })
  t.is(r.operationState, 'not-committed')
  t.regex(r.error!.message, /published file rejected by the test; the original was put back/)
  t.true(readFileSync(e.target).equals(e.original))
  t.true(readFileSync(r.backup!).equals(e.original))
  t.deepEqual(leftovers(e), [])
})

test('the transaction API: a producer that refuses leaves nothing behind; the result carries its error', async (t) => {
  const { replaceInPlace } = await import('../src-ts/compress/transaction.js')
  const { ClaudeJsonlError } = await import('../src-ts/errors.js')
  const e = liveEstate()
  const r = await replaceInPlace({
    target: e.target,
    workDir: e.work,
    env: e.env,
    produce: async () => {
      throw new ClaudeJsonlError('refused by the producer', 1)
    },
    verify: () => {},
  })
  t.is(r.operationState, 'not-committed')
  t.is(r.error!.exitCode, 1)
  untouched(t, e)
})

test('external references are never opened, changed or deleted: tool-results, subagents, settings, other sessions', (t) => {
  const e = liveEstate()
  const side: Record<string, string> = {
    [join(e.project, e.session, 'tool-results', 'toolu_1.txt')]: 'a large tool result stored beside the session',
    [join(e.project, e.session, 'subagents', 'agent-1.jsonl')]: '{"type":"user","isSidechain":true}\n',
    [join(e.project, e.session, 'subagents', 'agent-1.meta.json')]: '{"agentType":"x"}',
    [join(e.project, '11111111-2222-4333-8444-555555555555.jsonl')]: '{"type":"user","note":"another session"}\n',
    [join(e.config, 'settings.json')]: '{"cleanupPeriodDays":30}',
    [join(e.config, 'file-history', e.session, 'f@v1')]: 'old file',
  }
  for (const [path, text] of Object.entries(side)) {
    mkdirSync(join(path, '..'), { recursive: true })
    writeFileSync(path, text)
  }
  const stamps = Object.keys(side).map((p) => statSync(p).mtimeMs)
  t.is(cli(inPlaceArgs(e), e.env).code, 0)
  Object.entries(side).forEach(([path, text], k) => {
    t.is(readFileSync(path, 'utf8'), text, path)
    t.is(statSync(path).mtimeMs, stamps[k], `${path} not rewritten`)
  })
  t.deepEqual(
    readdirSync(e.project).sort(),
    [e.session, `${e.session}.jsonl`, `${e.session}.jsonl.backup`, '11111111-2222-4333-8444-555555555555.jsonl'].sort(),
  )
})

test("the registry of the transcript's own config folder counts even when $CLAUDE_CONFIG_DIR names another", (t) => {
  const e = liveEstate()
  registry(e, process.pid, { procStart: processStartTicks(process.pid) })
  const elsewhere = { ...e.env, CLAUDE_CONFIG_DIR: join(e.root, 'other-config') }
  const r = cli(inPlaceArgs(e), elsewhere)
  t.is(r.code, 1, r.stderr)
  t.regex(r.stderr, new RegExp(`pid ${process.pid}`))
  untouched(t, e)
})
