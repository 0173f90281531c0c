// Loads one CommonJS file (the CLI bundle) through V8's code cache, for Node versions without
// `module.enableCompileCache` (before 22.1). Compiling the bundle costs more than everything else
// a small command does after Node has started; with the code V8 made for it in an earlier run it
// takes about a millisecond. The cache is a file per bundle build (its size, mtime and inode name
// it; V8 itself refuses data from another V8 version, other flags or another source length), in
// a private folder: `$NODE_COMPILE_CACHE/claude-jsonl` or `<tmpdir>/node-compile-cache/claude-jsonl`.
// Nothing is cached when NODE_DISABLE_COMPILE_CACHE is set, when that folder is not the user's own
// (a link, another owner, writable by others), or when anything about the cache fails: the file
// is then compiled as usual. The cache is written once, after the command ran (so that it also
// holds the functions the command compiled), through a temp file, fsync and a rename.
import fs from 'node:fs'
import Module from 'node:module'
import os from 'node:os'
import path from 'node:path'
import vm from 'node:vm'

/** The cache folder when it is safe to read code from it, created private if absent. */
function cacheDir(): string | undefined {
  const base = process.env.NODE_COMPILE_CACHE || path.join(os.tmpdir(), 'node-compile-cache')
  const dir = path.join(base, 'claude-jsonl')
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 })
  const st = fs.lstatSync(dir)
  const own = typeof process.getuid !== 'function' || st.uid === process.getuid()
  return st.isDirectory() && own && (st.mode & 0o022) === 0 ? dir : undefined
}

/** Runs `file` as a CommonJS module, through the code cache when it can. */
export function requireCached(file: string): void {
  const source = fs.readFileSync(file, 'utf8')
  let cacheFile: string | undefined
  let cached: Buffer | undefined
  if (!process.env.NODE_DISABLE_COMPILE_CACHE) {
    try {
      const dir = cacheDir()
      if (dir) {
        const st = fs.statSync(file)
        const key = `${path.basename(file)}-${process.version}-${process.arch}-${st.size}-${Math.trunc(st.mtimeMs)}-${st.ino}`
        cacheFile = path.join(dir, key.replace(/[^\w.-]/g, '_') + '.v8')
        cached = fs.readFileSync(cacheFile)
      }
    } catch {
      cached = undefined // no cache yet, or none can be kept: compile as usual
    }
  }
  const script = new vm.Script(Module.wrap(source.replace(/^#!.*/, '')), {
    filename: file,
    cachedData: cached,
    importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  })
  if (cacheFile && (cached === undefined || script.cachedDataRejected)) {
    const target = cacheFile
    process.once('exit', () => {
      const tmp = `${target}.${process.pid}.tmp`
      try {
        const fd = fs.openSync(tmp, 'wx', 0o600)
        try {
          fs.writeFileSync(fd, script.createCachedData())
          fs.fsyncSync(fd)
        } finally {
          fs.closeSync(fd)
        }
        fs.renameSync(tmp, target)
      } catch {
        fs.rmSync(tmp, { force: true }) // a cache is only an optimisation
      }
    })
  }
  const mod = { exports: {}, filename: file, id: file, loaded: false }
  const run = script.runInThisContext() as (...args: unknown[]) => void
  run(mod.exports, Module.createRequire(file), mod, file, path.dirname(file))
  mod.loaded = true
}
