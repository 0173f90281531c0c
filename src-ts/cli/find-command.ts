// `claude-jsonl find TERMS...`: ranked search; prints hits with snippets, or the report as JSON.
// Every answer starts with its scope: what was searched, and the index's age when one was used.
import { find } from '../read/find.js'
import { emptyEstateNotice } from '../read/estate.js'
import type { FindReport } from '../read/find.js'
import { EXIT } from '../errors.js'
import { defineCommand, flag, runCommand, text, wholeNumber } from './command.js'
import { JSON_OUTPUT, PROJECTS } from './common-options.js'
import { withProgress } from '../terminal/progress.js'
import { formatBytes, formatInt } from '../terminal/format.js'

function age(ms: number): string {
  const s = ms / 1000
  if (s < 90) return `${Math.round(s)} s`
  if (s < 5400) return `${Math.round(s / 60)} min`
  if (s < 172800) return `${Math.round(s / 3600)} h`
  return `${Math.round(s / 86400)} days`
}

export function renderFind(r: FindReport): string {
  const s = r.scope
  const out: string[] = []
  const filters = [s.since ? `since ${s.since}` : '', s.project ? `project ~ '${s.project}'` : '']
    .filter(Boolean)
    .join(', ')
  const parts = ['human and assistant text', s.searched.tools ? 'tools' : '', s.searched.thinking ? 'thinking' : '']
    .filter(Boolean)
    .join(', ')
  out.push(
    `Searched ${formatInt(s.sessions)} sessions (${formatInt(s.files)} files, ${formatBytes(s.bytes)}${filters ? `; ${filters}` : ''}) for ${parts}` +
      (s.sessions !== s.sessionsTotal ? ` of ${formatInt(s.sessionsTotal)} sessions` : ''),
  )
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
    const date = (h.timestamp ?? h.lastActivity ?? '').slice(0, 10) || 'no date'
    const partial =
      h.matched.length < r.query.terms.length ? `  [${h.matched.length}/${r.query.terms.length} terms]` : ''
    const phrase = h.phrasesFound > 0 ? '  [phrase]' : ''
    out.push(
      `${h.rank}. ${h.score.toFixed(2)}  ${date}  ${h.sessionId}  ${h.project}${h.agentId ? `  (subagent ${h.agentId})` : ''}${partial}${phrase}`,
    )
    out.push(`   line ${h.line}: ${h.snippet}`)
  }
  return out.join('\n')
}

export const command = defineCommand({
  name: 'find',
  args: 'TERMS...',
  options: {
    projects: PROJECTS,
    since: text('DATE', 'only sessions active on or after DATE'),
    project: text('NAME', 'only project folders containing NAME (/ matches -)'),
    limit: wholeNumber('N', 'at most N hits (default 10)', { min: 1 }),
    tools: flag('search tool inputs and results too'),
    thinking: flag('search thinking too'),
    'index-dir': text('DIR', 'keep the index in DIR'),
    'no-index': flag('read every transcript now, without an index'),
    json: JSON_OUTPUT,
  },
  conflicts: [['index-dir', 'no-index']],
  description: `Ranked (BM25) search of human and assistant text across the estate, one hit per session.
Sessions holding only some of the terms still rank. "quoted words" (or one argument of
several words) also count as a phrase. --tools adds tool inputs and results, --thinking
adds thinking. The index lives in $XDG_CACHE_HOME/claude-jsonl/find (else
~/.cache/claude-jsonl/find), never in the estate.`,
  exitCodes: 'Exit codes: 0 ok, 2 bad usage (no term, a bad date), 3 a missing or unreadable estate root.',
  async run({ values, positionals, print }) {
    const report = await withProgress((onProgress) =>
      find(positionals, {
        projects: values.projects,
        since: values.since,
        project: values.project,
        limit: values.limit,
        tools: values.tools,
        thinking: values.thinking,
        indexDir: values['index-dir'],
        noIndex: values['no-index'],
        onProgress,
      }),
    )
    if (report.scope.filesTotal === 0)
      process.stderr.write(
        `claude-jsonl: ${emptyEstateNotice({ roots: report.scope.roots, source: report.scope.rootsSource })}\n`,
      )
    print(values.json ? JSON.stringify(report, null, 2) : renderFind(report))
    return EXIT.ok
  },
})

export const runFind = (args: string[]) => runCommand(command, args)
