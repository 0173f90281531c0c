import { mock } from 'node:test'
import test from 'ava'
import { spawn } from 'node:child_process'
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  statSync,
  truncateSync,
  utimesSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Store, escapeSessionId, unescapeSessionId, type Compression, type StoredEvent } from '../src-ts/store/store.js'
import native from '../src-ts/native.js'
import { SESSION, expectedEvent } from './helpers/store-writer.js'

const WRITER = join(dirname(fileURLToPath(import.meta.url)), 'helpers', 'store-writer.js')
const tmp = () => mkdtempSync(join(tmpdir(), 'cj-store-'))
const ev = (seq: number, text = `event ${seq}`): StoredEvent => ({ seq, type: 'user/text', time: seq, data: { text } })
const range = (from: number, n: number) => Array.from({ length: n }, (_, i) => ev(from + i))
const META = { id: 'S-1', cwd: '/home/u/my repo', createdAt: '2026-11-30T00:00:00.000Z' }

for (const compression of ['zstd', 'none'] as Compression[]) {
  test(`round trip (${compression}): nothing on disk before the first append, then every event back`, async (t) => {
    const root = join(tmp(), 'root')
    const a = new Store({ root, compression, writeBatchMaxDelayMs: 5 })
    const header = await a.create(META)
    const { path } = a.locate(META)
    t.false(existsSync(root), 'create writes nothing')
    t.is(await a.readStoredRevision(META.id), undefined)
    t.deepEqual(await a.list(), [])
    await a.append(META.id, range(0, 3))
    t.true(existsSync(path))
    t.true(path.endsWith(compression === 'zstd' ? 'session.jsonl.zstd' : 'session.jsonl'))
    t.is(dirname(path), join(root, '---home-u-my-repo--', escapeSessionId(META.id)))
    await Promise.all([a.append(META.id, range(3, 2)), a.append(META.id, [ev(5, 'ünïcode ✓')])])
    await a.dispose()

    const b = new Store({ root, compression })
    const loaded = await b.load(META.id)
    t.deepEqual(loaded.header, header)
    t.deepEqual(loaded.events, [...range(0, 5), ev(5, 'ünïcode ✓')])
    t.false(loaded.tornTail)
    await b.append(META.id, [ev(6)])
    await b.dispose()
    const list = await new Store({ root, compression }).list()
    t.deepEqual(
      list.map((s) => [s.id, s.cwd, s.path]),
      [[META.id, META.cwd, path]],
    )
    if (compression === 'none') {
      const lines = readFileSync(path, 'utf8')
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l))
      t.is(lines[0].type, 'session')
      t.is(lines.length, 8)
    }
  })
}

test('session ids escape injectively into one safe folder name', (t) => {
  const ids = ['a', 'A', '.', '..', 'a/b', 'a%2Fb', '%', 'ü', 'x y', 'abc-123_z', '%41']
  const names = ids.map(escapeSessionId)
  t.is(new Set(names).size, ids.length)
  t.is(new Set(names.map((n) => n.toLowerCase())).size, ids.length, 'distinct on case-insensitive file systems too')
  for (const [i, n] of names.entries()) {
    t.regex(n, /^[a-z0-9_%A-F-]+$/)
    t.is(unescapeSessionId(n), ids[i])
  }
  t.throws(() => escapeSessionId(''))
})

test('append refuses a seq that does not continue the log, and data that is not JSON', async (t) => {
  const s = new Store({ root: join(tmp(), 'r'), writeBatchMaxDelayMs: 1 })
  await s.create(META)
  await t.throwsAsync(s.append(META.id, [ev(1)]), { message: /user\/text has seq 1, expected 0/ })
  await t.throwsAsync(s.append(META.id, [ev(0), ev(2)]), { message: /seq 2, expected 1/ })
  await t.throwsAsync(s.append(META.id, [{ seq: 0, type: 'tool/result', data: { n: 1n } }]), {
    message: /tool\/result: data is not JSON-serialisable/,
  })
  await s.append(META.id, [ev(0)])
  await s.dispose()
  await t.throwsAsync(s.append(META.id, [ev(1)]), { message: 'store: disposed' })
})

// Serial: ava runs serial tests before the concurrent ones, so the simulated clock affects no other test.
test.serial('the batching window is fixed: later events join the batch without extending it', async (t) => {
  // Timers and the clock are simulated, so the check does not depend on the machine's load.
  const root = join(tmp(), 'r')
  const s = new Store({ root, writeBatchMaxDelayMs: 600 })
  await s.create(META)
  mock.timers.enable({ apis: ['setTimeout', 'Date'], now: Date.now() })
  try {
    let done = 0
    const first = s.append(META.id, [ev(0)]).then(() => done++)
    mock.timers.tick(300)
    const second = s.append(META.id, [ev(1)]).then(() => done++)
    mock.timers.tick(299)
    await new Promise((r) => setImmediate(r))
    t.is(done, 0, 'nothing is written before the window ends')
    // 600 ms after the first event: a window extended by the second would end at 900 ms.
    mock.timers.tick(1)
    await Promise.all([first, second])
    t.is(done, 2)
  } finally {
    mock.timers.reset()
  }
  const loaded = await native.storeLoad(s.locate(META).path, 'zstd', false)
  t.is(loaded.frames, 2, 'header frame + one batch frame')
  // flush bypasses the window: no timer needs to fire.
  const third = s.append(META.id, [ev(2)])
  await s.flush()
  await third
  t.is((await native.storeLoad(s.locate(META).path, 'zstd', false)).frames, 3)
  await s.dispose()
})

test('a failed write rolls the file back to its previous length; the log continues', async (t) => {
  const root = join(tmp(), 'r')
  let fail = false
  const s = new Store({
    root,
    writeBatchMaxDelayMs: 1,
    faults: {
      afterWrite: () => {
        if (fail) throw new Error('injected EIO')
      },
    },
  })
  await s.create(META)
  await s.append(META.id, range(0, 2))
  const path = s.locate(META).path
  const size = statSync(path).size
  fail = true
  await t.throwsAsync(s.append(META.id, range(2, 3)), {
    message: new RegExp(`${path}: write failed, rolled back to ${size} bytes`),
  })
  t.is(statSync(path).size, size)
  fail = false
  await s.append(META.id, range(2, 1))
  await s.dispose()
  t.deepEqual((await new Store({ root }).inspect(META.id)).events, range(0, 3))
})

test('one writer per session: a second store gets an error naming the file', async (t) => {
  const root = join(tmp(), 'r')
  const a = new Store({ root, writeBatchMaxDelayMs: 1 })
  await a.create(META)
  await a.append(META.id, range(0, 1))
  const path = a.locate(META).path
  const b = new Store({ root })
  await t.throwsAsync(b.load(META.id), {
    message: `${path}: another writer holds this session (one writer per session)`,
  })
  await t.throwsAsync(b.create(META), { message: `${path}: session already exists` })
  await t.throwsAsync(b.create({ ...META, cwd: '/elsewhere' }), {
    message: `${path}: session ${META.id} already exists (under another cwd)`,
  })
  t.is((await b.inspect(META.id)).events.length, 1, 'readers are not blocked')
  await a.dispose()
  await b.load(META.id)
  await b.append(META.id, [ev(1)])
  await b.dispose()
})

test('a session folder left without a transcript (crash before the first publish) counts as absent', async (t) => {
  const root = join(tmp(), 'r')
  const s = new Store({ root, writeBatchMaxDelayMs: 1 })
  mkdirSync(dirname(s.locate(META).path), { recursive: true })
  writeFileSync(join(dirname(s.locate(META).path), '.session.jsonl.tmp-1-abcd'), 'partial')
  await t.throwsAsync(s.load(META.id), { message: /no such stored session/ })
  t.is(await s.readStoredRevision(META.id), undefined)
  t.deepEqual(await s.list(), [])
  await s.create(META)
  await s.append(META.id, [ev(0)])
  await s.dispose()
  t.is((await new Store({ root }).list()).length, 1)
})

test('a same-id publish race never clobbers: the loser gets an error naming the file', async (t) => {
  const root = join(tmp(), 'r')
  const a = new Store({ root, writeBatchMaxDelayMs: 1 })
  const b = new Store({ root, writeBatchMaxDelayMs: 1 })
  await a.create(META)
  await b.create(META)
  await a.append(META.id, [ev(0, 'from a')])
  await t.throwsAsync(b.append(META.id, [ev(0, 'from b')]), { message: /session already exists \(not overwritten\)/ })
  await a.dispose()
  await b.dispose()
  t.deepEqual((await new Store({ root }).inspect(META.id)).events, [ev(0, 'from a')])
})

async function stored(compression: Compression, batches = 3) {
  const root = join(tmp(), 'r')
  const s = new Store({ root, compression, writeBatchMaxDelayMs: 1 })
  await s.create(META)
  for (let i = 0; i < batches; i++) await s.append(META.id, range(i * 4, 4))
  await s.dispose()
  return { root, path: s.locate(META).path }
}

test('inspect never mutates; load cuts a torn tail and keeps its whole records', async (t) => {
  const { root, path } = await stored('zstd')
  const full = readFileSync(path)
  truncateSync(path, full.length - 5)
  const s = new Store({ root })
  const before = await s.readStoredRevision(META.id)
  const view = await s.inspect(META.id)
  t.true(view.tornTail)
  t.true(Object.isFrozen(view.events))
  t.is(statSync(path).size, full.length - 5)
  t.is(await s.readStoredRevision(META.id), before)
  const loaded = await s.load(META.id)
  t.true(loaded.tornTail)
  t.deepEqual(loaded.events, view.events)
  t.true(loaded.events.length >= 8)
  t.not(loaded.revision, before)
  await s.append(META.id, [ev(loaded.events.length)])
  await s.dispose()
  const again = await new Store({ root }).inspect(META.id)
  t.false(again.tornTail)
  t.is(again.events.length, loaded.events.length + 1)
})

/** A store file's bytes: the header line, the records (one batch), then a torn tail (part of
 * one more batch). */
async function storeBytes(compression: Compression, header: object, records: object[]): Promise<Buffer> {
  const enc = (lines: object[]) =>
    native.storeEncodeBatchAsync(Buffer.from(lines.map((l) => JSON.stringify(l) + '\n').join('')), compression)
  const more = await enc([ev(records.length), ev(records.length + 1)])
  return Buffer.concat([await enc([header]), await enc(records), more.subarray(0, more.length - 7)])
}

const HEADER = { type: 'session', version: 0, ...META, delegationDepth: 0 }

// Each way a stored file can fail an identity or format check, with a torn tail that load would
// otherwise repair: the file under the path it is loaded from, and what the error says.
const REFUSALS: { name: string; id?: string; header?: object; records?: object[]; flip?: boolean; error: RegExp }[] = [
  { name: "another session's file", id: 'S-2', error: /header id "S-1" is not the requested session S-2/ },
  {
    name: 'a header whose cwd places it elsewhere',
    header: { ...HEADER, cwd: '/elsewhere' },
    error: /header id\/cwd place this session at/,
  },
  { name: 'another format version', header: { ...HEADER, version: 1 }, error: /unsupported session format version 1/ },
  {
    name: 'a first line that is not a header',
    header: { type: 'user/text', seq: 0 },
    error: /the first line is not a session header/,
  },
  {
    name: 'a bad delegationDepth',
    header: { ...HEADER, delegationDepth: -1 },
    error: /delegationDepth is missing or invalid/,
  },
  { name: 'a bad seedLength', header: { ...HEADER, seedLength: 1.5 }, error: /header seedLength is invalid/ },
  { name: 'a record out of seq', records: [ev(0), ev(2)], error: /corrupt store: record 2 has seq 2, expected 1/ },
  { name: 'a damaged byte', flip: true, error: /corrupt store/ },
]

for (const compression of ['zstd', 'none'] as Compression[]) {
  test(`load checks identity and format before any repair (${compression}): every refusal leaves the file unchanged`, async (t) => {
    for (const c of REFUSALS) {
      const root = join(tmp(), 'r')
      const id = c.id ?? META.id
      const store = new Store({ root, compression })
      const path = store.locate({ id, cwd: META.cwd }).path
      mkdirSync(dirname(path), { recursive: true })
      const bytes = await storeBytes(compression, c.header ?? HEADER, c.records ?? range(0, 3))
      if (c.flip) bytes[Math.floor(bytes.length / 2)] ^= 0x80
      writeFileSync(path, bytes)
      utimesSync(path, 1_700_000_000, 1_700_000_000)
      const mtime = statSync(path, { bigint: true }).mtimeNs
      const error = { message: new RegExp(`^${path}: .*${c.error.source}`) }
      await t.throwsAsync(store.load(id), error, c.name)
      await t.throwsAsync(store.inspect(id), error, c.name)
      t.deepEqual(readFileSync(path), bytes, `${c.name}: bytes unchanged`)
      t.is(statSync(path, { bigint: true }).mtimeNs, mtime, `${c.name}: mtime unchanged`)
      // the refused load left no open session or lock behind: a second store may try too
      await t.throwsAsync(new Store({ root, compression }).load(id), error)
      await store.dispose()
      t.deepEqual(readFileSync(path), bytes, `${c.name}: bytes unchanged`)
    }
    // the same file with a good header is repaired (so the refusals above were not for want of a tear)
    const root = join(tmp(), 'r')
    const store = new Store({ root, compression })
    const path = store.locate(META).path
    mkdirSync(dirname(path), { recursive: true })
    const bytes = await storeBytes(compression, HEADER, range(0, 3))
    writeFileSync(path, bytes)
    const loaded = await store.load(META.id)
    t.true(loaded.tornTail)
    t.true(statSync(path).size < bytes.length)
    await store.dispose()
  })
}

const delta = (seq: number, chunk: object, time = 1000 + seq * 7) => ({
  seq,
  type: 'assistant/chunk',
  time,
  data: { turn: 1, step: 1, chunk },
})

/** A stream: runs that pack (text, reasoning, tool-call arguments) and events that must not. */
function stream(): StoredEvent[] {
  const out: object[] = []
  const add = (f: (seq: number) => object) => out.push(f(out.length))
  for (const t of ['Hel', 'lo', ' wor', 'ld']) add((q) => delta(q, { type: 'text-delta', index: 0, text: t }))
  add((q) => delta(q, { type: 'text-end', index: 0 }))
  for (const t of ['th', 'ink', 'ing']) add((q) => delta(q, { type: 'reasoning-delta', index: 1, text: t }))
  for (const a of ['{"pa', 'th":', '"x"}'])
    add((q) => delta(q, { type: 'tool-call-delta', index: 2, id: 'c1', name: 'Read', argumentsDelta: a }))
  for (const t of ['a', 'b']) add((q) => delta(q, { type: 'text-delta', index: 3, text: t })) // too short a run
  add((q) => ({ ...delta(q, { type: 'text-delta', index: 3, text: 'c' }), extra: true })) // unknown shape
  for (const [i, t] of [
    [4, 'x'],
    [4, 'y'],
    [5, 'z'],
  ] as const)
    add((q) => delta(q, { type: 'text-delta', index: i, text: t }))
  add((q) => delta(q, { type: 'text-delta', index: 5, text: 'back in time' }, 0))
  return out as StoredEvent[]
}

test('packChunks: delta runs are stored as one line each and load back as the exact events', async (t) => {
  const events = stream()
  const lineCount = (p: string) => readFileSync(p, 'utf8').trimEnd().split('\n').length - 1
  const root = join(tmp(), 'r')
  const packed = new Store({ root, compression: 'none', writeBatchMaxDelayMs: 1 })
  t.true(packed.packChunks, 'on by default')
  await packed.create(META)
  await packed.append(META.id, events)
  await packed.dispose()
  const path = packed.locate(META).path
  const tags = readFileSync(path, 'utf8')
    .trimEnd()
    .split('\n')
    .slice(1)
    .map((l) => JSON.parse(l).type)
  t.deepEqual(tags.slice(0, 4), ['text-chunks', 'assistant/chunk', 'reasoning-chunks', 'tool-call-chunks'])
  t.is(lineCount(path), events.length - 3 - 2 - 2)
  t.deepEqual((await new Store({ root, compression: 'none' }).load(META.id)).events, events)
  // one event per line with packChunks off; a file of both kinds loads the same events
  const root2 = join(tmp(), 'r')
  const plain = new Store({ root: root2, compression: 'none', writeBatchMaxDelayMs: 1, packChunks: false })
  await plain.create(META)
  await plain.append(META.id, events)
  await plain.dispose()
  t.is(lineCount(plain.locate(META).path), events.length)
  const mixed = new Store({ root: root2, compression: 'none', writeBatchMaxDelayMs: 1 })
  await mixed.load(META.id)
  const more = stream().map((e) => ({ ...e, seq: e.seq + events.length }))
  await mixed.append(META.id, more)
  await mixed.dispose()
  t.deepEqual((await new Store({ root: root2, compression: 'none' }).inspect(META.id)).events, [...events, ...more])
  for (const compression of ['zstd'] as Compression[]) {
    const root3 = join(tmp(), 'r')
    const z = new Store({ root: root3, compression, writeBatchMaxDelayMs: 1 })
    await z.create(META)
    await z.append(META.id, events)
    await z.dispose()
    t.deepEqual((await new Store({ root: root3, compression }).load(META.id)).events, events)
  }
})

test('a malformed packed line is refused by name and the file left as it was', async (t) => {
  const root = join(tmp(), 'r')
  const store = new Store({ root, compression: 'none' })
  const path = store.locate(META).path
  mkdirSync(dirname(path), { recursive: true })
  const row = { type: 'text-chunks', seq0: 0, time0: 5, data: { turn: 1, step: 1, index: 0, dt: [1], texts: ['a'] } }
  const bytes = Buffer.from([HEADER, row].map((l) => JSON.stringify(l) + '\n').join('') + '{"seq":')
  writeFileSync(path, bytes)
  await t.throwsAsync(store.load(META.id), { message: new RegExp(`^${path}: corrupt store: a text-chunks row's dt`) })
  t.deepEqual(readFileSync(path), bytes)
})

/** A turn cut off mid-way: two tool calls asked for, one of them recorded as started. */
function openTurn(): StoredEvent[] {
  const e = (type: string, data: object): StoredEvent => ({ seq: 0, type, time: 50, data })
  return [
    e('turn/start', { turn: 1 }),
    e('step/start', { turn: 1, step: 1 }),
    e('assistant/message', {
      turn: 1,
      step: 1,
      message: {
        role: 'assistant',
        content: [
          { type: 'text', text: 'reading two files' },
          { type: 'tool-call', id: 'call-a', name: 'Read', input: {} },
          { type: 'tool-call', id: 'call-b', name: 'Read', input: {} },
        ],
      },
    }),
    e('tool/call', { turn: 1, step: 1, callId: 'call-a' }),
  ].map((x, i) => ({ ...x, seq: i, time: 50 + i }))
}

for (const compression of ['zstd', 'none'] as Compression[]) {
  test(`recovery closers (${compression}): a log cut off mid-turn loads balanced, held in memory until the next append`, async (t) => {
    const root = join(tmp(), 'r')
    const w = new Store({ root, compression, writeBatchMaxDelayMs: 1 })
    await w.create(META)
    await w.append(META.id, openTurn())
    await w.append(META.id, [ev(4)])
    await w.dispose()
    const path = w.locate(META).path
    // the last batch torn off as well
    truncateSync(path, statSync(path).size - 3)
    const bytes = readFileSync(path)
    const view = await new Store({ root, compression }).inspect(META.id)
    t.true(view.tornTail)
    t.is(view.closers, 4)
    // the torn batch's event survives where its frame decodes far enough (zstd keeps whole lines)
    const n = view.events.length - 4
    t.true(n === 4 || n === 5, `${n}`)
    const closers = view.events.slice(n)
    const time = view.events[n - 1].time
    t.deepEqual(
      closers.map((c) => [c.seq, c.type, c.time]),
      [
        [n, 'tool/result', time],
        [n + 1, 'tool/result', time],
        [n + 2, 'step/end', time],
        [n + 3, 'turn/end', time],
      ],
    )
    const data = closers.map((c) => c.data as Record<string, any>)
    t.deepEqual([data[0].error.code, data[0].message.source.callId], ['TOOL_OUTCOME_UNKNOWN', 'call-a'])
    t.deepEqual((closers[0] as unknown as Record<string, unknown>).sourceEventSeqs, [3])
    t.deepEqual([data[1].error.code, data[1].message.source.callId], ['TOOL_NOT_STARTED', 'call-b'])
    t.deepEqual(data[3].reason, { kind: 'interrupted' })
    t.deepEqual(readFileSync(path), bytes, 'inspect writes nothing')
    // load shows the same balanced log; it cuts the torn tail but writes no closer
    const s = new Store({ root, compression, writeBatchMaxDelayMs: 1 })
    const loaded = await s.load(META.id)
    t.deepEqual(loaded.events, view.events)
    const afterLoad = readFileSync(path)
    t.false(afterLoad.equals(bytes), 'the torn tail is repaired')
    t.is((await s.inspect(META.id)).closers, 4)
    await s.dispose()
    t.deepEqual(readFileSync(path), afterLoad, 'closers held in memory: nothing written without an append')
    // the next append writes them first; the log is then balanced on disk
    const s2 = new Store({ root, compression, writeBatchMaxDelayMs: 1 })
    const again = await s2.load(META.id)
    await s2.append(META.id, [ev(again.events.length)])
    await s2.dispose()
    const done = await new Store({ root, compression }).inspect(META.id)
    t.is(done.closers, 0)
    t.deepEqual(done.events.slice(0, view.events.length), view.events)
    t.is(done.events.length, view.events.length + 1)
  })
}

test('seedLength is kept in the header and checked', async (t) => {
  const root = join(tmp(), 'r')
  const s = new Store({ root, writeBatchMaxDelayMs: 1 })
  await t.throwsAsync(s.create({ ...META, seedLength: -1 }), { message: /seedLength must be a non-negative integer/ })
  const header = await s.create({ ...META, seedLength: 2 })
  t.is(header.seedLength, 2)
  await s.append(META.id, range(0, 3))
  await s.dispose()
  const loaded = await new Store({ root }).load(META.id)
  t.is(loaded.header.seedLength, 2)
  t.is((await new Store({ root }).list())[0].header.seedLength, 2)
})

test.serial('preparedSessionCacheSize: inspected sessions are reused while their revision is unchanged', async (t) => {
  t.throws(() => new Store({ root: tmp(), preparedSessionCacheSize: 0 }), { message: /preparedSessionCacheSize/ })
  t.is(new Store({ root: tmp() }).preparedSessionCacheSize, 5)
  const root = join(tmp(), 'r')
  const w = new Store({ root, writeBatchMaxDelayMs: 1 })
  for (const id of ['A', 'B', 'C']) {
    await w.create({ id, cwd: '/p' })
    await w.append(id, range(0, 2))
  }
  await w.dispose()
  const reads = mock.method(native, 'storeLoad')
  try {
    const s = new Store({ root, preparedSessionCacheSize: 2 })
    const a = await s.inspect('A')
    t.is(await s.inspect('A'), a, 'the same frozen view, not read again')
    t.is(reads.mock.callCount(), 1)
    await s.inspect('B')
    await s.inspect('C') // A is the oldest: dropped
    t.is(reads.mock.callCount(), 3)
    await s.inspect('A')
    t.is(reads.mock.callCount(), 4)
    // load reuses the kept view (its own copy), then the session is open and appendable
    const loaded = await s.load('A')
    t.is(reads.mock.callCount(), 4)
    t.deepEqual(loaded.events, a.events)
    t.false(Object.isFrozen(loaded.events))
    await s.append('A', [ev(2)])
    await s.flush('A')
    t.is((await s.inspect('A')).events.length, 3)
    // another writer changed B: its kept view is stale and read again
    const other = new Store({ root, writeBatchMaxDelayMs: 1 })
    await other.load('B')
    await other.append('B', [ev(2)])
    await other.dispose()
    const count = reads.mock.callCount()
    t.is((await s.inspect('B')).events.length, 3)
    t.is(reads.mock.callCount(), count + 1)
    await s.dispose()
  } finally {
    reads.mock.restore()
  }
})

test.serial('a file replaced while it is read is reported, not loaded', async (t) => {
  const { root, path } = await stored('none')
  const other = await stored('none')
  const s = new Store({ root, compression: 'none' })
  // the native read is where the swap lands: between the identity taken before and after
  const load = native.storeLoad
  const swap = mock.method(native, 'storeLoad', async (...args: Parameters<typeof load>) => {
    const r = await load(...args)
    writeFileSync(`${path}.new`, readFileSync(other.path))
    ;(await import('node:fs')).renameSync(`${path}.new`, path)
    return r
  })
  try {
    await t.throwsAsync(s.inspect(META.id), { message: new RegExp(`^${path}: changed while being read`) })
  } finally {
    swap.mock.restore()
  }
  t.is((await s.inspect(META.id)).events.length, 12)
  await s.dispose()
})

test('none mode: the first incomplete line is cut', async (t) => {
  const { root, path } = await stored('none')
  appendFileSync(path, '{"seq":12,"type":"user/te')
  const s = new Store({ root, compression: 'none' })
  const loaded = await s.load(META.id)
  t.true(loaded.tornTail)
  t.deepEqual(loaded.events, range(0, 12))
  await s.dispose()
  t.true(readFileSync(path, 'utf8').endsWith('}\n'))
})

test('corruption is refused with the file named: flipped byte, truncated header frame', async (t) => {
  for (const compression of ['zstd', 'none'] as Compression[]) {
    const { root, path } = await stored(compression)
    const good = readFileSync(path)
    const bad = Buffer.from(good)
    bad[Math.floor(good.length / 2)] ^= 0x80
    writeFileSync(path, bad)
    const s = new Store({ root, compression })
    await t.throwsAsync(s.load(META.id), { message: new RegExp(`^${path}: corrupt store`) })
    await t.throwsAsync(s.inspect(META.id), { message: new RegExp(`^${path}: corrupt store`) })
    t.deepEqual(readFileSync(path), bad, 'a refused file is left alone')
    t.is((await s.list()).length, 1, 'list reads only the header frame')
    writeFileSync(path, good.subarray(0, compression === 'zstd' ? 20 : 10))
    await t.throwsAsync(s.load(META.id), { message: new RegExp(`^${path}: corrupt store: no complete header`) })
    await t.throwsAsync(s.list(), { message: new RegExp(`^${path}: corrupt store`) })
    await s.dispose()
  }
})

test('one encoding per root: the opposite suffix is refused by name', async (t) => {
  const { root, path } = await stored('zstd')
  const s = new Store({ root, compression: 'none' })
  const msg = new RegExp(`^${path}: stored with compression 'zstd' but this store uses 'none'`)
  await t.throwsAsync(s.list(), { message: msg })
  await t.throwsAsync(s.load(META.id), { message: msg })
  await t.throwsAsync(s.listSnapshots(), { message: msg })
})

test('flat foreign files in the root or a project folder are refused by name', async (t) => {
  const { root } = await stored('zstd', 1)
  const flat = join(root, 'S-1.jsonl')
  writeFileSync(flat, '{}\n')
  await t.throwsAsync(new Store({ root }).list(), { message: new RegExp(`^${flat}: not a project folder`) })
  const { root: root2, path } = await stored('zstd', 1)
  const flat2 = join(dirname(dirname(path)), 'S-1.jsonl.zstd')
  writeFileSync(flat2, '')
  await t.throwsAsync(new Store({ root: root2 }).list(), { message: new RegExp(`^${flat2}: not a session folder`) })
  const { root: root3, path: p3 } = await stored('zstd', 1)
  const odd = join(dirname(dirname(p3)), 'Not.Escaped')
  mkdirSync(odd)
  await t.throwsAsync(new Store({ root: root3 }).listSnapshots(), {
    message: new RegExp(`^${odd}: not a session folder name`),
  })
})

test('listSnapshots and readStoredRevision follow appends; listSnapshots honours abort', async (t) => {
  const { root } = await stored('zstd', 1)
  const s = new Store({ root, writeBatchMaxDelayMs: 1 })
  const [snap] = await s.listSnapshots()
  t.is(snap.id, META.id)
  t.is(await s.readStoredRevision(META.id), snap.revision)
  await s.load(META.id)
  await s.append(META.id, [ev(4)])
  t.not(await s.readStoredRevision(META.id), snap.revision)
  const aborted = s.listSnapshots(AbortSignal.abort())
  await s.dispose()
  await t.throwsAsync(aborted, { name: 'AbortError' })
})

/** Kills a writer child; resolves with the last acknowledged record count and file size. */
function runWriter(
  root: string,
  compression: Compression,
  seed: number,
  killAfterMs: number,
): Promise<[number, number]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [WRITER, root, compression, String(seed), String(1 + (seed % 7))], {
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let out = ''
    let err = ''
    child.stdout.setEncoding('utf8').on('data', (d) => (out += d))
    child.stderr.setEncoding('utf8').on('data', (d) => (err += d))
    const timer = setTimeout(() => child.kill('SIGKILL'), killAfterMs)
    child.on('close', (code, signal) => {
      clearTimeout(timer)
      if (signal !== 'SIGKILL') return reject(new Error(`writer ended early (${code}): ${err}`))
      const m = [...out.matchAll(/committed (\d+) (\d+)/g)].at(-1)
      resolve(m ? [Number(m[1]), Number(m[2])] : [0, 0])
    })
  })
}

// `npm test` kills at four seeds, one per combination of compression (seed % 3) and what follows the
// kill (seed % 2: a second life, or lost and torn bytes); `npm run test:full` at all twenty.
const KILL_SEEDS =
  process.env.CLAUDE_JSONL_TEST_FULL === '1' ? Array.from({ length: 20 }, (_, i) => i + 1) : [1, 2, 3, 6]

test('SIGKILL at random points of appending: load returns every committed record and nothing else', async (t) => {
  for (const seed of KILL_SEEDS) {
    const compression: Compression = seed % 3 === 0 ? 'none' : 'zstd'
    const root = join(tmp(), 'r')
    let [committed, bytes] = await runWriter(root, compression, seed, 150 + ((seed * 7919) % 350))
    // half the runs: a second life appends after recovery, then is killed again
    if (seed % 2 === 0) {
      const [c2, b2] = await runWriter(root, compression, seed, 150 + ((seed * 104729) % 300))
      if (c2 > committed) [committed, bytes] = [c2, b2]
    }
    const s = new Store({ root, compression })
    const path = s.locate(SESSION).path
    if (committed === 0 && !existsSync(path)) {
      t.pass()
      continue
    }
    // odd runs: also lose a random part of the unacknowledged bytes, as a power cut could
    const size = statSync(path).size
    if (seed % 2 === 1 && size > bytes) truncateSync(path, bytes + ((seed * 7907) % (size - bytes)))
    // and, when the kill left nothing unacknowledged, a torn write of the next batch
    else if (seed % 2 === 1) {
      const n = (await s.inspect(SESSION.id)).events.length
      const next = Array.from({ length: 8 }, (_, i) => JSON.stringify(expectedEvent(seed, n + i)) + '\n').join('')
      const frame = native.storeEncodeBatch(Buffer.from(next), compression)
      appendFileSync(path, frame.subarray(0, 1 + ((seed * 7907) % (frame.length - 1))))
    }
    const loaded = await s.load(SESSION.id)
    t.true(loaded.events.length >= committed, `seed ${seed}: ${loaded.events.length} < committed ${committed}`)
    for (const [i, e] of loaded.events.entries()) {
      if (JSON.stringify(e) !== JSON.stringify(expectedEvent(seed, i)))
        t.fail(`seed ${seed}: record ${i} is not what was appended`)
    }
    await s.append(SESSION.id, [expectedEvent(seed, loaded.events.length)])
    await s.dispose()
    t.is((await new Store({ root, compression }).inspect(SESSION.id)).events.length, loaded.events.length + 1)
    t.log(
      `seed ${seed} (${compression}): committed ${committed}, loaded ${loaded.events.length}, torn tail ${loaded.tornTail} (${loaded.recovered} kept)`,
    )
  }
})

test('one writer per session across processes: a live writer child blocks a second writer', async (t) => {
  const root = join(tmp(), 'r')
  const child = spawn(process.execPath, [WRITER, root, 'zstd', '1', '5'], { stdio: ['ignore', 'pipe', 'pipe'] })
  await new Promise<void>((resolve, reject) => {
    child.stdout.setEncoding('utf8').on('data', (d: string) => d.includes('committed') && resolve())
    child.on('close', () => reject(new Error('writer ended before committing')))
  })
  const path = new Store({ root }).locate(SESSION).path
  const s = new Store({ root })
  await t.throwsAsync(s.load(SESSION.id), {
    message: `${path}: another writer holds this session (one writer per session)`,
  })
  const closed = new Promise((r) => child.on('close', r))
  child.kill('SIGKILL')
  await closed
  t.true((await s.load(SESSION.id)).events.length > 0, 'the lock dies with its writer')
  await s.dispose()
})
