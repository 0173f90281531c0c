// The JSON a Claude Code hook receives on stdin: every event sends `session_id`,
// `transcript_path`, `cwd` and `hook_event_name`, plus the event's own fields (SessionStart
// `source`, PreCompact `trigger`, SessionEnd `reason`). Reading never throws: a hook must not
// disturb the session, so bad input is a value the caller logs.

/** The fields the hooks use. */
export interface HookInput {
  session_id: string
  transcript_path: string
  cwd?: string
  hook_event_name?: string
  /** SessionStart: startup | resume | clear | compact. */
  source?: string
  /** PreCompact: manual | auto. */
  trigger?: string
  /** SessionEnd: clear | logout | prompt_input_exit | other. */
  reason?: string
}

export type HookInputResult = { input: HookInput } | { problem: string }

/** Checks the parsed hook JSON: an object with a string `session_id` and `transcript_path`. */
export function parseHookInput(text: string): HookInputResult {
  let v: unknown
  try {
    v = JSON.parse(text)
  } catch {
    return { problem: `hook input is not JSON (${text.length} bytes)` }
  }
  if (!v || typeof v !== 'object' || Array.isArray(v)) return { problem: 'hook input is not a JSON object' }
  const o = v as Record<string, unknown>
  if (typeof o.session_id !== 'string' || o.session_id === '') return { problem: 'hook input has no session_id' }
  if (typeof o.transcript_path !== 'string' || o.transcript_path === '')
    return { problem: `hook input for session ${o.session_id} has no transcript_path` }
  return { input: o as unknown as HookInput }
}

/** Reads stdin to its end, or what came within `timeoutMs` (a hook run by hand from a terminal
 * gets nothing and must not wait for it). */
export function readStdin(timeoutMs: number): Promise<string> {
  if (process.stdin.isTTY) return Promise.resolve('')
  return new Promise((resolve) => {
    let text = ''
    const done = () => {
      clearTimeout(timer)
      process.stdin.removeAllListeners()
      process.stdin.pause()
      process.stdin.unref?.()
      resolve(text)
    }
    const timer = setTimeout(done, timeoutMs)
    process.stdin.setEncoding('utf8')
    process.stdin.on('data', (c: string) => (text += c))
    process.stdin.on('end', done)
    process.stdin.on('error', done)
  })
}
