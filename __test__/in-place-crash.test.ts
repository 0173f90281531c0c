// Crashes and races around compress --in-place. A child run stops itself after a transaction
// step (CLAUDE_JSONL_FAULT_STOP) and is killed with SIGKILL there, or let go on after the test
// changed something. After every kill the transcript is the complete original or the complete
// validated candidate, a verified backup exists whenever the original was replaced, and a re-run
// recovers (no stale stage or lock left, every backup kept). `npm test` kills at a sample of the
// steps; `npm run test:full` (CLAUDE_JSONL_TEST_FULL=1) at every one.
import test from 'ava'
import { spawnSync } from 'node:child_process'
import {
  appendFileSync,
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  utimesSync,
  writeFileSync,
} from 'node:fs'
import { join } from 'node:path'
import native from '../src-ts/native.js'
import { TRANSACTION_STEPS, type TransactionStep } from '../src-ts/compress/transaction.js'
import {
  backups,
  cli,
  inPlaceArgs,
  leftovers,
  liveEstate,
  sessionOf,
  spawnCli,
  type LiveEstate,
} from './helpers/live-estate.js'
import { REAL } from './helpers/transcripts.js'

const FULL = process.env.CLAUDE_JSONL_TEST_FULL === '1'
const SAMPLED = ['backed-up', 'staged', 'captured', 'published']
const ON_EXCHANGE = TRANSACTION_STEPS.filter((s) => s !== 'moved-aside')
const STEPS = FULL ? ON_EXCHANGE : ON_EXCHANGE.filter((s) => SAMPLED.includes(s))

const valid = (b: Buffer) => native.validateBuffer(b).findings.every((f) => f.severity !== 'error')

/** The work folder's candidate, when one was written. */
function candidateIn(e: LiveEstate): Buffer | undefined {
  let names: string[] = []
  try {
    names = readdirSync(e.work).filter((f) => f.endsWith('.compressed.jsonl'))
  } catch {
    return undefined
  }
  return names.length ? readFileSync(join(e.work, names[0])) : undefined
}

/** The crash invariant: the original, or the validated candidate with a verified backup. */
function holdsOriginalOrCandidate(t: any, e: LiveEstate, label: string): 'original' | 'candidate' {
  const now = readFileSync(e.target)
  if (now.equals(e.original)) return 'original'
  const candidate = candidateIn(e)
  t.truthy(candidate, `${label}: the target changed but no candidate was built`)
  t.true(candidate!.equals(now), `${label}: the target is neither the original nor the candidate`)
  t.true(valid(now), `${label}: the published candidate is valid`)
  t.true(
    backups(e).some((b) => readFileSync(b).equals(e.original)),
    `${label}: the original was replaced without a verified backup`,
  )
  return 'candidate'
}

for (const step of STEPS) {
  test.serial(
    `SIGKILL after step "${step}": original or candidate, backup when replaced, a re-run recovers`,
    async (t) => {
      const e = liveEstate()
      const run = spawnCli(inPlaceArgs(e), e.env, step)
      await run.stopped
      run.child.kill('SIGKILL')
      const end = await run.exited
      t.is(end.signal, 'SIGKILL')
      const state = holdsOriginalOrCandidate(t, e, step)
      // The swap is the one moment the transcript changes.
      const swapped = TRANSACTION_STEPS.indexOf(step) >= TRANSACTION_STEPS.indexOf('published')
      t.is(state, swapped ? 'candidate' : 'original')
      const before = backups(e).map((b) => readFileSync(b))
      // A re-run clears what the killed run left (its lock, its stage) and proceeds.
      const again = cli(inPlaceArgs(e), e.env)
      t.true(again.code === 0 || (state === 'candidate' && again.code === 1), `re-run: ${again.code} ${again.stderr}`)
      t.deepEqual(leftovers(e), [], 'no stage or lock left after the re-run')
      const after = backups(e)
      before.forEach((b, k) => t.true(readFileSync(after[k]).equals(b), 'every earlier backup is kept as it was'))
      t.true(valid(readFileSync(e.target)))
      if (again.code === 0) t.true(after.some((b) => readFileSync(b).equals(e.original)))
    },
  )
}

const theirs = Buffer.from('{"type":"user","note":"written by another process"}\n')

/** Another writer puts a new file at the transcript's name (as an editor's save would). */
function replaceByAnotherProcess(e: LiveEstate): void {
  writeFileSync(join(e.project, 'other.tmp'), theirs)
  renameSync(join(e.project, 'other.tmp'), e.target)
}

/** Runs an in-place compression, stops it after `step`, lets `meddle` change the transcript,
 * lets it go on; resolves with its exit code and stderr. */
async function meddleAfter(e: LiveEstate, step: string, meddle: () => void, env = e.env) {
  const run = spawnCli(inPlaceArgs(e), env, step)
  await run.stopped
  meddle()
  run.child.kill('SIGCONT')
  return { code: (await run.exited).code, stderr: run.stderr() }
}

test.serial('the source modified while the candidate is built: refused, the appended bytes kept', async (t) => {
  const e = liveEstate()
  const extra = Buffer.from('{"type":"last-prompt","leafUuid":null}\n')
  const r = await meddleAfter(e, 'candidate', () => appendFileSync(e.target, extra))
  t.is(r.code, 3, r.stderr)
  t.regex(r.stderr, /the transcript changed during the run.*nothing replaced/)
  t.true(readFileSync(e.target).equals(Buffer.concat([e.original, extra])))
  t.deepEqual(backups(e), [])
  t.deepEqual(leftovers(e), [])
})

test.serial('the source appended to after the backup: caught at capture, nothing replaced, backup kept', async (t) => {
  const e = liveEstate()
  const r = await meddleAfter(e, 'staged', () => appendFileSync(e.target, '\n'))
  t.is(r.code, 3, r.stderr)
  t.regex(r.stderr, /changed before publishing/)
  t.true(readFileSync(e.target).equals(Buffer.concat([e.original, Buffer.from('\n')])))
  t.true(readFileSync(backups(e)[0]).equals(e.original), 'the verified backup is not cleaned up')
  t.deepEqual(leftovers(e), [])
})

test.serial('a target replaced by another process after capture is never overwritten', async (t) => {
  const e = liveEstate()
  const r = await meddleAfter(e, 'captured', () => replaceByAnotherProcess(e))
  t.is(r.code, 3, r.stderr)
  t.regex(r.stderr, /another process replaced the transcript during the run; left it in place, not published/)
  t.true(readFileSync(e.target).equals(theirs), 'their file is still there')
  const b = backups(e)
  t.is(b.length, 2, 'the verified backup plus the captured original as a further numbered backup')
  for (const path of b) t.true(readFileSync(path).equals(e.original))
  t.deepEqual(leftovers(e), [])
})

test.serial('two in-place runs on one session: the second is refused while the first holds it', async (t) => {
  const e = liveEstate()
  const first = spawnCli(inPlaceArgs(e), e.env, 'staged')
  await first.stopped
  const second = cli(inPlaceArgs(e), e.env)
  t.is(second.code, 1)
  t.regex(second.stderr, /another in-place run \(pid \d+\) is replacing this transcript/)
  first.child.kill('SIGCONT')
  t.is((await first.exited).code, 0, first.stderr())
  t.is(backups(e).length, 1)
  t.true(valid(readFileSync(e.target)))
  t.deepEqual(leftovers(e), [])
})

test.serial('an injected ENOSPC on the backup or the stage leaves the original, and no partial file', (t) => {
  for (const [where, backupsLeft] of [
    ['backup', 0],
    ['stage', 1],
  ] as const) {
    const e = liveEstate()
    const r = cli(inPlaceArgs(e), { ...e.env, CLAUDE_JSONL_FAULT_ERRNO: `${where}:ENOSPC` })
    t.is(r.code, 3, r.stderr)
    t.regex(r.stderr, /ENOSPC.*nothing replaced/)
    t.true(readFileSync(e.target).equals(e.original))
    t.is(backups(e).length, backupsLeft, where)
    for (const b of backups(e)) t.true(readFileSync(b).equals(e.original))
    t.deepEqual(leftovers(e), [])
  }
})

/** Runs `fn` with a small tmpfs mounted at `dir` when this process may mount (root in a
 * container); resolves false otherwise. */
function withTmpfs(dir: string, size: string, fn: () => void): boolean {
  mkdirSync(dir, { recursive: true })
  const m = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { encoding: 'utf8' })
  if (m.status !== 0) return false
  try {
    fn()
  } finally {
    spawnSync('umount', ['-l', dir])
  }
  return true
}

test.serial('a full disk (a small tmpfs holding the project folder) leaves the original untouched', (t) => {
  const e = liveEstate()
  const small = join(e.root, 'small')
  const ran = withTmpfs(small, '256k', () => {
    const project = join(small, 'projects', '-tmp-project')
    mkdirSync(project, { recursive: true })
    const target = join(project, `${e.session}.jsonl`)
    writeFileSync(target, e.original) // ~100 KB of 256 KB: no room for backup and stage
    // Fill the rest, leaving a few KB.
    const fill = Buffer.alloc(4096)
    try {
      for (;;) appendFileSync(join(small, 'fill'), fill)
    } catch {
      // full
    }
    const r = cli(
      ['compress', target, '--in-place', '--work-dir', e.work, '--confirm-session-closed', '--stable-for', '0'],
      { ...e.env, CLAUDE_CONFIG_DIR: small },
    )
    t.is(r.code, 3, r.stderr)
    t.regex(r.stderr, /ENOSPC|cannot write beside the transcript/)
    t.true(readFileSync(target).equals(e.original))
    t.deepEqual(
      readdirSync(project).filter((f) => f !== `${e.session}.jsonl`),
      [],
      'no partial backup, stage or lock',
    )
  })
  if (!ran) t.log('mount not permitted here: the injected ENOSPC test covers this path')
  t.pass()
})

test.serial('a read-only project folder: refused with the reason, nothing changed', (t) => {
  const e = liveEstate()
  const ro = join(e.root, 'ro')
  const ran = withTmpfs(ro, '4m', () => {
    const project = join(ro, 'projects', '-tmp-project')
    mkdirSync(project, { recursive: true })
    const target = join(project, `${e.session}.jsonl`)
    writeFileSync(target, e.original)
    spawnSync('mount', ['-o', 'remount,ro', ro])
    const r = cli(
      ['compress', target, '--in-place', '--work-dir', e.work, '--confirm-session-closed', '--stable-for', '0'],
      { ...e.env, CLAUDE_CONFIG_DIR: ro },
    )
    t.is(r.code, 3, r.stderr)
    t.regex(r.stderr, /cannot write beside the transcript \(EROFS\); nothing changed/)
    t.true(readFileSync(target).equals(e.original))
  })
  if (!ran) {
    // Without mount rights: a folder without write permission (not binding on root).
    chmodSync(e.project, 0o555)
    try {
      const r = cli(inPlaceArgs(e), e.env)
      t.is(r.code, 3, r.stderr)
      t.regex(r.stderr, /cannot write beside the transcript \(EACCES\)/)
      t.true(readFileSync(e.target).equals(e.original))
    } finally {
      chmodSync(e.project, 0o755)
    }
  }
})

test.serial(
  'without an atomic exchange (rename aside + no-clobber link): published, and a racing file is kept',
  async (t) => {
    const e = liveEstate()
    const env = { ...e.env, CLAUDE_JSONL_NO_EXCHANGE: '1' }
    const r = cli([...inPlaceArgs(e), '--json'], env)
    t.is(r.code, 0, r.stderr)
    t.is(JSON.parse(r.stdout).inPlace.publishMethod, 'rename-and-link')
    t.true(valid(readFileSync(e.target)))
    t.true(readFileSync(backups(e)[0]).equals(e.original))
    t.deepEqual(leftovers(e), [])

    const f = liveEstate()
    const r2 = await meddleAfter(f, 'captured', () => replaceByAnotherProcess(f), {
      ...f.env,
      CLAUDE_JSONL_NO_EXCHANGE: '1',
    })
    t.is(r2.code, 3)
    t.regex(r2.stderr, /another process replaced the transcript/)
    t.true(readFileSync(f.target).equals(theirs))
    t.true(readFileSync(backups(f)[0]).equals(f.original))
    t.deepEqual(leftovers(f), [])
  },
)

test.serial('without an exchange, a kill while the original is set aside is undone by the re-run', async (t) => {
  const e = liveEstate()
  const env = { ...e.env, CLAUDE_JSONL_NO_EXCHANGE: '1' }
  const run = spawnCli(inPlaceArgs(e), env, 'moved-aside')
  await run.stopped
  run.child.kill('SIGKILL')
  await run.exited
  // The one window this fallback has: the name is empty, the original sits beside it.
  t.false(existsSync(e.target))
  t.true(readFileSync(backups(e)[0]).equals(e.original))
  const again = cli(inPlaceArgs(e), env)
  t.is(again.code, 0, again.stderr)
  t.true(valid(readFileSync(e.target)))
  t.deepEqual(leftovers(e), [])
  t.true(backups(e).every((b) => readFileSync(b).equals(e.original)))
})

/** Three sessions in one config folder (liveEstate's plus two more), each last written a minute
 * ago, for `compress --all --in-place`. */
function liveBatch() {
  const e = liveEstate()
  const more = ['real-05.jsonl', 'real-12.jsonl'].map((f) => {
    const bytes = readFileSync(join(REAL, f))
    const path = join(e.project, `${sessionOf(bytes)}.jsonl`)
    writeFileSync(path, bytes)
    const past = new Date(Date.now() - 60_000)
    utimesSync(path, past, past)
    return { path, original: bytes }
  })
  const sessions = [{ path: e.target, original: e.original }, ...more]
  const args = [
    'compress',
    '--all',
    '--in-place',
    '--work-dir',
    e.work,
    '--confirm-session-closed',
    '--jobs',
    '1',
    '--json',
  ]
  return { e, sessions, args }
}

/** Everything an in-place run leaves beside the transcripts only while it runs. */
const batchLeftovers = (dir: string) => readdirSync(dir).filter((f) => f.includes('.in-place'))

const BATCH_STEPS: readonly TransactionStep[] = FULL ? ON_EXCHANGE : ['staged', 'published']
for (const step of BATCH_STEPS) {
  test.serial(
    `compress --all --in-place killed after step "${step}": the next run recovers first, says so, and compresses nothing twice`,
    async (t) => {
      const { e, sessions, args } = liveBatch()
      const run = spawnCli(args, e.env, step)
      await run.stopped
      run.child.kill('SIGKILL')
      t.is((await run.exited).signal, 'SIGKILL')
      t.true(batchLeftovers(e.project).length > 0, 'the killed run left its lock (and stage)')
      const again = cli(args, e.env)
      t.is(again.code, 0, again.stderr)
      const report = JSON.parse(again.stdout) as {
        recovered: { target: string; action: string; message: string }[]
        sessions: { path: string; status: string; reason?: string; message?: string; previous?: { status: string } }[]
      }
      t.true(report.recovered.length >= 1, 'the recovery is reported')
      t.true(report.recovered.every((r) => /recovered an interrupted in-place run|stale in-place lock/.test(r.message)))
      if (TRANSACTION_STEPS.indexOf(step) >= TRANSACTION_STEPS.indexOf('published'))
        t.true(
          report.recovered.some((r) => r.action === 'finished'),
          JSON.stringify(report.recovered),
        )
      t.deepEqual(batchLeftovers(e.project), [], 'no lock or stage left')
      for (const s of report.sessions) t.not(s.reason, 'live', `${s.path}: ${s.message}`)
      for (const s of sessions) {
        const name = s.path.slice(e.project.length + 1)
        const backupsOf = readdirSync(e.project).filter((f) => f.startsWith(`${name}.backup`))
        t.true(backupsOf.length <= 1, `${name} was compressed at most once (${backupsOf.join(', ')})`)
        const now = readFileSync(s.path)
        if (!now.equals(s.original)) {
          t.true(valid(now))
          t.true(readFileSync(join(e.project, backupsOf[0])).equals(s.original), 'replaced with a verified backup')
        }
      }
      // The session the killed run had replaced is recognised as compressed, not compressed again.
      const text = cli(
        args.filter((a) => a !== '--json'),
        e.env,
      )
      t.is(text.code, 0, text.stderr)
      const third = JSON.parse(cli(args, e.env).stdout) as typeof report
      t.true(
        third.sessions.every((s) => s.reason === 'unchanged' || s.reason === 'nothing-to-gain'),
        JSON.stringify(third.sessions.map((s) => [s.status, s.reason])),
      )
    },
  )
}

test.serial('two batches sharing one --work-dir: the second is refused while the first runs (exit 3)', async (t) => {
  // One session: the fault point stops the run at each session's step.
  const e = liveEstate()
  const args = ['compress', '--all', '--in-place', '--work-dir', e.work, '--confirm-session-closed', '--json']
  const first = spawnCli(args, e.env, 'staged')
  await first.stopped
  const second = cli(args, e.env)
  t.is(second.code, 3, second.stderr)
  t.regex(second.stderr, /--work-dir .*: another compress --all \(pid \d+\) is using this folder/)
  first.child.kill('SIGCONT')
  t.is((await first.exited).code, 0, first.stderr())
  const manifest = JSON.parse(readFileSync(join(e.work, '.claude-jsonl-batch.json'), 'utf8')) as {
    sessions: Record<string, unknown>
  }
  t.is(Object.keys(manifest.sessions).length, 1, 'the first run recorded its session')
  const again = JSON.parse(cli(args, e.env).stdout) as { sessions: { reason?: string }[] }
  t.is(again.sessions[0].reason, 'unchanged', 'and it is not compressed twice')
  t.false(existsSync(join(e.work, '.claude-jsonl-batch.lock')))
})
