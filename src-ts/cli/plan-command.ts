// `claude-jsonl plan SESSION`: the topology a compression would use; writes nothing.
import { plan, stopMessage } from '../compress/plan.js'
import { sessionPath } from '../read/session-ref.js'
import { EXIT } from '../errors.js'
import { defineCommand } from './command.js'
import { JSON_OUTPUT, ONE_SESSION, PROJECTS, SESSION_HELP } from './common-options.js'
import { renderPlan } from './plan-render.js'
import { TOPOLOGY_OPTIONS, topologyOptions } from './topology-options.js'
import { writeStderr } from '../terminal/output.cjs'

export const command = defineCommand({
  name: 'plan',
  args: 'SESSION',
  oneArgument: ONE_SESSION,
  options: { ...TOPOLOGY_OPTIONS, json: JSON_OUTPUT, projects: PROJECTS },
  description: SESSION_HELP,
  exitCodes: `Exit codes: 0 valid, 1 topology stop (status, offending lines and the recovery option on stderr),
2 bad usage, 3 unreadable, not JSONL, or not a Claude Code transcript.`,
  async run({ values, positionals, print }) {
    const file = sessionPath(positionals[0], { projects: values.projects })
    const { report } = await plan(file, topologyOptions(values))
    if (values.json) print(JSON.stringify(report, null, 2))
    else if (report.valid) print(renderPlan(report, file))
    if (!report.valid && !values.json) writeStderr(`claude-jsonl: ${file}: ${stopMessage(report)}\n`)
    return report.valid ? EXIT.ok : EXIT.flagged
  },
})
