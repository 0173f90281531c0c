// `compress` in candidate mode: one transcript in, a new transcript out. The output is
//   side records (correlated file-history snapshots)
//   + one new compact pair (boundary, summary)
//   + the recent raw suffix, byte for byte, in original order (only the first record's
//     parentUuid changes, plus any record the client itself relinks)
//   + the latest value of each session-scoped metadata record
//   + one final last-prompt copied from the authoritative pointer, leaf and session updated.
// It is validated on disk before it becomes visible; any failure writes nothing.
import { readFileSync, statSync, type BigIntStats } from 'node:fs'
import { basename, resolve } from 'node:path'
import native from '../native.js'
import type { TranscriptIndex } from '../native.js'
import { ClaudeJsonlError, EXIT, inputError } from '../errors.js'
import { publishFile } from '../durable-files.js'
import { transcriptProblem } from '../read/record-types.js'
import { checkRegularFile, FOLDER_NOT_FILE, sessionPath } from '../read/session-ref.js'
import { validateAs } from '../read/validate.js'
import { buildCompactPair, commonFieldsOf, isoBefore } from './compact-pair.js'
import { planOptionsOf, planWithBudget, summaryCharBudget, type BudgetOptions } from './cut.js'
import { checkOutputPath } from './paths.js'
import { lineSetDigest, planIndex, stopMessage, type PlanReport, type TranscriptPlan } from './plan.js'
import type { OutputPart } from '#native'
import { summarizerFor } from './summary-source.js'
import type { Summarizer, SummaryOptions, SummaryResult } from './summarizer-contract.js'
import { FileSpans, MappedSpans, sameFile, sourceChanged, type CompressSpans } from './source-spans.js'
import {
  CompressRefusal,
  minGainOf,
  nothingToGain,
  tooShortToCut,
  topologyRefusal,
  tornTailRefusal,
} from './refusal.js'

export const ENGINE_VERSION = 'v10'
export const MODEL_PACK_SCHEMA_VERSION = 11
export const REPORT_SCHEMA_VERSION = 1
/** The per-record allowance the estimate adds to the summary's text. */
const SUMMARY_RECORD_TOKENS = 12

/** What a summariser is given: the plan (its summaryIndexes are the records to summarise). */
export interface CompressOptions extends BudgetOptions, SummaryOptions {
  /** Replace an existing output file. */
  force?: boolean
  /** Publish only when the candidate's estimated message tokens are at most this fraction of
   * the source's (default 0.9); otherwise refuse with nothing to gain. */
  minGain?: number
  /** Write `<out>.report.json` beside the candidate (default true). */
  report?: boolean
  /** Build and validate the candidate, then write nothing (the report says what would be). */
  dryRun?: boolean
  /** Refuse a source whose active chain holds fewer estimated message tokens (too small). */
  minEstimatedTokens?: number
  /** The path the candidate is resumed under when it is not `out` (in place: the transcript
   * itself): the candidate is validated under this name, as `validate` would check it there. */
  publishedPath?: string
}

/**
 * The report of one compression (schema 1): the plan's report plus what was written: output path
 * and size, the ratio, the summary's source and size, token estimates before and after, the uuids
 * of the compact pair, the parent links repaired, and the candidate's validation.
 */
export interface CompressReport extends PlanReport {
  engineVersion: string
  modelPackSchemaVersion: number
  output: string
  outputBytes: number
  ratio: number
  semanticSummaryMode: string
  summaryChars: number
  inputEstimatedMessageTokens: number
  outputEstimatedMessageTokens: number
  targetEstimatedTokens?: number
  boundaryUuid: string
  summaryUuid: string
  firstRecentUuid?: string
  recentRecordsPreserved: number
  parentRepairs: { line: number; uuid?: string; from?: string | null; to: string }[]
  finalLastPromptAppended: boolean
  metadataRecordsProjected: number
  validation: { valid: boolean; errors: number; warnings: number; findings: { code: string; message: string }[] }
  /** SHA-256 of the candidate as validated and as read back from disk. */
  candidateSha256: string
  summaryMetadata: Record<string, unknown>
}

export interface Source {
  path: string
  /** The file's bytes: a read-only mapping of it where the platform allows (never write to it). */
  buffer: Buffer
  /** `buffer` maps the file (native.mapFile) rather than holding a copy. */
  mapped: boolean
  stat: BigIntStats
  sha256: string
}

/** Reads the source, then scans and (unless `hash` is false: the caller hashes the file later)
 * hashes it. */
function readSource(path: string, hash = true): { source: Source; index: TranscriptIndex } {
  let stat: BigIntStats
  let buffer: Buffer
  let mapped = false
  try {
    stat = statSync(path, { bigint: true })
    if (stat.isDirectory()) throw inputError(path, FOLDER_NOT_FILE)
    checkRegularFile(path, stat)
    // A mapping of the page cache instead of a copy: a fresh 50 MB buffer costs more to fault
    // in than the whole scan. A mapping of another length (the file changed) is not used.
    // CLAUDE_JSONL_NO_MMAP=1 reads the file instead (a filesystem where mappings misbehave).
    const mapping = process.env.CLAUDE_JSONL_NO_MMAP ? null : native.mapFile(path)
    mapped = mapping !== null && BigInt(mapping.length) === stat.size
    buffer = mapped ? mapping! : readFileSync(path)
  } catch (e) {
    if (e instanceof ClaudeJsonlError) throw e
    const code = (e as NodeJS.ErrnoException).code
    throw inputError(
      path,
      code === 'ENOENT' ? 'no such file or directory' : code === 'EACCES' ? 'permission denied' : (e as Error).message,
    )
  }
  if (!hash) return { source: { path, buffer, mapped, stat, sha256: '' }, index: native.scanBuffer(buffer, 'full') }
  // Hashed while it is scanned: the hash runs on a thread of its own.
  const { index, sha256 } = native.scanBufferHashed(buffer, 'full')
  return { source: { path, buffer, mapped, stat, sha256 }, index }
}

/** The source must be exactly what was read: a session still being written is refused. Size,
 * inode and nanosecond change/modify times catch any write (re-hashing 50 MB would not add more),
 * and a mapped source must not have lost pages to a truncation. */
export function checkSourceUnchanged(src: Source): void {
  let now: BigIntStats
  try {
    now = statSync(src.path, { bigint: true })
  } catch {
    throw new ClaudeJsonlError(
      `${src.path}: the source disappeared during the run; nothing written`,
      EXIT.input,
      src.path,
    )
  }
  if (!sameFile(now, src.stat) || !native.mappedIntact(src.buffer)) throw sourceChanged(src.path)
}

function recordJson(plan: TranscriptPlan, i: number): Record<string, unknown> {
  const r = plan.index.record(i)!
  return JSON.parse(plan.buffer.subarray(r.offset, r.offset + r.length).toString('utf8')) as Record<string, unknown>
}

export interface PlannedSource {
  src: Source
  plan: TranscriptPlan
  /** Estimated tokens per record index (chain records only). */
  tokens: Float64Array
}

/**
 * Reads and plans a transcript for compression with the final cut (token ceiling applied).
 * `pack` and `compress` both start here, so a pack and the compress that applies its summary
 * summarise exactly the same records. Throws (exit 1) on a topology stop or when nothing can
 * be summarised.
 */
export function planSource(input: string, options: BudgetOptions = {}): PlannedSource {
  return planSourceWith(input, options, true)
}

/** planSource; with `hash` false the source hash is left empty ('') for the caller to fill. */
function planSourceWith(input: string, options: BudgetOptions, hash: boolean): PlannedSource {
  summaryCharBudget(options)
  const { source: src, index } = readSource(input, hash)
  const summary = index.summary()
  const problem = transcriptProblem({ records: index.length, firstLine: summary.firstLine, types: summary.types })
  if (problem) throw inputError(input, problem)
  if (summary.tornTail) throw tornTailRefusal(input)
  const first = planIndex(index, src.buffer, planOptionsOf(options), basename(input), src.sha256)
  if (first.report.status !== 'valid')
    throw topologyRefusal(input, stopMessage(first.report), first.report.stop?.recovery ?? [])
  const { plan, tokens } = planWithBudget(first, options)
  const t = plan.topology
  if (t.cut === undefined) {
    throw tooShortToCut(
      input,
      t.chain.length,
      'no place to cut it: every position would split an API turn or a merged message',
    )
  }
  if (t.summaryIndexes.length === 0) {
    throw tooShortToCut(
      input,
      t.chain.length,
      'all of them fit the kept suffix, so there is nothing to summarise (a lower --target-ratio or --min-recent-records cuts earlier)',
    )
  }
  return { src, plan, tokens }
}

/**
 * Compresses `input` into a candidate at `out` with the given summariser. Resolves with the
 * report; throws a ClaudeJsonlError (topology stop, gate failure, bad input) with nothing written.
 */
export async function compressWith(
  input: string,
  out: string,
  summarize: Summarizer,
  options: CompressOptions = {},
): Promise<CompressReport> {
  return compressCandidate(input, out, summarize, options)
}

/** What a caller inside the package may run at a step of compressCandidate. */
export interface CandidateHooks {
  /** Runs after the candidate is built and validated, before it is published (a batch makes the
   * candidate's folder here, so a refused session leaves no trace). */
  beforePublish?: () => void | Promise<void>
}

/** The options a compression acts on, checked once where it starts. */
interface Settings {
  options: CompressOptions
  charBudget: number
  minGain: number
}

function settingsOf(options: CompressOptions): Settings {
  return { options, charBudget: summaryCharBudget(options), minGain: minGainOf(options.minGain) }
}

/**
 * compressWith, with the package's own hooks: the steps in order are the plan and its size
 * gates, the summary, the compact pair, the candidate's parts and bytes, their validation, and
 * the publication of the candidate and its report.
 */
export async function compressCandidate(
  input: string,
  out: string,
  summarize: Summarizer,
  options: CompressOptions = {},
  hooks: CandidateHooks = {},
): Promise<CompressReport> {
  checkOutputPath(input, out)
  const settings = settingsOf(options)
  // A summariser reading through the spans lets the source's hash be taken from the file on a
  // thread of its own while the summary is built (the buffer is released meanwhile); the final
  // check refuses a file that changed, so the file's hash is the buffer's.
  const deferHash = summarize.readsThroughSpans === true
  const planned = planSourceWith(input, options, !deferHash)
  const { src, plan, tokens } = planned
  const index = plan.index
  const t = plan.topology
  const kept = Array.from(t.chain.subarray(t.cut!))
  const { inputTokens, keptTokens } = checkGain(input, settings, tokens, t.chain, kept)
  const hashing = deferHash ? native.sha256FileAsync(input) : undefined
  hashing?.catch(() => {}) // awaited below; a failure before then must not go unhandled

  // uuid and parent of every chain record, fetched once.
  const links = native.recordLinks(index, t.chain)
  const linkOf = new Map<number, { uuid?: string; parent?: string }>()
  t.chain.forEach((i, k) => linkOf.set(i, { uuid: links.uuids[k] ?? undefined, parent: links.parents[k] ?? undefined }))

  const firstKept = kept[0]
  const firstJson = recordJson(plan, firstKept)

  // From here on the source buffer holds only the spans being read (when the summariser allows).
  const spans = summarize.readsThroughSpans
    ? src.mapped
      ? new MappedSpans(src.buffer, index)
      : new FileSpans(src.path, src.stat, src.buffer, index)
    : undefined
  try {
    spans?.release()
    const p: Planned = {
      ...planned,
      settings,
      linkOf,
      firstKept,
      firstJson,
      kept,
      spans,
      hashing,
      inputTokens,
      keptTokens,
      uuidOf: (i) => linkOf.get(i)?.uuid ?? index.record(i)?.uuid,
      lineOf: (i) => t.recordLines[i],
    }
    const sum = await summarizeChecked(input, summarize, p)
    const outputTokens = checkSummaryGain(input, p, sum)
    const pair = compactPairOf(p, sum, outputTokens)
    const { parts, parentRepairs, physical, metadata } = candidateParts(p, pair)
    const bytes = spans ? spans.assemble(parts) : native.assembleTranscript(src.buffer, index, parts)
    spans?.release() // the kept records are in the candidate now
    const validation = validateCandidate(input, out, p, bytes)
    const candidateSha256 = native.sha256(bytes)
    if (!options.dryRun) {
      await hooks.beforePublish?.()
      await publishCandidate(out, bytes, src, options)
    }
    const report: CompressReport = {
      ...plan.report,
      engineVersion: ENGINE_VERSION,
      modelPackSchemaVersion: MODEL_PACK_SCHEMA_VERSION,
      output: basename(out),
      outputBytes: bytes.length,
      ratio: bytes.length / Math.max(1, src.buffer.length),
      semanticSummaryMode: sum.mode,
      summaryChars: sum.text.length,
      inputEstimatedMessageTokens: Math.round(inputTokens),
      outputEstimatedMessageTokens: Math.round(outputTokens),
      targetEstimatedTokens: options.targetEstimatedTokens,
      boundaryUuid: pair.boundaryUuid,
      summaryUuid: pair.summaryUuid,
      firstRecentUuid: p.uuidOf(firstKept),
      recentRecordsPreserved: physical.length,
      parentRepairs,
      finalLastPromptAppended: true,
      metadataRecordsProjected: metadata.length,
      validation,
      candidateSha256,
      summaryMetadata: sum.metadata ?? {},
    }
    if (options.report !== false && !options.dryRun) await publishReport(out, report)
    return report
  } catch (e) {
    // A mapped source truncated meanwhile reads as zeros, which can fail anywhere: name the cause.
    if (!native.mappedIntact(src.buffer)) throw sourceChanged(src.path)
    throw e
  } finally {
    spans?.close()
  }
}

/** What compressCandidate worked out before the summary. */
interface Planned extends PlannedSource {
  settings: Settings
  linkOf: Map<number, { uuid?: string; parent?: string }>
  firstKept: number
  firstJson: Record<string, unknown>
  kept: number[]
  spans?: CompressSpans
  /** The source's hash, when it is being taken from the file meanwhile. */
  hashing?: Promise<string>
  /** Estimated message tokens of the source's chain and of the kept suffix. */
  inputTokens: number
  keptTokens: number
  /** A record's uuid (fetched once for the chain) and its source line. */
  uuidOf: (i: number) => string | undefined
  lineOf: (i: number) => number
}

/** The summary, with the source's hash taken meanwhile: an empty summary writes nothing. */
async function summarizeChecked(input: string, summarize: Summarizer, p: Planned): Promise<SummaryResult> {
  const { src, plan, spans, hashing } = p
  const sum = await summarize({
    plan,
    sourcePath: resolve(input),
    charBudget: p.settings.charBudget,
    options: p.settings.options,
    spans,
  })
  if (hashing) {
    try {
      src.sha256 = await hashing
    } catch {
      throw sourceChanged(src.path)
    }
    plan.report.sourceSha256 = src.sha256
  }
  if (!sum.text.trim())
    throw new ClaudeJsonlError(`${input}: the summary is empty; nothing written`, EXIT.flagged, input)
  return sum
}

/** The candidate's estimated message tokens with its summary, held to --target-estimated-tokens
 * and to the minimum gain. */
function checkSummaryGain(input: string, p: Planned, sum: SummaryResult): number {
  const { options, minGain } = p.settings
  const outputTokens = p.keptTokens + native.estimateTextTokens(sum.text) + SUMMARY_RECORD_TOKENS
  if (options.targetEstimatedTokens !== undefined && outputTokens > options.targetEstimatedTokens) {
    throw new CompressRefusal(
      `${input}: the candidate's estimated message tokens (${Math.ceil(outputTokens)}) exceed --target-estimated-tokens ${options.targetEstimatedTokens} even with the shortest legal suffix (${p.kept.length} records); nothing written`,
      'token-ceiling',
      input,
      '--target-estimated-tokens',
    )
  }
  if (outputTokens > minGain * p.inputTokens) throw nothingToGain(input, p.inputTokens, outputTokens, minGain)
  return outputTokens
}

/** The compact pair's two lines, the leaf it resumes to and the session the pointer names. */
interface PairLines {
  boundaryLine: string
  summaryLine: string
  boundaryUuid: string
  summaryUuid: string
  leafUuid: string
  leafSession?: string
}

/** The compact boundary (its metadata: what was summarised, from which source, under which
 * versions, and the kept suffix as one preserved segment) and the summary record. */
function compactPairOf(p: Planned, sum: SummaryResult, outputTokens: number): PairLines {
  const { src, plan, kept, firstKept, firstJson, uuidOf, lineOf, inputTokens } = p
  const { options } = p.settings
  const t = plan.topology
  // Synthetic records are stamped just before the first kept record (never "now": reruns give the same bytes).
  const anchorTs = typeof firstJson.timestamp === 'string' ? firstJson.timestamp : undefined
  const boundaryTs = (anchorTs && isoBefore(anchorTs, 2)) ?? new Date(0).toISOString()
  const summaryTs = (anchorTs && isoBefore(anchorTs, 1)) ?? new Date(1).toISOString()
  const leafUuid = t.leafUuid ?? uuidOf(kept[kept.length - 1])!
  const leafSession =
    plan.index.record(t.leaf ?? kept[kept.length - 1])?.sessionId ?? (firstJson.sessionId as string | undefined)
  const compactMetadata: Record<string, unknown> = {
    trigger: 'manual',
    preTokens: Math.round(inputTokens),
    codexOfflineCompression: true,
    codexOfflineCompressionVersion: ENGINE_VERSION,
    compressor: 'claude-jsonl',
    modelPackSchemaVersion: MODEL_PACK_SCHEMA_VERSION,
    reportSchemaVersion: REPORT_SCHEMA_VERSION,
    semanticSummaryMode: sum.mode,
    sourceSha256: src.sha256,
    sourceSha256Prefix: src.sha256.slice(0, 16),
    preserveMode: t.preserveMode,
    selectedLeafUuid: leafUuid,
    resumeLeafInfo: publicLeafInfo(plan.report),
    recentRecordStart: lineOf(firstKept),
    recentRecordEnd: lineOf(kept[kept.length - 1]),
    recentRecordCount: kept.length,
    summarizedRecordCount: t.summaryIndexes.length,
    summarySourceLinesDigest: lineSetDigest(Array.from(t.summaryIndexes, lineOf)),
    rawKeepSourceLinesDigest: lineSetDigest(Array.from(t.rawKeepIndexes, lineOf)),
    checkpointPolicy: plan.report.checkpointPolicy,
    fileHistorySnapshotsPreserved: plan.report.fileHistorySnapshotsPreserved,
    excludedBranchCount: plan.report.excludedBranchCount,
    excludedBranchDigest: plan.report.excludedBranchDigest,
    excludedUnattributedCount: plan.report.excludedUnattributedCount,
    excludedUnattributedDigest: plan.report.excludedUnattributedDigest,
    preEstimatedTokens: Math.round(inputTokens),
    postEstimatedTokens: Math.round(outputTokens),
    ...(options.targetEstimatedTokens !== undefined ? { targetEstimatedTokens: options.targetEstimatedTokens } : {}),
    ...(sum.metadata ?? {}),
  }
  const pair = buildCompactPair({
    common: commonFieldsOf(firstJson),
    boundaryTimestamp: boundaryTs,
    summaryTimestamp: summaryTs,
    summaryText: sum.text,
    compactMetadata,
  })
  // The kept suffix as the client reads it, so its one segment can be recorded.
  const meta = JSON.parse(pair.boundaryLine) as { compactMetadata: Record<string, unknown> }
  meta.compactMetadata.preservedSegment = {
    headUuid: uuidOf(firstKept),
    anchorUuid: pair.summaryUuid,
    tailUuid: leafUuid,
  }
  return {
    boundaryLine: JSON.stringify(meta),
    summaryLine: pair.summaryLine,
    boundaryUuid: pair.boundaryUuid,
    summaryUuid: pair.summaryUuid,
    leafUuid,
    leafSession,
  }
}

/**
 * The candidate as parts to assemble from the source's bytes: side records, the compact pair,
 * the kept records in physical order (as Claude Code wrote them; the chain order only tells
 * which record the client puts before each) with their parent edits, the session metadata, and
 * the pointer. The first kept record hangs off the summary; a kept record whose parent is not
 * kept (the client relinks it: preserved-segment heads, bridged progress) takes its chain
 * predecessor, as the client would.
 */
function candidateParts(
  p: Planned,
  pair: PairLines,
): { parts: OutputPart[]; parentRepairs: CompressReport['parentRepairs']; physical: number[]; metadata: number[] } {
  const { plan, kept, linkOf, uuidOf, lineOf } = p
  const index = plan.index
  const t = plan.topology
  const physical = Array.from(t.rawKeepIndexes).sort((a, b) => a - b)
  const chainPos = new Map(kept.map((i, k) => [i, k]))
  const keptUuids = new Set(physical.map(uuidOf).filter((u): u is string => u !== undefined))
  const relinked = new Set(t.relinked)
  const parentRepairs: CompressReport['parentRepairs'] = []
  const parts: OutputPart[] = []
  if (t.sideKeepIndexes.length) parts.push({ records: t.sideKeepIndexes })
  parts.push({ line: pair.boundaryLine }, { line: pair.summaryLine })
  let run: number[] = []
  const flush = () => {
    if (run.length) parts.push({ records: Uint32Array.from(run) })
    run = []
  }
  for (const i of physical) {
    const r = linkOf.get(i) ?? { uuid: index.record(i)?.uuid, parent: index.record(i)?.parentUuid }
    const k = chainPos.get(i)
    let to: string | undefined
    if (k === 0) to = pair.summaryUuid
    else if (k !== undefined && r.parent && (!keptUuids.has(r.parent) || relinked.has(i))) to = uuidOf(kept[k - 1])
    if (to === undefined || to === r.parent) {
      run.push(i)
      continue
    }
    flush()
    parts.push({ record: i, set: [{ key: 'parentUuid', json: JSON.stringify(to) }] })
    if (k !== 0) parentRepairs.push({ line: lineOf(i), uuid: r.uuid, from: r.parent ?? null, to })
  }
  flush()
  const metadata = Array.from(t.metadataIndexes)
  if (metadata.length) parts.push({ records: Uint32Array.from(metadata) })
  const { leafUuid, leafSession } = pair
  const pointerSet = [
    { key: 'leafUuid', json: JSON.stringify(leafUuid) },
    ...(leafSession ? [{ key: 'sessionId', json: JSON.stringify(leafSession) }] : []),
  ]
  if (t.pointer !== undefined) parts.push({ record: t.pointer, set: pointerSet })
  else
    parts.push({
      line: JSON.stringify({ type: 'last-prompt', leafUuid, ...(leafSession ? { sessionId: leafSession } : {}) }),
    })
  return { parts, parentRepairs, physical, metadata }
}

/**
 * The candidate validated in memory before anything is written, under its published name (as
 * `validate` would check the file there). A defect the source already has in the records kept
 * verbatim is the input's (refused, exit 1); one compression introduced is a bug (exit 4).
 */
function validateCandidate(input: string, out: string, p: Planned, bytes: Buffer): CompressReport['validation'] {
  const v = validateAs(bytes, p.settings.options.publishedPath ?? out)
  const errors = v.findings.filter((f) => f.severity === 'error')
  if (errors.length) {
    const inherited = validateAs(p.src.buffer, input).findings.find(
      (f) => f.severity === 'error' && f.code === errors[0].code,
    )
    if (inherited) {
      throw new CompressRefusal(
        `${input}: the source is invalid where compress must keep it verbatim (${inherited.code}: ${inherited.message}); compress neither hides nor repairs it; nothing written`,
        'invalid-source',
        input,
      )
    }
    throw new ClaudeJsonlError(
      `candidate failed validation (${errors[0].code}: ${errors[0].message}); nothing written`,
      EXIT.internal,
    )
  }
  return {
    valid: true,
    errors: 0,
    warnings: v.findings.length,
    findings: v.findings.map((f) => ({ code: f.code, message: f.message })),
  }
}

/** Publishes the candidate: what lands on disk is read back and compared with the validated
 * bytes, and the source checked unchanged, before it becomes visible. */
async function publishCandidate(out: string, bytes: Buffer, src: Source, options: CompressOptions): Promise<void> {
  await publishFile(out, bytes, {
    replace: options.force,
    check: (temp) => {
      if (!native.fileEquals(temp, bytes)) {
        throw new ClaudeJsonlError(
          `${out}: the written candidate does not read back as the validated bytes; nothing written`,
          EXIT.internal,
          out,
        )
      }
      checkSourceUnchanged(src)
    },
  })
}

/** `<out>.report.json` beside the published candidate. */
async function publishReport(out: string, report: CompressReport): Promise<void> {
  try {
    await publishFile(`${out}.report.json`, JSON.stringify(report, null, 2) + '\n', { replace: true })
  } catch (e) {
    throw new ClaudeJsonlError(
      `${out}: candidate written, but its report could not be (${(e as Error).message})`,
      EXIT.internal,
      out,
    )
  }
}

/**
 * Compresses a session (a transcript path, a session uuid or a unique prefix of one, looked up
 * under `options.projects`) into a candidate at `out` with the summary the options choose
 * (deterministic by default). Resolves with the report; throws a ClaudeJsonlError with nothing
 * written.
 */
export async function compress(
  session: string,
  out: string,
  options: CompressOptions & { projects?: string } = {},
): Promise<CompressReport> {
  return compressWith(sessionPath(session, options), out, summarizerFor(options), options)
}

/**
 * The size gates that need no summary, checked before anything else is spent on the session
 * (its hash, a summary, a model call): the source is big enough (--min-estimated-tokens), and
 * the kept suffix alone leaves room for a gain (the summary only adds to it).
 */
function checkGain(
  input: string,
  settings: Settings,
  tokens: Float64Array,
  chain: ArrayLike<number>,
  kept: ArrayLike<number>,
): { inputTokens: number; keptTokens: number } {
  const { options, minGain } = settings
  const inputTokens = sumTokens(tokens, chain)
  const keptTokens = sumTokens(tokens, kept)
  if (options.minEstimatedTokens !== undefined && inputTokens < options.minEstimatedTokens)
    throw new CompressRefusal(
      `${input}: too small: its active chain holds ~${Math.round(inputTokens)} estimated message tokens, under --min-estimated-tokens ${options.minEstimatedTokens}; nothing written`,
      'too-small',
      input,
      '--min-estimated-tokens',
      { before: inputTokens },
    )
  if (keptTokens + SUMMARY_RECORD_TOKENS > minGain * inputTokens)
    throw nothingToGain(input, inputTokens, keptTokens + SUMMARY_RECORD_TOKENS, minGain, true)
  return { inputTokens, keptTokens }
}

function sumTokens(tokens: Float64Array, records: ArrayLike<number>): number {
  let s = 0
  for (let k = 0; k < records.length; k++) s += tokens[records[k]]
  return s
}

/** The resume-leaf decision without line lists: what the compact metadata carries. */
function publicLeafInfo(r: PlanReport): Record<string, unknown> {
  const {
    status,
    preserveMode,
    leafPolicy,
    reason,
    selectedLeafUuid,
    pointerState,
    activeChainDigest,
    extensionRecords,
  } = r.resumeLeafInfo
  return {
    status,
    preserveMode,
    leafPolicy,
    reason,
    selectedLeafUuid,
    pointerState,
    activeChainDigest,
    extensionRecords,
  }
}
