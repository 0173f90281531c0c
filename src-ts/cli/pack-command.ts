// `claude-jsonl pack SESSION --out PACK.md`: the evidence pack of the model-assisted summary
// protocol v11 for the records a compression with the same options would summarise, for a
// summarising model to read. Its answer is applied with `compress --model-summary`.
import { EXIT } from '../errors.js'
import { resolveSession } from '../read/session-ref.js'
import { sessionFileFor } from '../archive/in-memory.js'
import { publishFile } from '../durable-files.js'
import { checkSourceUnchanged, planSource } from '../compress/compress.js'
import { checkOutputPath } from '../compress/paths.js'
import { packFor } from '../compress/summary-source.js'
import { readSummaryInputs } from '../compress/summary-inputs.js'
import { defineCommand, flag, text } from './command.js'
import { JSON_OUTPUT, ONE_SESSION, PROJECTS, SESSION_HELP } from './common-options.js'
import { BUDGET_OPTIONS, budgetOptions, PACK_BUDGET_OPTIONS } from './topology-options.js'

export const command = defineCommand({
  name: 'pack',
  args: 'SESSION',
  oneArgument: ONE_SESSION,
  options: {
    out: text('PACK.md', 'where the pack is written (outside any .claude tree)', { required: true }),
    force: flag('replace an existing PACK.md'),
    ...PACK_BUDGET_OPTIONS,
    ...BUDGET_OPTIONS,
    projects: PROJECTS,
    json: JSON_OUTPUT,
  },
  description: `${SESSION_HELP}
Writes the evidence pack a summarising model reads (protocol v11), for the records that
\`compress\` with the same options summarises (give it the same options). PACK.md must lie outside
any .claude tree.`,
  exitCodes: `Exit codes: 0 written, 1 refused (topology stop, or the mandatory evidence does not fit the
ceilings), 2 bad usage, 3 unreadable input.`,
  async run({ values, positionals, print }) {
    const session = resolveSession(positionals[0], { projects: values.projects })
    session.path = sessionFileFor(session.path, false)
    checkOutputPath(session.path, values.out)
    if (values.handoff) checkOutputPath(values.handoff, values.out, '--out (the handoff file)')
    const options = {
      ...budgetOptions(values),
      handoff: values.handoff,
      modelPackCharBudget: values['model-pack-char-budget'],
      modelPackEstimatedTokenBudget: values['model-pack-estimated-token-budget'],
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
  },
})
