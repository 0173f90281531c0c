// The command line as a new user meets it: driven through the built CLI, one test per rule.
import test from 'ava'
import { spawnSync } from 'node:child_process'
import { readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { COMMANDS } from '../src-ts/cli/registry.js'
import { CLI, REPO, tempDir, writeTree } from './helpers/transcripts.js'

function run(args: string[], env: NodeJS.ProcessEnv = {}) {
  const r = spawnSync(process.execPath, [CLI, ...args], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH, HOME: '/nonexistent-home', COLUMNS: '80', ...env },
  })
  return { code: r.status, stdout: r.stdout, stderr: r.stderr }
}

/** A session of `turns` prompt/answer pairs, each record linked to the one before. */
function conversation(sessionId: string, turns: number, day = '2026-03-01'): string[] {
  const out: string[] = []
  let parent: string | null = null
  for (let i = 0; i < turns; i++) {
    const ts = `${day}T10:${String(i).padStart(2, '0')}:00.000Z`
    const h = `${sessionId.slice(0, 8)}-h${i}`
    const a = `${sessionId.slice(0, 8)}-a${i}`
    const text = `question ${i} about the flamingo parser `.repeat(20)
    out.push(
      JSON.stringify({
        type: 'user',
        uuid: h,
        parentUuid: parent,
        sessionId,
        timestamp: ts,
        cwd: '/home/u/app',
        isSidechain: false,
        message: { role: 'user', content: text },
      }),
    )
    out.push(
      JSON.stringify({
        type: 'assistant',
        uuid: a,
        parentUuid: h,
        sessionId,
        timestamp: ts,
        cwd: '/home/u/app',
        isSidechain: false,
        requestId: `req_${a}`,
        message: {
          id: `msg_${a}`,
          type: 'message',
          role: 'assistant',
          model: 'claude-sonnet-4-5-20250929',
          content: [{ type: 'text', text: `answer ${i}: `.repeat(40) }],
          stop_reason: 'end_turn',
          usage: { input_tokens: 3, cache_creation_input_tokens: 10, cache_read_input_tokens: 100, output_tokens: 50 },
        },
      }),
    )
    parent = a
  }
  return out
}

const SID = 'c0ffee00-1111-4222-8333-444455556666'
const OTHER = 'beef0000-1111-4222-8333-444455556666'

/** Extra arguments a one-session command needs to run at all (an output file...). */
function extraArgs(name: string, dir: string): string[] {
  if (name === 'compress') return ['--out', join(dir, 'c.jsonl'), '--force']
  if (name === 'pack') return ['--out', join(dir, 'p.md'), '--force']
  if (name === 'repair-read-pages') return ['--out', join(dir, 'r.jsonl'), '--force']
  if (name === 'repair') return ['--out', join(dir, 'fixed.jsonl'), '--force']
  return []
}

test('every command that takes one SESSION takes a path, a uuid and a unique prefix alike', async (t) => {
  const root = writeTree({
    [`projects/-home-u-app/${SID}.jsonl`]: conversation(SID, 30),
    [`projects/-home-u-app/${OTHER}.jsonl`]: conversation(OTHER, 2),
  })
  const projects = join(root, 'projects')
  const path = join(projects, '-home-u-app', `${SID}.jsonl`)
  const out = tempDir()
  const oneSession = []
  for (const entry of COMMANDS) {
    const { command } = await entry.load()
    if (command.args.startsWith('SESSION')) oneSession.push(command.name)
  }
  // The commands known today; one added later is walked too.
  for (const name of ['show', 'timeline', 'validate', 'plan', 'compress', 'repair-read-pages', 'pack'])
    t.true(oneSession.includes(name), name)
  for (const name of oneSession) {
    const results = [path, SID, 'c0ff'].map((ref) => run([name, ref, '--projects', projects, ...extraArgs(name, out)]))
    for (const r of results) {
      t.notRegex(r.stderr, /no such file|no session matches|unknown option/, `${name}: ${r.stderr}`)
      t.not(r.code, 2, `${name}: ${r.stderr}`)
      t.not(r.code, 3, `${name}: ${r.stderr}`)
    }
    t.is(results[1].code, results[0].code, name)
    t.is(results[2].code, results[0].code, name)
    t.is(results[1].stdout, results[0].stdout, name)
    t.is(results[2].stdout, results[0].stdout, name)
  }
})

test('a file named on the command line that is no transcript is refused alike; a walked folder skips it and says so', (t) => {
  const root = writeTree({
    [`projects/-home-u-app/${SID}.jsonl`]: conversation(SID, 3),
    'projects/-home-u-app/notes.jsonl': 'root:x:0:0:root:/root:/bin/bash\n',
    'passwd.txt': 'root:x:0:0:root:/root:/bin/bash\n',
    'img.png': '\x89PNG\r\n\x1a\n\0\0\0\rIHDR',
  })
  const text = join(root, 'passwd.txt')
  const png = join(root, 'img.png')
  const out = tempDir()
  const refusals = [
    ['sessions', text],
    ['stats', text],
    ['doctor', text],
    ['archive', '--to', join(out, 'archive'), text],
    ['find', 'root', '--projects', text, '--no-index'],
    ['show', text],
    ['validate', text],
    ['plan', text],
    ['repair-read-pages', png, '--scope', 'all', '--out', join(out, 'r.jsonl')],
  ]
  for (const args of refusals) {
    const r = run(args)
    t.is(r.code, 3, `${args.join(' ')}: ${r.stdout}${r.stderr}`)
    t.regex(r.stderr, /^claude-jsonl: \S+: not a JSONL transcript \(line 1 is not valid JSON\)\n$/, args.join(' '))
  }
  const walked = run(['sessions', join(root, 'projects')])
  t.is(walked.code, 0, walked.stderr)
  t.regex(
    walked.stdout,
    /^1 of 1 session \(1 transcript read, .*\)\nskipped 1 file that is not a transcript: .*notes\.jsonl\n/,
  )
  // The native walkers of find and archive leave it out too, and say so.
  const projects = join(root, 'projects')
  const skippedLine = /skipped \S+notes\.jsonl: not a JSONL transcript \(line 1 is not valid JSON\)/
  for (const index of [['--index-dir', join(out, 'idx')], ['--no-index']]) {
    const found = run(['find', 'root', '--projects', projects, ...index])
    t.regex(found.stdout, /^Searched 1 session \(1 file,/, index.join(' '))
    t.regex(found.stdout, skippedLine, index.join(' '))
    t.regex(found.stdout, /No session holds any of the terms/, 'the file is not searched')
  }
  const exact = run(['find', '--exact', 'root:x', '--projects', projects, '--json'])
  const scope = JSON.parse(exact.stdout).scope
  t.is(scope.files, 1)
  t.deepEqual(
    scope.skipped.map((k: { path: string }) => k.path),
    [join(projects, '-home-u-app', 'notes.jsonl')],
  )
  const archived = run(['archive', '--to', join(out, 'walked'), '--projects', projects])
  t.is(archived.code, 0, archived.stderr)
  t.regex(archived.stdout, /^Archived 1 transcript into .*: 1 new, 0 unchanged, 1 file left out \(not a transcript\)/)
  t.regex(archived.stderr, /left out: \S+notes\.jsonl: not a JSONL transcript/)
})

test('batch text output names each skipped session and its reason, and where backups and the work dir are', (t) => {
  const config = tempDir()
  const projects = join(config, 'projects')
  const sessions: Record<string, string[] | string> = {
    [`projects/-home-u-app/${SID}.jsonl`]: conversation(SID, 80),
    [`projects/-home-u-app/${OTHER}.jsonl`]: 'not json at all\n',
  }
  for (let i = 0; i < 3; i++) {
    const id = `aaaa000${i}-1111-4222-8333-444455556666`
    sessions[`projects/-home-u-app/${id}.jsonl`] = conversation(id, 1)
  }
  writeTree(sessions, config)
  const work = tempDir()
  const args = ['compress', '--all', '--in-place', '--work-dir', work, '--confirm-session-closed', '--stable-for', '0']
  const r = run([...args, '--projects', projects], { CLAUDE_CONFIG_DIR: config })
  t.is(r.code, 0, r.stderr)
  t.regex(
    r.stdout,
    new RegExp(`^skipped \\S+${OTHER}\\.jsonl: not a JSONL transcript \\(line 1 is not valid JSON\\)$`, 'm'),
  )
  t.regex(r.stdout, /^skipped \S+aaaa0000-\S+\.jsonl: .+$/m)
  t.regex(r.stdout, new RegExp(`^backups: beside each replaced session .*; work dir .*: ${work}$`, 'm'))
  // A re-run reports the estate as it is now: the compressed session at its new size.
  const again = run([...args, '--projects', projects, '--json'], { CLAUDE_CONFIG_DIR: config })
  const entry = JSON.parse(again.stdout).sessions.find((s: { session: string }) => s.session === SID)
  t.is(entry.reason, 'unchanged')
  t.regex(r.stdout, /^compressed +1 /m)
  t.is(entry.bytesBefore, statSync(join(projects, '-home-u-app', `${SID}.jsonl`)).size)
  // Folded past the limit unless --verbose.
  const few = run([
    'compress',
    '--all',
    '--dry-run',
    '--out-dir',
    tempDir(),
    '--projects',
    projects,
    '--min-bytes',
    '999999',
  ])
  t.is(few.code, 0, few.stderr)
  t.is((few.stdout.match(/^skipped /gm) ?? []).length, 5)
})

test('options that cannot work are refused once, before any session is touched', (t) => {
  const root = writeTree({
    [`p/-home-u-app/${SID}.jsonl`]: conversation(SID, 30),
    [`p/-home-u-app/${OTHER}.jsonl`]: conversation(OTHER, 30),
    afile: 'x',
  })
  const outside = run([
    'compress',
    '--all',
    '--in-place',
    '--work-dir',
    tempDir(),
    '--confirm-session-closed',
    '--projects',
    join(root, 'p'),
  ])
  t.is(outside.code, 2)
  t.regex(outside.stderr, /^claude-jsonl: compress --all --in-place: \S+ is not under a Claude projects folder .*\n$/)
  const file = run(['compress', '--all', '--out-dir', join(root, 'afile'), '--projects', join(root, 'p')])
  t.is(file.code, 2)
  t.is(file.stderr, `claude-jsonl: --out-dir ${join(root, 'afile')}: is a file, not a folder\n`)
})

test('compress --all --older-than selects by the last record, like sessions, not by the file time', (t) => {
  // Fresh files (just written: a copied estate) whose records are from long ago.
  const root = writeTree({
    [`p/-home-u-app/${SID}.jsonl`]: conversation(SID, 30, '2020-01-01'),
    [`p/-home-u-app/${OTHER}.jsonl`]: conversation(OTHER, 30, new Date().toISOString().slice(0, 10)),
  })
  const r = run([
    'compress',
    '--all',
    '--dry-run',
    '--out-dir',
    tempDir(),
    '--projects',
    join(root, 'p'),
    '--older-than',
    '200d',
    '--json',
  ])
  t.is(r.code, 0, r.stderr)
  t.deepEqual(
    JSON.parse(r.stdout).sessions.map((s: { session: string }) => s.session),
    [SID],
  )
  const listed = JSON.parse(run(['sessions', '--projects', join(root, 'p'), '--json']).stdout).sessions
  t.is(listed.at(-1).sessionId, SID)
  t.is(listed.at(-1).lastActivityFrom, 'record')
})

test('usage errors are worded by us: unknown options, values that look like options, empty values', (t) => {
  const cases: [string[], string][] = [
    [['stats', '--bogus'], 'stats: unknown option --bogus (see claude-jsonl stats --help)'],
    [['show', 'x', '--last', '-1'], "show: --last takes a number of turns, not '-1'"],
    [
      ['find', '--exact', '-p', 'x'],
      "find: --exact -p: a value that starts with '-' is written joined, --exact=-p (see claude-jsonl find --help)",
    ],
    [
      ['stats', '--projects', ''],
      'stats: --projects needs a value, not an empty string (see claude-jsonl stats --help)',
    ],
    [['stats', '--projects'], 'stats: --projects needs a value (DIR) (see claude-jsonl stats --help)'],
    [['stats', '--json=yes'], 'stats: --json takes no value (see claude-jsonl stats --help)'],
  ]
  for (const [args, message] of cases) {
    const r = run(args)
    t.is(r.code, 2, args.join(' '))
    t.is(r.stderr, `claude-jsonl: ${message}\n`)
    t.notRegex(r.stderr, /ambiguous|To specify|Unknown option/)
  }
  const dir = tempDir()
  for (const args of [
    ['validate', dir],
    ['plan', dir],
    ['show', dir],
  ]) {
    const r = run(args)
    t.is(r.code, 3)
    t.is(r.stderr, `claude-jsonl: ${dir}: is a folder, not a transcript file\n`, args[0])
  }
})

test('counts read in the singular for one; show --out says what it wrote; tables fit a terminal', (t) => {
  const root = writeTree({ [`p/-home-u-app/${SID}.jsonl`]: conversation(SID, 1) })
  const projects = join(root, 'p')
  const exact = run(['find', '--exact', 'flamingo parser', '--projects', projects])
  t.regex(exact.stdout, /^Searched 1 session \(1 file, /m)
  t.regex(exact.stdout, /: \d+ matches in 1 file, 1 session$/m)
  const archived = run(['archive', '--to', join(tempDir(), 'a'), '--projects', projects])
  t.regex(archived.stdout, /^Archived 1 transcript into /m)
  const out = join(tempDir(), 'page.html')
  const shown = run(['show', SID, '--projects', projects, '--format', 'html', '--out', out])
  t.is(shown.code, 0, shown.stderr)
  t.regex(shown.stdout, new RegExp(`^show: wrote ${out}: html, 1 turn of \\S+${SID}\\.jsonl, [\\d.]+ kB\\n$`))
  // A long title is cut on a terminal, whole on a pipe and with --wide.
  const long = writeTree({
    [`p/-home-u-app/${SID}.jsonl`]: [
      JSON.stringify({ type: 'custom-title', customTitle: 'a very long title '.repeat(8), sessionId: SID }),
      ...conversation(SID, 1),
    ],
  })
  const piped = run(['sessions', '--projects', join(long, 'p')])
  t.regex(piped.stdout, /a very long title a very long title a very long title/)
  const hasScript = spawnSync('script', ['--version']).status === 0
  if (!hasScript) return t.log('no `script`: the terminal case is not run')
  const onTty = (extra: string) =>
    spawnSync(
      'script',
      ['-qec', `COLUMNS=100 ${process.execPath} ${CLI} sessions --projects ${join(long, 'p')} ${extra}`, '/dev/null'],
      {
        encoding: 'utf8',
      },
    ).stdout
  const cut = onTty('')
  t.regex(cut, /a very long…/)
  t.true(
    Math.max(...cut.split(/\r?\n/).map((l) => l.length)) < Math.max(...piped.stdout.split('\n').map((l) => l.length)),
  )
  t.regex(onTty('--wide'), /a very long title a very long title a very long title/)
})

test('find --index-dir naming a file is an error; an API error names the API option', async (t) => {
  const root = writeTree({ [`p/-home-u-app/${SID}.jsonl`]: conversation(SID, 1), afile: 'x' })
  const r = run(['find', 'flamingo', '--projects', join(root, 'p'), '--index-dir', join(root, 'afile')])
  t.is(r.code, 2)
  t.is(r.stderr, `claude-jsonl: --index-dir ${join(root, 'afile')}: is a file, not a folder\n`)
  const { stats } = await import('../src-ts/index.js')
  const e = await t.throwsAsync(stats({ paths: [join(root, 'p')], by: 'week' as 'day' }))
  t.is(e!.message, "by expects day, session, project or model, got 'week'")
})

test('docs work as written: the find --exact example, README paths, teleport-id --title finds a title sessions shows', (t) => {
  const root = writeTree({
    [`p/-home-u-app/${SID}.jsonl`]: [
      JSON.stringify({ type: 'summary', summary: 'Untangling the heron migration', leafUuid: 'x' }),
      ...conversation(SID, 1),
    ],
  })
  const projects = join(root, 'p')
  const find = readFileSync(join(REPO, 'docs', 'commands', 'find.md'), 'utf8')
  const example = /`(--exact='-p x')`/.exec(find)
  t.truthy(example, 'find.md shows the joined form of a TEXT starting with -')
  const r = run(['find', '--exact=-p x', '--projects', projects])
  t.is(r.code, 0, r.stderr)
  // A package user has no ../shared folder: README examples use ~/.claude/projects paths.
  t.notRegex(readFileSync(join(REPO, 'README.md'), 'utf8'), /\.\.\/shared\//)
  const listed = JSON.parse(run(['sessions', '--projects', projects, '--json']).stdout).sessions[0]
  t.is(listed.title, 'Untangling the heron migration')
  const tp = run([
    'teleport-id',
    'session_01SJ6FncRfJsipguyykkbvQZ',
    '--title',
    'heron migration',
    '--projects',
    projects,
    '--json',
  ])
  t.is(tp.code, 0, tp.stderr)
  const c = JSON.parse(tp.stdout).fallback.candidates
  t.is(c.length, 1)
  t.like(c[0], { sessionId: SID, matchedOn: 'summary', title: listed.title })
})

test('stats --since: the entries line counts the days shown only', (t) => {
  // Day 1: two entries of one request; day 2: three requests of one entry each.
  const root = writeTree({
    [`p/-home-u-app/${SID}.jsonl`]: [
      ...conversation(SID, 1, '2026-03-01')
        .map((l, i) => (i === 1 ? [l, l.replace('"output_tokens":50', '"output_tokens":60')] : [l]))
        .flat(),
      ...conversation(OTHER, 3, '2026-03-05'),
    ],
  })
  const all = run(['stats', join(root, 'p'), '--timezone', 'UTC'])
  t.regex(all.stdout, /^Entries: 5 assistant entries deduplicated to 4 requests; /m)
  const late = run(['stats', join(root, 'p'), '--since', '2026-03-04', '--timezone', 'UTC'])
  t.is(late.code, 0, late.stderr)
  t.regex(late.stdout, /^Entries on the days shown: 3 assistant entries deduplicated to 3 requests$/m)
})
