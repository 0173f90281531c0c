/**
 * Planning a cut and compressing one session or a whole estate (as a candidate file, or in place
 * through the transaction), repairing damaged transcripts, and the model-summary workflow (an
 * evidence pack out, a model's summary checked back in).
 *
 * @packageDocumentation
 * @module claude-jsonl/compress
 */
export { plan } from './plan.js'
export type {
  PlanOptions,
  PlanReport,
  PlanStop,
  ResumeLeafInfo,
  CutInfo,
  ExclusionReason,
  TranscriptPlan,
  TopologyPlan,
  TopologyStatus,
  PreserveMode,
  LeafPolicy,
  CheckpointPolicy,
} from './plan.js'
export { compress, compressWith, planSource } from './compress.js'
export type { CompressOptions, CompressReport } from './compress.js'
export type { Summarizer, SummaryOptions, SummaryRequest, SummaryResult } from './summarizer-contract.js'
export { compressInPlace, checkLiveReplacement } from './in-place.js'
export type { InPlaceOptions, InPlaceCompressResult, LiveReplacementOptions } from './in-place.js'
export { replaceInPlace, writeNumberedBackup } from './transaction.js'
export type {
  ReplaceOptions,
  ReplaceResult,
  Receipt,
  Candidate,
  Frozen,
  OperationState,
  Recovery,
} from './transaction.js'
export { repairTranscript, REPAIR_KINDS } from './repair.js'
export type {
  RepairEdit,
  RepairKind,
  RepairTranscriptOptions,
  TranscriptRepairReport,
  TranscriptRepairResult,
} from './repair.js'
export { repairReadPages } from './repair-read-pages.js'
export type { RepairOptions, RepairReport, RepairResult, RepairScope } from './repair-read-pages.js'
export { CompressRefusal, DEFAULT_MIN_GAIN } from './refusal.js'
export type { RefusalReason } from './refusal.js'
export { compressEstate } from './batch.js'
export type { BatchOptions, BatchReport, BatchSessionEntry, BatchTotals, BatchProgress } from './batch.js'
export type { BatchMode, ModeConfig, SessionOutcome } from './batch-modes.js'
export { packFor, summarizerFor } from './summary-source.js'
export { buildPack } from './pack.js'
export type { Pack, PackManifest, PackOptions } from './pack.js'
export { validateModelSummary, ModelSummaryError } from './model-summary.js'
export { runSummarizerCommand, runAnthropicSummarizer } from './produce-summary.js'
