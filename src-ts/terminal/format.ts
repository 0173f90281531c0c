// Numbers, dollars, bytes and token counts as people read them in a terminal (en-US digits,
// ',' thousands). Integers and dollars are written here digit by digit: the first Intl formatter
// a process builds starts ICU, which costs more than the rest of a small command's start-up. The
// rules are ICU's own for en-US (a test compares them with Intl.NumberFormat): the shortest
// decimal form of the number is rounded (so 1.005 is $1.01), and a figure that rounds to zero
// has no minus sign. The compact token count keeps its Intl formatter, built on first use.

// Node 20 has these Intl options; TypeScript's es2022 library does not declare them yet.
type NumberOptions = Omit<Intl.NumberFormatOptions, 'signDisplay'> & {
  roundingMode?: 'halfCeil' | 'halfExpand'
  roundingPriority?: 'lessPrecision'
  signDisplay?: 'negative'
}

function lazyFormat(options: NumberOptions): (n: number) => string {
  let format: Intl.NumberFormat | undefined
  return (n) => (format ??= new Intl.NumberFormat('en-US', options as Intl.NumberFormatOptions)).format(n)
}

// Beyond 1e21 a number's shortest form has an exponent; such figures are left to ICU.
const integerIcu = lazyFormat({ maximumFractionDigits: 0, roundingMode: 'halfCeil', signDisplay: 'negative' })
const dollarsIcu = lazyFormat({ style: 'currency', currency: 'USD', signDisplay: 'negative' })
const compact = lazyFormat({
  notation: 'compact',
  maximumFractionDigits: 1,
  maximumSignificantDigits: 3,
  roundingPriority: 'lessPrecision',
})

/** '1234567' → '1,234,567'. */
function groupThousands(digits: string): string {
  const head = digits.length % 3 || 3
  let out = digits.slice(0, head)
  for (let i = head; i < digits.length; i += 3) out += ',' + digits.slice(i, i + 3)
  return out
}

/**
 * The digits of |n| rounded half away from zero to `places` decimals, from its shortest decimal
 * form (what ICU rounds), e.g. (1.005, 2) → ['1', '01']; undefined when that form has an exponent.
 */
function roundDecimal(n: number, places: number): [string, string] | undefined {
  const s = String(Math.abs(n))
  if (s.includes('e')) return undefined
  const dot = s.indexOf('.')
  const int = dot < 0 ? s : s.slice(0, dot)
  const frac = dot < 0 ? '' : s.slice(dot + 1)
  const kept = (int + frac.padEnd(places, '0').slice(0, places)).split('').map(Number)
  if (frac.length > places && frac.charCodeAt(places) >= 53 /* '5' */) {
    let i = kept.length - 1
    while (i >= 0 && kept[i] === 9) kept[i--] = 0
    if (i >= 0) kept[i]!++
    else kept.unshift(1)
  }
  const digits = kept.join('')
  const intDigits = digits.slice(0, digits.length - places).replace(/^0+(?=\d)/, '') || '0'
  return [intDigits, digits.slice(digits.length - places)]
}

/** Integer with ',' thousands separators: 1234567 → '1,234,567'. Rounds to the nearest integer. */
export function formatInt(n: number): string {
  if (!Number.isFinite(n)) return String(n)
  // Math.round rounds half up (2.5 → 3, -2.5 → -2), as ICU's halfCeil does.
  const r = Math.round(n)
  if (Math.abs(r) >= 1e21) return integerIcu(n)
  return (r < 0 ? '-' : '') + groupThousands(String(Math.abs(r)))
}

/** US dollars with cents: 1234.5 → '$1,234.50'; undefined → '—'. */
export function formatUsd(n: number | undefined): string {
  if (n === undefined || Number.isNaN(n)) return '—'
  const parts = Number.isFinite(n) ? roundDecimal(n, 2) : undefined
  if (!parts) return dollarsIcu(n)
  const [int, cents] = parts
  const zero = int === '0' && cents === '00'
  return `${n < 0 && !zero ? '-' : ''}$${groupThousands(int)}.${cents}`
}

const BYTE_UNITS = ['kB', 'MB', 'GB', 'TB', 'PB', 'EB']

/** Bytes in decimal (SI) units: 999 → '999 B', 12_345_678 → '12.3 MB'. */
export function formatBytes(n: number): string {
  if (!Number.isFinite(n)) return `${n} B`
  const sign = n < 0 ? '-' : ''
  let v = Math.abs(n)
  if (v < 1000) return `${sign}${Math.round(v)} B`
  let u = -1
  // Step up while the rounded figure would read 1000 or more ("1.0 MB", never "1000.0 kB").
  while (u < BYTE_UNITS.length - 1 && Number(v.toFixed(1)) >= 1000) {
    v /= 1000
    u++
  }
  return `${sign}${v.toFixed(1)} ${BYTE_UNITS[u]}`
}

/**
 * Compact token count: 999 → '999', 1_234 → '1.2k', 345_678 → '346k', 1_234_567 → '1.2M'.
 * At most one decimal and three significant digits; a lower-case k for thousands.
 */
export function formatTokensCompact(n: number): string {
  return Number.isFinite(n) ? compact(n).replace('K', 'k') : String(n)
}

/** A duration: '850 ms', '42s', '3m 07s', '2h 05m'. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${ms} ms`
  const s = Math.round(ms / 1000)
  if (s < 60) return `${s}s`
  const m = Math.floor(s / 60)
  if (m < 60) return `${m}m ${String(s % 60).padStart(2, '0')}s`
  return `${Math.floor(m / 60)}h ${String(m % 60).padStart(2, '0')}m`
}

/** An ISO timestamp as 'YYYY-MM-DD HH:MM:SSZ' (milliseconds dropped); '' when absent. */
export function formatTimestamp(ts: string | undefined): string {
  return ts ? ts.replace('T', ' ').replace(/\.\d+Z$/, 'Z') : ''
}

/** The plural of an English noun (its last word): file → files, query → queries, match → matches. */
export function pluralOf(noun: string): string {
  if (/[^aeiou]y$/.test(noun)) return noun.slice(0, -1) + 'ies'
  if (/(s|x|z|ch|sh)$/.test(noun)) return noun + 'es'
  return noun + 's'
}

/** A count with its noun, singular for exactly one: 1 file, 2 files, 1,204 queries. */
export function count(n: number, noun: string): string {
  return `${formatInt(n)} ${n === 1 ? noun : pluralOf(noun)}`
}

/** An instant (ms) as the local time `YYYY-MM-DD HH:MM` in `timezone` (the sessions table, the web view). */
export function localTime(ms: number, timezone: string): string {
  const parts = new Intl.DateTimeFormat('en-CA', {
    timeZone: timezone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(new Date(ms))
  const p = Object.fromEntries(parts.map((x) => [x.type, x.value]))
  return `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute}`
}
