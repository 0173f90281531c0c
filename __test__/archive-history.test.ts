// The archive as a history: archive an estate, compress it in place, archive again; `restore
// --list` shows both generations of each session (the second our compressed candidate), and
// `restore --generation 1` brings back each original byte for byte (equal to its `.backup`),
// which the real client resumes exactly as it resumes the original.
import test from 'ava'
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, utimesSync } from 'node:fs'
import { join } from 'node:path'
import { ensureClaudeClient, resumeWithRealClient } from './helpers/claude-client.js'
import { slowSerial } from './helpers/tiers.js'
import { cli, sessionOf } from './helpers/live-estate.js'
import { REAL, tempDir } from './helpers/transcripts.js'

const SOURCES = ['real-01.jsonl', 'real-05.jsonl', 'real-10.jsonl']

function estate() {
  const root = tempDir('cj-history-')
  const config = join(root, 'home', '.claude')
  const project = join(config, 'projects', '-tmp-project')
  mkdirSync(project, { recursive: true })
  const past = new Date(Date.now() - 60_000)
  const sessions = SOURCES.map((name) => {
    const id = sessionOf(readFileSync(join(REAL, name)))
    const target = join(project, `${id}.jsonl`)
    copyFileSync(join(REAL, name), target)
    utimesSync(target, past, past)
    return { id, target }
  })
  const env: NodeJS.ProcessEnv = { ...process.env, CLAUDE_CONFIG_DIR: config, HOME: join(root, 'home') }
  return { root, config, projects: join(config, 'projects'), project, sessions, env }
}

test.serial(
  'archive, compress in place, archive again: --list shows both generations; --generation 1 restores each original, equal to its .backup',
  async (t) => {
    const e = estate()
    const arch = join(e.root, 'arch')
    t.is(cli(['archive', '--to', arch], e.env).code, 0)
    const before = new Date().toISOString()
    const c = cli(
      [
        'compress',
        '--all',
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
    const compressed = e.sessions.filter((s) => existsSync(`${s.target}.backup`))
    t.true(compressed.length >= 2, `compressed in place: ${readdirSync(e.project).join(', ')}`)
    const a = cli(['archive', '--to', arch], e.env)
    t.is(a.code, 0, a.stderr)
    t.regex(a.stdout, new RegExp(`${compressed.length} rewritten \\(new generation\\)`))
    // the list: two generations each, the second our compressed candidate replacing the first
    const l = cli(['restore', arch, '--list', '--json'], e.env)
    t.is(l.code, 0, l.stderr)
    const listed = JSON.parse(l.stdout).sessions as any[]
    for (const s of compressed) {
      const h = listed.find((x) => x.sessionId === s.id)
      t.deepEqual(
        h.generations.map((g: any) => [g.generation, g.compressed, g.replaced, g.bytes]),
        [
          [1, false, null, readFileSync(`${s.target}.backup`).length],
          [2, true, 1, readFileSync(s.target).length],
        ],
      )
      t.true(h.generations[0].archivedAt < before && h.generations[1].archivedAt >= before, 'the runs are dated')
      t.false(h.deleted)
    }
    const text = cli(['restore', arch, '--list', compressed[0].id.slice(0, 8)], e.env)
    t.regex(text.stdout, /compressed candidate \(ours\), replaced 1/)
    // every session's first generation back, byte for byte its .backup
    const out = join(e.root, 'out')
    const ids = compressed.map((s) => s.id)
    const r = cli(['restore', arch, ...ids, '--to', out, '--generation', '1', '--json'], e.env)
    t.is(r.code, 0, r.stderr)
    for (const s of compressed)
      t.true(readFileSync(join(out, '-tmp-project', `${s.id}.jsonl`)).equals(readFileSync(`${s.target}.backup`)), s.id)
    // --as-of a time between the two runs: the same originals
    const asOf = join(e.root, 'as-of')
    const r2 = cli(['restore', arch, '--all', '--to', asOf, '--as-of', before], e.env)
    t.is(r2.code, 0, r2.stderr)
    for (const s of compressed)
      t.true(readFileSync(join(asOf, '-tmp-project', `${s.id}.jsonl`)).equals(readFileSync(`${s.target}.backup`)), s.id)
    // bad input: one line per session naming what exists, exit 3, nothing written
    const bad = join(e.root, 'bad')
    const g9 = cli(['restore', arch, ids[0], '--to', bad, '--generation', '9'], e.env)
    t.is(g9.code, 3)
    t.regex(g9.stderr, new RegExp(`session ${ids[0]}: no generation 9 \\(it has generations 1 to 2\\)`))
    const early = cli(['restore', arch, ids[0], '--to', bad, '--as-of', '2001-01-01'], e.env)
    t.is(early.code, 3)
    t.regex(early.stderr, new RegExp(`session ${ids[0]}: 2001-01-01 is before its first archive run`))
    t.is(cli(['restore', arch, ids[0], '--to', bad, '--as-of', 'soon'], e.env).code, 2)
    t.false(existsSync(bad), 'nothing written')
    // a session deleted from the estate is marked
    const gone = compressed[0]
    for (const f of [gone.target, `${gone.target}.backup`]) copyFileSync(f, `${f}.moved`)
    await import('node:fs').then((fs) => fs.rmSync(gone.target))
    const l2 = JSON.parse(cli(['restore', arch, '--list', '--json'], e.env).stdout).sessions as any[]
    t.true(l2.find((x) => x.sessionId === gone.id).deleted)
    t.regex(cli(['restore', arch, '--list', gone.id], e.env).stdout, /\(deleted from the estate\)/)
  },
)

slowSerial('the restored original resumes in the real client exactly as the original does', async (t) => {
  await ensureClaudeClient()
  const e = estate()
  const arch = join(e.root, 'arch')
  t.is(cli(['archive', '--to', arch], e.env).code, 0)
  const s = e.sessions[0]
  const c = cli(
    [
      'compress',
      s.target,
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
  t.is(cli(['archive', '--to', arch], e.env).code, 0)
  const out = join(e.root, 'out')
  t.is(cli(['restore', arch, s.id, '--to', out, '--generation', '1'], e.env).code, 0)
  const restored = readFileSync(join(out, '-tmp-project', `${s.id}.jsonl`))
  const original = readFileSync(join(REAL, SOURCES[0]))
  t.true(restored.equals(original))
  const a = await resumeWithRealClient(original, { sessionId: s.id })
  const b = await resumeWithRealClient(restored, { sessionId: s.id })
  t.truthy(a.history, a.stderr)
  t.deepEqual(b.history, a.history)
  // the final message differs only in the client's own reminders (paths of each run's temp home)
  const tail = (m: any) =>
    (Array.isArray(m?.content) ? m.content : [m?.content]).filter(
      (x: any) => !(typeof x?.text === 'string' && x.text.startsWith('<system-reminder>')),
    )
  t.deepEqual(tail(b.finalMessage), tail(a.finalMessage))
})
