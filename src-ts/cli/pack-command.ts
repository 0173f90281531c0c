// `claude-jsonl pack SESSION --out PACK.md`: the evidence pack of the model-assisted summary
// protocol v11 for the records a compression with the same options would summarise, for a
// summarising model to read. Its answer is applied with `compress --model-summary`.
import { parseCommand, print } from './args.js'
import { EXIT, usageError } from '../errors.js'
import { resolveSession } from '../read/session-ref.js'
import { publishFile } from '../atomic-write.js'
import { checkSourceUnchanged, planSource } from '../compress/compress.js'
import { checkOutputPath } from '../compress/paths.js'
import { packFor } from '../compress/summarize.js'
import { readSummaryInputs } from '../compress/summary-inputs.js'
import { BUDGET_FLAGS, budgetOptions, TOPOLOGY_USAGE, wholeNumber } from './topology-options.js'

export const PACK_USAGE = `Usage: claude-jsonl pack SESSION --out PACK.md [--handoff FILE] [--force]
  [--model-pack-char-budget N] [--model-pack-estimated-token-budget N]
  [--summary-char-budget N] [--target-estimated-tokens N] [--projects DIR] [--json]
${TOPOLOGY_USAGE}
Writes the evidence pack a summarising model reads (protocol v11), for the records that
\`compress\` with the same options summarises (give it the same options). PACK.md must lie outside
any .claude tree. Exit codes: 0 written, 1 refused (topology stop, or the mandatory evidence does
not fit the ceilings), 2 bad usage, 3 unreadable input.`

export async function runPack(args: string[]): Promise<number> {
  const { values, positionals } = parseCommand('pack', args, {
    ...BUDGET_FLAGS,
    out: { type: 'string' },
    force: { type: 'boolean' },
    handoff: { type: 'string' },
    'model-pack-char-budget': { type: 'string' },
    'model-pack-estimated-token-budget': { type: 'string' },
    projects: { type: 'string' },
    json: { type: 'boolean' },
  })
  if (values.help) return (print(PACK_USAGE), EXIT.ok)
  if (positionals.length !== 1)
    throw usageError(
      `pack takes one SESSION (a path, uuid or uuid prefix), got ${positionals.length} (see claude-jsonl pack --help)`,
    )
  if (!values.out) throw usageError('pack needs --out PACK.md (see claude-jsonl pack --help)')
  const session = resolveSession(positionals[0], { projects: values.projects })
  checkOutputPath(session.path, values.out)
  if (values.handoff) checkOutputPath(values.handoff, values.out, '--out (the handoff file)')
  const options = {
    ...budgetOptions('pack', values),
    handoff: values.handoff,
    modelPackCharBudget: wholeNumber('pack', '--model-pack-char-budget', values['model-pack-char-budget']),
    modelPackEstimatedTokenBudget: wholeNumber(
      'pack',
      '--model-pack-estimated-token-budget',
      values['model-pack-estimated-token-budget'],
    ),
  }
  const { src, plan } = planSource(session.path, options)
  const inputs = readSummaryInputs(plan.buffer, plan.index, plan.topology.summaryIndexes)
  const pack = packFor(plan, inputs, options)
  // The pack is only as good as the bytes it was built from: a source that changed meanwhile
  // (or lost mapped pages to a truncation) is refused.
  await publishFile(values.out, pack.text, { replace: values.force, check: () => checkSourceUnchanged(src) })
  const m = pack.manifest
  const report = {
    out: values.out,
    source: session.path,
    summarisedRecords: inputs.entries.length,
    lines: [inputs.firstLine, inputs.lastLine],
    mandatoryRecords: m.mandatory.size,
    handoffLines: m.handoffLines,
    optionalEvidence: m.optional,
    chars: m.chars,
    estimatedTokens: Math.ceil(m.estimatedTokens),
    digests: m.digests,
  }
  if (values.json) print(JSON.stringify(report, null, 2))
  else
    print(
      `pack: ${values.out}: ${m.chars} characters, ~${report.estimatedTokens} estimated tokens; ${m.mandatory.size} mandatory records (L${inputs.firstLine}–L${inputs.lastLine}), ${m.handoffLines} handoff lines; optional evidence ${m.optional.included} of ${m.optional.total}${m.optional.truncated ? ' (truncated by the ceilings)' : ''}`,
    )
  return EXIT.ok
}
