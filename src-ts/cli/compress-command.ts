// `claude-jsonl compress SESSION --out FILE`: a compressed candidate of one session (candidate
// mode; the original is never touched). Exit 0 written, 1 refused (topology stop, token ceiling),
// 2 bad usage or output path, 3 unreadable input, an invalid model summary (the rule named) or a
// source that changed during the run, 4 internal (the candidate failed validation).
import { compress, type CompressOptions } from '../compress/compress.js'
import { EXIT, usageError } from '../errors.js'
import { resolveSession } from '../read/session-ref.js'
import { parseCommand, print } from './args.js'
import { BUDGET_FLAGS, budgetOptions, fraction, TOPOLOGY_USAGE, wholeNumber } from './topology-options.js'

export const COMPRESS_USAGE = `Usage: claude-jsonl compress SESSION --out FILE [--force] [--json] [--projects DIR]
  [--summary deterministic|model] [--model-summary FILE | --summarizer-cmd CMD | --summarizer anthropic [--model M]]
  [--handoff FILE] [--model-pack-char-budget N] [--model-pack-estimated-token-budget N]
  [--preserve-prior-summaries-verbatim] [--summary-char-budget N] [--target-estimated-tokens N]
  [--min-gain F]
${TOPOLOGY_USAGE}
SESSION is a transcript path, a session uuid or a unique prefix. FILE must differ from it and lie
outside any .claude tree; FILE.report.json is written beside it. Nothing is written on failure.
--min-gain F: publish only when the candidate holds at most F times the source's estimated
message tokens (default 0.9); otherwise refuse with "nothing to gain".
Exit codes: 0 written, 1 refused (nothing to gain, topology stop, token ceiling, a source invalid
where it is kept verbatim), 2 bad usage or output path,
3 unreadable input, an invalid model summary (the rule named) or a source changed during the run,
4 internal error.`

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
    'min-gain': { type: 'string' },
  })
  if (values.help) return (print(COMPRESS_USAGE), EXIT.ok)
  if (positionals.length !== 1)
    throw usageError(`compress takes one SESSION, got ${positionals.length} (see claude-jsonl compress --help)`)
  if (!values.out) throw usageError('compress needs --out FILE (see claude-jsonl compress --help)')
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
    minGain: fraction('compress', '--min-gain', values['min-gain']),
  }
  const r = await compress(session.path, values.out, options)
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
