// `claude-jsonl find TERMS...`: ranked search; prints hits with snippets, or the report as JSON.
// Every answer starts with its scope: what was searched, and the index's age when one was used.
import { parseCommand } from './args.js'
import { find, findExact } from '../read/find.js'
import type { FindExactReport, FindReport } from '../read/find.js'
import { EXIT, usageError } from '../errors.js'
import { createProgress } from './progress.js'
import { formatBytes, formatInt } from './table.js'

const OPTIONS = {
  projects: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  since: { type: 'string' },
  project: { type: 'string' },
  limit: { type: 'string' },
  tools: { type: 'boolean' },
  thinking: { type: 'boolean' },
  'index-dir': { type: 'string' },
  'no-index': { type: 'boolean' },
  exact: { type: 'string' },
  'case-sensitive': { type: 'boolean' },
} as const

export const FIND_HELP = `claude-jsonl find TERMS... [--projects DIR] [--since DATE] [--project NAME]
                  [--limit N] [--tools] [--thinking] [--index-dir DIR | --no-index] [--json]
claude-jsonl find --exact TEXT [--case-sensitive] [--projects DIR] [--since DATE]
                  [--project NAME] [--limit N] [--tools] [--thinking] [--json]

Ranked (BM25) search of human and assistant text across the estate, one hit per session.
Sessions holding only some of the terms still rank. "quoted words" (or one argument of
several words) also count as a phrase. --tools adds tool inputs and results, --thinking
adds thinking. The index lives in $XDG_CACHE_HOME/claude-jsonl/find (else
~/.cache/claude-jsonl/find), never in the estate.
--exact TEXT looks for TEXT literally (the middle of an identifier, punctuation, a path
fragment) in the same text, case-insensitive unless --case-sensitive; one hit per session
with its number of matches, most first; no index, every transcript is read now.`

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
    `Searched ${formatInt(s.sessions)} sessions (${formatInt(s.files)} files, ${formatBytes(s.bytes)}${filters ? `; ${filters}` : ''}) for ${parts}` +
    (s.sessions !== s.sessionsTotal ? ` of ${formatInt(s.sessionsTotal)} sessions` : '')
  )
}

function hitLine(
  h: { rank: number; timestamp?: string; lastActivity?: string; sessionId: string; project: string; agentId?: string },
  lead: string,
): string {
  const date = (h.timestamp ?? h.lastActivity ?? '').slice(0, 10) || 'no date'
  return `${h.rank}. ${lead}  ${date}  ${h.sessionId}  ${h.project}${h.agentId ? `  (subagent ${h.agentId})` : ''}`
}

export function renderFindExact(r: FindExactReport): string {
  const s = r.scope
  const out = [scopeLine(s), 'No index: exact search reads every transcript now']
  for (const k of s.skipped) out.push(`skipped ${k.path}: ${k.problem}`)
  const how = r.query.caseSensitive ? 'case-sensitive' : 'case-insensitive'
  out.push(
    `Exact ${JSON.stringify(r.query.exact)} (${how}): ${formatInt(s.matches)} matches in ${formatInt(s.matchingFiles)} files, ${formatInt(s.matchingSessions)} sessions`,
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
        ? `, ${formatInt(i.filesRescanned)} files changed (${formatBytes(i.bytesRescanned)} read now${appended})`
        : ', no file changed'
    const state = i.error ? 'not written' : fresh ? 'built now' : `${age(i.ageMs ?? 0)} old`
    out.push(`Index ${state}${refreshed}${i.error ? `; could not write it: ${i.error}` : ''}`)
  } else out.push('No index (--no-index): every transcript read now')
  for (const k of s.skipped) out.push(`skipped ${k.path}: ${k.problem}`)
  const counts = r.query.terms.map((t, k) => `${t} ${formatInt(s.termFiles[k] ?? 0)}`).join(', ')
  out.push(`Terms (files holding each): ${counts}; ${formatInt(s.matchingSessions)} sessions match at least one`)
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

export async function runFind(args: string[]): Promise<number> {
  const { values, positionals } = parseCommand('find', args, OPTIONS)
  if (values.help) {
    process.stdout.write(FIND_HELP + '\n')
    return EXIT.ok
  }
  if (values['no-index'] && values['index-dir']) throw usageError('--index-dir and --no-index exclude each other')
  let limit: number | undefined
  if (values.limit !== undefined) {
    if (!/^\d+$/.test(values.limit) || Number(values.limit) < 1)
      throw usageError(`--limit expects a positive whole number, got '${values.limit}'`)
    limit = Number(values.limit)
  }
  const exact = values.exact
  if (exact === undefined && values['case-sensitive']) throw usageError('--case-sensitive applies to --exact TEXT')
  if (exact !== undefined) {
    if (positionals.length > 0)
      throw usageError(
        `find --exact takes one TEXT, got also ${positionals.map((p) => `'${p}'`).join(' ')} (quote TEXT if it has spaces)`,
      )
    if (values['index-dir']) throw usageError('--exact keeps no index: --index-dir does not apply')
  }
  const bar = createProgress(process.stderr)
  try {
    const common = {
      projects: values.projects,
      since: values.since,
      project: values.project,
      limit,
      tools: values.tools,
      thinking: values.thinking,
      onProgress: (p: Parameters<typeof bar.update>[0]) => bar.update(p),
    }
    let text: string
    if (exact !== undefined) {
      const report = await findExact(exact, { ...common, caseSensitive: values['case-sensitive'] })
      bar.done()
      text = values.json ? JSON.stringify(report, null, 2) : renderFindExact(report)
    } else {
      const report = await find(positionals, { ...common, indexDir: values['index-dir'], noIndex: values['no-index'] })
      bar.done()
      text = values.json ? JSON.stringify(report, null, 2) : renderFind(report)
    }
    process.stdout.write(text + '\n')
    return EXIT.ok
  } finally {
    bar.done()
  }
}
