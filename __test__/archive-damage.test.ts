// A damaged or lost stream does not take the archive down: restore names it and restores every
// other session (exit 1), the readers skip it with a warning, and the next archive run stores
// the session again from the estate (a damaged stream set aside byte for byte).
import test from 'ava'
import { spawnSync } from 'node:child_process'
import {
  existsSync,
  lstatSync,
  readFileSync,
  rmSync,
  symlinkSync,
  truncateSync,
  appendFileSync,
  writeFileSync,
} from 'node:fs'
import { join } from 'node:path'
import { listArchive, listArchiveAll } from '../src-ts/archive/archive.js'
import { CLI, assistant, tempDir, userText, writeTree } from './helpers/transcripts.js'

function run(args: string[], env: NodeJS.ProcessEnv = {}) {
  const r = spawnSync(process.execPath, [CLI, ...args], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH, HOME: '/nonexistent-home', ...env },
  })
  return { code: r.status, stdout: r.stdout, stderr: r.stderr }
}

const SID = ['unused', '1c8d9b9f-2222-4333-8444-555566667777']

const DAMAGE: Record<string, (stream: string, dir: string) => void> = {
  truncated: (s) => truncateSync(s, 20),
  'first bytes damaged': (s) => {
    const b = readFileSync(s)
    b.write('garbage!', 0)
    writeFileSync(s, b)
  },
  'garbage appended': (s) => appendFileSync(s, 'this is not a segment'),
  'replaced by a symlink': (s, dir) => {
    writeFileSync(join(dir, 'outside'), 'a file outside the archive')
    rmSync(s)
    symlinkSync(join(dir, 'outside'), s)
  },
}
const HOW = Object.keys(DAMAGE)
/** One damaged session per way of damaging, each with a subagent, and one intact session. */
const DAMAGED = HOW.map((_, i) => `${i}a7c8a8e-1111-4222-8333-44445555666${i}`)

const estate = () =>
  writeTree({
    ...Object.fromEntries(
      DAMAGED.flatMap((sid, i) => [
        [
          `-home-u-app/${sid}.jsonl`,
          [userText(`archive me ${i}`), assistant({ messageId: `m${i}`, output: 5, sessionId: sid })],
        ],
        [
          `-home-u-app/${sid}/subagents/agent-a${i}.jsonl`,
          [assistant({ messageId: `s${i}`, output: 7, sidechain: true, sessionId: sid })],
        ],
      ]),
    ),
    [`-home-u-b/${SID[1]}.jsonl`]: [userText('second'), assistant({ messageId: 'm3', output: 9, sessionId: SID[1] })],
  })

test(`a stream ${HOW.join(', ')}: restore --all names it and restores the rest, readers skip it, the next run stores it again`, (t) => {
  const src = estate()
  const dir = tempDir()
  const arch = join(dir, 'arch')
  const env = { XDG_CACHE_HOME: join(dir, 'cache') }
  t.is(run(['archive', src, '--to', arch], env).code, 0)
  const files = listArchive(arch)
  const streams = DAMAGED.map((sid) => files.find((f) => f.sessionId === sid)!.storePath)
  HOW.forEach((how, i) => DAMAGE[how](streams[i], dir))
  const listing = listArchiveAll(arch)
  t.deepEqual(
    listing.damaged.map((d) => [d.storePath, d.sessionId]).sort(),
    streams.map((s, i) => [s, DAMAGED[i]]).sort(),
  )
  t.deepEqual(listing.lacking, [], 'the damaged streams name their files')
  // restore --all: the intact session written, each damaged stream named, exit 1
  const out = join(dir, 'out')
  const r = run(['restore', arch, '--all', '--to', out, '--json'], env)
  t.is(r.code, 1, r.stderr)
  for (const s of streams) t.true(r.stderr.includes(s), r.stderr)
  t.is(JSON.parse(r.stdout).written, 1)
  const other = `-home-u-b/${SID[1]}.jsonl`
  t.true(readFileSync(join(out, other)).equals(readFileSync(join(src, other))))
  // restore of a damaged session by name: named, nothing written, exit 1
  const one = run(['restore', arch, DAMAGED[1].slice(0, 8), '--to', join(dir, 'one')], env)
  t.is(one.code, 1, one.stderr)
  t.true(one.stderr.includes(streams[1]), one.stderr)
  t.false(existsSync(join(dir, 'one', `-home-u-app/${DAMAGED[1]}.jsonl`)))
  // readers skip them with a warning and read the rest
  for (const args of [
    ['stats', '--json'],
    ['sessions', '--json', '--all'],
    ['find', 'second', '--json', '--no-index'],
  ]) {
    const s = run([...args, '--projects', arch], env)
    t.is(s.code, 0, `${args[0]}: ${s.stderr}`)
    for (const st of streams) t.true(s.stderr.includes(`warning: ${st}`), `${args[0]}: ${s.stderr}`)
    if (args[0] === 'stats') t.is(JSON.parse(s.stdout).scope.sessions, 1)
  }
  // the next run sets each damaged stream aside (a link as a link, its target untouched) and
  // stores the session again
  const a = run(['archive', src, '--to', arch, '--json'], env)
  t.is(a.code, 1, a.stderr)
  for (const s of streams) t.true(a.stderr.includes(`${s}.damaged-1`), a.stderr)
  t.is(JSON.parse(a.stdout).added, 2 * DAMAGED.length)
  t.true(lstatSync(`${streams[3]}.damaged-1`).isSymbolicLink())
  t.is(readFileSync(join(dir, 'outside'), 'utf8'), 'a file outside the archive')
  const again = run(['restore', arch, '--all', '--to', join(dir, 'out2')], env)
  t.is(again.code, 0, again.stderr)
  DAMAGED.forEach((sid, i) => {
    for (const rel of [`-home-u-app/${sid}.jsonl`, `-home-u-app/${sid}/subagents/agent-a${i}.jsonl`])
      t.true(readFileSync(join(dir, 'out2', rel)).equals(readFileSync(join(src, rel))), rel)
  })
  t.is(run(['archive', src, '--to', arch], env).code, 0, 'stored again once')
})

test('a lost stream: restore --all names what the index has and no stream holds; archive stores it again', (t) => {
  const src = estate()
  const dir = tempDir()
  const arch = join(dir, 'arch')
  t.is(run(['archive', src, '--to', arch]).code, 0)
  const stream = listArchive(arch).find((f) => f.sessionId === DAMAGED[0])!.storePath
  rmSync(stream)
  const r = run(['restore', arch, '--all', '--to', join(dir, 'out')])
  t.is(r.code, 1, r.stderr)
  for (const rel of [`${DAMAGED[0]}.jsonl`, `${DAMAGED[0]}/subagents/agent-a0.jsonl`])
    t.true(r.stderr.includes(`-home-u-app/${rel}: the archive index records generation 1`), r.stderr)
  t.regex(r.stdout, /Restored 7 transcripts/)
  const a = run(['archive', src, '--to', arch])
  t.is(a.code, 1)
  t.regex(a.stderr, /missing; its session's files in the estate are stored again/)
  t.regex(a.stdout, /2 new/)
  const again = run(['restore', arch, '--all', '--to', join(dir, 'out2')])
  t.is(again.code, 0, again.stderr)
  t.true(
    readFileSync(join(dir, 'out2', `-home-u-app/${DAMAGED[0]}.jsonl`)).equals(
      readFileSync(join(src, `-home-u-app/${DAMAGED[0]}.jsonl`)),
    ),
  )
})
