// `claude-jsonl repair-read-pages SESSION (--out FILE | --in-place --work-dir DIR
// --confirm-session-closed)`: removes the `pages` member from settled historical `Read` calls.
import { repairReadPages, type RepairScope } from '../compress/repair-read-pages.js'
import { EXIT } from '../errors.js'
import { choice, defineCommand, flag, text } from './command.js'
import { JSON_OUTPUT, ONE_SESSION, PROJECTS, SESSION_HELP } from './common-options.js'
import { committedReportFailed, IN_PLACE_OPTIONS, inPlaceSettings } from './in-place-options.js'
import { writeStderr } from '../terminal/output.cjs'

export const command = defineCommand({
  name: 'repair-read-pages',
  args: 'SESSION',
  oneArgument: ONE_SESSION,
  options: {
    out: text('FILE', 'where the repaired copy is written (outside any .claude tree; FILE.report.json beside it)'),
    force: flag('replace an existing --out FILE'),
    ...IN_PLACE_OPTIONS,
    scope: choice(['active', 'all'] as const, 'the strict active chain (default) or every record'),
    json: JSON_OUTPUT,
    projects: PROJECTS,
  },
  description: `${SESSION_HELP}
Removes the input.pages member of assistant Read tool calls whose result is settled (non-empty
file_path, exactly one later tool_result in the same session naming the call's record), for
readers that reject it. Only those member bytes (and one comma) are deleted; everything else is
copied byte for byte. Pending calls (no result yet) are reported and left alone.
--in-place replaces FILE itself through the same transaction as compress --in-place (backup
FILE.backup, report in DIR). Nothing is written when there is nothing to repair.`,
  exitCodes: `Exit codes: 0 repaired or nothing to repair, 1 refused (the strict chain cannot be chosen, an
ambiguous member, a live or recently written session), 2 bad usage, 3 unreadable input, a source
changed during the run, or operationState committed-report-failed (replaced, report not written),
4 internal error.`,
  async run({ values, positionals, print }) {
    const inPlace = inPlaceSettings('repair-read-pages', values)
    const r = await repairReadPages(positionals[0], {
      scope: values.scope as RepairScope | undefined,
      out: values.out,
      force: values.force,
      inPlace,
      projects: values.projects,
    })
    if (r.transaction?.operationState === 'committed-report-failed') {
      print(committedReportFailed(r.transaction, 'operationState'))
      writeStderr(`claude-jsonl: ${r.transaction.error!.message}\n`)
      return EXIT.input
    }
    const rep = r.report
    if (values.json) return (print(JSON.stringify(rep, null, 2)), EXIT.ok)
    const lines = [
      rep.operationState === 'committed'
        ? `repair-read-pages: ${rep.output}: removed ${rep.patches.length} pages member(s), ${rep.bytesRemoved} bytes; verified after writing`
        : `repair-read-pages: ${rep.input}: nothing to repair; nothing written`,
      ...rep.pending.map((p) => `  pending (left unchanged): line ${p.line} ${p.toolUseId}: ${p.message}`),
      ...rep.ineligible.map((p) => `  not repaired: line ${p.line} ${p.toolUseId}: ${p.reason}: ${p.message}`),
    ]
    if (r.transaction?.backup) lines.push(`  backup: ${r.transaction.backup} (verified byte for byte)`)
    if (r.reportPath) lines.push(`  report: ${r.reportPath}`)
    print(lines.join('\n'))
    return EXIT.ok
  },
})
