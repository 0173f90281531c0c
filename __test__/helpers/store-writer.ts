// Crash-test child: appends deterministic events to one store session as fast as it can and
// prints `committed N` (fd 1, synchronously) each time events 0..N-1 are known durable. The
// parent kills it with SIGKILL at a random moment. The line also gives the file's size then
// (no other write can have started), so the parent can simulate losing unacknowledged bytes.
//   node store-writer.js ROOT COMPRESSION SEED WINDOW_MS
import { statSync, writeSync } from 'node:fs'
import { Store, type StoredEvent } from '../../src-ts/store/store.js'

/** A small deterministic PRNG (mulberry32). */
export function rng(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** Event `seq` of the run with `seed`: depends on nothing else, so the parent can check it. */
export function expectedEvent(seed: number, seq: number): StoredEvent {
  const r = rng(seed * 1_000_003 + seq)
  // every third run has some large events (hundreds of KB), so a kill can land inside a write
  const big = seed % 3 === 0 && r() < 0.05
  const words = Array.from({ length: 1 + Math.floor(r() * (big ? 80_000 : 400)) }, () =>
    Math.floor(r() * 1e6).toString(36),
  )
  return {
    seq,
    type: r() < 0.5 ? 'assistant/chunk' : 'user/text',
    time: 1_700_000_000_000 + seq,
    data: { text: words.join(' ') },
  }
}

export const SESSION = { id: 'crash-Session.1', cwd: '/home/u/repo' }

async function main(): Promise<void> {
  const [root, compression, seedArg, windowArg] = process.argv.slice(2)
  const seed = Number(seedArg)
  const store = new Store({
    root,
    compression: compression as 'zstd' | 'none',
    writeBatchMaxDelayMs: Number(windowArg),
  })
  let next = 0
  try {
    next = (await store.load(SESSION.id)).events.length
  } catch {
    await store.create({ ...SESSION, createdAt: '2026-11-30T00:00:00.000Z' })
  }
  const path = store.locate(SESSION).path
  const r = rng(seed)
  let committed = next
  for (;;) {
    // a few appends in flight at once, so batches merge inside the window
    const inFlight: Promise<void>[] = []
    for (let k = 1 + Math.floor(r() * 4); k > 0; k--) {
      const n = 1 + Math.floor(r() * 20)
      const events = Array.from({ length: n }, (_, i) => expectedEvent(seed, next + i))
      next += n
      const end = next
      inFlight.push(
        store.append(SESSION.id, events).then(() => {
          if (end > committed) {
            committed = end
            writeSync(1, `committed ${end} ${statSync(path).size}\n`)
          }
        }),
      )
    }
    await Promise.all(inFlight)
  }
}

if (process.argv[1]?.endsWith('store-writer.js')) {
  main().catch((e) => {
    writeSync(2, `${(e as Error).message}\n`)
    process.exit(1)
  })
}
