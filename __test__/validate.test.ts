import test from 'ava'
import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { validate, ValidationReport } from '../src-ts/read/validate.js'
import { ClaudeJsonlError } from '../src-ts/errors.js'
import native from '../src-ts/native.js'
import { CLI, REAL, tempDir } from './helpers/transcripts.js'

const hasReal = existsSync(REAL)
const realTest = hasReal ? test : test.skip
if (!hasReal) console.warn(`real transcripts not found at ${REAL}: those tests are skipped`)

// ---- hand-made transcripts -----------------------------------------------------------------
const SESSION = '3f1c2a9e-0b7d-4c55-9e21-7a4b8c6d5e10'
let clock = Date.parse('2026-03-01T10:00:00.000Z')
const ts = () => new Date((clock += 1000)).toISOString()
const base = (uuid: string, parent: string | null) => ({
  parentUuid: parent,
  isSidechain: false,
  uuid,
  timestamp: ts(),
  sessionId: SESSION,
})
const human = (uuid: string, parent: string | null, content: unknown = 'hello') => ({
  ...base(uuid, parent),
  type: 'user',
  message: { role: 'user', content },
})
const said = (uuid: string, parent: string | null, id: string, content: unknown[]) => ({
  ...base(uuid, parent),
  type: 'assistant',
  message: { id, role: 'assistant', model: 'claude-opus-4-7', content },
})
const use = (id: string) => ({ type: 'tool_use', id, name: 'Bash', input: { command: 'ls' } })
const result = (id: string) => ({ type: 'tool_result', tool_use_id: id, content: 'ok' })
const text = (t: string) => ({ type: 'text', text: t })
const thinking = { type: 'thinking', thinking: 'let me see', signature: 'c2ln' }
const pointer = (leaf: string) => ({ type: 'last-prompt', lastPrompt: 'hello', leafUuid: leaf, sessionId: SESSION })
const boundary = (uuid: string, parent: string | null, logical: string) => ({
  ...base(uuid, parent),
  logicalParentUuid: logical,
  type: 'system',
  subtype: 'compact_boundary',
  content: 'Conversation compacted',
  compactMetadata: { trigger: 'manual', preTokens: 1234 },
})
const summary = (uuid: string, parent: string) => ({
  ...base(uuid, parent),
  type: 'user',
  isCompactSummary: true,
  isVisibleInTranscriptOnly: true,
  message: { role: 'user', content: 'This session is being continued…' },
})

/**
 * A valid session: a prompt; thinking then two parallel tool calls as three fragments of one
 * message.id (the second call's fragment off the parentUuid chain, as Claude Code writes them);
 * the two results in two user records; an answer; a pointer to it. Lines 1..9.
 */
function validRecords(): Record<string, any>[] {
  return [
    { type: 'permission-mode', permissionMode: 'default', sessionId: SESSION },
    human('u1', null),
    said('a1', 'u1', 'msg_1', [thinking]),
    said('a2', 'a1', 'msg_1', [use('toolu_1')]),
    said('a3', 'a2', 'msg_1', [use('toolu_2')]),
    { ...human('r1', 'a2', [result('toolu_1')]), toolUseResult: 'ok', sourceToolAssistantUUID: 'a2' },
    { ...human('r2', 'a3', [result('toolu_2')]), toolUseResult: 'ok', sourceToolAssistantUUID: 'a3' },
    said('a4', 'r2', 'msg_2', [text('Both done.')]),
    pointer('a4'),
  ]
}

function write(records: Record<string, unknown>[], name = `${SESSION}.jsonl`): string {
  const path = join(tempDir('cj-validate-'), name)
  writeFileSync(path, records.map((r) => JSON.stringify(r)).join('\n') + '\n')
  return path
}

const errorsOf = (r: ValidationReport) =>
  r.findings.filter((f) => f.severity === 'error').map((f) => ({ code: f.code, lines: f.lines }))

test('a valid hand-made transcript is accepted', async (t) => {
  const r = await validate(write(validRecords()))
  t.deepEqual(errorsOf(r), [])
  t.true(r.valid)
  t.is(r.fileSessionId, SESSION)
  t.deepEqual(r.leaf, { line: 8, rule: 'last-prompt', pointer: 'leaf' })
  // u1 · [a1 a2 a3] merged by message.id · [r1 r2] merged user · a4
  t.is(r.counts.apiMessages, 4)
  t.is(r.counts.toolUses, 2)
})

/** Each planted defect: the records changed, the error code expected, and its lines. */
const DEFECTS: [string, (recs: Record<string, any>[]) => void, string, number[]][] = [
  // The uuid of the answer reused by a later record (the client keeps the later one).
  [
    'duplicate uuid',
    (r) => r.splice(8, 0, said('a4', 'r2', 'msg_2', [text('Both done, again.')])),
    'duplicate-uuid',
    [8, 9],
  ],
  ['dangling parent', (r) => (r[7].parentUuid = 'never-written'), 'dangling-parent', [7, 8]],
  ['orphan tool_result', (r) => r[6].message.content.push(result('toolu_ghost')), 'orphan-tool-result', [7]],
  ['tool_use without result', (r) => (r[6].message.content = [text('never mind')]), 'tool-use-without-result', [5]],
  [
    'two results for one tool_use',
    (r) => r[6].message.content.push(result('toolu_2')),
    'duplicate-tool-result',
    [5, 7],
  ],
  // A whitespace-only text beside other blocks is sent by the client (an empty one it drops).
  ['empty text block', (r) => r[7].message.content.unshift(text(' ')), 'empty-text-block', [8]],
  ['thinking not first', (r) => r[2].message.content.unshift(text('Let me look.')), 'thinking-not-first', [3]],
  [
    'two current compact pairs',
    (r) => {
      r.splice(8, 1)
      r.push(boundary('b1', null, 'a4'), summary('s1', 'b1'), said('a5', 's1', 'msg_5', [text('after one')]))
      // A second pair stacked on the first by parentUuid instead of folding it.
      r.push(
        boundary('b2', 'a5', 'a5'),
        summary('s2', 'b2'),
        said('a6', 's2', 'msg_6', [text('after two')]),
        pointer('a6'),
      )
    },
    'multiple-current-compact-pairs',
    [9, 12],
  ],
  ['internal planning field', (r) => (r[1].compressorPlan = { rawKeepIndexes: [1, 2, 3] }), 'internal-field', [2]],
]

for (const [name, plant, code, lines] of DEFECTS) {
  test(`planted defect is caught: ${name}`, async (t) => {
    const recs = validRecords()
    plant(recs)
    const r = await validate(write(recs))
    t.false(r.valid)
    t.deepEqual(errorsOf(r), [{ code, lines }], JSON.stringify(r.findings))
  })
}

test('a compacted session is valid when its one pair is on the chain; only what follows the boundary is checked', async (t) => {
  const recs = validRecords()
  recs.splice(8, 1)
  // Before the boundary, a broken exchange the model is no longer sent.
  recs[6].message.content = [text('interrupted')]
  recs.push(boundary('b1', null, 'a4'), summary('s1', 'b1'), said('a5', 's1', 'msg_5', [text('after')]), pointer('a5'))
  const r = await validate(write(recs))
  t.deepEqual(errorsOf(r), [])
  t.is(r.counts.compactBoundaries, 1)
  t.is(r.counts.apiMessages, 2)
})

test('warnings do not make a file invalid: a turn interrupted at the leaf, a stale pointer', async (t) => {
  const recs = validRecords().slice(0, 5)
  recs.push(pointer('a2'))
  const r = await validate(write(recs))
  t.true(r.valid)
  t.deepEqual(r.findings.map((f) => f.code).sort(), ['pointer-stale', 'tool-use-pending'])
})

test('a file named after another session is valid with a warning: the client goes by the file name', async (t) => {
  const r = await validate(write(validRecords(), '0e0e0e0e-1111-4222-8333-444455556666.jsonl'))
  t.deepEqual(errorsOf(r), [])
  t.true(r.valid)
  t.true(r.findings.some((f) => f.code === 'file-session-differs' && f.severity === 'warning'))
})

test('unreadable, not JSONL, or empty: an input error (exit code 3)', async (t) => {
  const dir = tempDir('cj-validate-')
  await t.throwsAsync(validate(join(dir, 'missing.jsonl')), { instanceOf: ClaudeJsonlError, message: /no such file/ })
  writeFileSync(join(dir, 'notes.jsonl'), 'hello world\n')
  const e = await t.throwsAsync(validate(join(dir, 'notes.jsonl')), { message: /not a JSONL transcript/ })
  t.is((e as ClaudeJsonlError).exitCode, 3)
  writeFileSync(join(dir, 'empty.jsonl'), '\n\n')
  await t.throwsAsync(validate(join(dir, 'empty.jsonl')), { message: /no records/ })
})

test('CLI: exit 0 valid, 1 invalid with one line per finding, 3 not a transcript; --json', (t) => {
  const cli = (...args: string[]) =>
    spawnSync(process.execPath, [CLI, 'validate', ...args], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH, HOME: '/nonexistent-home' },
    })
  const ok = cli(write(validRecords()))
  t.is(ok.status, 0, ok.stderr)
  t.regex(ok.stdout, /: valid\n/)
  const recs = validRecords()
  recs[6].message.content = [text('never mind')]
  const bad = cli(write(recs))
  t.is(bad.status, 1)
  t.regex(bad.stdout, /INVALID \(1 error\)/)
  t.regex(
    bad.stdout,
    /^ {2}error tool-use-without-result \[line 5\]: line 5: tool_use toolu_2 has no tool_result in the next user message$/m,
  )
  const json = cli(write(recs), '--json')
  t.is(json.status, 1)
  const report = JSON.parse(json.stdout) as ValidationReport
  t.is(report.valid, false)
  t.is(report.findings[0].code, 'tool-use-without-result')
  const dir = tempDir('cj-validate-')
  writeFileSync(join(dir, 'x.jsonl'), 'not json\n')
  const no = cli(join(dir, 'x.jsonl'))
  t.is(no.status, 3)
  t.regex(no.stderr, /^claude-jsonl: .*x\.jsonl: not a JSONL transcript \(line 1 is not valid JSON\)\n$/)
  t.is(cli().status, 2)
})

// ---- real transcripts ----------------------------------------------------------------------
/**
 * What the validator says about the real files, and why. real-01, -09 and -12 are slices that
 * start mid-session (shared/real-transcripts/README.md): their first record's parent was never
 * in the file. That is a genuine finding (the history before it is missing), not loosened.
 * real-07 and -08 end with a stale pointer, which the client ignores (a warning).
 */
const REAL_VERDICTS: Record<string, { errors: { code: string; lines: number[] }[]; warnings: string[] }> = {
  'real-01.jsonl': { errors: [{ code: 'dangling-parent', lines: [1] }], warnings: [] },
  'real-04.jsonl': { errors: [], warnings: [] },
  'real-05.jsonl': { errors: [], warnings: [] },
  'real-06.jsonl': { errors: [], warnings: [] },
  'real-07.jsonl': { errors: [], warnings: ['pointer-stale'] },
  'real-08.jsonl': { errors: [], warnings: ['pointer-stale'] },
  'real-09.jsonl': { errors: [{ code: 'dangling-parent', lines: [1] }], warnings: [] },
  'real-10.jsonl': { errors: [], warnings: [] },
  'real-11.jsonl': { errors: [], warnings: [] },
  'real-12.jsonl': { errors: [{ code: 'dangling-parent', lines: [1] }], warnings: [] },
}

realTest('real transcripts: the verdicts, and each finding checked against the file itself', async (t) => {
  for (const [name, want] of Object.entries(REAL_VERDICTS)) {
    const path = join(REAL, name)
    const r = await validate(path)
    t.deepEqual(errorsOf(r), want.errors, name)
    t.deepEqual(
      r.findings.filter((f) => f.severity === 'warning').map((f) => f.code),
      want.warnings,
      name,
    )
    t.true(r.counts.apiMessages > 0 && r.counts.toolUses > 0, name)
    // Plain facts from a JSON.parse of every line, independent of the native code.
    const recs = readFileSync(path, 'utf8')
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l))
    const uuids = new Set(recs.map((x) => x.uuid).filter(Boolean))
    t.is(uuids.size, recs.filter((x) => x.uuid).length, `${name}: uuids are unique`)
    const dangling = recs.flatMap((x, i) => (x.parentUuid && !uuids.has(x.parentUuid) ? [i + 1] : []))
    t.deepEqual(
      dangling,
      want.errors.filter((e) => e.code === 'dangling-parent').flatMap((e) => e.lines),
      `${name}: parents missing from the file`,
    )
    if (dangling.length > 0) t.is(recs[0].parentUuid !== null, true, `${name}: a slice starting mid-session`)
  }
  for (const name of ['real-02.jsonl', 'real-03.jsonl']) {
    const e = await t.throwsAsync(
      validate(join(REAL, name)),
      { message: /not a Claude Code transcript/ },
      `${name} is a Codex transcript`,
    )
    t.is((e as ClaudeJsonlError).exitCode, 3)
  }
})

realTest('real transcripts: a defect planted in a valid real file is caught', async (t) => {
  const lines = readFileSync(join(REAL, 'real-05.jsonl'), 'utf8').split('\n')
  // Drop the tool_result of the last tool call: its tool_use loses its answer.
  const last = lines
    .map((l, i) => [l, i] as const)
    .filter(([l]) => l.includes('"tool_result"'))
    .pop()!
  const dir = tempDir('cj-validate-')
  const recs = [...lines]
  const rec = JSON.parse(recs[last[1]])
  const id = rec.message.content.find((b: { type: string }) => b.type === 'tool_result').tool_use_id
  rec.message.content = rec.message.content.map((b: { type: string }) =>
    b.type === 'tool_result' ? { type: 'text', text: 'gone' } : b,
  )
  recs[last[1]] = JSON.stringify(rec)
  writeFileSync(join(dir, 'planted.jsonl'), recs.join('\n'))
  const r = await validate(join(dir, 'planted.jsonl'))
  t.false(r.valid)
  t.true(
    r.findings.some((f) => f.code === 'tool-use-without-result' && f.message.includes(id)),
    JSON.stringify(r.findings),
  )
})

realTest(
  'real transcripts: an independent JSON.parse emulation of the API view agrees with the native counts',
  async (t) => {
    for (const name of Object.keys(REAL_VERDICTS)) {
      const path = join(REAL, name)
      const lines = readFileSync(path, 'utf8').split('\n')
      const idx = await native.scanFile(path)
      const chain = native.activeChain(idx)
      const recs = [...chain.indexes].map((i) => JSON.parse(lines[idx.record(i)!.line - 1]))
      // Only what follows the last compact boundary is sent.
      const cut = recs.map((r) => r.type === 'system' && r.subtype === 'compact_boundary').lastIndexOf(true)
      const msgs: { role: string; id?: string; blocks: any[] }[] = []
      for (const r of recs.slice(cut + 1)) {
        if ((r.type !== 'user' && r.type !== 'assistant') || r.isSidechain || r.isApiErrorMessage) continue
        const c = r.message?.content
        const blocks = typeof c === 'string' ? [{ type: 'text', text: c }] : Array.isArray(c) ? c : []
        const last = msgs[msgs.length - 1]
        const id = r.type === 'assistant' ? r.message?.id : undefined
        if (last && last.role === r.type && (r.type === 'user' || (id && last.id === id))) last.blocks.push(...blocks)
        else msgs.push({ role: r.type, id, blocks })
      }
      const report = await validate(path)
      t.is(report.counts.apiMessages, msgs.length, `${name}: API messages`)
      const uses = msgs.flatMap((m) =>
        m.role === 'assistant' ? m.blocks.filter((b) => b.type === 'tool_use' || b.type === 'server_tool_use') : [],
      )
      t.is(report.counts.toolUses, uses.length, `${name}: tool calls`)
      // Every call answered exactly once by the next message, and every result answers one.
      msgs.forEach((m, k) => {
        if (m.role !== 'assistant') return
        const ids = m.blocks.filter((b) => b.type === 'tool_use').map((b) => b.id)
        const next = msgs[k + 1]
        const answers =
          next?.role === 'user' ? next.blocks.filter((b) => b.type === 'tool_result').map((b) => b.tool_use_id) : []
        t.deepEqual([...answers].sort(), [...ids].sort(), `${name}: results of message ${k}`)
      })
    }
  },
)
