/**
 * The root entry point: reading and analysing transcripts (records, conversations, requests,
 * stats and cost, sessions, search, validation, show and timeline), prices, and the error every
 * entry point throws. Compressing and repairing are in `claude-jsonl/compress`, the archive in
 * `claude-jsonl/archive`, the durable session store in `claude-jsonl/store`.
 *
 * @packageDocumentation
 * @module claude-jsonl
 */
// First, so that this comment stays the declaration file's first: it names the module.
export type { EstateOptions, Roots } from './read/estate.js'
import native from './native.js'
import type { EstateFileInfo, ScanMode, SessionInfo, TranscriptIndex } from './native.js'
import { EstateOptions, Roots, scanEstateFiles } from './read/estate.js'
import { fromNative } from './errors.js'

export { stats } from './read/stats.js'
export type {
  GroupBy,
  PricingNotes,
  StatsGroup,
  StatsOptions,
  StatsReport,
  TokenTotals,
  ToolTargets,
} from './read/stats.js'
export { doctor } from './read/doctor.js'
export type { DoctorFile, DoctorOptions, DoctorReport, Finding } from './read/doctor.js'
export { resolveRoots, claudeConfigDirs } from './read/estate.js'
export { resolveSession, discoverFiles } from './read/session-ref.js'
export type { SessionRef } from './read/session-ref.js'
export { showSession } from './read/show.js'
export type { ShowOptions, ShowResult, Turn, Item, RequestUsage } from './read/show.js'
export { renderShow } from './cli/show-render.js'
export type { ShowFormat } from './cli/show-render.js'
export { timeline } from './read/timeline.js'
export { renderTimeline } from './cli/timeline-render.js'
export { listSessions } from './read/sessions.js'
export type { SessionListing, SessionSummary, SessionsOptions, TitleSource } from './read/sessions.js'
export { teleportId, teleportUuid, uuid5, parseTeleportId } from './read/teleport.js'
export type { TeleportOptions, TeleportResult } from './read/teleport.js'
export { find, findExact, defaultIndexDir } from './read/find.js'
export type { FindOptions, FindHit, FindReport, FindExactOptions, FindExactHit, FindExactReport } from './read/find.js'
export { validate } from './read/validate.js'
export { renderValidation } from './cli/validate-render.js'
export type { ValidationReport, ValidationIssue } from './read/validate.js'
/** Local token estimate of a text (the per-character heuristic, no per-record allowance). */
export function estimateTokens(text: string): number {
  return native.estimateTextTokens(text)
}
export type { TimelineOptions, TimelineResult, TimelineTurn } from './read/timeline.js'
export { liveSessions, sessionHolders, checkSessionClosed } from './read/live-sessions.js'
export type { LiveSessions, LiveHolder, StaleRecord, RegistryRecord } from './read/live-sessions.js'
export { clientView } from './read/client-view.js'
export type { ClientView, ClientMessage } from './read/client-view.js'
export { ClaudeJsonlError, EXIT } from './errors.js'
export { costUsd, priceFor, estimatePriceFor, normalizeModelId, PRICE_TABLE_DATE } from './read/prices.js'
export type { CostOptions, ModelPrice, PriceMatch, TokenCounts } from './read/prices.js'
export type {
  EstateFileInfo,
  ProgressSnapshot,
  RecordInfo,
  ScanMode,
  ScanSummary,
  SessionInfo,
  TranscriptIndex,
} from './native.js'

/** Version of the native core. */
export function nativeVersion(): string {
  return native.version()
}

/**
 * Indexes one transcript file natively (split across cores when large; no size limit from V8
 * strings). `mode: 'usage'` parses only lines that can carry token usage.
 */
export async function scanFile(path: string, options: { mode?: ScanMode } = {}): Promise<TranscriptIndex> {
  try {
    return await native.scanFile(path, options.mode ?? 'full')
  } catch (e) {
    throw fromNative(e, path)
  }
}

/** Indexes a transcript already in memory. The Buffer is read in place, never copied to JS strings. */
export function scanBuffer(buffer: Uint8Array, options: { mode?: ScanMode } = {}): TranscriptIndex {
  return native.scanBuffer(buffer, options.mode ?? 'full')
}

/**
 * What `scanEstate` found: the roots it searched, every transcript file with its scan summary, and
 * the sessions they make up.
 */
export interface EstateScanResult {
  roots: Roots
  files: EstateFileInfo[]
  sessions: SessionInfo[]
}

/**
 * Finds every session and subagent transcript under the estate root (or given paths) and scans
 * them in parallel off the JS thread. Returns per-file summaries (counts, not records).
 */
export async function scanEstate(options: EstateOptions & { mode?: ScanMode } = {}): Promise<EstateScanResult> {
  const { roots, scan, files } = await scanEstateFiles(options, options.mode ?? 'full')
  const sessions = scan.sessions()
  scan.release()
  return { roots, files, sessions }
}
// The guards: one per common record type, and isRecordOf(type, v) for every other known type.
export {
  KNOWN_RECORD_TYPES,
  isKnownRecord,
  isRecordOf,
  isUserRecord,
  isAssistantRecord,
  isSystemRecord,
  isCompactBoundaryRecord,
  isTurnDurationRecord,
} from './records/guards.js'
export type * from './records/types.js'
export type * from './records/blocks.js'
export { records } from './records/read.js'
export type { RecordsOptions, RecordItem, KnownRecordItem, UnknownRecordItem, LineProblem } from './records/read.js'
export { conversation } from './records/conversation.js'
export type {
  BadLinesProblem,
  ChangedProblem,
  Conversation,
  ConversationMessage,
  ConversationProblem,
  NoConversationProblem,
  TornTailProblem,
  ConversationRecordRef,
  DroppedRecord,
} from './records/conversation.js'
export { requests } from './read/requests.js'
export type { ApiRequest, RequestsOptions, RequestUsageTokens } from './read/requests.js'
