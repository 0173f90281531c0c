// `claude-jsonl sessions`: the most recently active sessions, as a table or JSON.
import { listSessions, SessionListing } from '../read/sessions.js'
import { emptyEstateNotice } from '../read/estate.js'
import { EXIT } from '../errors.js'
import { defineCommand, flag, runCommand, text, wholeNumber, type Write } from './command.js'
import { ARCHIVE_STATE, JSON_OUTPUT, PROJECTS } from './common-options.js'
import { count, formatBytes, formatInt, localTime } from '../terminal/format.js'
import { renderTable, terminalWidth } from '../terminal/table.js'
import { writeStderr } from '../terminal/output.cjs'

const right = 'right' as const

/** The listing as a table; `width` fits it to a terminal (title and cwd cut short). */
export function renderSessions(r: SessionListing, o: { width?: number } = {}): string {
  const s = r.scope
  const head = `${formatInt(r.sessions.length)} of ${count(s.sessions, 'session')} (${count(s.filesRead, 'transcript')} read, ${formatBytes(s.bytesRead)})`
  const skipped = s.skipped.length
    ? [
        `skipped ${count(s.skipped.length, 'file')} that ${s.skipped.length === 1 ? 'is' : 'are'} not a transcript: ${s.skipped
          .slice(0, 3)
          .map((k) => k.path)
          .join(', ')}${s.skipped.length > 3 ? ', …' : ''}`,
      ]
    : []
  if (r.sessions.length === 0) return [head, ...skipped, 'No session matches.'].join('\n')
  const rows = r.sessions.map((x) => [
    localTime(Date.parse(x.lastActivity), r.filters.timezone),
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
      { header: 'Title', shrink: true },
      { header: 'cwd', shrink: true },
      { header: 'Size', align: right },
      { header: 'Messages', align: right },
      { header: 'Subagents', align: right },
      { header: 'Entry' },
    ],
    rows,
    { maxWidth: o.width },
  )
  const notes: string[] = []
  if (r.sessions.some((x) => x.isV5))
    notes.push('v5: spawned programmatically (SDK, teleport, Remote Control); pass its uuid to claude --resume.')
  if (r.sessions.some((x) => !x.messageCountExact)) notes.push('~: not counted (the file could not be read whole).')
  if (r.sessions.some((x) => x.cwd === null))
    notes.push('(folder): no record names a cwd; the folder name is not decoded.')
  return [head, ...skipped, '', table, ...(notes.length ? ['', ...notes] : [])].join('\n')
}

export const command = defineCommand({
  name: 'sessions',
  args: '[PATH...]',
  options: {
    recent: wholeNumber('N', 'the N most recently active sessions (default 20)', { min: 1 }),
    all: flag('every session'),
    today: flag('only sessions last active today'),
    since: text('DATE', 'only sessions last active on or after DATE'),
    project: text('PATH', 'only sessions whose cwd is PATH or inside it (or whose folder is PATH encoded)'),
    timezone: text('TZ', "IANA zone for days and times (default: the system's)"),
    projects: PROJECTS,
    ...ARCHIVE_STATE,
    wide: flag('every title and cwd in full (a table on a terminal is cut to its width)'),
    json: JSON_OUTPUT,
  },
  conflicts: [['all', 'recent']],
  description: `The most recently active sessions with their title, cwd, size, messages and subagents; only the
sessions listed are read whole.`,
  exitCodes: 'Exit codes: 0 ok, 2 bad usage (a bad date or time zone), 3 a missing or unreadable path.',
  async run({ values: v, positionals, print }) {
    const listing = await listSessions({
      paths: positionals,
      projects: v.projects,
      generation: v.generation,
      asOf: v['as-of'],
      recent: v.all ? Infinity : v.recent,
      today: v.today,
      since: v.since,
      project: v.project,
      timezone: v.timezone,
    })
    if (listing.scope.sessions === 0 && listing.scope.subagentFiles === 0)
      writeStderr(`claude-jsonl: ${emptyEstateNotice({ roots: listing.roots, source: listing.rootsSource })}\n`)
    print(v.json ? JSON.stringify(listing, null, 2) : renderSessions(listing, { width: terminalWidth(v.wide) }))
    return EXIT.ok
  },
})

export const runSessions = (args: string[], write?: Write) => runCommand(command, args, write)
