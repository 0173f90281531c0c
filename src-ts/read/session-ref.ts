// Naming a session on the command line: a transcript path, a full session uuid, or a unique
// prefix of one, looked up across the estate (same root rules as `stats`).
import { existsSync, statSync, type BigIntStats, type Stats } from 'node:fs'
import { basename, resolve } from 'node:path'
import native from '../native.js'
import type { DiscoveredFile } from '../native.js'
import { EstateOptions, resolveRoots } from './estate.js'
import { ClaudeJsonlError, EXIT, fromNative, inputError } from '../errors.js'

/**
 * A session named by a path, uuid or unique prefix, resolved: its main transcript, id, project
 * folder and subagent transcripts.
 */
export interface SessionRef {
  /** The session's main transcript. */
  path: string
  sessionId: string
  project: string
  /** Its subagent transcripts in the `<session>/subagents/` layout. */
  subagentPaths: string[]
}

/** Lists transcript files under the estate roots without reading them. */
export function discoverFiles(opts: EstateOptions = {}): DiscoveredFile[] {
  const { roots } = resolveRoots(opts)
  try {
    return native.discoverFiles(roots)
  } catch (e) {
    throw fromNative(e)
  }
}

/**
 * Refuses a named path that is neither a regular file nor a folder (a FIFO, a socket, a device)
 * before anything opens it: opening a FIFO for reading blocks until a writer comes, and a device
 * never ends. Exit code 3, naming what the path is. (The core checks the same in its own opens.)
 */
export function checkRegularFile(path: string, st: Stats | BigIntStats): void {
  if (st.isFile() || st.isDirectory()) return
  const what = st.isFIFO()
    ? 'a FIFO (named pipe)'
    : st.isSocket()
      ? 'a socket'
      : st.isBlockDevice() || st.isCharacterDevice()
        ? 'a device'
        : 'not a regular file'
  throw inputError(path, `is ${what}, not a transcript file; not read`)
}

/**
 * Resolves `ref` to one session. Throws a ClaudeJsonlError: exit 3 when nothing matches (naming
 * what was searched), exit 2 when a prefix is ambiguous (listing the candidates).
 */
export function resolveSession(ref: string, opts: EstateOptions = {}): SessionRef {
  if (ref.includes('/') || ref.endsWith('.jsonl') || existsSync(ref)) {
    const path = resolve(ref)
    if (!existsSync(path)) throw inputError(path, 'no such file or directory')
    const st = statSync(path)
    if (st.isDirectory()) throw inputError(path, 'is a directory, not a transcript')
    checkRegularFile(path, st)
    return { path, sessionId: basename(path, '.jsonl'), project: basename(resolve(path, '..')), subagentPaths: [] }
  }
  const files = discoverFiles({ ...opts, paths: undefined })
  const wanted = ref.toLowerCase()
  const sessions = files.filter((f) => f.kind === 'session' && f.sessionId)
  const exact = sessions.filter((f) => f.sessionId!.toLowerCase() === wanted)
  const matches = exact.length > 0 ? exact : sessions.filter((f) => f.sessionId!.toLowerCase().startsWith(wanted))
  if (matches.length === 0) {
    const { roots } = resolveRoots({ ...opts, paths: undefined })
    throw new ClaudeJsonlError(
      `no session matches '${ref}' (searched ${sessions.length} sessions under ${roots.join(', ')})`,
      EXIT.input,
    )
  }
  if (matches.length > 1) {
    const list = matches
      .slice(0, 10)
      .map((m) => `${m.sessionId} (${m.project})`)
      .join(', ')
    throw new ClaudeJsonlError(
      `'${ref}' matches ${matches.length} sessions: ${list}${matches.length > 10 ? ', …' : ''}`,
      EXIT.usage,
    )
  }
  const m = matches[0]
  const subagentPaths = files
    .filter((f) => f.kind === 'subagent' && f.sessionId === m.sessionId && f.project === m.project)
    .map((f) => f.path)
  return { path: m.path, sessionId: m.sessionId!, project: m.project, subagentPaths }
}
