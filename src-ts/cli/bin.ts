#!/usr/bin/env node
// The installed `claude-jsonl` command. The native addon is loaded first, by require, so that one
// that cannot load (no prebuilt package for this platform, a broken one, no local build) ends in one
// line and exit code 4. (Node 20 also prints the stack of a CommonJS module that throws while an ES
// module imports it, even when the import is caught, so the addon must not first fail there.)
import { createRequire } from 'node:module'

let loaded = false
try {
  createRequire(import.meta.url)('#native')
  loaded = true
} catch (e) {
  const err = e as { code?: string; message?: string }
  const msg = err.code === 'CLAUDE_JSONL_NATIVE_LOAD' ? err.message : `internal error: ${String(err.message ?? e)}`
  process.stderr.write(`claude-jsonl: ${String(msg).split('\n')[0]}\n`)
  process.exitCode = 4
}
if (loaded) await import('./main.js')
