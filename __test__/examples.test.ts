// The scripts in examples/ run as a user would run them (they import 'claude-jsonl', the package's
// own name) against a small estate, and print what they promise.
import test from 'ava'
import { spawnSync } from 'node:child_process'
import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { REPO, writeTree } from './helpers/transcripts.js'

const S1 = '11111111-1111-4111-8111-111111111111'
const S2 = '22222222-2222-4222-8222-222222222222'

function session(id: string, day: string, tool: { name: string; input: Record<string, unknown> }, text: string) {
  const base = { isSidechain: false, sessionId: id, cwd: '/home/u/app', version: '2.1.143' }
  return [
    JSON.stringify({
      ...base,
      type: 'user',
      uuid: `${id}-h`,
      parentUuid: null,
      timestamp: `${day}T10:00:00.000Z`,
      message: { role: 'user', content: text },
    }),
    JSON.stringify({
      ...base,
      type: 'assistant',
      uuid: `${id}-a`,
      parentUuid: `${id}-h`,
      timestamp: `${day}T10:00:05.000Z`,
      requestId: `req-${id}`,
      message: {
        id: `msg-${id}`,
        type: 'message',
        role: 'assistant',
        model: 'claude-sonnet-4-5-20250929',
        content: [
          { type: 'text', text: `**Sure**, working on _${text}_` },
          { type: 'tool_use', id: `tool-${id}`, name: tool.name, input: tool.input },
        ],
        stop_reason: 'tool_use',
        usage: { input_tokens: 10, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 20 },
      },
    }),
  ]
}

const estate = () =>
  join(
    writeTree({
      [`projects/-home-u-app/${S1}.jsonl`]: session(
        S1,
        '2026-03-01',
        { name: 'Edit', input: { file_path: '/home/u/app/src/app.ts', old_string: 'a', new_string: 'b' } },
        'fix the app',
      ),
      [`projects/-home-u-app/${S2}.jsonl`]: session(
        S2,
        '2026-03-02',
        { name: 'Bash', input: { command: 'npm test\n' } },
        'run the tests',
      ),
    }),
    'projects',
  )

function run(script: string, args: string[]) {
  const r = spawnSync(process.execPath, [join(REPO, 'examples', script), ...args], {
    cwd: REPO,
    encoding: 'utf8',
    env: { PATH: process.env.PATH, HOME: '/nonexistent-home', TZ: 'UTC' },
  })
  return { code: r.status, stdout: r.stdout, stderr: r.stderr }
}

test('every example has a test below', (t) => {
  t.deepEqual(readdirSync(join(REPO, 'examples')).sort(), [
    'conversation-to-markdown.mjs',
    'costliest-requests.mjs',
    'daily-cost-csv.mjs',
    'last-session-tool-calls.mjs',
    'resume-payload.mjs',
    'sessions-that-edited.mjs',
  ])
})

test('daily-cost-csv: one row per day', (t) => {
  const r = run('daily-cost-csv.mjs', [estate()])
  t.is(r.code, 0, r.stderr)
  const rows = r.stdout.trim().split('\n')
  t.is(rows[0], 'day,requests,input,cache_write,cache_read,output,cost_usd')
  t.deepEqual(
    rows.slice(1).map((l) => l.split(',').slice(0, 2)),
    [
      ['2026-03-01', '1'],
      ['2026-03-02', '1'],
    ],
  )
  t.true(rows.slice(1).every((l) => Number(l.split(',')[6]) > 0))
})

test('sessions-that-edited: only the session that edited the file', (t) => {
  const r = run('sessions-that-edited.mjs', ['src/app.ts', estate()])
  t.is(r.code, 0, r.stderr)
  t.regex(r.stdout, new RegExp(`${S1}  1 edit`))
  t.notRegex(r.stdout, new RegExp(S2))
  t.is(run('sessions-that-edited.mjs', []).code, 2)
})

test('conversation-to-markdown: the turns as Markdown', (t) => {
  const r = run('conversation-to-markdown.mjs', [S1.slice(0, 8), estate()])
  t.is(r.code, 0, r.stderr)
  t.regex(r.stdout, /fix the app/)
  t.regex(r.stdout, /\*\*Sure\*\*/)
})

test('last-session-tool-calls: the newest session and its calls', (t) => {
  const r = run('last-session-tool-calls.mjs', [estate()])
  t.is(r.code, 0, r.stderr)
  const [head, call] = r.stdout.trim().split('\n')
  t.true(head.startsWith(S2))
  t.regex(call, /2026-03-02T10:00:05.000Z {2}Bash {2}npm test$/)
})

test('resume-payload: the messages the client would send', (t) => {
  const r = run('resume-payload.mjs', [S1.slice(0, 8), estate()])
  t.is(r.code, 0, r.stderr)
  const lines = r.stdout.trimEnd().split('\n')
  t.regex(lines[0], /^ {3}1 {2}user {7}string {2}\d+ chars {2}lines 1$/)
  t.regex(lines[1], /^ {3}2 {2}assistant {2}text,tool_use {2}\d+ chars {2}lines 2$/)
  t.regex(lines[2], /^2 messages, \d+ characters of content, resumed from line 2$/)
  t.is(run('resume-payload.mjs', []).code, 2)
})

test('costliest-requests: requests by cost, and the total', (t) => {
  const r = run('costliest-requests.mjs', [estate(), '--top', '1'])
  t.is(r.code, 0, r.stderr)
  const lines = r.stdout.trim().split('\n')
  t.is(lines.length, 2)
  t.regex(lines[0], /^\$\d+\.\d{4} {2}2026-03-0\dT10:00:05.000Z {2}claude-sonnet-4-5-20250929 {2}in 10 out 20 /)
  t.regex(lines[1], /^2 requests, \$\d+\.\d\d in all$/)
})
