// Loader for the claude-jsonl native addon (hand-written, napi-rs conventions).
// Tries, in order, and keeps every failure:
//   1. process.env.NAPI_RS_NATIVE_LIBRARY_PATH (resolved against the cwd),
//   2. the installed platform package claude-jsonl-<platformArchABI>,
//   3. ./claude-jsonl.<platformArchABI>.node next to this file (built by `npm run build:native`).
'use strict'

const { readFileSync } = require('node:fs')
const { join, resolve } = require('node:path')

function isMusl() {
  try {
    return readFileSync('/usr/bin/ldd', 'utf8').includes('musl')
  } catch {
    // no ldd script (e.g. distroless): ask the runtime which libc it was linked against
  }
  try {
    const report = process.report.getReport()
    return !report.header.glibcVersionRuntime
  } catch {
    return false
  }
}

// napi-rs platformArchABI: linux-x64-gnu, linux-x64-musl, darwin-arm64, win32-x64-msvc, ...
function platformArchABI() {
  const { platform, arch } = process
  if (platform === 'linux') {
    const musl = isMusl()
    if (arch === 'arm') return `linux-arm-${musl ? 'musleabihf' : 'gnueabihf'}`
    return `linux-${arch}-${musl ? 'musl' : 'gnu'}`
  }
  if (platform === 'win32') return `win32-${arch}-msvc`
  return `${platform}-${arch}`
}

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
