// `claude-jsonl compress SESSION (--out FILE | --in-place ...)`: a compressed candidate of one
// session (candidate mode: the original is never touched), or the session replaced by it through
// the in-place transaction.
import { resolve } from 'node:path'
import { compress, type CompressOptions, type CompressReport } from '../compress/compress.js'
import { compressInPlace } from '../compress/in-place.js'
import { recoverInterruptedPublish } from '../compress/transaction.js'
import { EXIT, usageError } from '../errors.js'
import type { BatchReport, BatchSessionEntry } from '../compress/batch.js'
import { formatBytes, formatInt, count } from '../terminal/format.js'
import { renderTable } from '../terminal/table.js'
import { resolveSession } from '../read/session-ref.js'
import { sessionFileFor } from '../archive/in-memory.js'
import { choice, decimal, defineCommand, flag, text, wholeNumber, type Values } from './command.js'
import { JSON_OUTPUT, ONE_SESSION, PROJECTS } from './common-options.js'
import { BUDGET_OPTIONS, budgetOptions, PACK_BUDGET_OPTIONS } from './topology-options.js'
import { batchMode, committedReportFailed, IN_PLACE_OPTIONS, inPlaceSettings } from './in-place-options.js'
import { writeStderr } from '../terminal/output.cjs'

/** Skipped and failed sessions listed by name in the batch's text output, unless --verbose. */
const LISTED_SESSIONS = 20

/** The options of `compress --all` alone. */
const BATCH_OPTIONS = {
  all: flag('compress every session of the estate (PATH folders, --projects, $CLAUDE_CONFIG_DIR or ~/.claude)'),
  'out-dir': text('DIR', 'with --all: DIR/<project>/<session>.jsonl and its report per compressed session'),
  'dry-run': flag('with --all: plan, summarise and validate every session; write nothing'),
  'min-bytes': wholeNumber('N', 'with --all: skip sessions under N bytes as too small'),
  'min-estimated-tokens': wholeNumber('N', 'with --all: skip sessions whose chain holds fewer estimated tokens'),
  project: text('P', 'with --all: one project (its folder name or a path)'),
  'older-than': text('AGE', 'with --all: last active at least AGE ago (30m, 12h, 7d, 2w or a date)'),
  'newer-than': text('AGE', 'with --all: last active at most AGE ago'),
  sessions: text('FILE', 'with --all: only the session ids in FILE (one a line)'),
  jobs: wholeNumber('N', "with --all: worker threads (default: the machine's cores)", { min: 1 }),
  'summary-jobs': wholeNumber('N', 'with --all: model summaries at once (default 4)', { min: 1 }),
  'summary-retries': wholeNumber(
    'N',
    'with --all: tries after a failed model summary (default 2, backoff 2 s, 4 s...)',
  ),
  'summary-fallback': choice(
    ['fail', 'deterministic'] as const,
    'with --all: when a model summary keeps failing (default fail)',
  ),
  verbose: flag(`with --all: list every skipped and failed session (default: the first ${LISTED_SESSIONS})`),
} as const

const COMPRESS_OPTIONS = {
  out: text('FILE', 'where the candidate is written (FILE.report.json beside it)'),
  force: flag('replace an existing FILE'),
  ...IN_PLACE_OPTIONS,
  json: JSON_OUTPUT,
  projects: PROJECTS,
  summary: text('deterministic|model', 'which summary (default deterministic)'),
  'model-summary': text('FILE', 'a summary a model wrote from `claude-jsonl pack` with the same options'),
  'summarizer-cmd': text('CMD', 'pipe the pack to CMD and apply the summary it prints'),
  summarizer: text('anthropic', 'ask the Messages API (ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL)'),
  model: text('M', 'the model for --summarizer anthropic'),
  ...PACK_BUDGET_OPTIONS,
  'preserve-prior-summaries-verbatim': flag('embed earlier compact summaries as they are'),
  ...BUDGET_OPTIONS,
  'min-gain': decimal(
    'F',
    "publish only a candidate of at most F times the source's estimated tokens (default 0.9)",
    'a number > 0',
  ),
  ...BATCH_OPTIONS,
} as const

export const command = defineCommand({
  name: 'compress',
  args: 'SESSION | --all [PATH...]',
  options: COMPRESS_OPTIONS,
  description: `SESSION is a transcript path, a session uuid or a unique prefix. FILE must differ from it and lie
outside any .claude tree; FILE.report.json is written beside it. Nothing is written on failure.
--in-place replaces the transcript itself (it must be a regular .jsonl under a Claude projects
folder): the candidate and DIR/<session>.<hash>.compressed.jsonl.report.json go to DIR (outside
any .claude tree), a verified backup FILE.backup (.backup1, ...) is kept beside it. A session
that a running Claude Code holds, or one modified within the last SECONDS (default 10), is
refused (exit 1).
Nothing to gain (the candidate over --min-gain times the source's estimated message tokens, or a
chain too short to cut) is refused, exit 1, nothing written.
--all compresses every session of the estate into DIR/<project>/<session>.jsonl with its report
(or, with --in-place, each in place); subagent transcripts are never touched; a re-run skips
sessions unchanged since. Batch exit codes: 0 no session failed (skips are not failures), 1 some
session failed, 2 bad usage, 3 a missing estate root.`,
  exitCodes: `Exit codes: 0 written, 1 refused (nothing to gain, topology stop, token ceiling, a source invalid where it is kept
verbatim), 2 bad usage or output path,
3 unreadable input, an invalid model summary (the rule named) or a source changed during the run,
or (in place) operation_state committed-report-failed: replaced and verified, report not written
(the receipt is printed), 4 internal error.`,
  async run({ values, positionals, print }): Promise<number> {
    if (values.all) return runBatch(values, positionals, print)
    for (const key of Object.keys(BATCH_OPTIONS))
      if (values[key as keyof typeof BATCH_OPTIONS] !== undefined)
        throw usageError(`compress: --${key} goes with --all (see claude-jsonl compress --help)`)
    if (positionals.length !== 1)
      throw usageError(
        `compress takes one ${ONE_SESSION.name} (${ONE_SESSION.what}), got ${positionals.length} (see claude-jsonl compress --help)`,
      )
    const inPlace = inPlaceSettings('compress', values)
    // A transcript an interrupted in-place run left renamed aside is put back before it is looked up.
    if (inPlace) recoverInterruptedPublish(resolve(positionals[0]))
    const session = resolveSession(positionals[0], { projects: values.projects })
    session.path = sessionFileFor(session.path, inPlace !== undefined)
    const options = singleOptions(values)
    if (inPlace) return runInPlace(session.path, options, { ...inPlace, json: values.json }, print)

    const out = values.out!
    const r = await compress(session.path, out, options)
    if (values.json) return (print(JSON.stringify(r, null, 2)), EXIT.ok)
    const pct = (x: number) => `${(x * 100).toFixed(1)}%`
    print(
      [
        `compress: ${out}: ${r.outputBytes} bytes (${pct(r.ratio)} of ${r.inputBytes}), ~${r.outputEstimatedMessageTokens} estimated message tokens (was ~${r.inputEstimatedMessageTokens})`,
        `  leaf ${r.selectedLeafUuid} (${r.preserveMode}): ${r.resumeLeafInfo.reason}`,
        `  summary: ${r.semanticSummaryMode}, ${r.summaryChars} chars over ${r.summarizedRecords} records; kept ${r.recentRecordsPreserved} records verbatim from line ${r.cut?.firstKeptLine}`,
        `  excluded: ${r.excludedBranchCount} off the active branch, ${r.excludedUnattributedCount} unattributed; validation ${r.validation.valid ? 'passed' : 'FAILED'}${r.validation.warnings ? ` (${r.validation.warnings} warnings)` : ''}`,
        `  report: ${out}.report.json`,
      ].join('\n'),
    )
    return EXIT.ok
  },
})

async function runInPlace(
  input: string,
  options: CompressOptions,
  o: { workDir: string; confirmSessionClosed?: boolean; stableForMs?: number; json?: boolean },
  print: (text: string) => void,
): Promise<number> {
  const { result, report, reportPath } = await compressInPlace(input, {
    ...options,
    ...o,
    onRecovered: (r) => writeStderr(`claude-jsonl: ${r.message}\n`),
  })
  if (result.operationState === 'committed-report-failed') {
    print(committedReportFailed(result, 'operation_state'))
    writeStderr(`claude-jsonl: ${result.error!.message}\n`)
    return EXIT.input
  }
  if (result.operationState !== 'committed') throw result.error!
  if (o.json) return (print(JSON.stringify(report, null, 2)), EXIT.ok)
  const r = result.details as CompressReport
  print(
    [
      `compress --in-place: ${input}: replaced, ${r.outputBytes} bytes (${((r.ratio ?? 0) * 100).toFixed(1)}% of ${r.inputBytes}), validated after publishing`,
      `  backup: ${result.backup} (verified byte for byte)${result.extraBackups.length ? `; also ${result.extraBackups.join(', ')}` : ''}`,
      `  candidate: ${result.candidate}`,
      `  report: ${reportPath}`,
      `  published by ${result.publishMethod}; folder fsync ${result.parentDirFsync}`,
    ].join('\n'),
  )
  return EXIT.ok
}

type CompressValues = Values<typeof COMPRESS_OPTIONS>

/** The compress options of the command line (one session and a batch alike). */
function singleOptions(values: CompressValues): CompressOptions {
  return {
    ...budgetOptions(values),
    force: values.force,
    summary: values.summary as CompressOptions['summary'],
    modelSummary: values['model-summary'],
    summarizerCmd: values['summarizer-cmd'],
    summarizer: values.summarizer as CompressOptions['summarizer'],
    model: values.model,
    handoff: values.handoff,
    modelPackCharBudget: values['model-pack-char-budget'],
    modelPackEstimatedTokenBudget: values['model-pack-estimated-token-budget'],
    preservePriorSummariesVerbatim: values['preserve-prior-summaries-verbatim'],
    minGain: values['min-gain'],
  }
}

async function runBatch(values: CompressValues, positionals: string[], print: (text: string) => void): Promise<number> {
  const mode = batchMode('compress', values)
  const { compressEstate, readSessionList } = await import('../compress/batch.js')
  const { createProgress } = await import('../terminal/progress.js')
  const bar = createProgress()
  try {
    const report = await compressEstate({
      paths: positionals,
      projects: values.projects,
      mode,
      dryRun: values['dry-run'],
      compress: singleOptions(values),
      minBytes: values['min-bytes'],
      minEstimatedTokens: values['min-estimated-tokens'],
      project: values.project,
      olderThan: values['older-than'],
      newerThan: values['newer-than'],
      sessions: values.sessions === undefined ? undefined : readSessionList(values.sessions),
      jobs: values.jobs,
      summaryJobs: values['summary-jobs'],
      summaryPolicy: { retries: values['summary-retries'], fallback: values['summary-fallback'] },
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
    print(values.json ? JSON.stringify(report, null, 2) : renderBatch(report, { verbose: values.verbose === true }))
    return report.totals.failed > 0 ? EXIT.flagged : EXIT.ok
  } finally {
    bar.done()
  }
}

const SKIP_LABELS: Record<string, string> = {
  'too-small': 'too small',
  'nothing-to-gain': 'nothing to gain',
  live: 'live',
  'ambiguous-leaf': 'ambiguous leaf',
  'invalid-source': 'invalid source',
  'token-ceiling': 'over --target-estimated-tokens',
  unchanged: 'unchanged since the last run',
  symlink: 'refused: a symbolic link',
}

/** Who holds a session skipped as live, from its refusal: a running client, a recent write, or a
 * write during the run. */
function liveHolder(message: string | undefined): string {
  if (message && /Claude Code is running this session/.test(message)) return 'a running Claude Code holds it'
  if (message && /stability window/.test(message)) return 'modified within the stability window'
  return 'written to during the run'
}

/** The reason of a skip or failure as one line: the message without the path it starts with. */
function oneLineReason(e: BatchSessionEntry): string {
  const m = (e.message ?? e.reason ?? '').split('\n')[0]
  return m.startsWith(`${e.path}: `) ? m.slice(e.path.length + 2) : m
}

/** The batch as a table: outcomes by reason, with bytes and estimated tokens; then each skipped
 * and failed session with its reason (the first LISTED_SESSIONS unless `verbose`). */
export function renderBatch(r: BatchReport, o: { verbose?: boolean } = {}): string {
  const t = r.totals
  const out: string[] = []
  const where = r.outDir ? ` into ${r.outDir}` : ''
  out.push(
    `compress --all${r.dryRun ? ' (dry run: nothing written)' : ''}${where}: ${count(t.sessions, 'session')}, ${formatBytes(t.bytesBefore)}; ${count(r.subagentFiles, 'subagent transcript')} left alone; ${(r.elapsedMs / 1000).toFixed(1)} s`,
  )
  // One row per outcome and reason, with what those sessions hold before and after (a session
  // left as it is holds the same after; tokens are summed where they were estimated).
  const groups = new Map<string, BatchSessionEntry[]>()
  const keyOf = (e: BatchSessionEntry) =>
    e.status === 'compressed'
      ? 'compressed'
      : `${e.status}:${e.reason}${e.reason === 'live' ? `:${liveHolder(e.message)}` : ''}`
  for (const e of r.sessions) groups.set(keyOf(e), [...(groups.get(keyOf(e)) ?? []), e])
  const order = [
    'compressed',
    ...Object.keys(t.skippedByReason).flatMap((k) =>
      k === 'live' ? [...groups.keys()].filter((g) => g.startsWith('skipped:live:')) : [`skipped:${k}`],
    ),
    ...Object.keys(t.failedByReason).map((k) => `failed:${k}`),
  ]
  const rows = order.map((key) => {
    const list = groups.get(key) ?? []
    const [status, reason, holder] = key.split(':')
    let label =
      status === 'compressed'
        ? 'compressed'
        : `${status}: ${status === 'skipped' ? (SKIP_LABELS[reason] ?? reason) : reason}${holder ? ` (${holder})` : ''}`
    if (reason === 'ambiguous-leaf') {
      const options = [...new Set(list.filter((s) => s.option).map((s) => s.option!.replace(/ \(.*$/, '')))]
      if (options.length) label += ` (decided by ${options.join(' or ')})`
    }
    const after = (e: BatchSessionEntry) =>
      e.status === 'compressed' || e.previous?.status === 'compressed' ? (e.bytesAfter ?? e.bytesBefore) : e.bytesBefore
    const known = list.filter((e) => e.tokensBefore !== undefined)
    const tokensAfter = (e: BatchSessionEntry) =>
      e.status === 'compressed' || e.previous?.status === 'compressed' ? (e.tokensAfter ?? 0) : e.tokensBefore!
    return [
      label,
      formatInt(list.length),
      formatBytes(list.reduce((n, e) => n + e.bytesBefore, 0)),
      formatBytes(list.reduce((n, e) => n + after(e), 0)),
      known.length ? `~${formatInt(known.reduce((n, e) => n + e.tokensBefore!, 0))}` : '-',
      known.length ? `~${formatInt(known.reduce((n, e) => n + tokensAfter(e), 0))}` : '-',
    ]
  })
  out.push(
    renderTable(
      [
        { header: 'Outcome' },
        { header: 'Sessions', align: 'right' },
        { header: 'Bytes before', align: 'right' },
        { header: 'after', align: 'right' },
        { header: 'Est. tokens before', align: 'right' },
        { header: 'after', align: 'right' },
      ],
      rows,
      { footer: ['Total', formatInt(t.sessions), formatBytes(t.bytesBefore), formatBytes(t.bytesAfter), '', ''] },
    ),
  )
  if (t.compressedBytesBefore > 0) {
    const pct = (a: number, b: number) => (b > 0 ? `${((a / b) * 100).toFixed(1)}%` : '-')
    out.push(
      `compressed sessions: ${formatBytes(t.compressedBytesBefore)} -> ${formatBytes(t.compressedBytesAfter)} (${pct(t.compressedBytesAfter, t.compressedBytesBefore)}), ~${formatInt(t.compressedTokensBefore)} -> ~${formatInt(t.compressedTokensAfter)} estimated message tokens (${pct(t.compressedTokensAfter, t.compressedTokensBefore)})`,
    )
  }
  // Each session left as it is or failed, by name, with why; unchanged ones only as a count.
  const listed = [
    ...r.sessions.filter((x) => x.status === 'failed'),
    ...r.sessions.filter((x) => x.status === 'skipped' && x.reason !== 'unchanged'),
  ]
  const shown = o.verbose ? listed : listed.slice(0, LISTED_SESSIONS)
  if (shown.length) out.push('')
  for (const s of shown) {
    out.push(`${s.status} ${s.path}: ${oneLineReason(s)}`)
  }
  if (listed.length > shown.length)
    out.push(
      `… and ${count(listed.length - shown.length, 'more session')} (--verbose lists them all; --json has every reason)`,
    )
  if (r.mode === 'in-place' && !r.dryRun) {
    out.push('')
    out.push(
      `backups: beside each replaced session (<session>.jsonl.backup, verified byte for byte)${r.workDir ? `; work dir (candidates, reports, manifest): ${r.workDir}` : ''}`,
    )
  }
  for (const s of r.sessions.filter((x) => x.reason === 'symlink').slice(0, 20)) out.push(`refused: ${s.message}`)
  for (const x of r.recovered) out.push(`recovered: ${x.message}`)
  // An unchanged session carries a message only when it was recognised as an interrupted run's output.
  for (const s of r.sessions.filter((x) => x.reason === 'unchanged' && x.message)) out.push(`recognised: ${s.message}`)
  if (r.notFound.length) out.push(`not found (--sessions): ${r.notFound.join(', ')}`)
  return out.join('\n')
}
