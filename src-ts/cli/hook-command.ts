// `claude-jsonl hook EVENT`: the command Claude Code runs for a hook, with the hook's JSON on
// stdin. It never disturbs the session: whatever goes wrong is a line in the log beside the
// archive, and the exit code is 0 (exit 2 would block a compaction).
import { EXIT } from '../errors.js'
import { defineCommand, text } from './command.js'
import { archiveHook, HOOK_EVENTS, sessionStartHook, type HookEvent } from '../integrations/hooks.js'
import { parseHookInput, readStdin } from '../integrations/hook-input.js'
import { archiveTarget, fallbackLogPath, hookLogPath, logLine } from '../integrations/archive-target.js'

/** A hook run by hand with nothing on stdin must not wait: the client writes its JSON at once. */
const STDIN_WAIT_MS = 200

export const command = defineCommand({
  name: 'hook',
  args: 'EVENT',
  oneArgument: { name: 'EVENT', what: HOOK_EVENTS.join(', ') },
  options: {
    to: text(
      'DIR',
      'the archive root (default $CLAUDE_JSONL_ARCHIVE, else the plugin option, else ~/.local/share/claude-jsonl/archive)',
    ),
  },
  description: `The commands of the claude-jsonl plugin's hooks, reading the hook's JSON on stdin.
session-end, pre-compact: queue the session (its transcript, subagents and session files) for an
incremental archive into DIR and return at once; a detached worker archives it (one at a time per
archive; sessions queued meanwhile are archived by the same worker). session-start: when
transcripts within 5 days of Claude Code's cleanup age are not in the archive, print one
systemMessage for the user; otherwise nothing. Failures and bad input go to DIR.hook.log.
CLAUDE_JSONL_ARCHIVE=off switches the archive hooks off.`,
  exitCodes: 'Exit codes: 0 always for a known EVENT (a hook must never block the client), 2 bad usage.',
  async run({ values, positionals, print }) {
    const event = positionals[0] as HookEvent
    if (!HOOK_EVENTS.includes(event)) {
      const target = archiveTarget(values.to)
      logLine('dir' in target ? hookLogPath(target.dir) : fallbackLogPath(), `unknown hook event '${event}'`)
      return EXIT.ok
    }
    const read = parseHookInput(await readStdin(STDIN_WAIT_MS))
    try {
      const out =
        event === 'session-start' ? await sessionStartHook(read, values) : await archiveHook(event, read, values)
      if (out.stdout) print(out.stdout)
    } catch (e) {
      const target = archiveTarget(values.to)
      logLine(
        'dir' in target ? hookLogPath(target.dir) : fallbackLogPath(),
        `${event}: ${(e as Error).message.split('\n')[0]}`,
      )
    }
    return EXIT.ok
  },
})
