// What the command line prints goes to file descriptors 1 and 2 by fs.writeSync rather than through
// process.stdout and process.stderr: the first use of either builds a stream object and loads
// Node's stream modules (some twenty of them, a few milliseconds), which a command that prints one
// table or one notice, or the statusline's one line, need not pay. Written synchronously, the
// output is also complete before the process exits. A descriptor that is non-blocking and full
// (EAGAIN) is handed to Node's stream, which waits for it, and keeps it for every later write so
// that the order stays. A reader of stdout that closed early (`claude-jsonl stats | head`) is not
// an error: the process ends with success (exit 0); one of stderr gets no more notices.
// CommonJS, so that the installed command and the statusline's fast path use it before any ES
// module is loaded.
import { fstatSync, statSync, writeSync } from 'node:fs'

type Fd = 1 | 2

/** Node's stream for a descriptor once a write met EAGAIN on it. */
const streams = new Map<Fd, NodeJS.WriteStream>()

const closedEarly = (e: unknown) => (e as NodeJS.ErrnoException | undefined)?.code === 'EPIPE'

function readerClosed(fd: Fd): void {
  if (fd === 1) process.exit(0)
}

function write(fd: Fd, text: string): void {
  const stream = streams.get(fd)
  if (stream) return void stream.write(text)
  let rest = Buffer.from(text)
  try {
    while (rest.length > 0) rest = rest.subarray(writeSync(fd, rest))
  } catch (e) {
    if (closedEarly(e)) return readerClosed(fd)
    if ((e as NodeJS.ErrnoException).code !== 'EAGAIN') throw e
    const s = fd === 1 ? process.stdout : process.stderr
    streams.set(fd, s)
    s.on('error', (err) => {
      if (closedEarly(err)) return readerClosed(fd)
      if (fd === 1) {
        process.stderr.write(`claude-jsonl: cannot write the output: ${err.message}\n`)
        process.exit(4) // an internal error: the output is incomplete
      }
    })
    s.write(rest)
  }
}

/** Writes `text` to stdout, whole, before it returns (unless stdout is a full non-blocking pipe). */
export function writeStdout(text: string): void {
  write(1, text)
}

/** Writes `text` to stderr, as writeStdout does to stdout. */
export function writeStderr(text: string): void {
  write(2, text)
}

/**
 * Whether stdout (1) or stderr (2) is a terminal. Asked of node:tty only for a character device
 * other than /dev/null (a terminal is one): loading node:tty loads the stream modules too.
 */
export function isTerminal(fd: Fd): boolean {
  try {
    const st = fstatSync(fd)
    if (!st.isCharacterDevice()) return false
    const devNull = statSync('/dev/null', { throwIfNoEntry: false })
    if (devNull && devNull.rdev === st.rdev) return false
  } catch {
    return false // no stdout at all
  }
  return (require('node:tty') as typeof import('node:tty')).isatty(fd)
}
