// `claude-jsonl plan FILE`: the topology a compression would use; writes nothing.
// Exit 0 valid, 1 topology stop (status, lines, recovery option), 2 usage, 3 unreadable input.
import { plan, renderPlan, stopMessage } from '../compress/plan.js'
import { EXIT, usageError } from '../errors.js'
import { parseCommand, print } from './args.js'
import { TOPOLOGY_FLAGS, TOPOLOGY_USAGE, topologyOptions } from './topology-options.js'

export const PLAN_USAGE = `Usage: claude-jsonl plan FILE [--json]
${TOPOLOGY_USAGE}
Exit codes: 0 valid, 1 topology stop (status, offending lines and the recovery option on stderr),
2 bad usage, 3 unreadable, not JSONL, or not a Claude Code transcript.`

export async function runPlan(args: string[]): Promise<number> {
  const { values, positionals } = parseCommand('plan', args, { ...TOPOLOGY_FLAGS, json: { type: 'boolean' } })
  if (values.help) return (print(PLAN_USAGE), EXIT.ok)
  if (positionals.length !== 1)
    throw usageError(`plan takes one FILE, got ${positionals.length} (see claude-jsonl plan --help)`)
  const { report } = await plan(positionals[0], topologyOptions('plan', values))
  if (values.json) print(JSON.stringify(report, null, 2))
  else if (report.valid) print(renderPlan(report, positionals[0]))
  if (!report.valid && !values.json) process.stderr.write(`claude-jsonl: ${positionals[0]}: ${stopMessage(report)}\n`)
  return report.valid ? EXIT.ok : EXIT.flagged
}
