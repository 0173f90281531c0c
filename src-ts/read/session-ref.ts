// Naming a session on the command line: a transcript path, a full session uuid, or a unique
// prefix of one, looked up across the estate (same root rules as `stats`).
import { existsSync, statSync } from 'node:fs'
import { basename, resolve, sep } from 'node:path'
import type { DiscoveredFile } from '../native.js'
import { checkRegularFile, discoverEstate, discoverRoots, EstateOptions, resolveRoots } from './estate.js'

export { checkRegularFile }
import { ClaudeJsonlError, EXIT, inputError } from '../errors.js'
import { archivedAt, transcriptOnDisk } from '../archive/in-memory.js'

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

/** Lists transcript files under the estate roots without reading them (an archive root's at
 * their latest generation, from its streams' directories). */
export function discoverFiles(opts: EstateOptions = {}): DiscoveredFile[] {
  return discoverRoots(resolveRoots(opts).roots, opts.warn)
}

/** The one wording of a folder given where a transcript file is expected. */
export const FOLDER_NOT_FILE = 'is a folder, not a transcript file'

/** True when `ref` names a file (it has a path separator, ends in .jsonl, or exists). */
export function isPathRef(ref: string): boolean {
  return ref.includes('/') || ref.includes(sep) || ref.endsWith('.jsonl') || existsSync(ref)
}

/**
 * Refuses (exit 3) a path that is no regular file: missing, a folder, or a FIFO, device or
 * socket (reading one would hang or never end), or one that cannot be read.
 */
export function checkTranscriptFile(path: string): void {
  let st
  try {
    st = statSync(path)
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code
    throw inputError(
      path,
      code === 'ENOENT' || code === 'ENOTDIR'
        ? 'no such file or directory'
        : code === 'EACCES'
          ? 'permission denied'
          : (e as Error).message,
    )
  }
  if (st.isDirectory()) throw inputError(path, FOLDER_NOT_FILE)
  checkRegularFile(path, st)
}

/**
 * The transcript a session argument names: `ref` itself when it is a path (checked to be a
 * regular file), else the main transcript of the session whose uuid or unique uuid prefix it is,
 * looked up under the estate root (see resolveSession). Every function that takes one session
 * starts here. A session of an archive root has no file of its own: the path is then a private
 * temporary copy of that one transcript, for code that reads files (see `transcriptOnDisk`).
 */
export function sessionPath(ref: string, opts: EstateOptions = {}): string {
  if (!isPathRef(ref) || archivedAt(ref)) return transcriptOnDisk(resolveSession(ref, opts).path)
  checkTranscriptFile(ref)
  return ref
}

/**
 * Resolves `ref` to one session. Throws a ClaudeJsonlError: exit 3 when nothing matches (naming
 * what was searched), exit 2 when a prefix is ambiguous (listing the candidates).
 */
export function resolveSession(ref: string, opts: EstateOptions = {}): SessionRef {
  if (isPathRef(ref)) {
    const path = resolve(ref)
    // a path an archive root was listed at in this process (no file is there)
    const archived = archivedAt(path)
    if (archived)
      return {
        path,
        sessionId: archived.sessionId ?? basename(path, '.jsonl'),
        project: archived.project,
        subagentPaths: [],
      }
    checkTranscriptFile(path)
    return { path, sessionId: basename(path, '.jsonl'), project: basename(resolve(path, '..')), subagentPaths: [] }
  }
  return matchSession(ref, discoverFiles({ ...opts, paths: undefined }), opts)
}

/** `resolveSession`, an archive root read in the state `opts.generation` or `opts.asOf` names
 * (the latest without either). */
export async function resolveSessionAt(ref: string, opts: EstateOptions = {}): Promise<SessionRef> {
  if (isPathRef(ref) || (opts.generation === undefined && opts.asOf === undefined)) return resolveSession(ref, opts)
  return matchSession(ref, await discoverEstate({ ...opts, paths: undefined }), opts)
}

/** The session among `files` whose uuid is `ref` or starts with it. */
function matchSession(ref: string, files: DiscoveredFile[], opts: EstateOptions): SessionRef {
  const wanted = ref.toLowerCase()
  const sessions = files.filter((f) => f.kind === 'session' && f.sessionId)
  const exact = sessions.filter((f) => f.sessionId!.toLowerCase() === wanted)
  const matches = exact.length > 0 ? exact : sessions.filter((f) => f.sessionId!.toLowerCase().startsWith(wanted))
  if (matches.length === 0) {
    const { roots } = resolveRoots({ ...opts, paths: undefined })
    throw new ClaudeJsonlError(
      `no session matches '${ref}' (searched ${sessions.length} session${sessions.length === 1 ? '' : 's'} under ${roots.join(', ')})`,
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
