// `claude-jsonl hook EVENT` as Claude Code runs it: the hook JSON on stdin, exit 0 whatever the
// input, failures in the log beside the archive, the archive written by the detached worker.
import test from 'ava'
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, utimesSync } from 'node:fs'
import { join } from 'node:path'
import { CLI, REAL, REPO, tempDir, writeTree } from './helpers/transcripts.js'

const BIN = join(REPO, 'dist', 'src-ts', 'cli', 'bin.cjs')
const S1 = 'c1c1c1c1-0000-4000-8000-000000000001'
const S2 = 'c2c2c2c2-0000-4000-8000-000000000002'

function setup() {
  const config = tempDir('cj-hooks-config-')
  const projects = join(config, 'projects')
  writeTree(
    {
      [`-work-a/${S1}.jsonl`]: readFileSync(join(REAL, 'real-01.jsonl'), 'utf8'),
      [`-work-a/${S1}/subagents/agent-a1.jsonl`]: readFileSync(join(REAL, 'real-02.jsonl'), 'utf8'),
      [`-work-b/${S2}.jsonl`]: readFileSync(join(REAL, 'real-03.jsonl'), 'utf8'),
    },
    projects,
  )
  const archive = join(tempDir('cj-hooks-archive-'), 'archive')
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    CLAUDE_CONFIG_DIR: config,
    XDG_STATE_HOME: tempDir(),
    XDG_CACHE_HOME: tempDir(),
  }
  delete env.CLAUDE_JSONL_ARCHIVE
  return { config, projects, archive, env }
}

const hook = (event: string, stdin: string, env: NodeJS.ProcessEnv, ...args: string[]) =>
  spawnSync(process.execPath, [BIN, 'hook', event, ...args], { input: stdin, encoding: 'utf8', env })

const hookJson = (session: string, transcript: string) =>
  JSON.stringify({
    session_id: session,
    transcript_path: transcript,
    cwd: '/work/a',
    hook_event_name: 'SessionEnd',
    reason: 'other',
  })

async function waitFor(check: () => boolean, ms = 20_000): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 200)))
    if (check()) return true
  return check()
}

test('bad input, a missing transcript and archiving off: exit 0, nothing on stdout, one line in the log', (t) => {
  const { archive, env } = setup()
  const log = `${archive}.hook.log`
  for (const [stdin, expected] of [
    ['not json', /session-end: hook input is not JSON/],
    ['{"session_id":"x"}', /session-end: hook input for session x has no transcript_path/],
    [hookJson(S1, '/nowhere/x.jsonl'), new RegExp(`session-end ${S1}: no transcript at /nowhere/x.jsonl`)],
  ] as const) {
    const r = hook('session-end', stdin, env, '--to', archive)
    t.is(r.status, 0)
    t.is(r.stdout, '')
    t.regex(readFileSync(log, 'utf8').trim().split('\n').at(-1)!, expected)
  }
  const off = hook('pre-compact', hookJson(S1, '/x.jsonl'), { ...env, CLAUDE_JSONL_ARCHIVE: 'off' })
  t.is(off.status, 0)
  t.regex(readFileSync(join(env.XDG_STATE_HOME!, 'claude-jsonl', 'hook.log'), 'utf8'), /archiving is switched off/)
  t.false(existsSync(archive))
})

test('session-end returns before the archive is written; two sessions ending together are both archived byte-identical by one worker', async (t) => {
  const { projects, archive, env } = setup()
  const t1 = join(projects, '-work-a', `${S1}.jsonl`)
  const t2 = join(projects, '-work-b', `${S2}.jsonl`)
  const a = hook('session-end', hookJson(S1, t1), env, '--to', archive)
  const b = hook('session-end', hookJson(S2, t2), { ...env, CLAUDE_JSONL_ARCHIVE: archive })
  t.is(a.status, 0)
  t.is(b.status, 0)
  const log = `${archive}.hook.log`
  const done = () =>
    existsSync(log) &&
    [S1, S2].every((s) => readFileSync(log, 'utf8').includes(s)) &&
    !existsSync(join(`${archive}.hook`, 'worker.lock'))
  t.true(await waitFor(done), existsSync(log) ? readFileSync(log, 'utf8') : 'no log')
  const out = tempDir()
  const r = spawnSync(process.execPath, [CLI, 'restore', archive, '--all', '--to', out], { encoding: 'utf8', env })
  t.is(r.status, 0, r.stderr)
  t.deepEqual(readFileSync(join(out, '-work-a', `${S1}.jsonl`)), readFileSync(t1))
  t.deepEqual(
    readFileSync(join(out, '-work-a', S1, 'subagents', 'agent-a1.jsonl')),
    readFileSync(join(REAL, 'real-02.jsonl')),
  )
  t.deepEqual(readFileSync(join(out, '-work-b', `${S2}.jsonl`)), readFileSync(t2))
  t.false(readFileSync(log, 'utf8').includes('failed'))
})

test('the queue is private and never written through a link out of the hooks folder', async (t) => {
  const { projects, archive, env } = setup()
  const t1 = join(projects, '-work-a', `${S1}.jsonl`)
  // a queue folder that links out of <archive>.hook: the session is not queued there, and the log says so
  const outside = tempDir('cj-hooks-outside-')
  mkdirSync(`${archive}.hook`, { recursive: true })
  symlinkSync(outside, join(`${archive}.hook`, 'queue'))
  const r = hook('session-end', hookJson(S1, t1), env, '--to', archive)
  t.is(r.status, 0)
  t.deepEqual(readdirSync(outside), [])
  t.regex(readFileSync(`${archive}.hook.log`, 'utf8'), new RegExp(`session-end ${S1}: cannot queue the archive`))
  // without the link the entry is written 0600 (queued here without starting a worker)
  const { enqueue } = await import('../src-ts/integrations/archive-queue.js')
  const other = join(tempDir('cj-hooks-archive-'), 'archive')
  await enqueue(other, { sessionId: S1, transcript: t1, event: 'session-end', waitForClose: true, queuedAt: '' })
  const queued = join(`${other}.hook`, 'queue', `${S1}.json`)
  t.is(statSync(queued).mode & 0o777, 0o600)
})

test('session-start: one systemMessage while sessions near the cleanup age are not archived, silent once they are', async (t) => {
  const { projects, archive, env } = setup()
  const old = join(projects, '-work-b', `${S2}.jsonl`)
  const start = () =>
    hook(
      'session-start',
      JSON.stringify({ session_id: S1, transcript_path: old, source: 'startup' }),
      env,
      '--to',
      archive,
    )
  t.is(start().stdout, '', 'nothing is old yet')
  const when = new Date(Date.now() - 27 * 86_400_000)
  utimesSync(old, when, when)
  const r = start()
  t.is(r.status, 0)
  const out = JSON.parse(r.stdout)
  t.deepEqual(Object.keys(out), ['systemMessage'])
  t.regex(out.systemMessage, /^claude-jsonl: 1 session within 5 days of Claude Code's 30-day cleanup is not archived/)
  const a = spawnSync(process.execPath, [CLI, 'archive', '--to', archive], { encoding: 'utf8', env })
  t.is(a.status, 0, a.stderr)
  t.is(start().stdout, '')
})
