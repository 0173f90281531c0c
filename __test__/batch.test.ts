// `compress --all` in candidate mode: the selection (subagents never), one candidate and report
// per compressed session at its relative path, skips by reason, failures isolated, the exit
// code, re-runs through the manifest, dry runs, and model summaries with a concurrency limit,
// retries and the fallback.
import test from 'ava'
import { listSessions } from '../src-ts/read/sessions.js'
import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs'
import { join, relative } from 'node:path'
import { compressEstate, type BatchReport } from '../src-ts/compress/batch.js'
import { outcomeOfError } from '../src-ts/compress/batch-modes.js'
import { sourceChanged } from '../src-ts/compress/source-spans.js'
import { renderLine } from '../src-ts/terminal/progress.js'
import { CLI, REAL, REPO, tempDir } from './helpers/transcripts.js'

const cli = (...args: string[]) => spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8' })

/** Each real transcript under its own session id (as Claude Code names the file). */
const ID = {
  big: '198393f2-22db-477b-ac77-1825bea883ae',
  other: '4a07cdcd-b417-4393-84b1-eb50b109af95',
  small: '379ab089-c458-45de-8bb7-fcd1c607b8c7',
  foreign: '44444444-4444-4444-8444-444444444444',
  torn: '1262c0a7-dcf1-4eb8-a08c-1a4060f7369d',
  leaf: '66666666-6666-4666-8666-666666666666',
}

/** A small estate: two compressible sessions, one with nothing to gain, a foreign file, a torn
 * one, one whose leaf only an option decides, and a subagent transcript. */
function estate(): { root: string; projects: string; subagent: string } {
  const root = tempDir('cj-batch-')
  const projects = join(root, 'projects')
  const a = join(projects, '-home-dev-app')
  const b = join(projects, '-home-dev-lib')
  mkdirSync(join(a, ID.big, 'subagents'), { recursive: true })
  mkdirSync(b, { recursive: true })
  writeFileSync(join(a, `${ID.big}.jsonl`), readFileSync(join(REAL, 'real-12.jsonl')))
  writeFileSync(join(b, `${ID.other}.jsonl`), readFileSync(join(REAL, 'real-05.jsonl')))
  // A four-record chain: its summary would outweigh what it replaces.
  writeFileSync(
    join(a, `${ID.small}.jsonl`),
    readFileSync(join(REPO, 'fixtures', 'topology', 'metadata-and-checkpoints.jsonl')),
  )
  writeFileSync(join(b, `${ID.foreign}.jsonl`), readFileSync(join(REAL, 'real-02.jsonl')))
  writeFileSync(join(b, `${ID.torn}.jsonl`), readFileSync(join(REAL, 'real-10.jsonl')).subarray(0, 300_000))
  writeFileSync(
    join(a, `${ID.leaf}.jsonl`),
    readFileSync(join(REPO, 'fixtures', 'topology', 'stale-pointer-branch.jsonl')),
  )
  const subagent = join(a, ID.big, 'subagents', 'agent-a1b2c3.jsonl')
  writeFileSync(subagent, readFileSync(join(REAL, 'real-09.jsonl')))
  return { root, projects, subagent }
}

const sha = (p: string) => createHash('sha256').update(readFileSync(p)).digest('hex')

/** Every file under `dir`, relative, sorted. */
function tree(dir: string): string[] {
  if (!existsSync(dir)) return []
  const out: string[] = []
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name)
      if (e.isDirectory()) walk(p)
      else out.push(relative(dir, p))
    }
  }
  walk(dir)
  return out.sort()
}

function byId(r: BatchReport) {
  return Object.fromEntries(r.sessions.map((s) => [s.session, s]))
}

test('compress --all: a candidate and a report per compressed session, each skip with its reason, subagents untouched', (t) => {
  const { projects, subagent } = estate()
  const before = Object.fromEntries(tree(projects).map((f) => [f, sha(join(projects, f))]))
  const subStat = statSync(subagent)
  const out = join(tempDir('cj-batch-out-'), 'out')
  const r = cli('compress', '--all', '--projects', projects, '--out-dir', out, '--json')
  t.is(r.status, 0, r.stderr)
  t.is(r.stderr, '', 'no progress bar on a pipe')
  const report = JSON.parse(r.stdout) as BatchReport
  const s = byId(report)
  t.is(report.sessions.length, 6, 'the subagent transcript is no session')
  t.is(report.subagentFiles, 1)
  t.is(s[ID.big].status, 'compressed')
  t.is(s[ID.other].status, 'compressed')
  t.like(s[ID.small], { status: 'skipped', reason: 'nothing-to-gain', option: '--min-gain' })
  t.like(s[ID.foreign], { status: 'skipped', reason: 'invalid-source' })
  t.regex(s[ID.foreign].message!, /not a Claude Code transcript/)
  t.like(s[ID.torn], { status: 'skipped', reason: 'invalid-source' })
  t.regex(s[ID.torn].message!, /torn/)
  t.like(s[ID.leaf], { status: 'skipped', reason: 'ambiguous-leaf' })
  t.regex(s[ID.leaf].option!, /^--leaf-policy client/)
  t.deepEqual(report.totals.skippedByReason, { 'nothing-to-gain': 1, 'invalid-source': 2, 'ambiguous-leaf': 1 })
  t.is(report.totals.compressed, 2)
  t.is(report.totals.failed, 0)
  // The out dir reads as an estate: <project>/<session>.jsonl and its report, nothing else.
  t.deepEqual(
    tree(out).filter((f) => !f.startsWith('.claude-jsonl-batch')),
    [
      `-home-dev-app/${ID.big}.jsonl`,
      `-home-dev-app/${ID.big}.jsonl.report.json`,
      `-home-dev-lib/${ID.other}.jsonl`,
      `-home-dev-lib/${ID.other}.jsonl.report.json`,
    ],
  )
  for (const id of [ID.big, ID.other]) {
    const e = s[id]
    t.is(e.output, join(out, e.project, `${id}.jsonl`))
    t.is(e.reportPath, `${e.output}.report.json`)
    const rep = JSON.parse(readFileSync(e.reportPath!, 'utf8'))
    t.is(rep.sourceSha256, sha(e.path))
    t.is(rep.candidateSha256, sha(e.output!))
    t.is(e.bytesAfter, statSync(e.output!).size)
    t.is(e.bytesBefore, statSync(e.path).size)
    t.true(e.tokensAfter! <= 0.9 * e.tokensBefore!)
    t.is(cli('validate', e.output!).status, 0)
  }
  // Nothing in the estate changed; the subagent transcript was not even opened for writing.
  t.deepEqual(Object.fromEntries(tree(projects).map((f) => [f, sha(join(projects, f))])), before)
  t.is(statSync(subagent).mtimeMs, subStat.mtimeMs)
  // The table says the same.
  const table = cli('compress', '--all', '--projects', projects, '--out-dir', join(tempDir('cj-batch-out-'), 'o'))
  t.is(table.status, 0, table.stderr)
  t.regex(table.stdout, /compressed\s+2/)
  t.regex(table.stdout, /skipped: nothing to gain\s+1/)
  t.regex(table.stdout, /skipped: invalid source\s+2/)
  t.regex(table.stdout, /skipped: ambiguous leaf \(decided by --leaf-policy client\)\s+1/)
})

test('a re-run skips unchanged sessions; a changed session or other options run again', async (t) => {
  const { projects } = estate()
  const out = join(tempDir('cj-batch-out-'), 'out')
  const first = await compressEstate({ projects, mode: { kind: 'candidate', outDir: out } })
  t.is(first.totals.compressed, 2)
  const candidate = join(out, '-home-dev-app', `${ID.big}.jsonl`)
  const written = statSync(candidate).mtimeMs
  const again = await compressEstate({ projects, mode: { kind: 'candidate', outDir: out } })
  t.is(again.totals.skippedByReason.unchanged, 6)
  t.is(again.totals.compressed, 0)
  t.like(byId(again)[ID.big], { status: 'skipped', reason: 'unchanged', previous: { status: 'compressed' } })
  t.like(byId(again)[ID.small], { reason: 'unchanged', previous: { status: 'skipped', reason: 'nothing-to-gain' } })
  // The estate's account still counts the earlier candidates.
  t.is(again.totals.compressedBytesAfter, first.totals.compressedBytesAfter)
  t.is(statSync(candidate).mtimeMs, written, 'not rewritten')
  // A session that grew is compressed again over its earlier candidate.
  const grown = join(projects, '-home-dev-lib', `${ID.other}.jsonl`)
  appendFileSync(grown, JSON.stringify({ type: 'custom-title', customTitle: 'later', sessionId: ID.other }) + '\n')
  const third = await compressEstate({ projects, mode: { kind: 'candidate', outDir: out } })
  t.is(byId(third)[ID.other].status, 'compressed')
  t.is(third.totals.skippedByReason.unchanged, 5)
  // A deleted candidate is written again.
  const gone = join(out, '-home-dev-app', `${ID.big}.jsonl`)
  writeFileSync(gone, '')
  const fourth = await compressEstate({ projects, mode: { kind: 'candidate', outDir: out } })
  t.is(byId(fourth)[ID.big].status, 'compressed')
  // Other options decide outcomes differently: every session runs again.
  const other = await compressEstate({
    projects,
    mode: { kind: 'candidate', outDir: out },
    compress: { minGain: 0.95 },
  })
  t.is(other.totals.skippedByReason.unchanged, undefined)
})

test('--dry-run plans every session and writes nothing', async (t) => {
  const { projects } = estate()
  const dir = tempDir('cj-batch-out-')
  const out = join(dir, 'out')
  const r = await compressEstate({ projects, mode: { kind: 'candidate', outDir: out }, dryRun: true })
  t.true(r.dryRun)
  t.is(r.totals.compressed, 2)
  t.true(r.sessions.every((s) => s.output === undefined && s.reportPath === undefined))
  t.true(byId(r)[ID.big].bytesAfter! < byId(r)[ID.big].bytesBefore)
  t.false(existsSync(out))
  t.deepEqual(readdirSync(dir), [])
  // A real run afterwards is not skipped by it.
  const real = await compressEstate({ projects, mode: { kind: 'candidate', outDir: out } })
  t.is(real.totals.compressed, 2)
  t.is(real.totals.compressedBytesAfter, r.totals.compressedBytesAfter, 'the dry run predicted the sizes')
})

test('selection: --min-bytes, --min-estimated-tokens, --project, --older-than/--newer-than, --sessions', async (t) => {
  const { projects, root } = estate()
  const out = () => ({ kind: 'candidate' as const, outDir: join(tempDir('cj-batch-out-'), 'out') })
  const small = await compressEstate({ projects, mode: out(), minBytes: 500_000 })
  const sizes = byId(small)
  for (const s of small.sessions) {
    if (s.bytesBefore < 500_000) t.like(s, { status: 'skipped', reason: 'too-small', option: '--min-bytes' })
    else t.not(s.reason, 'too-small')
  }
  t.is(sizes[ID.big].status, 'compressed')
  const tokens = await compressEstate({ projects, mode: out(), minEstimatedTokens: 80_000 })
  t.like(byId(tokens)[ID.other], { status: 'skipped', reason: 'too-small', option: '--min-estimated-tokens' })
  t.is(byId(tokens)[ID.big].status, 'compressed')
  const project = await compressEstate({ projects, mode: out(), project: '-home-dev-lib' })
  t.deepEqual(project.sessions.map((s) => s.session).sort(), [ID.other, ID.foreign, ID.torn].sort())
  // Last activity is the last record's timestamp, as `sessions` shows it, not the file's
  // modification time: an old mtime changes nothing.
  const old = new Date(Date.now() - 400 * 86_400_000)
  utimesSync(join(projects, '-home-dev-app', `${ID.big}.jsonl`), old, old)
  const listing = await listSessions({ projects, recent: Infinity })
  const last = new Map(listing.sessions.map((x) => [x.sessionId, Date.parse(x.lastActivity)]))
  const times = [...new Set(last.values())].sort((x, y) => x - y)
  // A threshold between two sessions' last activities splits the estate in two.
  const cut = (times[1] + times[2]) / 2
  const now = cut + 7 * 86_400_000
  const want = (f: (ms: number) => boolean) =>
    [...last]
      .filter(([, ms]) => f(ms))
      .map(([id]) => id)
      .sort()
  const older = await compressEstate({ projects, mode: out(), olderThan: '7d', now })
  t.deepEqual(
    older.sessions.map((s) => s.session).sort(),
    want((ms) => ms <= cut),
  )
  const newer = await compressEstate({ projects, mode: out(), newerThan: '7d', now })
  t.deepEqual(
    newer.sessions.map((s) => s.session).sort(),
    want((ms) => ms >= cut),
  )
  t.true(older.sessions.length > 0 && newer.sessions.length > 0)
  const list = join(root, 'ids.txt')
  writeFileSync(list, `# the two I care about\n${ID.big}\n\n${ID.small}\nffffffff-0000-4000-8000-000000000000\n`)
  const r = cli('compress', '--all', '--projects', projects, '--out-dir', out().outDir, '--sessions', list, '--json')
  t.is(r.status, 0, r.stderr)
  const listed = JSON.parse(r.stdout) as BatchReport
  t.deepEqual(listed.sessions.map((s) => s.session).sort(), [ID.big, ID.small].sort())
  t.deepEqual(listed.notFound, ['ffffffff-0000-4000-8000-000000000000'])
  t.is(cli('compress', '--all', '--projects', projects, '--out-dir', out().outDir, '--older-than', 'soon').status, 2)
})

test('positional folders and CLAUDE_CONFIG_DIR choose the estate as for stats', (t) => {
  const { root, projects } = estate()
  const out = join(tempDir('cj-batch-out-'), 'out')
  const env = { ...process.env, CLAUDE_CONFIG_DIR: root }
  const viaEnv = spawnSync(process.execPath, [CLI, 'compress', '--all', '--out-dir', out, '--json', '--dry-run'], {
    encoding: 'utf8',
    env,
  })
  t.is(viaEnv.status, 0, viaEnv.stderr)
  t.is((JSON.parse(viaEnv.stdout) as BatchReport).sessions.length, 6)
  const folder = cli('compress', '--all', join(projects, '-home-dev-app'), '--out-dir', out, '--json', '--dry-run')
  t.is(folder.status, 0, folder.stderr)
  t.deepEqual(
    (JSON.parse(folder.stdout) as BatchReport).sessions.map((s) => s.session).sort(),
    [ID.big, ID.small, ID.leaf].sort(),
  )
})

test('one failing session fails alone: the others are compressed, the exit code says so', (t) => {
  const { projects } = estate()
  const out = join(tempDir('cj-batch-out-'), 'out')
  // A folder where one candidate must go: that publish fails.
  mkdirSync(join(out, '-home-dev-app', `${ID.big}.jsonl`), { recursive: true })
  const r = cli('compress', '--all', '--projects', projects, '--out-dir', out, '--json')
  t.is(r.status, 1, r.stderr)
  const s = byId(JSON.parse(r.stdout) as BatchReport)
  t.like(s[ID.big], { status: 'failed' })
  t.is(s[ID.other].status, 'compressed')
  t.true(existsSync(join(out, '-home-dev-lib', `${ID.other}.jsonl`)))
  // The failure is not remembered: the next run tries it again.
  const again = cli('compress', '--all', '--projects', projects, '--out-dir', out, '--json')
  t.like(byId(JSON.parse(again.stdout) as BatchReport)[ID.big], { status: 'failed' })
})

test('a source written to during the run is skipped as live', (t) => {
  const job = { path: '/x/s.jsonl', sessionId: 's', project: 'p', relPath: 'p/s.jsonl', size: 1, mtimeMs: 0 }
  t.like(outcomeOfError(sourceChanged('/x/s.jsonl'), job), { status: 'skipped', reason: 'live' })
})

test('bad batch options are usage errors: no --out-dir, --out, an out dir inside the estate, --model-summary', (t) => {
  const { projects } = estate()
  const out = join(tempDir('cj-batch-out-'), 'out')
  t.regex(cli('compress', '--all', '--projects', projects).stderr, /needs --out-dir DIR/)
  t.is(cli('compress', '--all', '--projects', projects, '--out', join(out, 'x.jsonl')).status, 2)
  const inside = cli('compress', '--all', '--projects', projects, '--out-dir', join(projects, 'candidates'))
  t.is(inside.status, 2)
  t.regex(inside.stderr, /outside the estate/)
  t.is(cli('compress', '--all', '--projects', projects, '--out-dir', out, '--model-summary', 'x.md').status, 2)
  t.is(cli('compress', '--all', '--projects', projects, '--out-dir', out, '--summary-fallback', 'maybe').status, 2)
  t.is(cli('compress', join(projects, '-home-dev-app', `${ID.big}.jsonl`), '--out', out, '--dry-run').status, 2)
  t.is(cli('compress', '--all', '--projects', join(projects, 'missing'), '--out-dir', out).status, 3)
  const inPlace = cli('compress', '--all', '--projects', projects, '--in-place', '--work-dir', out)
  t.is(inPlace.status, 2)
  t.regex(inPlace.stderr, /--confirm-session-closed/)
  t.is(inPlace.stderr.trim().split('\n').length, 1)
  t.false(existsSync(out))
})

/** A summariser command: the first call fails (a transient error), every later one answers with
 * the mechanical summariser; it records how many calls run at once. */
function flakySummarizer(dir: string): string {
  const script = join(dir, 'flaky.mjs')
  writeFileSync(
    script,
    `import { execFileSync } from 'node:child_process'
import { appendFileSync, existsSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
const dir = ${JSON.stringify(dir)}
const me = join(dir, 'running-' + process.pid)
writeFileSync(me, '')
appendFileSync(join(dir, 'concurrent.log'), readdirSync(dir).filter((f) => f.startsWith('running-')).length + '\\n')
const pack = await new Promise((resolve) => { const b = []; process.stdin.on('data', (d) => b.push(d)); process.stdin.on('end', () => resolve(Buffer.concat(b))) })
await new Promise((r) => setTimeout(r, 150))
rmSync(me)
const first = join(dir, 'failed-once')
if (!existsSync(first)) { writeFileSync(first, ''); process.exit(3) }
process.stdout.write(execFileSync(process.execPath, [${JSON.stringify(join(REPO, 'fixtures', 'mechanical-summarizer.mjs'))}], { input: pack }))
`,
  )
  return `${JSON.stringify(process.execPath)} ${JSON.stringify(script)}`
}

test('model summaries in a batch: at most --summary-jobs at once, retried with backoff, then the chosen fallback', async (t) => {
  const { projects } = estate()
  const dir = tempDir('cj-batch-sum-')
  const cmd = flakySummarizer(dir)
  const out = join(tempDir('cj-batch-out-'), 'out')
  const r = await compressEstate({
    projects,
    mode: { kind: 'candidate', outDir: out },
    compress: { summarizerCmd: cmd },
    jobs: 2,
    summaryJobs: 1,
    summaryPolicy: { retries: 1, retryDelayMs: 10 },
  })
  t.is(r.totals.failed, 0, JSON.stringify(r.sessions.filter((s) => s.status === 'failed')))
  t.is(r.totals.compressed, 2)
  for (const id of [ID.big, ID.other]) {
    const rep = JSON.parse(readFileSync(byId(r)[id].reportPath!, 'utf8'))
    t.is(rep.semanticSummaryMode, 'model-assisted-v11')
  }
  const concurrent = readFileSync(join(dir, 'concurrent.log'), 'utf8').trim().split('\n').map(Number)
  t.true(concurrent.length >= 3, 'one failed call and its retry, plus the other session')
  t.is(Math.max(...concurrent), 1, 'never two model summaries at once')
  // A summariser that always fails: the session fails (left as it is), or with the fallback
  // gets the deterministic summary and says why.
  const failing = `${JSON.stringify(process.execPath)} -e "process.exit(3)"`
  const noFallback = await compressEstate({
    projects,
    mode: { kind: 'candidate', outDir: join(tempDir('cj-batch-out-'), 'out') },
    compress: { summarizerCmd: failing },
    sessions: [ID.big],
    summaryPolicy: { retries: 2, retryDelayMs: 1 },
  })
  t.like(byId(noFallback)[ID.big], { status: 'failed', reason: 'summary-failed' })
  t.regex(byId(noFallback)[ID.big].message!, /failed 3 times/)
  const fallback = await compressEstate({
    projects,
    mode: { kind: 'candidate', outDir: join(tempDir('cj-batch-out-'), 'out') },
    compress: { summarizerCmd: failing },
    sessions: [ID.big],
    summaryPolicy: { retries: 0, fallback: 'deterministic' },
  })
  const e = byId(fallback)[ID.big]
  t.is(e.status, 'compressed')
  t.regex(e.summaryFallback!, /the model summary failed 1 time/)
  t.is(JSON.parse(readFileSync(e.reportPath!, 'utf8')).semanticSummaryMode, 'deterministic')
})

test('the batch progress line counts sessions and shows the time left', (t) => {
  const line = renderLine(
    { bytesDone: 250e6, bytesTotal: 1000e6, filesDone: 150, filesTotal: 600, unit: 'sessions', eta: true },
    10,
    120,
  )
  t.regex(line, /150\/600 sessions/)
  t.regex(line, /ETA 30s/)
  t.notRegex(renderLine({ bytesDone: 1, bytesTotal: 2, filesDone: 1, filesTotal: 2 }, 10, 120), /ETA/)
})

test('a worker that dies takes only its session with it: the pool replaces it and the rest are compressed', (t) => {
  const { projects } = estate()
  const out = join(tempDir('cj-batch-out-'), 'out')
  const r = spawnSync(
    process.execPath,
    [CLI, 'compress', '--all', '--projects', projects, '--out-dir', out, '--json', '--jobs', '1'],
    { encoding: 'utf8', env: { ...process.env, CLAUDE_JSONL_BATCH_FAULT: `exit:${ID.big}` } },
  )
  t.is(r.status, 1, r.stderr)
  const s = byId(JSON.parse(r.stdout) as BatchReport)
  t.like(s[ID.big], { status: 'failed', reason: 'internal' })
  t.regex(s[ID.big].message!, /the worker compressing it stopped \(exit code 70\)/)
  t.false(existsSync(join(out, '-home-dev-app', `${ID.big}.jsonl`)))
  // A worker holds at most two sessions (one computing, one flushing): only those can be lost.
  const report = JSON.parse(r.stdout) as BatchReport
  t.true(report.totals.failed <= 2)
  for (const e of report.sessions.filter((x) => x.status === 'failed'))
    t.regex(e.message!, /worker compressing it stopped/)
  t.true(report.totals.compressed + report.totals.skipped >= 4, 'the replacement worker did the rest')
  t.is(report.totals.sessions, 6)
})

test('compress --all --in-place: each session replaced through the transaction, backups beside, re-runs skip', (t) => {
  const { root, projects, subagent } = estate()
  const work = join(tempDir('cj-batch-work-'), 'work')
  const env = { ...process.env, CLAUDE_CONFIG_DIR: root }
  const big = join(projects, '-home-dev-app', `${ID.big}.jsonl`)
  const original = sha(big)
  const subBefore = sha(subagent)
  const run = (...extra: string[]) =>
    spawnSync(
      process.execPath,
      [CLI, 'compress', '--all', '--in-place', '--work-dir', work, '--confirm-session-closed', '--json', ...extra],
      { encoding: 'utf8', env },
    )
  // Just written: within the stability window, every session is left alone as live.
  const fresh = run()
  t.is(fresh.status, 0, fresh.stderr)
  const f = byId(JSON.parse(fresh.stdout) as BatchReport)
  t.like(f[ID.big], { status: 'skipped', reason: 'live' })
  t.regex(f[ID.big].message!, /stability window/)
  t.is(sha(big), original)
  const r = run('--stable-for', '0')
  t.is(r.status, 0, r.stderr)
  const s = byId(JSON.parse(r.stdout) as BatchReport)
  t.is(s[ID.big].status, 'compressed')
  t.is(s[ID.big].output, big)
  t.is(statSync(big).size, s[ID.big].bytesAfter!)
  t.is(sha(`${big}.backup`), original, 'a verified backup of the original beside it')
  t.is(cli('validate', big).status, 0)
  t.true(existsSync(s[ID.big].reportPath!))
  t.like(s[ID.small], { status: 'skipped', reason: 'nothing-to-gain' })
  t.is(sha(subagent), subBefore)
  const again = run('--stable-for', '0')
  const a = JSON.parse(again.stdout) as BatchReport
  t.is(a.totals.skippedByReason.unchanged, 6, again.stdout.slice(0, 2000))
})
