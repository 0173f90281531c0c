// Property tests of repair: for random records (texts with braces, quotes, escapes, emoji and
// non-ASCII; user and assistant turns, tool calls with their results; summary records) and
// random damage of each kind, the repair gives back the records of the undamaged file, byte for
// byte, and refuses nothing.
import test from 'ava'
import fc from 'fast-check'
import native from '../src-ts/native.js'
import {
  callResultLines,
  danglingParent,
  loneSurrogate,
  nulPadding,
  recordsOnOneLine,
  relinkableLines,
  resultOffItsCall,
  resultOffItsCallByTime,
  textLines,
  tornBeforeRecord,
  tornTail,
  type Damaged,
} from './helpers/damage.js'

const SESSION = '7e57a11e-0000-4000-8000-0000000000aa'
const uuid = (n: number) => `7e57a11e-0000-4000-8000-${n.toString(16).padStart(12, '0')}`

const textArb = fc.string({
  unit: fc.constantFrom('a', 'b', ' ', '{', '}', '"', '\\', '\n', 'é', '漢', '😀', ':', ',', '[', ']'),
  maxLength: 40,
})

/** A linear conversation of `texts.length` records (user and assistant alternating, seconds
 * apart; the assistant turns `tools` marks, and always the first, are a tool call answered by
 * the next user record), a summary record after some of them, LF line ends, with or without a
 * final newline. */
function transcript(texts: string[], summaries: boolean[], tools: boolean[], terminated: boolean): Buffer {
  const lines: string[] = []
  const isCall = (i: number) => i % 2 === 1 && (i === 1 || tools[i] === true)
  texts.forEach((text, i) => {
    const user = i % 2 === 0
    const ts = new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString()
    const base = { parentUuid: i === 0 ? null : uuid(i), isSidechain: false, type: user ? 'user' : 'assistant' }
    const message = user
      ? {
          role: 'user',
          content: isCall(i - 1)
            ? [{ type: 'tool_result', tool_use_id: `toolu_${i - 1}`, content: `r${i} ${text}` }]
            : [{ type: 'text', text: `u${i} ${text}` }],
        }
      : {
          id: `msg_${i}`,
          type: 'message',
          role: 'assistant',
          model: 'm',
          content: isCall(i)
            ? [{ type: 'tool_use', id: `toolu_${i}`, name: 'Read', input: { file_path: `/f ${text}` } }]
            : [{ type: 'text', text: `a${i} ${text}` }],
        }
    lines.push(JSON.stringify({ ...base, message, uuid: uuid(i + 1), timestamp: ts, sessionId: SESSION }))
    if (summaries[i]) lines.push(JSON.stringify({ type: 'summary', summary: `s ${text}`, leafUuid: uuid(i + 1) }))
  })
  return Buffer.from(lines.join('\n') + (terminated ? '\n' : ''))
}

const fileArb = fc
  .record({
    texts: fc.array(textArb, { minLength: 4, maxLength: 12 }),
    summaries: fc.array(fc.boolean(), { maxLength: 12 }),
    tools: fc.array(fc.boolean(), { maxLength: 12 }),
    terminated: fc.boolean(),
  })
  .map(({ texts, summaries, tools, terminated }) => transcript(texts, summaries, tools, terminated))

const lineCount = (b: Buffer) =>
  b
    .toString('utf8')
    .split('\n')
    .filter((l) => l !== '').length

type Damage = (b: Buffer, pick: number, n: number) => Damaged

const DAMAGE: Record<string, Damage> = {
  'records-on-one-line': (b, pick) => recordsOnOneLine(b, pick % (lineCount(b) - 1)),
  'torn-line (tail)': (b, pick, n) => {
    const lines = b.toString('utf8').split('\n').filter(Boolean)
    const rec = Buffer.from(lines[pick % lines.length])
    return tornTail(b, rec, 1 + (n % (rec.length - 1)))
  },
  'torn-line (before a record)': (b, pick, n) => {
    const k = pick % lineCount(b)
    const len = Buffer.byteLength(b.toString('utf8').split('\n')[k])
    return tornBeforeRecord(b, k, 1 + (n % (len - 2)))
  },
  'non-json-bytes': (b, pick, n) => nulPadding(b, pick % lineCount(b), 1 + (n % 300), n % 2 === 0),
  'lone-surrogates': (b, pick) => {
    const ks = textLines(b)
    return loneSurrogate(b, ks[pick % ks.length])
  },
  'dangling-parent': (b, pick) => {
    const ks = relinkableLines(b)
    return danglingParent(b, ks[pick % ks.length])
  },
  "orphan-tool-result (hung from its call's parent)": (b, pick) => {
    const ks = callResultLines(b)
    return resultOffItsCall(b, ks[pick % ks.length])
  },
  'orphan-tool-result (parent lost, re-attached before its call)': (b, pick) => {
    const ks = callResultLines(b)
    return resultOffItsCallByTime(b, ks[pick % ks.length])!
  },
}

for (const [name, damage] of Object.entries(DAMAGE)) {
  test(`property: ${name}: repair gives back the undamaged file`, (t) => {
    fc.assert(
      fc.property(fileArb, fc.nat(), fc.nat(), (file, pick, n) => {
        const { damaged, expected } = damage(file, pick, n)
        const r = native.repairTranscript(damaged)
        if (r.refusal) throw new Error(`refused: ${r.refusal.message}`)
        if (!r.output?.equals(expected))
          throw new Error(`not the undamaged bytes:\n${r.output?.toString('utf8')}\n---\n${expected.toString('utf8')}`)
        if (native.repairTranscript(r.output).mends.length > 0) throw new Error('something left to mend')
        return true
      }),
      { numRuns: 150 },
    )
    t.pass()
  })
}

test('property: several kinds of damage at once are all mended', (t) => {
  fc.assert(
    fc.property(fileArb, fc.nat(), fc.nat(), (file, pick, n) => {
      // Damage that changes no line count first, then the line-shifting kinds from the end.
      let step = DAMAGE['lone-surrogates'](file, pick, n)
      const expected = step.expected
      step = DAMAGE["orphan-tool-result (hung from its call's parent)"](step.damaged, pick + 3, n)
      step = DAMAGE['non-json-bytes'](step.damaged, pick + 1, n)
      step = DAMAGE['records-on-one-line'](step.damaged, pick + 2, n)
      const rec = Buffer.from(file.toString('utf8').split('\n')[0])
      step = tornTail(step.damaged, rec, 1 + (n % (rec.length - 1)))
      const r = native.repairTranscript(step.damaged)
      if (r.refusal) throw new Error(`refused: ${r.refusal.message}`)
      const want = expected[expected.length - 1] === 0x0a ? expected : Buffer.concat([expected, Buffer.from('\n')])
      return r.output!.equals(want)
    }),
    { numRuns: 100 },
  )
  t.pass()
})
