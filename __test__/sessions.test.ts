import test from 'ava'
import { statSync, utimesSync } from 'node:fs'
import { join } from 'node:path'
import { ClaudeJsonlError } from '../src-ts/errors.js'
import { listSessions, WHOLE_BYTES } from '../src-ts/read/sessions.js'
import { runSessions } from '../src-ts/cli/sessions-command.js'
import { assistant, writeTree } from './helpers/transcripts.js'

const id = (n: number, version = 4) =>
  `${String(n).padStart(8, '0')}-aaaa-${version}bbb-8ccc-${String(n).padStart(12, '0')}`

interface RecOpts {
  cwd?: string
  ts?: string
  session?: string
  entrypoint?: string
  version?: string
}

function human(text: string, o: RecOpts = {}): string {
  return JSON.stringify({
    parentUuid: null,
    isSidechain: false,
    userType: 'external',
    cwd: o.cwd ?? '/home/u/app',
    sessionId: o.session ?? 's',
    version: o.version ?? '2.1.140',
    entrypoint: o.entrypoint ?? 'cli',
    type: 'user',
    message: { role: 'user', content: text },
    uuid: `u-${Math.random()}`,
    timestamp: o.ts ?? '2026-03-01T10:00:00.000Z',
    permissionMode: 'default',
  })
}
const reply = (ts = '2026-03-01T10:00:05.000Z') =>
  assistant({ messageId: `m-${Math.random()}`, output: 5, timestamp: ts })
const meta = (text: string) =>
  JSON.stringify({
    type: 'user',
    isMeta: true,
    message: { role: 'user', content: [{ type: 'text', text }] },
    uuid: 'meta',
    timestamp: '2026-03-01T09:59:00.000Z',
    cwd: '/home/u/app',
  })
const aiTitle = (t: string) => JSON.stringify({ type: 'ai-title', aiTitle: t, sessionId: 's' })
const customTitle = (t: string) => JSON.stringify({ type: 'custom-title', customTitle: t, sessionId: 's' })
const summary = (t: string) => JSON.stringify({ type: 'summary', summary: t, leafUuid: 'x' })

test('titles: custom-title, then the LAST ai-title, then summary, then the first human prompt (cut to 80 characters)', async (t) => {
  const long = 'please ' + 'refactor the importer '.repeat(10)
  const root = writeTree({
    [`p/-home-u-app/${id(1)}.jsonl`]: [
      human('first prompt'),
      aiTitle('Early title'),
      customTitle('my name'),
      reply(),
      aiTitle('Later title'),
    ],
    [`p/-home-u-app/${id(2)}.jsonl`]: [human('first prompt'), aiTitle('Early title'), reply(), aiTitle('Later title')],
    [`p/-home-u-app/${id(3)}.jsonl`]: [summary('Legacy summary'), human('first prompt'), reply()],
    [`p/-home-u-app/${id(4)}.jsonl`]: [
      meta('<system-reminder>injected</system-reminder>'),
      human('<command-name>/clear</command-name>'),
      human(long),
      reply(),
    ],
  })
  const r = await listSessions({ projects: join(root, 'p'), recent: Infinity })
  const by = new Map(r.sessions.map((s) => [s.sessionId, s]))
  t.deepEqual([by.get(id(1))!.title, by.get(id(1))!.titleSource], ['my name', 'custom-title'])
  t.deepEqual([by.get(id(2))!.title, by.get(id(2))!.titleSource], ['Later title', 'ai-title'])
  t.deepEqual([by.get(id(3))!.title, by.get(id(3))!.titleSource], ['Legacy summary', 'summary'])
  const p = by.get(id(4))!
  t.is(p.titleSource, 'first-prompt')
  t.true(p.title!.startsWith('please refactor the importer'))
  t.is(p.title!.length, 80)
  t.true(p.title!.endsWith('…'))
})

test('cwd comes from the records, never from the lossy folder name; --project matches the cwd', async (t) => {
  const root = writeTree({
    // '/home/u/acme-data-tools' and '/home/u/acme/data/tools' both encode to this folder name.
    [`p/-home-u-acme-data-tools/${id(1)}.jsonl`]: [human('a', { cwd: '/home/u/acme-data-tools' }), reply()],
    [`p/-home-u-acme-data-tools/${id(2)}.jsonl`]: [human('b', { cwd: '/home/u/acme-data-tools/sub' }), reply()],
    [`p/-home-u-web/${id(3)}.jsonl`]: [human('c', { cwd: '/home/u/web' }), reply()],
    [`p/-home-u-nocwd/${id(4)}.jsonl`]: [aiTitle('no cwd anywhere')],
  })
  const projects = join(root, 'p')
  const all = await listSessions({ projects, recent: Infinity })
  t.is(all.sessions.find((s) => s.sessionId === id(1))!.cwd, '/home/u/acme-data-tools')
  t.is(all.sessions.find((s) => s.sessionId === id(4))!.cwd, null)
  const ids = async (project: string) =>
    (await listSessions({ projects, recent: Infinity, project })).sessions.map((s) => s.sessionId).sort()
  t.deepEqual(await ids('/home/u/acme-data-tools'), [id(1), id(2)], 'the path and what lies inside it')
  t.deepEqual(await ids('/home/u/acme/data/tools'), [], 'same folder name, different cwd: no match')
  t.deepEqual(await ids('/home/u'), [id(1), id(2), id(3)])
  t.deepEqual(await ids('-home-u-acme-data-tools'), [id(1), id(2)], 'a folder name matches that folder')
  t.deepEqual(await ids('/home/u/nocwd'), [id(4)], 'no cwd in the records: the folder name encoded forward')
})

test('subagent transcripts are counted against their session, never listed', async (t) => {
  const agentLine = (session: string) =>
    JSON.stringify({
      type: 'assistant',
      isSidechain: true,
      sessionId: session,
      agentId: 'old',
      message: { role: 'assistant', content: [] },
      timestamp: '2026-03-01T10:00:00.000Z',
    })
  const root = writeTree({
    [`p/-home-u-app/${id(1)}.jsonl`]: [human('parent'), reply()],
    [`p/-home-u-app/${id(1)}/subagents/agent-a1.jsonl`]: [agentLine(id(1))],
    [`p/-home-u-app/${id(1)}/subagents/agent-a2.jsonl`]: [agentLine(id(1)), agentLine(id(1))],
    [`p/-home-u-app/agent-0ld1.jsonl`]: [agentLine(id(1))],
    [`p/-home-u-app/${id(2)}.jsonl`]: [human('other'), reply()],
  })
  const r = await listSessions({ projects: join(root, 'p'), recent: Infinity })
  t.deepEqual(r.sessions.map((s) => s.sessionId).sort(), [id(1), id(2)])
  t.is(r.scope.subagentFiles, 3)
  const s = r.sessions.find((x) => x.sessionId === id(1))!
  t.is(s.subagentCount, 3)
  const dir = join(root, 'p', '-home-u-app')
  const sizes = [
    join(dir, id(1), 'subagents', 'agent-a1.jsonl'),
    join(dir, id(1), 'subagents', 'agent-a2.jsonl'),
    join(dir, 'agent-0ld1.jsonl'),
  ].map((f) => statSync(f).size)
  t.is(s.subagentSize, sizes[0] + sizes[1] + sizes[2])
  t.is(s.size, statSync(join(dir, `${id(1)}.jsonl`)).size)
  t.is(r.sessions.find((x) => x.sessionId === id(2))!.subagentCount, 0)
})

test('version-5 uuids are marked; entrypoint, version and an exact message count are read', async (t) => {
  const progress = JSON.stringify({
    type: 'progress',
    data: { message: { type: 'assistant', message: { role: 'assistant', content: [] } } },
    timestamp: '2026-03-01T10:00:01.000Z',
  })
  const root = writeTree({
    [`p/-home-u-app/${id(1, 5)}.jsonl`]: [
      human('from the phone', { entrypoint: 'sdk-cli', version: '2.1.250' }),
      progress,
      reply(),
      reply(),
    ],
    [`p/-home-u-app/${id(2, 4)}.jsonl`]: [human('at the desk'), reply()],
  })
  const r = await listSessions({ projects: join(root, 'p'), recent: Infinity })
  const v5 = r.sessions.find((s) => s.sessionId === id(1, 5))!
  t.true(v5.isV5)
  t.is(v5.entrypoint, 'sdk-cli')
  t.is(v5.version, '2.1.250')
  t.is(v5.messageCount, 3, 'user + assistant records; a progress record quoting a message is not one')
  t.true(v5.messageCountExact)
  t.false(r.sessions.find((s) => s.sessionId === id(2, 4))!.isV5)
})

test('sorted by last activity; --recent, --since and --today filter by local day; no timestamp falls back to mtime', async (t) => {
  const root = writeTree({
    [`p/-home-u-app/${id(1)}.jsonl`]: [human('old', { ts: '2026-03-01T10:00:00.000Z' })],
    [`p/-home-u-app/${id(2)}.jsonl`]: [human('mid', { ts: '2026-03-05T10:00:00.000Z' })],
    [`p/-home-u-app/${id(3)}.jsonl`]: [human('new', { ts: '2026-03-09T23:30:00.000Z' })],
    [`p/-home-u-app/${id(4)}.jsonl`]: [aiTitle('no timestamps')],
  })
  const projects = join(root, 'p')
  const untimed = join(projects, '-home-u-app', `${id(4)}.jsonl`)
  utimesSync(untimed, new Date('2026-03-07T12:00:00Z'), new Date('2026-03-07T12:00:00Z'))
  const now = Date.parse('2026-03-09T23:45:00Z')
  const base = { projects, timezone: 'UTC', now }
  const all = await listSessions({ ...base, recent: Infinity })
  t.deepEqual(
    all.sessions.map((s) => s.sessionId),
    [id(3), id(4), id(2), id(1)],
  )
  const m = all.sessions[1]
  t.deepEqual([m.lastActivity, m.lastActivityFrom], ['2026-03-07T12:00:00.000Z', 'mtime'])
  t.is(all.sessions[0].lastActivityFrom, 'record')
  t.deepEqual(
    (await listSessions({ ...base, recent: 2 })).sessions.map((s) => s.sessionId),
    [id(3), id(4)],
  )
  t.deepEqual(
    (await listSessions({ ...base, since: '20260305' })).sessions.map((s) => s.sessionId),
    [id(3), id(4), id(2)],
  )
  t.deepEqual(
    (await listSessions({ ...base, today: true })).sessions.map((s) => s.sessionId),
    [id(3)],
  )
  // 23:30 UTC on the 9th is already the 10th in Tokyo.
  t.deepEqual(
    (await listSessions({ ...base, timezone: 'Asia/Tokyo', since: '2026-03-10' })).sessions.map((s) => s.sessionId),
    [id(3)],
  )
  await t.throwsAsync(listSessions({ ...base, since: '2026-02-30' }), {
    instanceOf: ClaudeJsonlError,
    message: /no such date/,
  })
})

test('a large transcript is chosen from its head and tail; a corrupt and a torn line in the tail are skipped', async (t) => {
  const filler = Array.from(
    { length: 1000 },
    (_, i) => assistant({ messageId: `f${i}`, output: 1, timestamp: '2026-03-02T00:00:00.000Z' }) + ' '.repeat(2000),
  )
  const lines = [
    human('the opening prompt', { ts: '2026-03-02T00:00:00.000Z' }),
    ...filler,
    aiTitle('Title near the end'),
    assistant({ messageId: 'last', output: 1, timestamp: '2026-03-04T08:00:00.000Z' }),
    '{"type":"user","message":{"content":"unterminated}}',
    'not json at all',
  ]
  const root = writeTree({
    [`p/-home-u-app/${id(1)}.jsonl`]: lines.join('\n') + '\n{"type":"assistant","timestamp":"2026-03-05T00:0',
  })
  const projects = join(root, 'p')
  const size = statSync(join(projects, '-home-u-app', `${id(1)}.jsonl`)).size
  t.true(size > WHOLE_BYTES + 100_000)
  const r = await listSessions({ projects })
  const s = r.sessions[0]
  t.is(s.lastActivity, '2026-03-04T08:00:00.000Z', 'the last whole record with a timestamp')
  t.is(s.title, 'Title near the end')
  t.is(s.cwd, '/home/u/app')
  // Read in part for the listing, then counted exactly by one native pass over the listed files.
  t.true(s.messageCountExact)
  t.is(s.messageCount, 1002)
  // Head and tail to choose it, then the whole file once for the exact count, and no more.
  t.true(r.scope.bytesRead <= size + WHOLE_BYTES, `read ${r.scope.bytesRead} of ${size} bytes`)
})

test('--recent stops reading once older files cannot make the list', async (t) => {
  const files: Record<string, string[]> = {}
  for (let i = 1; i <= 40; i++)
    files[`p/-home-u-app/${id(i)}.jsonl`] = [human(`s${i}`, { ts: new Date(Date.UTC(2026, 0, i)).toISOString() })]
  const root = writeTree(files)
  const projects = join(root, 'p')
  for (let i = 1; i <= 40; i++) {
    const when = new Date(Date.UTC(2026, 0, i, 0, 0, 5))
    utimesSync(join(projects, '-home-u-app', `${id(i)}.jsonl`), when, when)
  }
  const r = await listSessions({ projects, recent: 3 })
  t.deepEqual(
    r.sessions.map((s) => s.sessionId),
    [id(40), id(39), id(38)],
  )
  t.true(r.scope.filesRead < 40, `read ${r.scope.filesRead} of 40`)
  t.is(r.scope.sessions, 40)
})

test('runSessions: table by default, --json on request, bad flags are usage errors (exit 2)', async (t) => {
  const root = writeTree({
    [`p/-home-u-app/${id(1, 5)}.jsonl`]: [human('hello there', { entrypoint: 'sdk-cli' }), reply()],
  })
  const projects = join(root, 'p')
  let out = ''
  t.is(await runSessions(['--projects', projects, '--timezone', 'UTC'], (s) => void (out += s)), 0)
  t.regex(out, /1 of 1 session/)
  t.regex(out, new RegExp(`2026-03-01 10:00 +${id(1, 5)} v5 +hello there +/home/u/app`))
  t.regex(out, /v5: spawned programmatically/)
  out = ''
  await runSessions(['--projects', projects, '--json'], (s) => void (out += s))
  const j = JSON.parse(out)
  t.is(j.sessions[0].sessionId, id(1, 5))
  t.is(j.sessions[0].messageCount, 2)
  for (const bad of [
    ['--recent', '0'],
    ['--recent', 'x'],
    ['--bogus'],
    ['--since', 'yesterday'],
    ['--all', '--recent', '3'],
    ['--timezone', 'Mars/Base'],
  ]) {
    const e = await t.throwsAsync(
      runSessions(['--projects', projects, ...bad], () => {}),
      { instanceOf: ClaudeJsonlError },
    )
    t.is(e!.exitCode, 2, bad.join(' '))
  }
  const missing = await t.throwsAsync(
    runSessions(['--projects', join(root, 'nope')], () => {}),
    { instanceOf: ClaudeJsonlError },
  )
  t.is(missing!.exitCode, 3)
})

test('sessions that are not listed are never read whole', async (t) => {
  const filler = Array.from(
    { length: 600 },
    (_, i) => assistant({ messageId: `g${i}`, output: 1, timestamp: '2026-03-02T00:00:00.000Z' }) + ' '.repeat(2000),
  )
  const big = (day: string) => [
    human('hello', { ts: `${day}T00:00:00.000Z` }),
    ...filler,
    assistant({ messageId: `end${day}`, output: 1, timestamp: `${day}T09:00:00.000Z` }),
  ]
  const root = writeTree({
    [`p/-home-u-app/${id(1)}.jsonl`]: big('2026-03-01'),
    [`p/-home-u-app/${id(2)}.jsonl`]: big('2026-03-03'),
  })
  const projects = join(root, 'p')
  const sizes = [1, 2].map((n) => statSync(join(projects, '-home-u-app', `${id(n)}.jsonl`)).size)
  const r = await listSessions({ projects, recent: 1 })
  t.is(r.sessions.length, 1)
  t.true(r.sessions[0].messageCountExact)
  t.is(r.sessions[0].messageCount, 602)
  t.true(r.scope.bytesRead < sizes[0] + sizes[1], `read ${r.scope.bytesRead} of ${sizes[0] + sizes[1]} bytes`)
})
