import test from 'ava'
import fc from 'fast-check'
import { CUE_PATTERNS } from '../src-ts/compress/deterministic-summary.js'
import { topLevelAlternatives, anyPatternTest } from '../src-ts/compress/any-pattern.js'

const joined = new RegExp(CUE_PATTERNS.map((r) => r.source).join('|'), 'i')
const fast = anyPatternTest(CUE_PATTERNS)

test('top-level alternatives ignore bars inside groups, classes and escapes', (t) => {
  t.deepEqual(topLevelAlternatives(String.raw`\b(a|b)\b|[x|y]|c\|d|e`), [
    String.raw`\b(a|b)\b`,
    '[x|y]',
    String.raw`c\|d`,
    'e',
  ])
})

test('anyPatternTest answers as the joined cue regex, on cue words, their neighbours and other scripts', (t) => {
  const fragments = [
    'decided',
    'decision',
    'going with',
    'go with',
    'opted for',
    'opt for',
    'the plan',
    'because',
    'since',
    'root cause',
    'found',
    'turns out',
    'instead of',
    "won't work",
    'dropped',
    'drop',
    'reverted',
    'TODO',
    'FIXME',
    'not yet',
    'might break',
    'next step',
    'decidedly',
    'undecided',
    'becausex',
    'xfound',
    'the',
    'plan',
    'I',
    "I'll use",
    'will use',
    'we',
    'not',
    'work',
    'Wir entschieden',
    '决定',
    '因为',
    'リスク',
    '안 됨',
    '안됨',
    'потому',
    'parce que',
    'weil',
    'DECISION',
    'Because',
    'ROOT CAUSE',
    'fixed by',
    'the fix is',
    'a',
    'b',
    'x',
    '_',
    '-',
    '.',
    ',',
    ' ',
    '\n',
    'é',
    '😀',
  ]
  const text = fc
    .array(fc.oneof(fc.constantFrom(...fragments), fc.string({ maxLength: 6 })), { maxLength: 12 })
    .map((parts) => parts.join(''))
  fc.assert(
    fc.property(text, (s) => fast(s) === joined.test(s)),
    { numRuns: 20000 },
  )
  // Each single fragment, alone and with word characters glued on either side.
  for (const f of fragments)
    for (const s of [f, `x${f}`, `${f}x`, ` ${f} `]) t.is(fast(s), joined.test(s), JSON.stringify(s))
})

test('anyPatternTest refuses patterns it cannot rewrite faithfully', (t) => {
  t.throws(() => anyPatternTest([/\bword\b/]), { message: /case-insensitive/ })
  t.throws(() => anyPatternTest([/\bword\b/iu]), { message: /without u/ })
})
