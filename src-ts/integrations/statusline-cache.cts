// The statusline's cache and its fast path. Claude Code runs the statusline command after every
// assistant message (and on a timer), so a call whose inputs have not changed must cost little
// more than starting Node: this module answers from the cache using Node built-ins only, before
// the native addon or any ES module is loaded. The cache holds, per session, the figures the
// slow path (statusline.ts) counted: this session's tokens and cost, keyed by the size and mtime
// of its transcripts, and today's cost over the estate, keyed by the size and mtime of every
// transcript that can hold a request of today.
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { homedir } from 'node:os'
import { basename, dirname, isAbsolute, join } from 'node:path'
import { writeStdout } from '../terminal/output.cjs'

/** The part of the statusline JSON the line uses (the client sends more). */
export interface StatuslineInput {
  session_id?: string
  transcript_path?: string
  model?: { id?: string; display_name?: string }
  context_window?: {
    context_window_size?: number
    used_percentage?: number
    current_usage?: {
      input_tokens?: number
      cache_creation_input_tokens?: number
      cache_read_input_tokens?: number
    } | null
  }
}

/** What the slow path counted, as text ready to print, and what it was counted from. */
export interface StatuslineEntry {
  version: 1
  /** The transcript and its session folder's transcripts: "path size mtime" lines. */
  sessionKey: string
  /** This session's tokens and cost, as printed. */
  session: string
  /** The context the last main-session request used (tokens), when one has usage. */
  contextTokens?: number
  /** The local day, the estate roots and the "path size mtime" signature of today's files. */
  day: string
  roots: string[]
  rootsKey: string
  estateKey: string
  /** Today's cost over the estate, as printed. */
  today: string
  /** How many times this entry was counted (each count is one scan of what changed). */
  scans: number
}

/** Days before today a file's mtime may lie and still hold a request of today (as stats prunes). */
const MARGIN_DAYS = 2

/** The cache folder: $XDG_CACHE_HOME/claude-jsonl/statusline, else ~/.cache/claude-jsonl/statusline. */
export function statuslineCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  const base =
    env.XDG_CACHE_HOME && isAbsolute(env.XDG_CACHE_HOME) ? env.XDG_CACHE_HOME : join(env.HOME || homedir(), '.cache')
  return join(base, 'claude-jsonl', 'statusline')
}

/** The lock one scan holds; a call that finds it held answers from the cache as it is. */
export const scanLockPath = (dir: string): string => join(dir, 'scan.lock')

/** The cache file of one transcript (FNV-1a of its path: no crypto module to load). */
export function entryPath(dir: string, transcript: string): string {
  let h = 0x811c9dc5
  for (let i = 0; i < transcript.length; i++) h = Math.imul(h ^ transcript.charCodeAt(i), 0x01000193) >>> 0
  return join(dir, `${basename(transcript, '.jsonl').slice(0, 60)}-${h.toString(16)}.json`)
}

function stamp(path: string): string | undefined {
  try {
    const s = statSync(path)
    return `${path} ${s.size} ${Math.trunc(s.mtimeMs)}`
  } catch {
    return undefined
  }
}

function transcriptsUnder(dir: string, out: string[]): void {
  let names
  try {
    names = readdirSync(dir, { withFileTypes: true })
  } catch {
    return
  }
  for (const d of names) {
    const p = join(dir, d.name)
    if (d.isDirectory()) transcriptsUnder(p, out)
    else if (d.name.endsWith('.jsonl')) out.push(p)
  }
}

/** The session's transcript and the transcripts in its session folder (subagents). */
export function sessionFiles(transcript: string): string[] {
  const out = [transcript]
  transcriptsUnder(join(dirname(transcript), basename(transcript, '.jsonl')), out)
  return out
}

/** What the session's figures are keyed by: each of its transcripts' path, size and mtime. */
export function sessionKey(transcript: string): string {
  return sessionFiles(transcript)
    .map(stamp)
    .filter((s) => s !== undefined)
    .join('\n')
}

/** The local day (YYYY-MM-DD) of `ms`, and the earliest mtime a file holding one of its requests can have. */
export function localDay(ms: number): { day: string; minMtimeMs: number } {
  const d = new Date(ms)
  const day = `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`
  const start = new Date(d.getFullYear(), d.getMonth(), d.getDate()).getTime()
  return { day, minMtimeMs: start - MARGIN_DAYS * 86_400_000 }
}

/** The estate's signature for a day: path, size and mtime of every transcript recent enough. */
export function estateKey(roots: string[], minMtimeMs: number): string {
  const files: string[] = []
  for (const r of roots) transcriptsUnder(r, files)
  const lines: string[] = []
  for (const f of files.sort()) {
    try {
      const s = statSync(f)
      if (s.mtimeMs >= minMtimeMs) lines.push(`${f} ${s.size} ${Math.trunc(s.mtimeMs)}`)
    } catch {
      // removed while walking
    }
  }
  return lines.join('\n')
}

/** What chose the estate roots (the slow path resolves them; a change of any of these resolves again). */
export function rootsKey(env: NodeJS.ProcessEnv, projects: string | undefined): string {
  return JSON.stringify([projects ?? null, env.CLAUDE_CONFIG_DIR ?? null, env.HOME ?? null])
}

export function readEntry(path: string): StatuslineEntry | undefined {
  try {
    const e = JSON.parse(readFileSync(path, 'utf8'))
    return e && e.version === 1 ? (e as StatuslineEntry) : undefined
  } catch {
    return undefined
  }
}

const compactTokens = (n: number): string =>
  n >= 1_000_000 ? `${(n / 1_000_000).toFixed(1)}M` : n >= 1000 ? `${Math.round(n / 1000)}k` : String(n)

/** The context in use: the client's own figure when it sends one, else the last request's prompt. */
function contextPart(input: StatuslineInput, entry: Partial<StatuslineEntry>): string | undefined {
  const cw = input.context_window
  const u = cw?.current_usage
  const fromClient =
    u && typeof u === 'object'
      ? (u.input_tokens ?? 0) + (u.cache_creation_input_tokens ?? 0) + (u.cache_read_input_tokens ?? 0)
      : undefined
  const tokens = fromClient ?? entry.contextTokens
  const pct =
    typeof cw?.used_percentage === 'number'
      ? cw.used_percentage
      : tokens !== undefined && cw?.context_window_size
        ? (100 * tokens) / cw.context_window_size
        : undefined
  if (tokens === undefined && pct === undefined) return undefined
  return `ctx ${tokens !== undefined ? compactTokens(tokens) : ''}${pct !== undefined ? `${tokens !== undefined ? ' ' : ''}${Math.round(pct)}%` : ''}`
}

/** The one line: model, this session, today over the estate, context. Missing parts are left out. */
export function renderLine(input: StatuslineInput, entry: Partial<StatuslineEntry>): string {
  const parts = [
    input.model?.display_name ?? input.model?.id,
    entry.session,
    entry.today !== undefined ? `today ${entry.today}` : undefined,
    contextPart(input, entry),
  ]
  return parts.filter((p) => p !== undefined && p !== '').join(' · ')
}

/**
 * The fast path: the line from the cache when nothing it was counted from changed, else
 * undefined (the caller then counts, see statusline.ts). Reads the transcripts' metadata only.
 */
export function cachedLine(
  input: StatuslineInput,
  opts: { env?: NodeJS.ProcessEnv; projects?: string; now?: number } = {},
): string | undefined {
  const env = opts.env ?? process.env
  const transcript = input.transcript_path
  if (typeof transcript !== 'string' || !isAbsolute(transcript)) return undefined
  const entry = readEntry(entryPath(statuslineCacheDir(env), transcript))
  if (!entry) return undefined
  if (entry.rootsKey !== rootsKey(env, opts.projects)) return undefined
  if (entry.sessionKey !== sessionKey(transcript)) return undefined
  const { day, minMtimeMs } = localDay(opts.now ?? Date.now())
  if (entry.day !== day || entry.estateKey !== estateKey(entry.roots, minMtimeMs)) return undefined
  return renderLine(input, entry)
}

/** Parses the statusline JSON; undefined when it is not a JSON object. */
export function parseInput(text: string): StatuslineInput | undefined {
  try {
    const v = JSON.parse(text)
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as StatuslineInput) : undefined
  } catch {
    return undefined
  }
}

let consumed: string | undefined

/** The statusline JSON the fast path already read from stdin, once. */
export function takeConsumedInput(): string | undefined {
  const text = consumed
  consumed = undefined
  return text
}

/**
 * `claude-jsonl statusline` as the installed command starts it: answers from the cache and
 * returns true, or returns false (nothing printed) for the full command to run. Only plain calls
 * (no option but --projects DIR) take this path.
 */
export function statuslineFastPath(argv: string[]): boolean {
  let projects: string | undefined
  if (argv.length === 3 && argv[1] === '--projects') projects = argv[2]
  else if (argv.length !== 1) return false
  let text: string
  try {
    if (process.stdin.isTTY) return false
    text = readFileSync(0, 'utf8')
  } catch {
    return false
  }
  const input = parseInput(text)
  const line = input && cachedLine(input, { projects })
  consumed = text // stdin is read: the full command takes the input from here
  if (line === undefined) return false
  writeStdout(line + '\n')
  return true
}
