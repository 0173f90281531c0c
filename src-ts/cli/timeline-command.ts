// `claude-jsonl timeline SESSION`: a timestamped turn log of the active chain with durations,
// models and tokens per request.
import { timeline } from '../read/timeline.js'
import { EXIT } from '../errors.js'
import { defineCommand, flag, runCommand } from './command.js'
import { ARCHIVE_STATE, JSON_OUTPUT, LAST_TURNS, ONE_SESSION, PROJECTS, SESSION_HELP } from './common-options.js'
import { renderTimeline } from './timeline-render.js'

export const command = defineCommand({
  name: 'timeline',
  args: 'SESSION',
  oneArgument: ONE_SESSION,
  options: {
    requests: flag('one row per API request under its turn'),
    last: LAST_TURNS,
    'all-branches': flag('rewound or abandoned branches too'),
    json: JSON_OUTPUT,
    projects: PROJECTS,
    ...ARCHIVE_STATE,
  },
  description: SESSION_HELP,
  exitCodes: 'Exit codes: 0 ok, 2 bad usage or an ambiguous prefix, 3 no such session.',
  async run({ values, positionals, print }) {
    const t = await timeline(positionals[0], {
      projects: values.projects,
      generation: values.generation,
      asOf: values['as-of'],
      last: values.last,
      allBranches: values['all-branches'] === true,
    })
    print(values.json ? JSON.stringify(t, null, 2) : renderTimeline(t, { requests: values.requests === true }))
    return EXIT.ok
  },
})

export const runTimeline = (args: string[]) => runCommand(command, args)
