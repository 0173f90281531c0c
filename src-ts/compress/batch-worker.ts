// A batch pool worker: compresses the sessions the pool sends it, one outcome back per session.
// Each worker is a thread of its own, so sessions run on every core and the JS thread that
// draws the progress bar stays free. A session's failure is its outcome, never the worker's end.
import { parentPort, workerData } from 'node:worker_threads'
import { batchMode, outcomeOfError, type ModeConfig, type SessionJob } from './batch-modes.js'
import { batchSummarizer, type BatchSummaryPolicy } from './batch-summary.js'
import { repairMode } from './batch-repair.js'
import type { CompressOptions } from './compress.js'

export interface WorkerInit {
  /** What the batch does to each session (default compress). */
  operation?: 'compress' | 'repair'
  mode: ModeConfig
  options: CompressOptions
  summaryPolicy: BatchSummaryPolicy
}

export type ToWorker = { type: 'job'; id: number; job: SessionJob } | { type: 'grant'; token: number }
export type FromWorker =
  | { type: 'done'; id: number; outcome: import('./batch-modes.js').SessionOutcome }
  | { type: 'acquire'; token: number }
  | { type: 'release' }

const port = parentPort!
const init = workerData as WorkerInit
const mode = init.operation === 'repair' ? repairMode(init.mode) : batchMode(init.mode)
const grants = new Map<number, () => void>()
let nextToken = 0
const summarize = batchSummarizer(init.options, init.summaryPolicy, () => {
  const token = nextToken++
  return new Promise((resolve) => {
    grants.set(token, () => resolve(() => port.postMessage({ type: 'release' } satisfies FromWorker)))
    port.postMessage({ type: 'acquire', token } satisfies FromWorker)
  })
})

// Test hook: CLAUDE_JSONL_BATCH_FAULT=exit:<session id> ends this worker thread when it is
// given that session, as a crash would, so a test can see the pool carry on without it.
const fault = /^exit:(.+)$/.exec(process.env.CLAUDE_JSONL_BATCH_FAULT ?? '')?.[1]

port.on('message', (m: ToWorker) => {
  if (m.type === 'grant') {
    grants.get(m.token)?.()
    grants.delete(m.token)
    return
  }
  if (fault !== undefined && m.job.sessionId === fault) process.exit(70)
  mode
    .run(m.job, init.options, summarize)
    .catch((e) => outcomeOfError(e, m.job))
    .then((outcome) => port.postMessage({ type: 'done', id: m.id, outcome } satisfies FromWorker))
})
