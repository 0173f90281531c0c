// Reading byte spans of a transcript (records the native side chose) one window of the file at a
// time: the spans' text becomes strings one record at a time, never the whole file, so files
// beyond V8's string limit read as well as small ones.
import type { FileHandle } from 'node:fs/promises'
import { open } from 'node:fs/promises'
import { ClaudeJsonlError, EXIT, inputError } from '../errors.js'

/** Reads are grouped into windows of about this many bytes; a span larger than that is read alone. */
const WINDOW_BYTES = 1 << 20
/** Unwanted bytes read between two wanted spans before a new window starts instead. */
const MAX_GAP_BYTES = 64 << 10

/** Opens a transcript for reading; a file that cannot be opened is an input error (exit code 3). */
export async function openTranscript(path: string): Promise<FileHandle> {
  return open(path, 'r').catch((e: NodeJS.ErrnoException) => {
    throw inputError(path, e.code === 'ENOENT' ? 'no such file or directory' : e.message)
  })
}

/** The error `spanTexts` throws when the file is shorter than a span says. */
export function shrunk(path: string): ClaudeJsonlError {
  return new ClaudeJsonlError(`${path}: changed while being read (it is shorter now)`, EXIT.input, path)
}

/**
 * The UTF-8 text of each span `k` (`offsets[k]`, `lengths[k]`; offsets ascending), as `[k, text]`
 * in order. Throws `shrunk(path)` when the file ends before a span does (after the spans before it).
 */
export async function* spanTexts(
  fh: FileHandle,
  path: string,
  offsets: ArrayLike<number>,
  lengths: ArrayLike<number>,
): AsyncGenerator<[number, string]> {
  const n = offsets.length
  let buf = Buffer.alloc(0)
  for (let i = 0; i < n;) {
    // One window: spans i..j-1, contiguous enough to read in one go.
    const start = offsets[i]
    let end = start + lengths[i]
    let j = i + 1
    while (j < n && offsets[j] - end <= MAX_GAP_BYTES && offsets[j] + lengths[j] - start <= WINDOW_BYTES) {
      end = offsets[j] + lengths[j]
      j++
    }
    const size = end - start
    if (buf.length < size) buf = Buffer.allocUnsafe(Math.max(size, Math.min(WINDOW_BYTES, 2 * buf.length)))
    let got = 0
    while (got < size) {
      const { bytesRead } = await fh.read(buf, got, size - got, start + got)
      if (bytesRead === 0) break
      got += bytesRead
    }
    for (let k = i; k < j; k++) {
      const a = offsets[k] - start
      // The spans read whole before the file ended are still yielded.
      if (a + lengths[k] > got) throw shrunk(path)
      yield [k, buf.toString('utf8', a, a + lengths[k])]
    }
    i = j
  }
}
