// The one new compact pair: a `system`/`compact_boundary` record and its direct `user` child
// carrying the summary. Keys are in the order Claude Code writes them (observed in its own
// compactions), serialised with compact separators, so byte-level readers of the format (the
// client's large-file fast path) index them like native records.
import { randomUUID } from 'node:crypto'

/** Fields every record of the session carries, copied from the first kept record. */
export interface CommonFields {
  userType?: unknown
  cwd?: unknown
  sessionId?: unknown
  version?: unknown
  gitBranch?: unknown
  slug?: unknown
}

const COMMON_KEYS = ['userType', 'cwd', 'sessionId', 'version', 'gitBranch', 'slug'] as const

export function commonFieldsOf(record: Record<string, unknown>): CommonFields {
  const out: CommonFields = {}
  for (const k of COMMON_KEYS) if (record[k] !== undefined) out[k] = record[k]
  return out
}

export interface CompactPairInput {
  common: CommonFields
  /** The synthetic records' timestamps: just before the first kept record, never "now". */
  boundaryTimestamp: string
  summaryTimestamp: string
  /** The last summarised record (the boundary's logical parent), when there is one. */
  logicalParentUuid?: string
  summaryText: string
  compactMetadata: Record<string, unknown>
  boundaryUuid?: string
  summaryUuid?: string
}

export interface CompactPair {
  boundaryUuid: string
  summaryUuid: string
  boundaryLine: string
  summaryLine: string
}

export function buildCompactPair(p: CompactPairInput): CompactPair {
  const boundaryUuid = p.boundaryUuid ?? randomUUID()
  const summaryUuid = p.summaryUuid ?? randomUUID()
  const boundary = {
    parentUuid: null,
    ...(p.logicalParentUuid ? { logicalParentUuid: p.logicalParentUuid } : {}),
    isSidechain: false,
    ...p.common,
    type: 'system',
    subtype: 'compact_boundary',
    content: 'Conversation compacted',
    isMeta: false,
    timestamp: p.boundaryTimestamp,
    uuid: boundaryUuid,
    level: 'info',
    compactMetadata: { ...p.compactMetadata, summaryUuid },
  }
  const summary = {
    parentUuid: boundaryUuid,
    isSidechain: false,
    ...p.common,
    type: 'user',
    message: { role: 'user', content: p.summaryText },
    isVisibleInTranscriptOnly: true,
    isCompactSummary: true,
    uuid: summaryUuid,
    timestamp: p.summaryTimestamp,
  }
  return { boundaryUuid, summaryUuid, boundaryLine: JSON.stringify(boundary), summaryLine: JSON.stringify(summary) }
}

/** `ms` milliseconds before an ISO timestamp, as ISO with milliseconds. */
export function isoBefore(timestamp: string, ms: number): string | undefined {
  const t = Date.parse(timestamp)
  return Number.isFinite(t) ? new Date(t - ms).toISOString() : undefined
}
