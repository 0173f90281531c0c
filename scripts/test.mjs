#!/usr/bin/env node
// `npm test`: build the addon (incremental), run the Rust tests, compile the TypeScript, run ava.
// Ends with exactly one plain line `N passed, M failed` (Rust + ava); exits non-zero if anything failed.
// A step that errors without reporting a test failure counts as one failure.
import { spawn } from 'node:child_process'
import { rmSync } from 'node:fs'
import { homedir } from 'node:os'
import { delimiter, dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const win = process.platform === 'win32'
// cargo: PATH first, then the rustup default location.
process.env.PATH = `${process.env.PATH ?? ''}${delimiter}${join(homedir(), '.cargo', 'bin')}`

// --full: the slow loops that `npm test` samples (e.g. every crash point of the in-place
// transaction) run whole.
if (process.argv.includes('--full')) process.env.CLAUDE_JSONL_TEST_FULL = '1'

let passed = 0
let failed = 0

function run(cmd, args, { capture = false } = {}) {
  console.error(`\n> ${[cmd, ...args].join(' ')}`)
  return new Promise((resolve) => {
    let out = ''
    const child = spawn(cmd, args, {
      cwd: root,
      stdio: ['inherit', capture ? 'pipe' : 'inherit', 'inherit'],
      shell: win && cmd.endsWith('.cmd'),
    })
    child.stdout?.setEncoding('utf8').on('data', (chunk) => {
      process.stdout.write(chunk)
      out += chunk
    })
    child.on('error', (err) => resolve({ code: 1, out, why: err.message }))
    child.on('close', (code, signal) =>
      resolve({ code: code ?? 1, out, why: signal ? `signal ${signal}` : `exit code ${code}` }),
    )
  })
}

function stepFailed(name, res) {
  console.error(`test: ${name} failed (${res.why})`)
  failed += 1
}

const bin = (name) => join(root, 'node_modules', '.bin', win ? `${name}.cmd` : name)

// 1. the addon (native.cjs loads it in the ava tests)
const build = await run(process.execPath, [join(root, 'scripts', 'build-native.mjs')])
if (build.code !== 0) stepFailed('build-native', build)

// 2. Rust tests
// The `fast` profile (no LTO, parallel codegen): the tests need optimised code, not the
// release build's fat LTO, which would compile the crate a second time for minutes.
const cargo = await run('cargo', ['test', '--workspace', '--profile', 'fast', '--no-fail-fast'], { capture: true })
let rustPassed = 0
let rustFailed = 0
for (const m of cargo.out.matchAll(/^test result: \w+\. (\d+) passed; (\d+) failed;/gm)) {
  rustPassed += Number(m[1])
  rustFailed += Number(m[2])
}
if (cargo.code !== 0 && rustFailed === 0) stepFailed('cargo test', cargo)
passed += rustPassed
failed += rustFailed

// 3. TypeScript (stale compiled tests from renamed/deleted sources must not run)
rmSync(join(root, 'dist', '__test__'), { recursive: true, force: true })
const tsc = await run(bin('tsc'), ['-p', 'tsconfig.json'])
if (tsc.code !== 0) stepFailed('tsc', tsc)
// The installed command runs the CLI bundled into one file (scripts/bundle-cli.mjs).
const bundle = await run(process.execPath, [join(root, 'scripts', 'bundle-cli.mjs')])
if (bundle.code !== 0) stepFailed('bundle-cli', bundle)

// 4. One style: the formatters' checks count as one test each (`npm run format` applies them).
let stylePassed = 0
for (const [name, cmd, args] of [
  [
    'prettier --check',
    process.execPath,
    [join(root, 'node_modules', 'prettier', 'bin', 'prettier.cjs'), '--check', '.'],
  ],
  ['cargo fmt --check', 'cargo', ['fmt', '--all', '--check']],
]) {
  const res = await run(cmd, args)
  if (res.code === 0) stylePassed += 1
  else stepFailed(name, res)
}
passed += stylePassed

// 5. ava (TAP). Its `# fail` includes todo tests, which are not failures here.
const ava = await run(bin('ava'), ['--tap'], { capture: true })
const count = (re) => (ava.out.match(re) ?? []).length
const summary = (key) => {
  const m = ava.out.match(new RegExp(`^# ${key} (\\d+)\\s*$`, 'm'))
  return m ? Number(m[1]) : null
}
const todo = count(/^not ok \d+\b.*# TODO\s*$/gm)
const skipped = summary('skip') ?? count(/^ok \d+\b.*# SKIP\s*$/gm)
let avaPassed = summary('pass')
let avaFailed = summary('fail')
if (avaPassed === null || avaFailed === null) {
  avaPassed = count(/^ok \d+\b(?!.*# SKIP\s*$).*$/gm)
  avaFailed = count(/^not ok \d+\b(?!.*# TODO\s*$).*$/gm)
} else {
  avaFailed = Math.max(0, avaFailed - todo)
}
if (ava.code !== 0 && avaFailed === 0) stepFailed('ava', ava)
passed += avaPassed
failed += avaFailed

console.log(
  `\ntest summary: cargo ${rustPassed} passed/${rustFailed} failed; style ${stylePassed} of 2; ` +
    `ava ${avaPassed} passed/${avaFailed} failed (${skipped} skipped, ${todo} todo)`,
)
console.log(`${passed} passed, ${failed} failed`)
process.exitCode = failed > 0 ? 1 : 0
