import test from 'ava'
import fc from 'fast-check'

import { formatBytes, formatInt, formatTokensCompact, formatUsd } from '../src-ts/terminal/format.js'
import { renderTable, stringWidth, stripAnsi } from '../src-ts/terminal/table.js'

test('stringWidth counts CJK and emoji as 2, ignores ANSI and combining marks', (t) => {
  t.is(stringWidth('abc'), 3)
  t.is(stringWidth(''), 0)
  t.is(stringWidth('日本語'), 6)
  t.is(stringWidth('한국어'), 6)
  t.is(stringWidth('ｈｉ'), 4) // fullwidth Latin
  t.is(stringWidth('a😀b'), 4)
  t.is(stringWidth('👨‍👩‍👧'), 2) // ZWJ family = one glyph
  t.is(stringWidth('🇯🇵'), 2)
  t.is(stringWidth('❤️'), 2) // VS16 emoji presentation
  t.is(stringWidth('e\u0301'), 1) // combining acute
  t.is(stringWidth('\u001b[31mred\u001b[0m'), 3)
  t.is(stringWidth('\u001b]8;;https://example.com\u0007link\u001b]8;;\u0007'), 4)
  t.is(stringWidth('\u001b[1;32m日本\u001b[39m'), 4)
})

test('stripAnsi removes colour codes', (t) => {
  t.is(stripAnsi('\u001b[1m\u001b[31mbold red\u001b[0m'), 'bold red')
})

test('renderTable aligns left and right columns, with header rule', (t) => {
  const out = renderTable(
    [{ header: 'Model' }, { header: 'Tokens', align: 'right' }],
    [
      ['opus', '1,234'],
      ['sonnet-long', '5'],
    ],
  )
  t.is(out, ['Model        Tokens', '-----------  ------', 'opus          1,234', 'sonnet-long       5'].join('\n'))
})

test('renderTable footer is separated by a rule', (t) => {
  const out = renderTable(
    [{ header: 'Day' }, { header: 'Cost', align: 'right' }],
    [
      ['mon', '$1.00'],
      ['tue', '$12.50'],
    ],
    { footer: ['Total', '$13.50'] },
  )
  t.is(
    out,
    ['Day      Cost', '-----  ------', 'mon     $1.00', 'tue    $12.50', '-----  ------', 'Total  $13.50'].join('\n'),
  )
})

test('renderTable pads CJK cells by display width, not string length', (t) => {
  const out = renderTable(
    [{ header: 'Project' }, { header: 'N', align: 'right' }],
    [
      ['日本語', '1'],
      ['abc', '22'],
    ],
  )
  const lines = out.split('\n')
  t.deepEqual(lines, ['Project   N', '-------  --', '日本語    1', 'abc      22'])
  // Every line of a fully-populated table has the same display width.
  t.true(lines.every((l) => stringWidth(l) === stringWidth(lines[0]!) || l.startsWith('---')))
  t.is(stringWidth(lines[2]!), stringWidth(lines[3]!))
})

test('renderTable ignores ANSI escapes when measuring', (t) => {
  const out = renderTable(
    [{ header: 'A' }, { header: 'B' }],
    [
      ['\u001b[31mred\u001b[0m', 'x'],
      ['green', 'y'],
    ],
  )
  const lines = out.split('\n').map(stripAnsi)
  t.deepEqual(lines, ['A      B', '-----  -', 'red    x', 'green  y'])
})

test('renderTable has no trailing spaces and fills missing cells', (t) => {
  const out = renderTable([{ header: 'Name' }, { header: 'Note' }], [['a', ''], ['bbbbbb'], ['c', 'hello']])
  for (const line of out.split('\n')) t.false(/ $/.test(line), JSON.stringify(line))
  t.is(out.split('\n')[2], 'a')
  t.false(out.endsWith('\n'))
})

test('renderTable rejects rows wider than the header and flattens newlines', (t) => {
  t.throws(() => renderTable([{ header: 'A' }], [['1', '2']]), { instanceOf: RangeError })
  t.is(renderTable([{ header: 'A' }], [['x\ny']]).split('\n')[2], 'x y')
})

test('formatInt', (t) => {
  t.is(formatInt(0), '0')
  t.is(formatInt(999), '999')
  t.is(formatInt(1000), '1,000')
  t.is(formatInt(1234567), '1,234,567')
  t.is(formatInt(-9876543), '-9,876,543')
  t.is(formatInt(1234.6), '1,235')
  t.is(formatInt(1e21), '1,000,000,000,000,000,000,000')
})

test('formatUsd', (t) => {
  t.is(formatUsd(1234.56), '$1,234.56')
  t.is(formatUsd(0), '$0.00')
  t.is(formatUsd(18), '$18.00')
  t.is(formatUsd(0.005), '$0.01')
  t.is(formatUsd(1234567.891), '$1,234,567.89')
  t.is(formatUsd(-3.5), '-$3.50')
  t.is(formatUsd(undefined), '—')
})

// The hand-written integer and dollar formats must read exactly as ICU's en-US ones, which they
// replace to keep ICU from starting in commands that print a table.
test('formatInt and formatUsd agree with Intl.NumberFormat', (t) => {
  const icuInt = new Intl.NumberFormat('en-US', {
    maximumFractionDigits: 0,
    roundingMode: 'halfCeil',
    signDisplay: 'negative',
  } as unknown as Intl.NumberFormatOptions)
  const icuUsd = new Intl.NumberFormat('en-US', {
    style: 'currency',
    currency: 'USD',
    signDisplay: 'negative',
  } as unknown as Intl.NumberFormatOptions)
  const edges = [0, -0, 0.5, -0.5, 2.5, -2.5, 0.004, -0.004, -0.005, 0.005, 1.005, 2.675, 0.125, 9.995, 99.995]
  const extra = [999_999.995, -999.995, 123456.785, 0.1 + 0.2, 5e-7, -5e-7, 1e20, 2 ** 60, 2 ** 53 + 1, 1e21, 1e300]
  const check = (x: number) => {
    t.is(formatInt(x), icuInt.format(x), `formatInt(${x})`)
    t.is(formatUsd(x), icuUsd.format(x), `formatUsd(${x})`)
  }
  for (const x of [...edges, ...extra]) check(x)
  fc.assert(
    fc.property(fc.double({ noNaN: true, min: -1e22, max: 1e22 }), (x) => void check(x)),
    { numRuns: 2000 },
  )
  fc.assert(
    fc.property(
      fc.integer({ min: -10_000_000, max: 10_000_000 }),
      fc.integer({ min: 0, max: 999 }),
      (a, b) => void check(a + b / 1000),
    ),
    { numRuns: 2000 },
  )
})

test('formatBytes uses decimal units', (t) => {
  t.is(formatBytes(0), '0 B')
  t.is(formatBytes(999), '999 B')
  t.is(formatBytes(1000), '1.0 kB')
  t.is(formatBytes(12_300_000), '12.3 MB')
  t.is(formatBytes(999_960), '1.0 MB') // no "1000.0 kB"
  t.is(formatBytes(5_500_000_000), '5.5 GB')
})

test('formatTokensCompact', (t) => {
  t.is(formatTokensCompact(0), '0')
  t.is(formatTokensCompact(999), '999')
  t.is(formatTokensCompact(1_234), '1.2k')
  t.is(formatTokensCompact(12_345), '12.3k')
  t.is(formatTokensCompact(345_000), '345k')
  t.is(formatTokensCompact(999_999), '1M')
  t.is(formatTokensCompact(1_200_000), '1.2M')
  t.is(formatTokensCompact(2_000_000_000), '2B')
})
