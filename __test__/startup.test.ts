// The installed command (bin.cjs, which runs the CLI bundled into bundle.<command>.cjs or
// bundle.cjs): that the bundles are built from the current modules, that it answers as the
// unbundled CLI does, and a loose guard on its fixed cost, so that a heavy import on every
// command's path is caught.
import test from 'ava'
import { spawnSync } from 'node:child_process'
import { mkdirSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { COMMANDS } from '../src-ts/cli/registry.js'
import { median, timeProcess } from './helpers/process-time.js'
import { CLI, REPO, assistant, tempDir, userText, writeTree } from './helpers/transcripts.js'

const BIN = join(REPO, 'dist', 'src-ts', 'cli', 'bin.cjs')
const BUNDLE = join(REPO, 'dist', 'src-ts', 'cli', 'bundle.cjs')

function jsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? jsFiles(join(dir, e.name)) : e.name.endsWith('.js') ? [join(dir, e.name)] : [],
  )
}

/** Every bundle the installed command runs: the whole CLI's and each command's own. */
const bundles = () =>
  readdirSync(join(REPO, 'dist', 'src-ts', 'cli'))
    .filter((f) => /^bundle(\..+)?\.cjs$/.test(f))
    .map((f) => join(REPO, 'dist', 'src-ts', 'cli', f))

test('each command but mcp and statusline (which run from main.js) has a bundle of its own', (t) => {
  const names = new Set(bundles().map((f) => /bundle\.(.+)\.cjs$/.exec(f)?.[1]))
  for (const c of COMMANDS) t.is(names.has(c.name), c.name !== 'mcp' && c.name !== 'statusline', c.name)
  t.true(bundles().includes(BUNDLE))
})

test('the bundles are built from the compiled modules as they are now', (t) => {
  const bundled = Math.min(...bundles().map((f) => statSync(f).mtimeMs))
  const newer = jsFiles(join(REPO, 'dist', 'src-ts')).filter((f) => statSync(f).mtimeMs > bundled)
  t.deepEqual(newer, [], 'compiled after the bundle was made: run `node scripts/bundle-cli.mjs` (npm run build:ts)')
})

test('the installed command answers as the unbundled CLI does', (t) => {
  const root = writeTree({
    'projects/-home-u-app/0e6b3a52-1c1f-4d6e-8a57-2f1c9d3b7a10.jsonl': [
      userText('hello there'),
      assistant({ messageId: 'm1', output: 42 }),
    ],
  })
  const projects = join(root, 'projects')
  const env: NodeJS.ProcessEnv = { ...process.env, XDG_CACHE_HOME: join(root, 'cache'), NO_COLOR: '1' }
  delete env.CLAUDE_CONFIG_DIR
  const cases = [
    ['stats', '--projects', projects],
    ['stats', '--json', '--by', 'day', '--timezone', 'UTC', '--projects', projects],
    ['sessions', '--json', '--projects', projects],
    ['sessions', '--projects', projects, '--timezone', 'UTC'],
    ['show', '--projects', projects, '0e6b3a52'],
    ['timeline', '--projects', projects, '0e6b3a52'],
    ['find', 'hello', '--projects', projects],
    ['validate', join(projects, '-home-u-app', '0e6b3a52-1c1f-4d6e-8a57-2f1c9d3b7a10.jsonl')],
    ['show', '--projects', projects, 'ffffffff'],
    ['stats', '--no-such-flag'],
    ['--help'],
    ['--version'],
  ]
  for (const args of cases) {
    const run = (entry: string) => spawnSync(process.execPath, [entry, ...args], { encoding: 'utf8', env })
    const [bundled, plain] = [run(BIN), run(CLI)]
    const what = args.join(' ')
    t.is(bundled.status, plain.status, `exit code of ${what}`)
    // find's second run reads the index the first wrote: the line naming its age differs.
    const same = (s: string) => s.replace(/^Index .*$/m, 'Index')
    t.is(same(bundled.stdout), same(plain.stdout), `stdout of ${what}`)
    t.is(bundled.stderr, plain.stderr, `stderr of ${what}`)
  }
})

// Not a benchmark: a bound loose enough for a shared machine that still catches a heavy module
// loaded on every command's path (the CLI once paid about 100 ms for the price table, the ICU
// formatters and its module graph). CPU time, which the machine's other work disturbs less than
// wall time. On a quiet machine `node -e 0` takes about 50 ms of CPU; when the machine is so busy
// that it takes more than twice that, every figure inflates and the bound grows with it.
test('stats on an empty estate costs at most 50 ms of CPU over node -e 0 (median of 5 pairs)', (t) => {
  const empty = join(tempDir('cj-startup-'), 'projects')
  mkdirSync(empty)
  const env = { ...process.env }
  delete env.CLAUDE_CONFIG_DIR
  const node0 = [process.execPath, '-e', '0']
  const stats = [process.execPath, BIN, 'stats', '--projects', empty]
  const pairs: Array<[number, number]> = []
  timeProcess(stats, env) // warms the page cache and the code cache
  for (let i = 0; i < 5; i++) {
    const a = timeProcess(node0, env)
    const b = timeProcess(stats, env)
    t.is(b.status, 0)
    pairs.push([a.cpuMs, b.cpuMs])
  }
  const base = median(pairs.map(([a]) => a))
  const over = median(pairs.map(([a, b]) => b - a))
  const bound = 50 * Math.max(1, base / 100)
  t.log(
    `node -e 0: ${base.toFixed(0)} ms CPU; stats on an empty estate: +${over.toFixed(0)} ms (bound ${bound.toFixed(0)} ms)`,
  )
  t.true(over <= bound, `stats costs ${over.toFixed(0)} ms of CPU over node -e 0 (bound ${bound.toFixed(0)} ms)`)
})
