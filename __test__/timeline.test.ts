import test from 'ava'
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { timeline } from '../src-ts/read/timeline.js'
import { renderTimeline } from '../src-ts/cli/timeline-render.js'
import { stats } from '../src-ts/read/stats.js'
import { REAL, REPO, writeTree } from './helpers/transcripts.js'

const realTest = existsSync(REAL) ? test : test.skip

const at = (s: number) => new Date(Date.parse('2026-03-01T10:00:00.000Z') + s * 1000).toISOString()
const rec = (o: Record<string, unknown>) => JSON.stringify({ isSidechain: false, sessionId: 'sess', ...o })
const human = (uuid: string, parent: string | null, s: number, text: string) =>
  rec({ type: 'user', uuid, parentUuid: parent, timestamp: at(s), message: { role: 'user', content: text } })
const asst = (
  uuid: string,
  parent: string,
  s: number,
  msg: string,
  req: string,
  output: number,
  model = 'claude-opus-4-7',
  content: unknown[] = [{ type: 'text', text: 'ok' }],
) =>
  rec({
    type: 'assistant',
    uuid,
    parentUuid: parent,
    timestamp: at(s),
    requestId: req,
    message: {
      id: msg,
      role: 'assistant',
      model,
      content,
      usage: {
        input_tokens: 5,
        cache_creation_input_tokens: 200,
        cache_read_input_tokens: 3000,
        output_tokens: output,
      },
    },
  })

function session(): string {
  const root = writeTree({
    'p/-x/22222222-0000-4000-8000-000000000000.jsonl': [
      human('U1', null, 0, 'first prompt\nsecond line'),
      asst('A1', 'U1', 4, 'm1', 'r1', 5, 'claude-opus-4-7', [
        { type: 'tool_use', id: 't1', name: 'Bash', input: { command: 'ls' } },
      ]),
      asst('A1b', 'A1', 5, 'm1', 'r1', 120, 'claude-opus-4-7', [{ type: 'text', text: 'streamed on' }]),
      rec({
        type: 'user',
        uuid: 'R1',
        parentUuid: 'A1',
        timestamp: at(30),
        message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'x' }] },
      }),
      asst('A2', 'R1', 90, 'm2', 'r2', 7),
      rec({
        type: 'system',
        subtype: 'turn_duration',
        uuid: 'D1',
        parentUuid: 'A2',
        timestamp: at(91),
        durationMs: 91000,
      }),
      human('U2', 'D1', 200, 'another'),
      asst('A3', 'U2', 203, 'm3', 'r3', 9, 'claude-sonnet-4-5-20250929'),
    ],
  })
  return join(root, 'p/-x/22222222-0000-4000-8000-000000000000.jsonl')
}

test('turns with durations to their last record, models, and tokens per request deduplicated', async (t) => {
  const tl = await timeline(session())
  t.is(tl.turns.length, 2)
  const [a, b] = tl.turns
  t.is(a.prompt, 'first prompt')
  t.is(a.startedAt, at(0))
  t.is(a.endedAt, at(91), 'the turn ends at its last record (turn_duration)')
  t.is(a.durationMs, 91_000)
  t.deepEqual(a.models, ['claude-opus-4-7'])
  t.is(a.toolCalls, 1)
  // r1 streamed as two entries: one request, the row with the largest output.
  t.deepEqual(
    a.requests.map((r) => [r.key, r.outputTokens]),
    [
      ['r1', 120],
      ['r2', 7],
    ],
  )
  t.is(a.tokens.outputTokens, 127)
  t.is(b.durationMs, 3000)
  t.deepEqual(b.models, ['claude-sonnet-4-5-20250929'])
  t.deepEqual(tl.totals, {
    requests: 3,
    durationMs: 94_000,
    inputTokens: 15,
    cacheCreationInputTokens: 600,
    cacheReadInputTokens: 9000,
    outputTokens: 136,
  })
  const text = renderTimeline(tl, { requests: true })
  t.regex(text, /\n {4}1 {2}2026-03-01 10:00:00Z +1m 31s {2}claude-opus-4-7 +2 +1 +10 +400 +6k +127 {2}first prompt\n/)
  t.regex(text, /\n +2026-03-01 10:00:04Z .* r1\n/)
  t.regex(text, /\nTotal +1m 34s +3 +1 +15 +600 +9k +136\n?$/)
})

test('runTimeline: --json, --last, bad flags', (t) => {
  const mod = join(REPO, 'dist', 'src-ts', 'cli', 'timeline-command.js')
  const script = `import(${JSON.stringify(mod)}).then(m => m.runTimeline(process.argv.slice(1))).then(c => { process.exitCode = c }, e => { process.stderr.write('claude-jsonl: ' + e.message + '\\n'); process.exitCode = e.exitCode ?? 4 })`
  const run = (args: string[]) =>
    spawnSync(process.execPath, ['-e', script, ...args], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH, HOME: '/nonexistent-home' },
    })
  const path = session()
  const j = run([path, '--json', '--last', '1'])
  t.is(j.status, 0, j.stderr)
  const parsed = JSON.parse(j.stdout)
  t.is(parsed.turns.length, 1)
  t.is(parsed.turns[0].prompt, 'another')
  t.is(parsed.omittedTurns, 1)
  const byPrefix = run(['2222', '--projects', join(path, '..', '..')])
  t.is(byPrefix.status, 0, byPrefix.stderr)
  t.regex(byPrefix.stdout, /Turn +Started \(UTC\)/)
  t.is(run([path, '--by', 'day']).status, 2)
  t.is(run([path, 'another-session']).status, 2)
})

realTest('real transcripts: timeline requests match stats on linear sessions', async (t) => {
  for (const name of ['real-05.jsonl', 'real-07.jsonl', 'real-09.jsonl']) {
    const path = join(REAL, name)
    const tl = await timeline(path)
    const s = await stats({ paths: [path] })
    t.is(tl.totals.requests, s.totals.requests, name)
    t.is(tl.totals.outputTokens, s.totals.outputTokens, name)
    t.true(
      tl.turns.every((x) => x.durationMs === undefined || x.durationMs >= 0),
      name,
    )
  }
})
