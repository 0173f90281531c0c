// The command line as a new user meets it: driven through the built CLI, one test per rule.
import test from 'ava'
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { COMMANDS } from '../src-ts/cli/registry.js'
import { CLI, tempDir, writeTree } from './helpers/transcripts.js'

function run(args: string[], env: NodeJS.ProcessEnv = {}) {
  const r = spawnSync(process.execPath, [CLI, ...args], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH, HOME: '/nonexistent-home', COLUMNS: '80', ...env },
  })
  return { code: r.status, stdout: r.stdout, stderr: r.stderr }
}

/** A session of `turns` prompt/answer pairs, each record linked to the one before. */
function conversation(sessionId: string, turns: number, day = '2026-03-01'): string[] {
  const out: string[] = []
  let parent: string | null = null
  for (let i = 0; i < turns; i++) {
    const ts = `${day}T10:${String(i).padStart(2, '0')}:00.000Z`
    const h = `${sessionId.slice(0, 8)}-h${i}`
    const a = `${sessionId.slice(0, 8)}-a${i}`
    const text = `question ${i} about the flamingo parser `.repeat(20)
    out.push(
      JSON.stringify({
        type: 'user',
        uuid: h,
        parentUuid: parent,
        sessionId,
        timestamp: ts,
        cwd: '/home/u/app',
        isSidechain: false,
        message: { role: 'user', content: text },
      }),
    )
    out.push(
      JSON.stringify({
        type: 'assistant',
        uuid: a,
        parentUuid: h,
        sessionId,
        timestamp: ts,
        cwd: '/home/u/app',
        isSidechain: false,
        requestId: `req_${a}`,
        message: {
          id: `msg_${a}`,
          type: 'message',
          role: 'assistant',
          model: 'claude-sonnet-4-5-20250929',
          content: [{ type: 'text', text: `answer ${i}: `.repeat(40) }],
          stop_reason: 'end_turn',
          usage: { input_tokens: 3, cache_creation_input_tokens: 10, cache_read_input_tokens: 100, output_tokens: 50 },
        },
      }),
    )
    parent = a
  }
  return out
}

const SID = 'c0ffee00-1111-4222-8333-444455556666'
const OTHER = 'beef0000-1111-4222-8333-444455556666'

/** Extra arguments a one-session command needs to run at all (an output file...). */
function extraArgs(name: string, dir: string): string[] {
  if (name === 'compress') return ['--out', join(dir, 'c.jsonl'), '--force']
  if (name === 'pack') return ['--out', join(dir, 'p.md'), '--force']
  if (name === 'repair-read-pages') return ['--out', join(dir, 'r.jsonl'), '--force']
  return []
}

test('every command that takes one SESSION takes a path, a uuid and a unique prefix alike', async (t) => {
  const root = writeTree({
    [`projects/-home-u-app/${SID}.jsonl`]: conversation(SID, 30),
    [`projects/-home-u-app/${OTHER}.jsonl`]: conversation(OTHER, 2),
  })
  const projects = join(root, 'projects')
  const path = join(projects, '-home-u-app', `${SID}.jsonl`)
  const out = tempDir()
  const oneSession = []
  for (const entry of COMMANDS) {
    const { command } = await entry.load()
    if (command.args.startsWith('SESSION')) oneSession.push(command.name)
  }
  // The commands known today; one added later is walked too.
  for (const name of ['show', 'timeline', 'validate', 'plan', 'compress', 'repair-read-pages', 'pack'])
    t.true(oneSession.includes(name), name)
  for (const name of oneSession) {
    const results = [path, SID, 'c0ff'].map((ref) =>
      run([name, ref, '--projects', projects, ...extraArgs(name, out)]),
    )
    for (const r of results) {
      t.notRegex(r.stderr, /no such file|no session matches|unknown option/, `${name}: ${r.stderr}`)
      t.not(r.code, 2, `${name}: ${r.stderr}`)
      t.not(r.code, 3, `${name}: ${r.stderr}`)
    }
    t.is(results[1].code, results[0].code, name)
    t.is(results[2].code, results[0].code, name)
    t.is(results[1].stdout, results[0].stdout, name)
    t.is(results[2].stdout, results[0].stdout, name)
  }
})
