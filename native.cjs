// Loader for the claude-jsonl native addon (hand-written, napi-rs conventions).
// Tries, in order, and keeps every failure:
//   1. process.env.NAPI_RS_NATIVE_LIBRARY_PATH (resolved against the cwd),
//   2. the installed platform package claude-jsonl-<platformArchABI>,
//   3. ./claude-jsonl.<platformArchABI>.node next to this file (built by `npm run build:native`).
'use strict'

const { join, resolve } = require('node:path')
const { platformArchABI } = require('./platform.cjs')

const abi = platformArchABI()
const packageName = `claude-jsonl-${abi}`
const localFile = join(__dirname, `claude-jsonl.${abi}.node`)
const envPath = process.env.NAPI_RS_NATIVE_LIBRARY_PATH

const candidates = []
if (envPath) candidates.push(['NAPI_RS_NATIVE_LIBRARY_PATH', resolve(envPath)])
candidates.push(['package', packageName], ['file', localFile])

const loadErrors = []
let binding
for (const [kind, target] of candidates) {
  try {
    binding = require(target)
    break
  } catch (err) {
    loadErrors.push(new Error(`${kind} ${target}: ${String(err && err.message).split('\n')[0]}`, { cause: err }))
  }
}

if (!binding) {
  throw new Error(
    `claude-jsonl: cannot load the native addon for ${abi}. ` +
      `Looked for the package ${packageName} and the file ${localFile}` +
      (envPath ? ` (after NAPI_RS_NATIVE_LIBRARY_PATH=${envPath})` : '') +
      '. Build it from source with `npm run build:native` in the claude-jsonl package directory ' +
      '(needs a Rust toolchain: https://rustup.rs).\n' +
      loadErrors.map((e) => `  - ${e.message}`).join('\n'),
    { cause: loadErrors },
  )
}

module.exports = binding
