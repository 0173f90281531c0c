// A hostile file system: no writer follows a symbolic link out of its root (the estate, the out
// dir, the work dir, the archive), archives and restores stay private, a torn tail is refused by
// every rewriter, a FIFO never blocks a reader, and failures are named for what they are.
import test from 'ava'
import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { join } from 'node:path'
import type { BatchReport } from '../src-ts/compress/batch.js'
import { CLI, REAL, tempDir } from './helpers/transcripts.js'

const ID = {
  a: '198393f2-22db-477b-ac77-1825bea883ae',
  b: '4a07cdcd-b417-4393-84b1-eb50b109af95',
  c: '66666666-6666-4666-8666-666666666666',
}
const sha = (p: string) => createHash('sha256').update(readFileSync(p)).digest('hex')
const run = (args: string[], env: NodeJS.ProcessEnv = process.env) =>
  spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', env, timeout: 60_000 })
const byId = (r: BatchReport) => Object.fromEntries(r.sessions.map((s) => [s.session, s]))

/** An estate (`<root>/projects`) with one ordinary project, a project folder that is a link to a
 * folder outside, and a transcript that is a link to a file outside. */
function linkedEstate() {
  const root = tempDir('cj-fs-')
  const projects = join(root, 'projects')
  const outside = tempDir('cj-fs-outside-')
  const own = join(projects, '-home-dev-own')
  mkdirSync(own, { recursive: true })
  writeFileSync(join(own, `${ID.a}.jsonl`), readFileSync(join(REAL, 'real-05.jsonl')))
  const linkedTarget = join(outside, 'project')
  mkdirSync(linkedTarget)
  const outsideSession = join(linkedTarget, `${ID.b}.jsonl`)
  writeFileSync(outsideSession, readFileSync(join(REAL, 'real-12.jsonl')))
  symlinkSync(linkedTarget, join(projects, '-linked-project'))
  const outsideFile = join(outside, 'secret.jsonl')
  writeFileSync(outsideFile, readFileSync(join(REAL, 'real-05.jsonl')))
  chmodSync(outsideFile, 0o640)
  symlinkSync(outsideFile, join(own, `${ID.c}.jsonl`))
  return { root, projects, outside, outsideSession, outsideFile, own }
}

test('compress --all --in-place never writes through a project folder or a transcript that links out of the estate', (t) => {
  const e = linkedEstate()
  const before = { session: sha(e.outsideSession), file: sha(e.outsideFile), tree: readdirSync(e.outside).sort() }
  const work = join(tempDir('cj-fs-work-'), 'work')
  const env = { ...process.env, CLAUDE_CONFIG_DIR: e.root }
  const r = run(
    ['compress', '--all', '--in-place', '--work-dir', work, '--confirm-session-closed', '--stable-for', '0', '--json'],
    env,
  )
  t.is(r.status, 0, r.stderr)
  const s = byId(JSON.parse(r.stdout) as BatchReport)
  t.is(s[ID.a].status, 'compressed')
  t.like(s[ID.b], { status: 'skipped', reason: 'symlink' })
  t.regex(s[ID.b].message!, /symbolic link leading out of/)
  t.like(s[ID.c], { status: 'skipped', reason: 'symlink' })
  t.regex(s[ID.c].message!, /is a symbolic link/)
  t.is(sha(e.outsideSession), before.session, 'the session outside is untouched')
  t.is(sha(e.outsideFile), before.file)
  t.deepEqual(readdirSync(join(e.outside, 'project')), [`${ID.b}.jsonl`], 'no backup, stage or lock written outside')
  t.deepEqual(readdirSync(e.outside).sort(), before.tree)
  // The text report names each refusal with its reason, not "failed: internal".
  const text = run(
    ['compress', '--all', '--in-place', '--work-dir', join(work, '2'), '--confirm-session-closed', '--stable-for', '0'],
    env,
  )
  t.regex(text.stdout, /skipped: refused: a symbolic link/)
  t.regex(text.stdout, /refused: .*-linked-project: a symbolic link leading out of/)
  t.notRegex(text.stdout, /failed: internal/)
  // Named directly, the linked session is refused as well (exit 2), nothing changed.
  const one = run(
    [
      'compress',
      join(e.projects, '-linked-project', `${ID.b}.jsonl`),
      '--in-place',
      '--work-dir',
      join(work, '3'),
      '--confirm-session-closed',
      '--stable-for',
      '0',
    ],
    env,
  )
  t.is(one.status, 2, one.stderr)
  t.regex(one.stderr, /symbolic link leading out of/)
  t.is(sha(e.outsideSession), before.session)
})

test('compress --all --out-dir never writes through a project folder in the out dir that links out of it', (t) => {
  const e = linkedEstate()
  const out = tempDir('cj-fs-out-')
  const elsewhere = tempDir('cj-fs-elsewhere-')
  symlinkSync(elsewhere, join(out, '-home-dev-own'))
  const r = run(['compress', '--all', '--projects', e.projects, '--out-dir', out, '--json'])
  t.is(r.status, 0, r.stderr)
  const s = byId(JSON.parse(r.stdout) as BatchReport)
  t.like(s[ID.a], { status: 'skipped', reason: 'symlink' })
  t.deepEqual(readdirSync(elsewhere), [], 'nothing written through the link')
})

test('a work dir that is a link into the estate is refused before anything is written', (t) => {
  const e = linkedEstate()
  const work = join(tempDir('cj-fs-work-'), 'work')
  symlinkSync(e.own, work)
  const before = readdirSync(e.own).sort()
  const r = run([
    'compress',
    '--all',
    '--projects',
    e.projects,
    '--in-place',
    '--work-dir',
    work,
    '--confirm-session-closed',
  ])
  t.is(r.status, 2, r.stderr)
  t.regex(r.stderr, /must lie outside the estate/)
  t.deepEqual(readdirSync(e.own).sort(), before)
})

test('archive skips a transcript link out of the estate (named, with its reason); archive files are private', (t) => {
  const e = linkedEstate()
  const to = join(tempDir('cj-fs-archive-'), 'archive')
  const r = run(['archive', '--projects', e.projects, '--to', to, '--json'])
  t.is(r.status, 0, r.stderr)
  const report = JSON.parse(r.stdout) as { skipped: { path: string; message: string }[]; files: number }
  const skipped = report.skipped.map((s) => s.path).sort()
  t.deepEqual(
    skipped,
    [join(e.projects, '-home-dev-own', `${ID.c}.jsonl`), join(e.projects, '-linked-project', `${ID.b}.jsonl`)].sort(),
  )
  t.true(report.skipped.every((s) => /symbolic link leading out of/.test(s.message)))
  t.regex(r.stderr, /skipped: .*secret\.jsonl|skipped: .*symbolic link/)
  const text = run(['archive', '--projects', e.projects, '--to', to])
  t.regex(text.stdout, /2 skipped \(symbolic links out of the estate, not followed\)/)
  // The secret's bytes are nowhere in the archive, and every file and folder in it is private.
  t.is(statSync(to).mode & 0o777, 0o700)
  const secret = readFileSync(e.outsideFile).subarray(0, 200).toString()
  const walk = (d: string): void => {
    for (const n of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, n.name)
      const mode = statSync(p).mode & 0o777
      if (n.isDirectory()) {
        t.is(mode, 0o700, p)
        walk(p)
      } else {
        t.is(mode & 0o077, 0, `${p} is private`)
        t.false(readFileSync(p).toString('latin1').includes(secret))
      }
    }
  }
  walk(to)
  // Restored files are private too.
  const into = tempDir('cj-fs-restore-')
  const back = run(['restore', to, '--all', '--to', join(into, 'projects')])
  t.is(back.status, 0, back.stderr + back.stdout)
  const restored = join(into, 'projects', '-home-dev-own', `${ID.a}.jsonl`)
  t.is(sha(restored), sha(join(e.own, `${ID.a}.jsonl`)))
  t.is(statSync(restored).mode & 0o077, 0)
  t.false(existsSync(join(into, 'projects', '-home-dev-own', `${ID.c}.jsonl`)))
})

test('single-file compress and --in-place refuse a torn last line, as compress --all does (one rule)', (t) => {
  const root = tempDir('cj-fs-torn-')
  const dir = join(root, 'projects', '-home-dev-torn')
  mkdirSync(dir, { recursive: true })
  const whole = readFileSync(join(REAL, 'real-12.jsonl'))
  const lastNl = whole.lastIndexOf(10, whole.length - 2)
  const torn = join(dir, `${ID.a}.jsonl`)
  writeFileSync(torn, whole.subarray(0, lastNl + 40)) // the last line cut short
  const before = sha(torn)
  const out = join(tempDir('cj-fs-torn-out-'), 'c.jsonl')
  const one = run(['compress', torn, '--out', out])
  t.is(one.status, 1, one.stderr)
  t.regex(one.stderr, /torn: its last line is cut short.*claude-jsonl repair can mend it/)
  t.false(existsSync(out))
  const env = { ...process.env, CLAUDE_CONFIG_DIR: root }
  const work = tempDir('cj-fs-torn-work-')
  const inPlace = run(
    ['compress', torn, '--in-place', '--work-dir', work, '--confirm-session-closed', '--stable-for', '0'],
    env,
  )
  t.is(inPlace.status, 1, inPlace.stderr)
  t.regex(inPlace.stderr, /torn/)
  t.is(sha(torn), before)
  t.deepEqual(readdirSync(dir), [`${ID.a}.jsonl`], 'no backup, stage or lock left')
})

test('a FIFO named .jsonl is refused at once by every reader, never read (no reader blocks)', (t) => {
  const dir = tempDir('cj-fs-fifo-')
  const fifo = join(dir, `${ID.a}.jsonl`)
  const made = spawnSync('mkfifo', [fifo])
  if (made.status !== 0) return t.pass('mkfifo is not available here')
  for (const cmd of ['stats', 'validate', 'show', 'doctor', 'timeline', 'plan', 'sessions']) {
    const r = spawnSync(process.execPath, [CLI, cmd, fifo], { encoding: 'utf8', timeout: 20_000 })
    t.is(r.error, undefined, `${cmd} did not block`)
    t.is(r.status, 3, `${cmd}: ${r.stderr}`)
    t.regex(r.stderr, /is a FIFO \(named pipe\), not a transcript file; not read/, cmd)
  }
  const c = spawnSync(process.execPath, [CLI, 'compress', fifo, '--out', join(dir, 'c.jsonl')], {
    encoding: 'utf8',
    timeout: 20_000,
  })
  t.is(c.status, 3, c.stderr)
  t.regex(c.stderr, /FIFO/)
})

test('valid JSON too deep to read, or holding 1e400, is named for what it is, not "not valid JSON"', (t) => {
  const dir = tempDir('cj-fs-json-')
  const file = join(dir, 'deep.jsonl')
  const first = JSON.stringify({
    type: 'user',
    uuid: 'u1',
    parentUuid: null,
    sessionId: ID.a,
    message: { role: 'user', content: 'hello' },
  })
  writeFileSync(file, `${first}\n${'['.repeat(100_000)}${']'.repeat(100_000)}\n{"type":"user","n":1e400}\n{"broken":\n`)
  const v = run(['validate', file])
  t.regex(v.stdout, /line 2 is JSON nested deeper than 1024 levels, too deep to read/)
  t.regex(v.stdout, /line 3 is JSON holding a number out of range/)
  t.regex(v.stdout, /line 4 is not valid JSON/)
  const s = run(['show', file])
  t.regex(s.stdout, /line 2: JSON nested too deep to read/)
  t.regex(s.stdout, /line 3: JSON holding a number out of range/)
  // doctor counts them apart from the corrupt line, and repair, which would otherwise cut them as
  // damage, refuses: the client reads both records.
  const d = run(['doctor', file])
  t.regex(d.stdout, /FLAG bad-json: 1 line of invalid JSON \(line 4…\)/)
  t.regex(d.stdout, /FLAG unreadable-json: 2 lines of valid JSON that claude-jsonl cannot read.*\(line 2, 3…\)/)
  const before = readFileSync(file)
  const r = run(['repair', file, '--out', join(dir, 'out.jsonl')])
  t.is(r.status, 1, r.stderr)
  t.regex(
    r.stderr,
    /cannot be repaired safely: line 2: the line is JSON nested deeper than 1024 levels.*the client reads it/,
  )
  t.false(existsSync(join(dir, 'out.jsonl')))
  t.deepEqual(readFileSync(file), before)
  // Unterminated at the end of the file, such a line is no torn write either.
  const tail = join(dir, 'tail.jsonl')
  writeFileSync(tail, `${first}\n{"type":"user","n":1e400}`)
  t.notRegex(run(['doctor', tail]).stdout, /torn/)
})

test('a full disk while writing the batch manifest exits 3 (an input/output error), naming the cause', (t) => {
  const e = linkedEstate()
  const out = tempDir('cj-fs-enospc-')
  const r = run(['compress', '--all', '--projects', e.own, '--out-dir', out], {
    ...process.env,
    CLAUDE_JSONL_FAULT_ERRNO: 'manifest:ENOSPC',
  })
  t.is(r.status, 3, r.stderr)
  t.regex(r.stderr, /the batch manifest could not be written \(ENOSPC\)/)
  t.false(existsSync(join(out, '.claude-jsonl-batch.json')))
  t.false(existsSync(join(out, '.claude-jsonl-batch.lock')), 'the batch lock is released')
})
