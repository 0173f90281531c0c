// `claude-jsonl timeline SESSION`: a timestamped turn log of the active chain with durations,
// models and tokens per request.
import { timeline } from '../read/timeline.js'
import { renderTimeline } from './timeline-render.js'
import { EXIT } from '../errors.js'
import { parseCommand, print } from './args.js'
import { oneSession, parseLast } from './show-command.js'

export const TIMELINE_USAGE = `Usage: claude-jsonl timeline SESSION [--requests] [--last N] [--all-branches] [--json]
                             [--projects DIR]
SESSION is a transcript path, a session uuid, or a unique prefix of one.`

export async function runTimeline(args: string[]): Promise<number> {
  const { values, positionals } = parseCommand('timeline', args, {
    projects: { type: 'string' },
    requests: { type: 'boolean' },
    last: { type: 'string' },
    'all-branches': { type: 'boolean' },
    json: { type: 'boolean' },
  })
  if (values.help) return (print(TIMELINE_USAGE), EXIT.ok)
  const ref = oneSession('timeline', positionals)
  const projects = typeof values.projects === 'string' ? values.projects : undefined
  const t = await timeline(ref, {
    projects,
    last: parseLast(values.last),
    allBranches: values['all-branches'] === true,
  })
  print(values.json ? JSON.stringify(t, null, 2) : renderTimeline(t, { requests: values.requests === true }))
  return EXIT.ok
}
