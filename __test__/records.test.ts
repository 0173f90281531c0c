// The record types against real data: every line of the sample transcripts, the fixtures and a
// generated session of each client era narrows to a known record type or to UnknownRecord, and a
// record of a known type is known exactly when its declared fields have their declared JS types.
import test from 'ava'
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import {
  KNOWN_RECORD_TYPES,
  isAssistantRecord,
  isCompactBoundaryRecord,
  isKnownRecord,
  isLastPromptRecord,
  isRecordOf,
  isUserRecord,
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
  t.true(isLastPromptRecord({ type: 'last-prompt', leafUuid: 'a1' }))
  t.false(isLastPromptRecord({ type: 'last-prompt', leafUuid: 42 }))
  t.false(isKnownRecord({ type: 'future-thing', futureField: {} }), 'an unknown type is an UnknownRecord')
  t.false(isKnownRecord([1, 2]))
  t.false(isKnownRecord(null))
  const boundary = { type: 'system', subtype: 'compact_boundary', uuid: 's', parentUuid: null, compactMetadata: {} }
  t.true(isCompactBoundaryRecord(boundary))
  t.false(isCompactBoundaryRecord({ ...boundary, compactMetadata: 'x' }))
  // The record is the parsed object itself: unknown fields are still there.
  if (isUserRecord(user)) t.deepEqual(user.somethingNew, { kept: true })
})
