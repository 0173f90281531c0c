// `claude-jsonl validate FILE`: exit 0 valid, 1 invalid, 3 unreadable / not JSONL / not a
// Claude Code transcript.
import { renderValidation, validate } from '../read/validate.js'
import { EXIT, usageError } from '../errors.js'
import { parseCommand, print } from './args.js'

export const VALIDATE_USAGE = `Usage: claude-jsonl validate FILE [--json]
Exit codes: 0 valid, 1 invalid (errors listed), 3 unreadable, not JSONL, or not a Claude Code transcript.`

export async function runValidate(args: string[]): Promise<number> {
  const { values, positionals } = parseCommand('validate', args, { json: { type: 'boolean' } })
  if (values.help) return (print(VALIDATE_USAGE), EXIT.ok)
  if (positionals.length !== 1)
    throw usageError(`validate takes one FILE, got ${positionals.length} (see claude-jsonl validate --help)`)
  const report = await validate(positionals[0])
  print(values.json ? JSON.stringify(report, null, 2) : renderValidation(report))
  return report.valid ? EXIT.ok : EXIT.flagged
}
