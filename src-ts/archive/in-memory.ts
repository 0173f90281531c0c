// Reading an archive root as an estate, with no copy of it on disk: its transcripts are listed
// from the streams' directories at `<archive>/<project>/<path>` (the place they have in the
// archive's layout; no file is there), and a reader that needs one's bytes gets them decoded
// from its stream into memory, SHA-256 checked, one session at a time. The paths listed are
// remembered for the process, so every reader asks the same way whatever found the path.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import native from '../native.js'
import type { DiscoveredFile } from '../native.js'
import type { ArchivedFile } from '#native'
import { fromNative, inputError } from '../errors.js'
import { readerFiles, type ArchiveState, type ArchiveWarn } from './generations.js'

/** The archived transcripts listed in this process, by the path they are listed at. */
const listed = new Map<string, ArchivedFile>()

/** Warnings already given in this process (a server lists an archive again and again). */
const warned = new Set<string>()
const once =
  (warn: ArchiveWarn): ArchiveWarn =>
  (line) => {
    if (warned.has(line)) return
    warned.add(line)
    warn(line)
  }

/** The last transcript decoded, kept for the next ask of the same path (a reader often reads
 * the head and tail, then the whole): memory for one session, whatever the archive's size. */
let last: { file: ArchivedFile; bytes: Buffer } | undefined

/** The archived transcripts `files` as a walk lists files, remembered for `transcriptBytesAt`; one
 * whose stream does not read is named through `warn` and left out. */
export function placeArchived(root: string, files: ArchivedFile[], warnTo: ArchiveWarn): DiscoveredFile[] {
  const warn = once(warnTo)
  const abs = resolve(root)
  const transcripts = files.filter((f) => !f.config && f.path.endsWith('.jsonl'))
  let found
  try {
    found = native.archiveDiscover(abs, transcripts)
  } catch (e) {
    throw fromNative(e)
  }
  const out: DiscoveredFile[] = []
  found.forEach((r, i) => {
    if (!r.file) return warn(`${r.error} (skipped)`)
    listed.set(r.file.path, transcripts[i])
    out.push(r.file)
  })
  return out
}

/** An archive root's transcripts as `discoverFiles` lists a folder's, at the latest generation
 * (synchronous: the listing reads directories only). */
export function discoverArchiveLatest(root: string, warnTo: ArchiveWarn): DiscoveredFile[] {
  const warn = once(warnTo)
  let listing
  try {
    listing = native.archiveListAll(resolve(root))
  } catch (e) {
    throw fromNative(e)
  }
  for (const d of listing.damaged) warn(`${d.error} (skipped)`)
  for (const l of listing.lacking) if (!l.config) warn(l.error)
  return placeArchived(root, listing.files, warn)
}

/** An archive root's transcripts in the state `state` names (the latest, `--generation N`, or
 * `--as-of`), as `discoverFiles` lists a folder's. */
export async function discoverArchive(
  root: string,
  state: Pick<ArchiveState, 'generation' | 'asOf'>,
  warn: ArchiveWarn,
): Promise<DiscoveredFile[]> {
  if (state.generation === undefined && state.asOf === undefined) return discoverArchiveLatest(root, warn)
  return placeArchived(root, await readerFiles(root, state, warn), warn)
}

/** Remembers that the archived transcript `file` is listed at `path` (by an estate scan). */
export function rememberArchived(path: string, file: ArchivedFile): void {
  listed.set(path, file)
}

/** The archived file listed at `path` in this process, if it is one. */
export function archivedAt(path: string): ArchivedFile | undefined {
  // (asked of every file of an estate: no path is resolved when no archive was listed)
  if (listed.size === 0) return undefined
  return listed.get(path) ?? listed.get(resolve(path))
}

/** A transcript's bytes: an archived one's decoded from its stream into memory (SHA-256
 * checked), any other read from its file. Throws when it cannot be read. */
export function transcriptBytesAt(path: string): Buffer {
  const archived = archivedAt(path)
  if (!archived) return readFileSync(path)
  // the same listing of it (a later listing, after another archive run, is read again)
  if (last?.file === archived) return last.bytes
  let bytes
  try {
    bytes = native.archiveReadFile(archived)
  } catch (e) {
    throw fromNative(e)
  }
  last = { file: archived, bytes }
  return bytes
}

let scratch: string | undefined

/** A file holding the transcript at `path`: the path itself, or for an archived transcript a
 * private temporary copy of that one session (removed when the process exits), for the few
 * commands that hand a path to code that reads files (compress, plan, repair, pack). */
export function transcriptOnDisk(path: string): string {
  const archived = archivedAt(path)
  if (!archived) return path
  if (!scratch) {
    scratch = mkdtempSync(join(tmpdir(), 'claude-jsonl-session-'))
    const dir = scratch
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }))
  }
  const file = join(scratch, archived.project, archived.path)
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 })
  writeFileSync(file, transcriptBytesAt(path), { mode: 0o600 })
  return file
}

/** `transcriptOnDisk` for a command that reads one session; one that would change it in place
 * is refused for an archived session (its estate file is elsewhere, or gone): exit 3. */
export function sessionFileFor(path: string, inPlace: boolean): string {
  if (inPlace && archivedAt(path))
    throw inputError(
      path,
      'is an archived session: an in-place command changes a file of the estate (restore it first: claude-jsonl restore ARCHIVE SESSION --to DIR)',
    )
  return transcriptOnDisk(path)
}
