#!/usr/bin/env node
// The installed `claude-jsonl` command, in CommonJS: Node's ES module loader costs several
// milliseconds to start, and `--version` (answered here from the addon) needs none of the CLI's ES
// modules; every other command loads the CLI (main.js) behind one dynamic import.
// The native addon is loaded first, by require, so that one that cannot load (no prebuilt package
// for this platform, a broken one, no local build) ends in one line and exit code 4. (Node 20 also
// prints the stack of a CommonJS module that throws while an ES module imports it, even when the
// import is caught, so the addon must not first fail there.)
import { asksVersion, versionLine } from './version.cjs'

// `statusline` runs after every assistant message: a call whose inputs did not change is answered
// from its cache before the addon or any ES module is loaded (integrations/statusline-cache.cts).
const argv = process.argv.slice(2)
if (argv[0] === 'statusline' && require('../integrations/statusline-cache.cjs').statuslineFastPath(argv)) {
  // answered
} else start()

function start(): void {
  let native: { version(): string } | undefined
  try {
    native = require('#native') as { version(): string }
  } catch (e) {
    const err = e as { code?: string; message?: string }
    const msg = err.code === 'CLAUDE_JSONL_NATIVE_LOAD' ? err.message : `internal error: ${String(err.message ?? e)}`
    process.stderr.write(`claude-jsonl: ${String(msg).split('\n')[0]}\n`)
    process.exitCode = 4
  }
  if (native && asksVersion(argv)) process.stdout.write(versionLine(native.version()) + '\n')
  else if (native) void import('./main.js')
}
