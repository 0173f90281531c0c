// Days as the CLI takes them (--since, --until) and shows them (local days in a time zone).
import { usageError } from '../errors.js'

/** `YYYY-MM-DD` or `YYYYMMDD` to `YYYY-MM-DD`; a usage error naming `flag` otherwise. */
export function parseDay(flag: string, value: string): string {
  const m = /^(\d{4})-?(\d{2})-?(\d{2})$/.exec(value.trim())
  if (!m) throw usageError(`${flag} expects a date as YYYY-MM-DD or YYYYMMDD, got '${value}'`)
  const day = `${m[1]}-${m[2]}-${m[3]}`
  const d = new Date(`${day}T00:00:00Z`)
  if (Number.isNaN(d.getTime()) || d.toISOString().slice(0, 10) !== day)
    throw usageError(`${flag}: no such date '${value}'`)
  return day
}

/**
 * The UTC day (`YYYY-MM-DD`) of an instant (ms), `unknown` when there is none. Asked for once per
 * request (a price row is chosen by it, an export row partitioned by it): each day's name is
 * made once.
 */
export function utcDay(ms: number): string {
  if (!Number.isFinite(ms)) return 'unknown'
  const n = Math.floor(ms / 86_400_000)
  let day = UTC_DAYS.get(n)
  if (day === undefined) UTC_DAYS.set(n, (day = new Date(n * 86_400_000).toISOString().slice(0, 10)))
  return day
}
/** Day names by day number since the epoch: a few hundred in an estate. */
const UTC_DAYS = new Map<number, string>()

/**
 * A function from epoch ms to the local day (`YYYY-MM-DD`) in `timezone`, 'unknown' for NaN;
 * a usage error for an unknown zone. Days repeat, so each distinct instant is formatted once.
 */
export function dayFormatter(timezone: string): (ms: number) => string {
  let fmt: Intl.DateTimeFormat
  try {
    fmt = new Intl.DateTimeFormat('en-CA', { timeZone: timezone, year: 'numeric', month: '2-digit', day: '2-digit' })
  } catch {
    throw usageError(`unknown time zone '${timezone}'`)
  }
  const cache = new Map<number, string>()
  return (ms) => {
    if (Number.isNaN(ms)) return 'unknown'
    let d = cache.get(ms)
    if (d === undefined) {
      d = fmt.format(ms)
      if (cache.size < 100_000) cache.set(ms, d)
    }
    return d
  }
}

/** The days a request must fall on (`--since`, `--until` in `--timezone`), as `stats` selects them. */
export interface DayWindow {
  since?: string
  until?: string
  /** The zone days are computed in (absent when no day is needed). */
  timezone?: string
  /** The local day of an instant ('unknown' for NaN, or when no day is needed). */
  dayOf: (ms: number) => string
  /** Whether an instant falls inside the window (an unknown time never does when a bound is given). */
  includes: (ms: number) => boolean
  /** Files last modified before this cannot hold a record inside the window. */
  minMtimeMs?: number
}

/** Checks the options and builds the window; `days` when days are needed besides the bounds. */
export function dayWindow(opts: { since?: string; until?: string; timezone?: string }, days = false): DayWindow {
  const since = opts.since === undefined ? undefined : parseDay('--since', opts.since)
  const until = opts.until === undefined ? undefined : parseDay('--until', opts.until)
  if (since && until && since > until) throw usageError(`--since ${since} is after --until ${until}`)
  // Days need ICU's time-zone data, slow to start: only build the formatter when days are used.
  const needsDays = days || since !== undefined || until !== undefined
  const timezone = needsDays ? (opts.timezone ?? Intl.DateTimeFormat().resolvedOptions().timeZone) : opts.timezone
  const dayOf = needsDays ? dayFormatter(timezone!) : () => 'unknown'
  if (!needsDays && opts.timezone) dayFormatter(opts.timezone) // still reject an unknown zone
  const bounded = since !== undefined || until !== undefined
  const includes = (ms: number) => {
    if (!bounded) return true
    const day = dayOf(ms)
    return day !== 'unknown' && !(since && day < since) && !(until && day > until)
  }
  // A file last written before the window cannot hold a record inside it. Two days of margin
  // cover every UTC offset and modest clock skew.
  const minMtimeMs = since ? Date.parse(`${since}T00:00:00Z`) - 2 * 86_400_000 : undefined
  return { since, until, timezone, dayOf, includes, minMtimeMs }
}
