// compress --in-place with the real Claude Code client (pinned 2.1.332, loopback mock only):
// a session the client is running (its registry record is real, the mock answers late so it
// stays alive) is refused naming the client's pid, and teleport-id warns; a crashed client's
// record is stale and ignored; and every in-place compressed session resumes in the client as
// [summary] + the original's recent suffix.
import test from 'ava'
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { teleportUuid } from '../src-ts/read/teleport.js'
import { sessionHolders } from '../src-ts/read/live-sessions.js'
import { ensureClaudeClient, holdSessionWithRealClient } from './helpers/claude-client.js'
import { assertResumesLike } from './helpers/resume-like.js'
import { backups, cli, inPlaceArgs, leftovers, liveEstate } from './helpers/live-estate.js'
import { REAL } from './helpers/transcripts.js'

test.before(async () => {
  await ensureClaudeClient()
})

const TELEPORT_ID = 'session_01InPlaceLiveClientTest'

test.serial('a session the real client holds is refused naming its pid; teleport-id warns', async (t) => {
  const e = liveEstate(undefined, teleportUuid(TELEPORT_ID))
  const held = await holdSessionWithRealClient(dirname(e.config), e.session)
  try {
    t.is(held.record.pid, held.child.pid)
    t.truthy(held.record.procStart, 'the client records its start time')
    const r = cli(inPlaceArgs(e), e.env)
    t.is(r.code, 1, r.stderr)
    t.regex(r.stderr, new RegExp(`Claude Code is running this session \\(pid ${held.child.pid}`))
    t.deepEqual(backups(e), [], 'nothing written for a refused session')
    t.deepEqual(leftovers(e), [])
    t.true(readFileSync(e.target).subarray(0, e.original.length).equals(e.original), 'the original is not replaced')
    const tp = cli(['teleport-id', TELEPORT_ID], e.env)
    t.is(tp.code, 0, tp.stderr)
    t.regex(tp.stdout, new RegExp(`warning: Claude Code is running this session now \\(pid ${held.child.pid}`))
  } finally {
    // A crash: the client's record stays behind, naming a pid that no longer runs.
    await held.stop('SIGKILL')
  }
  t.true(existsSync(held.registry))
  const h = sessionHolders(e.session, e.env)
  t.deepEqual(h.live, [])
  t.deepEqual(
    h.stale.map((s) => [s.pid, s.reason]),
    [[held.child.pid, 'no-such-process']],
  )
  const tp = cli(['teleport-id', TELEPORT_ID], e.env)
  t.notRegex(tp.stdout, /warning/)
})

for (const name of ['real-01.jsonl', 'real-10.jsonl']) {
  test.serial(
    `${name} compressed in place resumes in the real client as summary + the original's suffix`,
    async (t) => {
      const e = liveEstate(join(REAL, name))
      const r = cli(inPlaceArgs(e), e.env)
      t.is(r.code, 0, r.stderr)
      const [backup] = backups(e)
      t.true(readFileSync(backup).equals(e.original))
      const resumed = await assertResumesLike(readFileSync(backup), readFileSync(e.target), { sessionId: e.session })
      t.true(resumed.suffixMessages > 0)
    },
  )
}
