// `claude-jsonl compress SESSION --out FILE`: a compressed candidate of one session (candidate
// mode; the original is never touched). Exit 0 written, 1 refused (topology stop, token ceiling),
// 2 bad usage or output path, 3 unreadable input, an invalid model summary (the rule named) or a
// source that changed during the run, 4 internal (the candidate failed validation).
import { compress, type CompressOptions } from '../compress/compress.js'
import { EXIT, usageError } from '../errors.js'
import { resolveSession } from '../read/session-ref.js'
import type { BatchReport, BatchSessionEntry } from '../compress/batch.js'
import type { ModeConfig } from '../compress/batch-modes.js'
import { parseCommand, print } from './args.js'
import { formatBytes, formatInt, renderTable } from './table.js'
import { BUDGET_FLAGS, budgetOptions, fraction, TOPOLOGY_USAGE, wholeNumber } from './topology-options.js'

export const COMPRESS_USAGE = `Usage: claude-jsonl compress SESSION --out FILE [--force] [--json] [--projects DIR]
       claude-jsonl compress --all [PATH...] --out-dir DIR [--dry-run] [--json] [--projects DIR]
  [--min-bytes N] [--min-estimated-tokens N] [--project P] [--older-than AGE] [--newer-than AGE]
  [--sessions FILE] [--jobs N] [--summary-jobs N] [--summary-retries N]
  [--summary-fallback fail|deterministic]
  [--summary deterministic|model] [--model-summary FILE | --summarizer-cmd CMD | --summarizer anthropic [--model M]]
  [--handoff FILE] [--model-pack-char-budget N] [--model-pack-estimated-token-budget N]
  [--preserve-prior-summaries-verbatim] [--summary-char-budget N] [--target-estimated-tokens N]
  [--min-gain F]
${TOPOLOGY_USAGE}
SESSION is a transcript path, a session uuid or a unique prefix. FILE must differ from it and lie
outside any .claude tree; FILE.report.json is written beside it. Nothing is written on failure.
--min-gain F: publish only when the candidate holds at most F times the source's estimated
message tokens (default 0.9); otherwise refuse with "nothing to gain".
--all compresses every session of the estate (the roots of stats) into DIR/<project>/<session>.jsonl
with its report; subagent transcripts are never touched; a re-run skips sessions unchanged since.
AGE is 30m, 12h, 7d, 2w or a date. Batch exit codes: 0 no session failed (skips are not
failures), 1 some session failed, 2 bad usage, 3 a missing estate root.
Exit codes: 0 written, 1 refused (nothing to gain, topology stop, token ceiling, a source invalid
where it is kept verbatim), 2 bad usage or output path,
3 unreadable input, an invalid model summary (the rule named) or a source changed during the run,
4 internal error.`

const BATCH_FLAGS = {
  all: { type: 'boolean' },
  'out-dir': { type: 'string' },
  'dry-run': { type: 'boolean' },
  'min-bytes': { type: 'string' },
  'min-estimated-tokens': { type: 'string' },
  project: { type: 'string' },
  'older-than': { type: 'string' },
  'newer-than': { type: 'string' },
  sessions: { type: 'string' },
  jobs: { type: 'string' },
  'summary-jobs': { type: 'string' },
  'summary-retries': { type: 'string' },
  'summary-fallback': { type: 'string' },
} as const

/** The in-place flags: one session's or, with --all, every session's. */
const IN_PLACE_FLAGS = {
  'in-place': { type: 'boolean' },
  'work-dir': { type: 'string' },
  'confirm-session-closed': { type: 'boolean' },
} as const

const COMPRESS_FLAGS = {
  ...BUDGET_FLAGS,
  out: { type: 'string' },
  force: { type: 'boolean' },
  json: { type: 'boolean' },
  projects: { type: 'string' },
  summary: { type: 'string' },
  'model-summary': { type: 'string' },
  'summarizer-cmd': { type: 'string' },
  summarizer: { type: 'string' },
  model: { type: 'string' },
  handoff: { type: 'string' },
  'model-pack-char-budget': { type: 'string' },
  'model-pack-estimated-token-budget': { type: 'string' },
  'preserve-prior-summaries-verbatim': { type: 'boolean' },
  'min-gain': { type: 'string' },
  ...BATCH_FLAGS,
  ...IN_PLACE_FLAGS,
} as const

export async function runCompress(args: string[]): Promise<number> {
  const { values, positionals } = parse(args)
  if (values.help) return (print(COMPRESS_USAGE), EXIT.ok)
  if (values.all) return runBatch(values, positionals)
  for (const flag of Object.keys(BATCH_FLAGS))
    if (values[flag as keyof typeof BATCH_FLAGS] !== undefined)
      throw usageError(`compress: --${flag} goes with --all (see claude-jsonl compress --help)`)
  if (values['in-place'] || values['work-dir'] || values['confirm-session-closed'])
    throw usageError('compress --in-place: not available yet (use --out FILE)')
  if (positionals.length !== 1)
    throw usageError(`compress takes one SESSION, got ${positionals.length} (see claude-jsonl compress --help)`)
  if (!values.out) throw usageError('compress needs --out FILE (see claude-jsonl compress --help)')
  const session = resolveSession(positionals[0], { projects: values.projects })
  const r = await compress(session.path, values.out, singleOptions(values))
  if (values.json) print(JSON.stringify(r, null, 2))
  else {
    const pct = (x: number) => `${(x * 100).toFixed(1)}%`
    print(
      [
        `compress: ${values.out}: ${r.outputBytes} bytes (${pct(r.ratio)} of ${r.inputBytes}), ~${r.outputEstimatedMessageTokens} estimated message tokens (was ~${r.inputEstimatedMessageTokens})`,
        `  leaf ${r.selectedLeafUuid} (${r.preserveMode}): ${r.resumeLeafInfo.reason}`,
        `  summary: ${r.semanticSummaryMode}, ${r.summaryChars} chars over ${r.summarizedRecords} records; kept ${r.recentRecordsPreserved} records verbatim from line ${r.cut?.firstKeptLine}`,
        `  excluded: ${r.excludedBranchCount} off the active branch, ${r.excludedUnattributedCount} unattributed; validation ${r.validation.valid ? 'passed' : 'FAILED'}${r.validation.warnings ? ` (${r.validation.warnings} warnings)` : ''}`,
        `  report: ${values.out}.report.json`,
      ].join('\n'),
    )
  }
  return EXIT.ok
}

type Values = ReturnType<typeof parse>['values']

function parse(args: string[]) {
  return parseCommand('compress', args, COMPRESS_FLAGS)
}

/** The compress options of the command line (shared by one session and a batch). */
function singleOptions(values: Values): CompressOptions {
  return {
    ...budgetOptions('compress', values),
    force: values.force,
    summary: values.summary as CompressOptions['summary'],
    modelSummary: values['model-summary'],
    summarizerCmd: values['summarizer-cmd'],
    summarizer: values.summarizer as CompressOptions['summarizer'],
    model: values.model,
    handoff: values.handoff,
    modelPackCharBudget: wholeNumber('compress', '--model-pack-char-budget', values['model-pack-char-budget']),
    modelPackEstimatedTokenBudget: wholeNumber(
      'compress',
      '--model-pack-estimated-token-budget',
      values['model-pack-estimated-token-budget'],
    ),
    preservePriorSummariesVerbatim: values['preserve-prior-summaries-verbatim'],
    minGain: fraction('compress', '--min-gain', values['min-gain']),
  }
}

/** `compress --all`: the batch over the estate; the exit code says whether any session failed. */
async function runBatch(values: Values, positionals: string[]): Promise<number> {
  if (values.out) throw usageError('compress --all writes into --out-dir DIR, not --out FILE')
  if (values.force) throw usageError('compress --all: --force is not needed (a re-run replaces changed sessions)')
  if (values['in-place'] && values['out-dir'])
    throw usageError('compress --all: give --out-dir DIR (candidates) or --in-place, not both')
  if (!values['in-place'] && !values['out-dir'])
    throw usageError('compress --all needs --out-dir DIR (see claude-jsonl compress --help)')
  const { compressEstate, readSessionList } = await import('../compress/batch.js')
  const mode: ModeConfig = values['in-place']
    ? {
        kind: 'in-place',
        workDir: values['work-dir'] ?? '',
        confirmSessionClosed: values['confirm-session-closed'] === true,
      }
    : { kind: 'candidate', outDir: values['out-dir']! }
  const n = (flag: keyof Values & string) => wholeNumber('compress', `--${flag}`, values[flag] as string | undefined)
  const { createProgress } = await import('./progress.js')
  const bar = createProgress(process.stderr)
  try {
    const report = await compressEstate({
      paths: positionals,
      projects: values.projects,
      mode,
      dryRun: values['dry-run'],
      compress: singleOptions(values),
      minBytes: n('min-bytes'),
      minEstimatedTokens: n('min-estimated-tokens'),
      project: values.project,
      olderThan: values['older-than'],
      newerThan: values['newer-than'],
      sessions: values.sessions === undefined ? undefined : readSessionList(values.sessions),
      jobs: n('jobs'),
      summaryJobs: n('summary-jobs'),
      summaryPolicy: {
        retries: n('summary-retries'),
        fallback: values['summary-fallback'] as 'fail' | 'deterministic' | undefined,
      },
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
    print(values.json ? JSON.stringify(report, null, 2) : renderBatch(report))
    return report.totals.failed > 0 ? EXIT.flagged : EXIT.ok
  } finally {
    bar.done()
  }
}

const SKIP_LABELS: Record<string, string> = {
  'too-small': 'too small',
  'nothing-to-gain': 'nothing to gain',
  live: 'live (written to during the run)',
  'ambiguous-leaf': 'ambiguous leaf',
  'invalid-source': 'invalid source',
  'token-ceiling': 'over --target-estimated-tokens',
  unchanged: 'unchanged since the last run',
}

/** The batch as a table: outcomes by reason, with bytes and estimated tokens. */
export function renderBatch(r: BatchReport): string {
  const t = r.totals
  const out: string[] = []
  const where = r.outDir ? ` into ${r.outDir}` : ''
  out.push(
    `compress --all${r.dryRun ? ' (dry run: nothing written)' : ''}${where}: ${formatInt(t.sessions)} sessions, ${formatBytes(t.bytesBefore)}; ${formatInt(r.subagentFiles)} subagent transcripts left alone; ${(r.elapsedMs / 1000).toFixed(1)} s`,
  )
  // One row per outcome and reason, with what those sessions hold before and after (a session
  // left as it is holds the same after; tokens are summed where they were estimated).
  const groups = new Map<string, BatchSessionEntry[]>()
  const keyOf = (e: BatchSessionEntry) => (e.status === 'compressed' ? 'compressed' : `${e.status}:${e.reason}`)
  for (const e of r.sessions) groups.set(keyOf(e), [...(groups.get(keyOf(e)) ?? []), e])
  const order = [
    'compressed',
    ...Object.keys(t.skippedByReason).map((k) => `skipped:${k}`),
    ...Object.keys(t.failedByReason).map((k) => `failed:${k}`),
  ]
  const rows = order.map((key) => {
    const list = groups.get(key) ?? []
    const [status, reason] = key.split(':')
    let label =
      status === 'compressed'
        ? 'compressed'
        : `${status}: ${status === 'skipped' ? (SKIP_LABELS[reason] ?? reason) : reason}`
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
  for (const s of r.sessions.filter((x) => x.status === 'failed').slice(0, 20)) out.push(`failed: ${s.message}`)
  if (r.notFound.length) out.push(`not found (--sessions): ${r.notFound.join(', ')}`)
  return out.join('\n')
}
