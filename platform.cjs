// The napi-rs platformArchABI name of this machine (linux-x64-gnu, linux-x64-musl,
// darwin-arm64, win32-x64-msvc, ...), shared by the loader, the build and the pack scripts.
'use strict'

const { readFileSync } = require('node:fs')
const { join } = require('node:path')

function isMusl() {
  try {
    return readFileSync('/usr/bin/ldd', 'utf8').includes('musl')
  } catch {
    // no ldd script (e.g. distroless): ask the runtime which libc it was linked against
  }
  try {
    return !process.report.getReport().header.glibcVersionRuntime
  } catch {
    return false
  }
}

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

const ARCH = { x86_64: 'x64', aarch64: 'arm64', i686: 'ia32', armv7: 'arm' }
const OS = { linux: 'linux', darwin: 'darwin', windows: 'win32' }

/** The platformArchABI name napi-rs gives a Rust target triple (x86_64-unknown-linux-gnu -> linux-x64-gnu). */
function abiOfTriple(triple) {
  const [cpu, , os, env] = triple.split('-')
  if (!ARCH[cpu] || !OS[os]) throw new Error(`unknown target triple ${triple}`)
  if (os === 'linux') return `linux-${ARCH[cpu]}-${env ?? 'gnu'}`
  if (os === 'windows') return `win32-${ARCH[cpu]}-${env ?? 'msvc'}`
  return `${OS[os]}-${ARCH[cpu]}`
}

/** The platforms a prebuilt package is published for: package.json's napi.targets, as platformArchABI names
 * ([] when package.json cannot be read). */
function prebuiltTargets() {
  let pkg
  try {
    pkg = JSON.parse(readFileSync(join(__dirname, 'package.json'), 'utf8'))
  } catch {
    return [] // the loader copied somewhere without its package: the list is unknown
  }
  return pkg.napi.targets.map(abiOfTriple)
}

module.exports = { platformArchABI, abiOfTriple, prebuiltTargets }
