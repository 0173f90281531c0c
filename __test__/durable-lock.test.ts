// Lock files: one implementation (src-ts/durable-lock.cts) for the in-place transaction, the batch
// folder, the hooks' archive queue and the statusline. Who holds a lock, when it is taken over,
// and that a release never removes a lock another process took.
import test from 'ava'
import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { acquireLock, isLocked, lockHolder, ownerTag, tryLock, unlock } from '../src-ts/durable-lock.cjs'
import { releaseLock, takeLock } from '../src-ts/durable-files.js'
import { processStartTicks } from '../src-ts/read/live-sessions.js'
import { ClaudeJsonlError } from '../src-ts/errors.js'
import { tempDir } from './helpers/transcripts.js'

/** A pid that names no process now: a child that has exited. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '0'])
  await new Promise((r) => child.on('exit', r))
  return child.pid!
}

test('a free lock is taken, names this process, and is released', (t) => {
  const lock = join(tempDir('cj-lock-'), 'sub', 'a.lock')
  t.true(tryLock(lock), 'tryLock makes the folder')
  const me = ownerTag()
  t.is(readFileSync(lock, 'utf8'), `${me.pid} ${me.start}\n`)
  t.deepEqual(lockHolder(lock), me)
  t.true(isLocked(lock))
  unlock(lock)
  t.false(existsSync(lock))
  t.false(isLocked(lock))
})

test('a lock held by a live process is refused with its pid; takeLock throws what refused builds', async (t) => {
  const dir = tempDir('cj-lock-')
  const lock = join(dir, 'a.lock')
  const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)'])
  try {
    await new Promise((r) => child.on('spawn', r))
    const start = processStartTicks(child.pid!) ?? '0'
    writeFileSync(lock, `${child.pid} ${start}\n`)
    t.deepEqual(acquireLock(lock), { pid: child.pid })
    t.false(tryLock(lock))
    const err = t.throws(() => takeLock(lock, (pid) => new ClaudeJsonlError(`held by ${pid}`, 1, lock)))
    t.is(err?.message, `held by ${child.pid}`)
    // a release by someone who does not hold it leaves it
    releaseLock(lock)
    t.true(existsSync(lock))
  } finally {
    child.kill()
  }
})

test('a lock whose owner is gone, or whose pid now names another process, is taken over', async (t) => {
  const dir = tempDir('cj-lock-')
  const gone = join(dir, 'gone.lock')
  writeFileSync(gone, `${await deadPid()} 12345\n`)
  t.is(lockHolder(gone), undefined)
  t.true(tryLock(gone))
  t.deepEqual(lockHolder(gone), ownerTag())
  // this process's pid with another start time: the pid was reused
  const reused = join(dir, 'reused.lock')
  writeFileSync(reused, `${process.pid} 1\n`)
  t.is(lockHolder(reused), undefined)
  t.is(
    takeLock(reused, () => new ClaudeJsonlError('refused', 1, reused)),
    reused,
  )
})

test('a lock that names no owner yet is held while young and taken over once old', (t) => {
  const dir = tempDir('cj-lock-')
  const lock = join(dir, 'empty.lock')
  writeFileSync(lock, '')
  t.is(lockHolder(lock), 'ownerless')
  t.deepEqual(acquireLock(lock), { pid: 0 })
  const old = new Date(Date.now() - 60_000)
  utimesSync(lock, old, old)
  t.is(lockHolder(lock), undefined)
  t.true(acquireLock(lock))
})

test('takeLock does not make a missing folder; the folder error is thrown as it is', (t) => {
  const lock = join(tempDir('cj-lock-'), 'missing', 'a.lock')
  const err = t.throws(() => takeLock(lock, () => new ClaudeJsonlError('refused', 1, lock)))
  t.is((err as NodeJS.ErrnoException).code, 'ENOENT')
  mkdirSync(join(lock, '..'))
  t.is(
    takeLock(lock, () => new ClaudeJsonlError('refused', 1, lock)),
    lock,
  )
})
