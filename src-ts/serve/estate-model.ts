// What the web view shows of an estate, kept in memory and refreshed as transcripts change: the
// sessions (titles and times by the rule `sessions` uses, read again only for files whose size or
// mtime changed) and the usage (every deduplicated request, as `requests()` and `stats` count
// them, summed by session, by day and model, and by day and project).
//
// Pages are answered from the last snapshot. A change is noticed by a walk of the estate (file
// sizes and mtimes, no reads) at most once per `checkEveryMs`; the new snapshot is built in the
// background, one build at a time, while pages keep answering from the old one.
import { discoverFiles } from '../read/session-ref.js'
import { transcriptFactsSync, isV5Uuid, type TitleSource } from '../read/sessions.js'
import { requests } from '../read/requests.js'
import { dayFormatter } from '../read/days.js'
import type { EstateOptions } from '../read/estate.js'
import type { DiscoveredFile } from '../native.js'

/** One session as the list page shows it. */
export interface ServedSession {
  sessionId: string
  path: string
  project: string
  cwd: string | null
  title: string | null
  titleSource: TitleSource | null
  /** ms since the epoch: the last record's timestamp, else the file's mtime. */
  lastActivityMs: number
  /** Bytes of the main transcript and of its subagent transcripts. */
  size: number
  subagentSize: number
  requests: number
  /** USD of the priced requests; `unpricedRequests` are in no cost. */
  costUsd: number
  unpricedRequests: number
  isV5: boolean
}

/** Tokens and cost of a set of requests. */
export interface UsageCell {
  requests: number
  inputTokens: number
  outputTokens: number
  cacheCreationInputTokens: number
  cacheReadInputTokens: number
  costUsd: number
  unpricedRequests: number
}

/** Usage by local day: per model and per project, each a cell. */
export interface DayUsage {
  day: string
  byModel: Map<string, UsageCell>
  byProject: Map<string, UsageCell>
}

/** One consistent view of the estate. */
export interface EstateSnapshot {
  /** Sessions, most recent activity first. */
  sessions: ServedSession[]
  byId: Map<string, ServedSession>
  projects: string[]
  /** Days in order; 'unknown' (requests without a timestamp) last when present. */
  days: DayUsage[]
  timezone: string
  builtAt: number
  /** ms the build took. */
  buildMs: number
  /** Transcripts under the roots (main and subagent) and their bytes. */
  files: number
  bytes: number
}

export interface EstateModelOptions extends Pick<EstateOptions, 'projects' | 'paths' | 'env'> {
  /** IANA zone for days (default: the system's). */
  timezone?: string
  /** How often at most the estate is walked for changes (default 2000 ms). */
  checkEveryMs?: number
}

export function emptyCell(): UsageCell {
  return {
    requests: 0,
    inputTokens: 0,
    outputTokens: 0,
    cacheCreationInputTokens: 0,
    cacheReadInputTokens: 0,
    costUsd: 0,
    unpricedRequests: 0,
  }
}

export function addCell(to: UsageCell, from: UsageCell): void {
  to.requests += from.requests
  to.inputTokens += from.inputTokens
  to.outputTokens += from.outputTokens
  to.cacheCreationInputTokens += from.cacheCreationInputTokens
  to.cacheReadInputTokens += from.cacheReadInputTokens
  to.costUsd += from.costUsd
  to.unpricedRequests += from.unpricedRequests
}

function cellOf(map: Map<string, UsageCell>, key: string): UsageCell {
  let c = map.get(key)
  if (!c) map.set(key, (c = emptyCell()))
  return c
}

/** A fingerprint of what the walk saw: any added, removed, grown or touched file changes it. */
function signature(files: DiscoveredFile[]): string {
  return files
    .map((f) => `${f.path}\0${f.size}\0${f.mtimeMs}`)
    .sort()
    .join('\n')
}

interface FactsEntry {
  size: number
  mtimeMs: number
  facts: ReturnType<typeof transcriptFactsSync> | null
}

/** The estate as the web view serves it; see the module comment for how it stays current. */
export class EstateModel {
  private current: EstateSnapshot | undefined
  private currentSignature = ''
  private building: Promise<EstateSnapshot> | undefined
  private lastCheck = 0
  private readonly facts = new Map<string, FactsEntry>()
  private readonly timezone: string
  private readonly checkEveryMs: number

  constructor(private readonly opts: EstateModelOptions = {}) {
    this.timezone = opts.timezone ?? Intl.DateTimeFormat().resolvedOptions().timeZone
    dayFormatter(this.timezone) // a bad zone is a usage error now, not on the first page
    this.checkEveryMs = opts.checkEveryMs ?? 2000
  }

  /**
   * The snapshot to answer from: the current one (a change found by the walk starts a build in the
   * background), or, before the first build has finished, that build.
   */
  async snapshot(): Promise<EstateSnapshot> {
    if (!this.current) return this.refresh()
    const now = Date.now()
    if (!this.building && now - this.lastCheck >= this.checkEveryMs) {
      this.lastCheck = now
      const files = this.walk()
      if (signature(files) !== this.currentSignature) void this.refresh(files).catch(() => undefined)
    }
    return this.current
  }

  /** Builds a new snapshot now (one build at a time: a call during a build gets that build). */
  refresh(files?: DiscoveredFile[]): Promise<EstateSnapshot> {
    if (this.building) return this.building
    this.building = this.build(files ?? this.walk()).finally(() => {
      this.building = undefined
    })
    return this.building
  }

  private walk(): DiscoveredFile[] {
    return discoverFiles({ projects: this.opts.projects, paths: this.opts.paths, env: this.opts.env })
  }

  private factsOf(f: DiscoveredFile): FactsEntry['facts'] {
    const known = this.facts.get(f.path)
    if (known && known.size === f.size && known.mtimeMs === f.mtimeMs) return known.facts
    let facts: FactsEntry['facts'] = null
    try {
      facts = transcriptFactsSync(f.path, f.size)
    } catch {
      facts = null // vanished or unreadable since the walk: listed from the walk alone
    }
    this.facts.set(f.path, { size: f.size, mtimeMs: f.mtimeMs, facts })
    return facts
  }

  private async build(files: DiscoveredFile[]): Promise<EstateSnapshot> {
    const t0 = Date.now()
    const sig = signature(files)
    const seen = new Set(files.map((f) => f.path))
    for (const path of this.facts.keys()) if (!seen.has(path)) this.facts.delete(path)

    const byId = new Map<string, ServedSession>()
    const key = (project: string, id: string) => `${project}\0${id}`
    const byKey = new Map<string, ServedSession>()
    let i = 0
    for (const f of files) {
      if (f.kind !== 'session') continue
      // Reading heads and tails is synchronous: give the event loop a turn now and then.
      if (++i % 32 === 0) await new Promise((r) => setImmediate(r))
      const x = this.factsOf(f)
      const sessionId = f.sessionId ?? x?.sessionId ?? ''
      const last = x?.lastTimestamp ? Date.parse(x.lastTimestamp) : NaN
      const s: ServedSession = {
        sessionId,
        path: f.path,
        project: f.project,
        cwd: x?.cwd ?? null,
        title: x?.title ?? null,
        titleSource: x?.titleSource ?? null,
        lastActivityMs: Number.isNaN(last) ? f.mtimeMs : last,
        size: f.size,
        subagentSize: 0,
        requests: 0,
        costUsd: 0,
        unpricedRequests: 0,
        isV5: isV5Uuid(sessionId),
      }
      byKey.set(key(f.project, sessionId), s)
      if (!byId.has(sessionId)) byId.set(sessionId, s)
    }
    for (const f of files) {
      if (f.kind !== 'session' && f.sessionId) {
        const s = byKey.get(key(f.project, f.sessionId))
        if (s) s.subagentSize += f.size
      }
    }

    const dayOf = dayFormatter(this.timezone)
    const days = new Map<string, DayUsage>()
    if (files.length > 0) {
      // The same selection as the walk, so a file that is no transcript is skipped, not an error.
      const { projects, paths, env } = this.opts
      for await (const r of requests({ projects, paths, env, timezone: this.timezone })) {
        const cell: UsageCell = {
          requests: 1,
          inputTokens: r.usage.inputTokens,
          outputTokens: r.usage.outputTokens,
          cacheCreationInputTokens: r.usage.cacheCreationInputTokens,
          cacheReadInputTokens: r.usage.cacheReadInputTokens,
          costUsd: r.costUsd ?? 0,
          unpricedRequests: r.costUsd === undefined ? 1 : 0,
        }
        const s = byKey.get(key(r.project, r.sessionId))
        if (s) {
          s.requests += 1
          s.costUsd += cell.costUsd
          s.unpricedRequests += cell.unpricedRequests
        }
        const day = dayOf(r.timeMs)
        let d = days.get(day)
        if (!d) days.set(day, (d = { day, byModel: new Map(), byProject: new Map() }))
        addCell(cellOf(d.byModel, r.model), cell)
        addCell(cellOf(d.byProject, r.project), cell)
      }
    }
    const sessions = [...byKey.values()].sort(
      (a, b) => b.lastActivityMs - a.lastActivityMs || (a.sessionId < b.sessionId ? -1 : 1),
    )
    const snap: EstateSnapshot = {
      sessions,
      byId,
      projects: [...new Set(sessions.map((s) => s.project))].sort(),
      days: [...days.values()].sort((a, b) =>
        a.day === 'unknown' ? 1 : b.day === 'unknown' ? -1 : a.day < b.day ? -1 : 1,
      ),
      timezone: this.timezone,
      builtAt: Date.now(),
      buildMs: Date.now() - t0,
      files: files.length,
      bytes: files.reduce((a, f) => a + f.size, 0),
    }
    this.current = snap
    this.currentSignature = sig
    this.lastCheck = Date.now()
    return snap
  }
}
