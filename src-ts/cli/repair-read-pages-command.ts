// `claude-jsonl repair-read-pages FILE (--out FILE | --in-place --work-dir DIR
// --confirm-session-closed)`: removes the `pages` member from settled historical `Read` calls.
import { repairReadPages, type RepairScope } from '../compress/repair-read-pages.js'
import { EXIT, usageError } from '../errors.js'
import { parseCommand, print } from './args.js'
import { committedReportFailed, stableForMs } from './compress-command.js'

export const REPAIR_READ_PAGES_USAGE = `Usage: claude-jsonl repair-read-pages FILE (--out FILE [--force] |
         --in-place --work-dir DIR --confirm-session-closed [--stable-for SECONDS])
         [--scope active|all] [--json]
Removes the input.pages member of assistant Read tool calls whose result is settled (non-empty
file_path, exactly one later tool_result in the same session naming the call's record), for
readers that reject it. Only those member bytes (and one comma) are deleted; everything else is
copied byte for byte. Pending calls (no result yet) are reported and left alone. --scope active
(the default) looks only at the strict active chain; --scope all at every record.
--out writes the repaired copy (outside any .claude tree) and FILE.report.json beside it;
--in-place replaces FILE itself through the same transaction as compress --in-place (backup
FILE.backup, report in DIR). Nothing is written when there is nothing to repair.
Exit codes: 0 repaired or nothing to repair, 1 refused (the strict chain cannot be chosen, an
ambiguous member, a live or recently written session), 2 bad usage, 3 unreadable input, a source
changed during the run, or operationState committed-report-failed (replaced, report not written),
4 internal error.`

export async function runRepairReadPages(args: string[]): Promise<number> {
  const { values, positionals } = parseCommand('repair-read-pages', args, {
    out: { type: 'string' },
    force: { type: 'boolean' },
    'in-place': { type: 'boolean' },
    'work-dir': { type: 'string' },
    'confirm-session-closed': { type: 'boolean' },
    'stable-for': { type: 'string' },
    scope: { type: 'string' },
    json: { type: 'boolean' },
  })
  if (values.help) return (print(REPAIR_READ_PAGES_USAGE), EXIT.ok)
  if (positionals.length !== 1)
    throw usageError(
      `repair-read-pages takes one FILE, got ${positionals.length} (see claude-jsonl repair-read-pages --help)`,
    )
  if (values.scope !== undefined && values.scope !== 'active' && values.scope !== 'all')
    throw usageError(`repair-read-pages: --scope is active or all, got '${values.scope}'`)
  if (Boolean(values['in-place']) === (values.out !== undefined))
    throw usageError('repair-read-pages needs exactly one of --out FILE or --in-place (see --help)')
  if (!values['in-place'] && (values['work-dir'] || values['confirm-session-closed'] || values['stable-for']))
    throw usageError('repair-read-pages: --work-dir, --confirm-session-closed and --stable-for go with --in-place')
  const r = await repairReadPages(positionals[0], {
    scope: values.scope as RepairScope | undefined,
    out: values.out,
    force: values.force,
    inPlace: values['in-place']
      ? {
          workDir: values['work-dir'] ?? '',
          confirmSessionClosed: values['confirm-session-closed'],
          stableForMs: stableForMs('repair-read-pages', values['stable-for']),
        }
      : undefined,
  })
  if (r.transaction?.operationState === 'committed-report-failed') {
    print(committedReportFailed(r.transaction, 'operationState'))
    process.stderr.write(`claude-jsonl: ${r.transaction.error!.message}\n`)
    return EXIT.input
  }
  const rep = r.report
  if (values.json) print(JSON.stringify(rep, null, 2))
  else {
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
  }
  return EXIT.ok
}
