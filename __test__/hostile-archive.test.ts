// Archives from someone else: a store header whose source (project, path) would place a
// transcript outside the folder it is restored or read into is refused by name, the rest still
// restores, and nothing is created outside the target (or the read view's cache folder), by
// restore and by every command that reads an archive root. The archive is
// fixtures/hostile-archive (written by the crate's hostile-archive test): two good transcripts
// and one per hostile header, listed in its cases.json.
import test from 'ava'
import { spawnSync } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { archive } from '../src-ts/archive/archive.js'
import { CLI, REPO, tempDir, userText, writeTree } from './helpers/transcripts.js'
import { pathsBelow as paths } from './helpers/file-tree.js'

interface Case {
  name: string
  field: 'source.project' | 'source.path'
  project: string
  path: string
  /** The session folder in the archive, relative to its root. */
  store: string
}

const FIXTURE = join(REPO, 'fixtures', 'hostile-archive')
const CASES: Case[] = JSON.parse(readFileSync(join(FIXTURE, 'cases.json'), 'utf8'))
const SID = '5afe0000-1111-4222-8333-444455556666'
/** Where the hostile headers point in /tmp: none of them may ever appear. */
const OUTSIDE_TMP = [
  '/tmp/claude-jsonl-hostile',
  '/tmp/claude-jsonl-hostile-abs',
  '/tmp/claude-jsonl-hostile-path.jsonl',
]

function run(args: string[], env: NodeJS.ProcessEnv = {}, cwd?: string) {
  const r = spawnSync(process.execPath, [CLI, ...args], {
    encoding: 'utf8',
    cwd,
    env: { PATH: process.env.PATH, HOME: '/nonexistent-home', ...env },
  })
  return { code: r.status, stdout: r.stdout, stderr: r.stderr }
}

/** A scratch tree: the archive copied to `<dir>/in/arch`, with only the cases named kept. */
function setup(keep: (c: Case) => boolean = () => true) {
  const dir = tempDir('cj-hostile-')
  const arch = join(dir, 'in', 'arch')
  cpSync(join(FIXTURE, 'archive'), arch, { recursive: true })
  for (const c of CASES.filter((c) => !keep(c))) {
    rmSync(join(arch, c.store), { recursive: true })
    const project = dirname(join(arch, c.store))
    if (readdirSync(project).length === 0) rmSync(project, { recursive: true })
  }
  return { dir, arch, before: paths(dir) }
}

function nothingOutside(t: import('ava').ExecutionContext, dir: string, before: string[], inside: string[] = []) {
  const isInside = (p: string) => inside.some((i) => p === i || p.startsWith(i + '/'))
  t.deepEqual(
    paths(dir).filter((p) => !isInside(p)),
    before.filter((p) => !isInside(p)),
    'nothing created or changed outside the target',
  )
  for (const p of OUTSIDE_TMP) t.false(existsSync(p), p)
}

const refusal = (arch: string, c: Case) =>
  `${join(arch, c.store, 'session.jsonl.zstd')}: refused: header field ${c.field} ${JSON.stringify(c.field === 'source.project' ? c.project : c.path)}`

test('the fixture has a case for every rule', (t) => {
  t.true(CASES.length >= 19)
  for (const want of ['..', '/tmp/', 'C:', '\\\\', '\u0000', '.claude', '//', './']) {
    t.true(
      CASES.some((c) => c.project.includes(want) || c.path.includes(want)),
      want,
    )
  }
})

test('restore --all refuses each hostile header by file and field, restores the rest, writes nothing outside', (t) => {
  const { dir, arch, before } = setup()
  const to = join(dir, 'a', 'b', 'c', 'd', 'to')
  const r = run(['restore', arch, '--all', '--to', to, '--json'])
  t.is(r.code, 1, r.stderr)
  for (const c of CASES) t.true(r.stderr.includes(refusal(arch, c)), `${c.name}: ${r.stderr}`)
  const report = JSON.parse(r.stdout)
  t.is(report.written, 2)
  t.is(report.failed, CASES.length)
  for (const f of report.files.filter((f: { status: string }) => f.status === 'failed')) t.is(f.target, '')
  // exactly the two good transcripts, and no .claude folder anywhere
  t.deepEqual(paths(to), [
    '-home-u-ok',
    `-home-u-ok/${SID}`,
    `-home-u-ok/${SID}/subagents`,
    `-home-u-ok/${SID}/subagents/agent-a1.jsonl`,
    `-home-u-ok/${SID}.jsonl`,
  ])
  t.regex(readFileSync(join(to, '-home-u-ok', `${SID}.jsonl`), 'utf8'), /hello from a safe transcript/)
  nothingOutside(t, dir, before, ['a'])
  // run again: the good ones are already there, the hostile ones refused again
  const again = run(['restore', arch, '--all', '--to', to, '--json'])
  t.is(again.code, 1)
  t.is(JSON.parse(again.stdout).identical, 2)
})

test('restore of one session from a hostile archive restores it and nothing else', (t) => {
  const { dir, arch, before } = setup()
  const to = join(dir, 'to')
  const r = run(['restore', arch, SID.slice(0, 8), '--to', to])
  t.is(r.code, 0, r.stderr)
  t.is(paths(to).length, 5)
  nothingOutside(t, dir, before, ['to'])
})

test('the read view refuses an archive with any one hostile header before writing anything', (t) => {
  for (const c of CASES) {
    const { dir, arch, before } = setup((k) => k === c)
    const cache = join(dir, 'cache')
    const r = run(['stats', arch, '--json'], { XDG_CACHE_HOME: cache })
    t.is(r.code, 3, `${c.name}: ${r.stderr}`)
    t.true(r.stderr.includes(refusal(arch, c)), `${c.name}: ${r.stderr}`)
    t.regex(r.stderr, /the archive is not read .*restore --all/)
    t.false(existsSync(cache), `${c.name}: no view folder`)
    nothingOutside(t, dir, before)
  }
})

test('every command that reads an archive root refuses the hostile archive and writes nothing', (t) => {
  const { dir, arch, before } = setup()
  const cache = join(dir, 'cache')
  const commands = [
    ['stats', arch],
    ['stats', '--projects', arch, '--json'],
    ['doctor', '--projects', arch],
    ['sessions', arch, '--all'],
    ['find', 'safe', '--projects', arch, '--no-index'],
    ['find', 'safe', '--projects', arch],
    ['show', SID, '--projects', arch],
    ['timeline', SID, '--projects', arch],
    ['teleport-id', 'session_01abc', '--projects', arch],
    ['compress', SID, '--projects', arch, '--out', join(dir, 'out', 'c.jsonl')],
    ['pack', SID, '--projects', arch, '--out', join(dir, 'out', 'p.md')],
    ['archive', '--projects', arch, '--to', join(dir, 'out', 'arch2')],
  ]
  for (const args of commands) {
    const r = run(args, { XDG_CACHE_HOME: cache })
    t.is(r.code, 3, `${args.join(' ')}: ${r.stderr}`)
    // archive refuses any archive root: an archive is read, never archived again
    const refused =
      args[0] === 'archive'
        ? /arch: is an archive: archive reads an estate/
        : /session\.jsonl\.zstd: refused: header field source\.(project|path) /
    t.regex(r.stderr, refused, args.join(' '))
    t.false(existsSync(join(cache, 'claude-jsonl', 'archive-view')), args.join(' '))
    nothingOutside(t, dir, before, ['cache'])
  }
})

test('restore refuses symbolic links that lead out of the target, and files that are links', (t) => {
  const { dir, arch, before } = setup(() => false)
  const outside = join(dir, 'outside')
  mkdirSync(outside)
  // the project folder in the target is a link out of it
  const to = join(dir, 'to')
  mkdirSync(to)
  symlinkSync(outside, join(to, '-home-u-ok'))
  let r = run(['restore', arch, '--all', '--to', to])
  t.is(r.code, 1)
  t.regex(r.stderr, /-home-u-ok: a symbolic link leading out of .*nothing written through it/)
  t.deepEqual(paths(outside), [])
  // the transcript's own name is a link (to a file outside): not followed, not replaced
  const to2 = join(dir, 'to2')
  mkdirSync(join(to2, '-home-u-ok'), { recursive: true })
  writeFileSync(join(outside, 'victim'), 'unchanged')
  symlinkSync(join(outside, 'victim'), join(to2, '-home-u-ok', `${SID}.jsonl`))
  r = run(['restore', arch, '--all', '--to', to2])
  t.is(r.code, 1)
  t.regex(r.stderr, new RegExp(`${SID}\\.jsonl: is a symbolic link \\(not followed, not replaced\\)`))
  t.is(readFileSync(join(outside, 'victim'), 'utf8'), 'unchanged')
  t.true(existsSync(join(to2, '-home-u-ok', SID, 'subagents', 'agent-a1.jsonl')), 'the other transcript restored')
  t.deepEqual(paths(outside), ['victim'])
  // a link that stays inside the target is followed
  const to3 = join(dir, 'to3')
  mkdirSync(join(to3, 'real'), { recursive: true })
  symlinkSync(join(to3, 'real'), join(to3, '-home-u-ok'))
  r = run(['restore', arch, '--all', '--to', to3])
  t.is(r.code, 0, r.stderr)
  t.true(existsSync(join(to3, 'real', `${SID}.jsonl`)))
  nothingOutside(t, dir, before, ['outside', 'to', 'to2', 'to3'])
})

test('the archive run refuses, by name, a transcript that restore would refuse, and archives the rest', async (t) => {
  const src = writeTree({
    [`-home-u-a/${SID}.jsonl`]: [userText('kept')],
    [`my.project/${SID}.jsonl`]: [userText('odd folder')],
  })
  const r = await archive({ projects: src, to: join(tempDir(), 'arch') })
  t.is(r.added, 1)
  t.is(r.failures.length, 1)
  t.is(r.failures[0].path, join(src, 'my.project', `${SID}.jsonl`))
  t.regex(
    r.failures[0].message,
    /its project folder "my\.project" has the character "\." .*not archived \(restore would refuse it\)/,
  )
  // the line shown to a person names the file whichever kind of failure it is
  t.true(r.failures[0].message.startsWith(`${r.failures[0].path}: `), r.failures[0].message)
})
