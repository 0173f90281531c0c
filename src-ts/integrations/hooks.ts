// What each Claude Code hook does. The archive hooks (SessionEnd, PreCompact) only queue the
// session and start the detached worker, so they return in milliseconds whatever the archive
// costs; SessionStart looks for transcripts that Claude Code's cleanup will soon delete and
// that the archive does not hold, and says so in one line for the user.
import { existsSync } from 'node:fs'
import { archiveTarget, fallbackLogPath, hookLogPath, logLine, type ArchiveTarget } from './archive-target.js'
import { enqueue, startWorker } from './archive-queue.js'
import type { HookInput, HookInputResult } from './hook-input.js'

/** The hooks claude-jsonl provides, by their command names. */
export type HookEvent = 'session-end' | 'pre-compact' | 'session-start'
export const HOOK_EVENTS: readonly HookEvent[] = ['session-end', 'pre-compact', 'session-start']

export interface HookOptions {
  /** The archive root (else $CLAUDE_JSONL_ARCHIVE, the plugin option, the default). */
  to?: string
  env?: NodeJS.ProcessEnv
  /** The current time in ms (tests). */
  now?: number
}

/** What a hook prints on stdout (JSON the client reads), if anything. */
export interface HookOutcome {
  stdout?: string
  /** The line written to the log, if one was. */
  logged?: string
}

function logFor(target: ArchiveTarget, env: NodeJS.ProcessEnv): string {
  return 'dir' in target ? hookLogPath(target.dir) : fallbackLogPath(env)
}

/** SessionEnd and PreCompact: queue the session for the archive and start the worker. */
export async function archiveHook(
  event: 'session-end' | 'pre-compact',
  read: HookInputResult,
  opts: HookOptions = {},
): Promise<HookOutcome> {
  const env = opts.env ?? process.env
  const target = archiveTarget(opts.to, env)
  const log = (line: string): HookOutcome => (logLine(logFor(target, env), line), { logged: line })
  if ('off' in target) return log(`${event}: ${target.off}; nothing archived`)
  if ('problem' in read) return log(`${event}: ${read.problem}; nothing archived`)
  const input: HookInput = read.input
  if (!existsSync(input.transcript_path))
    return log(`${event} ${input.session_id}: no transcript at ${input.transcript_path}; nothing archived`)
  try {
    await enqueue(target.dir, {
      sessionId: input.session_id,
      transcript: input.transcript_path,
      event,
      waitForClose: event === 'session-end',
      queuedAt: new Date(opts.now ?? Date.now()).toISOString(),
    })
    startWorker(target.dir, env)
  } catch (e) {
    return log(`${event} ${input.session_id}: cannot queue the archive: ${(e as Error).message.split('\n')[0]}`)
  }
  return {}
}

/** How many days before Claude Code's cleanup age a transcript counts as near it. */
export const NEAR_CLEANUP_DAYS = 5

/** SessionStart: one `systemMessage` when transcripts near (or past) the cleanup age are not in
 * the archive; silent otherwise. */
export async function sessionStartHook(read: HookInputResult, opts: HookOptions = {}): Promise<HookOutcome> {
  const env = opts.env ?? process.env
  const target = archiveTarget(opts.to, env)
  const logPath = logFor(target, env)
  if ('problem' in read) logLine(logPath, `session-start: ${read.problem}; checked the estate anyway`)
  const { discoverFiles } = await import('../read/session-ref.js')
  const { cleanupPeriodDays } = await import('../read/doctor.js')
  const { inClaudeProjects } = await import('../read/estate.js')
  const now = opts.now ?? Date.now()
  const cleanupDays = cleanupPeriodDays(env)
  const nearMs = now - Math.max(0, cleanupDays - NEAR_CLEANUP_DAYS) * 86_400_000
  let near
  try {
    near = discoverFiles({ env }).filter(
      (f) => f.kind === 'session' && f.mtimeMs <= nearMs && inClaudeProjects(f.path, env),
    )
  } catch (e) {
    logLine(logPath, `session-start: cannot list the estate: ${(e as Error).message.split('\n')[0]}`)
    return {}
  }
  if (near.length === 0) return {}
  let archived = new Set<string>()
  if ('dir' in target && existsSync(target.dir)) {
    try {
      const { listArchive } = await import('../archive/archive.js')
      archived = new Set(listArchive(target.dir).map((f) => f.key))
    } catch (e) {
      logLine(logPath, `session-start: cannot read the archive: ${(e as Error).message.split('\n')[0]}`)
    }
  }
  const missing = near.filter((f) => !archived.has(`${f.project}/${f.sessionId}.jsonl`))
  if (missing.length === 0) return {}
  const where = 'dir' in target ? target.dir : 'an archive'
  const n = missing.length
  const message =
    `claude-jsonl: ${n} session${n === 1 ? '' : 's'} within ${NEAR_CLEANUP_DAYS} days of Claude Code's ${cleanupDays}-day cleanup ` +
    `${n === 1 ? 'is' : 'are'} not archived; run: claude-jsonl archive --to ${where}`
  return { stdout: JSON.stringify({ systemMessage: message }) }
}
