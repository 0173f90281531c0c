// `claude-jsonl find TERMS...`: ranked search, or with --exact TEXT literal search; prints hits
// with snippets, or the report as JSON. Every answer starts with its scope: what was searched,
// and the index's age when one was used.
import { find, findExact } from '../read/find.js'
import { emptyEstateNotice } from '../read/estate.js'
import type { FindExactReport, FindReport } from '../read/find.js'
import { EXIT, usageError } from '../errors.js'
import { defineCommand, flag, runCommand, text, wholeNumber } from './command.js'
import { ARCHIVE_STATE, JSON_OUTPUT, PROJECTS } from './common-options.js'
import { withProgress } from '../terminal/progress.js'
import { formatBytes, formatInt, count } from '../terminal/format.js'
import { writeStderr } from '../terminal/output.cjs'

function age(ms: number): string {
  const s = ms / 1000
  if (s < 90) return `${Math.round(s)} s`
  if (s < 5400) return `${Math.round(s / 60)} min`
  if (s < 172800) return `${Math.round(s / 3600)} h`
  return `${Math.round(s / 86400)} days`
}

/** The first line of every answer: what was searched, with the filters. */
function scopeLine(s: FindReport['scope'] | FindExactReport['scope']): string {
  const filters = [s.since ? `since ${s.since}` : '', s.project ? `project ~ '${s.project}'` : '']
    .filter(Boolean)
    .join(', ')
  const parts = ['human and assistant text', s.searched.tools ? 'tools' : '', s.searched.thinking ? 'thinking' : '']
    .filter(Boolean)
    .join(', ')
  return (
    `Searched ${count(s.sessions, 'session')} (${count(s.files, 'file')}, ${formatBytes(s.bytes)}${filters ? `; ${filters}` : ''}) for ${parts}` +
    (s.sessions !== s.sessionsTotal ? ` of ${count(s.sessionsTotal, 'session')}` : '')
  )
}

interface HitHead {
  rank: number
  timestamp?: string
  lastActivity?: string
  sessionId: string
  project: string
  agentId?: string
}

function hitLine(h: HitHead, lead: string): string {
  const date = (h.timestamp ?? h.lastActivity ?? '').slice(0, 10) || 'no date'
  return `${h.rank}. ${lead}  ${date}  ${h.sessionId}  ${h.project}${h.agentId ? `  (subagent ${h.agentId})` : ''}`
}

export function renderFindExact(r: FindExactReport): string {
  const s = r.scope
  const out = [scopeLine(s), 'No index: exact search reads every transcript now']
  for (const k of s.skipped) out.push(`skipped ${k.path}: ${k.problem}`)
  const how = r.query.caseSensitive ? 'case-sensitive' : 'case-insensitive'
  out.push(
    `Exact ${JSON.stringify(r.query.exact)} (${how}): ${count(s.matches, 'match')} in ${count(s.matchingFiles, 'file')}, ${count(s.matchingSessions, 'session')}`,
  )
  out.push('')
  if (r.hits.length === 0) {
    out.push('No session holds the text.')
    return out.join('\n')
  }
  for (const h of r.hits) {
    out.push(hitLine(h, `${formatInt(h.matches)} match${h.matches === 1 ? '' : 'es'}`))
    out.push(`   line ${h.line}: ${h.snippet}`)
  }
  return out.join('\n')
}

export function renderFind(r: FindReport): string {
  const s = r.scope
  const out: string[] = [scopeLine(s)]
  if (s.index) {
    const i = s.index
    const appended = i.filesAppended > 0 ? `, ${formatInt(i.filesAppended)} of them only appended to` : ''
    const fresh = i.filesReused === 0 && i.filesRescanned > 0
    const refreshed = fresh
      ? ` (${formatBytes(i.bytesRescanned)} read)`
      : i.filesRescanned > 0
        ? `, ${count(i.filesRescanned, 'file')} changed (${formatBytes(i.bytesRescanned)} read now${appended})`
        : ', no file changed'
    const state = i.error ? 'not written' : fresh ? 'built now' : `${age(i.ageMs ?? 0)} old`
    out.push(`Index ${state}${refreshed}${i.error ? `; could not write it: ${i.error}` : ''}`)
  } else out.push('No index (--no-index): every transcript read now')
  for (const k of s.skipped) out.push(`skipped ${k.path}: ${k.problem}`)
  const counts = r.query.terms.map((t, k) => `${t} ${formatInt(s.termFiles[k] ?? 0)}`).join(', ')
  out.push(
    `Terms (files holding each): ${counts}; ${count(s.matchingSessions, 'session')} ${s.matchingSessions === 1 ? 'matches' : 'match'} at least one`,
  )
  out.push('')
  if (r.hits.length === 0) {
    out.push('No session holds any of the terms.')
    return out.join('\n')
  }
  for (const h of r.hits) {
    const partial =
      h.matched.length < r.query.terms.length ? `  [${h.matched.length}/${r.query.terms.length} terms]` : ''
    const phrase = h.phrasesFound > 0 ? '  [phrase]' : ''
    out.push(hitLine(h, h.score.toFixed(2)) + partial + phrase)
    out.push(`   line ${h.line}: ${h.snippet}`)
  }
  return out.join('\n')
}

/** An estate with no transcript says on stderr where it looked and how to point elsewhere. */
function emptyEstate(s: FindReport['scope'] | FindExactReport['scope']): void {
  if (s.filesTotal === 0) writeStderr(`claude-jsonl: ${emptyEstateNotice({ roots: s.roots, source: s.rootsSource })}\n`)
}

export const command = defineCommand({
  name: 'find',
  args: 'TERMS...',
  options: {
    projects: PROJECTS,
    ...ARCHIVE_STATE,
    since: text('DATE', 'only sessions active on or after DATE'),
    project: text('NAME', 'only project folders containing NAME (/ matches -)'),
    limit: wholeNumber('N', 'at most N hits (default 10)', { min: 1 }),
    tools: flag('search tool inputs and results too'),
    thinking: flag('search thinking too'),
    'index-dir': text('DIR', 'keep the index in DIR'),
    'no-index': flag('read every transcript now, without an index'),
    exact: text('TEXT', 'look for TEXT literally instead of ranking terms (no index)'),
    'case-sensitive': flag('with --exact: match case exactly'),
    json: JSON_OUTPUT,
  },
  conflicts: [
    ['index-dir', 'no-index'],
    ['exact', 'index-dir'],
  ],
  description: `Ranked (BM25) search of human and assistant text across the estate, one hit per session.
Sessions holding only some of the terms still rank. "quoted words" (or one argument of
several words) also count as a phrase. --tools adds tool inputs and results, --thinking
adds thinking. The index lives in $XDG_CACHE_HOME/claude-jsonl/find (else
~/.cache/claude-jsonl/find), never in the estate.
--exact TEXT looks for TEXT literally (the middle of an identifier, punctuation, a path
fragment) in the same text, case-insensitive unless --case-sensitive; one hit per session
with its number of matches, most first; no index, every transcript is read now.`,
  exitCodes:
    'Exit codes: 0 ok, 2 bad usage (no term, a bad date, --exact with terms or empty), 3 a missing or unreadable estate root.',
  async run({ values, positionals, print }) {
    const exact = values.exact
    // What ranked and exact search both take.
    const scope = {
      projects: values.projects,
      generation: values.generation,
      asOf: values['as-of'],
      since: values.since,
      project: values.project,
      limit: values.limit,
      tools: values.tools,
      thinking: values.thinking,
    }
    if (exact === undefined && values['case-sensitive'])
      throw usageError('find: --case-sensitive applies to --exact TEXT')
    if (exact !== undefined) {
      if (positionals.length > 0)
        throw usageError(
          `find: --exact takes one TEXT, got also ${positionals.map((p) => `'${p}'`).join(' ')} (quote TEXT if it has spaces)`,
        )
      const report = await withProgress((onProgress) =>
        findExact(exact, { ...scope, caseSensitive: values['case-sensitive'], onProgress }),
      )
      emptyEstate(report.scope)
      print(values.json ? JSON.stringify(report, null, 2) : renderFindExact(report))
      return EXIT.ok
    }
    const report = await withProgress((onProgress) =>
      find(positionals, { ...scope, indexDir: values['index-dir'], noIndex: values['no-index'], onProgress }),
    )
    emptyEstate(report.scope)
    print(values.json ? JSON.stringify(report, null, 2) : renderFind(report))
    return EXIT.ok
  },
})

export const runFind = (args: string[]) => runCommand(command, args)
