// Teleport ids: the `session_…` id the Claude app hands out for a cloud/phone session, and the
// local session uuid `claude --resume` wants. Claude Code derives the local uuid as a uuid5 over
// the session's SDK resume URL, so the translation is a computation: no logs, any age, offline.
import { createHash } from 'node:crypto'
import { sessionHolders, type LiveHolder } from './live-sessions.js'
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { EstateOptions, resolveRoots } from './estate.js'
import { discoverFiles } from './session-ref.js'
import { isV5Uuid, lastActivityOf, titleFields, transcriptFactsSync, type TitleSource } from './sessions.js'
import { usageError } from '../errors.js'

/** The namespace constant in the Claude Code bundle (seen through 2.1.250). */
export const TELEPORT_NAMESPACE = '3ab19d7e-9f35-45c2-926e-75e271cc60b3'
export const RESUME_URL_BASE = 'https://api.anthropic.com/v1/code/sessions/'

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
const ID_RE = /^(session|cse)_([A-Za-z0-9]+)$/

/** RFC 4122 name-based uuid, version 5 (SHA-1). */
export function uuid5(name: string, namespace: string): string {
  if (!UUID_RE.test(namespace)) throw new TypeError(`not a uuid: '${namespace}'`)
  const h = createHash('sha1')
    .update(Buffer.from(namespace.replace(/-/g, ''), 'hex'))
    .update(name, 'utf8')
    .digest()
  h[6] = (h[6] & 0x0f) | 0x50 // version 5
  h[8] = (h[8] & 0x3f) | 0x80 // RFC 4122 variant
  const x = h.toString('hex', 0, 16)
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`
}

/** Where `teleportId` looks for the local transcript, and whether it may match by title. */
export interface TeleportOptions extends EstateOptions {
  /** Also match local transcripts by title: `title` if given, else the derived title in the logs. */
  fallback?: boolean
  /** Text to look for in the title texts `sessions` shows (custom-title, ai-title, legacy summary, first prompt; case-insensitive). Implies fallback. */
  title?: string
}

export interface TeleportTranscript {
  sessionId: string
  path: string
  project: string
  cwd: string | null
  title: string | null
  isV5: boolean
}

export interface TeleportCandidate extends TeleportTranscript {
  matchedOn: TitleSource
}

/**
 * A web session id resolved: its forms, the local session uuid it hashes to, the transcript with
 * that uuid (if any) and how it was found.
 */
export interface TeleportResult {
  input: string
  /** The id with each of its two prefixes. */
  cseId: string
  sessionId: string
  /** The URL hashed, and the local session uuid it gives. */
  resumeUrl: string
  uuid: string
  /** The local transcript with that uuid (or the one a bridge transcript names), if any. */
  transcript: TeleportTranscript | null
  matchedBy: 'uuid' | 'bridge-transcript' | null
  /**
   * `<config>/logs/bridge-transcript-cse_<body>.jsonl`, when Claude Code still has it: the uuid it
   * records (read structurally). Disagreement with `uuid` means the rule no longer holds.
   */
  bridge: { path: string; sessionId: string; agrees: boolean } | null
  /** Title matching, when asked: what was looked for and the sessions that match (v5 first). */
  fallback: { query: string; from: 'title' | 'derived-title'; candidates: TeleportCandidate[] } | null
  /** Running Claude Code processes holding the found transcript (resuming it elsewhere too would
   * make two writers append to one JSONL). */
  liveHolders: LiveHolder[]
  searched: { roots: string[]; sessions: number; logs: string[] }
}

/** Splits a teleport id; anything but `session_<alnum>` or `cse_<alnum>` is a usage error. */
export function parseTeleportId(id: string): { body: string; cseId: string; sessionId: string } {
  const m = ID_RE.exec(id.trim())
  if (!m)
    throw usageError(`teleport-id expects a session_… or cse_… id (letters and digits after the prefix), got '${id}'`)
  return { body: m[2], cseId: `cse_${m[2]}`, sessionId: `session_${m[2]}` }
}

/** The local session uuid Claude Code gives a teleported session. */
export function teleportUuid(id: string): string {
  return uuid5(RESUME_URL_BASE + parseTeleportId(id).cseId, TELEPORT_NAMESPACE)
}

/** Claude Code's logs folders beside the estate roots (`<config>/logs`) that exist. */
function logDirs(opts: EstateOptions): string[] {
  const dirs = [...new Set(resolveRoots(opts).roots.map((r) => join(dirname(r), 'logs')))]
  return dirs.filter((d) => existsSync(d) && statSync(d).isDirectory())
}

function readBridge(dirs: string[], cseId: string, uuid: string): TeleportResult['bridge'] {
  for (const d of dirs) {
    const path = join(d, `bridge-transcript-${cseId}.jsonl`)
    if (!existsSync(path)) continue
    let text: string
    try {
      text = readFileSync(path, 'utf8')
    } catch {
      continue
    }
    // Structurally: the top-level session_id of a record, never a uuid quoted in tool output.
    for (const line of text.split('\n')) {
      try {
        const r = JSON.parse(line) as { session_id?: unknown }
        if (r && typeof r.session_id === 'string' && UUID_RE.test(r.session_id)) {
          return { path, sessionId: r.session_id.toLowerCase(), agrees: r.session_id.toLowerCase() === uuid }
        }
      } catch {
        // a torn line
      }
    }
  }
  return null
}

/** The title Claude Code's remote log derived for the session (its first prompt), last one wins. */
function derivedTitle(dirs: string[], sessionId: string): string | undefined {
  const marker = `derived title for ${sessionId}: `
  let found: string | undefined
  for (const d of dirs) {
    let names: string[]
    try {
      names = readdirSync(d)
        .filter((n) => n.startsWith('claude-remote-') && n.includes('.log'))
        .sort()
    } catch {
      continue
    }
    for (const n of names) {
      let text: string
      try {
        text = readFileSync(join(d, n), 'utf8')
      } catch {
        continue
      }
      let at = text.indexOf(marker)
      while (at >= 0) {
        const end = text.indexOf('\n', at)
        const t = text.slice(at + marker.length, end < 0 ? undefined : end).trim()
        if (t) found = t
        at = text.indexOf(marker, at + marker.length)
      }
    }
  }
  return found
}

const norm = (s: string) => s.replace(/\s+/g, ' ').trim().toLowerCase()

/**
 * Translates a teleport id to the local session uuid and finds the transcript that has it.
 * Throws a ClaudeJsonlError: exit 2 for an id that is not `session_…`/`cse_…`, exit 3 when
 * the estate root is missing. Nothing is written.
 */
export function teleportId(id: string, opts: TeleportOptions = {}): TeleportResult {
  const { cseId, sessionId } = parseTeleportId(id)
  const resumeUrl = RESUME_URL_BASE + cseId
  const uuid = uuid5(resumeUrl, TELEPORT_NAMESPACE)
  const { roots } = resolveRoots(opts)
  const files = discoverFiles(opts)
  const sessions = files.filter((f) => f.kind === 'session' && f.sessionId)
  const logs = logDirs(opts)

  const describe = (f: (typeof sessions)[number]): TeleportTranscript => {
    let cwd: string | null = null
    let title: string | null = null
    try {
      const x = transcriptFactsSync(f.path, f.size)
      cwd = x.cwd
      title = x.title
    } catch {
      // unreadable: still named by its path
    }
    return { sessionId: f.sessionId!, path: f.path, project: f.project, cwd, title, isV5: isV5Uuid(f.sessionId!) }
  }

  const bridge = readBridge(logs, cseId, uuid)
  let matchedBy: TeleportResult['matchedBy'] = null
  let hit = sessions.find((f) => f.sessionId!.toLowerCase() === uuid)
  if (hit) matchedBy = 'uuid'
  else if (bridge && !bridge.agrees) {
    hit = sessions.find((f) => f.sessionId!.toLowerCase() === bridge.sessionId)
    if (hit) matchedBy = 'bridge-transcript'
  }

  let fallback: TeleportResult['fallback'] = null
  if (opts.fallback || opts.title !== undefined) {
    const given = opts.title !== undefined && opts.title.trim() !== ''
    const query = given ? opts.title! : derivedTitle(logs, sessionId)
    if (query !== undefined) {
      // A derived title may be cut short with an ellipsis: match what is left of it.
      const q = norm(query)
        .replace(/(…|\.\.\.)$/, '')
        .trim()
      const candidates: Array<TeleportCandidate & { ms: number }> = []
      for (const f of sessions) {
        let x
        try {
          x = transcriptFactsSync(f.path, f.size)
        } catch {
          continue
        }
        const on = titleFields(x).find(([, v]) => v !== null && q !== '' && norm(v).includes(q))
        if (!on) continue
        const ms = lastActivityOf(x, f.mtimeMs)
        candidates.push({
          sessionId: f.sessionId!,
          path: f.path,
          project: f.project,
          cwd: x.cwd,
          title: x.title,
          isV5: isV5Uuid(f.sessionId!),
          matchedOn: on[0],
          ms,
        })
      }
      // Teleported sessions are spawned programmatically (v5 uuids): those first, then newest.
      candidates.sort((a, b) => Number(b.isV5) - Number(a.isV5) || b.ms - a.ms)
      fallback = {
        query,
        from: given ? 'title' : 'derived-title',
        candidates: candidates.map(({ ms: _ms, ...c }) => c),
      }
    } else {
      fallback = { query: '', from: 'derived-title', candidates: [] }
    }
  }

  return {
    input: id,
    cseId,
    sessionId,
    resumeUrl,
    uuid,
    transcript: hit ? describe(hit) : null,
    liveHolders: hit ? sessionHolders(hit.sessionId!, opts.env, hit.path).live : [],
    matchedBy,
    bridge,
    fallback,
    searched: { roots, sessions: sessions.length, logs },
  }
}
