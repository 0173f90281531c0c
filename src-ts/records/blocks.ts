// The parts of a message that Claude Code writes inside `message`: content blocks and the usage
// object. The shapes are the Anthropic Messages API's as the client stores them; every object is the
// parsed JSON line itself, so fields not declared here are still present at run time.

/** Plain text. Empty and whitespace-only text blocks occur in real transcripts. */
export interface TextBlock {
  type: 'text'
  text: string
  citations?: unknown[]
}

/** Extended thinking, with the signature the API needs to accept it back. */
export interface ThinkingBlock {
  type: 'thinking'
  thinking: string
  signature?: string
}

/** Thinking the API returned encrypted. */
export interface RedactedThinkingBlock {
  type: 'redacted_thinking'
  data: string
}

/** A tool call made by the assistant; `id` pairs it with a `tool_result` in a later user record. */
export interface ToolUseBlock {
  type: 'tool_use'
  id: string
  name: string
  input: Record<string, unknown>
  /** Who issued the call, when not the model itself (seen on 2.1.x). */
  caller?: Record<string, unknown>
}

/** The result of a tool call, in a user record. `content` is a string or a list of blocks. */
export interface ToolResultBlock {
  type: 'tool_result'
  tool_use_id: string
  content?: string | ContentBlock[]
  is_error?: boolean
}

/** An image, inline (base64) or by URL. */
export interface ImageBlock {
  type: 'image'
  source: { type: string; media_type?: string; data?: string; url?: string }
}

/** A document (PDF or text), inline or by URL. */
export interface DocumentBlock {
  type: 'document'
  source: { type: string; media_type?: string; data?: string; url?: string }
  title?: string
}

/** A call to a tool the API runs itself (web search, web fetch, code execution). */
export interface ServerToolUseBlock {
  type: 'server_tool_use'
  id: string
  name: string
  input: Record<string, unknown>
}

/** The result of a server tool call (`web_search_tool_result`, `web_fetch_tool_result`, ...). */
export interface ServerToolResultBlock {
  type: `${string}_tool_result`
  tool_use_id: string
  content: unknown
}

/** A block of a type this package does not know yet: kept as written. */
export interface UnknownBlock {
  type: string
  [field: string]: unknown
}

/** Every block type this package knows. */
export type KnownBlock =
  | TextBlock
  | ThinkingBlock
  | RedactedThinkingBlock
  | ToolUseBlock
  | ToolResultBlock
  | ImageBlock
  | DocumentBlock
  | ServerToolUseBlock

/** A content block as found in a transcript: known, a server tool result, or not known yet. */
export type ContentBlock = KnownBlock | ServerToolResultBlock | UnknownBlock

/** Token usage of one API response, as the client stores it on assistant records. */
export interface Usage {
  input_tokens: number
  output_tokens: number
  cache_creation_input_tokens?: number
  cache_read_input_tokens?: number
  /** The cache-write split by lifetime. */
  cache_creation?: { ephemeral_5m_input_tokens?: number; ephemeral_1h_input_tokens?: number }
  /** `standard`, `priority`, `batch`, ... (null on some records). */
  service_tier?: string | null
  server_tool_use?: { web_search_requests?: number; web_fetch_requests?: number }
  inference_geo?: string | null
  /** Per-iteration usage of a response that ran several model iterations (seen on 2.1.x). */
  iterations?: unknown[] | null
  /** `fast` for Opus fast mode, billed at a multiple of the standard rates; else `standard` or absent. */
  speed?: string | null
}
