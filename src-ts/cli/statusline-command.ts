// `claude-jsonl statusline`: the one line Claude Code shows under the prompt, from the statusline
// JSON on stdin. The installed command answers most calls from the cache before this module loads
// (statusline-cache.cts); this runs when something changed.
import { readFileSync } from 'node:fs'
import { EXIT } from '../errors.js'
import { defineCommand } from './command.js'
import { PROJECTS } from './common-options.js'
import { parseInput, renderLine, takeConsumedInput } from '../integrations/statusline-cache.cjs'
import { statusline } from '../integrations/statusline.js'
import { writeStderr } from '../terminal/output.cjs'

export const command = defineCommand({
  name: 'statusline',
  args: '',
  options: { projects: PROJECTS },
  description: `Reads Claude Code's statusline JSON on stdin and prints one line: the model, this session's cost
and tokens (counted as stats counts them, subagents included), today's cost over the estate, and
the context in use. Figures are cached by the transcripts' size and mtime, so an unchanged session
costs one stat per file; one count runs at a time, and a call that finds one running prints the
last line at once. Settings: "statusLine": {"type": "command", "command": "claude-jsonl statusline"}.`,
  exitCodes: 'Exit codes: 0 always (a line is printed even when the input or the transcript cannot be read).',
  async run({ values, print }) {
    let text = takeConsumedInput()
    if (text === undefined) {
      try {
        text = process.stdin.isTTY ? '' : readFileSync(0, 'utf8')
      } catch {
        text = ''
      }
    }
    const input = parseInput(text) ?? {}
    let line: string
    try {
      line = await statusline(input, { projects: values.projects })
    } catch (e) {
      // A statusline must not fail the prompt: the line without the counted figures, and why on stderr.
      writeStderr(`claude-jsonl: statusline: ${(e as Error).message.split('\n')[0]}\n`)
      line = renderLine(input, {})
    }
    print(line)
    return EXIT.ok
  },
})
