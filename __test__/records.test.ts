// The record types against real data: every line of the sample transcripts, the fixtures and a
// generated session of each client era narrows to a known record type or to UnknownRecord, and a
// record of a known type is known exactly when its declared fields have their declared JS types.
import test from 'ava'
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import {
  KNOWN_RECORD_TYPES,
  isAssistantRecord,
  isCompactBoundaryRecord,
  isKnownRecord,
  isRecordOf,
  isUserRecord,
  records,
  showSession,
  type TranscriptRecord,
} from '../src-ts/index.js'
import { REAL, REPO, tempDir } from './helpers/transcripts.js'

function jsonlFiles(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name)
    if (statSync(p).isDirectory()) jsonlFiles(p, out)
    else if (name.endsWith('.jsonl')) out.push(p)
  }
  return out
}

function objectsOf(file: string): { line: number; record: TranscriptRecord }[] {
  const out: { line: number; record: TranscriptRecord }[] = []
  readFileSync(file, 'utf8')
    .replace(/^\uFEFF/, '') // a byte-order mark is not part of the first record
    .split('\n')
    .forEach((text, i) => {
      let v: unknown
      try {
        v = JSON.parse(text)
      } catch {
        return // not JSON: the records() reader yields such lines as problems
      }
      if (typeof v === 'object' && v !== null && !Array.isArray(v))
        out.push({ line: i + 1, record: v as TranscriptRecord })
    })
  return out
}

// Fixture lines that are deliberately malformed: a known type with a field of another JS type.
const MALFORMED = new Set([
  'topology/malformed-pointer.jsonl:8', // leafUuid is a number
  'topology/malformed-parent.jsonl:1', // parentUuid is a number
  'topology/damage-on-excluded-branch.jsonl:5', // parentUuid is an array
  // a bare {"type":"user"} among the archive format's edge lines (BOM, not JSON, a torn line)
  'archive-format-1/projects/-home-u-repo/0b7c8a8e-1111-4222-8333-444455556666.jsonl:1',
])

test('every record of the samples and fixtures is known, or unknown for a reason', async (t) => {
  const files = jsonlFiles(join(REPO, 'fixtures'))
  if (existsSync(REAL)) files.push(...jsonlFiles(REAL))
  else t.log(`${REAL} is absent: checking the fixtures only`)
  const { generateSession } = (await import(join(REPO, 'fixtures', 'generate.mjs'))) as {
    generateSession: (o: object) => unknown
  }
  const gen = tempDir('cj-records-')
  for (const era of ['E0', 'E1', 'E2', 'E3', 'E4']) {
    const out = join(gen, `${era}.jsonl`)
    generateSession({ out, targetMb: 0.2, seed: `records-${era}`, era })
    files.push(out)
  }

  const seen = new Map<string, number>()
  const misfits: string[] = []
  for (const file of files) {
    const rel = file.startsWith(join(REPO, 'fixtures')) ? file.slice(join(REPO, 'fixtures').length + 1) : file
    for (const { line, record } of objectsOf(file)) {
      const known = isKnownRecord(record)
      const type = typeof record.type === 'string' ? record.type : '<none>'
      if (known) {
        seen.set(type, (seen.get(type) ?? 0) + 1)
        t.true(isRecordOf(record.type, record))
      } else if ((KNOWN_RECORD_TYPES as readonly string[]).includes(type)) {
        misfits.push(`${rel}:${line}`)
      }
    }
  }
  t.deepEqual(misfits.sort(), [...MALFORMED].sort(), 'only the deliberately malformed fixture lines misfit')
  for (const type of ['user', 'assistant', 'system', 'attachment', 'progress', 'last-prompt', 'summary']) {
    t.true((seen.get(type) ?? 0) > 0, `${type} records were checked`)
  }
  t.log([...seen].map(([k, n]) => `${k} ${n}`).join(', '))
})

test('known fields have their declared JS types, and the guards narrow', (t) => {
  const user = {
    type: 'user',
    uuid: 'u1',
    parentUuid: null,
    message: { role: 'user', content: [{ type: 'text', text: 'hi' }] },
    somethingNew: { kept: true },
  }
  t.true(isUserRecord(user))
  t.true(isKnownRecord(user))
  t.false(isUserRecord({ ...user, parentUuid: 7 }), 'a numeric parentUuid is not a UserRecord')
  t.false(isUserRecord({ ...user, message: { role: 'user', content: 5 } }))
  t.false(isAssistantRecord(user))
  const assistant = {
    type: 'assistant',
    uuid: 'a1',
    parentUuid: 'u1',
    message: {
      id: 'm1',
      role: 'assistant',
      content: [{ type: 'tool_use', id: 't1', name: 'Read', input: {} }],
      usage: { input_tokens: 1, output_tokens: 2, speed: 'fast' },
    },
  }
  t.true(isAssistantRecord(assistant))
  t.false(isAssistantRecord({ ...assistant, message: { ...assistant.message, usage: { input_tokens: '1' } } }))
  t.true(isRecordOf('last-prompt', { type: 'last-prompt', leafUuid: 'a1' }))
  t.false(isRecordOf('last-prompt', { type: 'last-prompt', leafUuid: 42 }))
  t.false(isKnownRecord({ type: 'future-thing', futureField: {} }), 'an unknown type is an UnknownRecord')
  t.false(isKnownRecord([1, 2]))
  t.false(isKnownRecord(null))
  const boundary = { type: 'system', subtype: 'compact_boundary', uuid: 's', parentUuid: null, compactMetadata: {} }
  t.true(isCompactBoundaryRecord(boundary))
  t.false(isCompactBoundaryRecord({ ...boundary, compactMetadata: 'x' }))
  // The record is the parsed object itself: unknown fields are still there.
  if (isUserRecord(user)) t.deepEqual(user.somethingNew, { kept: true })
})

async function collect(path: string, options?: Parameters<typeof records>[1]) {
  const out = []
  for await (const item of records(path, options)) out.push(item)
  return out
}

/** What a plain reader gets: every line that parses as a JSON object, with its line number. */
function plainObjects(path: string): { line: number; value: unknown }[] {
  return objectsOf(path).map(({ line, record }) => ({ line, value: record }))
}

test('records() yields every record of a real transcript in file order, as JSON.parse reads it', async (t) => {
  if (!existsSync(REAL)) return t.pass(`${REAL} is absent`)
  for (const name of ['real-01.jsonl', 'real-07.jsonl', 'real-11.jsonl']) {
    const path = join(REAL, name)
    const items = await collect(path)
    const got = items.filter((i) => i.kind !== 'problem').map((i) => ({ line: i.line, value: i.record }))
    t.deepEqual(got, plainObjects(path), name)
    // Offsets point at the record's own bytes.
    const bytes = readFileSync(path)
    for (const i of items.slice(0, 50)) t.is(bytes[i.offset], 0x7b, `${name}:${i.line} starts with {`)
  }
})

test('records() filters by type, time and active chain before anything is parsed', async (t) => {
  if (!existsSync(REAL)) return t.pass(`${REAL} is absent`)
  const path = join(REAL, 'real-07.jsonl')
  const all = plainObjects(path)
  const assistants = await collect(path, { types: ['assistant'] })
  t.deepEqual(
    assistants.map((i) => i.line),
    all.filter((o) => (o.value as { type?: string }).type === 'assistant').map((o) => o.line),
  )
  t.true(assistants.every((i) => i.kind === 'record' && isAssistantRecord(i.record)))

  const stamped = all.filter((o) => typeof (o.value as { timestamp?: unknown }).timestamp === 'string')
  const times = stamped.map((o) => Date.parse((o.value as { timestamp: string }).timestamp)).sort((a, b) => a - b)
  const mid = times[Math.floor(times.length / 2)]
  const since = await collect(path, { since: new Date(mid), problems: false })
  t.deepEqual(
    since.map((i) => i.line),
    stamped.filter((o) => Date.parse((o.value as { timestamp: string }).timestamp) >= mid).map((o) => o.line),
  )
  const until = await collect(path, { until: mid, problems: false })
  t.true(until.length > 0 && until.length < stamped.length)

  // The active chain is the one the rest of the package resumes from.
  const chain = await collect(path, { activeChain: true })
  const shown = await showSession(path, {})
  t.true(chain.length > 0)
  t.true(chain.length < all.length, 'the chain leaves out side branches and metadata')
  const lastShownLine = Math.max(...shown.turns.flatMap((turn) => turn.items.map((it) => it.line ?? 0)))
  t.is(chain.at(-1)!.line >= lastShownLine, true)
  await t.throwsAsync(collect(path, { since: 'not a date' }), { message: /since: not a time/ })
})

test('records() yields bad lines as problems and never throws for a line', async (t) => {
  const edge = join(REPO, 'fixtures', 'edge')
  for (const name of readdirSync(edge).filter((f) => f.endsWith('.jsonl'))) {
    const path = join(edge, name)
    const items = await collect(path)
    const records = items.filter((i) => i.kind !== 'problem')
    t.deepEqual(
      records.map((i) => i.line),
      plainObjects(path).map((o) => o.line),
      `${name}: the records are the object lines`,
    )
    const lines = readFileSync(path, 'utf8')
      .replace(/^\uFEFF/, '')
      .split('\n')
    for (const p of items.filter((i) => i.kind === 'problem')) {
      const text = lines[p.line - 1].replace(/\r$/, '')
      t.not(text.trim(), '', `${name}:${p.line} is not blank`)
      t.true(
        plainObjects(path).every((o) => o.line !== p.line),
        `${name}:${p.line} is not an object line`,
      )
    }
  }
  const dir = tempDir('cj-records-bad-')
  const path = join(dir, 's.jsonl')
  writeFileSync(
    path,
    '{"type":"user","uuid":"u","parentUuid":null,"message":{"role":"user","content":"x"}}\nnope\n[1]\n{"type":"x-new"}\n{"a":1e400}\n{"type":"user","torn',
  )
  const items = await collect(path)
  t.deepEqual(
    items.map((i) => [i.line, i.kind === 'problem' ? i.reason : i.kind]),
    [
      [1, 'record'],
      [2, 'not-json'],
      [3, 'not-an-object'],
      [4, 'unknown'],
      [5, 'unknown'], // JSON.parse reads 1e400 as Infinity
      [6, 'not-json'],
    ],
  )
  await t.throwsAsync(collect(join(dir, 'missing.jsonl')), { message: /missing\.jsonl: no such file or directory/ })
})

test('the record types with a TypeScript type are exactly the types the native core knows', async (t) => {
  const { default: native } = await import('../src-ts/native.js')
  t.deepEqual([...KNOWN_RECORD_TYPES].sort(), [...native.knownRecordTypes()].sort())
})
