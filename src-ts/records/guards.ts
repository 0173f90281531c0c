// Type guards for the transcript records. Each record type has a table of checks, one per declared
// field; the tables are typed against the interfaces, so a field added to an interface without a
// check (or a check looser than the field's type) does not compile.
import type { ContentBlock } from './blocks.js'
import type {
  AgentColorRecord,
  AgentNameRecord,
  AiTitleRecord,
  AssistantRecord,
  AtisLatchRecord,
  AttachmentRecord,
  BridgeSessionRecord,
  CompactBoundaryRecord,
  ContinuedInRecord,
  ConversationFields,
  CustomTitleRecord,
  FileHistorySnapshotRecord,
  KnownRecord,
  KnownRecordType,
  LastPromptRecord,
  ModeRecord,
  PermissionModeRecord,
  PrLinkRecord,
  ProgressRecord,
  QueueOperationRecord,
  SavedHookContextRecord,
  SummaryRecord,
  SystemRecord,
  TagRecord,
  TurnDurationRecord,
  UserRecord,
} from './types.js'

type Check<V> = (v: unknown) => v is V
/** One check per field of T, optional fields included. */
type Checks<T> = { [K in keyof T]-?: Check<T[K]> }

const str: Check<string> = (v): v is string => typeof v === 'string'
const num: Check<number> = (v): v is number => typeof v === 'number'
const bool: Check<boolean> = (v): v is boolean => typeof v === 'boolean'
const any: Check<unknown> = (_v): _v is unknown => true
const object: Check<Record<string, unknown>> = (v): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v)
const array: Check<unknown[]> = (v): v is unknown[] => Array.isArray(v)
function literal<L extends string>(l: L): Check<L> {
  return (v): v is L => v === l
}
function opt<V>(check: Check<V>): Check<V | undefined> {
  return (v): v is V | undefined => v === undefined || check(v)
}
function nullable<V>(check: Check<V>): Check<V | null> {
  return (v): v is V | null => v === null || check(v)
}
function oneOf<A, B>(a: Check<A>, b: Check<B>): Check<A | B> {
  return (v): v is A | B => a(v) || b(v)
}
function shape<T>(checks: Checks<T>): Check<T> {
  const entries = Object.entries(checks) as [string, Check<unknown>][]
  return (v): v is T => object(v) && entries.every(([k, check]) => check(v[k]))
}
/** A content block: any object with a string `type`; known block types keep their own fields as written. */
const block: Check<ContentBlock> = (v): v is ContentBlock => object(v) && typeof v.type === 'string'
const blocks: Check<ContentBlock[]> = (v): v is ContentBlock[] => Array.isArray(v) && v.every(block)

const conversation: Checks<ConversationFields> = {
  uuid: str,
  parentUuid: nullable(str),
  logicalParentUuid: opt(nullable(str)),
  isSidechain: opt(bool),
  userType: opt(str),
  cwd: opt(str),
  sessionId: opt(str),
  version: opt(str),
  gitBranch: opt(str),
  slug: opt(str),
  timestamp: opt(str),
  entrypoint: opt(str),
  agentId: opt(str),
  isMeta: opt(bool),
}

const usage = shape<NonNullable<AssistantRecord['message']['usage']>>({
  input_tokens: num,
  output_tokens: num,
  cache_creation_input_tokens: opt(num),
  cache_read_input_tokens: opt(num),
  cache_creation: opt(shape({ ephemeral_5m_input_tokens: opt(num), ephemeral_1h_input_tokens: opt(num) })),
  service_tier: opt(nullable(str)),
  server_tool_use: opt(shape({ web_search_requests: opt(num), web_fetch_requests: opt(num) })),
  inference_geo: opt(nullable(str)),
  iterations: opt(nullable(array)),
  speed: opt(nullable(str)),
})

const system: Checks<SystemRecord> = {
  ...conversation,
  type: literal('system'),
  subtype: opt(str),
  content: opt(str),
  level: opt(str),
  toolUseID: opt(str),
}

/** The check of each known record type. */
const RECORD_CHECKS: { [T in KnownRecordType]: Check<Extract<KnownRecord, { type: T }>> } = {
  user: shape<UserRecord>({
    ...conversation,
    type: literal('user'),
    message: shape({ role: literal('user'), content: oneOf(str, blocks) }),
    toolUseResult: any,
    sourceToolAssistantUUID: opt(str),
    isCompactSummary: opt(bool),
    isVisibleInTranscriptOnly: opt(bool),
    permissionMode: opt(str),
    promptId: opt(str),
    thinkingMetadata: opt(object),
    todos: opt(array),
  }),
  assistant: shape<AssistantRecord>({
    ...conversation,
    type: literal('assistant'),
    message: shape<AssistantRecord['message']>({
      id: opt(str),
      type: opt(str),
      role: literal('assistant'),
      model: opt(str),
      content: blocks,
      stop_reason: opt(nullable(str)),
      stop_sequence: opt(nullable(str)),
      usage: opt(usage),
    }),
    requestId: opt(str),
    isApiErrorMessage: opt(bool),
    attributionSkill: opt(str),
  }),
  system: shape<SystemRecord>(system),
  attachment: shape<AttachmentRecord>({
    ...conversation,
    type: literal('attachment'),
    attachment: (v): v is AttachmentRecord['attachment'] => object(v) && typeof v.type === 'string',
  }),
  progress: shape<ProgressRecord>({
    ...conversation,
    type: literal('progress'),
    data: object,
    toolUseID: opt(str),
    parentToolUseID: opt(str),
  }),
  'last-prompt': shape<LastPromptRecord>({
    type: literal('last-prompt'),
    leafUuid: opt(str),
    lastPrompt: opt(str),
    sessionId: opt(str),
  }),
  summary: shape<SummaryRecord>({ type: literal('summary'), summary: str, leafUuid: opt(str) }),
  'custom-title': shape<CustomTitleRecord>({ type: literal('custom-title'), customTitle: str, sessionId: opt(str) }),
  'ai-title': shape<AiTitleRecord>({ type: literal('ai-title'), aiTitle: str, sessionId: opt(str) }),
  'agent-name': shape<AgentNameRecord>({ type: literal('agent-name'), agentName: str, sessionId: opt(str) }),
  mode: shape<ModeRecord>({ type: literal('mode'), mode: str, sessionId: opt(str) }),
  'permission-mode': shape<PermissionModeRecord>({
    type: literal('permission-mode'),
    permissionMode: str,
    sessionId: opt(str),
  }),
  'queue-operation': shape<QueueOperationRecord>({
    type: literal('queue-operation'),
    operation: str,
    content: opt(str),
    timestamp: opt(str),
    sessionId: opt(str),
  }),
  'file-history-snapshot': shape<FileHistorySnapshotRecord>({
    type: literal('file-history-snapshot'),
    messageId: str,
    snapshot: object,
    isSnapshotUpdate: opt(bool),
  }),
  'pr-link': shape<PrLinkRecord>({
    type: literal('pr-link'),
    prNumber: num,
    prUrl: str,
    prRepository: opt(str),
    timestamp: opt(str),
    sessionId: opt(str),
  }),
  'bridge-session': shape<BridgeSessionRecord>({
    type: literal('bridge-session'),
    bridgeSessionId: str,
    lastSequenceNum: opt(num),
    sessionId: opt(str),
  }),
  'atis-latch': shape<AtisLatchRecord>({ type: literal('atis-latch'), atis: str, sessionId: opt(str) }),
  saved_hook_context: shape<SavedHookContextRecord>({
    type: literal('saved_hook_context'),
    sessionId: opt(str),
    timestamp: opt(str),
  }),
  'agent-color': shape<AgentColorRecord>({ type: literal('agent-color'), agentColor: opt(str), sessionId: opt(str) }),
  'continued-in': shape<ContinuedInRecord>({
    type: literal('continued-in'),
    continuedInSessionId: opt(str),
    sessionId: opt(str),
  }),
  tag: shape<TagRecord>({ type: literal('tag'), tag: opt(str), sessionId: opt(str) }),
}

/**
 * The record types Claude Code writes, in the order their checks are declared: the core's list
 * (the doctor and the transcript gate use it as it comes from the core), typed here.
 */
export const KNOWN_RECORD_TYPES = Object.keys(RECORD_CHECKS) as readonly KnownRecordType[]

/** Whether `v` is a known record: its `type` is known and every declared field has its declared JS type. */
export function isKnownRecord(v: unknown): v is KnownRecord {
  if (!object(v) || typeof v.type !== 'string' || !Object.hasOwn(RECORD_CHECKS, v.type)) return false
  return RECORD_CHECKS[v.type as KnownRecordType](v)
}

/** A type guard for one known record type. */
export function isRecordOf<T extends KnownRecordType>(type: T, v: unknown): v is Extract<KnownRecord, { type: T }> {
  return RECORD_CHECKS[type](v)
}

/** A human message, tool result or injected user text. */
export const isUserRecord = (v: unknown): v is UserRecord => RECORD_CHECKS.user(v)
/** A fragment of a model response. */
export const isAssistantRecord = (v: unknown): v is AssistantRecord => RECORD_CHECKS.assistant(v)
/** A client event in the conversation (any subtype). */
export const isSystemRecord = (v: unknown): v is SystemRecord => RECORD_CHECKS.system(v)
/** An attachment record. */
export const isAttachmentRecord = (v: unknown): v is AttachmentRecord => RECORD_CHECKS.attachment(v)
/** A progress record. */
export const isProgressRecord = (v: unknown): v is ProgressRecord => RECORD_CHECKS.progress(v)
/** The resume pointer. */
export const isLastPromptRecord = (v: unknown): v is LastPromptRecord => RECORD_CHECKS['last-prompt'](v)
/** An old-style compaction summary. */
export const isSummaryRecord = (v: unknown): v is SummaryRecord => RECORD_CHECKS.summary(v)
/** A title a person set. */
export const isCustomTitleRecord = (v: unknown): v is CustomTitleRecord => RECORD_CHECKS['custom-title'](v)
/** A generated title. */
export const isAiTitleRecord = (v: unknown): v is AiTitleRecord => RECORD_CHECKS['ai-title'](v)
/** An agent name. */
export const isAgentNameRecord = (v: unknown): v is AgentNameRecord => RECORD_CHECKS['agent-name'](v)
/** A session mode. */
export const isModeRecord = (v: unknown): v is ModeRecord => RECORD_CHECKS.mode(v)
/** A permission mode. */
export const isPermissionModeRecord = (v: unknown): v is PermissionModeRecord => RECORD_CHECKS['permission-mode'](v)
/** A queue operation. */
export const isQueueOperationRecord = (v: unknown): v is QueueOperationRecord => RECORD_CHECKS['queue-operation'](v)
/** A file-history snapshot. */
export const isFileHistorySnapshotRecord = (v: unknown): v is FileHistorySnapshotRecord =>
  RECORD_CHECKS['file-history-snapshot'](v)
/** A pull-request link. */
export const isPrLinkRecord = (v: unknown): v is PrLinkRecord => RECORD_CHECKS['pr-link'](v)
/** A Remote Control association. */
export const isBridgeSessionRecord = (v: unknown): v is BridgeSessionRecord => RECORD_CHECKS['bridge-session'](v)
/** An atis-latch record. */
export const isAtisLatchRecord = (v: unknown): v is AtisLatchRecord => RECORD_CHECKS['atis-latch'](v)
/** Saved hook context. */
export const isSavedHookContextRecord = (v: unknown): v is SavedHookContextRecord => RECORD_CHECKS.saved_hook_context(v)

/** A compaction boundary (a system record of subtype `compact_boundary` with its metadata). */
export function isCompactBoundaryRecord(v: unknown): v is CompactBoundaryRecord {
  return (
    isSystemRecord(v) &&
    v.subtype === 'compact_boundary' &&
    object((v as { compactMetadata?: unknown }).compactMetadata)
  )
}

/** A turn-duration record. */
export function isTurnDurationRecord(v: unknown): v is TurnDurationRecord {
  return isSystemRecord(v) && v.subtype === 'turn_duration' && num((v as { durationMs?: unknown }).durationMs)
}
