// `claude-jsonl pack SESSION --out PACK.md`: the evidence pack of the model-assisted summary
// protocol v11 for the older part of a session, for a summarising model to read.
import { readFileSync } from 'node:fs'
import native from '../native.js'
import { parseCommand, print } from './args.js'
import { EXIT, inputError, usageError } from '../errors.js'
import { resolveSession } from '../read/session-ref.js'
import { buildPack } from '../compress/pack.js'
import { readSummaryInputs } from '../compress/summary-inputs.js'
import { checkPackOutput, summaryIndexesFor, writeFileAtomic } from '../compress/pack-command-input.js'

export const PACK_USAGE = `Usage: claude-jsonl pack SESSION --out PACK.md [--handoff FILE]
                         [--model-pack-char-budget N] [--model-pack-estimated-token-budget N]
                         [--projects DIR] [--json]
Writes the evidence pack a summarising model reads (protocol v11). PACK.md must lie outside any
.claude tree. Exit codes: 0 written, 1 the mandatory evidence does not fit the ceilings,
2 bad usage, 3 unreadable input.`

function integer(name: string, v: string | undefined): number | undefined {
  if (v === undefined) return undefined
  if (!/^\d+$/.test(v)) throw usageError(`${name} takes a whole number, not '${v}'`)
  return Number(v)
}

function readText(path: string, what: string): string {
  try {
    return readFileSync(path, 'utf8')
  } catch (e) {
    throw inputError(path, `cannot read ${what}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file or directory' : (e as Error).message}`)
  }
}

export async function runPack(args: string[]): Promise<number> {
  const { values, positionals } = parseCommand('pack', args, {
    out: { type: 'string' },
    handoff: { type: 'string' },
    'model-pack-char-budget': { type: 'string' },
    'model-pack-estimated-token-budget': { type: 'string' },
    projects: { type: 'string' },
    json: { type: 'boolean' },
  })
  if (values.help) return print(PACK_USAGE), EXIT.ok
  if (positionals.length !== 1) throw usageError(`pack takes one SESSION (a path, uuid or uuid prefix), got ${positionals.length} (see claude-jsonl pack --help)`)
  if (!values.out) throw usageError('pack needs --out PACK.md (see claude-jsonl pack --help)')
  const session = resolveSession(positionals[0], { projects: values.projects })
  checkPackOutput(session.path, values.out)
  if (values.handoff) checkPackOutput(values.handoff, values.out, '--out (the handoff file)')
  const handoff = values.handoff ? readText(values.handoff, 'the handoff file') : undefined
  let bytes: Buffer
  try {
    bytes = readFileSync(session.path)
  } catch (e) {
    throw inputError(session.path, (e as Error).message.split('\n')[0])
  }
  const index = native.scanBuffer(bytes)
  const summaryIndexes = summaryIndexesFor(index, bytes)
  const inputs = readSummaryInputs(bytes, index, summaryIndexes)
  const pack = buildPack(
    { bytes, index, summaryIndexes, inputs, handoff },
    { charBudget: integer('--model-pack-char-budget', values['model-pack-char-budget']), tokenBudget: integer('--model-pack-estimated-token-budget', values['model-pack-estimated-token-budget']) },
  )
  writeFileAtomic(values.out, pack.text)
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
