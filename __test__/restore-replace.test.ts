// `restore --replace`: the pre-compression original put back over the compressed session in
// the Claude projects folder, through the in-place transaction: the compressed file becomes a
// verified numbered backup, a live session is refused, a run killed after any sampled step leaves
// the compressed file or the original (with the backup), and a re-run finishes. `npm run
// test:full` (CLAUDE_JSONL_TEST_FULL=1) kills at every step.
import test from 'ava'
import { mkdirSync, readFileSync, renameSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { TRANSACTION_STEPS } from '../src-ts/compress/transaction.js'
import { processStartTicks } from '../src-ts/read/live-sessions.js'
import { backups, cli, inPlaceArgs, leftovers, liveEstate, spawnCli, type LiveEstate } from './helpers/live-estate.js'

const FULL = process.env.CLAUDE_JSONL_TEST_FULL === '1'
const SAMPLED = ['backed-up', 'staged', 'captured', 'published']
const STEPS = TRANSACTION_STEPS.filter((s) => s !== 'moved-aside' && (FULL || SAMPLED.includes(s)))

interface Archived extends LiveEstate {
  archive: string
  compressed: Buffer
}

/** A session archived, compressed in place, archived again: the archive's generation 1 is the
 * original, the projects folder holds the compressed session. */
function archivedThenCompressed(): Archived {
  const e = liveEstate()
  const archive = join(e.root, 'archive')
  const a = cli(['archive', '--to', archive], e.env)
  if (a.code !== 0) throw new Error(a.stderr)
  const c = cli(inPlaceArgs(e), e.env)
  if (c.code !== 0) throw new Error(c.stderr)
  const b = cli(['archive', '--to', archive], e.env)
  if (b.code !== 0) throw new Error(b.stderr)
  const past = new Date(Date.now() - 60_000)
  utimesSync(e.target, past, past)
  return { ...e, archive, compressed: readFileSync(e.target) }
}

const restoreArgs = (e: Archived, ...more: string[]) => [
  'restore',
  e.archive,
  e.session,
  '--to',
  join(e.config, 'projects'),
  '--into-claude-dir',
  '--generation',
  '1',
  ...more,
]

test('--replace puts the original back; the compressed file is kept as a verified numbered backup', (t) => {
  const e = archivedThenCompressed()
  const refused = cli(restoreArgs(e), e.env)
  t.is(refused.code, 1)
  t.regex(refused.stderr, /exists and differs from the archived transcript \(not overwritten\)/)
  t.true(readFileSync(e.target).equals(e.compressed), 'without --replace nothing changes')
  const before = backups(e)
  const r = cli([...restoreArgs(e, '--replace', '--stable-for', '0'), '--json'], e.env)
  t.is(r.code, 0, r.stderr)
  t.true(readFileSync(e.target).equals(e.original), 'the original is back byte for byte')
  const report = JSON.parse(r.stdout)
  t.is(report.replaced, 1)
  const f = report.files.find((x: { status: string }) => x.status === 'replaced')
  t.true(readFileSync(f.backup).equals(e.compressed), 'the compressed session is kept as the backup')
  t.deepEqual(
    backups(e).filter((b) => !before.includes(b)),
    [f.backup],
  )
  for (const b of before) t.true(readFileSync(b).equals(e.original), "compress's own backup is kept")
  t.deepEqual(leftovers(e), [])
  // again: nothing left to replace
  const again = cli(restoreArgs(e, '--replace', '--stable-for', '0'), e.env)
  t.is(again.code, 0, again.stderr)
  t.regex(again.stdout, /1 already there/)
  t.is(backups(e).length, before.length + 1)
})

test('--replace refuses a session Claude Code is running, and one written within the stability window', (t) => {
  const e = archivedThenCompressed()
  const dir = join(e.config, 'sessions')
  mkdirSync(dir, { recursive: true })
  const reg = join(dir, `${process.pid}.json`)
  writeFileSync(
    reg,
    JSON.stringify({
      pid: process.pid,
      sessionId: e.session,
      status: 'busy',
      kind: 'interactive',
      procStart: processStartTicks(process.pid),
    }),
  )
  const r = cli(restoreArgs(e, '--replace', '--stable-for', '0'), e.env)
  t.is(r.code, 1)
  t.regex(r.stderr, new RegExp(`Claude Code is running this session \\(pid ${process.pid}`))
  t.true(readFileSync(e.target).equals(e.compressed))
  renameSync(reg, `${reg}.gone`)
  utimesSync(e.target, new Date(), new Date())
  const fresh = cli(restoreArgs(e, '--replace'), e.env)
  t.is(fresh.code, 1)
  t.regex(fresh.stderr, /within the 10 s stability window/)
  t.true(readFileSync(e.target).equals(e.compressed))
  t.deepEqual(leftovers(e), [])
})

test('--replace never writes through a project folder linked out of the projects folder', (t) => {
  const e = archivedThenCompressed()
  const outside = join(e.root, 'outside')
  renameSync(e.project, outside)
  symlinkSync(outside, e.project)
  const target = join(outside, `${e.session}.jsonl`)
  const r = cli(restoreArgs(e, '--replace', '--stable-for', '0'), e.env)
  t.is(r.code, 1)
  t.regex(r.stderr, /symbolic link/)
  t.true(readFileSync(target).equals(e.compressed), 'the file outside is untouched')
})

for (const step of STEPS) {
  test.serial(
    `--replace killed after step "${step}": compressed or original with its backup; a re-run finishes`,
    async (t) => {
      const e = archivedThenCompressed()
      const run = spawnCli(restoreArgs(e, '--replace', '--stable-for', '0'), e.env, step)
      await run.stopped
      run.child.kill('SIGKILL')
      t.is((await run.exited).signal, 'SIGKILL')
      const now = readFileSync(e.target)
      const swapped = TRANSACTION_STEPS.indexOf(step) >= TRANSACTION_STEPS.indexOf('published')
      t.true(now.equals(swapped ? e.original : e.compressed), `after ${step}`)
      if (swapped)
        t.true(
          backups(e).some((b) => readFileSync(b).equals(e.compressed)),
          'replaced only after a backup',
        )
      const again = cli(restoreArgs(e, '--replace', '--stable-for', '0'), e.env)
      t.is(again.code, 0, again.stderr)
      t.true(readFileSync(e.target).equals(e.original))
      t.true(backups(e).some((b) => readFileSync(b).equals(e.compressed)))
      t.deepEqual(leftovers(e), [], 'no stage or lock left after the re-run')
    },
  )
}
