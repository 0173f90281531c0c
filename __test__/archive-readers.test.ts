// Every reader over an archive root reads its streams in memory: sessions, find (ranked and
// exact), show, timeline, validate, teleport-id and export of an archive equal the same reader
// over the estate it holds, and no cache folder (no read view) is made; --generation and --as-of
// choose an earlier state; a damaged stream is named and skipped, the others read.
import test from 'ava'
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { cli, sessionOf } from './helpers/live-estate.js'
import { REAL, snapshot, tempDir } from './helpers/transcripts.js'

const SOURCES = ['real-01.jsonl', 'real-05.jsonl', 'real-10.jsonl']

function estate() {
  const root = tempDir('cj-archive-readers-')
  const config = join(root, 'home', '.claude')
  const project = join(config, 'projects', '-tmp-project')
  mkdirSync(project, { recursive: true })
  const past = new Date(Date.now() - 60_000)
  const ids = SOURCES.map((name, i) => {
    const id = sessionOf(readFileSync(join(REAL, name)))
    copyFileSync(join(REAL, name), join(project, `${id}.jsonl`))
    const at = new Date(past.getTime() - i * 3_600_000)
    utimesSync(join(project, `${id}.jsonl`), at, at)
    return id
  })
  const cache = join(root, 'cache')
  mkdirSync(cache)
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    CLAUDE_CONFIG_DIR: config,
    HOME: join(root, 'home'),
    XDG_CACHE_HOME: cache,
  }
  const arch = join(root, 'arch')
  const made = cli(['archive', '--to', arch], env)
  if (made.code !== 0) throw new Error(made.stderr)
  return { root, config, projects: join(config, 'projects'), project, ids, env, cache, arch }
}

/** A report with the estate's and the archive's folder both written ROOT, and timings dropped. */
function same(stdout: string, ...roots: string[]): unknown {
  let text = stdout
  for (const r of roots) text = text.split(r).join('ROOT')
  return JSON.parse(text, (k, v) => (k === 'elapsedMs' || k === 'index' ? undefined : v))
}

/** The reader's JSON over the estate and over its archive, both exit 0. */
function both(t: import('ava').ExecutionContext, e: ReturnType<typeof estate>, args: (where: string) => string[]) {
  const direct = cli(args(e.projects), e.env)
  t.true(direct.code === 0 || (args('')[0] === 'validate' && direct.code === 1), direct.stderr)
  const archived = cli(args(e.arch), e.env)
  t.is(archived.code, direct.code, archived.stderr)
  // nothing more said (no cache is made, no note of one)
  t.is(archived.stderr.split(e.arch).join('ROOT'), direct.stderr.split(e.projects).join('ROOT'))
  return { direct: same(direct.stdout, e.projects), archived: same(archived.stdout, e.arch) }
}

test('sessions, find, show, timeline, validate and teleport-id of an archive equal those of its estate, with no cache', (t) => {
  const e = estate()
  const archived = snapshot(e.arch)
  const readers: ((where: string) => string[])[] = [
    (w) => ['sessions', '--projects', w, '--all', '--json'],
    (w) => ['find', 'the', 'file', '--projects', w, '--no-index', '--json'],
    (w) => ['find', 'the', 'file', '--projects', w, '--tools', '--no-index', '--json'],
    (w) => ['find', '--exact', 'the', '--projects', w, '--json'],
    (w) => ['teleport-id', 'session_01abc', '--projects', w, '--title', 'e', '--json'],
    ...e.ids.flatMap((id) => [
      (w: string) => ['show', id, '--projects', w, '--json', '--tools'],
      (w: string) => ['timeline', id, '--projects', w, '--json'],
      (w: string) => ['validate', id, '--projects', w, '--json'],
    ]),
  ]
  for (const args of readers) {
    const { direct, archived } = both(t, e, args)
    t.deepEqual(archived, direct, args('ARCHIVE').join(' '))
  }
  // a hit's path is where the archive lists the session, and it reads back through show
  const hits = JSON.parse(cli(['find', 'the', '--projects', e.arch, '--no-index', '--json'], e.env).stdout).hits
  t.true(hits.length > 0)
  t.true(hits[0].path.startsWith(join(e.arch, '-tmp-project')))
  t.deepEqual(readdirSync(e.cache), [], 'no cache folder is made')
  t.deepEqual(snapshot(e.arch), archived, 'the archive is unchanged')
})

test('find with its index over an archive: built once, reused, no read view', (t) => {
  const e = estate()
  const first = cli(['find', 'the', 'file', '--projects', e.arch, '--json'], e.env)
  t.is(first.code, 0, first.stderr)
  const again = cli(['find', 'the', 'file', '--projects', e.arch, '--json'], e.env)
  const index = JSON.parse(again.stdout).scope.index
  t.is(index.filesRescanned, 0)
  t.is(index.filesReused, SOURCES.length)
  t.deepEqual(same(again.stdout, e.arch), same(first.stdout, e.arch))
  t.deepEqual(readdirSync(join(e.cache, 'claude-jsonl')), ['find'], 'only the search index, no read view')
})

test('export of an archive equals the export of its estate, with no cache', (t) => {
  const e = estate()
  const tables = (dir: string) => {
    const out: Record<string, string> = {}
    const walk = (d: string, rel: string) => {
      for (const n of readdirSync(d, { withFileTypes: true }))
        if (n.isDirectory()) walk(join(d, n.name), `${rel}${n.name}/`)
        else if (!n.name.endsWith('.json')) out[`${rel}${n.name}`] = readFileSync(join(d, n.name)).toString('base64')
    }
    walk(dir, '')
    return out
  }
  const a = join(e.root, 'out-estate')
  const b = join(e.root, 'out-archive')
  const x = cli(['export', '--projects', e.projects, '--to', a, '--include-text', '--machine', 'm'], e.env)
  t.is(x.code, 0, x.stderr)
  const y = cli(['export', '--projects', e.arch, '--to', b, '--include-text', '--machine', 'm'], e.env)
  t.is(y.code, 0, y.stderr)
  t.deepEqual(tables(b), tables(a))
  t.deepEqual(readdirSync(e.cache), [])
})

test('--generation and --as-of: sessions, show and find read the state they name', (t) => {
  const e = estate()
  const before = {
    sessions: cli(['sessions', '--projects', e.projects, '--all', '--json'], e.env).stdout,
    show: cli(['show', e.ids[0], '--projects', e.projects, '--json'], e.env).stdout,
  }
  const target = join(e.project, `${e.ids[0]}.jsonl`)
  const c = cli(
    [
      'compress',
      target,
      '--in-place',
      '--work-dir',
      join(e.root, 'work'),
      '--confirm-session-closed',
      '--stable-for',
      '0',
    ],
    e.env,
  )
  t.is(c.code, 0, c.stderr)
  t.is(cli(['archive', '--to', e.arch], e.env).code, 0)
  const latest = cli(['show', e.ids[0], '--projects', e.arch, '--json'], e.env)
  t.notDeepEqual(same(latest.stdout, e.arch), same(before.show, e.projects), 'the latest is the compressed one')
  const gen1 = cli(['show', e.ids[0], '--projects', e.arch, '--generation', '1', '--json'], e.env)
  t.is(gen1.code, 0, gen1.stderr)
  t.deepEqual(same(gen1.stdout, e.arch), same(before.show, e.projects))
  const list = JSON.parse(cli(['restore', e.arch, '--list', '--json'], e.env).stdout)
  const g1 = list.sessions.find((s: { sessionId: string }) => s.sessionId === e.ids[0]).generations[0].archivedAt
  const asOf = cli(['sessions', '--projects', e.arch, '--all', '--as-of', g1, '--json'], e.env)
  t.is(asOf.code, 0, asOf.stderr)
  t.deepEqual(same(asOf.stdout, e.arch), same(before.sessions, e.projects))
  const found = cli(['find', '--exact', 'the', '--projects', e.arch, '--generation', '2', '--json'], e.env)
  t.is(found.code, 0, found.stderr)
  t.is(JSON.parse(found.stdout).scope.files, 1, 'generation 2: only the compressed session has one')
  const none = cli(['show', e.ids[1], '--projects', e.arch, '--generation', '2'], e.env)
  t.is(none.code, 3)
  t.deepEqual(readdirSync(e.cache), [])
})

test('a damaged stream: named in a warning and skipped by sessions and find, the others read', (t) => {
  const e = estate()
  const list = JSON.parse(cli(['restore', e.arch, '--list', '--json'], e.env).stdout)
  const bad = list.sessions[0]
  const bytes = readFileSync(bad.storePath)
  bytes[Math.floor(bytes.length / 2)] ^= 0x55
  writeFileSync(bad.storePath, bytes)
  const s = cli(['sessions', '--projects', e.arch, '--all', '--json'], e.env)
  t.is(s.code, 0, s.stderr)
  t.true(s.stderr.includes(bad.storePath), s.stderr)
  const ids = JSON.parse(s.stdout).sessions.map((x: { sessionId: string }) => x.sessionId)
  t.deepEqual(
    ids.sort(),
    list.sessions
      .slice(1)
      .map((x: { sessionId: string }) => x.sessionId)
      .sort(),
  )
  const f = cli(['find', '--exact', 'the', '--projects', e.arch, '--json'], e.env)
  t.is(f.code, 0, f.stderr)
  t.regex(f.stderr, /corrupt archive/)
  const scope = JSON.parse(f.stdout).scope
  t.is(scope.skipped.length, 1)
  t.is(scope.files, SOURCES.length - 1)
  const show = cli(['show', bad.sessionId, '--projects', e.arch], e.env)
  t.is(show.code, 3)
  t.regex(show.stderr, /corrupt archive/)
  t.deepEqual(readdirSync(e.cache), [])
})

test('compress --all and archive refuse an archive root; one archived session compresses to --out', (t) => {
  const e = estate()
  const before = snapshot(e.root)
  const all = cli(['compress', '--all', '--projects', e.arch, '--out-dir', join(e.root, 'o')], e.env)
  t.is(all.code, 3)
  t.regex(all.stderr, /is an archive: compress --all reads an estate/)
  const again = cli(['archive', '--projects', e.arch, '--to', join(e.root, 'a2')], e.env)
  t.is(again.code, 3)
  t.regex(again.stderr, /is an archive: archive reads an estate/)
  t.deepEqual(snapshot(e.root), before, 'nothing written')
  const inPlace = cli(['compress', e.ids[0], '--projects', e.arch, '--in-place', '--confirm-session-closed'], e.env)
  t.not(inPlace.code, 0)
  const out = join(e.root, 'one.jsonl')
  const one = cli(['compress', e.ids[0], '--projects', e.arch, '--out', out], e.env)
  t.is(one.code, 0, one.stderr)
  t.is(cli(['validate', out, '--json'], e.env).code, 0, 'the candidate validates')
  t.deepEqual(readdirSync(e.cache), [])
})

test('cache clean removes the read views earlier versions left; readers make none', (t) => {
  const e = estate()
  const views = join(e.cache, 'claude-jsonl', 'archive-view')
  const old = join(views, '0123456789abcdef')
  mkdirSync(join(old, '-tmp-old'), { recursive: true })
  writeFileSync(join(old, '-tmp-old', 'x.jsonl'), '{}\n')
  t.is(cli(['sessions', '--projects', e.arch, '--all'], e.env).code, 0)
  t.deepEqual(readdirSync(views), ['0123456789abcdef'], 'a reader adds none')
  const listed = JSON.parse(cli(['cache', '--json'], e.env).stdout)
  t.is(listed.views.length, 1)
  const clean = cli(['cache', 'clean'], e.env)
  t.is(clean.code, 0, clean.stderr)
  t.regex(clean.stdout, /^Removed 1 cache, /)
  t.false(existsSync(views))
  t.true(existsSync(e.arch))
})
