/**
 * The durable session store: an append-only store of logical JSONL session logs with its own
 * format and lock (docs/store-format.md). Neither the CLI nor the archive uses it.
 *
 * @packageDocumentation
 * @module claude-jsonl/store
 */
export {
  Store,
  SESSION_FORMAT_VERSION,
  TRANSCRIPT_NAME,
  escapeSessionId,
  unescapeSessionId,
  projectFolder,
} from './store.js'
export { TOOL_NOT_STARTED, TOOL_OUTCOME_UNKNOWN } from './store-records.js'
export type {
  Compression,
  StoreOptions,
  SessionMeta,
  SessionHeader,
  StoredEvent,
  LoadedSession,
  StoredSession,
  Snapshot,
} from './store.js'
