// `claude-jsonl show SESSION`: the conversation on the active chain (the leaf and chain Claude
// Code itself would resume), as text, markdown, JSON or one self-contained HTML page.
import { writeFileSync } from 'node:fs'
import { showSession } from '../read/show.js'
import { ClaudeJsonlError, EXIT } from '../errors.js'
import { choice, defineCommand, flag, runCommand, text } from './command.js'
import { ARCHIVE_STATE, LAST_TURNS, ONE_SESSION, PROJECTS, SESSION_HELP } from './common-options.js'
import { renderShow, type ShowFormat } from './show-render.js'
import { count, formatBytes } from '../terminal/format.js'

const FORMATS: readonly ShowFormat[] = ['text', 'markdown', 'json', 'html']

export const command = defineCommand({
  name: 'show',
  args: 'SESSION',
  oneArgument: ONE_SESSION,
  options: {
    tools: flag('one line per tool call with its target, results and meta injections'),
    thinking: flag('thinking blocks'),
    'human-only': flag('the human prompts only'),
    last: LAST_TURNS,
    'all-branches': flag('rewound or abandoned branches too, marked, after the turn they fork from'),
    format: choice(FORMATS, 'output format (default text)'),
    json: flag('the same as --format json'),
    out: text('FILE', 'write to FILE instead of stdout (HTML: one self-contained page, no network)'),
    projects: PROJECTS,
    ...ARCHIVE_STATE,
  },
  description: SESSION_HELP,
  exitCodes: 'Exit codes: 0 ok, 2 bad usage or an ambiguous prefix, 3 no such session or FILE cannot be written.',
  async run({ values, positionals, print }) {
    const format = values.json ? 'json' : (values.format ?? 'text')
    const result = await showSession(positionals[0], {
      projects: values.projects,
      generation: values.generation,
      asOf: values['as-of'],
      tools: values.tools === true,
      thinking: values.thinking === true,
      humanOnly: values['human-only'] === true,
      last: values.last,
      allBranches: values['all-branches'] === true,
    })
    const text = renderShow(result, format)
    const out = values.out
    if (!out) return (print(text), EXIT.ok)
    const body = text.endsWith('\n') ? text : text + '\n'
    try {
      writeFileSync(out, body)
    } catch (e) {
      const err = e as NodeJS.ErrnoException
      throw new ClaudeJsonlError(`${out}: cannot write (${err.code ?? err.message})`, EXIT.input, out)
    }
    print(
      `show: wrote ${out}: ${format}, ${count(result.turns.length, 'turn')} of ${result.path}, ${formatBytes(Buffer.byteLength(body))}`,
    )
    return EXIT.ok
  },
})

export const runShow = (args: string[]) => runCommand(command, args)
