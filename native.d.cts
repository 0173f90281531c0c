// Types of the native addon's exports, generated from the Rust source (crate/node/src/)
// by `npm run build:dts`: do not edit. A test fails when this file is not what the current
// source generates. The hand-written loader is native.cjs.

/**
 * The `requests` and `tool_calls` rows of an estate scan, held in Rust by day
 * (`claude_jsonl_core::dataset::estate`): the caller reads what the price table needs, adds the
 * cost columns, then asks for each day's file.
 */
export declare class DatasetRows {
  /** The requests' pricing inputs, in row order (the order `addPriced` takes costs in). */
  pricingInputs(): DatasetPricingInputs
  /**
   * Adds the requests' cost columns: `cost` of each request in row order (NaN: unpriced),
   * the rest from its key's `per_key`. Returns each session's sums.
   */
  addPriced(cost: Float64Array, perKey: DatasetKeyPricing): DatasetSessionSums
  /** The days `table` has rows in, ascending. */
  days(tableName: string): Array<DatasetDay>
  /** The rows of `day` of `table`, in the order a part file holds them. */
  dayColumns(tableName: string, day: string): Array<DatasetColumn>
  /** The unique key of every row of `table` (`request_key`, `tool_use_id`), in row order. */
  keys(tableName: string): Array<string>
  /**
   * Frees the rows of `table` now, on a thread of their own, instead of on the JS thread
   * whenever the GC collects this object: freeing a large estate's rows takes tens of
   * milliseconds. Later calls see the table without rows.
   */
  release(tableName: string): void
  /** Every day's file of `table`, in the order of `days`, made in parallel off the JS thread. */
  encodeDays(tableName: string): Promise<Array<Buffer>>
}

/** An estate scan held in Rust: file list, sessions, and (on request) usage. */
export declare class EstateScan {
  /** A path given to the scan that does not exist or cannot be listed. */
  get failure(): DiscoverFailure | null
  /**
   * One entry per file. `summaries` (default true) adds each file's full scan summary, which
   * costs a JS object per record type and per file; `stats` does without.
   */
  files(summaries?: boolean | undefined | null): Array<EstateFileInfo>
  /** The entries (without summary) of the files at `indices`, in that order. */
  filesAt(indices: Array<number>): Array<EstateFileInfo>
  /** Every file's size in bytes, in file order. */
  fileSizes(): Float64Array
  /**
   * What `files(false)` would say in sum, without a JS object per file (a few milliseconds
   * of `stats` on a large estate): the counts, and the entries of the files the scan kept no
   * record of or could not read, the only ones in which a problem can be found.
   */
  fileTotals(): EstateFileTotals
  /**
   * Frees the scan's native memory now instead of whenever the GC collects this object
   * (it cannot see that memory, so it would not hurry). Later calls see an empty estate.
   */
  release(): void
  sessions(): Array<SessionInfo>
  /**
   * `prompt_thresholds`: the prompt sizes (tokens) that split requests into `promptBand`s.
   * `targets` (default true) also counts tool calls by target now, for `toolTargets`; with
   * false, a later `toolTargets` call counts them then (the report is the same either way).
   * `by_day` (default false): buckets by UTC day only, all sessions in one (`session` is
   * 4294967295, `slotMs` a day's start): enough for totals, in a fraction of the buckets.
   */
  usage(promptThresholds: Array<number>, targets?: boolean | undefined | null, byDay?: boolean | undefined | null): UsageColumns
  /**
   * The counted requests (the ones `usage` sums), with what each one's entry says.
   * `prompt_thresholds` as for `usage`.
   */
  requests(promptThresholds: Array<number>): RequestColumns
  /**
   * What the dataset's `sessions` table needs of each of the files at `files` (indices, each a
   * session's own transcript), read by a scan with the `sessionFacts` option: its
   * head-and-tail facts and whether it begins with a compact pair this tool made; null for a
   * file that could not be read, that is no session's own, or when the scan was not asked.
   */
  sessionFactsAt(files: Array<number>): Array<DatasetSessionFacts | undefined | null>
  /**
   * The `requests` and `tool_calls` rows of the dataset (`export`), written by `machine`:
   * the counted requests (as `requests`) and the counted tool calls (the calls `usage` counts per
   * tool, each with its tool, target and error), from one grouping, by UTC day, without the
   * requests' cost columns (the caller prices them). `prompt_thresholds` as for `usage`.
   * Made off the JS thread, which an export needs meanwhile (its lock and the dataset's info
   * are written then, and the sessions' rows read from this scan): the work shares the scan's
   * estate, and drops its share on a thread of its own once the rows are made (freeing a large
   * estate's scans, when `release()` came first, takes milliseconds the export would wait for).
   */
  datasetRows(machine: string, promptThresholds: Array<number>): Promise<DatasetRows>
  /**
   * Tool calls of the buckets of the last `usage()` call that `included` marks (one byte per
   * bucket, nonzero = counted; empty = all), with each tool's `limit` most frequent targets.
   */
  toolTargets(included: Uint8Array, limit: number): Array<ToolTargetsInfo>
}

/** Counters a running scan updates; JS polls `snapshot()` from a timer on its own thread. */
export declare class ScanProgress {
  constructor()
  snapshot(): ProgressSnapshot
  /**
   * Asks the work using these counters to stop: what has not started is skipped (an
   * AbortSignal's abort calls this; the caller then rejects with the signal's reason).
   */
  cancel(): void
}

/**
 * An exclusive advisory lock (flock) on a store file, held until `release` or process exit
 * (so a killed writer never leaves a stale lock).
 */
export declare class StoreLock {
  release(): void
}

/**
 * The record index of one transcript, held in Rust. JS reads counts, columns, or single
 * records from it; the bytes themselves never cross.
 */
export declare class TranscriptIndex {
  /** The number of records (non-blank lines) in the index. */
  get length(): number
  /** Counts over the whole transcript: records per type, problems, request facts. */
  summary(): ScanSummary
  /** The lines that are not records (counts and the first few), without the rest of the summary. */
  lineProblems(): LineProblems
  /** One record's fields, by its 0-based position in the index; undefined past the end. */
  record(index: number): RecordInfo | null
  /**
   * The fields of the records from `start` (default 0) up to, not including, `end` (default
   * all); both are clamped to the index.
   */
  records(start?: number | undefined | null, end?: number | undefined | null): Array<RecordInfo>
  /** Byte offsets of the records (f64: exact to 2^53). */
  offsets(): Float64Array
  /** Byte lengths of the records' lines, without the line terminator. */
  lengths(): Uint32Array
}

/** The client's leaf and the active chain of a scanned transcript (full scan). */
export declare function activeChain(index: TranscriptIndex, options?: ChainOptions | undefined | null): ActiveChain

/** The leaf the client resumes from and the active chain from it, as record indexes. */
export interface ActiveChain {
  /** Root to leaf, fragments and tool results spliced in where the client puts them. */
  indexes: Uint32Array
  /** Per chain record: 0 on the parent chain, 1 spliced assistant fragment, 2 spliced tool result. */
  origins: Uint8Array
  leaf?: number
  rule: LeafRule
  pointer: PointerState
  /** The last last-prompt record and the record its leafUuid names. */
  pointerRecord?: number
  pointerTarget?: number
  /** The leaf of the last conversation record in file order. */
  defaultLeaf?: number
  /**
   * When the pointer names a record on the chain: how many conversation branches fork at or
   * below it (0: the chain below the pointer is a linear continuation).
   */
  branchesBelowPointer?: number
  /** The walk from the leaf met a parent cycle. */
  looped: boolean
  /** Records whose uuid a later record reuses (left out of the graph). */
  duplicateUuidRecords: Uint32Array
  /** Records whose parentUuid names no record: re-attached by timestamp, or left as roots. */
  reattachedRecords: Uint32Array
  danglingRecords: Uint32Array
  roots: Uint32Array
  /**
   * With allBranches: the records off the chain, per branch (branch id = its first record),
   * with the chain record each branch forks from (0xFFFFFFFF: detached).
   */
  branchIndexes?: Uint32Array
  branchIds?: Uint32Array
  branchForks?: Uint32Array
}

/** True when the folder is an archive root (its index, or an archive header in its layout). */
export declare function archiveDetect(path: string): boolean

/**
 * One transcript kept in an archive: where it came from, which generation is current, and the
 * store file that holds it.
 */
export interface ArchivedFile {
  /** `<project>/<path>`: where restore writes it under the target folder. */
  key: string
  project: string
  path: string
  /**
   * The session it belongs to (None for an old-layout `agent-*.jsonl`, and for a config
   * file not named after a session).
   */
  sessionId?: string
  /**
   * A file of the config folder outside `projects/` (`archive --include-config`): `path` is
   * its path in the config folder, `project` is `_config`, and restore writes it into the
   * config folder.
   */
  config: boolean
  generation: number
  generations: number
  storePath: string
  storeBytes: number
  /**
   * As of an earlier run: only the stream's first `segments` segments are read (absent: the
   * latest state).
   */
  segments?: number
}

export interface ArchivedFileHistory {
  key: string
  project: string
  path: string
  sessionId?: string
  generations: Array<ArchivedGeneration>
  /** Its source is gone from the estate (absent when the archive index does not know it). */
  deleted?: boolean
}

/** One generation of an archived file. */
export interface ArchivedGeneration {
  /** 1 for the first archived. */
  generation: number
  /**
   * The segment that started it, and how many of the stream's segments to read to restore it
   * at its last state (`archiveStreamAt`).
   */
  fromSegment: number
  untilSegment: number
  bytes: number
  sha256: string
  /** The source's mtime at its last state, in ms since the epoch. */
  mtimeMs: number
  /**
   * A compressed candidate of ours (our compact pair in it); absent for files that are not
   * transcripts.
   */
  compressed?: boolean
}

/**
 * The archived transcripts `files` (as `archiveListAll` or `archiveStreamAt` list them) as
 * `discoverFiles` lists files, placed at `<root>/<project>/<path>` where no file is (reads only
 * the streams' directories); one result per file, in order.
 */
export declare function archiveDiscover(root: string, files: Array<ArchivedFile>): Array<ArchiveDiscovered>

/** One archived transcript as a walk lists a file, or why its stream could not be read. */
export interface ArchiveDiscovered {
  file?: DiscoveredFile
  error?: string
}

export interface ArchivedSegment {
  /**
   * When the run that wrote it started (ISO 8601), absent in streams written before runs
   * recorded it.
   */
  archivedAt?: string
  /** The newest source mtime among its pieces, in ms (a lower bound of its time). */
  newestMtimeMs: number
}

/**
 * Archives every transcript under `roots` into the archive root `to`, off the JS thread, and
 * the files Claude Code's cleanup deletes from each config folder in `configDirs` (outside
 * `projects/`), in `format` for a new root (default 2; an existing root keeps its own).
 * Rejects (one-line message naming the path) only when the whole run cannot proceed.
 */
export declare function archiveEstate(roots: Array<string>, to: string, progress: ScanProgress, createdAt: string, configDirs?: Array<string> | undefined | null, format?: number | undefined | null): Promise<ArchiveSummary>

/** A transcript or session file the run could not archive. */
export interface ArchiveFailure {
  /** The file in the estate. */
  path: string
  /**
   * One line to show as it is: it names the file it concerns (the estate file, or the
   * archive's store file for it).
   */
  message: string
}

/**
 * Every generation of every file of the given format-2 streams, in parallel; with `scan`, each
 * transcript generation is decoded (SHA-256 checked) to tell a compressed candidate of ours.
 */
export declare function archiveHistory(root: string, storePaths: Array<string>, scan: boolean): Promise<StreamHistory[]>

/** The latest generation of every archived transcript (reads header frames only). */
export declare function archiveList(root: string): Array<ArchivedFile>

/**
 * Every readable file of an archive at its latest generation, with each damaged store file and
 * each file the index has but the store files lack named apart (reads directories only).
 */
export declare function archiveListAll(root: string): ArchiveListing

/**
 * The whole archive: the latest generation of every readable file, the damaged store files,
 * and what the index has that the store files lack.
 */
export interface ArchiveListing {
  files: Array<ArchivedFile>
  damaged: Array<DamagedStoreFile>
  lacking: Array<LackingFile>
}

export interface ArchiveOwner {
  key: string
  /** The sessionId of the transcript's first record that has one. */
  sessionId?: string
  error?: string
}

/**
 * Which session each of the given archived transcripts (as `archiveList` lists them) belongs
 * to by its records (for the old-layout `agent-*.jsonl` files, whose path does not say):
 * decodes each only as far as it must, in parallel.
 */
export declare function archiveOwners(files: Array<ArchivedFile>): Promise<ArchiveOwner[]>

/**
 * One archived file's bytes (the state it names: latest, or as of an earlier run), SHA-256
 * checked, in memory: for a reader that needs one transcript's text again after a scan.
 */
export declare function archiveReadFile(file: ArchivedFile): Buffer

/**
 * Restores the given transcripts (as `archiveList` lists them) under `to`, byte-identical
 * (checked by SHA-256), never replacing a different file; config-folder files go under
 * `configTo` (refused without it).
 */
export declare function archiveRestore(files: Array<ArchivedFile>, to: string, keepMtime: boolean, progress: ScanProgress, configTo?: string | undefined | null): Promise<RestoreResult[]>

/** An archive root and the archived files of it an estate scan reads. */
export interface ArchiveSource {
  root: string
  files: Array<ArchivedFile>
}

/**
 * The files of one format-2 stream as its first `segments` segments hold them (the archive as
 * that run left the session), ready for `archiveRestore`.
 */
export declare function archiveStreamAt(root: string, storePath: string, segments: number): Array<ArchivedFile>

export interface ArchiveSummary {
  /** Transcripts found in the estate now. */
  files: number
  unchanged: number
  /** Grown since the last run: only the new bytes were stored. */
  appended: number
  /** Seen for the first time. */
  added: number
  /** Rewritten by Claude Code: kept as a new generation beside the old one. */
  generations: number
  /** Only the metadata changed (same bytes). */
  touched: number
  /** Of `files`: files of the config folder outside `projects/` (with `configDirs`). */
  configFiles: number
  bytesIn: number
  bytesStored: number
  /** Transcripts that could not be archived (everything else was). */
  failures: Array<ArchiveFailure>
  /**
   * Files not archived on purpose, each with its reason (a transcript link leading out of its
   * estate root is never followed).
   */
  skipped: Array<ArchiveFailure>
  /**
   * Files the walk found that are no transcript at all (first line not a JSON object, no
   * record): left out, each with why.
   */
  notTranscripts: Array<ArchiveFailure>
  /** Streams found missing or damaged and stored again from the estate: one line each. */
  healed: Array<string>
  archivedFiles: number
  /** Of `archived_files`: config-folder files. */
  archivedConfigFiles: number
  archivedBytes: number
  storeBytes: number
  /** The archive format the root is written in (1 or 2). */
  format: number
}

/**
 * Builds a transcript from `source` (the bytes `index` was scanned from) and the parts, in
 * order, with the source's BOM and line terminator. Kept bytes are copied, never re-serialised.
 */
export declare function assembleTranscript(source: Uint8Array, index: TranscriptIndex, parts: Array<OutputPart>): Buffer

/**
 * `assembleTranscript` with the source records read from the file at `path` (the file `index`
 * was scanned from) instead of a buffer: the kept records are read straight into the output.
 */
export declare function assembleTranscriptFromFile(path: string, index: TranscriptIndex, parts: Array<OutputPart>): Buffer

export interface BadLineInfo {
  line: number
  offset: number
  kind: BadLineKind
  /** What the line is, in words (`corrupt line (not valid JSON)`, `JSON nested too deep…`). */
  problem: string
}

export type BadLineKind = 'invalid-json' | 'non-object' | 'too-deep' | 'number-out-of-range'

export interface ChainOptions {
  /** Also group the records off the chain into branches. */
  allBranches?: boolean
  /** Use this record as the leaf instead of the client's choice (rule 'manual'). */
  leaf?: number
}

/**
 * The turns of a chain (`records`, record indexes in chain order; full scan). `badLines`: the
 * 1-based lines, ascending, shown as lines that are not records.
 */
export declare function chainTurns(index: TranscriptIndex, records: Uint32Array, badLines: Uint32Array, last?: number | undefined | null): ChainTurns

/** The turns `show` splits a chain of records into (core: read::turns), decided from the scan. */
export interface ChainTurns {
  /** Per record of the chain: its turn (0-based; turns without content count too). */
  turns: Uint32Array
  /** Per bad line given: the turn its item lands in. */
  badTurns: Uint32Array
  /** Per turn: 1 when it holds something to show. */
  content: Uint8Array
  /**
   * With `last`: the first position of the chain in the last `last` turns with content (the
   * chain's length when none is kept); 0 without.
   */
  from: number
  /**
   * Tool calls (ids and names), tool results and requests shown before `from` that the records
   * from `from` on refer to again.
   */
  priorToolIds: Array<string>
  priorToolNames: Array<string>
  priorResultIds: Array<string>
  priorRequestKeys: Array<string>
}

/**
 * Checks planning options before any file is read: an unknown policy, preserve-recent without
 * the physical tail, or a target ratio outside (0, 1] throws a `usage` failure.
 */
export declare function checkPlanOptions(options: SpelledPlanOptions): void

/** Which file-history snapshots a compression keeps. */
export type CheckpointPolicy = 'active-correlated' | 'preserve-recent' | 'none'

/** One API message the client sends, with the records it is built from. */
export interface ClientMessage {
  /** 'user' | 'assistant' */
  role: string
  /** The records it is built from, in order. */
  records: Array<number>
  toolUseIds: Array<string>
  toolResultIds: Array<string>
}

/**
 * The API messages the client builds when it resumes the transcript (`buffer` holds the bytes
 * `index` was scanned from; full scan).
 */
export declare function clientView(index: TranscriptIndex, buffer: Uint8Array): ClientView

/**
 * What the client sends the model when it resumes a transcript: the leaf it resumes from, the
 * messages, and the records it drops.
 */
export interface ClientView {
  leaf?: number
  messages: Array<ClientMessage>
  /** Records the client sends nothing for: 'blank-text' | 'thinking-only'. */
  droppedRecords: Array<number>
  droppedReasons: Array<string>
}

/** One API message: its records (a range of the view's record table) and its blocks. */
export interface ConversationMessageSpans {
  /** 'user' | 'assistant' */
  role: string
  /** Its records are `recordStart .. recordStart + recordCount` of the view's record table. */
  recordStart: number
  recordCount: number
  /** Sent as its one record's string `message.content`, not as blocks. */
  stringContent: boolean
  /** Per block: which of the message's records holds it (0-based within the message). */
  blockRecords: Uint32Array
  /**
   * Per block: the n-th item of the record's `message.content` that is an object with a string
   * `type`; -1: a text block of the record's string content; -2: the `noContentText` block.
   */
  blockItems: Int32Array
}

/** The API messages the client builds when it resumes the transcript at `path`, as spans. */
export declare function conversationSpans(path: string): Promise<ConversationSpans>

/** The conversation as byte spans of the file it was read from. */
export interface ConversationSpans {
  /** The record the client resumes from, when the file has a conversation record. */
  leafLine?: number
  leafOffset?: number
  leafUuid?: string
  messages: Array<ConversationMessageSpans>
  /**
   * The records the messages are built from, in message order: 1-based line, byte offset
   * (f64: exact to 2^53), length without the line terminator, uuid.
   */
  recordLines: Uint32Array
  recordOffsets: Float64Array
  recordLengths: Uint32Array
  recordUuids: Array<string | undefined | null>
  /** Records on the chain the client sends nothing for (lines), and why: 'blank-text' | 'thinking-only'. */
  droppedLines: Uint32Array
  droppedReasons: Array<string>
  /** Non-blank lines that are not JSON objects: all of them counted, the first few listed. */
  badLineCount: number
  badLines: Array<BadLineInfo>
  /** The last line is an unterminated fragment that does not parse (a write cut short). */
  tornTail: boolean
  /** The text the client sends for a user message left with no block. */
  noContentText: string
  /** The file's size when it was read. */
  bytes: number
}

/**
 * Per record: the record whose usage counts for the API request it belongs to (the entry with
 * the largest output, as `stats` counts), or -1 for a record that is no counted assistant entry
 * (no usage, `<synthetic>`, a sidechain replay).
 */
export declare function countedEntries(index: TranscriptIndex): Int32Array

/** A store file of the archive that cannot be read (the rest of the archive can). */
export interface DamagedStoreFile {
  storePath: string
  /** The project and session its name places it at, when the name says. */
  project?: string
  sessionId?: string
  /** One line naming the file and what is wrong with it. */
  error: string
}

/**
 * One column's values: `strings` for text (null allowed), `numbers` for integers, doubles and
 * timestamps in ms (NaN for null), `flags` for booleans (0 false, 1 true, 2 null).
 */
export interface DatasetColumn {
  name: string
  strings?: Array<string | undefined | null>
  /**
   * Text values joined by NUL, a null as an empty value marked 1 in `nulls` (one string
   * across instead of one per value; for values that hold no NUL).
   */
  joined?: string
  nulls?: Uint8Array
  numbers?: Float64Array
  flags?: Uint8Array
}

export interface DatasetColumnInfo {
  name: string
  values: DatasetValues
  nullable: boolean
  /** The column's SQL type (`VARCHAR`, `BIGINT`, `DOUBLE`, `BOOLEAN`, `TIMESTAMP WITH TIME ZONE`). */
  sqlType: string
}

/** A day of a table: its name (`YYYY-MM-DD`, `unknown`) and how many rows it has. */
export interface DatasetDay {
  day: string
  rows: number
}

/**
 * One file of a `datasetPublish`: its path below the dataset's folder, its bytes, and whether
 * it is its owner's alone (mode 0600; else 0644, less the umask).
 */
export interface DatasetFile {
  path: string
  bytes: Uint8Array
  private: boolean
}

/** How the price table prices each price key (one value per key: 0 or 1 for the flags). */
export interface DatasetKeyPricing {
  estimated: Uint8Array
  fast: Uint8Array
  longContext: Uint8Array
  /** The table's model whose rates were used; null when unpriced. */
  pricedAs: Array<string | undefined | null>
}

/** One record's text for the `messages` table. */
export interface DatasetMessage {
  uuid: string
  /** The record's `timestamp`, ms since the epoch; NaN when absent or unreadable. */
  timeMs: number
  /** `user` or `assistant`. */
  role: string
  text: string
}

/**
 * What a person typed and what the model answered in the transcript at `path`, one entry per
 * record that says something (the search index's rule for text), read off the JS thread.
 */
export declare function datasetMessages(path: string): Promise<Array<DatasetMessage>>

/** `datasetMessages` of a transcript's bytes in memory (an archived one, decoded). */
export declare function datasetMessagesOf(bytes: Uint8Array): Array<DatasetMessage>

/**
 * The price keys, as columns: each one's model (index in `models`), speed (index in
 * `speeds`), prompt band, and its first request's time (ms, NaN when none).
 */
export interface DatasetPriceKeys {
  model: Uint32Array
  speed: Uint32Array
  promptBand: Uint8Array
  timeMs: Float64Array
}

/**
 * What the price table needs of the requests: their price keys (what decides a request's
 * price besides its tokens: model, speed, prompt band and day), and each request's key and
 * tokens, in row order.
 */
export interface DatasetPricingInputs {
  keys: DatasetPriceKeys
  /** Index of each request's key in `keys`. */
  key: Uint32Array
  models: Array<string>
  /** `usage.speed` as written, null when absent. */
  speeds: Array<string | undefined | null>
  inputTokens: Float64Array
  outputTokens: Float64Array
  cacheWrite5mTokens: Float64Array
  cacheWrite1hTokens: Float64Array
  cacheReadInputTokens: Float64Array
}

/**
 * Publishes `files` below the dataset folder `root`, each whole or not at all, made durable
 * together (`claude_jsonl_core::durable::publish_batch`), off the JS thread.
 */
export declare function datasetPublish(root: string, files: Array<DatasetFile>): Promise<void>

export declare function datasetSchemaVersion(): number

/**
 * What the `sessions` table needs of one main transcript: its head-and-tail facts (records
 * not counted) and whether it begins with a compact pair this tool made.
 */
export interface DatasetSessionFacts {
  facts: TranscriptFactsInfo
  compressedByUs: boolean
}

/** `DatasetSessionFacts` of one transcript held in memory (an archived one, decoded). */
export declare function datasetSessionFactsOf(bytes: Uint8Array): DatasetSessionFacts

/**
 * Each session that has requests (its index in the scan's sessions): their count, their cost
 * (summed in row order, unpriced ones left out) and the first one's time (ms; Infinity: none).
 */
export interface DatasetSessionSums {
  session: Uint32Array
  requests: Uint32Array
  cost: Float64Array
  firstMs: Float64Array
}

/** A table of the dataset: its columns in file order, and the column unique across its files. */
export interface DatasetTableInfo {
  name: string
  columns: Array<DatasetColumnInfo>
  uniqueKey?: string
}

export declare function datasetTables(): Array<DatasetTableInfo>

/** How a column's values cross: as `strings`, `numbers` or `flags` of a [`DatasetColumn`]. */
export type DatasetValues = 'strings' | 'numbers' | 'flags'

/** Every column of `table` read back from the Parquet file in `bytes`. */
export declare function decodeDatasetTable(tableName: string, bytes: Uint8Array): Array<DatasetColumn>

/** A transcript file found by walking, before any scan. */
export interface DiscoveredFile {
  path: string
  kind: FileKind
  project: string
  /** From the path; absent for an old-layout `agent-*.jsonl` (its parent is in its records). */
  sessionId?: string
  agentId?: string
  size: number
  mtimeMs: number
}

export interface DiscoverFailure {
  path: string
  message: string
}

/**
 * Walks `paths` for transcripts without reading them: cheap enough to run before every
 * command that names a session. A missing root is an error naming it.
 */
export declare function discoverFiles(paths: Array<string>): Array<DiscoveredFile>

/**
 * One file of `table` for each of `days` (indices of rows of `columns`, in the order its file
 * holds them), made side by side off the JS thread: the table's columns cross once for all of
 * its days' files.
 */
export declare function encodeDatasetDays(tableName: string, columns: Array<DatasetColumn>, days: Array<Uint32Array>): Promise<Array<Buffer>>

/**
 * The rows of `table` (every column of its schema) as one zstd-compressed Parquet file, made
 * on the libuv pool (the values are copied out first).
 */
export declare function encodeDatasetTable(tableName: string, columns: Array<DatasetColumn>): Promise<Buffer>

/** One transcript file of an estate scan: where it is, whose it is, and what the scan found in it. */
export interface EstateFileInfo {
  path: string
  kind: FileKind
  project: string
  /** The session the file belongs to (for a subagent, its parent), resolved after scanning. */
  sessionId: string
  sessionIndex: number
  agentId?: string
  size: number
  mtimeMs: number
  /** Set when the file could not be read; then `summary` is absent. */
  error?: string
  /** Not scanned: last modified before `minMtimeMs`, so it cannot hold newer records. */
  pruned: boolean
  /** Records kept by the scan (in a usage scan: assistant entries only). */
  records: number
  /** How the first non-blank line read. */
  firstLine: FirstLine
  /** Present unless `files(false)` was asked for, or the file was pruned or unreadable. */
  summary?: ScanSummary
}

/** The files of an estate scan in sum (`fileTotals`). */
export interface EstateFileTotals {
  files: number
  subagentFiles: number
  bytes: number
  /** Not scanned: last modified before `minMtimeMs`. */
  pruned: number
  /**
   * The entries (without summary) of the files that could not be read, or that are not empty
   * and of which the scan kept no record.
   */
  unread: Array<EstateFileInfo>
}

/**
 * Local token estimate per record (ASCII 1/4, Han/Kana/Hangul 1.3, non-BMP/symbols/marks 1.5,
 * other 0.8 per character; 12 per user/assistant/attachment record; 1600 per image block) over
 * the complete message payload. `buffer` must be the bytes `index` was scanned from; `records`
 * are record indexes (default: all). Other record types estimate to 0.
 */
export declare function estimateRecordTokens(buffer: Uint8Array, index: TranscriptIndex, records?: Uint32Array | undefined | null): Float64Array

/** The local token estimate of one text, with no record allowance. */
export declare function estimateTextTokens(text: string): number

/**
 * Swaps the files two paths name in one step. Resolves false when the platform or file system
 * cannot (the caller falls back); throws on any other failure (a missing path, permissions).
 */
export declare function exchangePaths(a: string, b: string): boolean

/** Whether the file at `path` holds exactly `bytes` (the read-back check of a written file). */
export declare function fileEquals(path: string, bytes: Uint8Array): boolean

export type FileKind = 'session' | 'subagent'

/** Literal search over the transcripts under `roots`, off the JS thread (core: `search::find::find_exact`). */
export declare function findExact(roots: Array<string>, options: FindExactOptions, progress?: ScanProgress | undefined | null): Promise<FindExactResult>

export interface FindExactHit {
  /** Occurrences in the session's files in scope, and the records and files holding them. */
  matches: number
  records: number
  files: number
  sessionId: string
  /** Set when the snippet's file is one of the session's subagent transcripts. */
  agentId?: string
  project: string
  path: string
  /** The record of that file's first match: 1-based line, byte offset and length. */
  line: number
  offset: number
  length: number
  timestamp?: string
  firstMs?: number
  lastMs?: number
  snippet: string
}

export interface FindExactOptions {
  /** The text to look for, matched literally in the decoded transcript text. */
  text: string
  /** Match case exactly (default: case-insensitive, one character for one). */
  caseSensitive?: boolean
  /** Also search tool traffic (tool_use inputs and tool results). */
  tools?: boolean
  /** Also search thinking blocks. */
  thinking?: boolean
  limit?: number
  /** Only sessions whose last searchable record is at or after this time (ms since the epoch). */
  sinceMs?: number
  /** A substring of the project folder name. */
  project?: string
  /** Archive roots searched too, read from their streams in memory (nothing written there). */
  archives?: Array<ArchiveSource>
}

export interface FindExactResult {
  failure?: DiscoverFailure
  hits: Array<FindExactHit>
  scope?: FindExactScope
}

export interface FindExactScope {
  /** What was searched, after --since and --project. */
  files: number
  sessions: number
  bytes: number
  /** Everything found under the roots. */
  filesTotal: number
  sessionsTotal: number
  bytesTotal: number
  matchingFiles: number
  matchingSessions: number
  /** Occurrences over every file in scope. */
  matches: number
  failed: Array<DiscoverFailure>
}

export interface FindHit {
  score: number
  sessionId: string
  /** Set when the best match is in one of the session's subagent transcripts. */
  agentId?: string
  project: string
  path: string
  /** The record the snippet comes from: 1-based line, byte offset and length. */
  line: number
  offset: number
  length: number
  timestamp?: string
  firstMs?: number
  lastMs?: number
  snippet: string
  matched: Array<string>
  phrasesFound: number
}

export interface FindOptions {
  /** Command-line terms; a quoted part, or an argument of several words, is also a phrase. */
  terms: Array<string>
  /** Also search tool traffic (tool_use inputs and tool results). */
  tools?: boolean
  /** Also search thinking blocks. */
  thinking?: boolean
  limit?: number
  /** Only sessions whose last searchable record is at or after this time (ms since the epoch). */
  sinceMs?: number
  /** A substring of the project folder name. */
  project?: string
  /** Folder holding the index; absent: scan everything and write nothing. */
  indexDir?: string
  /** Archive roots searched too, read from their streams in memory (nothing written there). */
  archives?: Array<ArchiveSource>
}

export interface FindResult {
  failure?: DiscoverFailure
  hits: Array<FindHit>
  scope?: FindScope
}

export interface FindScope {
  /** What the query ran over, after --since and --project. */
  files: number
  sessions: number
  bytes: number
  /** Everything found under the roots. */
  filesTotal: number
  sessionsTotal: number
  bytesTotal: number
  matchingFiles: number
  matchingSessions: number
  terms: Array<string>
  phrases: Array<Array<string>>
  /** Files (in scope) holding each term, in `terms` order. */
  termFiles: Array<number>
  indexPath?: string
  /** When the index now on disk was written. */
  indexBuiltMs?: number
  indexWritten: boolean
  indexError?: string
  filesReused: number
  /** Files read now: all of each, or only what was appended to it (`files_appended`). */
  filesRescanned: number
  filesAppended: number
  bytesRescanned: number
  failed: Array<DiscoverFailure>
}

/**
 * Ranked search over the transcripts under `roots`, off the JS thread. Only the snippets of
 * the hits cross into JS as text.
 */
export declare function findText(roots: Array<string>, options: FindOptions, progress?: ScanProgress | undefined | null): Promise<FindResult>

/** How the first non-blank line of a file read. */
export type FirstLine = 'empty' | 'object' | 'non-object' | 'invalid'

/** A scan and the SHA-256 of the same bytes. */
export interface HashedScan {
  index: TranscriptIndex
  sha256: string
}

/** Record types Claude Code writes (any other type is passed through and reported as unknown). */
export declare function knownRecordTypes(): Array<string>

/**
 * A file the archive index records that no store file holds (or holds only in an earlier
 * state): its stream was lost or cut back.
 */
export interface LackingFile {
  key: string
  project: string
  path: string
  sessionId?: string
  config: boolean
  /** True when an earlier state of it is held (and restored); false when nothing is. */
  partlyHeld: boolean
  error: string
}

/** Which leaf a compression starts from (see `claude_jsonl_core::topology`). */
export type LeafPolicy = 'strict' | 'client' | 'auto'

/** How the leaf was chosen (`manual`: the caller named it). */
export type LeafRule = 'last-prompt' | 'last-prompt-interior' | 'last-conversation-record' | 'none' | 'manual'

export interface LineageRun {
  sessionId: string
  /** Chain positions start..end. */
  start: number
  end: number
}

/**
 * The lines of a file that are not records, as `show` marks them: a part of [`ScanSummary`]
 * without the facts that walk every record.
 */
export interface LineProblems {
  lines: number
  badJsonLines: number
  nonObjectLines: number
  tornTail: boolean
  /** The first few, as in [`ScanSummary`]. */
  badLines: Array<BadLineInfo>
}

/**
 * The file at `path` mapped read-only (Linux), as a Buffer over the mapping: no copy and no
 * fresh pages to fault in. `null` where files are not mapped (other systems, an empty file) or
 * the mapping failed: the caller then reads the file. The Buffer must never be written; check
 * `mappedIntact` before trusting what was read (a file truncated meanwhile reads as zeros).
 */
export declare function mapFile(path: string): Buffer | null

/**
 * False when `buffer` (from `mapFile`) lost pages because its file was truncated while mapped:
 * what was read from it may be zeros. True for any other buffer.
 */
export declare function mappedIntact(buffer: Uint8Array): boolean

/** A top-level member to set on a kept record: its key and its new value as JSON text. */
export interface MemberSet {
  key: string
  json: string
}

/**
 * Per record: the first record of the API message it belongs to (assistant fragments sharing
 * message.id are one message; any other record is its own).
 */
export declare function messageGroups(index: TranscriptIndex): Array<number>

/** The code a native failure carries (see [`claude_jsonl_core::failure::Code`]). */
export type NativeErrorCode = 'io' | 'changed' | 'store' | 'locked' | 'archive' | 'invalid-argument' | 'usage' | 'illegal-cut' | 'internal'

/**
 * Every code as it crosses to JS, the same spelling the failure's data carries (a test checks
 * that each one names itself).
 */
export declare function nativeErrorCodes(): Array<NativeErrorCode>

/**
 * Why the file at `path` is no transcript at all (its first line is not a JSON object and no
 * line is a record), or none when it may be one. Reads one block, the whole file only when
 * that block shows no object first. An unreadable file gives none: the reader that opens it
 * reports why.
 */
export declare function notATranscript(path: string): string | null

/**
 * Why a file that yielded no record is not a transcript, from how its first line read (none
 * for an empty file or an object).
 */
export declare function notJsonlReason(firstLine: FirstLine): string | null

/**
 * One piece of a rewritten transcript: exactly one of `records` (source records copied
 * verbatim), `record` + `set` (one source record with members replaced or appended), or `line`
 * (a new JSON line).
 */
export interface OutputPart {
  records?: Uint32Array
  record?: number
  set?: Array<MemberSet>
  line?: string
}

/** How to plan: the leaf, the chain's limits, the snapshots kept and the cut. */
export interface PlanOptions {
  /**
   * Default 'auto': the pointer's leaf when it names one; the client's leaf when the pointer
   * is absent or stale over a linear continuation; otherwise a stop.
   */
  leafPolicy?: LeafPolicy
  /** Resume from this record (uuid): reported as 'active-chain-manual-override'. */
  resumeLeaf?: string
  /** Legacy compatibility mode: keep the physical tail; no branch isolation. */
  preservePhysicalTail?: boolean
  /** Tool-result-only records accepted after the pointer (default 0). */
  maxPostLastPromptExtension?: number
  /** Default 'active-correlated'; 'preserve-recent' only with preservePhysicalTail. */
  checkpointPolicy?: CheckpointPolicy
  /** Snapshots kept at most (default 80). */
  maxFileHistorySnapshots?: number
  /**
   * Estimated message tokens of the kept raw suffix over those of the model-visible chain
   * (what the client sends), in (0, 1] (default 0.30; planning only).
   */
  targetRatio?: number
  /** The kept raw suffix's ceiling in estimated message tokens (planning only; default none). */
  maxKeptTokens?: number
  /** Records the kept suffix holds at least, when the chain allows (default 10). */
  minRecentRecords?: number
  /**
   * Start the kept suffix exactly at this chain position (one of `topology.legalCuts`), e.g.
   * to narrow the cut for a token ceiling; overrides targetRatio and minRecentRecords. Not
   * legal: a usage error.
   */
  cutPosition?: number
}

/**
 * Plans a transcript: leaf, chain, strict status, cut and the six-way partition. `buffer` is
 * the bytes `index` was scanned from. Topology problems come back as a status, not a throw.
 */
export declare function planTranscript(index: TranscriptIndex, buffer: Uint8Array, options?: PlanOptions | undefined | null): TopologyPlan

export interface PlanWarning {
  code: string
  lines: Array<number>
  message: string
}

/** What became of the last `last-prompt` pointer. */
export type PointerState = 'absent' | 'no-leaf-uuid' | 'unknown-uuid' | 'leaf' | 'interior-on-chain' | 'interior-off-chain'

/** How the chain to compress was selected. */
export type PreserveMode = 'active-chain' | 'active-chain-manual-override' | 'active-chain-client-leaf' | 'physical-tail'

/** How far a running scan has got, in bytes and files. */
export interface ProgressSnapshot {
  bytesDone: number
  bytesTotal: number
  filesDone: number
  filesTotal: number
}

/** The values of text column `column` of the Parquet file in `bytes`. */
export declare function readDatasetStrings(bytes: Uint8Array, column: string): Array<string | undefined | null>

export interface ReadPagesLeft {
  line: number
  toolUseId: string
  reason: string
  message: string
}

export interface ReadPagesPatch {
  line: number
  toolUseId: string
  filePath: string
  /** Absolute byte offsets of the deleted member (with its separating comma). */
  start: number
  end: number
}

export interface ReadPagesRefusal {
  /** `topology` (the strict chain cannot be chosen), `ambiguous` or `invariant`. */
  kind: string
  /** The topology status for `topology`. */
  status?: string
  line?: number
  message: string
}

export interface ReadPagesRepair {
  patches: Array<ReadPagesPatch>
  pending: Array<ReadPagesLeft>
  ineligible: Array<ReadPagesLeft>
  /** The repaired bytes; absent when nothing is patched or the repair is refused. */
  output?: Buffer
  records: number
  refusal?: ReadPagesRefusal
}

/** One record's extracted fields, made on request for one file (never estate-wide). */
export interface RecordInfo {
  offset: number
  length: number
  line: number
  type?: string
  subtype?: string
  uuid?: string
  parentUuid?: string
  logicalParentUuid?: string
  sessionId?: string
  agentId?: string
  timestamp?: string
  version?: string
  cwd?: string
  isSidechain: boolean
  isMeta: boolean
  isCompactSummary: boolean
  isApiErrorMessage: boolean
  contentIsString: boolean
  hasParentUuidKey: boolean
  repairedLoneSurrogates: boolean
  messageId?: string
  requestId?: string
  model?: string
  stopReason?: string
  usage?: UsageInfo
  leafUuid?: string
  contentKinds: Array<string>
  toolUses: Array<ToolUseInfo>
  toolResultIds: Array<string>
}

export declare function recordLinks(index: TranscriptIndex, records: Uint32Array): RecordLinks

/** uuid and parentUuid of some records, in one call (instead of one `record()` object each). */
export interface RecordLinks {
  uuids: Array<string | undefined | null>
  parents: Array<string | undefined | null>
}

/** Spans of the chosen records in file order, and every non-blank line that is not a record. */
export interface RecordSelection {
  /** Byte offsets (f64: exact to 2^53), lengths without the line terminator, 1-based lines. */
  offsets: Float64Array
  lengths: Uint32Array
  lines: Uint32Array
  problemOffsets: Float64Array
  problemLengths: Uint32Array
  problemLines: Uint32Array
  /** `not-json` or `not-an-object`, one per problem line. */
  problemKinds: Array<string>
  /** The file's size when it was read. */
  bytes: number
}

export interface RecordSelectionOptions {
  /** Record types to keep; all when absent. */
  types?: Array<string>
  /** Keep records at or after this time (ms since the epoch); untimed records are then dropped. */
  sinceMs?: number
  /** Keep records at or before this time (ms since the epoch). */
  untilMs?: number
  /** Keep only the active chain the client would resume. */
  activeChain?: boolean
}

/**
 * Drops the pages of a `mapFile` buffer from the process (they read again from the file when
 * touched), all of them or those wholly inside bytes `[start, end)`. Returns the bytes
 * released; 0 for any other buffer.
 */
export declare function releaseMapped(buffer: Uint8Array, start?: number | undefined | null, end?: number | undefined | null): number

/**
 * Gives the memory pages wholly inside `buffer` back to the OS (Linux; elsewhere a no-op):
 * they read as zeros until written again. Returns the bytes released. Only for a buffer that
 * owns its memory (a large file read, not a slice of a shared pool).
 */
export declare function releasePages(buffer: Buffer): number

export interface RepairLeft {
  kind: string
  line: number
  message: string
}

export interface RepairMend {
  /**
   * The repair's name (`records-on-one-line`, `torn-line`, `non-json-bytes`,
   * `lone-surrogates`, `dangling-parent`, `orphan-tool-result`).
   */
  kind: string
  /** 1-based source line. */
  line: number
  /** Byte range edited (for a relink: in the bytes after the line repairs). */
  start: number
  end: number
  /** The bytes cut or replaced. */
  removed: Buffer
  message: string
}

/** Plans, applies and self-checks the `Read.pages` repair of one transcript held in memory. */
export declare function repairReadPages(buffer: Uint8Array, scope: string): ReadPagesRepair

export interface RepairRefusal {
  /** `not-transcript`, `unmendable` or `worse`. */
  kind: string
  line?: number
  message: string
}

/** Finds the damage in one transcript held in memory and mends what can be mended safely. */
export declare function repairTranscript(buffer: Uint8Array): TranscriptRepair

/**
 * The estate's counted API requests (deduplicated as `usage` dedupes them), one column per
 * field, in order of time (requests without a timestamp last).
 */
export interface RequestColumns {
  /**
   * Index of the file in `files()` holding the counted entry, its 1-based line, and the
   * session index (in `sessions()`) of that file.
   */
  file: Uint32Array
  line: Uint32Array
  session: Uint32Array
  /** The entry's `timestamp`, ms since the epoch; NaN when absent or unreadable. */
  timeMs: Float64Array
  timestamp: Array<string | undefined | null>
  model: Array<string>
  requestId: Array<string | undefined | null>
  messageId: Array<string | undefined | null>
  /** `usage.speed` as written, when present. */
  speed: Array<string | undefined | null>
  /** `usage.service_tier` as written, when present. */
  serviceTier: Array<string | undefined | null>
  /** 0 none, 1 vertex, 2 other (as in `UsageColumns.lane`). */
  lane: Uint8Array
  /** How many of the prompt thresholds given the request's prompt exceeds. */
  promptBand: Uint8Array
  inputTokens: Float64Array
  outputTokens: Float64Array
  cacheCreationInputTokens: Float64Array
  cacheWrite5mTokens: Float64Array
  cacheWrite1hTokens: Float64Array
  /** 1 when the entry's usage had the TTL split (`cache_creation.ephemeral_*`). */
  hasCacheSplit: Uint8Array
  cacheReadInputTokens: Float64Array
}

export interface RequestFactsInfo {
  assistantEntries: number
  syntheticEntries: number
  entriesWithRequestId: number
  sidechainEntries: number
  distinctRequests: number
  duplicatesCollapsed: number
  nullStopGroups: number
}

/** Per record: the key of the API request it belongs to (requestId, else message.id), or null. */
export declare function requestKeys(index: TranscriptIndex): Array<string | undefined | null>

export interface RestoreResult {
  key: string
  target: string
  /** Written now; false when the target already held exactly these bytes (or on error). */
  written: boolean
  bytes: number
  error?: string
}

/** Scans a transcript held in a Buffer, without copying it into JS strings. */
export declare function scanBuffer(buffer: Uint8Array, mode?: ScanMode): TranscriptIndex

/**
 * `scanBuffer` and `sha256` of one buffer at once: the hash runs on a thread of its own while
 * the scan runs, so a compression does not read its source twice in a row.
 */
export declare function scanBufferHashed(buffer: Uint8Array, mode?: ScanMode): HashedScan

/** Finds and scans every transcript under `paths` in parallel, off the JS thread. */
export declare function scanEstate(paths: Array<string>, mode?: ScanMode, progress?: ScanProgress | undefined | null, options?: ScanEstateOptions | undefined | null): Promise<EstateScan>

export interface ScanEstateOptions {
  /** Skip (but still list) files last modified before this time, ms since the epoch. */
  minMtimeMs?: number
  /** With mode `usage`: also keep the tool results written as errors, for `datasetRows()`. */
  toolErrors?: boolean
  /**
   * Also read what the dataset's `sessions` table needs of each session's own transcript
   * (`sessionFactsAt()`), from the bytes the scan reads anyway.
   */
  sessionFacts?: boolean
  /**
   * Archive roots read too, from their streams in memory (nothing is written): each with the
   * archived files to read (from `archiveList`, or `archiveStreamAt` for an earlier state).
   */
  archives?: Array<ArchiveSource>
}

/** Scans one transcript file on the libuv pool, split across cores when large. */
export declare function scanFile(path: string, mode?: ScanMode): Promise<TranscriptIndex>

/** What a scan keeps: every record, or only what token usage needs. */
export type ScanMode = 'full' | 'usage'

/** What one scan found in one file. Counts only; no transcript text. */
export interface ScanSummary {
  bytes: number
  lines: number
  records: number
  blankLines: number
  crlfLines: number
  badJsonLines: number
  /**
   * Of `badJsonLines`, those that are valid JSON this reader cannot hold (nested deeper than
   * 1024 levels, a number beyond a double's range): the client reads them.
   */
  unreadableJsonLines: number
  nonObjectLines: number
  loneSurrogateLines: number
  bom: boolean
  unterminatedTail: boolean
  tornTail: boolean
  firstLine: FirstLine
  types: Array<TypeCount>
  badLines: Array<BadLineInfo>
  requests: RequestFactsInfo
  lastVersion?: string
  firstTimestampMs?: number
  lastTimestampMs?: number
  sessionId?: string
  cwd?: string
  /** Records of the active chain whose `parentUuid` names no record (see `repair`). */
  danglingOnChain: number
  /**
   * Records of the active chain holding a `tool_result` whose `tool_use` is not on the chain
   * (see `repair`).
   */
  orphanResultsOnChain: number
}

/** The records of a transcript that `options` keeps, as byte spans; nothing of their text crosses. */
export declare function selectRecords(path: string, options?: RecordSelectionOptions | undefined | null): Promise<RecordSelection>

/**
 * One session of an estate scan: its main transcript and its subagent files, as positions in
 * the scan's file list.
 */
export interface SessionInfo {
  project: string
  sessionId: string
  mainFile?: number
  files: Array<number>
}

export type Severity = 'error' | 'warning'

export declare function sha256(buffer: Uint8Array): string

/** `sha256File` off the JS thread: compress hashes its source while the summary is built. */
export declare function sha256FileAsync(path: string): Promise<string>

/** The planning options as a person typed them (policy names not yet known to be valid). */
export interface SpelledPlanOptions {
  leafPolicy?: string
  checkpointPolicy?: string
  preservePhysicalTail?: boolean
  targetRatio?: number
}

/** How a store's record lines are kept: zstd frames, or the lines themselves. */
export type StoreCompression = 'zstd' | 'none'

/**
 * Encodes one batch of whole JSONL lines as the bytes to append (a checksummed frame with its
 * extent marker, or the lines themselves for 'none').
 */
export declare function storeEncodeBatch(lines: Uint8Array, compression: StoreCompression): Buffer

/** `storeEncodeBatch` on the libuv pool, so compressing a large batch never blocks the event loop. */
export declare function storeEncodeBatchAsync(lines: Uint8Array, compression: StoreCompression): Promise<Buffer>

/**
 * Reads and validates a whole store file on the libuv pool; with `repair`, a torn tail is cut
 * and its surviving records re-encoded (the caller must hold the session's writer lock).
 */
export declare function storeLoad(path: string, compression: StoreCompression, repair: boolean): Promise<StoreLoaded>

export interface StoreLoaded {
  header: Buffer
  /** Record lines after the header, each ending in a newline. */
  data: Buffer
  records: number
  fileLen: number
  frames: number
  /** Where a torn tail began (the file was, or would be, cut back there). */
  tornAt?: number
  /** Whole records recovered from the torn frame (re-encoded when repaired). */
  tornKept: number
  repaired: boolean
}

/**
 * Takes the writer lock of a store file without blocking; a lock held elsewhere (another
 * process or another store in this one) is an error naming the file.
 */
export declare function storeLock(path: string): StoreLock

/** The header line of a store file, reading only its first frame (or line). */
export declare function storeReadHeader(path: string, compression: StoreCompression): Buffer

export interface StreamHistory {
  storePath: string
  segments: Array<ArchivedSegment>
  files: Array<ArchivedFileHistory>
  /** Why the stream could not be read (its other fields are then empty). */
  error?: string
}

/**
 * The session an old-layout `agent-*.jsonl` belongs to (the first `sessionId` its records
 * carry), read from the file's first 64 KiB; null when it names none there or is unreadable.
 */
export declare function subagentParentSession(path: string): string | null

export interface SummaryInputOptions {
  /** Strings inside tool inputs are cut to this many characters (400). */
  stringChars?: number
  /** Tool results are cut to this many characters, head and tail kept (1200). */
  resultChars?: number
  /**
   * Results that report no failure (not `is_error`, no `Exit code`/`<tool_use_error>` start)
   * are cut to this many instead (default: resultChars). 0 leaves their text out.
   */
  successResultChars?: number
}

/**
 * What a summary can use from records `records` (in that order), as a JSON array of
 * SummaryRecord (absent values and false flags left out); `buffer` is the bytes `index` was
 * scanned from. One string and one JSON.parse cost far less than Node-API objects.
 */
export declare function summaryRecordsJson(buffer: Uint8Array, index: TranscriptIndex, records: Uint32Array, options?: SummaryInputOptions | undefined | null): string

/**
 * `summaryRecordsJson` of `records`, their bytes read from the file at `path` (the file
 * `index` was scanned from) rather than from a buffer; null, reading nothing, when the records
 * span more than `max_window` bytes of the file.
 */
export declare function summaryRecordsJsonFromFile(path: string, index: TranscriptIndex, records: Uint32Array, maxWindow: number, options?: SummaryInputOptions | undefined | null): string | null

export interface ToolTargetCount {
  target: string
  calls: number
}

/** What a tool's targets are. */
export type ToolTargetKind = 'file' | 'command' | 'host' | 'query' | 'subagent type' | 'pattern' | 'skill'

/** One tool that has a target: the kind, and the `input` fields that name it, in order. */
export interface ToolTargetRule {
  tool: string
  kind: ToolTargetKind
  fields: Array<string>
}

/**
 * The core's table of which tools have a target and where it is in their input: `stats
 * --tools` counts by it, `show` names a call's target by it.
 */
export declare function toolTargetRules(): Array<ToolTargetRule>

export interface ToolTargetsInfo {
  tool: string
  /** Absent for tools without targets. */
  kind?: ToolTargetKind
  calls: number
  callsWithoutTarget: number
  distinctTargets: number
  top: Array<ToolTargetCount>
}

export interface ToolUseInfo {
  id: string
  name: string
}

/**
 * The topology plan of one transcript (see `claude_jsonl_core::topology`). Indexes are record indexes of
 * the TranscriptIndex; chain positions index `chain`.
 */
export interface TopologyPlan {
  status: TopologyStatus
  /** One line; empty when valid. */
  message: string
  /** 1-based lines. */
  offendingLines: Array<number>
  /** Options that would recover from the stop. */
  recovery: Array<string>
  warnings: Array<PlanWarning>
  leafPolicy: LeafPolicy
  preserveMode: PreserveMode
  leafReason: string
  leaf?: number
  leafUuid?: string
  strictLeaf?: number
  clientLeaf?: number
  pointer?: number
  pointerState: PointerState
  extension: Uint32Array
  chain: Uint32Array
  /** Per chain record: 0 parent chain, 1 spliced fragment, 2 spliced tool result, 3 preserved segment. */
  chainOrigins: Uint8Array
  relinked: Uint32Array
  precompact: Uint32Array
  priorCompact: Uint32Array
  segmentLive: boolean
  lineageRuns: Array<LineageRun>
  legalCuts: Uint32Array
  promptCuts: Uint8Array
  cutBytes: Float64Array
  /** Per legal cut: estimated message tokens of the suffix. */
  cutTokens: Float64Array
  /** Per chain position: the record's estimated message tokens. */
  chainTokens: Float64Array
  /** Estimated message tokens of the model-visible chain (the cut's denominator). */
  visibleTokens: number
  cut?: number
  summaryIndexes: Uint32Array
  rawKeepIndexes: Uint32Array
  sideKeepIndexes: Uint32Array
  controlProjectionIndexes: Uint32Array
  excludedBranchIndexes: Uint32Array
  excludedUnattributedIndexes: Uint32Array
  metadataIndexes: Uint32Array
  inputBytes: number
  /** Per record: its 1-based line. */
  recordLines: Uint32Array
  /** Per record: an index into `type_names` ('' for a record without a type). */
  recordTypes: Uint16Array
  typeNames: Array<string>
}

/**
 * Whether the transcript's uuid/parent graph is one the planner can cut (`valid`), and if not,
 * why: no chain, unreadable lines or parent links, duplicate uuids, a parent that is not there, a
 * loop, a child written before its parent, sessions mixed along the chain, or a continuation past
 * the resume pointer that cannot be followed (too long, branching, or unsafe).
 */
export type TopologyStatus = 'valid' | 'absent' | 'malformed' | 'malformed-parent' | 'duplicate-uuid' | 'dangling' | 'loop' | 'non-monotonic' | 'session-mismatch' | 'extension-limit' | 'extension-branch' | 'extension-unsafe'

/** Files up to this size are read whole (their message count is exact). */
export declare const TRANSCRIPT_WHOLE_BYTES: number

/**
 * The facts of the transcript at `path` (`size` bytes when it was listed), read on this thread:
 * a few hundred kilobytes, faster here than a trip through the thread pool. With `counts` false
 * the records are not counted (`messages` 0, `problem` null). Throws when it cannot be read.
 */
export declare function transcriptFacts(path: string, size: number, counts: boolean): TranscriptFactsInfo

/** The facts of one transcript, read from its head and tail. */
export interface TranscriptFactsInfo {
  sessionId?: string
  cwd?: string
  entrypoint?: string
  version?: string
  /** The title shown: one line of at most 80 characters. */
  title?: string
  titleSource?: 'custom-title' | 'ai-title' | 'summary' | 'first-prompt' | null
  customTitle?: string
  aiTitle?: string
  summary?: string
  firstPrompt?: string
  /** The timestamp of the last record that has a valid one, in the bytes read. */
  lastTimestamp?: string
  /**
   * user + assistant records: exact when `complete`, else those of the bytes read; 0 when
   * records were not counted.
   */
  messages: number
  /** True when the whole file was read. */
  complete: boolean
  bytesRead: number
  /** Why the file is no transcript (its head holds no record and line 1 is no JSON object). */
  problem?: string
}

/** The facts of a transcript held in memory (an archived one, decoded). */
export declare function transcriptFactsOf(bytes: Uint8Array, counts: boolean): TranscriptFactsInfo

export interface TranscriptRepair {
  mends: Array<RepairMend>
  left: Array<RepairLeft>
  refusal?: RepairRefusal
  /** The repaired bytes; absent when nothing is mended or the repair is refused. */
  output?: Buffer
  records: number
}

export interface TypeCount {
  name: string
  count: number
}

/**
 * Usage buckets as columns: one entry per (session, 15-minute slot, model, subagent?, lane,
 * long-context?) with the deduplicated token sums of the requests in it.
 */
export interface UsageColumns {
  session: Uint32Array
  /** Slot start, ms since the epoch; NaN when the entries had no timestamp. */
  slotMs: Float64Array
  model: Uint32Array
  subagent: Uint8Array
  /** 0 none, 1 vertex, 2 other */
  lane: Uint8Array
  /** How many of the prompt thresholds given to `usage` the requests' prompts exceed. */
  promptBand: Uint8Array
  /** Index in `speeds` of `usage.speed` ("" when absent). */
  speed: Uint32Array
  speeds: Array<string>
  requests: Float64Array
  inputTokens: Float64Array
  cacheCreationInputTokens: Float64Array
  cacheWrite5mTokens: Float64Array
  cacheWrite1hTokens: Float64Array
  cacheReadInputTokens: Float64Array
  outputTokens: Float64Array
  /** Assistant entries per bucket (the requests' fragments and repeats; replays not included). */
  entries: Float64Array
  models: Array<string>
  /** Tool calls: bucket index, tool name index, count. */
  toolBucket: Uint32Array
  toolName: Uint32Array
  toolCalls: Float64Array
  toolNames: Array<string>
  assistantEntries: number
  syntheticEntries: number
  sidechainReplays: number
  malformedUsageEntries: number
}

export interface UsageInfo {
  inputTokens: number
  cacheCreationInputTokens: number
  cacheCreation5mInputTokens?: number
  cacheCreation1hInputTokens?: number
  cacheReadInputTokens: number
  outputTokens: number
}

/** Validates a transcript held in a Buffer (a candidate before it is written). */
export declare function validateBuffer(buffer: Uint8Array, options?: ValidateOptions | undefined | null): ValidationResult

/** Validates one transcript file off the JS thread (see `claude_jsonl_core::validate`). */
export declare function validateFile(path: string, options?: ValidateOptions | undefined | null): Promise<ValidationResult>

export interface ValidateOptions {
  /** The session the file is named after: the active chain must end in it. */
  fileSessionId?: string
}

export interface ValidationFinding {
  code: string
  severity: Severity
  /** 1-based lines involved (at most 20; the message gives full counts). */
  lines: Array<number>
  message: string
}

/**
 * What the validator found in one transcript, with the scan facts the caller needs to decide
 * whether the file is a Claude Code transcript at all.
 */
export interface ValidationResult {
  bytes: number
  lines: number
  records: number
  firstLine: FirstLine
  types: Array<TypeCount>
  findings: Array<ValidationFinding>
  leafLine?: number
  leafRule: LeafRule
  pointer: PointerState
  chainRecords: number
  visibleRecords: number
  apiMessages: number
  toolUses: number
  compactBoundaries: number
  sessions: Array<ValidationSession>
}

export interface ValidationSession {
  sessionId: string
  records: number
}

export declare function version(): string
