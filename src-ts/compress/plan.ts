// `plan`: the topology of one transcript as a compression would see it. No writes.
//
// Shape (stable: fields are only ever added, never renamed):
//
//   plan(source: string | Buffer, options?: PlanOptions): Promise<TranscriptPlan>
//   planIndex(index, buffer, options?, input?): TranscriptPlan     (when you already scanned it)
//
//   TranscriptPlan = {
//     report:   PlanReport       JSON-safe, report schema 1 (camelCase);
//                                what `claude-jsonl plan --json` prints
//     topology: TopologyPlan     the native plan (crate/core/src/topology), record indexes into `index`:
//       status, message, offendingLines (1-based), recovery (options that apply)  — errors as data
//       leaf / leafUuid / strictLeaf / clientLeaf / pointer, pointerState, leafPolicy, preserveMode,
//       leafReason, extension (records accepted after the pointer)
//       chain (root first: from the last compact boundary on the chain to the leaf, spliced
//         fragments/results/preserved segment included), chainOrigins, relinked (chain records the
//         client links to another parent than their parentUuid: relink them when kept),
//         precompact (reachable only through logicalParentUuid: earlier history, never current),
//         priorCompact (the boundary+summary at chain[0..]), segmentLive, lineageRuns
//       legalCuts (chain positions where the kept suffix may start; pass one as options.cutPosition
//         to narrow the cut), promptCuts (per legal cut:
//         starts at a human prompt), cutBytes (per legal cut: bytes of the suffix), cut (chosen
//         position, or undefined when there is no legal cut)
//       summaryIndexes, rawKeepIndexes, sideKeepIndexes, controlProjectionIndexes,
//         excludedBranchIndexes, excludedUnattributedIndexes (mutually exclusive, covering every
//         record index), metadataIndexes (the latest value per session metadata type; part of
//         controlProjectionIndexes together with the pointer)
//       recordLines (per record: 1-based line), recordTypes + typeNames (per record: its type)
//     index:    TranscriptIndex  the scan (offsets()/lengths() give each record's bytes in `buffer`)
//     buffer:   Buffer           the file's bytes
//   }
//
// Indexes are record indexes (lines that are JSON objects); lines that are not are no record and
// are only counted (report.unparsedLines). Options: PlanOptions below (cutPosition starts the
// kept suffix at a given legal position, e.g. to narrow the cut for a token ceiling).
//
// A topology stop is `report.status !== 'valid'` (with `report.stop`): not a throw. Only an
// unreadable input, or one that is not a Claude Code transcript, throws (ClaudeJsonlError, exit 3);
// an option the plan cannot honour throws a usage error (exit 2).
import { createHash } from 'node:crypto'
import { readFile, stat } from 'node:fs/promises'
import { basename } from 'node:path'
import native from '../native.js'
import { sourceChanged } from './source-spans.js'
import type { TranscriptIndex } from '../native.js'
import type {
  CheckpointPolicy,
  LeafPolicy,
  PlanOptions as NativePlanOptions,
  PlanWarning,
  TopologyPlan,
  TopologyStatus,
  PreserveMode,
} from '#native'
import { ClaudeJsonlError, EXIT, fromNative, inputError, usageError } from '../errors.js'
import { transcriptProblem } from '../read/record-types.js'
import type { EstateOptions } from '../read/estate.js'
import { checkRegularFile, FOLDER_NOT_FILE, sessionPath } from '../read/session-ref.js'

export type { TopologyPlan, TopologyStatus, PreserveMode, PlanWarning, LeafPolicy, CheckpointPolicy }

/** The planning options (declared with the binding, crate/node/src/topology.rs). */
export type PlanOptions = NativePlanOptions

/**
 * Which leaf the plan resumes from and why: the leaf each policy would choose (the resume
 * pointer, the strict rule, the real client) and the one selected.
 */
export interface ResumeLeafInfo {
  status: TopologyStatus
  preserveMode: PreserveMode
  leafPolicy: LeafPolicy
  /** How the leaf was chosen, one line. */
  reason: string
  selectedLeafUuid?: string
  selectedLeafLine?: number
  pointerLine?: number
  pointerLeafUuid?: string
  pointerState: TopologyPlan['pointerState']
  strictLeafUuid?: string
  strictLeafLine?: number
  clientLeafUuid?: string
  clientLeafLine?: number
  /** Records accepted after the pointer by maxPostLastPromptExtension. */
  extensionRecords: number
  /** SHA-256 of the chain's line numbers (content-free). */
  activeChainDigest: string
}

/**
 * Why a plan stops instead of cutting: the topology status, the lines involved, one line for a
 * person, and what would let it go on.
 */
export interface PlanStop {
  status: TopologyStatus
  lines: number[]
  message: string
  recovery: string[]
}

/**
 * Where the plan cuts the active chain: the first kept record, what the kept suffix weighs, and
 * every other legal cut position.
 */
export interface CutInfo {
  /** Chain position of the first kept record. */
  position: number
  firstKeptLine: number
  firstKeptUuid?: string
  /** The suffix starts at a human prompt. */
  promptStart: boolean
  recentRecordsPreserved: number
  keptBytes: number
  /** keptBytes / inputBytes. */
  ratio: number
  /** Estimated message tokens of the kept suffix. */
  keptEstimatedTokens: number
  /** keptEstimatedTokens over the model-visible chain's estimated tokens: what the target measures. */
  keptTokenRatio: number
  /** Every legal cut position (chain positions), ascending; with its suffix bytes and tokens and whether it starts at a prompt. */
  legalPositions: number[]
  legalBytes: number[]
  legalEstimatedTokens: number[]
  legalPromptStarts: boolean[]
}

/** One reason records are left out of the output, and how many it covers. */
export interface ExclusionReason {
  reason: string
  count: number
}

/**
 * The report of a plan (schema 1, the JSON of `claude-jsonl plan`): the source's topology and
 * status, the resume leaf, the cut, and the partition of every record into summarised, kept
 * verbatim, kept beside the chain, projected, or excluded.
 */
export interface PlanReport {
  reportSchemaVersion: 1
  /** Basename of the input, or '<buffer>'. */
  input: string
  inputBytes: number
  inputRecords: number
  inputLines: number
  sourceSha256: string
  status: TopologyStatus
  valid: boolean
  stop?: PlanStop
  warnings: PlanWarning[]
  leafPolicy: LeafPolicy
  preserveMode: PreserveMode
  /** Physical-tail compatibility mode gives no branch isolation. */
  branchIsolation: boolean
  selectedLeafUuid?: string
  resumeLeafInfo: ResumeLeafInfo
  sourceActiveChainLength: number
  /** Line of the chain's first record (the last compact boundary on the chain, when there is one). */
  activeChainStartLine?: number
  priorCompactRecordCount: number
  priorCompactLastPositionInActiveChain?: number
  preservedSegmentApplied: boolean
  precompactRecords: number
  lineageRuns: { sessionId: string; startPosition: number; endPosition: number }[]
  /** Estimated message tokens of the model-visible chain (from the last compact boundary to the
   * leaf: what the client would send): the denominator of the target ratio. */
  visibleEstimatedTokens: number
  cut: CutInfo | null
  requestedTargetRatio: number
  /** The kept suffix's ceiling in estimated message tokens, when one applies. */
  maxKeptTokens?: number
  minRecentRecords: number
  checkpointPolicy: CheckpointPolicy
  fileHistorySnapshotsPreserved: number
  summarizedRecords: number
  rawKeepRecords: number
  sideKeepRecords: number
  controlProjectionRecords: number
  summarySourceLines: number[]
  rawKeepSourceLines: number[]
  sideKeepSourceLines: number[]
  controlProjectionSourceLines: number[]
  excludedBranchCount: number
  excludedBranchDigest: string
  excludedUnattributedCount: number
  excludedUnattributedDigest: string
  /** Why records are excluded, counts only. */
  excludedBranchReasons: ExclusionReason[]
  excludedUnattributedReasons: ExclusionReason[]
  /** Lines that are not JSON objects: no record, left out. */
  unparsedLines: number
  // The six-way partition under the compressor format's own names, so tools written against
  // that format read this report. Line lists are 1-based source line numbers (the numbering of
  // every other line field here); the excluded sets carry no lines, only a count and the
  // SHA-256 of their line numbers, since excluded records must not be revealed.
  /** Older active-chain records replaced by the summary (= summarySourceLines). */
  summaryIndexes: number[]
  /** Recent active-chain records kept verbatim (= rawKeepSourceLines). */
  rawKeepIndexes: number[]
  /** Attributed side records kept (= sideKeepSourceLines). */
  sideKeepIndexes: number[]
  /** Control records projected into the output (= controlProjectionSourceLines). */
  controlProjectionIndexes: number[]
  excludedBranchIndexes: LineSetSummary
  excludedUnattributedIndexes: LineSetSummary
  /** Compatibility alias of summaryIndexes (it never meant every discarded record). */
  omittedIndexes: number[]
}

/** A line set reported without its lines: how many, and the digest of their numbers. */
export interface LineSetSummary {
  count: number
  digest: string
}

/**
 * A plan with what it was made from: the report, the native topology (record indexes), the
 * record index and the source bytes, so a caller can build output without reading the file again.
 */
export interface TranscriptPlan {
  report: PlanReport
  topology: TopologyPlan
  index: TranscriptIndex
  /** The source bytes: for a file, a read-only mapping of it where the platform allows (never write to it). */
  buffer: Buffer
}

const DEFAULTS = { targetRatio: 0.3, minRecentRecords: 10 }

/**
 * The kept suffix's default ceiling in estimated message tokens. A resumed session sends the
 * summary (at most ~15k tokens at the default budget), this suffix, and the client's own system
 * prompt and tools (~19k with 2.1.332's built-in tools): measured with the real client on the
 * largest sample sessions, about 50k of a 200k window, which leaves most of it for the work that
 * follows (benches/kept-ceiling.mjs; the figures are in docs/compress/kept-ceiling.md).
 */
export const DEFAULT_MAX_KEPT_TOKENS = 40_000

/** The ceiling the plan uses: the caller's, else the default unless the caller chose a target
 * ratio (which then decides alone); Infinity or 0 means none. */
export function maxKeptTokensOf(o: PlanOptions): number | undefined {
  const v = o.maxKeptTokens
  if (v === undefined) return o.targetRatio === undefined ? DEFAULT_MAX_KEPT_TOKENS : undefined
  if (v === Infinity || v === 0) return undefined
  if (!(Number.isFinite(v) && v > 0)) throw usageError(`the kept-token ceiling must be a number > 0, not '${v}'`)
  return v
}

function nativeOptions(o: PlanOptions): NativePlanOptions {
  // policy names, their combination and the target ratio are checked natively, before any file is read
  try {
    native.checkPlanOptions({
      leafPolicy: o.leafPolicy,
      checkpointPolicy: o.checkpointPolicy,
      preservePhysicalTail: o.preservePhysicalTail,
      targetRatio: o.targetRatio,
    })
  } catch (e) {
    throw fromNative(e)
  }
  const int = (v: number | undefined, name: string) => {
    if (v !== undefined && !(Number.isInteger(v) && v >= 0 && v <= 0xffffffff))
      throw usageError(`${name} must be a whole number >= 0, not '${v}'`)
    return v
  }
  return {
    leafPolicy: o.leafPolicy,
    resumeLeaf: o.resumeLeaf,
    preservePhysicalTail: o.preservePhysicalTail,
    maxPostLastPromptExtension: int(o.maxPostLastPromptExtension, '--max-post-last-prompt-extension'),
    checkpointPolicy: o.checkpointPolicy,
    maxFileHistorySnapshots: int(o.maxFileHistorySnapshots, '--max-file-history-snapshots'),
    targetRatio: o.targetRatio,
    maxKeptTokens: maxKeptTokensOf(o),
    minRecentRecords: int(o.minRecentRecords, '--min-recent-records'),
    cutPosition: int(o.cutPosition, 'cutPosition'),
  }
}

/** SHA-256 of a line-number set: content-free (numbers only), order-independent. */
export function lineSetDigest(lines: ArrayLike<number>): string {
  const sorted = Array.from(lines).sort((a, b) => a - b)
  return createHash('sha256').update(sorted.join('\n')).digest('hex')
}

/**
 * Plans a session (a transcript path, a session uuid or a unique prefix of one, looked up under
 * `options.projects`) or a buffer. Resolves with the plan whatever its status.
 */
export async function plan(
  session: string | Buffer,
  options: PlanOptions & Pick<EstateOptions, 'projects' | 'env'> = {},
): Promise<TranscriptPlan> {
  const opts = nativeOptions(options)
  let buffer: Buffer
  let input = '<buffer>'
  const source = typeof session === 'string' ? sessionPath(session, options) : session
  if (typeof source === 'string') {
    input = basename(source)
    try {
      checkRegularFile(source, await stat(source))
      // A read-only mapping of the file instead of a copy: a plan reads records by byte span, so
      // a transcript of any size costs its index, not its bytes, in the process's own memory.
      // CLAUDE_JSONL_NO_MMAP=1 reads the file instead (a filesystem where mappings misbehave).
      const mapping = process.env.CLAUDE_JSONL_NO_MMAP ? null : native.mapFile(source)
      buffer = mapping ?? (await readFile(source))
    } catch (e) {
      if (e instanceof ClaudeJsonlError) throw e
      const err = e as NodeJS.ErrnoException
      const why =
        err.code === 'ENOENT'
          ? 'no such file or directory'
          : err.code === 'EISDIR'
            ? FOLDER_NOT_FILE
            : err.code === 'EACCES'
              ? 'permission denied'
              : err.message
      throw inputError(source, why)
    }
  } else {
    buffer = source
  }
  const index = native.scanBuffer(buffer, 'full')
  const label = typeof source === 'string' ? source : '<buffer>'
  const summary = index.summary()
  const problem = transcriptProblem({ records: index.length, firstLine: summary.firstLine, types: summary.types })
  if (problem) throw inputError(label, problem)
  const planned = planScanned(index, buffer, opts, options, input)
  // A mapped file truncated while it was read reads as zeros from there on.
  if (!native.mappedIntact(buffer)) throw sourceChanged(label)
  return planned
}

/** Plans a transcript already scanned: `buffer` must be the bytes `index` was scanned from. */
export function planIndex(
  index: TranscriptIndex,
  buffer: Buffer,
  options: PlanOptions = {},
  input = '<buffer>',
  sourceSha256?: string,
): TranscriptPlan {
  return planScanned(index, buffer, nativeOptions(options), options, input, sourceSha256)
}

function planScanned(
  index: TranscriptIndex,
  buffer: Buffer,
  opts: NativePlanOptions,
  options: PlanOptions,
  input: string,
  sourceSha256?: string,
): TranscriptPlan {
  let topology: TopologyPlan
  try {
    topology = native.planTranscript(index, buffer, opts)
  } catch (e) {
    throw new ClaudeJsonlError((e as Error).message.split('\n')[0], EXIT.usage)
  }
  return { report: buildReport(index, buffer, topology, options, input, sourceSha256), topology, index, buffer }
}

function buildReport(
  index: TranscriptIndex,
  buffer: Buffer,
  t: TopologyPlan,
  options: PlanOptions,
  input: string,
  sourceSha256?: string,
): PlanReport {
  const lineOf = (i: number) => t.recordLines[i] ?? 0
  const uuidOf = (i: number | undefined) => (i === undefined ? undefined : index.record(i)?.uuid)
  const lines = (a: Uint32Array) => Array.from(a, lineOf)
  const summary = index.summary()
  const chainLines = lines(t.chain)
  const ptr = t.pointer === undefined ? undefined : index.record(t.pointer)
  const resumeLeafInfo: ResumeLeafInfo = {
    status: t.status,
    preserveMode: t.preserveMode,
    leafPolicy: t.leafPolicy as LeafPolicy,
    reason: t.leafReason,
    selectedLeafUuid: t.leafUuid,
    selectedLeafLine: t.leaf === undefined ? undefined : lineOf(t.leaf),
    pointerLine: ptr?.line,
    pointerLeafUuid: ptr?.leafUuid,
    pointerState: t.pointerState,
    strictLeafUuid: uuidOf(t.strictLeaf),
    strictLeafLine: t.strictLeaf === undefined ? undefined : lineOf(t.strictLeaf),
    clientLeafUuid: uuidOf(t.clientLeaf),
    clientLeafLine: t.clientLeaf === undefined ? undefined : lineOf(t.clientLeaf),
    extensionRecords: t.extension.length,
    activeChainDigest: lineSetDigest(chainLines),
  }
  let cut: CutInfo | null = null
  if (t.cut !== undefined) {
    const j = Array.from(t.legalCuts).indexOf(t.cut)
    const first = t.chain[t.cut]
    cut = {
      position: t.cut,
      firstKeptLine: lineOf(first),
      firstKeptUuid: uuidOf(first),
      promptStart: t.promptCuts[j] === 1,
      recentRecordsPreserved: t.chain.length - t.cut,
      keptBytes: t.cutBytes[j],
      ratio: t.inputBytes > 0 ? t.cutBytes[j] / t.inputBytes : 0,
      keptEstimatedTokens: Math.round(t.cutTokens[j]),
      keptTokenRatio: t.visibleTokens > 0 ? t.cutTokens[j] / t.visibleTokens : 0,
      legalPositions: Array.from(t.legalCuts),
      legalBytes: Array.from(t.cutBytes),
      legalEstimatedTokens: Array.from(t.cutTokens, Math.round),
      legalPromptStarts: Array.from(t.promptCuts, (b) => b === 1),
    }
  }
  const summaryLines = lines(t.summaryIndexes)
  const rawLines = lines(t.rawKeepIndexes)
  const sideLines = lines(t.sideKeepIndexes)
  const controlLines = lines(t.controlProjectionIndexes)
  const excludedBranch = {
    count: t.excludedBranchIndexes.length,
    digest: lineSetDigest(lines(t.excludedBranchIndexes)),
  }
  const excludedUnattributed = {
    count: t.excludedUnattributedIndexes.length,
    digest: lineSetDigest(lines(t.excludedUnattributedIndexes)),
  }
  const snapshots = Array.from(t.sideKeepIndexes).filter((i) => typeOf(t, i) === 'file-history-snapshot').length
  const valid = t.status === 'valid'
  const priorLast = t.priorCompact.length > 0 ? t.priorCompact.length - 1 : undefined
  return {
    reportSchemaVersion: 1,
    input,
    inputBytes: buffer.length,
    inputRecords: index.length,
    inputLines: summary.lines,
    sourceSha256: sourceSha256 ?? native.sha256(buffer),
    status: t.status,
    valid,
    stop: valid ? undefined : { status: t.status, lines: t.offendingLines, message: t.message, recovery: t.recovery },
    warnings: t.warnings,
    leafPolicy: t.leafPolicy as LeafPolicy,
    preserveMode: t.preserveMode,
    branchIsolation: t.preserveMode !== 'physical-tail',
    selectedLeafUuid: t.leafUuid,
    resumeLeafInfo,
    sourceActiveChainLength: t.chain.length,
    activeChainStartLine: chainLines[0],
    priorCompactRecordCount: t.priorCompact.length,
    priorCompactLastPositionInActiveChain: priorLast,
    preservedSegmentApplied: t.segmentLive,
    precompactRecords: t.precompact.length,
    lineageRuns: t.lineageRuns.map((r) => ({ sessionId: r.sessionId, startPosition: r.start, endPosition: r.end })),
    visibleEstimatedTokens: Math.round(t.visibleTokens),
    cut,
    requestedTargetRatio: options.targetRatio ?? DEFAULTS.targetRatio,
    maxKeptTokens: maxKeptTokensOf(options),
    minRecentRecords: options.minRecentRecords ?? DEFAULTS.minRecentRecords,
    checkpointPolicy: options.checkpointPolicy ?? 'active-correlated',
    fileHistorySnapshotsPreserved: snapshots,
    summarizedRecords: t.summaryIndexes.length,
    rawKeepRecords: t.rawKeepIndexes.length,
    sideKeepRecords: t.sideKeepIndexes.length,
    controlProjectionRecords: t.controlProjectionIndexes.length,
    summarySourceLines: summaryLines,
    rawKeepSourceLines: rawLines,
    sideKeepSourceLines: sideLines,
    controlProjectionSourceLines: controlLines,
    excludedBranchCount: excludedBranch.count,
    excludedBranchDigest: excludedBranch.digest,
    excludedUnattributedCount: excludedUnattributed.count,
    excludedUnattributedDigest: excludedUnattributed.digest,
    excludedBranchReasons: branchReasons(t),
    excludedUnattributedReasons: unattributedReasons(t),
    unparsedLines: summary.badJsonLines + summary.nonObjectLines,
    summaryIndexes: summaryLines,
    rawKeepIndexes: rawLines,
    sideKeepIndexes: sideLines,
    controlProjectionIndexes: controlLines,
    excludedBranchIndexes: excludedBranch,
    excludedUnattributedIndexes: excludedUnattributed,
    omittedIndexes: summaryLines,
  }
}

function count(reasons: Map<string, number>): ExclusionReason[] {
  return [...reasons].map(([reason, n]) => ({ reason, count: n })).sort((a, b) => b.count - a.count)
}

function typeOf(t: TopologyPlan, i: number): string {
  return t.typeNames[t.recordTypes[i]] || 'untyped'
}

/** Why uuid records are off the plan: earlier history, after the leaf, or another branch. */
function branchReasons(t: TopologyPlan): ExclusionReason[] {
  const pre = new Set(t.precompact)
  const leaf = t.leaf ?? -1
  const boundary = t.priorCompact.length > 0 ? t.chain[0] : -1
  const out = new Map<string, number>()
  for (const i of t.excludedBranchIndexes) {
    const type = typeOf(t, i)
    const conversation = type === 'user' || type === 'assistant'
    const reason = pre.has(i)
      ? 'before the last compact boundary (reachable only through logicalParentUuid)'
      : i < boundary
        ? 'before the last compact boundary (earlier history off the chain)'
        : t.leaf === undefined
          ? 'no leaf chosen'
          : conversation
            ? i > leaf
              ? 'conversation records off the active chain, after the leaf (abandoned or post-pointer)'
              : 'conversation records off the active chain (rewound or abandoned branches, sidechains)'
            : `${type} records off the active chain`
    out.set(reason, (out.get(reason) ?? 0) + 1)
  }
  return count(out)
}

function unattributedReasons(t: TopologyPlan): ExclusionReason[] {
  const out = new Map<string, number>()
  for (const i of t.excludedUnattributedIndexes) {
    const type = typeOf(t, i)
    const reason =
      type === 'file-history-snapshot'
        ? 'file-history-snapshot not correlated with a kept record (checkpoint policy)'
        : type === 'last-prompt'
          ? 'older last-prompt pointers'
          : `${type} records (no structural attribution, or an older value)`
    out.set(reason, (out.get(reason) ?? 0) + 1)
  }
  return count(out)
}

/** The one-line stop message: status, offending lines, recovery. */
export function stopMessage(r: PlanReport): string {
  const s = r.stop
  if (!s) return ''
  const lines = s.lines.length > 0 ? ` [line${s.lines.length > 1 ? 's' : ''} ${s.lines.slice(0, 12).join(',')}]` : ''
  const recovery = s.recovery.length > 0 ? `; recovery: ${s.recovery.join(' or ')}` : '; no option recovers it'
  return `topology ${s.status}${lines}: ${s.message}${recovery}`
}
