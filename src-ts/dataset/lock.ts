// One export of a machine at a time into a dataset: a lock object per machine
// (`_claude_jsonl/locks/MACHINE.lock`) written only where there is none (a folder: a whole file
// linked into place; object storage: a conditional PutObject), naming its owner. Two exports of
// one machine read the same part files and manifest and publish their merges over each other;
// under the lock the second merges with what the first published. Exports of different machines
// write different part files and need no lock between them.
import { writeSync } from 'node:fs'
import { hostname } from 'node:os'
import { ClaudeJsonlError, EXIT } from '../errors.js'
import { ownerAlive, ownerTag } from '../durable-files.js'
import type { DatasetDestination } from './destination.js'

export const LOCKS_PREFIX = '_claude_jsonl/locks/'

/** What a lock object says of its owner. */
interface LockOwner {
  host: string
  pid: number
  /** The process's start time (clock ticks since boot), so a reused pid is not the owner. */
  start: string
  since: string
}

/** How long a second export waits for the first (ms) before it gives up. */
const DEFAULT_WAIT_MS = 10_000
const POLL_MS = 200

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/**
 * Takes machine `machine`'s lock in `dest`, waiting up to `CLAUDE_JSONL_DATASET_LOCK_WAIT_MS`
 * (default 10 s) for a live holder, and returns its release. A lock whose owner ran on this host
 * and no longer runs is taken over; one from another host is waited for (its liveness cannot be
 * seen from here). Gives up with exit code 3, naming the holder and the lock's key.
 */
export async function lockMachine(
  dest: DatasetDestination,
  machine: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<() => Promise<void>> {
  const key = `${LOCKS_PREFIX}${machine}.lock`
  const host = hostname()
  const mine = Buffer.from(JSON.stringify({ host, ...ownerTag(), since: new Date().toISOString() }) + '\n')
  const waitMs = Number(env.CLAUDE_JSONL_DATASET_LOCK_WAIT_MS ?? DEFAULT_WAIT_MS)
  const deadline = Date.now() + (Number.isFinite(waitMs) ? waitMs : DEFAULT_WAIT_MS)
  let announced = false
  for (;;) {
    if (await dest.putIfAbsent(key, mine))
      return async () => {
        // Only our own lock is removed (a stale-lock takeover by another may have replaced it).
        const now = await dest.get(key)
        if (now && now.equals(mine)) await dest.delete(key)
      }
    const held = await dest.get(key)
    if (!held) continue // released meanwhile
    let owner: LockOwner | undefined
    try {
      owner = JSON.parse(held.toString('utf8')) as LockOwner
    } catch {
      owner = undefined
    }
    if (owner && owner.host === host && !ownerAlive(Number(owner.pid), String(owner.start))) {
      // Its owner ended without releasing it (killed): taken over, if it is still that lock.
      const again = await dest.get(key)
      if (again && again.equals(held)) await dest.delete(key)
      continue
    }
    const who = owner ? `pid ${owner.pid} on ${owner.host}, since ${owner.since}` : 'an owner it does not name'
    if (Date.now() >= deadline)
      throw new ClaudeJsonlError(
        `${dest.label}: another export of machine '${machine}' is running (${who}); run again when it has ended, or delete ${key} if it is not running`,
        EXIT.input,
      )
    if (!announced) {
      // Written to fd 2 at once, so a waiting export says why it waits.
      writeSync(2, `claude-jsonl: export: waiting for the export of machine '${machine}' that holds ${key} (${who})\n`)
      announced = true
    }
    await sleep(POLL_MS)
  }
}
