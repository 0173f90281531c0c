#!/usr/bin/env node
// `npm run pack:local`: the two tarballs a user on this platform would install from the registry.
//   dist/pack/claude-jsonl-<version>.tgz              the root package, its package.json listing every
//                                                     platform package as an optionalDependency
//   dist/pack/claude-jsonl-<abi>-<version>.tgz        this platform's prebuilt addon
// The addon is built (incrementally) from this checkout first, unless --no-build. Prints one JSON line per tarball
// (name, path, bytes, files) so tests and the docs can report sizes.
import { spawnSync } from 'node:child_process'
import { copyFileSync, cpSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const { platformArchABI, prebuiltTargets } = createRequire(import.meta.url)(join(root, 'platform.cjs'))
const abi = platformArchABI()
const out = join(root, 'dist', 'pack')
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm'

function run(cmd, args, opts = {}) {
  const res = spawnSync(cmd, args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], ...opts })
  if (res.error || res.status !== 0) {
    console.error(`pack-local: ${cmd} ${args.join(' ')} failed (${res.error?.message ?? `exit code ${res.status}`})`)
    process.exit(1)
  }
  return res.stdout
}

const rootPkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
const platformDir = join(root, 'npm', abi)
let platformPkg
try {
  platformPkg = JSON.parse(readFileSync(join(platformDir, 'package.json'), 'utf8'))
} catch {
  console.error(`pack-local: no platform package folder npm/${abi} (prebuilt targets: ${prebuiltTargets().join(', ')})`)
  process.exit(1)
}
if (platformPkg.version !== rootPkg.version) {
  console.error(`pack-local: npm/${abi}/package.json has version ${platformPkg.version}, the root ${rootPkg.version}`)
  process.exit(1)
}

// 1. The addon and the compiled TypeScript, from this checkout. `--no-build` packs what is built
// (the package test runs inside `npm test`, which has just built both, while other tests read dist/).
if (!process.argv.includes('--no-build')) {
  run(process.execPath, [join(root, 'scripts', 'build-native.mjs'), '--release'], {
    stdio: ['ignore', 'inherit', 'inherit'],
  })
  run(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json'])
}
const addon = `claude-jsonl.${abi}.node`
copyFileSync(join(root, addon), join(platformDir, `${addon}.tmp`))
renameSync(join(platformDir, `${addon}.tmp`), join(platformDir, addon))

rmSync(out, { recursive: true, force: true })
mkdirSync(out, { recursive: true })

// 2. The root package is staged with the files npm would pack, plus the optionalDependencies that
// make npm install the one prebuilt package matching the user's platform (the others are skipped
// by their os/cpu/libc fields). The checkout's own package.json does not list them, so `npm ci`
// here never asks the registry for packages that exist only once released.
const listed = JSON.parse(run(npm, ['pack', '--dry-run', '--json', '--ignore-scripts']))[0].files.map((f) => f.path)
const stage = join(out, 'stage-root')
for (const file of listed) {
  mkdirSync(dirname(join(stage, file)), { recursive: true })
  cpSync(join(root, file), join(stage, file))
}
const staged = { ...rootPkg, optionalDependencies: {} }
for (const target of prebuiltTargets()) staged.optionalDependencies[`${rootPkg.name}-${target}`] = rootPkg.version
writeFileSync(join(stage, 'package.json'), JSON.stringify(staged, null, 2) + '\n')

const packed = []
for (const dir of [stage, platformDir]) {
  const [info] = JSON.parse(run(npm, ['pack', '--json', '--ignore-scripts', '--pack-destination', out], { cwd: dir }))
  const path = join(out, info.filename)
  packed.push({ name: info.name, path, bytes: statSync(path).size, files: info.files.map((f) => f.path) })
}
rmSync(stage, { recursive: true, force: true })
for (const p of packed) console.log(JSON.stringify(p))
