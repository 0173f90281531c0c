// conversation(): the native client view (crate/core/src/client) with each block read from its
// record. Checked against the native view itself (roles, records, tool ids), against the API view
// the real-client tests compare with the pinned client's requests (__test__/helpers/api-view.ts),
// on the real transcripts and the resume fixtures, and on bad input.
import test from 'ava'
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { ClaudeJsonlError, conversation, type Conversation, type ContentBlock } from '../src-ts/index.js'
import native from '../src-ts/native.js'
import { apiView, NO_RESPONSE } from './helpers/api-view.js'
import { fixtures } from './helpers/resume-fixtures.js'
import { REAL, tempDir } from './helpers/transcripts.js'

const blocks = (c: string | ContentBlock[]): ContentBlock[] => (typeof c === 'string' ? [] : c)
const ids = (c: string | ContentBlock[], type: string, key: string) =>
  blocks(c)
    .filter((b) => b.type === type)
    .map((b) => String((b as Record<string, unknown>)[key]))

/** conversation() carries exactly the native view: the same messages, records and tool ids. */
function assertLikeNativeView(t: any, bytes: Buffer, got: Conversation, label: string): void {
  const index = native.scanBuffer(bytes, 'full')
  const view = native.clientView(index, bytes)
  t.is(got.messages.length, view.messages.length, `${label}: message count`)
  got.messages.forEach((m, k) => {
    const v = view.messages[k]
    t.is(m.role, v.role, `${label}: role of message ${k}`)
    t.deepEqual(
      m.records.map((r) => r.line),
      v.records.map((i) => index.record(i)!.line),
      `${label}: records of message ${k}`,
    )
    t.deepEqual(ids(m.content, 'tool_use', 'id'), v.toolUseIds, `${label}: tool_use ids of message ${k}`)
    t.deepEqual(ids(m.content, 'tool_result', 'tool_use_id'), v.toolResultIds, `${label}: results of message ${k}`)
    for (const r of m.records) t.is(bytes[r.offset], 0x7b, `${label}: offset of line ${r.line}`)
  })
  t.is(got.leaf?.uuid, view.leaf === undefined || view.leaf === null ? undefined : index.record(view.leaf)!.uuid)
}

/** The assistant messages are what the client sends, block for block (the API view the
 * real-client tests hold against the pinned client); user messages differ only where the client
 * renders attachments or closes the history itself, which the native view does not model. */
function assertAssistantsLikeClient(t: any, bytes: Buffer, got: Conversation, label: string): void {
  const client = apiView(bytes).messages.filter((m) => m.role === 'assistant')
  const ours = got.messages.filter((m) => m.role === 'assistant')
  // The client closes a history that ends unanswered with its own reply.
  if (client.length === ours.length + 1) t.deepEqual(client.pop()!.content, [{ type: 'text', text: NO_RESPONSE }])
  t.deepEqual(
    ours.map((m) => m.content),
    client.map((m) => m.content),
    `${label}: assistant messages`,
  )
}

const realNames = existsSync(REAL)
  ? readdirSync(REAL)
      .filter((n) => n.endsWith('.jsonl'))
      .sort()
  : []

test('conversation() of each real transcript is the native client view, block for block', async (t) => {
  if (realNames.length === 0) return t.pass(`${REAL} is absent`)
  let messages = 0
  for (const name of realNames) {
    const path = join(REAL, name)
    const bytes = readFileSync(path)
    const got = await conversation(path)
    assertLikeNativeView(t, bytes, got, name)
    assertAssistantsLikeClient(t, bytes, got, name)
    t.false(
      got.problems.some((p) => p.kind === 'changed'),
      name,
    )
    messages += got.messages.length
  }
  t.true(messages > 1000, `${messages} messages in all`)
})

test('conversation() of each resume fixture is the native client view', async (t) => {
  const dir = tempDir('cj-conversation-fx-')
  for (const [k, fx] of fixtures().entries()) {
    const path = join(dir, `${k}.jsonl`)
    writeFileSync(path, fx.bytes)
    const got = await conversation(path)
    assertLikeNativeView(t, fx.bytes, got, fx.name)
    t.deepEqual(got.problems, [], fx.name)
  }
})

test('conversation() keeps lone strings, turns merged strings into text and fills empty user messages', async (t) => {
  const dir = tempDir('cj-conversation-')
  const path = join(dir, 's.jsonl')
  const rec = (o: object) => JSON.stringify({ sessionId: 's', isSidechain: false, ...o })
  const user = (uuid: string, parent: string | null, content: unknown) =>
    rec({ type: 'user', uuid, parentUuid: parent, message: { role: 'user', content } })
  const asst = (uuid: string, parent: string, id: string, content: unknown[]) =>
    rec({ type: 'assistant', uuid, parentUuid: parent, message: { id, role: 'assistant', content } })
  const call = { type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'ls' } }
  const result = { type: 'tool_result', tool_use_id: 'toolu_1', content: 'a\nb' }
  writeFileSync(
    path,
    [
      user('u1', null, 'first prompt'),
      asst('a1', 'u1', 'm1', [{ type: 'thinking', thinking: 'hm', signature: 'c2ln' }]),
      asst('a2', 'a1', 'm1', [{ type: 'text', text: '' }, 'junk', call]),
      'not json',
      user('r1', 'a2', [result]),
      user('u2', 'r1', 'and then'),
      asst('a3', 'u2', 'm2', [{ type: 'text', text: '\n\n' }]),
      asst('a4', 'a3', 'm3', [{ type: 'text', text: 'done' }]),
      user('u3', 'a4', [{ type: 'text', text: '  ' }]),
      asst('a5', 'u3', 'm4', [{ type: 'text', text: 'ok' }]),
    ].join('\n') + '\n',
  )
  const got = await conversation(path)
  t.deepEqual(
    got.messages.map((m) => [m.role, m.content, m.records.map((r) => r.uuid)]),
    [
      ['user', 'first prompt', ['u1']],
      ['assistant', [{ type: 'thinking', thinking: 'hm', signature: 'c2ln' }, call], ['a1', 'a2']],
      // A string record merged with a tool result is a text block of its string; the blank
      // assistant record between it and the next prompt is not sent, so the prompts merge.
      ['user', [result, { type: 'text', text: 'and then' }], ['r1', 'u2']],
      ['assistant', [{ type: 'text', text: 'done' }], ['a4']],
      ['user', [{ type: 'text', text: '(no content)' }], ['u3']],
      ['assistant', [{ type: 'text', text: 'ok' }], ['a5']],
    ],
  )
  t.deepEqual(got.dropped, [{ line: 7, reason: 'blank-text' }])
  t.like(got.leaf, { line: 10, uuid: 'a5' })
  const offset = readFileSync(path, 'utf8').indexOf('not json')
  t.deepEqual(got.problems, [{ kind: 'bad-lines', count: 1, lines: [{ line: 4, offset, reason: 'not-json' }] }])
})

test('conversation() reports bad input as problems, and throws only for a file it cannot read', async (t) => {
  const dir = tempDir('cj-conversation-bad-')
  const empty = join(dir, 'empty.jsonl')
  writeFileSync(empty, '')
  t.deepEqual(await conversation(empty), { messages: [], dropped: [], problems: [{ kind: 'no-conversation' }] })
  const foreign = join(dir, 'foreign.jsonl')
  writeFileSync(foreign, '{"kind":"rollout"}\n[1,2]\n{"type":"user","torn')
  const got = await conversation(foreign)
  t.deepEqual(got.messages, [])
  t.deepEqual(
    got.problems.map((p) => p.kind),
    ['bad-lines', 'torn-tail', 'no-conversation'],
  )
  t.like(got.problems[0], { count: 1, lines: [{ line: 2, reason: 'not-an-object' }] })
  const e = await t.throwsAsync(conversation(join(dir, 'missing.jsonl')))
  t.true(e instanceof ClaudeJsonlError)
  t.is((e as ClaudeJsonlError).exitCode, 3)
  t.regex(e!.message, /missing\.jsonl/)
})

test.serial('conversation() stops with a changed problem when the file changes after the scan', async (t) => {
  const dir = tempDir('cj-conversation-changed-')
  const path = join(dir, 's.jsonl')
  const lines = [
    JSON.stringify({ type: 'user', uuid: 'u1', parentUuid: null, message: { role: 'user', content: 'one' } }),
    JSON.stringify({
      type: 'assistant',
      uuid: 'a1',
      parentUuid: 'u1',
      message: { id: 'm1', role: 'assistant', content: [{ type: 'text', text: 'two' }] },
    }),
    JSON.stringify({ type: 'user', uuid: 'u2', parentUuid: 'a1', message: { role: 'user', content: 'three' } }),
  ]
  const original = native.conversationSpans
  const after = async (change: () => void) => {
    writeFileSync(path, lines.join('\n') + '\n')
    ;(native as { conversationSpans: typeof original }).conversationSpans = async (p: string) => {
      const spans = await original(p)
      change() // between the native scan and the reads
      return spans
    }
    try {
      return await conversation(path)
    } finally {
      ;(native as { conversationSpans: typeof original }).conversationSpans = original
    }
  }
  // Shorter: the messages before the first record that is gone are kept.
  const shorter = await after(() => writeFileSync(path, lines.slice(0, 2).join('\n') + '\n'))
  t.deepEqual(
    shorter.messages.map((m) => m.content),
    ['one', [{ type: 'text', text: 'two' }]],
  )
  t.deepEqual(shorter.problems, [{ kind: 'changed', line: 3 }])
  // Rewritten in place: a line that no longer parses.
  const rewritten = await after(() =>
    writeFileSync(path, lines[0] + '\n' + 'x'.repeat(lines[1].length) + '\n' + lines[2]),
  )
  t.deepEqual(
    rewritten.messages.map((m) => m.content),
    ['one'],
  )
  t.deepEqual(rewritten.problems, [{ kind: 'changed', line: 2 }])
})
