import test from 'ava'
import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { ClaudeJsonlError } from '../src-ts/errors.js'
import {
  choice,
  decimal,
  defineCommand,
  flag,
  parseCommandLine,
  renderHelp,
  runCommand,
  text,
  wholeNumber,
} from '../src-ts/cli/command.js'
import { COMMANDS } from '../src-ts/cli/registry.js'
import { CLI, REPO } from './helpers/transcripts.js'

const run = (...args: string[]) => spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8' })

test('every registered command loads a module declaring that command', async (t) => {
  t.is(new Set(COMMANDS.map((c) => c.name)).size, COMMANDS.length)
  for (const entry of COMMANDS) {
    const { command } = await entry.load()
    t.is(command.name, entry.name)
    t.is(typeof command.run, 'function')
  }
})

test('claude-jsonl --help lists every command of the registry with its summary', (t) => {
  const r = run('--help')
  t.is(r.status, 0)
  for (const c of COMMANDS) t.regex(r.stdout, new RegExp(`^  ${c.name} +${c.summary.replace(/[()]/g, '\\$&')}$`, 'm'))
})

test('claude-jsonl CMD --help prints that command: its usage and every option, not the global help', async (t) => {
  const global = run('--help').stdout
  for (const entry of COMMANDS) {
    const r = run(entry.name, '--help')
    t.is(r.status, 0, entry.name)
    t.true(r.stdout.startsWith(`Usage: claude-jsonl ${entry.name} `), r.stdout.split('\n')[0])
    t.not(r.stdout, global)
    t.notRegex(r.stdout, /^Commands:/m)
    const { command } = await entry.load()
    for (const key of Object.keys(command.options)) t.regex(r.stdout, new RegExp(`^  --${key}\\b`, 'm'), key)
    t.regex(r.stdout, /^ {2}-h, --help +print this help$/m)
    t.is(r.stdout, renderHelp(command) + '\n')
  }
})

test('claude-jsonl loads no command module before it knows which command runs', async (t) => {
  const g = (await import(join(REPO, 'scripts', 'import-graph.mjs'))) as {
    importGraph(root: string, o: { dynamic: boolean }): Map<string, string[]>
    reachable(graph: Map<string, string[]>, from: string): string[]
  }
  const loaded = g.reachable(g.importGraph(join(REPO, 'src-ts'), { dynamic: false }), 'cli/main.ts')
  t.deepEqual(
    loaded.filter((f) => f.endsWith('-command.ts')),
    [],
  )
  t.false(loaded.includes('native.ts'), 'the addon loads with the first command that needs it')
})

const probe = defineCommand({
  name: 'probe',
  args: 'FILE',
  oneArgument: { name: 'FILE' },
  options: {
    out: text('OUT', 'where', { required: true }),
    count: wholeNumber('N', 'how many'),
    top: wholeNumber('N', 'at least one', { min: 1 }),
    ratio: decimal('R', 'a share', 'a number in (0, 1]'),
    mode: choice(['fast', 'slow'], 'how'),
    quiet: flag('say less', { short: 'q' }),
    loud: flag('say more'),
  },
  conflicts: [['quiet', 'loud']],
  async run({ values, print }) {
    print(JSON.stringify(values))
    return 0
  },
})

function usage(t: import('ava').ExecutionContext, args: string[], message: string) {
  const e = t.throws(() => parseCommandLine(probe, args), { instanceOf: ClaudeJsonlError })
  t.is(e!.exitCode, 2, args.join(' '))
  t.is(e!.message, message)
}

test('options are parsed and validated once, from the declaration', (t) => {
  const ok = parseCommandLine(probe, ['f', '--out', 'o', '--count', '0', '--top', '3', '--ratio', '.25', '-q'])
  t.deepEqual(ok.values as unknown, { out: 'o', count: 0, top: 3, ratio: 0.25, quiet: true })
  t.deepEqual(ok.positionals, ['f'])
  t.is(parseCommandLine(probe, ['--mode', 'slow', '--out', 'o', 'f']).values.mode, 'slow')
  usage(t, ['f'], 'probe: --out OUT is required (see claude-jsonl probe --help)')
  usage(t, ['f', '--out', 'o', '--count', '-1'], "probe: --count takes a whole number, not '-1'")
  usage(t, ['f', '--out', 'o', '--count', '1.5'], "probe: --count takes a whole number, not '1.5'")
  usage(t, ['f', '--out', 'o', '--top', '0'], "probe: --top takes a positive whole number, not '0'")
  usage(t, ['f', '--out', 'o', '--ratio', '1e3'], "probe: --ratio takes a number in (0, 1], not '1e3'")
  usage(t, ['f', '--out', 'o', '--mode', 'warp'], "probe: unknown --mode 'warp' (fast or slow)")
  usage(
    t,
    ['f', '--out', 'o', '-q', '--loud'],
    'probe: --quiet and --loud exclude each other (see claude-jsonl probe --help)',
  )
  usage(t, ['--out', 'o'], 'probe takes one FILE, got 0 (see claude-jsonl probe --help)')
  t.regex(
    t.throws(() => parseCommandLine(probe, ['f', '--out', 'o', '--nope']))!.message,
    /^probe: unknown option --nope \(see claude-jsonl probe --help\)$/,
  )
})

test('one argument, or none with the option that replaces it', (t) => {
  const batch = defineCommand({
    name: 'batch',
    args: 'SESSION | --all',
    oneArgument: { name: 'SESSION', unless: 'all' },
    options: { all: flag('every session') },
    run: async () => 0,
  })
  t.deepEqual(parseCommandLine(batch, ['s1']).positionals, ['s1'])
  t.deepEqual(parseCommandLine(batch, ['--all']).positionals, [])
  const both = t.throws(() => parseCommandLine(batch, ['--all', 's1']), { instanceOf: ClaudeJsonlError })
  t.is(both!.message, 'batch: --all takes no SESSION, got 1 (see claude-jsonl batch --help)')
  t.is(
    t.throws(() => parseCommandLine(batch, []))!.message,
    'batch takes one SESSION, got 0 (see claude-jsonl batch --help)',
  )
})

test('every option of every command is documented on its page in docs/commands', async (t) => {
  for (const entry of COMMANDS) {
    const page = readFileSync(join(REPO, 'docs', 'commands', `${entry.name}.md`), 'utf8')
    const { command } = await entry.load()
    for (const key of Object.keys(command.options)) t.true(page.includes(`--${key}`), `${entry.name} --${key}`)
  }
})

test('--help is answered before any value is checked, and names every option once', async (t) => {
  let out = ''
  t.is(await runCommand(probe, ['--help'], (s) => void (out += s)), 0)
  t.true(out.startsWith('Usage: claude-jsonl probe FILE --out OUT [options]\n'))
  t.regex(out, /^ {2}-q, --quiet +say less$/m)
  t.regex(out, /^ {2}--mode fast\|slow +how$/m)
  t.is(out.match(/--count/g)!.length, 1)
})
