import test from 'ava'
import { join } from 'node:path'
import { ClaudeJsonlError } from '../src-ts/index.js'
import { resolveSession } from '../src-ts/read/session-ref.js'
import { assistant, writeTree } from './helpers/transcripts.js'

const a = 'a1b2c3d4-1111-4222-8333-444455556666'
const b = 'a1b2ffff-1111-4222-8333-444455556666'
const root = writeTree({
  [`projects/-home-u-app/${a}.jsonl`]: [assistant({ messageId: 'x', output: 1 })],
  [`projects/-home-u-app/${a}/subagents/agent-s1.jsonl`]: [assistant({ messageId: 'y', output: 1, sidechain: true })],
  [`projects/-home-u-web/${b}.jsonl`]: [assistant({ messageId: 'z', output: 1 })],
})
const projects = join(root, 'projects')

test('a full uuid, a unique prefix, or a path names one session', (t) => {
  const full = resolveSession(a, { projects })
  t.is(full.path, join(projects, '-home-u-app', `${a}.jsonl`))
  t.is(full.project, '-home-u-app')
  t.deepEqual(full.subagentPaths, [join(projects, '-home-u-app', a, 'subagents', 'agent-s1.jsonl')])
  t.is(resolveSession('a1b2f', { projects }).sessionId, b)
  t.is(resolveSession(full.path, { projects }).sessionId, a)
})

test('an ambiguous prefix lists candidates; an unknown one names what was searched', (t) => {
  const amb = t.throws(() => resolveSession('a1b2', { projects }), { instanceOf: ClaudeJsonlError })!
  t.is(amb.exitCode, 2)
  t.regex(amb.message, /matches 2 sessions: .*a1b2c3d4.*a1b2ffff/)
  const none = t.throws(() => resolveSession('deadbeef', { projects }), { instanceOf: ClaudeJsonlError })!
  t.is(none.exitCode, 3)
  t.regex(none.message, /no session matches 'deadbeef' \(searched 2 sessions under .*projects\)/)
})
