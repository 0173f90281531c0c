import test from 'ava'
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { CLI, assistant, userText, writeTree, snapshot } from './helpers/transcripts.js'

function run(args: string[], env: NodeJS.ProcessEnv = {}) {
  const r = spawnSync(process.execPath, [CLI, ...args], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH, HOME: '/nonexistent-home', ...env },
  })
  return { code: r.status, stdout: r.stdout, stderr: r.stderr }
}

const estate = () =>
  writeTree({
    'projects/-home-u-app/s1.jsonl': [
      userText('hi'),
      assistant({ messageId: 'm1', output: 5 }),
      assistant({ messageId: 'm1', output: 80, tool: ['t1', 'Bash'] }),
    ],
  })

test('stats --json on $CLAUDE_CONFIG_DIR prints totals and writes nothing', (t) => {
  const root = estate()
  const before = snapshot(root)
  const r = run(['stats', '--json'], { CLAUDE_CONFIG_DIR: root })
  t.is(r.code, 0, r.stderr)
  t.is(r.stderr, '', 'no progress bar when stderr is not a terminal')
  const j = JSON.parse(r.stdout)
  t.deepEqual(Object.keys(j.totals).slice(0, 6), [
    'requests',
    'inputTokens',
    'cacheCreationInputTokens',
    'cacheReadInputTokens',
    'outputTokens',
    'cacheWrite5mTokens',
  ])
  t.is(j.totals.requests, 1)
  t.is(j.totals.outputTokens, 80)
  t.is(typeof j.totals.costUsd, 'number')
  t.deepEqual(snapshot(root), before)
})

test('stats renders a readable table, --by and --projects work', (t) => {
  const root = estate()
  const r = run(['stats', '--projects', join(root, 'projects'), '--by', 'project'])
  t.is(r.code, 0, r.stderr)
  t.regex(r.stdout, /-home-u-app/)
  t.regex(r.stdout, /Total/)
  t.regex(r.stdout, /Tool calls: Bash 1/)
})

test('bad input: one line on stderr, documented exit code, no stack trace', (t) => {
  const missing = run(['stats', '/nonexistent/projects'])
  t.is(missing.code, 3)
  t.is(missing.stderr, 'claude-jsonl: /nonexistent/projects: no such file or directory\n')
  const noHome = run(['stats'])
  t.is(noHome.code, 3)
  t.regex(
    noHome.stderr,
    /^claude-jsonl: \/nonexistent-home\/\.claude\/projects: no such file or directory \(estate root from ~\/\.claude\)\n$/,
  )
  const prose = writeTree({ 'a.jsonl': 'hello\nworld\n' })
  const notJsonl = run(['stats', join(prose, 'a.jsonl')])
  t.is(notJsonl.code, 3)
  t.regex(notJsonl.stderr, /a\.jsonl: not a JSONL transcript \(line 1 is not valid JSON\)\n$/)
  t.is(notJsonl.stderr.split('\n').length, 2)
  const badFlag = run(['stats', '--bogus'])
  t.is(badFlag.code, 2)
  t.notRegex(badFlag.stderr, /at .*\.js:\d+/)
  t.is(run(['stats', '--by', 'week', '/tmp']).code, 2)
  t.is(run(['doctor', '--by', 'day']).code, 2)
  t.is(run(['frobnicate']).code, 2)
  t.is(run([]).code, 2)
  t.is(run(['--help']).code, 0)
  t.regex(run(['--version']).stdout, /^claude-jsonl \d+\.\d+\.\d+/)
})

test('doctor exits 1 when something is flagged and 0 when clean', (t) => {
  const clean = estate()
  const ok = run(['doctor', clean])
  t.is(ok.code, 0, ok.stdout)
  t.regex(ok.stdout, /No problems flagged/)
  const bad = writeTree({ 's.jsonl': [userText('hi'), '{oops'] })
  const flagged = run(['doctor', '--json', bad])
  t.is(flagged.code, 1)
  t.is(JSON.parse(flagged.stdout).flagged, 1)
})

const hasScript = spawnSync('script', ['--version'], { encoding: 'utf8' }).status === 0
;(hasScript ? test : test.skip)('on a terminal, stats draws a progress bar on stderr and clears it', (t) => {
  const root = writeTree(
    Object.fromEntries(
      Array.from({ length: 40 }, (_, i) => [
        `projects/p/s${i}.jsonl`,
        Array.from({ length: 400 }, (_, j) => assistant({ messageId: `m${i}-${j}`, output: j })),
      ]),
    ),
  )
  // `script` gives the child a pseudo-terminal; stdout goes to a file so only stderr reaches the pty.
  const out = join(root, 'out.json')
  const r = spawnSync(
    'script',
    [
      '-qec',
      `${JSON.stringify(process.execPath)} ${JSON.stringify(CLI)} stats --json --projects ${JSON.stringify(join(root, 'projects'))} > ${JSON.stringify(out)}`,
      '/dev/null',
    ],
    {
      encoding: 'utf8',
    },
  )
  t.is(r.status, 0, r.stdout)
  t.regex(r.stdout, /\d+%/)
  t.regex(r.stdout, /\r\x1b\[2K$/, 'the bar is cleared at the end')
})

test('doctor summarises informational findings unless --verbose', (t) => {
  const lines = (n: number) =>
    Array.from({ length: n }, (_, i) => assistant({ messageId: `m${i}`, output: 1, requestId: null }))
  // Several files whose only finding is informational (no requestId), and one flagged file.
  const root = writeTree({
    'a.jsonl': lines(2),
    'b.jsonl': lines(2),
    'c.jsonl': lines(2),
    'bad.jsonl': [userText('hi'), '{oops'],
  })
  const short = run(['doctor', root])
  t.is(short.code, 1)
  t.regex(short.stdout, /bad\.jsonl\n {2}FLAG bad-json/)
  t.regex(short.stdout, /info missing-request-id in 3 files, e\.g\. /)
  t.notRegex(short.stdout, /b\.jsonl\n/)
  const verbose = run(['doctor', '--verbose', root])
  t.regex(verbose.stdout, /b\.jsonl\n(?: {2}info .*\n)* {2}info missing-request-id: 2 of 2 assistant entries/)
})

test('show and timeline are wired into the CLI and take a session prefix', (t) => {
  const sid = 'c0ffee00-1111-4222-8333-444455556666'
  const root = writeTree({
    [`projects/-home-u-app/${sid}.jsonl`]: [
      userText('please say hello', 'h1'),
      assistant({ messageId: 'm1', output: 9, parent: 'h1' }),
    ],
  })
  const projects = join(root, 'projects')
  const show = run(['show', 'c0ffee', '--projects', projects])
  t.is(show.code, 0, show.stderr)
  t.regex(show.stdout, /please say hello/)
  const tl = run(['timeline', 'c0ffee', '--projects', projects, '--json'])
  t.is(tl.code, 0, tl.stderr)
  t.is(JSON.parse(tl.stdout).turns.length, 1)
  const unknown = run(['show', 'nope', '--projects', projects])
  t.is(unknown.code, 3)
  t.regex(unknown.stderr, /^claude-jsonl: no session matches 'nope' \(searched 1 session under /)
})

test('sessions and teleport-id are wired into the CLI', (t) => {
  const root = writeTree({
    'projects/-home-u-app/4d64fcc3-f878-5f74-b74e-75b4dd3a4f7a.jsonl': [
      userText('from the phone', 'h1'),
      assistant({ messageId: 'm1', output: 3, parent: 'h1' }),
    ],
  })
  const projects = join(root, 'projects')
  const list = run(['sessions', '--projects', projects, '--json'])
  t.is(list.code, 0, list.stderr)
  const s = JSON.parse(list.stdout).sessions[0]
  t.is(s.isV5, true)
  t.is(s.messageCount, 2)
  const tp = run(['teleport-id', 'session_01SJ6FncRfJsipguyykkbvQZ', '--projects', projects])
  t.is(tp.code, 0, tp.stderr)
  t.regex(tp.stdout, /4d64fcc3-f878-5f74-b74e-75b4dd3a4f7a/)
  t.is(run(['teleport-id', 'not-an-id', '--projects', projects]).code, 2)
})

test('find is wired into the CLI and keeps its index out of the estate', (t) => {
  const root = writeTree({
    'projects/-home-u-app/s1.jsonl': [
      userText('how do we rotate the flamingo credentials', 'h1'),
      assistant({ messageId: 'm1', output: 3, parent: 'h1' }),
    ],
    'projects/-home-u-app/s2.jsonl': [userText('unrelated question about lunch', 'h2')],
  })
  const projects = join(root, 'projects')
  const before = snapshot(projects)
  const index = join(root, 'index')
  const r = run(['find', 'flamingo', 'credentials', '--projects', projects, '--index-dir', index, '--json'])
  t.is(r.code, 0, r.stderr)
  const j = JSON.parse(r.stdout)
  t.is(j.hits.length, 1)
  t.regex(j.hits[0].snippet, /flamingo/)
  t.deepEqual(snapshot(projects), before)
  t.is(run(['find', '--projects', projects]).code, 2)
})
