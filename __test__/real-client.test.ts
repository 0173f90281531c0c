// The real Claude Code client (2.1.332, installed from the npm registry into a cache on first
// use) resumes hand-built and real transcripts headless against a mock API on 127.0.0.1; what it
// sends must equal our API view of the same bytes (__test__/helpers/api-view.ts). See
// docs/claude-code-client.md and __test__/helpers/claude-client.ts.
import test from 'ava'
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import native from '../src-ts/native.js'
import { apiView, NO_RESPONSE } from './helpers/api-view.js'
import {
  CLIENT_MODEL,
  CLIENT_VERSION,
  encodeProjectDir,
  ensureClaudeClient,
  PROMPT,
  resumeWithRealClient,
  ResumeResult,
  startMockApi,
} from './helpers/claude-client.js'
import { firstMismatch } from './helpers/api-match.js'
import { FIXTURE_SESSION, fixtures, Transcript } from './helpers/resume-fixtures.js'
import { assertResumesLike } from './helpers/resume-like.js'
import { REAL, tempDir } from './helpers/transcripts.js'
import { conversation } from '../src-ts/index.js'
import { validate } from '../src-ts/read/validate.js'

const CLIENT_TIMEOUT = 180_000

test.before(async () => {
  // The first run downloads ~400 MB: give it time once, here.
  await ensureClaudeClient()
})

/** The uuid of the record the client resumed from: the parent of the first record it appended. */
function resumedFrom(r: ResumeResult): string | undefined {
  return r.appended.find((a) => typeof a.parentUuid === 'string')?.parentUuid
}

function leafUuid(bytes: Buffer): string | undefined {
  const idx = native.scanBuffer(bytes, 'full')
  const chain = native.activeChain(idx)
  return chain.leaf === undefined ? undefined : idx.record(chain.leaf)?.uuid
}

/** Where the client's first appended record must hang: our leaf; but when the client answers a
 * call as interrupted, its result hangs off the record holding the call, which is our leaf or a
 * fragment of our leaf's message (a blank fragment after the call stays the leaf). */
function expectedParent(bytes: Buffer, r: ResumeResult): string | undefined {
  const leaf = leafUuid(bytes)
  const first = r.appended.find((a) => typeof a.parentUuid === 'string')
  const block = Array.isArray(first?.message?.content) ? first.message.content[0] : undefined
  if (first?.type !== 'user' || block?.type !== 'tool_result' || block.is_error !== true) return leaf
  const records = bytes
    .toString('utf8')
    .split('\n')
    .flatMap((l) => {
      try {
        return [JSON.parse(l)]
      } catch {
        return []
      }
    })
  const holder = records.find(
    (x) => Array.isArray(x.message?.content) && x.message.content.some((b: any) => b?.id === block.tool_use_id),
  )
  const leafRecord = records.find((x) => x.uuid === leaf)
  const sameMessage = holder?.uuid === leaf || (holder?.message?.id && holder.message.id === leafRecord?.message?.id)
  return sameMessage ? holder.uuid : leaf
}

const describe = (m: unknown) => JSON.stringify(m)?.slice(0, 600)

/** The client's history equals our view, and its final message is [reminders] + pending + prompt. */
async function resumeAndCompare(
  t: any,
  bytes: Buffer,
  sessionId: string,
  label: string,
  trace = false,
): Promise<ResumeResult> {
  const r = await resumeWithRealClient(bytes, { sessionId, traceConnections: trace })
  t.is(r.exitCode, 0, `${label}: client exit code; stderr: ${r.stderr.slice(0, 500)}`)
  t.truthy(r.history, `${label}: the client sent no conversation request`)
  const view = apiView(bytes, { model: CLIENT_MODEL })
  const k = firstMismatch(r.history ?? [], view.messages)
  t.is(
    k,
    -1,
    `${label}: first differing message ${k} of ${r.history?.length} (ours ${view.messages.length})\n  client: ${describe(r.history?.[k])}\n  ours:   ${describe(view.messages[k])}`,
  )
  const final = r.finalMessage?.content as any[]
  const tail = [...(view.pending ?? []), { type: 'text', text: PROMPT }]
  t.deepEqual(
    final.slice(-tail.length),
    tail,
    `${label}: the client's final message ends with the trailing records and the prompt`,
  )
  t.is(resumedFrom(r), expectedParent(bytes, r), `${label}: the client resumed from the leaf our graph chose`)
  await assertNativeView(t, bytes, r, view.pending !== undefined, label)
  return r
}

const TOOL_REPAIRS = new Set(['tool-use-without-result', 'orphan-tool-result', 'duplicate-tool-result'])

/** The native core's API view (crate/core/src/client) agrees with the client: as many messages (the
 * client's own closing messages left out) and the same tool ids in the same order, results
 * included. Files whose tool pairing the client repairs are compared on the messages only when
 * nothing was repaired. */
async function assertNativeView(t: any, bytes: Buffer, r: ResumeResult, pending: boolean, label: string) {
  const native_ = native.clientView(native.scanBuffer(bytes, 'full'), bytes)
  const text = (m: any) => (Array.isArray(m?.content) ? m.content : [{ type: 'text', text: m?.content }])
  // conversation(), the API built on the native view, read from a file: its blocks must carry
  // the same tool ids.
  const file = join(tempDir('cj-real-conversation-'), 'session.jsonl')
  writeFileSync(file, bytes)
  const typed = (await conversation(file)).messages.map((m) => ({
    toolUseIds: text(m).flatMap((b: any) => (b.type === 'tool_use' ? [b.id] : [])),
    toolResultIds: text(m).flatMap((b: any) => (b.type === 'tool_result' ? [b.tool_use_id] : [])),
  }))
  const repaired = native.validateBuffer(bytes).findings.some((f) => TOOL_REPAIRS.has(f.code))
  if (repaired) return
  const history = [...(r.history ?? [])]
  if (history.at(-1)?.role === 'assistant' && text(history.at(-1))[0]?.text === NO_RESPONSE) history.pop()
  const interrupted = (m: any) =>
    m?.role === 'user' &&
    text(m).every(
      (b: any) =>
        b.type === 'tool_result' && b.is_error === true && String(b.content).startsWith('[Tool call interrupted'),
    )
  if (interrupted(history.at(-1))) history.pop()
  const ids = (ms: any[], role: string, type: string, key: string) =>
    ms
      .filter((m) => m.role === role)
      .flatMap((m) =>
        text(m)
          .filter((b: any) => b?.type === type)
          .map((b: any) => b[key]),
      )
  // Per user message, in order: the client sends the results in the order they were written.
  const perMessage = (xs: string[][]) => xs.filter((x) => x.length > 0)
  for (const [name, view] of [
    ['native view', native_.messages],
    ['conversation()', typed],
  ] as const) {
    t.deepEqual(
      view.flatMap((m) => m.toolUseIds),
      ids(history, 'assistant', 'tool_use', 'id'),
      `${label}: ${name} tool_use ids`,
    )
    t.deepEqual(
      perMessage(view.map((m) => m.toolResultIds)),
      perMessage(history.filter((m) => m.role === 'user').map((m) => ids([m], 'user', 'tool_result', 'tool_use_id'))),
      `${label}: ${name} tool_result ids`,
    )
    t.is(view.length - (pending ? 1 : 0), history.length, `${label}: ${name} message count`)
  }
}

test.serial('the pinned client is installed and answers --version', async (t) => {
  const bin = await ensureClaudeClient()
  t.true(existsSync(bin))
  t.is(CLIENT_VERSION, '2.1.332')
})

test.serial('a resume reaches only the loopback mock', async (t) => {
  t.timeout(CLIENT_TIMEOUT)
  const r = await resumeAndCompare(t, fixtures()[0].bytes, FIXTURE_SESSION, 'linear', true)
  t.true(r.requests.length >= 1)
  t.true(
    r.requests.every((q) => q.url.startsWith('/v1/messages')),
    r.requests.map((q) => q.url).join(', '),
  )
  if (r.foreignConnections === undefined) t.log('strace is not installed: connections were not traced')
  else t.deepEqual(r.foreignConnections, [], 'connect() calls to addresses other than 127.0.0.1')
})

// Each resume has its own HOME and mock: they run side by side (two at a time, see
// resumeWithRealClient).
for (const fx of fixtures()) {
  test(`fixture resumes as our API view: ${fx.name}`, async (t) => {
    t.timeout(CLIENT_TIMEOUT)
    await resumeAndCompare(t, fx.bytes, FIXTURE_SESSION, `${fx.name} (${fx.expect})`)
  })
}

test('the file name is the session: records of another sessionId resume under the name, and validate agrees', async (t) => {
  t.timeout(CLIENT_TIMEOUT)
  const bytes = fixtures()[0].bytes // its records carry FIXTURE_SESSION
  const other = '0e0e0e0e-1111-4222-8333-444455556666'
  t.false(bytes.toString('utf8').includes(other))
  await resumeAndCompare(t, bytes, other, 'a file named after another session')
  const path = join(tempDir('cj-file-name-'), `${other}.jsonl`)
  writeFileSync(path, bytes)
  const v = await validate(path)
  t.true(v.valid, JSON.stringify(v.findings))
  t.true(v.findings.some((f) => f.code === 'file-session-differs' && f.severity === 'warning'))
})

test.serial('fixture expectations from the notes hold in the view', (t) => {
  const texts = (name: string) =>
    JSON.stringify(apiView(fixtures().find((f) => f.name === name)!.bytes, { model: CLIENT_MODEL }).messages)
  t.true(texts('rewound, last-prompt on the main leaf').includes('A3: the build passed'))
  t.false(texts('rewound, last-prompt on the main leaf').includes('U2-alt'))
  t.true(texts('rewound, no last-prompt').includes('A2-alt: docs written'))
  t.true(texts('interior pointer on one branch').endsWith('"No response requested."}]}]'))
  t.false(texts('compact pair + suffix').includes('U1: set up'))
  t.true(texts('compact + preservedSegment').includes('U2: run the build'))
  t.false(texts('compact + preservedSegment').includes('U1: set up'))
  t.false(texts('tool call without a result, then a prompt').includes('toolu_lost'))
  t.false(texts('two last-prompts: the last one wins').includes('U2-alt'))
  t.true(texts('pointer to an unknown uuid').includes('A2-alt: docs written'))
  t.true(
    texts('compact boundary whose history is absent').startsWith(
      '[{"role":"user","content":[{"type":"text","text":"SUMMARY: earlier work in another file.\\n"}',
    ),
  )
  t.false(texts('two compactions: only the last counts').includes('SUMMARY ONE'))
  t.false(texts('thinking written by another model').includes('"thinking"'))
  t.true(texts('a tool result whose call is gone').includes('"content":"(no content)"'))
  t.true(texts('a uuid reused by a later record').includes('A3-DUP'))
  t.false(texts('a uuid reused by a later record').includes('A3: the build passed'))
  t.true(texts('a parent uuid that names no record').includes('U1: set up the project'))
})

/** Claude Code transcripts among the shared real ones (others, e.g. Codex rollouts, have no conversation chain). */
function realClaudeTranscripts(): string[] {
  return readdirSync(REAL)
    .filter((n) => n.endsWith('.jsonl'))
    .sort()
    .filter((n) => native.activeChain(native.scanBuffer(readFileSync(join(REAL, n)), 'full')).indexes.length > 0)
}

if (!existsSync(REAL))
  console.warn(`real transcripts not found at ${REAL}: the real-transcript resume tests are skipped`)
const realNames = existsSync(REAL) ? realClaudeTranscripts() : []
;(existsSync(REAL) ? test : test.skip)('the real transcripts include Claude Code sessions to resume', (t) => {
  t.true(realNames.length >= 8, `found ${realNames.join(', ')}`)
})
for (const name of realNames)
  test(`a real transcript resumes as our API view: ${name}`, async (t) => {
    t.timeout(CLIENT_TIMEOUT)
    const bytes = readFileSync(join(REAL, name))
    const sid = bytes.toString('utf8', 0, 4096).match(/"sessionId":"([0-9a-f-]{36})"/)?.[1] ?? FIXTURE_SESSION
    await resumeAndCompare(t, bytes, sid, name)
  })

test.serial('assertResumesLike accepts summary + exact suffix and rejects a changed suffix', async (t) => {
  t.timeout(CLIENT_TIMEOUT)
  const original = fixtures()[0].bytes
  const compressed = (suffixText: string) =>
    new Transcript()
      .compact('B1', null, 'S1', 'SUMMARY: set up and asked for a build.')
      .call('A2', 'S1', 'toolu_build')
      .result('R2', 'A2', 'toolu_build', 'build ok')
      .text('A3', 'R2', suffixText)
      .lastPrompt('A3')
      .bytes()
  const ok = await assertResumesLike(original, compressed('A3: the build passed'), {
    excludedTexts: ['U1: set up the project'],
  })
  t.is(ok.suffixMessages, 3)
  await t.throwsAsync(assertResumesLike(original, compressed('A3: something else')), {
    message: /differs from the original/,
  })
})

test('the mock answers streamed and plain message requests, counts tokens, 404s the rest and logs all', async (t) => {
  const mock = await startMockApi(10_000)
  try {
    const post = (path: string, body: unknown) =>
      fetch(`${mock.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      })
    const plain = await (await post('/v1/messages', { model: 'm', messages: [] })).json()
    t.like(plain, { role: 'assistant', model: 'm', content: [{ type: 'text', text: 'ok' }], stop_reason: 'end_turn' })
    t.is(typeof plain.usage.input_tokens, 'number')
    const stream = await post('/v1/messages?beta=true', { model: 'm', stream: true, messages: [] })
    t.is(stream.headers.get('content-type'), 'text/event-stream')
    const events = (await stream.text())
      .split('\n')
      .filter((l) => l.startsWith('event: '))
      .map((l) => l.slice(7))
    t.deepEqual(events, [
      'message_start',
      'content_block_start',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ])
    t.deepEqual(await (await post('/v1/messages/count_tokens', { messages: [] })).json(), { input_tokens: 12 })
    t.is((await fetch(`${mock.url}/api/anything`)).status, 404)
    t.deepEqual(
      mock.requests.map((r) => `${r.method} ${r.url}`),
      ['POST /v1/messages', 'POST /v1/messages?beta=true', 'POST /v1/messages/count_tokens', 'GET /api/anything'],
    )
    t.is(mock.requests[0].body.model, 'm')
  } finally {
    await mock.close()
  }
})

test('project folder names are encoded as the client encodes them', (t) => {
  t.is(encodeProjectDir('/tmp/a b/my.proj_x'), '-tmp-a-b-my-proj-x')
  t.is(encodeProjectDir('/tmp/é@x'), '-tmp---x')
  const long = `/tmp/${'a'.repeat(250)}`
  const enc = encodeProjectDir(long)
  t.is(enc.slice(0, 200), long.replace(/[^A-Za-z0-9]/g, '-').slice(0, 200))
  t.regex(enc.slice(200), /^-[0-9a-z]+$/)
})
