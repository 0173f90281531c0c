// `claude-jsonl compress SESSION --out FILE`: a compressed candidate of one session (candidate
// mode; the original is never touched).
import { compress, type CompressOptions } from '../compress/compress.js'
import { EXIT } from '../errors.js'
import { resolveSession } from '../read/session-ref.js'
import { defineCommand, flag, text } from './command.js'
import { JSON_OUTPUT, ONE_SESSION, PROJECTS } from './common-options.js'
import { BUDGET_OPTIONS, budgetOptions, PACK_BUDGET_OPTIONS } from './topology-options.js'

export const command = defineCommand({
  name: 'compress',
  args: 'SESSION',
  oneArgument: ONE_SESSION,
  options: {
    out: text('FILE', 'where the candidate is written (FILE.report.json beside it)', { required: true }),
    force: flag('replace an existing FILE'),
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
outside any .claude tree; FILE.report.json is written beside it. Nothing is written on failure.`,
  exitCodes: `Exit codes: 0 written, 1 refused (topology stop, token ceiling, a source invalid where it is kept
verbatim), 2 bad usage or output path,
3 unreadable input, an invalid model summary (the rule named) or a source changed during the run,
4 internal error.`,
  async run({ values, positionals, print }) {
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
    const r = await compress(session.path, values.out, options)
    if (values.json) return (print(JSON.stringify(r, null, 2)), EXIT.ok)
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
    return EXIT.ok
  },
})
