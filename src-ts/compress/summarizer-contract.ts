// The contract between `compress` and a summariser: what it is asked (the plan, the source, the
// character budget and the options) and what it answers (the text, its mode and metadata). The
// default summarisers (summary-source.ts) and any caller's own implement it; compress only
// consumes it.
import type { BudgetOptions } from './cut.js'
import type { TranscriptPlan } from './plan.js'
import type { SourceSpans } from './source-spans.js'

/**
 * Where the summary of the older records comes from (deterministic, a model summary file, a
 * command, or the Anthropic API) and the budgets of the evidence pack a model reads.
 */
export interface SummaryOptions {
  /** 'deterministic' (default when no model summary source is given) or 'model'. */
  summary?: 'deterministic' | 'model'
  /** A model summary written from `claude-jsonl pack` of the same session and options. */
  modelSummary?: string
  /** A shell command that reads the pack on stdin and prints the summary. */
  summarizerCmd?: string
  /** 'anthropic': ask the Messages API (ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL). */
  summarizer?: 'anthropic'
  /** The model for --summarizer anthropic. */
  model?: string
  /** An external handoff summary, shown to the model as H anchors. */
  handoff?: string
  /** Ceiling on the evidence pack in characters (default 500,000, at least 10,000). */
  modelPackCharBudget?: number
  /** Ceiling on the evidence pack in estimated tokens (default 150,000, at least 10,000). */
  modelPackEstimatedTokenBudget?: number
  /**
   * Embed the summaries of earlier compactions as they are (the budget grows by half), instead of
   * folding them into the new summary.
   */
  preservePriorSummariesVerbatim?: boolean
  /** How long a summariser (the command or the API call) may take before it is stopped, in ms
   * (default 10 minutes). */
  summarizerTimeoutMs?: number
}

/**
 * What a summariser is given: the plan, the source path, the character budget and the options
 * that chose the records.
 */
export interface SummaryRequest {
  plan: TranscriptPlan
  /** The original transcript's path, named in the summary so the model can read details. */
  sourcePath: string
  charBudget: number
  /** The summary options and the budget that chose the records. */
  options: SummaryOptions & BudgetOptions
  /** Given to a summariser that declares `readsThroughSpans`: the plan's buffer then holds only
   * what it loads through these. */
  spans?: SourceSpans
}

/** What a summariser returns: the summary text, which kind it is, and metadata for the report. */
export interface SummaryResult {
  text: string
  /** 'deterministic' | 'model-assisted-v11' */
  mode: string
  /** Extra compactMetadata / report fields (pack digests, truncation, verbatim policy, ...). */
  metadata?: Record<string, unknown>
}

/** Writes the summary that replaces the older records of a plan. */
export type Summarizer = ((request: SummaryRequest) => Promise<SummaryResult>) & {
  /** It reads the source's bytes only through `request.spans`, loading what it reads: compress
   * then gives the buffer's pages back while it runs (peak memory). */
  readsThroughSpans?: boolean
}
