// `claude-jsonl compress SESSION --out FILE`: a compressed candidate of one session (candidate
// mode; the original is never touched). Exit 0 written, 1 refused (topology stop, token ceiling),
// 2 bad usage or output path, 3 unreadable input, an invalid model summary (the rule named) or a
// source that changed during the run, 4 internal (the candidate failed validation).
import { compress, type CompressOptions, type CompressReport } from '../compress/compress.js'
import { compressInPlace } from '../compress/in-place.js'
import { recoverInterruptedPublish, type ReplaceResult } from '../compress/transaction.js'
import { resolve } from 'node:path'
import { EXIT, usageError } from '../errors.js'
import { resolveSession } from '../read/session-ref.js'
import { parseCommand, print } from './args.js'
import { BUDGET_FLAGS, budgetOptions, TOPOLOGY_USAGE, wholeNumber } from './topology-options.js'

export const COMPRESS_USAGE = `Usage: claude-jsonl compress SESSION (--out FILE [--force] |
         --in-place --work-dir DIR --confirm-session-closed [--stable-for SECONDS]) [--json] [--projects DIR]
  [--summary deterministic|model] [--model-summary FILE | --summarizer-cmd CMD | --summarizer anthropic [--model M]]
  [--handoff FILE] [--model-pack-char-budget N] [--model-pack-estimated-token-budget N]
  [--preserve-prior-summaries-verbatim] [--summary-char-budget N] [--target-estimated-tokens N]
${TOPOLOGY_USAGE}
SESSION is a transcript path, a session uuid or a unique prefix. FILE must differ from it and lie
outside any .claude tree; FILE.report.json is written beside it. Nothing is written on failure.
Exit codes: 0 written, 1 refused (topology stop, token ceiling, a source invalid where it is kept
verbatim), 2 bad usage or output path,
3 unreadable input, an invalid model summary (the rule named) or a source changed during the run,
4 internal error.
--in-place replaces the transcript itself (it must be a regular .jsonl under a Claude projects
folder): the candidate and DIR/<session>.<hash>.compressed.jsonl.report.json go to DIR (outside
any .claude tree), a verified backup FILE.backup (.backup1, ...) is kept beside it. A session
that a running Claude Code holds, or one modified within the last SECONDS (default 10), is
refused (exit 1). Exit 3 with operation_state committed-report-failed: the transcript was
replaced and verified but the report could not be written (the receipt is printed).`

export async function runCompress(args: string[]): Promise<number> {
  const { values, positionals } = parseCommand('compress', args, {
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
    'in-place': { type: 'boolean' },
    'work-dir': { type: 'string' },
    'confirm-session-closed': { type: 'boolean' },
    'stable-for': { type: 'string' },
  })
  if (values.help) return (print(COMPRESS_USAGE), EXIT.ok)
  if (positionals.length !== 1)
    throw usageError(`compress takes one SESSION, got ${positionals.length} (see claude-jsonl compress --help)`)
  if (values['in-place'] && values.out) throw usageError('compress: give --out FILE or --in-place, not both')
  if (values['in-place'] && values.force)
    throw usageError('compress: --force goes with --out (in place, the original is always kept as a numbered backup)')
  if (!values['in-place'] && (values['work-dir'] || values['confirm-session-closed'] || values['stable-for']))
    throw usageError('compress: --work-dir, --confirm-session-closed and --stable-for go with --in-place')
  if (!values.out && !values['in-place'])
    throw usageError('compress needs --out FILE or --in-place (see claude-jsonl compress --help)')
  // A transcript an interrupted in-place run left renamed aside is put back before it is looked up.
  if (values['in-place']) recoverInterruptedPublish(resolve(positionals[0]))
  const session = resolveSession(positionals[0], { projects: values.projects })
  const options: CompressOptions = {
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
  }
  if (values['in-place'])
    return runInPlace(session.path, options, {
      workDir: values['work-dir'] ?? '',
      confirmSessionClosed: values['confirm-session-closed'],
      stableForMs: stableForMs('compress', values['stable-for']),
      json: values.json,
    })
  const out = values.out!
  const r = await compress(session.path, out, options)
  if (values.json) print(JSON.stringify(r, null, 2))
  else {
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
  }
  return EXIT.ok
}

/** `--stable-for SECONDS` in milliseconds (undefined: the default window). */
export function stableForMs(command: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined
  const n = Number(value)
  if (!Number.isFinite(n) || n < 0)
    throw usageError(`${command}: --stable-for takes seconds (a number >= 0), got '${value}'`)
  return n * 1000
}

/** The receipt printed when a replacement committed but its report could not be written. */
export function committedReportFailed(r: ReplaceResult, stateKey: 'operation_state' | 'operationState'): string {
  return JSON.stringify(
    {
      [stateKey]: r.operationState,
      target: r.target,
      backup: r.backup,
      candidate: r.candidate,
      frozenSha256: r.frozenSha256,
      candidateSha256: r.candidateSha256,
      publishedSha256: r.publishedSha256,
      error: r.error?.message,
    },
    null,
    2,
  )
}

async function runInPlace(
  input: string,
  options: CompressOptions,
  o: { workDir: string; confirmSessionClosed?: boolean; stableForMs?: number; json?: boolean },
): Promise<number> {
  const { result, report, reportPath } = await compressInPlace(input, { ...options, ...o })
  if (result.operationState === 'committed-report-failed') {
    print(committedReportFailed(result, 'operation_state'))
    process.stderr.write(`claude-jsonl: ${result.error!.message}\n`)
    return EXIT.input
  }
  if (result.operationState !== 'committed') throw result.error!
  if (o.json) print(JSON.stringify(report, null, 2))
  else {
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
  }
  return EXIT.ok
}
