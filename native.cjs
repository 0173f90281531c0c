// Loader for the claude-jsonl native addon (hand-written, napi-rs conventions).
// Tries, in order, and keeps every failure:
//   1. process.env.NAPI_RS_NATIVE_LIBRARY_PATH (resolved against the cwd),
//   2. the installed prebuilt platform package claude-jsonl-<platformArchABI>,
//   3. ./claude-jsonl.<platformArchABI>.node next to this file (built from source by
//      `npm run build:native`, or by the install script when no prebuilt package loads).
// A platform package that is installed but does not load (a truncated file, another ABI) is named
// in a warning when the local build is used instead, and in the error when nothing loads.
'use strict'

const { closeSync, fstatSync, openSync, readSync } = require('node:fs')
const { join, resolve } = require('node:path')
const { platformArchABI, prebuiltTargets } = require('./platform.cjs')

const abi = platformArchABI()
const packageName = `claude-jsonl-${abi}`
const localFile = join(__dirname, `claude-jsonl.${abi}.node`)
const envPath = process.env.NAPI_RS_NATIVE_LIBRARY_PATH

/** Whether `err` says that `target` itself is absent (as opposed to present but not loadable). */
function isAbsent(err, target) {
  const msg = String(err && err.message)
  return err && err.code === 'MODULE_NOT_FOUND' && msg.includes(`'${target}'`)
}

/**
 * Why an ELF addon is shorter than its own headers say, or undefined. Loading such a file does not
 * fail cleanly: the dynamic loader maps the missing pages and the process dies of SIGBUS, so a
 * truncated download or copy is caught here first (one read of the 64-byte header).
 */
function truncatedElf(path) {
  let fd
  try {
    fd = openSync(path, 'r')
    const h = Buffer.alloc(64)
    const n = readSync(fd, h, 0, 64, 0)
    if (n < 16 || h.readUInt32BE(0) !== 0x7f454c46) return undefined // not ELF: the loader judges it
    const size = fstatSync(fd).size
    if (n < 64) return `the file is truncated (${size} bytes)`
    const le = h[5] === 1
    const u16 = (o) => (le ? h.readUInt16LE(o) : h.readUInt16BE(o))
    const u32 = (o) => (le ? h.readUInt32LE(o) : h.readUInt32BE(o))
    const u64 = (o) => Number(le ? h.readBigUInt64LE(o) : h.readBigUInt64BE(o))
    const end = h[4] === 2 ? u64(0x28) + u16(0x3a) * u16(0x3c) : u32(0x20) + u16(0x2e) * u16(0x30)
    return size < end ? `the file is truncated (${size} of at least ${end} bytes)` : undefined
  } catch {
    return undefined // unreadable: require() reports it
  } finally {
    if (fd !== undefined) closeSync(fd)
  }
}

function load(target) {
  const path = require.resolve(target)
  const truncated = truncatedElf(path)
  if (truncated) throw new Error(`${path}: ${truncated}`)
  return require(path)
}

const candidates = []
if (envPath) candidates.push(['NAPI_RS_NATIVE_LIBRARY_PATH', resolve(envPath)])
candidates.push(['package', packageName], ['file', localFile])

const failures = [] // { kind, target, absent, reason }
let binding
for (const [kind, target] of candidates) {
  try {
    binding = load(target)
    break
  } catch (err) {
    failures.push({ kind, target, absent: isAbsent(err, target), reason: String(err && err.message).split('\n')[0] })
  }
}

const broken = failures.filter((f) => !f.absent)
if (binding && broken.length > 0) {
  // One line, not process.emitWarning's two: the user has an install to repair, not a trace to read.
  const used = candidates.find(([, t]) => !failures.some((f) => f.target === t))[1]
  process.stderr.write(
    `claude-jsonl: warning: ${broken.map((f) => `${f.kind} ${f.target} does not load (${f.reason})`).join('; ')}; ` +
      `using ${used} instead\n`,
  )
}

if (!binding) {
  const supported = prebuiltTargets()
  const what = broken.length
    ? broken
        .map((f) => `${f.kind === 'package' ? 'the package ' : ''}${f.target} does not load (${f.reason})`)
        .join('; ')
    : supported.length === 0 || supported.includes(abi)
      ? `neither the prebuilt package ${packageName} nor a local build ${localFile} is installed`
      : `there is no prebuilt addon for ${abi} (prebuilt: ${supported.join(', ')}) and no local build ${localFile}`
  const err = new Error(
    `cannot load the native addon for ${abi}: ${what}. Tried ${candidates.map(([k, t]) => `${k} ${t}`).join(', ')}. ` +
      'Build it from source with `npm rebuild claude-jsonl` (or `npm run build:native` in a checkout); that needs ' +
      'a Rust toolchain (https://rustup.rs)',
    { cause: failures.map((f) => new Error(`${f.kind} ${f.target}: ${f.reason}`)) },
  )
  err.code = 'CLAUDE_JSONL_NATIVE_LOAD'
  err.failures = failures
  throw err
}

module.exports = binding
