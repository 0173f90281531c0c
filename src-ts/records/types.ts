// The records Claude Code writes to a session transcript, one JSON object per line, as a union
// discriminated on `type`. Each record is the parsed line itself: fields not declared here (new
// ones, or ones this package does not use) are kept, never stripped. A line whose `type` is not
// listed, or whose declared fields have other JS types than declared, is an `UnknownRecord`.
// "Seen in" gives the client versions of the sample transcripts and fixtures the type was read in.
import type { ContentBlock, Usage } from './blocks.js'

/** Fields of the records that take part in the conversation graph (uuid and parent links). */
export interface ConversationFields {
  uuid: string
  /** The record this one follows; null at a root (the first record, or after a compaction). */
  parentUuid: string | null
  /** The pre-compaction parent of a `compact_boundary`. */
  logicalParentUuid?: string | null
  /** True in subagent transcripts. */
  isSidechain?: boolean
  /** `external` for a person's session. */
  userType?: string
  cwd?: string
  sessionId?: string
  /** The client version that wrote the record, e.g. `2.1.143`. */
  version?: string
  gitBranch?: string
  /** The session's short human name. */
  slug?: string
  /** ISO 8601 time the record was written. */
  timestamp?: string
  /** How the client was started: `cli`, `sdk-cli`, `sdk-ts`, ... */
  entrypoint?: string
  /** Set in subagent transcripts. */
  agentId?: string
  /** Records the client writes for itself, not shown as conversation. */
  isMeta?: boolean
}

/**
 * A human message, a tool result, or text the client injects as the user (skill bodies, command
 * output, the compact summary). Seen in 2.0.76 to 2.1.143.
 */
export interface UserRecord extends ConversationFields {
  type: 'user'
  message: { role: 'user'; content: string | ContentBlock[] }
  /** The tool's own structured result, beside the `tool_result` block the API sees. */
  toolUseResult?: unknown
  /** The uuid of the assistant record whose `tool_use` this record answers. */
  sourceToolAssistantUUID?: string
  /** True on the summary record a compaction writes. */
  isCompactSummary?: boolean
  isVisibleInTranscriptOnly?: boolean
  permissionMode?: string
  promptId?: string
  thinkingMetadata?: Record<string, unknown>
  todos?: unknown[]
}

/**
 * One fragment of a model response: the client writes one record per content block of a streamed
 * response, all with the same `message.id` and `requestId`. Seen in 2.0.76 to 2.1.143.
 */
export interface AssistantRecord extends ConversationFields {
  type: 'assistant'
  message: {
    id?: string
    type?: string
    role: 'assistant'
    /** `<synthetic>` on records the client made up (errors, interruptions). */
    model?: string
    content: ContentBlock[]
    stop_reason?: string | null
    stop_sequence?: string | null
    usage?: Usage
  }
  requestId?: string
  /** True when the client wrote an API error as an assistant message. */
  isApiErrorMessage?: boolean
  attributionSkill?: string
}

/**
 * A client event in the conversation: `subtype` says which (`compact_boundary`, `turn_duration`,
 * `stop_hook_summary`, `local_command`, `away_summary`, `api_error`, ...). Seen in 2.0.76 to 2.1.143.
 */
export interface SystemRecord extends ConversationFields {
  type: 'system'
  subtype?: string
  content?: string
  /** `info`, `warning`, `error`, ... */
  level?: string
  toolUseID?: string
}

/** Where a compaction happened: the chain before it is replaced by the summary that follows. Seen in 2.1.7 to 2.1.17. */
export interface CompactBoundaryRecord extends SystemRecord {
  subtype: 'compact_boundary'
  compactMetadata: {
    trigger?: string
    preTokens?: number
    /** The records kept verbatim after the summary (head, anchor and tail uuids). */
    preservedSegment?: Record<string, unknown>
  }
}

/** How long a turn took. Seen in 2.1.7 to 2.1.143. */
export interface TurnDurationRecord extends SystemRecord {
  subtype: 'turn_duration'
  durationMs: number
  messageCount?: number
}

/** Context injected into the conversation; `attachment.type` says which (hook output, file edits, skill listings, diagnostics, ...). Seen in 2.1.108 to 2.1.143. */
export interface AttachmentRecord extends ConversationFields {
  type: 'attachment'
  attachment: { type: string; [field: string]: unknown }
}

/** Streaming output of a running tool, hook or subagent. Seen in 2.1.12 to 2.1.17. */
export interface ProgressRecord extends ConversationFields {
  type: 'progress'
  data: Record<string, unknown>
  toolUseID?: string
  parentToolUseID?: string
}

/** The pointer the client resumes from: `leafUuid` names the record the session ended on. Seen in 2.1.110 to 2.1.143. */
export interface LastPromptRecord {
  type: 'last-prompt'
  leafUuid?: string
  lastPrompt?: string
  sessionId?: string
}

/** A compaction summary of older clients, pointing at the leaf it summarises. Seen in 2.0.76 to 2.1.17. */
export interface SummaryRecord {
  type: 'summary'
  summary: string
  leafUuid?: string
}

/** The session name a person set. */
export interface CustomTitleRecord {
  type: 'custom-title'
  customTitle: string
  sessionId?: string
}

/** The title the client generated: what `claude --resume` lists. Seen in 2.1.126 to 2.1.143. */
export interface AiTitleRecord {
  type: 'ai-title'
  aiTitle: string
  sessionId?: string
}

/** The session's agent name. */
export interface AgentNameRecord {
  type: 'agent-name'
  agentName: string
  sessionId?: string
}

/** The session mode, e.g. `normal`. Seen in 2.1.143. */
export interface ModeRecord {
  type: 'mode'
  mode: string
  sessionId?: string
}

/** The permission mode in force (`default`, `acceptEdits`, `plan`, ...). Seen in 2.1.108 to 2.1.143. */
export interface PermissionModeRecord {
  type: 'permission-mode'
  permissionMode: string
  sessionId?: string
}

/** Input typed while the model was busy: queued, dequeued or removed. Seen in 2.1.17 to 2.1.143. */
export interface QueueOperationRecord {
  type: 'queue-operation'
  operation: string
  content?: string
  timestamp?: string
  sessionId?: string
}

/** The state of the files the client backed up, for undo. Seen in 2.0.76 to 2.1.143. */
export interface FileHistorySnapshotRecord {
  type: 'file-history-snapshot'
  messageId: string
  snapshot: Record<string, unknown>
  isSnapshotUpdate?: boolean
}

/** A pull request the session created. Seen in 2.1.143. */
export interface PrLinkRecord {
  type: 'pr-link'
  prNumber: number
  prUrl: string
  prRepository?: string
  timestamp?: string
  sessionId?: string
}

/** A Remote Control association (`bridgeSessionId` is a `cse_…` id). Seen in 2.1.143. */
export interface BridgeSessionRecord {
  type: 'bridge-session'
  bridgeSessionId: string
  lastSequenceNum?: number
  sessionId?: string
}

/** A record whose purpose is not established; carries an `atis` string. Seen in 2.1.143. */
export interface AtisLatchRecord {
  type: 'atis-latch'
  atis: string
  sessionId?: string
}

/** Hook output the client keeps for later turns. */
export interface SavedHookContextRecord {
  type: 'saved_hook_context'
  sessionId?: string
  timestamp?: string
}

/** The session's agent colour. Not in the samples; named by the client's session listing. */
export interface AgentColorRecord {
  type: 'agent-color'
  agentColor?: string
  sessionId?: string
}

/** Says the session was continued in another one. Not in the samples; named by the client's session listing. */
export interface ContinuedInRecord {
  type: 'continued-in'
  continuedInSessionId?: string
  sessionId?: string
}

/** A tag set on the session. Not in the samples; named by the client's session listing. */
export interface TagRecord {
  type: 'tag'
  tag?: string
  sessionId?: string
}

/** Every record type this package knows, discriminated on `type`. */
export type KnownRecord =
  | UserRecord
  | AssistantRecord
  | SystemRecord
  | AttachmentRecord
  | ProgressRecord
  | LastPromptRecord
  | SummaryRecord
  | CustomTitleRecord
  | AiTitleRecord
  | AgentNameRecord
  | ModeRecord
  | PermissionModeRecord
  | QueueOperationRecord
  | FileHistorySnapshotRecord
  | PrLinkRecord
  | BridgeSessionRecord
  | AtisLatchRecord
  | SavedHookContextRecord
  | AgentColorRecord
  | ContinuedInRecord
  | TagRecord

/** The `type` values of the known records. */
export type KnownRecordType = KnownRecord['type']

/**
 * A JSON object line that is not a known record: a type this package does not know yet, or a known
 * type whose declared fields have other JS types. Kept whole, as written.
 */
export interface UnknownRecord {
  type?: unknown
  [field: string]: unknown
}

/** What a transcript line holds, once parsed as a JSON object. */
export type TranscriptRecord = KnownRecord | UnknownRecord
