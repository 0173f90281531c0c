/**
 * Single-line progress bar for long scans, drawn on stderr.
 *
 * Draws only when the stream is a TTY; otherwise every method is a no-op and
 * nothing is written (so piped/redirected output and CI logs stay clean).
 */

import { formatBytes } from './format.js'
import { isTerminal } from './output.cjs'

export interface ProgressState {
  bytesDone: number
  bytesTotal: number
  filesDone: number
  filesTotal: number
  /** What the counts count (default 'files'). */
  unit?: string
  /** Show the estimated time left (from the bytes done so far). */
  eta?: boolean
}

export interface Progress {
  update(p: ProgressState): void
  /** Stop drawing and clear the bar's line. Further updates are ignored. */
  done(): void
}

export interface ProgressOptions {
  /** Monotonic clock in milliseconds (for tests). Default: performance.now(). */
  now?: () => number
  /** Minimum time between redraws in milliseconds. Default 80. */
  intervalMs?: number
}

/** Erase the current line and return the cursor to column 0. */
const CLEAR_LINE = '\r\u001b[2K'

const NOOP: Progress = Object.freeze({
  update(): void {},
  done(): void {},
})

/** A bar on `stream`, by default stderr (looked at only when it is a terminal: output.cts says why). */
export function createProgress(to?: NodeJS.WriteStream, opts: ProgressOptions = {}): Progress {
  const stream = to ?? (isTerminal(2) ? process.stderr : undefined)
  if (stream?.isTTY !== true) return NOOP

  const now = opts.now ?? (() => performance.now())
  const interval = opts.intervalMs ?? 80
  const start = now()
  let lastDraw = -Infinity
  let drawn = false
  let finished = false
  let pending: ProgressState | undefined
  let timer: NodeJS.Timeout | undefined

  const draw = (p: ProgressState): void => {
    const t = now()
    lastDraw = t
    pending = undefined
    stream.write(CLEAR_LINE + renderLine(p, (t - start) / 1000, stream.columns))
    drawn = true
  }

  return {
    update(p: ProgressState): void {
      if (finished) return
      const wait = lastDraw + interval - now()
      if (wait <= 0) {
        draw(p)
        return
      }
      // Throttled: remember the latest state and draw it once the interval
      // has passed, so the bar does not stall on the last value seen.
      pending = { ...p }
      if (timer === undefined) {
        timer = setTimeout(() => {
          timer = undefined
          if (!finished && pending) draw(pending)
        }, Math.ceil(wait))
        timer.unref?.()
      }
    },
    done(): void {
      if (finished) return
      finished = true
      if (timer !== undefined) clearTimeout(timer)
      timer = undefined
      pending = undefined
      if (drawn) stream.write(CLEAR_LINE)
    },
  }
}

/** Runs `work` with a progress bar on `stream` (drawn only on a terminal), cleared when it ends. */
export async function withProgress<T>(
  work: (onProgress: (p: ProgressState) => void) => Promise<T>,
  stream?: NodeJS.WriteStream,
): Promise<T> {
  const bar = createProgress(stream)
  try {
    return await work((p) => bar.update(p))
  } finally {
    bar.done()
  }
}

/**
 * The bar's text, fitted to `columns` (minus one so the terminal never wraps):
 * ` 42% [########------------] 12.3 MB/29.0 MB  3/7 files  45.6 MB/s`
 */
export function renderLine(p: ProgressState, elapsedSec: number, columns: number | undefined): string {
  const width = Math.max(20, (columns && columns > 0 ? columns : 80) - 1)
  const fraction = clamp01(
    p.bytesTotal > 0 ? p.bytesDone / p.bytesTotal : p.filesTotal > 0 ? p.filesDone / p.filesTotal : 0,
  )
  const percent = `${Math.floor(fraction * 100)}%`.padStart(4)
  const rate = elapsedSec > 0 ? `${(p.bytesDone / elapsedSec / 1e6).toFixed(1)} MB/s` : ''
  const left = p.eta && fraction > 0 && fraction < 1 && elapsedSec >= 1 ? (elapsedSec * (1 - fraction)) / fraction : -1
  const info = [
    `${formatBytes(p.bytesDone)}/${formatBytes(p.bytesTotal)}`,
    `${p.filesDone}/${p.filesTotal} ${p.unit ?? 'files'}`,
    rate,
    left >= 0 ? `ETA ${formatSeconds(left)}` : '',
  ]
    .filter((s) => s !== '')
    .join('  ')

  // percent + ' [' + bar + '] ' + info
  const barWidth = Math.min(40, width - percent.length - info.length - 4)
  let text: string
  if (barWidth >= 5) {
    const filled = Math.round(fraction * barWidth)
    text = `${percent} [${'#'.repeat(filled)}${'-'.repeat(barWidth - filled)}] ${info}`
  } else {
    text = `${percent} ${info}`
  }
  return text.length > width ? text.slice(0, width) : text
}

function formatSeconds(s: number): string {
  const r = Math.ceil(s)
  return r < 60 ? `${r}s` : `${Math.floor(r / 60)}m${String(r % 60).padStart(2, '0')}s`
}

function clamp01(x: number): number {
  if (!Number.isFinite(x) || x < 0) return 0
  return x > 1 ? 1 : x
}
