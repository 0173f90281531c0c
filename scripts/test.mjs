#!/usr/bin/env node
// `npm test`: build the addon (incremental), run the Rust tests, compile the TypeScript, run ava.
// Ends with the slowest ten test files, then exactly one plain line `N passed, M failed` (Rust +
// ava); exits non-zero if anything failed. A step that errors without reporting a test failure
// counts as one failure.
// `--quick` (`npm run test:quick`, the edit-test loop): no network, no Claude Code client, no
// browser, no Rust tests; the addon is rebuilt (in the incremental `fast` profile) only when a
// Rust source is newer than it.
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { homedir, tmpdir } from 'node:os'
import { delimiter, dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const win = process.platform === 'win32'
// cargo: PATH first, then the rustup default location.
process.env.PATH = `${process.env.PATH ?? ''}${delimiter}${join(homedir(), '.cargo', 'bin')}`

// --full: the slow loops that `npm test` samples (e.g. every crash point of the in-place
// transaction) run whole.
if (process.argv.includes('--full')) process.env.CLAUDE_JSONL_TEST_FULL = '1'
const quick = process.argv.includes('--quick')
// Read by __test__/helpers/quick.ts: what would start the client, a browser, Spark or an S3 server
// is skipped (and said so) or refused.
if (quick) process.env.CLAUDE_JSONL_TEST_QUICK = '1'
// The test files `--quick` leaves out (the client, Chromium, npm installs, Spark, S3); files that
// need them for a few tests only skip those tests themselves (CLAUDE_JSONL_TEST_QUICK).
const { NOT_QUICK } = await import('./test-tiers.mjs')

let passed = 0
let failed = 0

// The whole run ends by this deadline whatever a step does (a test process that never exits, a
// hung build): the step still running is stopped with everything it started and counted as a
// failure, so the summary line is always printed. CI allows 90 minutes for install and tests.
const limitMinutes = Number(process.env.CLAUDE_JSONL_TEST_LIMIT_MINUTES) || 60
const deadline = Date.now() + limitMinutes * 60_000
// Every step still running (the Rust tests, the TypeScript build and the style checks run side by
// side), so a signal or the deadline stops them all.
const running = new Set()
const stopGroup = (child) => {
  try {
    if (win) child.kill('SIGKILL')
    else process.kill(-child.pid, 'SIGKILL')
  } catch {
    // already gone
  }
}
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    for (const child of running) stopGroup(child)
    process.exit(130)
  })
}

/**
 * Runs one step. `capture` keeps its stdout (and still prints it); `buffered` holds all its output
 * and prints it in one piece when it ends, for a step that runs beside others.
 */
function run(cmd, args, { capture = false, buffered = false, env = {} } = {}) {
  const header = `\n> ${[cmd, ...args].join(' ')}`
  if (!buffered) console.error(header)
  return new Promise((resolve) => {
    let out = ''
    let held = ''
    let timedOut = false
    // A process group of its own, so a step past the deadline is stopped with its children.
    const child = spawn(cmd, args, {
      cwd: root,
      env: { ...process.env, ...env },
      stdio: ['inherit', capture || buffered ? 'pipe' : 'inherit', buffered ? 'pipe' : 'inherit'],
      shell: win && cmd.endsWith('.cmd'),
      detached: !win,
    })
    running.add(child)
    const timer = setTimeout(
      () => {
        timedOut = true
        console.error(`test: stopping \`${cmd}\`: the run is past its ${limitMinutes}-minute limit`)
        stopGroup(child)
      },
      Math.max(0, deadline - Date.now()),
    )
    child.stdout?.setEncoding('utf8').on('data', (chunk) => {
      if (buffered) held += chunk
      else process.stdout.write(chunk)
      if (capture) out += chunk
    })
    child.stderr?.setEncoding('utf8').on('data', (chunk) => (held += chunk))
    const done = (res) => {
      clearTimeout(timer)
      running.delete(child)
      if (buffered) process.stderr.write(`${header}\n${held}`)
      resolve({ ...res, timedOut, why: timedOut ? `stopped past the ${limitMinutes}-minute limit` : res.why })
    }
    child.on('error', (err) => done({ code: 1, out, why: err.message }))
    child.on('close', (code, signal) =>
      done({ code: code ?? 1, out, why: signal ? `signal ${signal}` : `exit code ${code}` }),
    )
  })
}

function stepFailed(name, res) {
  console.error(`test: ${name} failed (${res.why})`)
  failed += 1
}

const bin = (name) => join(root, 'node_modules', '.bin', win ? `${name}.cmd` : name)

/** The newest modification time under `dir` (0 when it does not exist). */
function newest(dir) {
  if (!existsSync(dir)) return 0
  let t = 0
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (e.isFile()) t = Math.max(t, statSync(join(e.parentPath, e.name)).mtimeMs)
  }
  return t
}

// 1. the addon (native.cjs loads it in the ava tests)
const { platformArchABI } = (await import('node:module')).createRequire(import.meta.url)(join(root, 'platform.cjs'))
const addon = join(root, `claude-jsonl.${platformArchABI()}.node`)
const rustSources = Math.max(...['crate/core/src', 'crate/node/src'].map((d) => newest(join(root, d))))
if (!quick || !existsSync(addon) || statSync(addon).mtimeMs < rustSources) {
  // In a checkout the addon is built in the `fast` profile, as the Rust tests below are.
  const build = await run(process.execPath, [join(root, 'scripts', 'build-native.mjs')])
  if (build.code !== 0) stepFailed('build-native', build)
}

// 2–5 run side by side: the Rust tests compile one crate (rustc keeps about one core busy), the
// formatters' checks are single-threaded, and the TypeScript build is short; ava (5) needs the
// TypeScript build only. Each step's output but ava's is printed in one piece when it ends.

// 2. Rust tests (not with --quick)
// The `fast` profile (no LTO, parallel codegen): the tests need optimised code, not the
// release build's fat LTO, which would compile the crate a second time for minutes. It is the
// profile a checkout's addon is built in (scripts/build-native.mjs), so every dependency compiled
// for the addon is reused here and only the core's test binary is built.
async function rustTests() {
  if (quick) return { passed: 0, failed: 0 }
  const cargo = await run('cargo', ['test', '--workspace', '--profile', 'fast', '--no-fail-fast'], {
    capture: true,
    buffered: true,
  })
  let rustPassed = 0
  let rustFailed = 0
  for (const m of cargo.out.matchAll(/^test result: \w+\. (\d+) passed; (\d+) failed;/gm)) {
    rustPassed += Number(m[1])
    rustFailed += Number(m[2])
  }
  if (cargo.timedOut || (cargo.code !== 0 && rustFailed === 0)) stepFailed('cargo test', cargo)
  return { passed: rustPassed, failed: rustFailed }
}

// 3. TypeScript (stale compiled tests from renamed/deleted sources must not run)
async function typescript() {
  rmSync(join(root, 'dist', '__test__'), { recursive: true, force: true })
  const tsc = await run(bin('tsc'), ['-p', 'tsconfig.json'], { buffered: true })
  if (tsc.code !== 0) stepFailed('tsc', tsc)
  // The installed command runs the CLI bundled into one file (scripts/bundle-cli.mjs).
  const bundle = await run(process.execPath, [join(root, 'scripts', 'bundle-cli.mjs')], { buffered: true })
  if (bundle.code !== 0) stepFailed('bundle-cli', bundle)
}

// 4. One style: the formatters' checks count as one test each (`npm run format` applies them).
async function styleChecks() {
  let ok = 0
  for (const [name, cmd, args] of [
    [
      'prettier --check',
      process.execPath,
      // Its cache (node_modules/.cache/prettier, keyed by each file's content) makes a re-run check
      // only the files changed since: about 25 s of CPU for the whole tree otherwise.
      [
        join(root, 'node_modules', 'prettier', 'bin', 'prettier.cjs'),
        '--check',
        '--cache',
        '--cache-strategy',
        'content',
        '.',
      ],
    ],
    ['cargo fmt --check', 'cargo', ['fmt', '--all', '--check']],
  ]) {
    const res = await run(cmd, args, { buffered: true })
    if (res.code === 0) ok += 1
    else stepFailed(name, res)
  }
  return ok
}

// ava needs the TypeScript build only: it starts as soon as that ends, and the Rust tests and the
// style checks go on beside it (the core's test build alone takes a minute or more from a fresh
// clone, and would otherwise hold every test file back).
const rustRun = rustTests()
const styleRun = styleChecks()
await typescript()

// 5. ava (TAP). Its `# fail` includes todo tests, which are not failures here. Each test file
// records how long it ran (__test__/helpers/file-timing.ts) for the slowest-ten list.
const timingDir = mkdtempSync(join(tmpdir(), 'claude-jsonl-test-'))
const timings = join(timingDir, 'files.jsonl')
const avaFiles = quick
  ? readdirSync(join(root, 'dist', '__test__'))
      .filter((f) => f.endsWith('.test.js') && !NOT_QUICK.includes(f.slice(0, -'.test.js'.length)))
      .map((f) => join('dist', '__test__', f))
  : []
const ava = await run(bin('ava'), ['--tap', ...avaFiles], {
  capture: true,
  env: { CLAUDE_JSONL_TEST_TIMINGS: timings },
})
const [rust, stylePassed] = await Promise.all([rustRun, styleRun])
const rustPassed = rust.passed
const rustFailed = rust.failed
passed += rustPassed + stylePassed
failed += rustFailed

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
if (ava.timedOut || (ava.code !== 0 && avaFailed === 0)) stepFailed('ava', ava)
passed += avaPassed
failed += avaFailed

// The slowest ten test files, so a slow one is seen where it is added.
const perFile = existsSync(timings)
  ? readFileSync(timings, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line))
  : []
rmSync(timingDir, { recursive: true, force: true })
perFile.sort((a, b) => b.ms - a.ms)
if (perFile.length) {
  const cpu = perFile.reduce((sum, f) => sum + (f.cpuMs ?? 0), 0)
  console.log(
    `\nslowest test files (of ${perFile.length}; seconds from load to exit, and CPU seconds with the ` +
      `processes each started; ${quick ? 'quick' : 'full'} run, ${(cpu / 1000).toFixed(0)} CPU s in all):`,
  )
  for (const { file, ms, cpuMs } of perFile.slice(0, 10)) {
    const cpuText = cpuMs === undefined ? '' : `${(cpuMs / 1000).toFixed(1).padStart(7)} cpu`
    console.log(`${(ms / 1000).toFixed(1).padStart(7)} s ${cpuText}  ${file}`)
  }
}

console.log(
  `\ntest summary: cargo ${rustPassed} passed/${rustFailed} failed; style ${stylePassed} of 2; ` +
    `ava ${avaPassed} passed/${avaFailed} failed (${skipped} skipped, ${todo} todo)`,
)
console.log(`${passed} passed, ${failed} failed`)
process.exitCode = failed > 0 ? 1 : 0
