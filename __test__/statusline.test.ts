// `claude-jsonl statusline` as Claude Code runs it (the installed command, JSON on stdin): the
// cost `stats` counts, one count however many calls arrive together, and no process left behind.
import test from 'ava'
import { spawn, spawnSync } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { assistant, CLI, REPO, tempDir, userText, writeTree } from './helpers/transcripts.js'
import { formatUsd } from '../src-ts/terminal/format.js'

const BIN = join(REPO, 'dist', 'src-ts', 'cli', 'bin.cjs')
const S1 = 'b1b1b1b1-0000-4000-8000-000000000001'

function estate(): { projects: string; transcript: string; env: NodeJS.ProcessEnv } {
  const now = new Date().toISOString()
  const projects = writeTree({
    [`-work-a/${S1}.jsonl`]: [
      userText('hello'),
      assistant({
        messageId: 'm1',
        requestId: 'r1',
        output: 400,
        input: 1200,
        cacheRead: 50_000,
        timestamp: now,
        sessionId: S1,
      }),
      assistant({
        messageId: 'm2',
        requestId: 'r2',
        output: 900,
        input: 30,
        cacheRead: 61_000,
        timestamp: now,
        sessionId: S1,
      }),
    ],
    [`-work-a/${S1}/subagents/agent-x.jsonl`]: [
      assistant({ messageId: 'm3', requestId: 'r3', output: 100, timestamp: now, sessionId: S1, sidechain: true }),
    ],
    '-work-b/b2b2b2b2-0000-4000-8000-000000000002.jsonl': [
      assistant({
        messageId: 'm4',
        requestId: 'r4',
        output: 5000,
        input: 10,
        timestamp: now,
        model: 'claude-opus-4-1-20250805',
      }),
      assistant({ messageId: 'm5', requestId: 'r5', output: 5000, timestamp: '2025-01-02T10:00:00.000Z' }),
    ],
  })
  const env = { ...process.env, XDG_CACHE_HOME: tempDir('cj-statusline-cache-'), CLAUDE_CONFIG_DIR: tempDir() }
  return { projects, transcript: join(projects, '-work-a', `${S1}.jsonl`), env }
}

const input = (transcript: string) =>
  JSON.stringify({
    session_id: S1,
    transcript_path: transcript,
    model: { id: 'claude-sonnet-4-5-20250929', display_name: 'Sonnet 4.5' },
    context_window: { context_window_size: 200_000 },
  })

const statsCost = (args: string[], env: NodeJS.ProcessEnv) => {
  const r = spawnSync(process.execPath, [CLI, 'stats', '--json', ...args], { encoding: 'utf8', env })
  return formatUsd(JSON.parse(r.stdout).totals.costUsd)
}

const entry = (env: NodeJS.ProcessEnv) => {
  const dir = join(env.XDG_CACHE_HOME!, 'claude-jsonl', 'statusline')
  const f = readdirSync(dir).find((n) => n.startsWith(S1))!
  return JSON.parse(readFileSync(join(dir, f), 'utf8'))
}

test('the line gives the session cost and today’s estate cost as stats counts them, and the context of the last request', (t) => {
  const { projects, transcript, env } = estate()
  const run = () =>
    spawnSync(process.execPath, [BIN, 'statusline', '--projects', projects], {
      input: input(transcript),
      encoding: 'utf8',
      env,
    })
  const first = run()
  t.is(first.status, 0, first.stderr)
  const session = statsCost([transcript, join(projects, '-work-a', S1)], env)
  const day = new Date()
  const today = `${day.getFullYear()}-${String(day.getMonth() + 1).padStart(2, '0')}-${String(day.getDate()).padStart(2, '0')}`
  const estateToday = statsCost(['--projects', projects, '--since', today, '--until', today], env)
  t.true(first.stdout.includes(`session ${session} `), first.stdout)
  t.true(first.stdout.includes(`today ${estateToday}`), first.stdout)
  t.regex(first.stdout, /^Sonnet 4\.5 · session .* · ctx 61k 31%\n$/)
  // Unchanged: the cached line, without a second count.
  t.is(run().stdout, first.stdout)
  t.is(entry(env).scans, 1)
})

test('20 calls within a second run one count and leave no process behind', async (t) => {
  const { projects, transcript, env } = estate()
  const children = []
  for (let i = 0; i < 20; i++) {
    const child = spawn(process.execPath, [BIN, 'statusline', '--projects', projects], {
      env,
      stdio: ['pipe', 'pipe', 'pipe'],
    })
    let out = ''
    child.stdout.setEncoding('utf8').on('data', (c) => (out += c))
    child.stdin.end(input(transcript))
    children.push(
      new Promise<{ code: number | null; out: string }>((res) => child.on('close', (code) => res({ code, out }))),
    )
    await new Promise((r) => setTimeout(r, 50))
  }
  const results = await Promise.all(children)
  t.true(
    results.every((r) => r.code === 0 && r.out.startsWith('Sonnet 4.5')),
    JSON.stringify(results.slice(0, 3)),
  )
  t.is(entry(env).scans, 1)
  const ps = spawnSync('ps', ['-eo', 'args'], { encoding: 'utf8' }).stdout
  t.false(
    ps.split('\n').some((l) => l.includes(projects)),
    'a statusline process is still running',
  )
})
