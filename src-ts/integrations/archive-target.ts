// Which archive the hooks write into, and the files they keep beside it: the log every hook
// failure goes to (never the session) and the queue the detached archive worker drains.
import { appendFileSync, mkdirSync, renameSync, statSync } from 'node:fs'
import { homedir } from 'node:os'
import { dirname, isAbsolute, join, resolve } from 'node:path'

/** Where the archive root came from. */
export type ArchiveSource = '--to' | 'CLAUDE_JSONL_ARCHIVE' | 'plugin option' | 'default'

export type ArchiveTarget = { dir: string; source: ArchiveSource } | { off: string }

/** The values that switch the archive hooks off. */
const OFF = new Set(['off', 'none', 'no', 'false', '0'])

/** The default archive root: $XDG_DATA_HOME/claude-jsonl/archive, else ~/.local/share/claude-jsonl/archive. */
export function defaultArchiveDir(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env.XDG_DATA_HOME && isAbsolute(env.XDG_DATA_HOME)) return join(env.XDG_DATA_HOME, 'claude-jsonl', 'archive')
  const home = env.HOME || homedir()
  return home ? join(home, '.local', 'share', 'claude-jsonl', 'archive') : undefined
}

/** Expands a leading `~/` (a plugin option is typed by a person). */
function expand(p: string, env: NodeJS.ProcessEnv): string {
  return p === '~' || p.startsWith('~/') ? join(env.HOME || homedir(), p.slice(1)) : p
}

/**
 * The archive root: `--to`, else $CLAUDE_JSONL_ARCHIVE, else the plugin's `archive_dir` option
 * (CLAUDE_PLUGIN_OPTION_ARCHIVE_DIR), else the default. An empty value falls through; `off`
 * (or none, no, false, 0) switches archiving off.
 */
export function archiveTarget(to: string | undefined, env: NodeJS.ProcessEnv = process.env): ArchiveTarget {
  const given: [ArchiveSource, string | undefined][] = [
    ['--to', to],
    ['CLAUDE_JSONL_ARCHIVE', env.CLAUDE_JSONL_ARCHIVE],
    ['plugin option', env.CLAUDE_PLUGIN_OPTION_ARCHIVE_DIR],
  ]
  for (const [source, raw] of given) {
    const v = raw?.trim()
    if (!v) continue
    if (OFF.has(v.toLowerCase())) return { off: `archiving is switched off (${source} is '${v}')` }
    return { dir: resolve(expand(v, env)), source }
  }
  const dir = defaultArchiveDir(env)
  return dir ? { dir: resolve(dir), source: 'default' } : { off: 'no archive configured and no HOME for the default' }
}

/** The hooks' log beside the archive root `dir`: `<dir>.hook.log`. */
export const hookLogPath = (dir: string): string => `${dir}.hook.log`

/** The hooks' work folder beside the archive root: the queue and the worker's lock. */
export const hookStateDir = (dir: string): string => `${dir}.hook`

/** Where hooks log when there is no archive: $XDG_STATE_HOME/claude-jsonl/hook.log, else ~/.local/state/... */
export function fallbackLogPath(env: NodeJS.ProcessEnv = process.env): string {
  const base =
    env.XDG_STATE_HOME && isAbsolute(env.XDG_STATE_HOME)
      ? env.XDG_STATE_HOME
      : join(env.HOME || homedir(), '.local', 'state')
  return join(base, 'claude-jsonl', 'hook.log')
}

/** A log grows to this size, then the older half moves to `<log>.1`. */
const LOG_LIMIT = 1 << 20

/** Appends one timestamped line to the log; never throws (a hook must not fail over its log). */
export function logLine(path: string, line: string): void {
  try {
    mkdirSync(dirname(path), { recursive: true })
    try {
      if (statSync(path).size > LOG_LIMIT) renameSync(path, `${path}.1`)
    } catch {
      // no log yet
    }
    appendFileSync(path, `${new Date().toISOString()} ${line.replace(/\n/g, ' ')}\n`)
  } catch {
    // nowhere to log: the hook still exits 0
  }
}
