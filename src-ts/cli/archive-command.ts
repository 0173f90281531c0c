// `claude-jsonl archive [ROOTS...] --to DIR`: mirrors the estate into an archive root
// incrementally, with a progress bar and a summary (or the report as JSON).
import { archive, ArchiveReport } from '../archive/archive.js'
import { EXIT } from '../errors.js'
import { defineCommand, flag, text } from './command.js'
import { JSON_OUTPUT, PROJECTS } from './common-options.js'
import { withProgress } from '../terminal/progress.js'
import { formatBytes, formatInt, count } from '../terminal/format.js'
import { writeStderr } from '../terminal/output.cjs'

const ratio = (r: number | null) => (r === null ? '-' : `${r.toFixed(2)}x`)

export function renderArchive(r: ArchiveReport): string {
  const changed = [
    r.added ? `${formatInt(r.added)} new` : '',
    r.appended ? `${formatInt(r.appended)} appended to` : '',
    r.generations ? `${formatInt(r.generations)} rewritten (new generation)` : '',
    r.touched ? `${formatInt(r.touched)} touched (same bytes)` : '',
    `${formatInt(r.unchanged)} unchanged`,
  ].filter(Boolean)
  return [
    `Archived ${count(r.files - r.configFiles, 'transcript')}${r.configFiles ? ` and ${count(r.configFiles, 'config file')}` : ''} into ${r.scope.to}: ${changed.join(', ')}${r.failures.length ? `, ${formatInt(r.failures.length)} failed` : ''}${r.skipped.length ? `, ${formatInt(r.skipped.length)} skipped (symbolic links out of the estate, not followed)` : ''}${r.notTranscripts.length ? `, ${count(r.notTranscripts.length, 'file')} left out (not a transcript)` : ''}`,
    `This run: ${formatBytes(r.bytesIn)} in, ${formatBytes(r.bytesStored)} stored (${ratio(r.ratio)}) in ${(r.elapsedMs / 1000).toFixed(2)} s`,
    `Archive: ${count(r.archive.files - r.archive.configFiles, 'transcript')}${r.archive.configFiles ? ` and ${count(r.archive.configFiles, 'config file')}` : ''}, ${formatBytes(r.archive.bytes)} in ${formatBytes(r.archive.storeBytes)} (${ratio(r.archive.ratio)})`,
  ].join('\n')
}

export const command = defineCommand({
  name: 'archive',
  args: '[PATH...]',
  options: {
    to: text('DIR', 'the archive root', { required: true }),
    projects: PROJECTS,
    'include-config': flag(
      'also archive what the cleanup deletes from the config folder outside projects/ (file-history, todos, plans, ...)',
    ),
    json: JSON_OUTPUT,
  },
  description: `Mirrors every session and subagent transcript of the estate (same roots as stats) into the
archive root DIR, a session store Claude Code's 30-day cleanup does not touch. Each run stores
only what changed: bytes appended since the last run become new frames; a transcript Claude
Code rewrote is kept as a new generation beside the old one; unchanged files are skipped from
their size, mtime and inode. Transcripts deleted from the estate stay in the archive.
--include-config also archives, from the config folder each estate root is the projects/
folder of, the files the cleanup deletes there: file-history/, todos/, tasks/, session-env/,
debug/, plans/, shell-snapshots/ and paste-cache/ (never credentials or settings).`,
  exitCodes: `Exit codes: 0 everything archived, 1 some transcripts could not be archived (each named on
stderr; the rest were), 2 bad usage (--include-config with a root that is not a projects/
folder), 3 an estate root or DIR is missing, unreadable or not
an archive, or another archive run holds DIR.`,
  async run({ values, positionals, print }) {
    const report = await withProgress((onProgress) =>
      archive({
        paths: positionals,
        projects: values.projects,
        to: values.to,
        includeConfig: values['include-config'],
        onProgress,
      }),
    )
    for (const f of report.failures) writeStderr(`claude-jsonl: ${f.message}\n`)
    for (const f of report.skipped) writeStderr(`claude-jsonl: skipped: ${f.message}\n`)
    for (const f of report.notTranscripts) writeStderr(`claude-jsonl: left out: ${f.message}\n`)
    for (const h of report.healed) writeStderr(`claude-jsonl: warning: ${h}\n`)
    print(values.json ? JSON.stringify(report, null, 2) : renderArchive(report))
    return report.failures.length > 0 || report.healed.length > 0 ? EXIT.flagged : EXIT.ok
  },
})
