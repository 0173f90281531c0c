// `claude-jsonl plan FILE`: the topology a compression would use; writes nothing.
// Exit 0 valid, 1 topology stop (status, lines, recovery option), 2 usage, 3 unreadable input.
import { plan, renderPlan, stopMessage, type PlanOptions } from '../compress/plan.js'
import { EXIT, usageError } from '../errors.js'
import { parseCommand, print } from './args.js'

export const PLAN_USAGE = `Usage: claude-jsonl plan FILE [--json] [--leaf-policy strict|client|auto] [--resume-leaf UUID]
                         [--preserve-physical-tail] [--max-post-last-prompt-extension N]
                         [--checkpoint-policy active-correlated|preserve-recent|none]
                         [--max-file-history-snapshots N] [--target-ratio R] [--min-recent-records N]
Exit codes: 0 valid, 1 topology stop (status, offending lines and the recovery option on stderr),
2 bad usage, 3 unreadable, not JSONL, or not a Claude Code transcript.`

function count(v: string | undefined, name: string): number | undefined {
  if (v === undefined) return undefined
  if (!/^\d+$/.test(v)) throw usageError(`plan: ${name} takes a whole number, not '${v}'`)
  return Number(v)
}

export async function runPlan(args: string[]): Promise<number> {
  const { values, positionals } = parseCommand('plan', args, {
    json: { type: 'boolean' },
    'leaf-policy': { type: 'string' },
    'resume-leaf': { type: 'string' },
    'preserve-physical-tail': { type: 'boolean' },
    'max-post-last-prompt-extension': { type: 'string' },
    'checkpoint-policy': { type: 'string' },
    'max-file-history-snapshots': { type: 'string' },
    'target-ratio': { type: 'string' },
    'min-recent-records': { type: 'string' },
  })
  if (values.help) return print(PLAN_USAGE), EXIT.ok
  if (positionals.length !== 1) throw usageError(`plan takes one FILE, got ${positionals.length} (see claude-jsonl plan --help)`)
  const ratio = values['target-ratio']
  if (ratio !== undefined && !/^\d*\.?\d+$/.test(ratio)) throw usageError(`plan: --target-ratio takes a number in (0, 1], not '${ratio}'`)
  const options: PlanOptions = {
    leafPolicy: values['leaf-policy'] as PlanOptions['leafPolicy'],
    resumeLeaf: values['resume-leaf'],
    preservePhysicalTail: values['preserve-physical-tail'],
    maxPostLastPromptExtension: count(values['max-post-last-prompt-extension'], '--max-post-last-prompt-extension'),
    checkpointPolicy: values['checkpoint-policy'] as PlanOptions['checkpointPolicy'],
    maxFileHistorySnapshots: count(values['max-file-history-snapshots'], '--max-file-history-snapshots'),
    targetRatio: ratio === undefined ? undefined : Number(ratio),
    minRecentRecords: count(values['min-recent-records'], '--min-recent-records'),
  }
  const { report } = await plan(positionals[0], options)
  if (values.json) print(JSON.stringify(report, null, 2))
  else if (report.valid) print(renderPlan(report, positionals[0]))
  if (!report.valid && !values.json) process.stderr.write(`claude-jsonl: ${positionals[0]}: ${stopMessage(report)}\n`)
  return report.valid ? EXIT.ok : EXIT.flagged
}
