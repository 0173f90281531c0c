import test from 'ava'
import { join } from 'node:path'
import { ClaudeJsonlError } from '../src-ts/errors.js'
import { parseTeleportId, teleportId, teleportUuid, uuid5, TELEPORT_NAMESPACE } from '../src-ts/read/teleport.js'
import { runTeleport } from '../src-ts/cli/teleport-command.js'
import { writeTree } from './helpers/transcripts.js'

// Vectors computed independently with Python's uuid module:
//   python3 -c 'import uuid; print(uuid.uuid5(uuid.NAMESPACE_DNS, "python.org"))'
//   python3 -c 'import uuid; print(uuid.uuid5(uuid.UUID("3ab19d7e-9f35-45c2-926e-75e271cc60b3"),
//                "https://api.anthropic.com/v1/code/sessions/cse_01SJ6FncRfJsipguyykkbvQZ"))'
const PHONE = 'session_01SJ6FncRfJsipguyykkbvQZ'
const PHONE_UUID = '4d64fcc3-f878-5f74-b74e-75b4dd3a4f7a'
const OTHER = 'cse_abc'
const OTHER_UUID = 'f37aa38e-a614-5c10-9a44-9884113d7c08'

const rec = (session: string, content: string, cwd: string) =>
  JSON.stringify({
    type: 'user',
    message: { role: 'user', content },
    cwd,
    sessionId: session,
    entrypoint: 'sdk-cli',
    timestamp: '2026-11-01T10:00:00.000Z',
    uuid: 'a',
  })

test('uuid5 matches RFC 4122 vectors computed with Python', (t) => {
  t.is(uuid5('python.org', '6ba7b810-9dad-11d1-80b4-00c04fd430c8'), '886313e1-3b8a-5372-9b90-0c9aee199e5d')
  t.is(uuid5('https://api.anthropic.com/v1/code/sessions/cse_01SJ6FncRfJsipguyykkbvQZ', TELEPORT_NAMESPACE), PHONE_UUID)
  t.is(teleportUuid(OTHER), OTHER_UUID)
})

test('session_ and cse_ are one id with two prefixes', (t) => {
  t.is(teleportUuid(PHONE), PHONE_UUID)
  t.is(teleportUuid('cse_01SJ6FncRfJsipguyykkbvQZ'), PHONE_UUID)
  t.deepEqual(parseTeleportId('cse_XyZ9'), { body: 'XyZ9', cseId: 'cse_XyZ9', sessionId: 'session_XyZ9' })
})

test('anything but session_<id> or cse_<id> is a usage error (exit 2)', (t) => {
  for (const bad of [
    '',
    'session_',
    'cse_',
    'foo_abc',
    PHONE_UUID,
    'cse_a-b',
    'session_01SJ 6F',
    'https://api.anthropic.com/v1/code/sessions/cse_abc',
  ]) {
    const e = t.throws(() => parseTeleportId(bad), { instanceOf: ClaudeJsonlError }, bad)
    t.is(e!.exitCode, 2)
  }
})

test('finds the local transcript with that uuid, whatever its folder is called', async (t) => {
  const root = writeTree({
    [`projects/-home-u-acme-data-tools/${PHONE_UUID}.jsonl`]: [
      rec(PHONE_UUID, 'fix the importer', '/home/u/acme-data-tools'),
    ],
    [`projects/-home-u-web/${OTHER_UUID.replace('f37', 'e37')}.jsonl`]: [rec('x', 'other', '/home/u/web')],
  })
  const projects = join(root, 'projects')
  for (const input of [PHONE, 'cse_01SJ6FncRfJsipguyykkbvQZ']) {
    const r = teleportId(input, { projects })
    t.is(r.uuid, PHONE_UUID)
    t.is(r.matchedBy, 'uuid')
    t.is(r.transcript!.path, join(projects, '-home-u-acme-data-tools', `${PHONE_UUID}.jsonl`))
    t.is(r.transcript!.cwd, '/home/u/acme-data-tools')
    t.true(r.transcript!.isV5)
  }
  let out = ''
  t.is(await runTeleport([PHONE, '--projects', projects], (s) => void (out += s)), 0)
  t.regex(out, new RegExp(`^${PHONE_UUID} `))
  t.regex(out, /resume: cd "\/home\/u\/acme-data-tools" && claude --resume 4d64fcc3/)
})

test('an id with no local transcript: exit 3 naming what was searched, the uuid still printed', async (t) => {
  const root = writeTree({ [`projects/-home-u-web/${PHONE_UUID}.jsonl`]: [rec(PHONE_UUID, 'x', '/home/u/web')] })
  const projects = join(root, 'projects')
  let out = ''
  const e = await t.throwsAsync(
    runTeleport([OTHER, '--projects', projects], (s) => void (out += s)),
    { instanceOf: ClaudeJsonlError },
  )
  t.is(e!.exitCode, 3)
  t.is(e!.message, `no local transcript has session ${OTHER_UUID} (from cse_abc): searched 1 session under ${projects}`)
  t.regex(out, new RegExp(`^${OTHER_UUID} `))
  t.false(e!.message.includes('\n'))
  const usage = await t.throwsAsync(
    runTeleport(['nope', '--projects', projects], () => {}),
    { instanceOf: ClaudeJsonlError },
  )
  t.is(usage!.exitCode, 2)
  const two = await t.throwsAsync(
    runTeleport([PHONE, OTHER, '--projects', projects], () => {}),
    { instanceOf: ClaudeJsonlError },
  )
  t.is(two!.exitCode, 2)
})

test('--fallback matches the derived title from the logs, --title a given text; v5 sessions first', (t) => {
  const v5 = '11111111-2222-5333-8444-555555555555'
  const v4 = '11111111-2222-4333-8444-555555555555'
  const root = writeTree({
    [`projects/-home-u-app/${v4}.jsonl`]: [
      rec(v4, 'Fix the flaky importer test please', '/home/u/app'),
      JSON.stringify({ type: 'ai-title', aiTitle: 'Importer fixes' }),
    ],
    [`projects/-home-u-app/${v5}.jsonl`]: [rec(v5, 'fix the flaky importer test please', '/home/u/app')],
    [`projects/-home-u-app/${PHONE_UUID.replace('4d6', '0d6')}.jsonl`]: [rec('z', 'unrelated', '/home/u/app')],
    'logs/claude-remote-2026-11-01.log': [
      '[bridge] started',
      '[bridge] derived title for session_abc: fix the flaky importer test…',
      '[bridge] derived title for session_other: something else',
    ],
  })
  const projects = join(root, 'projects')
  const plain = teleportId(OTHER, { projects })
  t.is(plain.fallback, null, 'no title matching unless asked')
  const r = teleportId(OTHER, { projects, fallback: true })
  t.is(r.transcript, null)
  t.is(r.fallback!.from, 'derived-title')
  t.is(r.fallback!.query, 'fix the flaky importer test…')
  t.deepEqual(
    r.fallback!.candidates.map((c) => [c.sessionId, c.matchedOn]),
    [
      [v5, 'first-prompt'],
      [v4, 'first-prompt'],
    ],
  )
  t.deepEqual(r.searched.logs, [join(root, 'logs')])
  const byTitle = teleportId(OTHER, { projects, title: 'IMPORTER fixes' })
  t.deepEqual(
    byTitle.fallback!.candidates.map((c) => [c.sessionId, c.matchedOn]),
    [[v4, 'ai-title']],
  )
  const none = teleportId('cse_nolog', { projects, fallback: true })
  t.deepEqual(none.fallback, { query: '', from: 'derived-title', candidates: [] })
})

test('a bridge transcript is read structurally; disagreement is reported and followed', (t) => {
  const named = '99999999-8888-5777-8666-555555555555'
  const root = writeTree({
    [`projects/-home-u-app/${named}.jsonl`]: [rec(named, 'hi', '/home/u/app')],
    // The first line only quotes a uuid in its output; the record's own session_id is on the second.
    'logs/bridge-transcript-cse_abc.jsonl': [
      JSON.stringify({ type: 'tool_result', output: `"session_id":"${OTHER_UUID}"` }),
      JSON.stringify({ type: 'init', session_id: named }),
      '{"torn',
    ],
    'logs/bridge-transcript-cse_01SJ6FncRfJsipguyykkbvQZ.jsonl': [JSON.stringify({ session_id: PHONE_UUID })],
  })
  const projects = join(root, 'projects')
  const r = teleportId(OTHER, { projects })
  t.deepEqual(r.bridge, {
    path: join(root, 'logs', 'bridge-transcript-cse_abc.jsonl'),
    sessionId: named,
    agrees: false,
  })
  t.is(r.matchedBy, 'bridge-transcript')
  t.is(r.transcript!.sessionId, named)
  const agree = teleportId(PHONE, { projects })
  t.true(agree.bridge!.agrees)
  t.is(agree.transcript, null)
})
