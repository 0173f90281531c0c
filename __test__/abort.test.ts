// Every long operation of the API takes an AbortSignal: an aborted signal rejects before anything
// is read, and an abort while the native work runs stops it and rejects with the signal's reason.
import test from 'ava'
import { doctor, find, findExact, requests, scanEstate, stats } from '../src-ts/index.js'
import { REAL, tempDir } from './helpers/transcripts.js'

const calls: [string, (signal: AbortSignal) => Promise<unknown>][] = [
  ['stats', (signal) => stats({ projects: REAL, signal })],
  ['doctor', (signal) => doctor({ projects: REAL, signal })],
  ['scanEstate', (signal) => scanEstate({ projects: REAL, signal })],
  [
    'requests',
    async (signal) => {
      for await (const _ of requests({ projects: REAL, signal })) void _
    },
  ],
  ['find', (signal) => find(['commit'], { projects: REAL, indexDir: tempDir('cj-abort-index-'), signal })],
  ['findExact', (signal) => findExact('commit', { projects: REAL, signal })],
]

for (const [name, call] of calls) {
  test(`${name}: an aborted signal rejects with its reason; an abort during the work stops it`, async (t) => {
    const before = new AbortController()
    before.abort(new Error('stopped before'))
    await t.throwsAsync(call(before.signal), { message: 'stopped before' })

    const during = new AbortController()
    const running = call(during.signal)
    during.abort()
    // the signal's own reason, a DOMException named AbortError
    await t.throwsAsync(running, { any: true, name: 'AbortError' })

    // and without an abort the same call completes
    await t.notThrowsAsync(call(new AbortController().signal))
  })
}

test('compressEstate: an abort stops handing out sessions, keeps what was done, and rejects', async (t) => {
  const { compressEstate } = await import('../src-ts/compress/index.js')
  const out = tempDir('cj-abort-batch-')
  const stop = new AbortController()
  let doneAtAbort = -1
  const run = compressEstate({
    projects: REAL,
    mode: { kind: 'candidate', outDir: out },
    jobs: 1,
    signal: stop.signal,
    onProgress: (p) => {
      if (p.sessionsDone >= 1 && doneAtAbort < 0) {
        doneAtAbort = p.sessionsDone
        stop.abort()
      }
    },
  })
  await t.throwsAsync(run, { any: true, name: 'AbortError' })
  t.true(doneAtAbort >= 1)
  // The sessions done before the abort are in the manifest: the next run takes them as done.
  const again = await compressEstate({ projects: REAL, mode: { kind: 'candidate', outDir: out }, jobs: 1 })
  const unchanged = again.sessions.filter((s) => s.reason === 'unchanged').length
  t.true(unchanged >= doneAtAbort, `${unchanged} unchanged, ${doneAtAbort} done at the abort`)
  t.true(unchanged < again.sessions.length, 'the sessions after the abort were not started')
})
