// Plain-text tables for terminal output, aligned by display width (CJK and emoji take two
// columns, escapes none).
import { createRequire } from 'node:module'
import { stripVTControlCharacters } from 'node:util'
import { isTerminal } from './output.cjs'

export interface Column {
  header: string
  align?: 'left' | 'right'
  /** May be cut short (ending in …) to fit `maxWidth`: free text such as a title or a path. */
  shrink?: boolean
}

export interface RenderTableOptions {
  /** Extra row (e.g. totals) printed below a rule after the body rows. */
  footer?: string[]
  /** Fit the table in this many columns by cutting the `shrink` columns, widest first (no
   * limit when undefined). */
  maxWidth?: number
}

/** The narrowest a shrinkable column gets. */
const MIN_SHRUNK = 12

/** `s` cut to at most `width` display columns, ending in … when cut. */
export function truncate(s: string, width: number): string {
  if (stringWidth(s) <= width) return s
  let out = ''
  for (const ch of s) {
    if (stringWidth(out + ch) > width - 1) break
    out += ch
  }
  return out + '…'
}

/**
 * The width tables are fitted to: the terminal's columns when stdout is a terminal, else none
 * (a pipe or a file gets every character); `wide` asks for none.
 */
export function terminalWidth(wide = false): number | undefined {
  if (wide || !isTerminal(1)) return undefined
  return process.stdout.columns || Number(process.env.COLUMNS) || 80
}

/** Gap between columns. */
const GAP = '  '

/** Removes ANSI escape sequences (colours, cursor movement, OSC hyperlinks and titles). */
export const stripAnsi = stripVTControlCharacters

// string-width compiles Unicode property tables and an Intl.Segmenter when it loads, which
// costs tens of milliseconds at start-up: it is loaded on the first cell
// that is not printable ASCII, and most tables never have one.
let unicodeWidth: ((s: string, o: { countAnsiEscapeCodes: boolean }) => number) | undefined

/**
 * Number of terminal columns `s` occupies: ANSI escapes count 0, East Asian
 * wide/fullwidth characters and emoji count 2, combining marks and other
 * zero-width characters count 0.
 */
export function stringWidth(s: string): number {
  const plain = stripVTControlCharacters(s)
  if (/^[\x20-\x7e]*$/.test(plain)) return plain.length
  unicodeWidth ??= (createRequire(import.meta.url)('string-width') as { default: typeof unicodeWidth }).default!
  // Already stripped: counting escapes keeps string-width from searching for them again.
  return unicodeWidth(plain, { countAnsiEscapeCodes: true })
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

  if (opts.maxWidth !== undefined) {
    const total = () => widths.reduce((a, w) => a + w, 0) + GAP.length * (ncol - 1)
    while (total() > opts.maxWidth) {
      let k = -1
      columns.forEach((c, i) => {
        if (
          c.shrink &&
          widths[i]! > Math.max(MIN_SHRUNK, stringWidth(header[i]!)) &&
          (k < 0 || widths[i]! > widths[k]!)
        )
          k = i
      })
      if (k < 0) break
      widths[k] = Math.max(MIN_SHRUNK, stringWidth(header[k]!), widths[k]! - (total() - opts.maxWidth))
    }
    for (const row of footer ? [...body, footer] : body)
      row.forEach((cell, i) => {
        if (columns[i]!.shrink) row[i] = truncate(cell, widths[i]!)
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
