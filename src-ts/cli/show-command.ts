// `claude-jsonl show SESSION`: the conversation on the active chain (the leaf and chain Claude
// Code itself would resume), as text, markdown, JSON or one self-contained HTML page.
import { writeFileSync } from 'node:fs'
import { parseCommand, print } from './args.js'
import { showSession } from '../read/show.js'
import { renderShow, ShowFormat } from './show-render.js'
import { ClaudeJsonlError, EXIT, usageError } from '../errors.js'

export const SHOW_USAGE = `Usage: claude-jsonl show SESSION [--tools] [--thinking] [--human-only] [--last N]
                         [--all-branches] [--format text|markdown|json|html] [--out FILE]
                         [--projects DIR]
SESSION is a transcript path, a session uuid, or a unique prefix of one.`

const FORMATS: ShowFormat[] = ['text', 'markdown', 'json', 'html']

/** Parses `--last N`: a non-negative integer. */
export function parseLast(v: string | boolean | undefined): number | undefined {
  if (v === undefined || typeof v === 'boolean') return undefined
  if (!/^\d+$/.test(v)) throw usageError(`--last takes a number of turns, not '${v}'`)
  return Number(v)
}

const str = (v: string | boolean | undefined): string | undefined => (typeof v === 'string' ? v : undefined)
const bool = (v: string | boolean | undefined): boolean => v === true

export function oneSession(command: string, positionals: string[]): string {
  if (positionals.length !== 1)
    throw usageError(
      `${command} takes one SESSION (a path, uuid or uuid prefix), got ${positionals.length} (see claude-jsonl ${command} --help)`,
    )
  return positionals[0]
}

export async function runShow(args: string[]): Promise<number> {
  const { values, positionals } = parseCommand('show', args, {
    projects: { type: 'string' },
    tools: { type: 'boolean' },
    thinking: { type: 'boolean' },
    'human-only': { type: 'boolean' },
    last: { type: 'string' },
    'all-branches': { type: 'boolean' },
    format: { type: 'string' },
    json: { type: 'boolean' },
    out: { type: 'string' },
  })
  if (values.help) return (print(SHOW_USAGE), EXIT.ok)
  const format = (values.json ? 'json' : (str(values.format) ?? 'text')) as ShowFormat
  if (!FORMATS.includes(format))
    throw usageError(`show: unknown --format '${values.format}' (text, markdown, json or html)`)
  const ref = oneSession('show', positionals)
  const out = str(values.out)
  const result = await showSession(ref, {
    projects: str(values.projects),
    tools: bool(values.tools),
    thinking: bool(values.thinking),
    humanOnly: bool(values['human-only']),
    last: parseLast(str(values.last)),
    allBranches: bool(values['all-branches']),
  })
  const text = renderShow(result, format)
  if (out) {
    try {
      writeFileSync(out, text.endsWith('\n') ? text : text + '\n')
    } catch (e) {
      const err = e as NodeJS.ErrnoException
      throw new ClaudeJsonlError(`${out}: cannot write (${err.code ?? err.message})`, EXIT.input, out)
    }
  } else {
    print(text)
  }
  return EXIT.ok
}
