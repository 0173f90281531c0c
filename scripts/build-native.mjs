#!/usr/bin/env node
// Build the claude-jsonl Node addon from source and place it where native.cjs looks for it:
//   <root>/claude-jsonl.<platformArchABI>.node
// Usage: node scripts/build-native.mjs [--if-missing] [--dts] [--release]
//   --if-missing  (the npm `install` script) do nothing when native.cjs already loads an addon,
//                 e.g. from an installed prebuilt claude-jsonl-<platformArchABI> package.
//   --dts         (`npm run build:dts`) also write native.d.cts, generated from the Rust source
//                 by the napi CLI (a dev dependency).
//   --release     the `release` profile whatever the default below (`npm run build`, pack:local).
// The cargo profile: CLAUDE_JSONL_CARGO_PROFILE when set; else `release` (one codegen unit, fat LTO:
// the fastest code) for an installed package, and `fast` (no LTO, incremental) in a development
// checkout, the one holding the test suite (`__test__/`, never packed): there `npm test`'s Rust
// tests build in the same profile and reuse every compiled dependency, and `npm run build` (which
// `npm run bench` runs first) asks for `release` itself.
import { spawnSync } from 'node:child_process'
import { copyFileSync, existsSync, mkdirSync, renameSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { homedir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const checkout = existsSync(join(root, '__test__'))
const profile = process.argv.includes('--release')
  ? 'release'
  : process.env.CLAUDE_JSONL_CARGO_PROFILE || (checkout ? 'fast' : 'release')

const { platformArchABI } = createRequire(import.meta.url)(join(root, 'platform.cjs'))
const abi = platformArchABI()

if (process.argv.includes('--if-missing')) {
  try {
    createRequire(import.meta.url)(join(root, 'native.cjs'))
    console.log(`build-native: a claude-jsonl native addon for ${abi} already loads; not building`)
    process.exit(0)
  } catch (err) {
    // Nothing usable installed: say why, then build from source below.
    console.error(`build-native: ${String(err.message).split('\n')[0]}`)
    console.error(
      `build-native: building the addon for ${abi} from source (cargo build --profile ${profile}; a few minutes)`,
    )
  }
}

function findCargo() {
  const exe = process.platform === 'win32' ? 'cargo.exe' : 'cargo'
  for (const cmd of ['cargo', join(homedir(), '.cargo', 'bin', exe)]) {
    if (!spawnSync(cmd, ['--version'], { stdio: 'ignore' }).error) return cmd
  }
  return null
}

const cargo = findCargo()
if (!cargo) {
  console.error(
    `build-native: cannot build claude-jsonl from source: cargo not found (on PATH or in ~/.cargo/bin); ` +
      `a current Rust toolchain (https://rustup.rs) and a C compiler are needed when no prebuilt ` +
      `claude-jsonl-${abi} package loads; install them and run \`npm rebuild claude-jsonl\`.`,
  )
  process.exit(1)
}

const { typeDefDir, haveTypeDefs, renderNativeDts, dtsPath } = await import('./native-dts.mjs')
const wantDts = process.argv.includes('--dts')

// Every build names the same type-def folder (a change of it would recompile the crate), so the
// type definitions there always belong to the addon last built.
function cargoBuild() {
  mkdirSync(typeDefDir, { recursive: true })
  // JSON messages on stdout tell us exactly which file cargo produced (whatever the target dir);
  // diagnostics and progress still reach the terminal on stderr.
  const build = spawnSync(
    cargo,
    ['build', '--profile', profile, '-p', 'claude-jsonl', '--message-format=json-render-diagnostics'],
    {
      cwd: root,
      stdio: ['inherit', 'pipe', 'inherit'],
      encoding: 'utf8',
      maxBuffer: 256 * 1024 * 1024,
      env: { ...process.env, NAPI_TYPE_DEF_TMP_FOLDER: typeDefDir },
    },
  )
  if (build.error || build.status !== 0) {
    console.error(
      `build-native: cargo build failed (${build.error ? build.error.message : `exit code ${build.status}`})`,
    )
    process.exit(build.status || 1)
  }
  return build
}

let build = cargoBuild()
if (wantDts && !haveTypeDefs()) {
  // the crate was up to date but its type definitions are gone: compile the binding again
  const now = new Date()
  utimesSync(join(root, 'crate', 'node', 'src', 'lib.rs'), now, now)
  build = cargoBuild()
}

let built
for (const line of build.stdout.split('\n')) {
  if (!line.startsWith('{')) continue
  const msg = JSON.parse(line)
  if (msg.reason === 'compiler-artifact' && msg.target?.name === 'claude_jsonl' && msg.target.kind.includes('cdylib')) {
    built = msg.filenames.find((f) => /\.(so|dylib|dll)$/.test(f))
  }
}
if (!built) {
  console.error('build-native: cargo succeeded but reported no cdylib for claude_jsonl')
  process.exit(1)
}

// Copy next to native.cjs via temp file + rename, so a running process never maps a half-written file.
const dest = join(root, `claude-jsonl.${abi}.node`)
const tmp = `${dest}.${process.pid}.tmp`
try {
  copyFileSync(built, tmp)
  renameSync(tmp, dest)
} catch (err) {
  rmSync(tmp, { force: true })
  console.error(`build-native: cannot install ${dest}: ${err.message}`)
  process.exit(1)
}
console.log(`build-native: ${dest}`)

if (wantDts) {
  const text = await renderNativeDts()
  const tmp = `${dtsPath}.${process.pid}.tmp`
  writeFileSync(tmp, text)
  renameSync(tmp, dtsPath)
  console.log(`build-native: ${dtsPath}`)
}
