// Native work that runs off the JS thread, as the API runs it: progress reported about ten
// times a second, and an AbortSignal that stops it (the core skips what has not started).
import native from './native.js'
import type { ProgressSnapshot } from './native.js'

/** What every long operation of the API takes besides its own options. */
export interface LongOperationOptions {
  /** Called about ten times a second while the work runs, and once at the end. */
  onProgress?: (p: ProgressSnapshot) => void
  /** Stops the work: what has not started is skipped, and the call rejects with the signal's
   * reason (an `AbortError` unless the caller gave another). */
  signal?: AbortSignal
}

/**
 * Runs `run` with fresh native progress counters, reporting them to `onProgress`; an abort of
 * `signal` cancels the native work, and the call then rejects with the signal's reason.
 */
export async function withNativeProgress<T>(
  opts: LongOperationOptions,
  run: (progress: InstanceType<typeof native.ScanProgress>) => Promise<T>,
): Promise<T> {
  const { onProgress, signal } = opts
  signal?.throwIfAborted()
  const progress = new native.ScanProgress()
  const cancel = () => progress.cancel()
  signal?.addEventListener('abort', cancel, { once: true })
  const timer = onProgress ? setInterval(() => onProgress(progress.snapshot()), 100) : undefined
  try {
    const r = await run(progress)
    signal?.throwIfAborted()
    return r
  } finally {
    if (timer) clearInterval(timer)
    signal?.removeEventListener('abort', cancel)
    onProgress?.(progress.snapshot())
  }
}
