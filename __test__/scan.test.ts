import test from 'ava'
import { existsSync, readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { createHash } from 'node:crypto'
import { ClaudeJsonlError, scanBuffer, scanEstate, scanFile } from '../src-ts/index.js'
import native from '../src-ts/native.js'
import { REAL, assistant, userText, writeTree } from './helpers/transcripts.js'

const hasReal = existsSync(REAL)
const realTest = hasReal ? test : test.skip
if (!hasReal) console.warn(`real transcripts not found at ${REAL}: those tests are skipped`)

test('scanBuffer tolerates BOM, CRLF, blank, non-object, invalid and torn lines', (t) => {
  const a = assistant({ messageId: 'm1', output: 5 })
  const text = `\ufeff${a}\r\n\r\n   \n[1,2]\n{nope\n"str"\n${userText('hi')}\n{"type":"us`
  const idx = scanBuffer(Buffer.from(text))
  const s = idx.summary()
  t.is(s.lines, 8)
  t.is(s.records, 2)
  t.is(s.blankLines, 2)
  t.is(s.crlfLines, 2)
  t.is(s.nonObjectLines, 2)
  t.is(s.badJsonLines, 1)
  t.true(s.bom)
  t.true(s.tornTail)
  t.deepEqual(
    s.badLines.map((b) => [b.line, b.kind]),
    [
      [4, 'non-object'],
      [5, 'invalid-json'],
      [6, 'non-object'],
    ],
  )
  const r = idx.record(0)!
  t.is(r.offset, 3)
  t.is(r.length, Buffer.byteLength(a))
  t.is(r.type, 'assistant')
  t.is(r.usage?.outputTokens, 5)
})

test('lone UTF-16 surrogates are repaired and the line is still read', (t) => {
  const line =
    '{"type":"progress","uuid":"p1","data":{"output":"cut \\ud83d here, low \\udc00, pair \\ud83d\\ude00, escaped \\\\ud83d"}}'
  t.notThrows(() => JSON.parse(line))
  const s = scanBuffer(Buffer.from(line + '\n')).summary()
  t.is(s.records, 1)
  t.is(s.loneSurrogateLines, 1)
  t.is(s.badJsonLines, 0)
})

realTest('every record of every real transcript slices back to its own line', async (t) => {
  for (const name of readdirSync(REAL).filter((f) => f.endsWith('.jsonl'))) {
    const path = join(REAL, name)
    const bytes = readFileSync(path)
    const lines = bytes
      .toString('utf8')
      .split('\n')
      .filter((l) => l.trim() !== '')
    const idx = await scanFile(path)
    t.is(idx.length, lines.length, name)
    const records = idx.records()
    const offsets = idx.offsets()
    const lengths = idx.lengths()
    for (let i = 0; i < records.length; i++) {
      const obj = JSON.parse(bytes.subarray(offsets[i], offsets[i] + lengths[i]).toString('utf8'))
      t.is(records[i].type, obj.type)
      t.is(records[i].uuid, obj.uuid)
      t.is(records[i].parentUuid, obj.parentUuid ?? undefined)
      t.is(records[i].requestId, obj.requestId)
      t.is(records[i].messageId, obj.message?.id)
      t.is(records[i].isSidechain, obj.isSidechain === true)
      if (obj.type === 'assistant' && obj.message?.usage)
        t.is(records[i].usage?.outputTokens, obj.message.usage.output_tokens)
      const toolUses = Array.isArray(obj.message?.content)
        ? obj.message.content.filter((b: { type: string }) => b.type === 'tool_use')
        : []
      t.deepEqual(
        records[i].toolUses,
        toolUses.map((b: { id: string; name: string }) => ({ id: b.id, name: b.name })),
      )
    }
  }
})

realTest('usage mode keeps exactly the assistant records with usage, and counts all lines', async (t) => {
  const path = join(REAL, 'real-08.jsonl')
  const full = await scanFile(path)
  const usage = await scanFile(path, { mode: 'usage' })
  const expected = full.records().filter((r) => r.type === 'assistant' && r.usage)
  t.is(usage.length, expected.length)
  t.deepEqual(
    usage.records().map((r) => r.offset),
    expected.map((r) => r.offset),
  )
  t.is(usage.summary().lines, full.summary().lines)
})

test('scanFile names a missing file and exits with the input code', async (t) => {
  const e = await t.throwsAsync(scanFile('/nonexistent/x.jsonl'), { instanceOf: ClaudeJsonlError })
  t.is(e!.exitCode, 3)
  t.regex(e!.message, /^\/nonexistent\/x\.jsonl: no such file or directory$/)
})

test('scanEstate attributes subagents of both layouts to their parent session', async (t) => {
  const sid = '11111111-2222-4333-8444-555555555555'
  const old = '99999999-2222-4333-8444-555555555555'
  const root = writeTree({
    [`projects/-home-u-app/${sid}.jsonl`]: [assistant({ messageId: 'a', output: 1, sessionId: sid })],
    [`projects/-home-u-app/${sid}/subagents/agent-x1.jsonl`]: [
      assistant({ messageId: 'b', output: 1, sidechain: true, sessionId: sid }),
    ],
    [`projects/-home-u-app/${old}.jsonl`]: [assistant({ messageId: 'c', output: 1, sessionId: old })],
    [`projects/-home-u-app/agent-y2.jsonl`]: [
      assistant({ messageId: 'd', output: 1, sidechain: true, sessionId: old }),
    ],
  })
  const seen: number[] = []
  const r = await scanEstate({
    projects: join(root, 'projects'),
    onProgress: (p) => seen.push(p.bytesDone / Math.max(1, p.bytesTotal)),
  })
  t.is(r.files.length, 4)
  t.is(r.sessions.length, 2)
  t.deepEqual(r.sessions.map((s) => [s.sessionId, s.files.length]).sort(), [
    [sid, 2],
    [old, 2],
  ])
  const agents = r.files.filter((f) => f.kind === 'subagent')
  t.deepEqual(agents.map((f) => [f.agentId, f.sessionId]).sort(), [
    ['x1', sid],
    ['y2', old],
  ])
  t.is(seen.at(-1), 1)
})

test('sha256 matches node:crypto', (t) => {
  const buf = Buffer.from('claude-jsonl ✓ \u{1F600}'.repeat(1000))
  t.is(native.sha256(buf), createHash('sha256').update(buf).digest('hex'))
})
