// repair with the real Claude Code client (pinned 2.1.332, loopback mock only): a copy of a real
// transcript gets every kind of damage at once (made here, at test time), the client resumes the
// undamaged file, the damaged one and the repaired one, and the repaired one must be sent exactly
// as the undamaged one (the damaged one is not: the damage hid records), and validate. The client
// sends a lone surrogate as it is (which strict JSON readers, the API among them, reject): the
// undamaged reference carries the U+FFFD the repair writes. A real slice whose first parent was
// never written resumes the same after its relink, and then validates.
import test from 'ava'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import native from '../src-ts/native.js'
import { ensureClaudeClient, resumeWithRealClient } from './helpers/claude-client.js'
import {
  danglingParent,
  linesOf,
  loneSurrogate,
  nulPadding,
  recordsOnOneLine,
  relinkableLines,
  textLines,
  tornBeforeRecord,
  tornTail,
} from './helpers/damage.js'
import { sessionOf } from './helpers/live-estate.js'
import { REAL } from './helpers/transcripts.js'

test.before(async () => {
  await ensureClaudeClient()
})

const errors = (bytes: Buffer) => native.validateBuffer(bytes).findings.filter((f) => f.severity === 'error')

test.serial('every kind of damage in a real transcript: the repaired file resumes as the undamaged one', async (t) => {
  const source = join(REAL, 'real-05.jsonl')
  if (!existsSync(source)) return t.fail(`${source} is missing`)
  const original = readFileSync(source)
  const busy = new Set([29, 30, 40, 41, 70])
  const surrogateLine = textLines(original, 'assistant').find((k) => k > 50 && !busy.has(k))!
  const relinkLine = relinkableLines(original).find((k) => k > 90 && k !== surrogateLine)!
  let step = loneSurrogate(original, surrogateLine)
  const expected = step.expected
  step = danglingParent(step.damaged, relinkLine)
  step = tornBeforeRecord(step.damaged, 70, 120)
  step = recordsOnOneLine(step.damaged, 40)
  step = nulPadding(step.damaged, 30, 2048, true)
  step = tornTail(step.damaged, linesOf(original).lines[20], 400)
  const damaged = step.damaged

  const r = native.repairTranscript(damaged)
  t.is(r.refusal, undefined, r.refusal?.message)
  t.deepEqual([...new Set(r.mends.map((m) => m.kind))].sort(), [
    'dangling-parent',
    'lone-surrogates',
    'non-json-bytes',
    'records-on-one-line',
    'torn-line',
  ])
  const repaired = r.output!
  t.true(repaired.equals(expected), 'every other record byte for byte')
  t.deepEqual(errors(repaired), [])

  const sessionId = sessionOf(original)
  const [undamagedRun, damagedRun, repairedRun] = [
    await resumeWithRealClient(expected, { sessionId }),
    await resumeWithRealClient(damaged, { sessionId }),
    await resumeWithRealClient(repaired, { sessionId }),
  ]
  for (const run of [undamagedRun, damagedRun, repairedRun]) t.is(run.exitCode, 0, run.stderr)
  t.truthy(undamagedRun.history)
  t.notDeepEqual(damagedRun.history, undamagedRun.history, 'the damage hides part of the conversation')
  // What the damaged file loses: the text of the records its bad lines hid.
  const sent = (run: typeof damagedRun) => JSON.stringify(run.history).length
  t.true(sent(damagedRun) < sent(undamagedRun))
  t.deepEqual(repairedRun.history, undamagedRun.history)
})

test.serial(
  'a real slice whose first parent was never written: relinked as the client reads it, then valid',
  async (t) => {
    const source = join(REAL, 'real-01.jsonl')
    if (!existsSync(source)) return t.fail(`${source} is missing`)
    const original = readFileSync(source)
    t.true(errors(original).some((f) => f.code === 'dangling-parent'))
    const r = native.repairTranscript(original)
    t.deepEqual(
      r.mends.map((m) => m.kind),
      ['dangling-parent'],
    )
    t.deepEqual(errors(r.output!), [])
    const sessionId = sessionOf(original)
    const before = await resumeWithRealClient(original, { sessionId })
    const after = await resumeWithRealClient(r.output!, { sessionId })
    t.is(after.exitCode, 0, after.stderr)
    t.truthy(before.history)
    t.deepEqual(after.history, before.history)
  },
)
