// `claude-jsonl compress SESSION (--out FILE | --in-place ...)`: a compressed candidate of one
// session (candidate mode: the original is never touched), or the session replaced by it through
// the in-place transaction.
import { resolve } from 'node:path'
import { compress, type CompressOptions, type CompressReport } from '../compress/compress.js'
import { compressInPlace } from '../compress/in-place.js'
import { recoverInterruptedPublish } from '../compress/transaction.js'
import { EXIT } from '../errors.js'
import { resolveSession } from '../read/session-ref.js'
import { defineCommand, flag, text } from './command.js'
import { JSON_OUTPUT, ONE_SESSION, PROJECTS } from './common-options.js'
import { BUDGET_OPTIONS, budgetOptions, PACK_BUDGET_OPTIONS } from './topology-options.js'
import { committedReportFailed, IN_PLACE_OPTIONS, inPlaceSettings } from './in-place-options.js'

export const command = defineCommand({
  name: 'compress',
  args: 'SESSION',
  oneArgument: ONE_SESSION,
  options: {
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
  },
  description: `SESSION is a transcript path, a session uuid or a unique prefix. FILE must differ from it and lie
outside any .claude tree; FILE.report.json is written beside it. Nothing is written on failure.
--in-place replaces the transcript itself (it must be a regular .jsonl under a Claude projects
folder): the candidate and DIR/<session>.<hash>.compressed.jsonl.report.json go to DIR (outside
any .claude tree), a verified backup FILE.backup (.backup1, ...) is kept beside it. A session
that a running Claude Code holds, or one modified within the last SECONDS (default 10), is
refused (exit 1).`,
  exitCodes: `Exit codes: 0 written, 1 refused (topology stop, token ceiling, a source invalid where it is kept
verbatim), 2 bad usage or output path,
3 unreadable input, an invalid model summary (the rule named) or a source changed during the run,
or (in place) operation_state committed-report-failed: replaced and verified, report not written
(the receipt is printed), 4 internal error.`,
  async run({ values, positionals, print }) {
    const inPlace = inPlaceSettings('compress', values)
    // A transcript an interrupted in-place run left renamed aside is put back before it is looked up.
    if (inPlace) recoverInterruptedPublish(resolve(positionals[0]))
    const session = resolveSession(positionals[0], { projects: values.projects })
    const options: CompressOptions = {
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
    }
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
  const { result, report, reportPath } = await compressInPlace(input, { ...options, ...o })
  if (result.operationState === 'committed-report-failed') {
    print(committedReportFailed(result, 'operation_state'))
    process.stderr.write(`claude-jsonl: ${result.error!.message}\n`)
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
