// A fixed number of worker threads, each given at most `slots` sessions at a time: memory is
// bounded by the pool's size, never by the estate's. A worker that dies takes only the sessions
// it held with it (each fails with the cause) and is replaced; the others go on.
import { Worker } from 'node:worker_threads'
import type { SessionJob, SessionOutcome } from './batch-modes.js'
import type { FromWorker, ToWorker, WorkerInit } from './batch-worker.js'

export interface PoolOptions {
  workers: number
  /** Sessions a worker holds at once (more than 1 only while model summaries are awaited). */
  slots: number
  /** Model summaries running at once across the pool. */
  summaryPermits: number
  init: WorkerInit
  onDone: (job: SessionJob, outcome: SessionOutcome) => void
  /** Stops handing out sessions: those a worker holds finish (an in-place replacement is never
   * cut short), the rest are not started; the pool then resolves. */
  signal?: AbortSignal
}

const WORKER_URL = new URL('./batch-worker.js', import.meta.url)

/** Runs every job (until `signal` aborts); resolves when every job started has an outcome (it
 * never rejects for a job's sake). */
export function runPool(jobs: SessionJob[], o: PoolOptions): Promise<void> {
  return new Promise((resolveAll) => {
    let next = 0
    let finished = 0
    let ended = false
    let total = jobs.length
    const end = () => {
      ended = true
      for (const w of live) void w.terminate()
      resolveAll()
    }
    // Model-summary permits, granted in request order.
    let permits = o.summaryPermits
    const waiting: { w: Worker; token: number }[] = []
    const heldPermits = new Map<Worker, number>()
    const grant = () => {
      while (permits > 0 && waiting.length > 0) {
        const x = waiting.shift()!
        permits--
        heldPermits.set(x.w, (heldPermits.get(x.w) ?? 0) + 1)
        x.w.postMessage({ type: 'grant', token: x.token } satisfies ToWorker)
      }
    }
    const live = new Set<Worker>()
    const finish = (job: SessionJob, outcome: SessionOutcome) => {
      finished++
      o.onDone(job, outcome)
      if (finished === total && !ended) end()
    }
    const spawn = () => {
      const held = new Map<number, SessionJob>()
      const w = new Worker(WORKER_URL, { workerData: o.init })
      live.add(w)
      const feed = () => {
        while (held.size < o.slots && next < total) {
          const id = next++
          held.set(id, jobs[id])
          w.postMessage({ type: 'job', id, job: jobs[id] } satisfies ToWorker)
        }
      }
      w.on('message', (m: FromWorker) => {
        if (m.type === 'done') {
          const job = held.get(m.id)!
          held.delete(m.id)
          feed()
          finish(job, m.outcome)
        } else if (m.type === 'acquire') {
          waiting.push({ w, token: m.token })
          grant()
        } else {
          permits++
          heldPermits.set(w, (heldPermits.get(w) ?? 1) - 1)
          grant()
        }
      })
      let dead = false
      const die = (why: string) => {
        if (dead) return
        dead = true
        live.delete(w)
        // The permits it held come back; its requests are dropped.
        for (let i = waiting.length - 1; i >= 0; i--) if (waiting[i].w === w) waiting.splice(i, 1)
        permits += heldPermits.get(w) ?? 0
        heldPermits.delete(w)
        grant()
        const lost = [...held.values()]
        held.clear()
        for (const job of lost)
          finish(job, {
            status: 'failed',
            reason: 'internal',
            message: `${job.path}: the worker compressing it stopped (${why}); the session is left as it is`,
            bytesBefore: job.size,
          })
        if (!ended && next < total) spawn()
      }
      w.on('error', (e) => die(e.message))
      w.on('exit', (code) => {
        if (!ended) die(`exit code ${code}`)
      })
      feed()
    }
    if (total === 0 || o.signal?.aborted) return resolveAll()
    o.signal?.addEventListener(
      'abort',
      () => {
        // What was handed out is all there will be.
        total = next
        if (finished === total && !ended) end()
      },
      { once: true },
    )
    for (let i = 0; i < Math.max(1, Math.min(o.workers, total)); i++) spawn()
  })
}
