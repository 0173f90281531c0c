// Model summaries in a batch: a limit on how many run at once across the whole pool (a permit
// the pool grants), retries with exponential backoff, and the documented choice of what a
// session gets when every try fails: nothing (it fails and is left as it is) or the
// deterministic summary.
import type { Summarizer, SummaryOptions, SummaryRequest, SummaryResult } from './summarizer-contract.js'
import type { BudgetOptions } from './cut.js'
import { summarizerFor } from './summary-source.js'
import { BatchSummaryError } from './batch-modes.js'

export type SummaryFallback = 'fail' | 'deterministic'

export interface BatchSummaryPolicy {
  /** Tries after the first (default 2). */
  retries?: number
  /** The first retry waits this long; each later one twice as long (default 2000 ms). */
  retryDelayMs?: number
  /** What a session gets when every try fails (default 'fail'). */
  fallback?: SummaryFallback
}

/** A permit to run one model summary; resolves with the function that gives it back. */
export type AcquirePermit = () => Promise<() => void>

/** True when the options ask for a model's summary (a command or the API) rather than the
 * deterministic one. A summary file (--model-summary) belongs to one session: not in a batch. */
export function usesModel(o: SummaryOptions): boolean {
  return o.summarizerCmd !== undefined || o.summarizer !== undefined
}

export function batchSummarizer(
  o: SummaryOptions & BudgetOptions,
  policy: BatchSummaryPolicy,
  acquire: AcquirePermit,
  sleep: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms)),
): Summarizer {
  const deterministic = summarizerFor({
    ...o,
    summary: 'deterministic',
    summarizerCmd: undefined,
    summarizer: undefined,
  })
  if (!usesModel(o)) return deterministic
  const model = summarizerFor(o)
  const retries = policy.retries ?? 2
  const delay = policy.retryDelayMs ?? 2000
  const summarize: Summarizer = async (req: SummaryRequest): Promise<SummaryResult> => {
    let last: unknown
    for (let attempt = 0; attempt <= retries; attempt++) {
      if (attempt > 0) await sleep(delay * 2 ** (attempt - 1))
      const release = await acquire()
      try {
        return await model(req)
      } catch (e) {
        last = e
      } finally {
        release()
      }
    }
    const why = `the model summary failed ${retries + 1} time${retries ? 's' : ''} (last: ${(last as Error)?.message ?? last})`
    if (policy.fallback !== 'deterministic')
      throw new BatchSummaryError(
        `${req.sourcePath}: ${why}; left as it is (--summary-fallback deterministic uses the deterministic summary instead)`,
        req.sourcePath,
      )
    const r = await deterministic(req)
    return { ...r, metadata: { ...r.metadata, summaryFallback: why } }
  }
  summarize.readsThroughSpans = false
  return summarize
}
