#!/usr/bin/env node
// The installed `claude-jsonl` command, in CommonJS: Node's ES module loader costs several
// milliseconds to start, and `--version` (answered here from the addon) needs none of the CLI's
// modules; every other command loads the CLI bundled into one CommonJS file (made by
// scripts/bundle-cli.mjs from main.js and the modules it reaches), so that Node reads and
// compiles one file instead of resolving and loading some forty ES modules: the command's own
// bundle (bundle.<command>.cjs, the CLI with that command alone), else the whole CLI (bundle.cjs,
// for `--help` and unknown commands).
// Node's compile cache (22.1 and later) is enabled first, or on older Node the bundle is loaded
// through load-cached.cjs, which keeps V8's code for it: V8 then reuses the code it compiled in
// an earlier run instead of compiling the bundle again.
// The native addon is loaded first, by require, so that one that cannot load (no prebuilt package
// for this platform, a broken one, no local build) ends in one line and exit code 4. (Node 20 also
// prints the stack of a CommonJS module that throws while an ES module imports it, even when the
// import is caught, so the addon must not first fail there.)
import { writeStdout, writeStderr } from '../terminal/output.cjs'
import { asksVersion, versionLine } from './version.cjs'

// `statusline` runs after every assistant message: a call whose inputs did not change is answered
// from its cache before the addon or any ES module is loaded (integrations/statusline-cache.cts).
const argv = process.argv.slice(2)
if (argv[0] === 'statusline' && require('../integrations/statusline-cache.cjs').statuslineFastPath(argv)) {
  // answered
} else start()

function start(): void {
  // `module.enableCompileCache` is absent before Node 22.1, where load-cached.cjs keeps the cache.
  const enableCompileCache = (require('node:module') as { enableCompileCache?: () => unknown }).enableCompileCache
  enableCompileCache?.()
  let native: { version(): string } | undefined
  try {
    // The loader by its path from here (dist/src-ts/cli/ to the package root), not by the package's
    // `#native` import: resolving a package import loads Node's ES module resolver (a millisecond).
    native = require('../../../native.cjs') as { version(): string }
  } catch (e) {
    const err = e as { code?: string; message?: string }
    const msg = err.code === 'CLAUDE_JSONL_NATIVE_LOAD' ? err.message : `internal error: ${String(err.message ?? e)}`
    writeStderr(`claude-jsonl: ${String(msg).split('\n')[0]}\n`)
    process.exitCode = 4
  }
  if (native && asksVersion(argv)) writeStdout(versionLine(native.version()) + '\n')
  // The MCP server loads the SDK bundled for it as an ES module, which the CLI bundle does not
  // hold; a statusline call past its fast path goes on with the input that path read, which the
  // fast path's own module instance keeps (the bundle would hold a second one).
  else if (native && (argv[0] === 'mcp' || argv[0] === 'statusline')) void import('./main.js')
  else if (native && enableCompileCache) require(bundleFor(argv[0]))
  else if (native)
    (require('./load-cached.cjs') as typeof import('./load-cached.cjs')).requireCached(bundleFor(argv[0]))
}

/** The bundle that runs `command`: its own when it has one, else the whole CLI's. */
function bundleFor(command: string | undefined): string {
  const own = command !== undefined && /^[a-z][a-z-]*$/.test(command) && `${__dirname}/bundle.${command}.cjs`
  return own && (require('node:fs') as typeof import('node:fs')).existsSync(own) ? own : `${__dirname}/bundle.cjs`
}
