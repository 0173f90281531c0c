// The napi-rs platformArchABI name of this machine (linux-x64-gnu, linux-x64-musl,
// darwin-arm64, win32-x64-msvc, ...), shared by the loader and the build script.
'use strict'

const { readFileSync } = require('node:fs')

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

module.exports = { platformArchABI }
