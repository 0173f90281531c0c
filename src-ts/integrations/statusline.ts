// `claude-jsonl statusline`, the counting side: when the fast path (statusline-cache.cts) finds
// the cache stale, one process at a time counts this session's tokens and cost and today's cost
// over the estate with `stats`, stores them beside what they were counted from, and prints the
// line. A call that finds another count running prints the last line it has, at once.
import { mkdirSync } from 'node:fs'
import { publishFile } from '../durable-files.js'
import { resolveRoots } from '../read/estate.js'
import { stats } from '../read/stats.js'
import { requests } from '../read/requests.js'
import { formatUsd } from '../terminal/format.js'
import { tryLock, unlock } from '../durable-lock.cjs'
import {
  cachedLine,
  entryPath,
  estateKey,
  localDay,
  readEntry,
  renderLine,
  rootsKey,
  scanLockPath,
  sessionFiles,
  sessionKey,
  statuslineCacheDir,
  type StatuslineEntry,
  type StatuslineInput,
} from './statusline-cache.cjs'

export type { StatuslineInput, StatuslineEntry }

/** Where the statusline counts: the estate root (as for `stats`), the environment and the clock. */
export interface StatuslineOptions {
  /** The estate root for today's cost (default: as `stats`). */
  projects?: string
  env?: NodeJS.ProcessEnv
  /** The current time in ms (tests). */
  now?: number
}

const tokens = (n: number): string =>
  n >= 1_000_000 ? `${(n / 1_000_000).toFixed(1)}M` : n >= 1000 ? `${Math.round(n / 1000)}k` : String(n)

/** The context the session's last main-transcript request used: its prompt (input and cache). */
async function lastContext(transcript: string): Promise<number | undefined> {
  let last: { timeMs: number; tokens: number } | undefined
  for await (const r of requests(transcript)) {
    if (r.subagent || Number.isNaN(r.timeMs)) continue
    const u = r.usage
    if (!last || r.timeMs >= last.timeMs)
      last = { timeMs: r.timeMs, tokens: u.inputTokens + u.cacheCreationInputTokens + u.cacheReadInputTokens }
  }
  return last?.tokens
}

/** The status line for the statusline JSON `input`: from the cache when it is current, else counted. */
export async function statusline(input: StatuslineInput, opts: StatuslineOptions = {}): Promise<string> {
  const env = opts.env ?? process.env
  const fresh = cachedLine(input, opts)
  if (fresh !== undefined) return fresh
  const transcript = input.transcript_path
  if (typeof transcript !== 'string' || transcript === '') return renderLine(input, {})
  const dir = statuslineCacheDir(env)
  const file = entryPath(dir, transcript)
  const lock = scanLockPath(dir)
  // One count at a time, whichever session asks: the others print what the cache has.
  if (!tryLock(lock)) return renderLine(input, readEntry(file) ?? {})
  try {
    // The call that held the lock a moment ago may have counted what this one would: look again.
    const counted = cachedLine(input, opts)
    if (counted !== undefined) return counted
    const old = readEntry(file)
    const now = opts.now ?? Date.now()
    const { day, minMtimeMs } = localDay(now)
    const rKey = rootsKey(env, opts.projects)
    const roots = old?.rootsKey === rKey ? old.roots : resolveRoots({ projects: opts.projects, env }).roots
    // The keys are taken before counting, so a write during the count makes the next call count again.
    const sKey = sessionKey(transcript)
    const eKey = estateKey(roots, minMtimeMs)
    const entry: StatuslineEntry = {
      version: 1,
      sessionKey: sKey,
      session: old?.session ?? '',
      contextTokens: old?.contextTokens,
      day,
      roots,
      rootsKey: rKey,
      estateKey: eKey,
      today: old?.today ?? '',
      scans: (old?.scans ?? 0) + 1,
    }
    if (!old || old.sessionKey !== sKey || old.rootsKey !== rKey) {
      const paths = sessionFiles(transcript)
      const r = await stats({ paths, env })
      const t = r.totals
      const all = t.inputTokens + t.cacheCreationInputTokens + t.cacheReadInputTokens + t.outputTokens
      entry.session = `session ${formatUsd(t.costUsd)} ${tokens(all)} tok`
      entry.contextTokens = await lastContext(transcript)
    }
    if (!old || old.day !== day || old.estateKey !== eKey || old.rootsKey !== rKey) {
      const r = await stats({ projects: opts.projects, env, since: day, until: day })
      entry.today = formatUsd(r.totals.costUsd)
    }
    mkdirSync(dir, { recursive: true })
    await publishFile(file, JSON.stringify(entry) + '\n', { replace: true })
    return renderLine(input, entry)
  } finally {
    unlock(lock)
  }
}
