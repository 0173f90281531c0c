import test from 'ava'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import native from '../src-ts/native.js'
import { cutText, deriveFacts, readSummaryInputs, SummaryEntry } from '../src-ts/compress/summary-inputs.js'
import { deterministicSummary } from '../src-ts/compress/deterministic-summary.js'
import { SECTION_HEADINGS } from '../src-ts/compress/summary-sections.js'
import { composeSummary } from '../src-ts/compress/model-summary.js'
import { buildPack } from '../src-ts/compress/pack.js'
import { PLANTED, planted, plantedLines } from './helpers/summary-fixture.js'
import { REAL } from './helpers/transcripts.js'

const hasReal = existsSync(REAL)
const realTest = hasReal ? test : test.skip
if (!hasReal) console.warn(`real transcripts not found at ${REAL}: those tests are skipped`)

/** The L anchor of the line of `text` that contains `needle`. */
function anchoredLine(text: string, needle: string): string | undefined {
  return text.split('\n').find((l) => l.includes(needle) && /^- L\d+ /.test(l))
}

test('estimator: the binding gives each character class its weight', (t) => {
  t.is(native.estimateTextTokens('abcd'), 1)
  t.is(native.estimateTextTokens('漢字かな한국'), 6 * 1.3)
  t.is(native.estimateTextTokens('😀€\u0301'), 3 * 1.5)
  t.is(native.estimateTextTokens('éЖ'), 1.6)
  const p = planted()
  const all = native.estimateRecordTokens(p.bytes, p.index)
  t.is(all.length, p.index.length)
  t.is(all[0], 0, 'a metadata record is not a message')
  t.true(all[2] > 12, 'a prompt is its text plus the record allowance')
  t.deepEqual([...native.estimateRecordTokens(p.bytes, p.index, new Uint32Array([2]))], [all[2]])
  t.throws(() => native.estimateRecordTokens(p.bytes, p.index, new Uint32Array([999])), { message: /out of range/ })
})

test('summary inputs: prompts, thinking, todos, commands with failures, created and edited files', (t) => {
  const { inputs } = planted()
  t.truthy(inputs.entries.find((e) => e.priorSummary?.includes(PLANTED.prior)))
  t.truthy(inputs.entries.find((e) => e.human?.includes(PLANTED.constraint)))
  t.truthy(inputs.entries.find((e) => e.thinking.includes(PLANTED.thinking)))
  t.deepEqual(
    inputs.todos.at(-1)?.todos.map((x) => x.status),
    ['completed', 'in_progress'],
  )
  const bash = inputs.commands.find((c) => c.command === PLANTED.failedCommand)
  t.true(bash?.failed)
  t.is(bash?.outcome?.exitCode, 1)
  t.true(bash?.validation)
  t.deepEqual(
    inputs.fileChanges.map((f) => [f.path, f.created]),
    [
      [PLANTED.created, true],
      [PLANTED.edited, false],
    ],
  )
  t.is(inputs.firstLine, 2)
  t.is(inputs.lastLine, 15)
})

test('deterministic summary: nine sections in order, preamble, transcript path, planted facts anchored', (t) => {
  const { inputs } = planted()
  const s = deterministicSummary(inputs, {
    transcriptPath: '/home/u/.claude/projects/p/s.jsonl',
    firstKeptLine: 16,
    keptRecords: 4,
  })
  t.true(s.text.startsWith('This session is being continued from a previous conversation.'))
  t.true(s.text.includes('read the full transcript at: /home/u/.claude/projects/p/s.jsonl'))
  const headings = s.text.split('\n').filter((l) => l.startsWith('#'))
  t.deepEqual(
    headings,
    SECTION_HEADINGS.map((h) => `## ${h}`),
  )
  for (const needle of [
    PLANTED.constraint,
    PLANTED.todo,
    PLANTED.failedCommand,
    PLANTED.failure,
    PLANTED.rejected,
    PLANTED.decision,
    PLANTED.edited,
    PLANTED.created,
    PLANTED.prior,
    PLANTED.japanese,
  ]) {
    t.truthy(anchoredLine(s.text, needle.slice(0, 40)), `anchored line for ${needle}`)
  }
  t.regex(anchoredLine(s.text, PLANTED.failedCommand) ?? '', /FAILED \(exit 1\): AssertionError/)
  t.regex(anchoredLine(s.text, PLANTED.created) ?? '', /File created/)
  // The working state: the last failed command with its error, in the current-state section.
  const current = s.text.split('## ')[SECTION_HEADINGS.findIndex((h) => /current/i.test(h)) + 1] ?? ''
  const failedLine = inputs.commands.find((c) => c.command === PLANTED.failedCommand)!.line
  t.true(
    current.includes(
      `- L${failedLine} Last failed command (not run again since): \`${PLANTED.failedCommand}\` FAILED (exit 1): AssertionError`,
    ),
    current,
  )
  t.regex(s.text, /continues verbatim after this summary from line 16 \(4 records\)/)
  // Every body line cites a line of the source.
  const body = s.text.split('\n').filter((l) => l.startsWith('- '))
  t.true(body.every((l) => /^- L\d+ /.test(l)))
})

test('deterministic summary: the budget holds, user wording outranks tool detail', (t) => {
  const { inputs } = planted()
  const full = deterministicSummary(inputs, { transcriptPath: '/t.jsonl' })
  for (const budget of [1800, 2500, 4000]) {
    const s = deterministicSummary(inputs, { transcriptPath: '/t.jsonl', charBudget: budget })
    t.true(s.text.length <= budget, `${s.text.length} <= ${budget}`)
    if (budget < 2400) t.true(s.included < full.included)
  }
  const small = deterministicSummary(inputs, { transcriptPath: '/t.jsonl', charBudget: 2200 }).text
  t.truthy(anchoredLine(small, PLANTED.constraint.slice(0, 30)), 'the user constraint survives a small budget')
  t.is(anchoredLine(small, 'Ran `'), undefined)
})

test('cutText never splits a surrogate pair', (t) => {
  const s = 'ab😀cd'
  t.is(cutText(s, 4), 'ab…')
  t.is(cutText(s, 5), 'ab😀…')
  t.is(cutText(s, 10), s)
})

test('composeSummary: deterministic text within the budget; verbatim prior summaries or a reported fallback', (t) => {
  const { inputs } = planted()
  const folded = composeSummary(inputs, { transcriptPath: '/t.jsonl', charBudget: 4000 })
  t.true(folded.text.length <= 4000)
  t.is(folded.preserveMode, 'folded')
  t.throws(() => composeSummary(inputs, { transcriptPath: '/t.jsonl', charBudget: 3999 }), { message: /at least 4000/ })
  const verbatim = composeSummary(inputs, {
    transcriptPath: '/t.jsonl',
    charBudget: 4000,
    preservePriorSummariesVerbatim: true,
  })
  t.is(verbatim.preserveMode, 'verbatim')
  t.true(verbatim.text.includes(inputs.entries[0].priorSummary as string))
  t.false(verbatim.text.includes('(prior summary)'), 'embedded verbatim, not also folded')
  t.true(folded.text.includes('(prior summary)'))
  t.true(verbatim.text.length <= 6000)
  const big = inputs.entries[0].priorSummary + '\n' + 'x'.repeat(7000)
  const bigInputs = { ...inputs, entries: inputs.entries.map((e, i) => (i === 0 ? { ...e, priorSummary: big } : e)) }
  const fallback = composeSummary(bigInputs, {
    transcriptPath: '/t.jsonl',
    charBudget: 4000,
    preservePriorSummariesVerbatim: true,
  })
  t.is(fallback.preserveMode, 'folded')
  t.regex(fallback.fallbackReason ?? '', /do not fit 1\.5 × --summary-char-budget/)
  t.true(fallback.text.length <= 4000)
})

realTest(
  'deterministic summary on every real transcript: nine sections, anchors in the summarised set, budget',
  (t) => {
    for (const name of readdirSync(REAL).filter((f) => f.endsWith('.jsonl'))) {
      const bytes = readFileSync(join(REAL, name))
      const index = native.scanBuffer(bytes)
      const chain = native.activeChain(index).indexes
      const older = chain.subarray(0, Math.floor(chain.length * 0.7))
      const inputs = readSummaryInputs(bytes, index, older)
      const lines = new Set(inputs.entries.map((e) => e.line))
      for (const budget of [4000, 60000]) {
        const s = deterministicSummary(inputs, { transcriptPath: join(REAL, name), charBudget: budget })
        t.true(s.text.length <= budget, `${name}: ${s.text.length} <= ${budget}`)
        t.deepEqual(
          s.text.split('\n').filter((l) => l.startsWith('## ')),
          SECTION_HEADINGS.map((h) => `## ${h}`),
          name,
        )
        for (const m of s.text.matchAll(/^- L(\d+) /gm))
          t.true(lines.has(Number(m[1])) || inputs.entries.length === 0, `${name}: L${m[1]} is summarised`)
      }
      const humans = inputs.entries.filter((e) => e.human !== undefined)
      const s = deterministicSummary(inputs, { transcriptPath: name }).text
      if (humans.length) t.true(s.includes(`- L${humans.at(-1)!.line} Latest user request:`), `${name}: latest request`)
    }
  },
)

test('summary inputs: validation commands by their program; a cancelled parallel call is not a failure', (t) => {
  const entry = (line: number, calls: [string, string][], results: [string, string, boolean][]): SummaryEntry => ({
    record: line,
    line,
    texts: [],
    thinking: [],
    parsed: true,
    toolCalls: calls.map(([id, command]) => ({
      line,
      id,
      name: 'Bash',
      input: { command },
      inputJson: JSON.stringify({ command }),
    })),
    toolResults: results.map(([id, text, isError]) => ({ line, toolUseId: id, text, chars: text.length, isError })),
  })
  const facts = deriveFacts([
    entry(
      1,
      [
        ['a', 'mkdir -p tools/lint'],
        ['b', 'cd web && npm test'],
        ['c', 'CI=1 cargo clippy --all'],
        ['d', 'git checkout -b add-ci-and-lint'],
        ['e', 'ls | go vet ./...'],
      ],
      [],
    ),
    entry(
      2,
      [],
      [
        ['b', 'Exit code 1\nFAIL x', true],
        ['c', '<tool_use_error>Cancelled: parallel tool call Bash(npm test) errored</tool_use_error>', true],
      ],
    ),
  ])
  t.deepEqual(
    facts.commands.map((c) => [c.command.split(' ')[0], c.validation]),
    [
      ['mkdir', false],
      ['cd', true],
      ['CI=1', true],
      ['git', false],
      ['ls', true],
    ],
  )
  const [, b, c] = facts.commands
  t.true(b.failed)
  t.false(c.failed)
  t.true(c.cancelled)
})

test('only the records in summaryIndexes reach the summary and the pack', (t) => {
  const lines = plantedLines()
  const secret = 'REWOUND-BRANCH-TEXT-never-in-a-summary'
  const rewound = JSON.parse(lines[2])
  lines.push(JSON.stringify({ ...rewound, uuid: 'rewound', message: { role: 'user', content: secret } }))
  const p = planted(lines)
  const without = p.summaryIndexes.filter((i) => i !== p.index.length - 1)
  const inputs = readSummaryInputs(p.bytes, p.index, without)
  t.false(deterministicSummary(inputs, { transcriptPath: '/t.jsonl' }).text.includes(secret))
  t.false(buildPack({ ...p, summaryIndexes: without, inputs }).text.includes(secret))
  t.true(buildPack(p).text.includes(secret), 'the same record is shown when it is summarised')
})

test("summary inputs: the client's task records (TaskCreate, TaskUpdate) replay to the latest task list", (t) => {
  const call = (line: number, id: string, name: string, input: Record<string, unknown>): SummaryEntry => ({
    record: line,
    line,
    texts: [],
    thinking: [],
    parsed: true,
    toolCalls: [{ line, id, name, input, inputJson: JSON.stringify(input) }],
    toolResults: [],
  })
  const result = (line: number, id: string, text: string, isError = false): SummaryEntry => ({
    record: line,
    line,
    texts: [],
    thinking: [],
    parsed: true,
    toolCalls: [],
    toolResults: [{ line, toolUseId: id, text, chars: text.length, isError }],
  })
  const facts = deriveFacts([
    call(10, 'c1', 'TaskCreate', { subject: 'Write the parser', activeForm: 'Writing the parser' }),
    result(11, 'c1', 'Task #1 created successfully: Write the parser'),
    call(12, 'c2', 'TaskCreate', { subject: 'Add tests' }),
    result(13, 'c2', 'Task #2 created successfully: Add tests'),
    call(14, 'c3', 'TaskCreate', { subject: 'Drop the old path' }),
    result(15, 'c3', 'Task #3 created successfully: Drop the old path'),
    call(20, 'u1', 'TaskUpdate', { taskId: '1', status: 'completed' }),
    result(21, 'u1', 'Updated task #1 status'),
    call(22, 'u2', 'TaskUpdate', { taskId: '2', status: 'in_progress', subject: 'Add property tests' }),
    result(23, 'u2', 'Updated task #2 subject, status'),
    call(24, 'u3', 'TaskUpdate', { taskId: '3', status: 'deleted' }),
    result(25, 'u3', 'Updated task #3 deleted'),
    // a refused update changes nothing
    call(26, 'u4', 'TaskUpdate', { taskId: '2', status: 'completed' }),
    result(27, 'u4', '<tool_use_error>Task not found</tool_use_error>', true),
  ])
  const last = facts.todos.at(-1)!
  t.is(last.source, 'tasks')
  t.is(last.line, 24)
  t.deepEqual(last.todos, [
    { content: 'Write the parser', status: 'completed', activeForm: 'Writing the parser', line: 20 },
    { content: 'Add property tests', status: 'in_progress', activeForm: undefined, line: 22 },
  ])
  const text = deterministicSummary(facts, { transcriptPath: '/t.jsonl', firstKeptLine: 30, keptRecords: 1 }).text
  t.regex(text, /- L24 Latest todo list \(the task records, TaskCreate\/TaskUpdate\), 2 items:/)
  t.regex(text, /- L20 \[completed\] Write the parser/)
  t.regex(text, /- L22 \[in_progress\] Add property tests/)
  t.regex(text, /- L22 Open todo \[in_progress\]: Add property tests/)
  t.notRegex(text, /Drop the old path/)
})

realTest('the default summary of a real session states its last task list, however long the session', async (t) => {
  const file = join(REAL, 'real-07.jsonl')
  const bytes = readFileSync(file)
  const index = native.scanBuffer(bytes)
  const n = index.summary().records
  const inputs = readSummaryInputs(
    bytes,
    index,
    Uint32Array.from({ length: n }, (_, i) => i),
    {
      successResultChars: 120,
    },
  )
  const text = composeSummary(inputs, { transcriptPath: file }).text
  t.regex(text, /Latest todo list \(the task records, TaskCreate\/TaskUpdate\), 5 items:/)
  t.regex(text, /- L392 \[completed\] Test and lint/)
})
