// `claude-jsonl validate SESSION`: whether a transcript is coherent and would resume as one
// well-formed API conversation.
import { validate } from '../read/validate.js'
import { EXIT } from '../errors.js'
import { defineCommand } from './command.js'
import { ARCHIVE_STATE, JSON_OUTPUT, ONE_SESSION, PROJECTS, SESSION_HELP } from './common-options.js'
import { renderValidation } from './validate-render.js'

export const command = defineCommand({
  name: 'validate',
  args: 'SESSION',
  oneArgument: ONE_SESSION,
  options: { json: JSON_OUTPUT, projects: PROJECTS, ...ARCHIVE_STATE },
  description: SESSION_HELP,
  exitCodes: `Exit codes: 0 valid, 1 invalid (errors listed), 2 bad usage, 3 unreadable, not JSONL, or not a
Claude Code transcript.`,
  async run({ values, positionals, print }) {
    const report = await validate(positionals[0], {
      projects: values.projects,
      generation: values.generation,
      asOf: values['as-of'],
    })
    print(values.json ? JSON.stringify(report, null, 2) : renderValidation(report))
    return report.valid ? EXIT.ok : EXIT.flagged
  },
})
