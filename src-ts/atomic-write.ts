// Publishing a file so that a reader sees either nothing or the whole of it: write a temp file in
// the target folder, fsync, check it, then rename (or hard-link, to refuse an existing target),
// then fsync the folder. A failure at any step removes the temp file and leaves the target as it was.
import { closeSync, fsync, linkSync, openSync, renameSync, unlinkSync, writeSync } from 'node:fs'
import { promisify } from 'node:util'
import { basename, dirname, join } from 'node:path'
import { randomBytes } from 'node:crypto'
import { ClaudeJsonlError, EXIT, inputError } from './errors.js'

export interface PublishOptions {
  /** Replace an existing target (rename); otherwise an existing target is an error (hard link). */
  replace?: boolean
  /** Runs on the written, fsynced temp file before it becomes visible; a throw aborts. */
  check?: (tempPath: string) => void | Promise<void>
}

// The flushes of publishFile wait on the thread pool, not on the calling thread: a caller
// running several publications (a batch) computes meanwhile instead of idling in fsync.
const fsyncAsync = promisify(fsync)

export async function fsyncDir(dir: string): Promise<void> {
  try {
    const fd = openSync(dir, 'r')
    try {
      await fsyncAsync(fd)
    } finally {
      closeSync(fd)
    }
  } catch {
    // Some platforms cannot fsync a directory; the rename itself is still atomic.
  }
}

export async function publishFile(
  target: string,
  bytes: Uint8Array | string,
  options: PublishOptions = {},
): Promise<void> {
  const dir = dirname(target)
  const temp = join(dir, `.${basename(target)}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`)
  let fd: number
  try {
    fd = openSync(temp, 'wx', 0o644)
  } catch (e) {
    throw inputError(dir, `cannot write here (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`)
  }
  let visible = false
  try {
    try {
      const buf = typeof bytes === 'string' ? Buffer.from(bytes) : bytes
      for (let at = 0; at < buf.length;) at += writeSync(fd, buf, at, buf.length - at)
      await fsyncAsync(fd)
    } finally {
      closeSync(fd)
    }
    await options.check?.(temp)
    if (options.replace) renameSync(temp, target)
    else {
      try {
        linkSync(temp, target)
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'EEXIST')
          throw new ClaudeJsonlError(`${target}: already exists (pass --force to replace it)`, EXIT.usage, target)
        throw e
      }
      unlinkSync(temp)
    }
    visible = true
    await fsyncDir(dir)
  } finally {
    if (!visible) {
      try {
        unlinkSync(temp)
      } catch {
        // already gone
      }
    }
  }
}
