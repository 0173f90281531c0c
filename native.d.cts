// Types of the native addon's exports (crate/src/binding.rs). Kept in sync by
// __test__/native-exports.test.ts, which checks this list against the loaded module.

declare namespace binding {
  interface TypeCount { name: string; count: number }
  interface BadLineInfo { line: number; offset: number; kind: 'invalid-json' | 'non-object' }
  interface RequestFactsInfo {
    assistantEntries: number
    syntheticEntries: number
    entriesWithRequestId: number
    sidechainEntries: number
    distinctRequests: number
    duplicatesCollapsed: number
    nullStopGroups: number
  }
  interface ScanSummary {
    bytes: number
    lines: number
    records: number
    blankLines: number
    crlfLines: number
    badJsonLines: number
    nonObjectLines: number
    loneSurrogateLines: number
    bom: boolean
    unterminatedTail: boolean
    tornTail: boolean
    firstLine: 'empty' | 'object' | 'non-object' | 'invalid'
    types: TypeCount[]
    badLines: BadLineInfo[]
    requests: RequestFactsInfo
    lastVersion?: string
    firstTimestampMs?: number
    lastTimestampMs?: number
    sessionId?: string
    cwd?: string
  }
  interface UsageInfo {
    inputTokens: number
    cacheCreationInputTokens: number
    cacheCreation5mInputTokens?: number
    cacheCreation1hInputTokens?: number
    cacheReadInputTokens: number
    outputTokens: number
  }
  interface ToolUseInfo { id: string; name: string }
  interface RecordInfo {
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
    contentKinds: string[]
    toolUses: ToolUseInfo[]
    toolResultIds: string[]
  }
  class TranscriptIndex {
    readonly length: number
    summary(): ScanSummary
    record(index: number): RecordInfo | null
    records(start?: number, end?: number): RecordInfo[]
    offsets(): Float64Array
    lengths(): Uint32Array
  }
  interface ProgressSnapshot { bytesDone: number; bytesTotal: number; filesDone: number; filesTotal: number }
  class ScanProgress {
    constructor()
    snapshot(): ProgressSnapshot
  }
  interface EstateFileInfo {
    path: string
    kind: 'session' | 'subagent'
    project: string
    sessionId: string
    sessionIndex: number
    agentId?: string
    size: number
    mtimeMs: number
    error?: string
    /** Not scanned: last modified before ScanEstateOptions.minMtimeMs. */
    pruned: boolean
    /** Records kept by the scan (in a usage scan: assistant entries only). */
    records: number
    firstLine: 'empty' | 'object' | 'non-object' | 'invalid'
    /** Present unless files(false) was asked for, or the file was pruned or unreadable. */
    summary?: ScanSummary
  }
  interface SessionInfo { project: string; sessionId: string; mainFile?: number; files: number[] }
  interface DiscoverFailure { path: string; message: string }
  interface UsageColumns {
    session: Uint32Array
    slotMs: Float64Array
    model: Uint32Array
    subagent: Uint8Array
    lane: Uint8Array
    /** How many of the thresholds given to usage() each bucket's requests' prompts exceed. */
    promptBand: Uint8Array
    /** Index in `speeds` of usage.speed ('' when absent). */
    speed: Uint32Array
    speeds: string[]
    requests: Float64Array
    inputTokens: Float64Array
    cacheCreationInputTokens: Float64Array
    cacheWrite5mTokens: Float64Array
    cacheWrite1hTokens: Float64Array
    cacheReadInputTokens: Float64Array
    outputTokens: Float64Array
    models: string[]
    toolBucket: Uint32Array
    toolName: Uint32Array
    toolCalls: Float64Array
    toolNames: string[]
    assistantEntries: number
    syntheticEntries: number
    sidechainReplays: number
    /** Assistant entries whose usage was not an object or had a count or speed of the wrong type. */
    malformedUsageEntries: number
  }
  interface ToolTargetCount { target: string; calls: number }
  interface ToolTargetsInfo {
    tool: string
    kind?: 'file' | 'command' | 'host' | 'query' | 'subagent type' | 'pattern'
    calls: number
    callsWithoutTarget: number
    distinctTargets: number
    top: ToolTargetCount[]
  }
  class EstateScan {
    readonly failure: DiscoverFailure | null
    files(summaries?: boolean): EstateFileInfo[]
    sessions(): SessionInfo[]
    /** promptThresholds: prompt sizes (tokens) that split the buckets into promptBands. */
    usage(promptThresholds: number[]): UsageColumns
    /** Per tool, over the buckets of the last usage() that `included` marks (empty: all): calls and top `limit` targets. */
    toolTargets(included: Uint8Array, limit: number): ToolTargetsInfo[]
    /** Frees the native memory now; the object then reads as an empty estate. */
    release(): void
  }
  type ScanMode = 'full' | 'usage'
  interface DiscoveredFile {
    path: string
    kind: 'session' | 'subagent'
    project: string
    sessionId?: string
    agentId?: string
    size: number
    mtimeMs: number
  }
  function discoverFiles(paths: string[]): DiscoveredFile[]
  // ---- chain (issue 6 show/timeline; shared with issue 5) ----
  interface ChainOptions {
    /** Also group the records off the chain into branches. */
    allBranches?: boolean
    /** Use this record as the leaf instead of the client's choice (rule 'manual'). */
    leaf?: number
  }
  interface ActiveChain {
    /** Root to leaf, fragments and tool results spliced in where the client puts them. */
    indexes: Uint32Array
    /** Per chain record: 0 on the parent chain, 1 spliced assistant fragment, 2 spliced tool result. */
    origins: Uint8Array
    leaf?: number
    rule: 'last-prompt' | 'last-prompt-interior' | 'last-conversation-record' | 'none' | 'manual'
    pointer: 'absent' | 'no-leaf-uuid' | 'unknown-uuid' | 'leaf' | 'interior-on-chain' | 'interior-off-chain'
    pointerRecord?: number
    pointerTarget?: number
    defaultLeaf?: number
    /** When the pointer's record is on the chain: conversation branches forking at or below it (0: linear continuation). */
    branchesBelowPointer?: number
    looped: boolean
    duplicateUuidRecords: Uint32Array
    reattachedRecords: Uint32Array
    danglingRecords: Uint32Array
    roots: Uint32Array
    /** With allBranches: records off the chain per branch (id = its first record), and fork points (0xFFFFFFFF: detached). */
    branchIndexes?: Uint32Array
    branchIds?: Uint32Array
    branchForks?: Uint32Array
  }
  function activeChain(index: TranscriptIndex, options?: ChainOptions): ActiveChain
  // ---- end chain ----
  // ---- search (issue 6 find) ----
  interface FindOptions {
    /** Command-line terms; a quoted part, or an argument of several words, is also a phrase. */
    terms: string[]
    tools?: boolean
    thinking?: boolean
    limit?: number
    /** Only sessions whose last searchable record is at or after this time (ms since the epoch). */
    sinceMs?: number
    /** A substring of the project folder name. */
    project?: string
    /** Folder holding the index; absent: scan everything and write nothing. */
    indexDir?: string
  }
  interface FindHit {
    score: number
    sessionId: string
    agentId?: string
    project: string
    path: string
    line: number
    offset: number
    length: number
    timestamp?: string
    firstMs?: number
    lastMs?: number
    snippet: string
    matched: string[]
    phrasesFound: number
  }
  interface FindScope {
    files: number
    sessions: number
    bytes: number
    filesTotal: number
    sessionsTotal: number
    bytesTotal: number
    matchingFiles: number
    matchingSessions: number
    terms: string[]
    phrases: string[][]
    termFiles: number[]
    indexPath?: string
    indexBuiltMs?: number
    indexWritten: boolean
    indexError?: string
    filesReused: number
    filesRescanned: number
    filesAppended: number
    bytesRescanned: number
    failed: DiscoverFailure[]
  }
  interface FindResult { failure?: DiscoverFailure; hits: FindHit[]; scope?: FindScope }
  function findText(roots: string[], options: FindOptions, progress?: ScanProgress): Promise<FindResult>
  // ---- end search ----
  // ---- validate (issue 5) ----
  interface ValidationFinding {
    code: string
    severity: 'error' | 'warning'
    /** 1-based lines involved (at most 20; the message gives full counts). */
    lines: number[]
    message: string
  }
  interface ValidationSession { sessionId: string; records: number }
  interface ValidationResult {
    bytes: number
    lines: number
    records: number
    firstLine: 'empty' | 'object' | 'non-object' | 'invalid'
    types: TypeCount[]
    findings: ValidationFinding[]
    leafLine?: number
    leafRule: 'last-prompt' | 'last-prompt-interior' | 'last-conversation-record' | 'none'
    pointer: 'absent' | 'no-leaf-uuid' | 'unknown-uuid' | 'leaf' | 'interior-on-chain' | 'interior-off-chain'
    chainRecords: number
    visibleRecords: number
    apiMessages: number
    toolUses: number
    compactBoundaries: number
    sessions: ValidationSession[]
  }
  interface ValidateOptions {
    /** The session the file is named after: the active chain must end in it. */
    fileSessionId?: string
  }
  function validateFile(path: string, options?: ValidateOptions): Promise<ValidationResult>
  function validateBuffer(buffer: Uint8Array, options?: ValidateOptions): ValidationResult
  /** Whether the file at `path` holds exactly `bytes` (the read-back check of a written file). */
  function fileEquals(path: string, bytes: Uint8Array): boolean
  // ---- end validate ----
  // ---- topology (issue 5) ----
  interface PlanOptions {
    leafPolicy?: 'strict' | 'client' | 'auto'
    /** A uuid: resume from this record (reported as 'active-chain-manual-override'). */
    resumeLeaf?: string
    /** Legacy compatibility mode: the physical tail is kept, no branch isolation. */
    preservePhysicalTail?: boolean
    maxPostLastPromptExtension?: number
    checkpointPolicy?: 'active-correlated' | 'preserve-recent' | 'none'
    maxFileHistorySnapshots?: number
    targetRatio?: number
    minRecentRecords?: number
    /** Start the kept suffix at this chain position, which must be one of the legal cuts. */
    cutPosition?: number
  }
  interface PlanWarning { code: string; lines: number[]; message: string }
  interface LineageRun { sessionId: string; start: number; end: number }
  type TopologyStatus =
    | 'valid' | 'absent' | 'malformed' | 'malformed-parent' | 'duplicate-uuid' | 'dangling' | 'loop'
    | 'non-monotonic' | 'session-mismatch' | 'extension-limit' | 'extension-branch' | 'extension-unsafe'
  type PreserveMode = 'active-chain' | 'active-chain-manual-override' | 'active-chain-client-leaf' | 'physical-tail'
  interface TopologyPlan {
    status: TopologyStatus
    message: string
    offendingLines: number[]
    recovery: string[]
    warnings: PlanWarning[]
    leafPolicy: 'strict' | 'client' | 'auto'
    preserveMode: PreserveMode
    leafReason: string
    leaf?: number
    leafUuid?: string
    strictLeaf?: number
    clientLeaf?: number
    pointer?: number
    pointerState: 'absent' | 'no-leaf-uuid' | 'unknown-uuid' | 'leaf' | 'interior-on-chain' | 'interior-off-chain'
    extension: Uint32Array
    chain: Uint32Array
    /** Per chain record: 0 parent chain, 1 spliced fragment, 2 spliced tool result, 3 preserved segment. */
    chainOrigins: Uint8Array
    relinked: Uint32Array
    precompact: Uint32Array
    priorCompact: Uint32Array
    segmentLive: boolean
    lineageRuns: LineageRun[]
    legalCuts: Uint32Array
    promptCuts: Uint8Array
    cutBytes: Float64Array
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
    /** Per record: an index into typeNames ('' for a record without a type). */
    recordTypes: Uint16Array
    typeNames: string[]
  }
  function planTranscript(index: TranscriptIndex, buffer: Uint8Array, options?: PlanOptions): TopologyPlan
  // ---- end topology ----
  function version(): string
  function sha256(buffer: Uint8Array): string
  function scanBuffer(buffer: Uint8Array, mode?: ScanMode): TranscriptIndex
  function scanFile(path: string, mode?: ScanMode): Promise<TranscriptIndex>
  interface ScanEstateOptions { minMtimeMs?: number }
  function scanEstate(paths: string[], mode?: ScanMode, progress?: ScanProgress, options?: ScanEstateOptions): Promise<EstateScan>
  // ---- store (issue 4) ----
  type StoreCompression = 'zstd' | 'none'
  interface StoreLoaded {
    header: Buffer
    data: Buffer
    records: number
    fileLen: number
    frames: number
    tornAt?: number
    tornKept: number
    repaired: boolean
  }
  class StoreLock {
    release(): void
  }
  function storeEncodeBatch(lines: Uint8Array, compression: StoreCompression): Buffer
  function storeEncodeBatchAsync(lines: Uint8Array, compression: StoreCompression): Promise<Buffer>
  function storeReadHeader(path: string, compression: StoreCompression): Buffer
  function storeLoad(path: string, compression: StoreCompression, repair: boolean): Promise<StoreLoaded>
  function storeLock(path: string): StoreLock
  interface ArchiveFailure { path: string; message: string }
  interface ArchiveSummary {
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
    bytesIn: number
    bytesStored: number
    /** Transcripts that could not be archived (everything else was). */
    failures: ArchiveFailure[]
    archivedFiles: number
    archivedBytes: number
    storeBytes: number
  }
  interface ArchivedFile {
    key: string
    project: string
    path: string
    sessionId?: string
    generation: number
    generations: number
    storePath: string
    storeBytes: number
  }
  interface RestoreResult { key: string; target: string; written: boolean; bytes: number; error?: string }
  interface ArchiveViewSummary { files: number; decoded: number; bytes: number }
  function archiveEstate(roots: string[], to: string, progress: ScanProgress, createdAt: string): Promise<ArchiveSummary>
  function archiveDetect(path: string): boolean
  function archiveList(root: string): ArchivedFile[]
  function archiveRestore(files: ArchivedFile[], to: string, keepMtime: boolean, progress: ScanProgress): Promise<RestoreResult[]>
  function archiveView(root: string, view: string): ArchiveViewSummary
  interface ArchiveOwner { key: string; sessionId?: string; error?: string }
  function archiveOwners(files: ArchivedFile[]): Promise<ArchiveOwner[]>
  // ---- end store ----
  // ---- compress (issue 3) ----
  interface MemberSet { key: string; json: string }
  interface OutputPart { records?: Uint32Array; record?: number; set?: MemberSet[]; line?: string }
  function assembleTranscript(source: Uint8Array, index: TranscriptIndex, parts: OutputPart[]): Buffer
  interface RecordLinks { uuids: Array<string | undefined | null>; parents: Array<string | undefined | null> }
  function recordLinks(index: TranscriptIndex, records: Uint32Array): RecordLinks
  // ---- end compress ----
  // ---- estimate (issue 3) ----
  /**
   * Local token estimate per record (ASCII 1/4, Han/Kana/Hangul 1.3, non-BMP/symbols/marks 1.5,
   * other 0.8 per character; 12 per user/assistant/attachment record; 1600 per image block) over
   * the complete message payload. `buffer` must be the bytes `index` was scanned from; `records`
   * are record indexes (default: all). Other record types estimate to 0.
   */
  function estimateRecordTokens(buffer: Uint8Array, index: TranscriptIndex, records?: Uint32Array): Float64Array
  /** Local token estimate of one text, with no record allowance. */
  function estimateTextTokens(text: string): number
  interface SummaryInputOptions {
    /** Strings inside tool inputs are cut to this many characters (400). */
    stringChars?: number
    /** Tool results are cut to this many characters, head and tail kept (1200). */
    resultChars?: number
    /** Results that report no failure (not is_error, no `Exit code`/`<tool_use_error>` start)
     * are cut to this many instead (default: resultChars); 0 leaves their text out. */
    successResultChars?: number
  }
  interface SummaryBlock {
    /** 'text' | 'thinking' | 'tool_use' | 'tool_result' | 'image' | another block type */
    kind: string
    /** text/thinking in full; tool_result content as text, cut */
    text?: string
    name?: string
    /** tool_use id, or the tool_use_id a tool_result answers */
    id?: string
    /** tool_use input as compact JSON, long strings cut */
    input?: string
    isError?: boolean
    /** characters before cutting (text, thinking, tool_result) */
    chars: number
    cut?: boolean
  }
  interface SummaryRecord {
    record: number
    /** 1-based physical line */
    line: number
    type?: string
    subtype?: string
    role?: string
    uuid?: string
    timestamp?: string
    isMeta?: boolean
    isCompactSummary?: boolean
    isApiErrorMessage?: boolean
    /** message.content when it is a string, in full */
    content?: string
    blocks: SummaryBlock[]
    /** the `type` of an object toolUseResult ('create', 'update', 'text', …) */
    toolUseResultType?: string
    /** a system record's content, else its error as compact JSON */
    systemText?: string
    /** false when the line is not a JSON object */
    parsed?: boolean
  }
  /**
   * What a summary can use from records `records` (in that order), as a JSON array of
   * SummaryRecord (absent values and false flags left out); `buffer` is the bytes `index` was
   * scanned from. One string and one JSON.parse cost far less than Node-API objects.
   */
  function summaryRecordsJson(buffer: Uint8Array, index: TranscriptIndex, records: Uint32Array, options?: SummaryInputOptions): string
  // ---- end estimate ----
  // ---- source-pages (issue 3 targets): the source's pages released between passes; hashed while scanned ----
  /**
   * Gives the memory pages wholly inside `buffer` back to the OS (Linux; elsewhere a no-op):
   * they read as zeros until written again. Returns the bytes released. Only for a buffer that
   * owns its memory (a large file read, not a slice of a shared pool).
   */
  function releasePages(buffer: Uint8Array): number
  /** A scan and the SHA-256 of the same bytes. */
  interface HashedScan {
    index: TranscriptIndex
    sha256: string
  }
  /** `scanBuffer` and `sha256` of one buffer at once (the hash runs on its own thread meanwhile). */
  function scanBufferHashed(buffer: Uint8Array, mode?: ScanMode): HashedScan
  /**
   * `assembleTranscript` with the source records read from the file at `path` (the file `index`
   * was scanned from; a file of another size is refused) straight into the output.
   */
  function assembleTranscriptFromFile(path: string, index: TranscriptIndex, parts: OutputPart[]): Buffer
  /** `sha256File` off the JS thread (compress hashes its source while the summary is built). */
  function sha256FileAsync(path: string): Promise<string>
  /**
   * The file at `path` mapped read-only (Linux) as a Buffer over the mapping: no copy, no fresh
   * pages. null where files are not mapped (other systems, an empty file, a failed mapping): read
   * the file instead. Never write to it; check `mappedIntact` before trusting what was read.
   */
  function mapFile(path: string): Buffer | null
  /** False when a `mapFile` buffer lost pages (its file was truncated while mapped): what was
   * read may be zeros. True for any other buffer. */
  function mappedIntact(buffer: Uint8Array): boolean
  /** Drops a `mapFile` buffer's pages from the process (they read again from the file when
   * touched), all or those wholly inside bytes [start, end); returns the bytes released, 0 for
   * any other buffer. */
  function releaseMapped(buffer: Uint8Array, start?: number, end?: number): number
  // ---- end source-pages ----
  // ---- summary-window: summary inputs read straight from the source file, one batch at a time ----
  /**
   * summaryRecordsJson of `records`, their bytes read from the file at `path` (the file `index`
   * was scanned from) rather than from a buffer; null, reading nothing, when the records span
   * more than `maxWindow` bytes of the file.
   */
  function summaryRecordsJsonFromFile(path: string, index: TranscriptIndex, records: Uint32Array, maxWindow: number, options?: SummaryInputOptions): string | null
  // ---- end summary-window ----
  // ---- in-place: atomic path swap and the Read.pages repair ----
  /** Swaps the files two paths name in one step (Linux renameat2 RENAME_EXCHANGE); false when the
   * platform or file system cannot, throws on any other failure. */
  function exchangePaths(a: string, b: string): boolean
  interface ReadPagesPatch { line: number; toolUseId: string; filePath: string; start: number; end: number }
  interface ReadPagesLeft { line: number; toolUseId: string; reason: string; message: string }
  interface ReadPagesRefusal {
    kind: 'topology' | 'ambiguous' | 'invariant'
    status?: string
    line?: number
    message: string
  }
  interface ReadPagesRepair {
    patches: ReadPagesPatch[]
    pending: ReadPagesLeft[]
    ineligible: ReadPagesLeft[]
    output?: Buffer
    records: number
    refusal?: ReadPagesRefusal
  }
  /** Plans, applies and self-checks the Read.pages repair of one transcript held in memory. */
  function repairReadPages(buffer: Uint8Array, scope: 'active' | 'all'): ReadPagesRepair
  // ---- end in-place ----
}

export = binding
