/**
 * Plain-text table rendering and number formatting for terminal output.
 * Node builtins only.
 */

export interface Column {
  header: string
  align?: 'left' | 'right'
}

export interface RenderTableOptions {
  /** Extra row (e.g. totals) printed below a rule after the body rows. */
  footer?: string[]
}

/** Gap between columns. */
const GAP = '  '

// CSI sequences (colours, cursor movement), OSC sequences (hyperlinks, titles;
// terminated by BEL or ST) and the remaining two-byte escapes.
// eslint-disable-next-line no-control-regex
const ANSI_RE =
  /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)|\u001b[@-Z\\-_]|\u009b[0-?]*[ -/]*[@-~]/g

/** Remove ANSI escape sequences. */
export function stripAnsi(s: string): string {
  return s.replace(ANSI_RE, '')
}

// Code points rendered two columns wide (Unicode East Asian Width W/F, main blocks).
const WIDE_RANGES: readonly (readonly [number, number])[] = [
  [0x1100, 0x115f], // Hangul Jamo initial consonants
  [0x231a, 0x231b],
  [0x2329, 0x232a],
  [0x2e80, 0x303e], // CJK radicals, Kangxi, ideographic description, CJK symbols & punctuation
  [0x3041, 0x33ff], // Hiragana, Katakana, Bopomofo, Hangul compat Jamo, Kanbun, enclosed CJK, CJK compat
  [0x3400, 0x4dbf], // CJK extension A
  [0x4e00, 0x9fff], // CJK unified ideographs
  [0xa000, 0xa4cf], // Yi
  [0xa960, 0xa97f], // Hangul Jamo extended-A
  [0xac00, 0xd7a3], // Hangul syllables
  [0xf900, 0xfaff], // CJK compatibility ideographs
  [0xfe10, 0xfe19], // vertical forms
  [0xfe30, 0xfe6f], // CJK compatibility forms, small form variants
  [0xff00, 0xff60], // fullwidth forms
  [0xffe0, 0xffe6],
  [0x16fe0, 0x16fe4],
  [0x17000, 0x18cff], // Tangut, Khitan
  [0x1aff0, 0x1b2ff], // Kana supplement/extended, Nushu
  [0x1f200, 0x1f2ff], // enclosed ideographic supplement
  [0x20000, 0x2fffd], // CJK extensions B–F, compatibility supplement
  [0x30000, 0x3fffd], // CJK extensions G–H
]

function isWideCodePoint(cp: number): boolean {
  let lo = 0
  let hi = WIDE_RANGES.length - 1
  while (lo <= hi) {
    const mid = (lo + hi) >> 1
    const [a, b] = WIDE_RANGES[mid]!
    if (cp < a) hi = mid - 1
    else if (cp > b) lo = mid + 1
    else return true
  }
  return false
}

const ZERO_WIDTH_RE = /^[\p{Mn}\p{Me}\p{Cf}\p{Cc}]$/u
const EMOJI_PRESENTATION_RE = /\p{Emoji_Presentation}/u
const PICTOGRAPHIC_RE = /\p{Extended_Pictographic}/u
const REGIONAL_INDICATOR_RE = /\p{Regional_Indicator}/u

// Created on first non-ASCII cell: building it starts ICU, which costs start-up time.
let segmenter: Intl.Segmenter | undefined

function clusterWidth(cluster: string): number {
  // Emoji: presentation-default emoji, pictographs forced to emoji style
  // with VS16 (U+FE0F), keycaps (U+20E3), flags (regional indicator pairs).
  if (
    EMOJI_PRESENTATION_RE.test(cluster) ||
    (cluster.includes('\ufe0f') && (PICTOGRAPHIC_RE.test(cluster) || cluster.includes('\u20e3'))) ||
    REGIONAL_INDICATOR_RE.test(cluster)
  ) {
    return 2
  }
  for (const ch of cluster) {
    if (ZERO_WIDTH_RE.test(ch)) continue
    return isWideCodePoint(ch.codePointAt(0)!) ? 2 : 1
  }
  return 0
}

/**
 * Number of terminal columns `s` occupies: ANSI escapes count 0, East Asian
 * wide/fullwidth characters and emoji count 2, combining marks and other
 * zero-width characters count 0.
 */
export function stringWidth(s: string): number {
  const plain = stripAnsi(s)
  // Fast path for printable ASCII.
  if (/^[\x20-\x7e]*$/.test(plain)) return plain.length
  let width = 0
  segmenter ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' })
  for (const { segment } of segmenter.segment(plain)) width += clusterWidth(segment)
  return width
}

function sanitizeCell(s: string): string {
  return String(s).replace(/\r\n|[\r\n\t]/g, ' ')
}

/**
 * Render rows as an aligned plain-text table:
 *
 *     Model              Cost
 *     -----------------  -----
 *     claude-sonnet-4-5  $1.00
 *     -----------------  -----
 *     Total              $1.00
 *
 * Column widths come from the widest cell (by terminal width, see
 * stringWidth). Missing cells render empty; rows with more cells than columns
 * throw. Lines carry no trailing spaces; the result has no trailing newline.
 */
export function renderTable(columns: Column[], rows: string[][], opts: RenderTableOptions = {}): string {
  const ncol = columns.length
  if (ncol === 0) return ''
  const check = (row: string[], what: string): string[] => {
    if (row.length > ncol) throw new RangeError(`${what} has ${row.length} cells but the table has ${ncol} columns`)
    return Array.from({ length: ncol }, (_, i) => sanitizeCell(row[i] ?? ''))
  }
  const header = columns.map((c) => sanitizeCell(c.header))
  const body = rows.map((r, i) => check(r, `row ${i}`))
  const footer = opts.footer ? check(opts.footer, 'footer') : undefined

  const widths = header.map((h) => stringWidth(h))
  for (const row of footer ? [...body, footer] : body) {
    row.forEach((cell, i) => {
      widths[i] = Math.max(widths[i]!, stringWidth(cell))
    })
  }

  const line = (cells: string[]): string =>
    cells
      .map((cell, i) => {
        const pad = ' '.repeat(widths[i]! - stringWidth(cell))
        return columns[i]!.align === 'right' ? pad + cell : cell + pad
      })
      .join(GAP)
      .trimEnd()
  const rule = widths
    .map((w) => '-'.repeat(w))
    .join(GAP)
    .trimEnd()

  const out = [line(header), rule, ...body.map(line)]
  if (footer) out.push(rule, line(footer))
  return out.join('\n')
}

function groupThousands(digits: string): string {
  return digits.replace(/\B(?=(\d{3})+(?!\d))/g, ',')
}

/** Integer with ',' thousands separators: 1234567 → '1,234,567'. Rounds to the nearest integer. */
export function formatInt(n: number): string {
  if (!Number.isFinite(n)) return String(n)
  const r = Math.round(n)
  const sign = r < 0 ? '-' : ''
  // BigInt keeps every digit (toFixed switches to exponent notation at 1e21).
  return sign + groupThousands(BigInt(Math.abs(r)).toString())
}

/** US dollars with cents: 1234.5 → '$1,234.50'; undefined → '—'. */
export function formatUsd(n: number | undefined): string {
  if (n === undefined || Number.isNaN(n)) return '—'
  if (!Number.isFinite(n)) return n < 0 ? '-$∞' : '$∞'
  const cents = Math.round(Math.abs(n) * 100)
  const sign = n < 0 && cents > 0 ? '-' : ''
  const dollars = Math.floor(cents / 100)
  const rest = String(cents % 100).padStart(2, '0')
  return `${sign}$${groupThousands(BigInt(dollars).toString())}.${rest}`
}

const BYTE_UNITS = ['kB', 'MB', 'GB', 'TB', 'PB', 'EB']

/** Bytes in decimal (SI) units: 999 → '999 B', 12_345_678 → '12.3 MB'. */
export function formatBytes(n: number): string {
  if (!Number.isFinite(n)) return `${n} B`
  const sign = n < 0 ? '-' : ''
  let v = Math.abs(n)
  if (v < 1000) return `${sign}${Math.round(v)} B`
  let u = -1
  while (u < BYTE_UNITS.length - 1 && Number(v.toFixed(1)) >= 1000) {
    v /= 1000
    u++
  }
  return `${sign}${v.toFixed(1)} ${BYTE_UNITS[u]}`
}

const TOKEN_UNITS = ['k', 'M', 'B', 'T']

/**
 * Compact token count: 999 → '999', 1_234 → '1.2k', 345_678 → '346k',
 * 1_234_567 → '1.2M'. One decimal below 100 of a unit (dropped when it is .0).
 */
export function formatTokensCompact(n: number): string {
  if (!Number.isFinite(n)) return String(n)
  const sign = n < 0 ? '-' : ''
  let v = Math.abs(n)
  if (Math.round(v) < 1000) return sign + Math.round(v).toFixed(0)
  let u = -1
  const shown = (x: number): string => (x < 99.95 ? x.toFixed(1).replace(/\.0$/, '') : x.toFixed(0))
  while (u < TOKEN_UNITS.length - 1 && Number(shown(v)) >= 1000) {
    v /= 1000
    u++
  }
  return sign + shown(v) + TOKEN_UNITS[u]
}
