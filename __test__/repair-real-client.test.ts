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
  callRecordLost,
  callResultLines,
  danglingParent,
  join as joinLines,
  linesOf,
  loneSurrogate,
  nulPadding,
  recordsOnOneLine,
  relinkableLines,
  resultOffItsCall,
  resultOffItsCallByTime,
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
  // (side by side: each resume has its own HOME and mock)
  const [undamagedRun, damagedRun, repairedRun] = await Promise.all([
    resumeWithRealClient(expected, { sessionId }),
    resumeWithRealClient(damaged, { sessionId }),
    resumeWithRealClient(repaired, { sessionId }),
  ])
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
    const [before, after] = await Promise.all([
      resumeWithRealClient(original, { sessionId }),
      resumeWithRealClient(r.output!, { sessionId }),
    ])
    t.is(after.exitCode, 0, after.stderr)
    t.truthy(before.history)
    t.deepEqual(after.history, before.history)
  },
)

/** Whether the messages pair every call with a result in the next message and every result with
 * a call in the message before (what the API requires). */
function pairingProblems(messages: { role: string; content: any }[]): string[] {
  const ids = (m: { content: any } | undefined, type: string, key: string): string[] =>
    Array.isArray(m?.content) ? m.content.filter((b: any) => b?.type === type).map((b: any) => b[key]) : []
  const out: string[] = []
  messages.forEach((m, i) => {
    if (m.role === 'assistant')
      for (const id of ids(m, 'tool_use', 'id'))
        if (!ids(messages[i + 1], 'tool_result', 'tool_use_id').includes(id)) out.push(`${i}: call ${id} unanswered`)
    if (m.role === 'user')
      for (const id of ids(m, 'tool_result', 'tool_use_id'))
        if (messages[i - 1]?.role !== 'assistant' || !ids(messages[i - 1], 'tool_use', 'id').includes(id))
          out.push(`${i}: result ${id} answers no call of the message before`)
  })
  return out
}

const blockIds = (history: { content: any }[] | undefined): string[] =>
  (history ?? []).flatMap((m) =>
    Array.isArray(m.content) ? m.content.map((b: any) => b.id ?? b.tool_use_id).filter(Boolean) : [],
  )

test.serial(
  'a tool_result whose call is off the active chain: relinked to the call, the client sends both again',
  async (t) => {
    const source = join(REAL, 'real-05.jsonl')
    if (!existsSync(source)) return t.fail(`${source} is missing`)
    const original = readFileSync(source)
    const k = callResultLines(original)[5]
    t.truthy(k, 'a call and its result to damage')
    const id = JSON.parse(linesOf(original).lines[k].toString('utf8')).message.content[0].tool_use_id
    const byParent = resultOffItsCall(original, k)
    const byTime = resultOffItsCallByTime(original, k)!
    t.truthy(byTime)
    const sessionId = sessionOf(original)
    const undamagedRun = await resumeWithRealClient(original, { sessionId })
    t.truthy(undamagedRun.history)
    t.true(blockIds(undamagedRun.history).includes(id))
    for (const step of [byParent, byTime]) {
      t.true(errors(step.damaged).some((f) => f.code === 'orphan-tool-result'))
      const r = native.repairTranscript(step.damaged)
      t.is(r.refusal, undefined, r.refusal?.message)
      t.deepEqual(
        r.mends.map((m) => m.kind),
        ['orphan-tool-result'],
      )
      t.true(r.output!.equals(step.expected), 'every other record byte for byte')
      t.deepEqual(errors(r.output!), [])
      const [damagedRun, repairedRun] = await Promise.all([
        resumeWithRealClient(step.damaged, { sessionId }),
        resumeWithRealClient(r.output!, { sessionId }),
      ])
      for (const run of [damagedRun, repairedRun]) t.is(run.exitCode, 0, run.stderr)
      // Measured: the client sends neither the call nor its result for the damaged file (both
      // are in it); the request is valid, the turn is lost.
      t.false(blockIds(damagedRun.history).includes(id), 'the damaged file loses the call and its result')
      t.deepEqual(pairingProblems([...damagedRun.history!, damagedRun.finalMessage!]), [])
      t.deepEqual(repairedRun.history, undamagedRun.history)
    }
  },
)

test.serial(
  'left to the client: a result whose call no record holds, a call at the end with no result, a parallel call spliced back',
  async (t) => {
    const source = join(REAL, 'real-05.jsonl')
    if (!existsSync(source)) return t.fail(`${source} is missing`)
    const original = readFileSync(source)
    const sessionId = sessionOf(original)
    const ks = callResultLines(original)
    // The call's record is lost: nothing in the file can bring it back. The client drops the
    // result block (a message left empty is sent as "(no content)"): a valid request.
    const lost = callRecordLost(original, ks[5])
    const id = JSON.parse(linesOf(original).lines[ks[5]].toString('utf8')).message.content[0].tool_use_id
    const r = native.repairTranscript(lost)
    t.is(r.output, undefined)
    t.deepEqual(
      r.left.map((l) => l.kind),
      ['orphan-tool-result'],
    )
    const lostRun = await resumeWithRealClient(lost, { sessionId })
    t.is(lostRun.exitCode, 0, lostRun.stderr)
    t.false(blockIds(lostRun.history).includes(id))
    t.deepEqual(pairingProblems([...lostRun.history!, lostRun.finalMessage!]), [])
    // The file ends on a call (its result never written): the client sends the call with an
    // error result of its own; nothing is lost, nothing to repair.
    const { lines } = linesOf(original)
    const parentOf = JSON.parse(lines[ks[5]].toString('utf8')).parentUuid
    const callLine = lines.findIndex((l) => l.includes(`"uuid":"${parentOf}"`))
    t.true(callLine > 0)
    const endsOnCall = Buffer.concat([...lines.slice(0, callLine + 1).flatMap((l) => [l, Buffer.from('\n')])])
    const end = native.repairTranscript(endsOnCall)
    t.deepEqual([end.mends, end.left, end.output], [[], [], undefined])
    const endRun = await resumeWithRealClient(endsOnCall, { sessionId })
    t.is(endRun.exitCode, 0, endRun.stderr)
    const sent = endRun.history!
    const answer = sent.findIndex((m) =>
      Array.isArray(m.content) ? m.content.some((b: any) => b.type === 'tool_result' && b.tool_use_id === id) : false,
    )
    t.true(answer > 0, 'the call is sent with a result')
    t.true(sent[answer].content.find((b: any) => b.tool_use_id === id).is_error, 'an error result the client made')
    t.deepEqual(pairingProblems([...sent, endRun.finalMessage!]), [])
    // A parallel call's result hung from the record before its call (the call's fragment shares
    // its message.id with fragments on the chain): the client splices the call back, nothing is
    // lost, and nothing is repaired.
    const recs = lines.map((l) => JSON.parse(l.toString('utf8')))
    const fragmentResult = recs.findIndex((r, j) => {
      const c = recs.find((x) => x.uuid === r.parentUuid)
      const id = c?.type === 'assistant' ? c.message?.id : undefined
      const result = r.type === 'user' && JSON.stringify(r.message?.content ?? '').includes('"tool_result"')
      return j > 0 && result && id && recs.filter((x) => x.type === 'assistant' && x.message?.id === id).length > 2
    })
    t.true(fragmentResult > 0)
    const spliced = resultOffItsCall(original, fragmentResult).damaged
    t.deepEqual(native.repairTranscript(spliced).mends, [])
    const [splicedRun, originalRun] = await Promise.all([
      resumeWithRealClient(spliced, { sessionId }),
      resumeWithRealClient(original, { sessionId }),
    ])
    t.deepEqual(splicedRun.history, originalRun.history)
  },
)

test.serial(
  'a torn line that held a call with its result written onto it: the chain comes back, the result whose call was lost is left',
  async (t) => {
    const source = join(REAL, 'real-05.jsonl')
    if (!existsSync(source)) return t.fail(`${source} is missing`)
    const original = readFileSync(source)
    const sessionId = sessionOf(original)
    const { lines, terminated } = linesOf(original)
    const k = callResultLines(original)[5]
    const j = k - 1
    t.true(
      lines[k].includes(`"parentUuid":"${JSON.parse(lines[j].toString('utf8')).uuid}"`),
      'the call is the line before',
    )
    // The call's write cut short after 200 bytes, the result written onto the same line.
    const damaged = joinLines(
      [...lines.slice(0, j), Buffer.concat([lines[j].subarray(0, 200), lines[k]]), ...lines.slice(k + 1)],
      terminated,
    )
    const r = native.repairTranscript(damaged)
    t.is(r.refusal, undefined, r.refusal?.message)
    t.deepEqual(r.mends.map((m) => m.kind).sort(), ['dangling-parent', 'torn-line'])
    t.deepEqual(
      r.left.map((l) => l.kind),
      ['orphan-tool-result'],
    )
    // The only error left is that result, which the client drops.
    t.deepEqual(
      errors(r.output!).map((f) => f.code),
      ['orphan-tool-result'],
    )
    const [damagedRun, repairedRun] = await Promise.all([
      resumeWithRealClient(damaged, { sessionId }),
      resumeWithRealClient(r.output!, { sessionId }),
    ])
    for (const run of [damagedRun, repairedRun]) t.is(run.exitCode, 0, run.stderr)
    // Measured: for the damaged file the client resumes only the records after the torn line.
    t.true(repairedRun.history!.length > damagedRun.history!.length + 20)
    t.deepEqual(pairingProblems([...repairedRun.history!, repairedRun.finalMessage!]), [])
  },
)
