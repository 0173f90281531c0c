// Readers over an archive root read its streams in memory: `stats` and `doctor` of an archive
// equal those of the estate it holds, no cache folder is made, an earlier state reads with
// --as-of / --generation, and bad input (no such generation, a date before the first run) is
// one line, exit 3, nothing written.
import test from 'ava'
import { copyFileSync, existsSync, mkdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { cli, sessionOf } from './helpers/live-estate.js'
import { REAL, snapshot, tempDir } from './helpers/transcripts.js'

const SOURCES = ['real-01.jsonl', 'real-05.jsonl', 'real-10.jsonl']

function estate() {
  const root = tempDir('cj-archive-read-')
  const config = join(root, 'home', '.claude')
  const project = join(config, 'projects', '-tmp-project')
  mkdirSync(project, { recursive: true })
  const past = new Date(Date.now() - 60_000)
  const ids = SOURCES.map((name) => {
    const id = sessionOf(readFileSync(join(REAL, name)))
    copyFileSync(join(REAL, name), join(project, `${id}.jsonl`))
    utimesSync(join(project, `${id}.jsonl`), past, past)
    return id
  })
  const cache = join(root, 'cache')
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    CLAUDE_CONFIG_DIR: config,
    HOME: join(root, 'home'),
    XDG_CACHE_HOME: cache,
  }
  return { root, config, projects: join(config, 'projects'), project, ids, env, cache, arch: join(root, 'arch') }
}

const totals = (stdout: string) => JSON.parse(stdout).totals

test('stats and doctor of an archive equal those of its estate, and write nothing', (t) => {
  const e = estate()
  t.is(cli(['archive', '--to', e.arch], e.env).code, 0)
  const archived = snapshot(e.arch)
  const direct = cli(['stats', '--projects', e.projects, '--json'], e.env)
  const viaArchive = cli(['stats', e.arch, '--json'], e.env)
  t.is(viaArchive.code, 0, viaArchive.stderr)
  t.deepEqual(totals(viaArchive.stdout), totals(direct.stdout))
  t.is(JSON.parse(viaArchive.stdout).scope.files, SOURCES.length)
  const d1 = JSON.parse(cli(['doctor', '--projects', e.projects, '--json'], e.env).stdout)
  const d2 = JSON.parse(cli(['doctor', '--projects', e.arch, '--json'], e.env).stdout)
  const findings = (d: { files: { path: string; findings: unknown[] }[] }) =>
    d.files.map((f) => [f.path.split('/').pop(), f.findings]).sort()
  t.deepEqual(findings(d2), findings(d1))
  t.deepEqual(d2.totals, d1.totals)
  t.false(existsSync(e.cache), 'no cache folder is made')
  t.deepEqual(snapshot(e.arch), archived, 'the archive is unchanged')
})

test('an earlier state: --generation and --as-of read what the archive held then', (t) => {
  const e = estate()
  const first = cli(['stats', '--projects', e.projects, '--json'], e.env)
  t.is(cli(['archive', '--to', e.arch], e.env).code, 0)
  // one session compressed in place (a new generation), then archived again
  const target = join(e.project, `${e.ids[0]}.jsonl`)
  const work = join(e.root, 'work')
  const c = cli(
    ['compress', target, '--in-place', '--work-dir', work, '--confirm-session-closed', '--stable-for', '0'],
    e.env,
  )
  t.is(c.code, 0, c.stderr)
  t.is(cli(['archive', '--to', e.arch], e.env).code, 0)
  const now = cli(['stats', e.arch, '--json'], e.env)
  t.notDeepEqual(totals(now.stdout), totals(first.stdout), 'the compression changed what stats reads')
  const list = JSON.parse(cli(['restore', e.arch, '--list', '--json'], e.env).stdout)
  const g1 = list.sessions.find((s: { sessionId: string }) => s.sessionId === e.ids[0]).generations[0].archivedAt
  const asOf = cli(['stats', e.arch, '--as-of', g1, '--json'], e.env)
  t.is(asOf.code, 0, asOf.stderr)
  t.deepEqual(totals(asOf.stdout), totals(first.stdout))
  // generation 1 of every session that has one: the three originals
  const gen1 = cli(['stats', e.arch, '--generation', '1', '--json'], e.env)
  t.deepEqual(totals(gen1.stdout), totals(first.stdout))
  // generation 2: only the compressed session has one
  const gen2 = JSON.parse(cli(['stats', e.arch, '--generation', '2', '--json'], e.env).stdout)
  t.is(gen2.scope.files, 1)
  t.false(existsSync(e.cache))
})

test('bad input: no such generation, a date before the first run, --as-of without an archive', (t) => {
  const e = estate()
  t.is(cli(['archive', '--to', e.arch], e.env).code, 0)
  const before = snapshot(e.root)
  const noGen = cli(['stats', e.arch, '--generation', '4'], e.env)
  t.is(noGen.code, 3)
  t.regex(
    noGen.stderr,
    /^claude-jsonl: .*arch: no session has generation 4 \(the most any of its 3 sessions has: 1\)\n$/,
  )
  const early = cli(['doctor', e.arch, '--as-of', '2001-01-01'], e.env)
  t.is(early.code, 3)
  t.regex(early.stderr, /^claude-jsonl: 2001-01-01 is before the archive's first run \(\d{4}-.*Z\)\n$/)
  const notDate = cli(['stats', e.arch, '--as-of', 'yesterday-ish'], e.env)
  t.is(notDate.code, 2)
  const plain = cli(['stats', '--projects', e.projects, '--as-of', '2026-01-01'], e.env)
  t.is(plain.code, 2)
  t.regex(plain.stderr, /--generation and --as-of read an archive/)
  t.deepEqual(snapshot(e.root), before, 'nothing written')
})

test('a damaged stream is named on stderr and left out; the rest is read', (t) => {
  const e = estate()
  t.is(cli(['archive', '--to', e.arch], e.env).code, 0)
  const list = JSON.parse(cli(['restore', e.arch, '--list', '--json'], e.env).stdout)
  const store = list.sessions[0].storePath
  const bytes = readFileSync(store)
  bytes[Math.floor(bytes.length / 2)] ^= 0x55
  writeFileSync(store, bytes)
  const r = cli(['stats', e.arch, '--json'], e.env)
  t.is(r.code, 0, r.stderr)
  t.true(r.stderr.includes(store), r.stderr)
  t.regex(r.stderr, /corrupt archive/)
  const scope = JSON.parse(r.stdout).scope
  t.is(scope.skipped.length, 1)
  t.false(existsSync(e.cache))
})
