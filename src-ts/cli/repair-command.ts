// `claude-jsonl repair SESSION (--out FILE | --in-place ...)` and `repair --all`: mends damaged
// transcripts (records on one line, torn lines, non-JSON bytes, lone surrogates, dangling
// parents, tool results whose call is off the chain) so that the client resumes all of them;
// `--dry-run` says what would change.
import { resolve } from 'node:path'
import { repairTranscript, type TranscriptRepairReport } from '../compress/repair.js'
import { recoverInterruptedPublish } from '../compress/transaction.js'
import type { BatchReport } from '../compress/batch.js'
import { EXIT, usageError } from '../errors.js'
import { formatBytes, formatInt } from '../terminal/format.js'
import { resolveSession } from '../read/session-ref.js'
import { sessionFileFor } from '../archive/in-memory.js'
import { defineCommand, flag, text, wholeNumber, type Values } from './command.js'
import { JSON_OUTPUT, ONE_SESSION, PROJECTS } from './common-options.js'
import { batchMode, committedReportFailed, IN_PLACE_OPTIONS, inPlaceSettings } from './in-place-options.js'
import { writeStderr } from '../terminal/output.cjs'

const BATCH_OPTIONS = {
  all: flag('repair every session of the estate (PATH folders, --projects, $CLAUDE_CONFIG_DIR or ~/.claude)'),
  'out-dir': text('DIR', 'with --all: DIR/<project>/<session>.jsonl and its report per repaired session'),
  'min-bytes': wholeNumber('N', 'with --all: skip sessions under N bytes'),
  project: text('P', 'with --all: one project (its folder name or a path)'),
  'older-than': text('AGE', 'with --all: last active at least AGE ago (30m, 12h, 7d, 2w or a date)'),
  'newer-than': text('AGE', 'with --all: last active at most AGE ago'),
  sessions: text('FILE', 'with --all: only the session ids in FILE (one a line)'),
  jobs: wholeNumber('N', "with --all: worker threads (default: the machine's cores)", { min: 1 }),
} as const

const OPTIONS = {
  out: text('FILE', 'where the repaired copy is written (outside any .claude tree; FILE.report.json beside it)'),
  force: flag('replace an existing --out FILE'),
  ...IN_PLACE_OPTIONS,
  'dry-run': flag('say what would change, line by line; write nothing'),
  json: JSON_OUTPUT,
  projects: PROJECTS,
  ...BATCH_OPTIONS,
} as const

type RepairValues = Values<typeof OPTIONS>

export const command = defineCommand({
  name: 'repair',
  args: 'SESSION | --all [PATH...]',
  options: OPTIONS,
  description: `Mends the damage that makes Claude Code resume less than a transcript holds, each by a byte-span
edit, every other record copied byte for byte: records on one line (written one to a line),
a record cut short (cut; its bytes are in the report and the backup), NUL or other non-JSON bytes
between records (removed), lone UTF-16 surrogate escapes (rewritten to \\ufffd), a parentUuid on
the active chain naming no record (relinked where the client's re-attachment and the nearest
earlier record agree; otherwise reported and left), a tool_result on the active chain whose
tool_use is held by a record off the chain (relinked to that record where unambiguous; the
client would send neither). A repair that would make the client resume
less, or other than what the damage hid, is refused. --out FILE writes a repaired copy;
--in-place replaces the transcript through the same transaction as compress --in-place (backup
FILE.backup, report in DIR); --dry-run writes nothing. Nothing is written when nothing is damaged.
--all repairs every session of the estate (into --out-dir DIR, or --in-place); a re-run skips
sessions unchanged since.`,
  exitCodes: `Exit codes: 0 repaired, nothing to repair, or a dry run; 1 refused (damage that cannot be mended
safely, a repair that would change what the client resumes, a live or recently written session;
with --all: some session failed), 2 bad usage, 3 unreadable input, not a Claude Code transcript,
a source changed during the run, or operationState committed-report-failed, 4 internal error.`,
  async run({ values, positionals, print }): Promise<number> {
    if (values.all) return runBatch(values, positionals, print)
    for (const key of Object.keys(BATCH_OPTIONS))
      if (values[key as keyof typeof BATCH_OPTIONS] !== undefined)
        throw usageError(`repair: --${key} goes with --all (see claude-jsonl repair --help)`)
    if (positionals.length !== 1)
      throw usageError(
        `repair takes one ${ONE_SESSION.name} (${ONE_SESSION.what}), got ${positionals.length} (see claude-jsonl repair --help)`,
      )
    const dryRun = values['dry-run'] === true
    const inPlace =
      dryRun && !values['in-place'] && values.out === undefined ? undefined : inPlaceSettings('repair', values)
    if (inPlace) recoverInterruptedPublish(resolve(positionals[0]))
    const session = resolveSession(positionals[0], { projects: values.projects })
    session.path = sessionFileFor(session.path, inPlace !== undefined)
    const r = await repairTranscript(session.path, { out: values.out, force: values.force, inPlace, dryRun })
    if (r.transaction?.operationState === 'committed-report-failed') {
      print(committedReportFailed(r.transaction, 'operationState'))
      writeStderr(`claude-jsonl: ${r.transaction.error!.message}\n`)
      return EXIT.input
    }
    if (values.json) return (print(JSON.stringify(r.report, null, 2)), EXIT.ok)
    const lines = renderRepair(r.report)
    if (r.transaction?.backup) lines.push(`  backup: ${r.transaction.backup} (verified byte for byte)`)
    if (r.reportPath) lines.push(`  report: ${r.reportPath}`)
    print(lines.join('\n'))
    return EXIT.ok
  },
})

const preview = (s: string) => JSON.stringify(s.length > 60 ? `${s.slice(0, 57)}...` : s)

/** One session's repair as text: a headline, then each edit and each damage left, by line. */
export function renderRepair(rep: TranscriptRepairReport): string[] {
  const counts = Object.entries(rep.counts)
    .map(([k, n]) => `${k} ${n}`)
    .join(', ')
  const size = `${rep.bytesBefore} -> ${rep.bytesAfter} bytes`
  const head =
    rep.operationState === 'nothing-to-repair'
      ? `repair: ${rep.input}: nothing to repair; nothing written`
      : rep.operationState === 'dry-run'
        ? `repair (dry run: nothing written): ${rep.input}: would make ${rep.edits.length} edit(s) (${counts}), ${size}`
        : `repair: ${rep.output}: ${rep.edits.length} edit(s) (${counts}), ${size}; verified after writing`
  const out = [head]
  for (const e of rep.edits) {
    const cut = e.removedBytes && e.kind !== 'records-on-one-line' ? ` [${preview(e.removedText)}]` : ''
    out.push(`  line ${e.line} ${e.kind}: ${e.message}${cut}`)
  }
  for (const l of rep.left) out.push(`  left: line ${l.line} ${l.kind}: ${l.message}`)
  if (rep.operationState !== 'nothing-to-repair')
    out.push(
      `  validation of the repaired file: ${rep.validation.errors} error(s)${rep.validation.codes.length ? ` (${rep.validation.codes.join(', ')})` : ''}, ${rep.validation.warnings} warning(s); the damaged file had ${rep.validation.sourceErrors} error(s)`,
    )
  return out
}

async function runBatch(values: RepairValues, positionals: string[], print: (text: string) => void): Promise<number> {
  const mode = batchMode('repair', values)
  const { compressEstate, readSessionList } = await import('../compress/batch.js')
  const { createProgress } = await import('../terminal/progress.js')
  const bar = createProgress()
  try {
    const report = await compressEstate({
      operation: 'repair',
      paths: positionals,
      projects: values.projects,
      mode,
      dryRun: values['dry-run'],
      minBytes: values['min-bytes'],
      project: values.project,
      olderThan: values['older-than'],
      newerThan: values['newer-than'],
      sessions: values.sessions === undefined ? undefined : readSessionList(values.sessions),
      jobs: values.jobs,
      onProgress: (p) =>
        bar.update({
          bytesDone: p.bytesDone,
          bytesTotal: p.bytesTotal,
          filesDone: p.sessionsDone,
          filesTotal: p.sessionsTotal,
          unit: 'sessions',
          eta: true,
        }),
    })
    bar.done()
    print(values.json ? JSON.stringify(report, null, 2) : renderRepairBatch(report))
    return report.totals.failed > 0 ? EXIT.flagged : EXIT.ok
  } finally {
    bar.done()
  }
}

/** The batch as lines: the totals by outcome, then each repaired, refused or failed session. */
export function renderRepairBatch(r: BatchReport): string {
  const t = r.totals
  const skips = Object.entries(t.skippedByReason)
    .map(([k, n]) => `${n} ${k}`)
    .join(', ')
  const out = [
    `repair --all${r.dryRun ? ' (dry run: nothing written)' : ''}${r.outDir ? ` into ${r.outDir}` : ''}: ${formatInt(t.sessions)} sessions, ${formatBytes(t.bytesBefore)}; ${r.dryRun ? 'would repair' : 'repaired'} ${formatInt(t.repaired)}, skipped ${formatInt(t.skipped)}${skips ? ` (${skips})` : ''}, failed ${formatInt(t.failed)}; ${formatInt(r.subagentFiles)} subagent transcripts left alone; ${(r.elapsedMs / 1000).toFixed(1)} s`,
  ]
  for (const s of r.sessions) {
    if (s.status === 'repaired')
      out.push(
        `  repaired: ${s.path}: ${Object.entries(s.repairs ?? {})
          .map(([k, n]) => `${k} ${n}`)
          .join(', ')}`,
      )
    else if (s.status === 'failed' || s.reason === 'unmendable' || s.reason === 'live' || s.reason === 'invalid-source')
      out.push(`  ${s.status}: ${s.message}`)
  }
  if (r.notFound.length) out.push(`not found (--sessions): ${r.notFound.join(', ')}`)
  return out.join('\n')
}
