// The API requests of one transcript or an estate, one by one, with usage and cost. Which
// entries are one request, and which entry's usage counts for it, is the native core's request
// key and dedupe (crate/core/src/read/usage.rs), the same pass `stats` sums; each request is priced by
// the one price table (prices.ts), so the costs of `requests()` add up to `stats`' totals.
import { dayWindow } from './days.js'
import { EstateOptions, scanEstateFiles, unusableFiles, type ScannedEstate } from './estate.js'
import type { EstateFileInfo, RequestColumns, SessionInfo } from '../native.js'
import { priceRequest, priceResolver, promptThresholds } from './prices.js'

/** Which transcripts, and which days (as `stats` takes them). */
export interface RequestsOptions extends EstateOptions {
  /** First day included, YYYY-MM-DD or YYYYMMDD, in `timezone`. */
  since?: string
  /** Last day included. */
  until?: string
  /** IANA time zone for `since`/`until` (default: the system's). */
  timezone?: string
}

/** The usage of one request, as its counted entry wrote it. */
export interface RequestUsageTokens {
  inputTokens: number
  outputTokens: number
  /** All cache writes: `cacheWrite5mTokens + cacheWrite1hTokens`. */
  cacheCreationInputTokens: number
  /** Cache writes at the 5-minute rate (includes writes without a TTL split). */
  cacheWrite5mTokens: number
  cacheWrite1hTokens: number
  cacheReadInputTokens: number
  /** `usage.speed` as written (`standard`, `fast`), when present. */
  speed?: string
  /** `usage.service_tier` as written (`standard`, `priority`, `batch`), when present. */
  serviceTier?: string
}

/** One deduplicated API request. */
export interface ApiRequest {
  /** The counted entry's `timestamp` as written, and as ms since the epoch (NaN when absent). */
  timestamp?: string
  timeMs: number
  model: string
  /** The session the transcript belongs to (a subagent's: its parent session). */
  sessionId: string
  project: string
  /** The transcript holding the counted entry, and that entry's 1-based line. */
  path: string
  line: number
  /** Made by a subagent (its own transcript). */
  subagent: boolean
  requestId?: string
  messageId?: string
  usage: RequestUsageTokens
  /** USD; absent when the model is of no known family (unpriced). */
  costUsd?: number
  /** The model is not in the price table: priced at its family's newest rates (`pricedAs`). */
  priceEstimated: boolean
  /** The price table's model whose rates were used. */
  pricedAs?: string
  /** Billed at the model's long-context rates. */
  longContext: boolean
  /** Fast mode (`usage.speed: "fast"`). */
  fast: boolean
}

/** Requests are turned into objects this many at a time, between awaits. */
const PAGE = 4096

/**
 * The API requests of a transcript (`path`) or of an estate (the selection options `stats` takes),
 * deduplicated as `stats` counts them (entries sharing `requestId`, else `message.id`, are one
 * request; the entry with the most output counts), in order of time (requests without a
 * timestamp last). Each carries its usage, its cost from the price table and how it was priced;
 * their costs sum to `stats().totals.costUsd` for the same selection. Files found by walking that
 * are not transcripts are skipped; a path named in `paths` that cannot be read, or an invalid
 * option, throws a `ClaudeJsonlError` before the first request (exit code 3 or 2).
 */
export async function* requests(target: string | RequestsOptions = {}): AsyncGenerator<ApiRequest> {
  const opts: RequestsOptions = typeof target === 'string' ? { paths: [target] } : target
  const window = dayWindow(opts)
  const scanned = await scanEstateFiles(opts, 'usage', window.minMtimeMs, false)
  unusableFiles(scanned.roots, scanned.files) // throws for a named file that is not a transcript; others hold no request
  const pages = scannedRequests(scanned, window.includes)
  scanned.scan.release()
  for (const page of pages) yield* page
}

/**
 * The counted requests of an estate scanned in usage mode, priced, in pages of objects made
 * one page at a time (`includes` selects by the counted entry's time). The scan's requests are
 * read at once, so the scan may be released before the first page is taken.
 */
export function scannedRequests(
  { scan, files }: Pick<ScannedEstate, 'scan' | 'files'>,
  includes: (timeMs: number) => boolean = () => true,
): Generator<ApiRequest[]> {
  const sessions = scan.sessions()
  const thresholds = promptThresholds()
  const r = scan.requests(thresholds)
  return pagesOf(r, files, sessions, thresholds, includes)
}

function* pagesOf(
  r: RequestColumns,
  files: EstateFileInfo[],
  sessions: SessionInfo[],
  thresholds: number[],
  includes: (timeMs: number) => boolean,
): Generator<ApiRequest[]> {
  const resolve = priceResolver()
  const n = r.file.length
  for (let start = 0; start < n; start += PAGE) {
    const page: ApiRequest[] = []
    for (let i = start; i < Math.min(n, start + PAGE); i++) {
      if (!includes(r.timeMs[i])) continue
      const file = files[r.file[i]]
      const session = sessions[r.session[i]]
      const usage: RequestUsageTokens = {
        inputTokens: r.inputTokens[i],
        outputTokens: r.outputTokens[i],
        cacheCreationInputTokens: r.cacheCreationInputTokens[i],
        cacheWrite5mTokens: r.cacheWrite5mTokens[i],
        cacheWrite1hTokens: r.cacheWrite1hTokens[i],
        cacheReadInputTokens: r.cacheReadInputTokens[i],
      }
      const speed = r.speed[i] ?? undefined
      const tier = r.serviceTier[i] ?? undefined
      if (speed !== undefined) usage.speed = speed
      if (tier !== undefined) usage.serviceTier = tier
      const priced = priceRequest(
        resolve,
        r.model[i],
        r.timeMs[i],
        { ...usage, cacheReadTokens: usage.cacheReadInputTokens },
        speed,
        r.promptBand[i],
        thresholds,
      )
      const q: ApiRequest = {
        timeMs: r.timeMs[i],
        model: r.model[i],
        sessionId: session.sessionId,
        project: session.project,
        path: file.path,
        line: r.line[i],
        subagent: file.kind === 'subagent',
        usage,
        priceEstimated: priced.estimated,
        longContext: priced.longContext,
        fast: priced.fast,
      }
      const timestamp = r.timestamp[i]
      if (timestamp) q.timestamp = timestamp
      if (r.requestId[i]) q.requestId = r.requestId[i]!
      if (r.messageId[i]) q.messageId = r.messageId[i]!
      if (priced.costUsd !== undefined) q.costUsd = priced.costUsd
      if (priced.pricedAs !== undefined) q.pricedAs = priced.pricedAs
      page.push(q)
    }
    yield page
  }
}
