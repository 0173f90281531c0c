// `claude-jsonl sessions`: the most recently active sessions, as a table or JSON.
import { parseCommand } from './args.js'
import { listSessions, SessionListing } from '../read/sessions.js'
import { emptyEstateNotice } from '../read/estate.js'
import { EXIT, usageError } from '../errors.js'
import { formatBytes, formatInt, renderTable } from './table.js'

export const SESSIONS_USAGE = `claude-jsonl sessions [PATH...] [--recent N | --all] [--today] [--since DATE]
                      [--project PATH] [--timezone TZ] [--projects DIR] [--json]`

const right = 'right' as const

/** A local time as `YYYY-MM-DD HH:MM` in `timezone`. */
function localTime(iso: string, timezone: string): string {
  const parts = new Intl.DateTimeFormat('en-CA', {
    timeZone: timezone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(new Date(iso))
  const p = Object.fromEntries(parts.map((x) => [x.type, x.value]))
  return `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute}`
}

export function renderSessions(r: SessionListing): string {
  const s = r.scope
  const head = `${formatInt(r.sessions.length)} of ${formatInt(s.sessions)} sessions (${formatInt(s.filesRead)} transcripts read, ${formatBytes(s.bytesRead)})`
  if (r.sessions.length === 0) return `${head}\nNo session matches.`
  const rows = r.sessions.map((x) => [
    localTime(x.lastActivity, r.filters.timezone),
    x.sessionId + (x.isV5 ? ' v5' : ''),
    x.title ?? '',
    x.cwd ?? `(${x.project})`,
    formatBytes(x.size),
    (x.messageCountExact ? '' : '~') + formatInt(x.messageCount),
    x.subagentCount > 0 ? `${formatInt(x.subagentCount)} (${formatBytes(x.subagentSize)})` : '',
    x.entrypoint ?? '',
  ])
  const table = renderTable(
    [
      { header: 'Last activity' },
      { header: 'Session' },
      { header: 'Title' },
      { header: 'cwd' },
      { header: 'Size', align: right },
      { header: 'Messages', align: right },
      { header: 'Subagents', align: right },
      { header: 'Entry' },
    ],
    rows,
  )
  const notes: string[] = []
  if (r.sessions.some((x) => x.isV5))
    notes.push('v5: spawned programmatically (SDK, teleport, Remote Control); pass its uuid to claude --resume.')
  if (r.sessions.some((x) => !x.messageCountExact)) notes.push('~: not counted (the file could not be read whole).')
  if (r.sessions.some((x) => x.cwd === null))
    notes.push('(folder): no record names a cwd; the folder name is not decoded.')
  return [head, '', table, ...(notes.length ? ['', ...notes] : [])].join('\n')
}

function positiveInt(flag: string, v: string): number {
  if (!/^\d+$/.test(v) || Number(v) < 1) throw usageError(`${flag} expects a positive whole number, got '${v}'`)
  return Number(v)
}

export async function runSessions(
  args: string[],
  write: (s: string) => void = (s) => void process.stdout.write(s),
): Promise<number> {
  const parsed = parseCommand('sessions', args, {
    recent: { type: 'string' },
    all: { type: 'boolean' },
    today: { type: 'boolean' },
    since: { type: 'string' },
    project: { type: 'string' },
    timezone: { type: 'string' },
    projects: { type: 'string' },
    json: { type: 'boolean' },
  })
  const v = parsed.values
  if (v.help) return (write(`Usage:\n  ${SESSIONS_USAGE}\n`), EXIT.ok)
  if (v.all && v.recent !== undefined) throw usageError('--all and --recent cannot be used together')
  const listing = await listSessions({
    paths: parsed.positionals,
    projects: v.projects,
    recent: v.all ? Infinity : v.recent !== undefined ? positiveInt('--recent', v.recent) : undefined,
    today: v.today,
    since: v.since,
    project: v.project,
    timezone: v.timezone,
  })
  if (listing.scope.sessions === 0 && listing.scope.subagentFiles === 0)
    process.stderr.write(`claude-jsonl: ${emptyEstateNotice({ roots: listing.roots, source: listing.rootsSource })}\n`)
  const text = v.json ? JSON.stringify(listing, null, 2) : renderSessions(listing)
  write(text.endsWith('\n') ? text : text + '\n')
  return EXIT.ok
}
