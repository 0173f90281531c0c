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
