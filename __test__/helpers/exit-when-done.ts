// Loaded by ava into every test file's process (package.json "ava.require"). Once a file's tests
// and teardowns are done, ava waits for its process to exit by itself; a handle left open (a
// server that a failed teardown never closed, a pipe to a child that outlived its test) would keep
// the whole run waiting until CI's time limit, with no summary printed. Exit instead: every result
// has been reported by then, and the leak still shows as the failure that caused it.
import { registerCompletionHandler } from 'ava'

export default function exitWhenDone(): void {
  registerCompletionHandler(() => process.exit())
}
