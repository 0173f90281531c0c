// `archive --include-config`: the files Claude Code's cleanup deletes from its config folder
// outside projects/ (file-history, todos, tasks, session-env, debug, plans, shell-snapshots,
// paste-cache) archived beside the transcripts, byte-exact and incremental, and restored into
// the config folder with `restore --include-config`; never credentials or settings; the default
// run unchanged; a hostile config entry (fixtures/hostile-config-archive, written by the
// crate's config tests) refused by name while the rest restores.
import test from 'ava'
import { spawnSync } from 'node:child_process'
import {
  appendFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { dirname, join } from 'node:path'
import { archive, listArchive, restore } from '../src-ts/archive/archive.js'
import { CLI, REPO, tempDir } from './helpers/transcripts.js'
import { fileTree as tree, pathsBelow as paths } from './helpers/file-tree.js'

const SID = '0b7c8a8e-1111-4222-8333-444455556666'
const OTHER = '1c8d9b9f-2222-4333-8444-555566667777'
const PROJECT = '-home-u-repo'

function run(args: string[], env: NodeJS.ProcessEnv = {}) {
  const r = spawnSync(process.execPath, [CLI, ...args], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH, HOME: '/nonexistent-home', ...env },
  })
  return { code: r.status, stdout: r.stdout, stderr: r.stderr }
}

function put(root: string, rel: string, bytes: string | Buffer) {
  mkdirSync(dirname(join(root, rel)), { recursive: true })
  writeFileSync(join(root, rel), bytes)
}

const record = (sid: string, n: number) =>
  JSON.stringify({ type: 'user', uuid: `u-${n}`, parentUuid: null, sessionId: sid, message: { content: 'hi' } }) + '\n'

/** What the archive keeps of the config folder, per session. */
const KEPT: Record<string, string> = {
  [`file-history/${SID}/3f2a9c1e0b7d4a11@v1`]: 'const a = 1\n',
  [`file-history/${SID}/3f2a9c1e0b7d4a11@v2`]: 'const a = 2\n',
  [`todos/${SID}-agent-${SID}.json`]: '[{"content":"ship","status":"in_progress","activeForm":"Shipping"}]',
  [`tasks/${SID}/1.json`]: '{"id":"1"}',
  [`session-env/${SID}/sessionstart-hook-0.sh`]: 'export X=1\n',
  [`debug/${SID}.txt`]: '2026-11-30T10:00:00.000Z [DEBUG] start\n',
  [`todos/${OTHER}-agent-${OTHER}.json`]: '[]',
  [`file-history/${OTHER}/aa@v1`]: Buffer.from([0, 255, 1, 254]).toString('latin1'),
  'plans/witty-twirling-oasis.md': '# Plan\n',
  'shell-snapshots/snapshot-bash-1700000000000-abc.sh': 'alias ll="ls -l"\n',
  'paste-cache/0a1b2c3d.txt': 'a long paste',
  'todos/a-name-the-client-does-not-give.bin': 'unknown\n',
}
/** In the config folder but never archived. */
const LEFT_OUT = [
  '.credentials.json',
  'settings.json',
  '.claude.json',
  'history.jsonl',
  'image-cache/x/1.png',
  'statsig/cache',
  'telemetry/t.json',
]

/** A config folder (not named .claude, so no --into-claude-dir is needed) with two sessions. */
function configFolder() {
  const dir = tempDir('cj-arch-config-')
  const config = join(dir, 'home', 'cfg')
  const projects = join(config, 'projects')
  put(projects, `${PROJECT}/${SID}.jsonl`, record(SID, 1))
  put(projects, `${PROJECT}/${SID}/tool-results/toolu_01.txt`, 'out')
  put(projects, `${PROJECT}/${OTHER}.jsonl`, record(OTHER, 2))
  for (const [rel, body] of Object.entries(KEPT)) put(config, rel, Buffer.from(body, 'latin1'))
  for (const rel of LEFT_OUT) put(config, rel, 'secret\n')
  return { dir, config, projects, arch: join(dir, 'arch') }
}

const keptFor = (sid: string) => Object.keys(KEPT).filter((k) => k.includes(sid))

test('archive --include-config, restore --all --include-config: every config file back byte-identical, nothing else', (t) => {
  const { dir, config, projects, arch } = configFolder()
  try {
    const a = run(['archive', '--include-config', '--projects', projects, '--to', arch, '--json'])
    t.is(a.code, 0, a.stderr)
    const report = JSON.parse(a.stdout)
    t.is(report.configFiles, Object.keys(KEPT).length)
    t.is(report.files, 3 + Object.keys(KEPT).length)
    t.deepEqual(report.scope.config, [config])
    t.is(report.archive.configFiles, Object.keys(KEPT).length)
    t.regex(
      run(['archive', '--include-config', '--projects', projects, '--to', arch]).stdout,
      /3 transcripts and 12 config files/,
    )

    // the listing names each config file, its path in the config folder and its session
    const listed = listArchive(arch).filter((f) => f.config)
    t.deepEqual(listed.map((f) => f.path).sort(), Object.keys(KEPT).sort())
    const fh = listed.find((f) => f.path === `file-history/${SID}/3f2a9c1e0b7d4a11@v1`)!
    t.is(fh.sessionId, SID)
    t.is(fh.key, `_config/file-history/${SID}/3f2a9c1e0b7d4a11@v1`)
    t.is(listed.find((f) => f.path.startsWith('plans/'))!.sessionId ?? null, null)

    const back = join(dir, 'back')
    const r = run(['restore', arch, '--all', '--include-config', '--to', join(back, 'projects'), '--json'])
    t.is(r.code, 0, r.stderr)
    const rr = JSON.parse(r.stdout)
    t.is(rr.configTo, back)
    t.is(rr.files.filter((f: { config: boolean }) => f.config).length, Object.keys(KEPT).length)
    const got = tree(back)
    const want = new Map([...tree(config)].filter(([k]) => !LEFT_OUT.includes(k)))
    t.deepEqual([...got.keys()].sort(), [...want.keys()].sort())
    for (const [k, v] of want) t.true(got.get(k)?.equals(v), `${k} byte-identical`)
    for (const rel of LEFT_OUT) t.false(existsSync(join(back, rel)), `${rel} never archived`)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})

test('a re-run stores only the config files that changed', async (t) => {
  const { dir, config, projects, arch } = configFolder()
  try {
    await archive({ projects, to: arch, includeConfig: true })
    const same = await archive({ projects, to: arch, includeConfig: true })
    t.is(same.unchanged, same.files)
    t.is(same.bytesIn, 0)
    appendFileSync(join(config, `debug/${SID}.txt`), '2026-11-30T10:00:01.000Z [DEBUG] more\n')
    put(config, `file-history/${SID}/3f2a9c1e0b7d4a11@v3`, 'const a = 3\n')
    put(config, `todos/${SID}-agent-${SID}.json`, '[]')
    const r = await archive({ projects, to: arch, includeConfig: true })
    t.is(r.failures.length, 0)
    t.is(r.appended, 1, 'the debug log grew: only its new bytes')
    t.is(r.added, 1, 'a new file-history backup')
    t.is(r.generations, 1, 'the rewritten todo list is a new generation')
    t.is(r.unchanged, r.files - 3)
    t.is(r.bytesIn, '2026-11-30T10:00:01.000Z [DEBUG] more\n'.length + 'const a = 3\n'.length + 2)
    // the cleanup deleted them; the archive gives back their latest bytes
    rmSync(join(config, 'debug'), { recursive: true })
    rmSync(join(config, 'todos'), { recursive: true })
    const back = join(dir, 'back')
    const rr = await restore(arch, { all: true, includeConfig: true, to: join(back, 'projects') })
    t.is(rr.failed, 0)
    t.is(readFileSync(join(back, `todos/${SID}-agent-${SID}.json`), 'utf8'), '[]')
    t.true(readFileSync(join(back, `debug/${SID}.txt`), 'utf8').endsWith('more\n'))
    t.is(readFileSync(join(back, `file-history/${SID}/3f2a9c1e0b7d4a11@v3`), 'utf8'), 'const a = 3\n')
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})

test('without --include-config nothing of the config folder is archived or restored', async (t) => {
  const { dir, projects, arch } = configFolder()
  try {
    const a = await archive({ projects, to: arch })
    t.is(a.files, 3)
    t.is(a.configFiles, 0)
    t.deepEqual(a.scope.config, [])
    t.false(listArchive(arch).some((f) => f.config))
    // an archive that holds config files restores only transcripts without the flag, and says so
    await archive({ projects, to: arch, includeConfig: true })
    const back = join(dir, 'back')
    const r = run(['restore', arch, '--all', '--to', join(back, 'projects')])
    t.is(r.code, 0, r.stderr)
    t.regex(r.stdout, /12 archived config files not restored \(pass --include-config/)
    t.deepEqual(readdirSync(back), ['projects'])
    t.deepEqual(
      [...tree(join(back, 'projects')).keys()].sort(),
      [`${PROJECT}/${OTHER}.jsonl`, `${PROJECT}/${SID}.jsonl`, `${PROJECT}/${SID}/tool-results/toolu_01.txt`].sort(),
    )
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})

test('restore SESSION --include-config brings back that session config files only', async (t) => {
  const { dir, projects, arch } = configFolder()
  try {
    await archive({ projects, to: arch, includeConfig: true })
    const back = join(dir, 'back')
    const r = await restore(arch, { sessions: [SID.slice(0, 8)], includeConfig: true, to: join(back, 'projects') })
    t.is(r.failed, 0)
    const got = [...tree(back).keys()].filter((k) => !k.startsWith('projects/')).sort()
    t.deepEqual(got, keptFor(SID).sort())
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})

test('--include-config needs a projects/ folder: bad usage otherwise (exit 2)', (t) => {
  const { dir, projects, arch } = configFolder()
  try {
    const other = join(dir, 'estate')
    cpSync(projects, other, { recursive: true })
    const a = run(['archive', '--include-config', other, '--to', arch])
    t.is(a.code, 2, a.stderr)
    t.regex(a.stderr, /is not the projects folder of a Claude config folder/)
    t.false(existsSync(arch))
    t.is(
      run(['archive', '--include-config', '--projects', projects, '--to', join(dir, 'home', 'cfg', 'plans', 'a')]).code,
      3,
    )
    t.is(run(['archive', '--include-config', '--projects', projects, '--to', arch]).code, 0)
    const r = run(['restore', arch, '--all', '--include-config', '--to', join(dir, 'back')])
    t.is(r.code, 2, r.stderr)
    t.false(existsSync(join(dir, 'back')))
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})

interface Case {
  name: string
  path: string
  store: string
}
const FIXTURE = join(REPO, 'fixtures', 'hostile-config-archive')
const CASES: Case[] = JSON.parse(readFileSync(join(FIXTURE, 'cases.json'), 'utf8'))
const SAFE = '5afe0000-1111-4222-8333-444455556666'
const GOOD = [`file-history/${SAFE}/0011aabb@v1`, `todos/${SAFE}-agent-${SAFE}.json`, 'plans/safe-plan.md']

test('a hostile config entry is refused by name, the rest restores, nothing is written outside the config folder', (t) => {
  const dir = tempDir('cj-hostile-config-')
  try {
    const arch = join(dir, 'in', 'arch')
    cpSync(join(FIXTURE, 'archive'), arch, { recursive: true })
    const config = join(dir, 'a', 'cfg')
    const before = paths(dir)
    const r = run(['restore', arch, '--all', '--include-config', '--to', join(config, 'projects'), '--json'])
    t.is(r.code, 1, r.stderr)
    t.true(CASES.length >= 12)
    for (const c of CASES)
      t.true(
        r.stderr.includes(
          `${join(arch, c.store, 'session.jsonl.zstd')}: refused: header field source.path ${JSON.stringify(c.path)}`,
        ),
        `${c.name}: ${r.stderr}`,
      )
    const report = JSON.parse(r.stdout)
    t.is(report.failed, CASES.length)
    t.is(report.written, GOOD.length + 1)
    const files = [...tree(config).keys()].sort()
    t.deepEqual(files, [...GOOD, `projects/-home-u-ok/${SAFE}.jsonl`].sort())
    t.deepEqual(
      paths(dir).filter((p) => !(p === 'a' || p.startsWith('a/cfg'))),
      before,
      'nothing created outside the config folder',
    )
    for (const p of ['/tmp/claude-jsonl-hostile-config', '/tmp/claude-jsonl-hostile-config-abs'])
      t.false(existsSync(p), p)

    // a config folder whose todos/ is a link leading out: todos refused, the rest restores
    const linked = join(dir, 'b', 'cfg')
    const outside = join(dir, 'outside')
    mkdirSync(linked, { recursive: true })
    mkdirSync(outside)
    symlinkSync(outside, join(linked, 'todos'))
    const l = run(['restore', arch, '--all', '--include-config', '--to', join(linked, 'projects')])
    t.is(l.code, 1)
    t.regex(l.stderr, /todos: a symbolic link leading out of/)
    t.deepEqual(readdirSync(outside), [])
    t.true(existsSync(join(linked, 'plans', 'safe-plan.md')))
    // a config target inside a .claude folder needs --into-claude-dir (its projects/ is inside too)
    const claude = join(dir, 'c', '.claude', 'projects')
    t.is(run(['restore', arch, '--all', '--include-config', '--to', claude]).code, 2)
    t.false(existsSync(join(dir, 'c')))
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})
