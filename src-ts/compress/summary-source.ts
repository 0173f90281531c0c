// From command-line options to the summary `compress` applies (produceSummary does the work):
// the deterministic one (the default), or a model's, checked by every rule of protocol v11
// against the evidence pack of exactly the same records (the selection options are bound into the
// pack's request digest): read from a file, printed by a command the pack is piped to, or asked of
// the Messages API.
import { readFileSync } from 'node:fs'
import { inputError, usageError } from '../errors.js'
import type { Summarizer, SummaryOptions, SummaryRequest, SummaryResult } from './summarizer-contract.js'
import type { BudgetOptions } from './cut.js'
import type { TranscriptPlan } from './plan.js'
import { buildPack, type Pack, type PackOptions } from './pack.js'
import type { SummaryInputs } from './summary-inputs.js'
import { produceSummary, type SummarySource } from './produce-summary.js'
import { deterministicCharBudget } from './deterministic-summary.js'

function readText(path: string, what: string): string {
  try {
    return readFileSync(path, 'utf8')
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code
    throw inputError(
      path,
      `cannot read ${what}: ${code === 'ENOENT' ? 'no such file or directory' : (e as Error).message}`,
    )
  }
}

/** The options that select the summarised records, in one canonical order (for the digest). */
export function selectionPolicy(o: BudgetOptions): Record<string, unknown> {
  const keys = [
    'leafPolicy',
    'resumeLeaf',
    'preservePhysicalTail',
    'maxPostLastPromptExtension',
    'checkpointPolicy',
    'maxFileHistorySnapshots',
    'targetRatio',
    'minRecentRecords',
    'targetEstimatedTokens',
    'summaryCharBudget',
  ] as const
  return Object.fromEntries(keys.map((k) => [k, o[k] ?? null]))
}

/** The pack of the records a plan summarises (what `pack` writes and a model summary answers). */
export function packFor(plan: TranscriptPlan, inputs: SummaryInputs, o: SummaryOptions & BudgetOptions): Pack {
  return buildPack(
    {
      bytes: plan.buffer,
      index: plan.index,
      summaryIndexes: plan.topology.summaryIndexes,
      inputs,
      handoff: o.handoff === undefined ? undefined : readText(o.handoff, 'the handoff file'),
      sourceSha256: plan.report.sourceSha256,
    },
    packOptions(o),
  )
}

/** The pack options of a request: budgets, and the selection policy bound into its digest. */
function packOptions(o: SummaryOptions & BudgetOptions): PackOptions {
  return { charBudget: o.modelPackCharBudget, tokenBudget: o.modelPackEstimatedTokenBudget, policy: selectionPolicy(o) }
}

function sourceOf(o: SummaryOptions): SummarySource {
  const sources = [o.modelSummary !== undefined, o.summarizerCmd !== undefined, o.summarizer !== undefined].filter(
    Boolean,
  ).length
  if (sources > 1) throw usageError('give at most one of --model-summary, --summarizer-cmd, --summarizer')
  if (o.summarizer !== undefined && o.summarizer !== 'anthropic')
    throw usageError(`--summarizer must be anthropic, not '${o.summarizer}'`)
  const mode = o.summary ?? (sources ? 'model' : 'deterministic')
  if (mode !== 'deterministic' && mode !== 'model')
    throw usageError(`--summary must be deterministic or model, not '${mode}'`)
  if (mode === 'model' && !sources)
    throw usageError('--summary model needs --model-summary FILE, --summarizer-cmd CMD or --summarizer anthropic')
  if (mode === 'deterministic' && sources) throw usageError('--summary deterministic takes no model summary source')
  if (mode === 'deterministic') return { kind: 'deterministic' }
  if (o.modelSummary !== undefined)
    return { kind: 'model-summary', text: readText(o.modelSummary, 'the model summary') }
  if (o.summarizerCmd !== undefined)
    return { kind: 'summarizer-cmd', command: o.summarizerCmd, timeoutMs: o.summarizerTimeoutMs }
  return { kind: 'anthropic', model: o.model, timeoutMs: o.summarizerTimeoutMs }
}

/** Estimated message tokens of the chain records the summary replaces (before the cut). */
function replacedTokens(p: TranscriptPlan): number {
  const t = p.topology
  let s = 0
  for (let k = 0; k < (t.cut ?? 0); k++) s += t.chainTokens[k]
  return s
}

/** The summariser `compress` applies: the options checked up front, the work done per request. */
export function summarizerFor(o: SummaryOptions & BudgetOptions): Summarizer {
  const source = sourceOf(o)
  const handoff = o.handoff === undefined ? undefined : readText(o.handoff, 'the handoff file')
  const summarize: Summarizer = async (req: SummaryRequest): Promise<SummaryResult> => {
    const p = req.plan
    const cut = p.report.cut
    // The deterministic summary's default budget scales with what it replaces; a model's
    // summary is checked against the budget the caller chose (or the default).
    const charBudget =
      source.kind === 'deterministic' && o.summaryCharBudget === undefined
        ? Math.min(req.charBudget, deterministicCharBudget(replacedTokens(p)))
        : req.charBudget
    const outcome = await produceSummary({
      bytes: p.buffer,
      index: p.index,
      summaryIndexes: p.topology.summaryIndexes,
      source,
      handoff,
      sourceSha256: p.report.sourceSha256,
      pack: packOptions(o),
      transcriptPath: req.sourcePath,
      charBudget,
      preservePriorSummariesVerbatim: o.preservePriorSummariesVerbatim,
      firstKeptLine: cut?.firstKeptLine,
      keptRecords: cut?.recentRecordsPreserved,
      spans: req.spans,
    })
    const m = outcome.manifest
    return {
      text: outcome.text,
      mode: outcome.kind === 'model-assisted' ? 'model-assisted-v11' : 'deterministic',
      metadata: {
        priorSummaryVerbatimPolicy: o.preservePriorSummariesVerbatim
          ? outcome.preserveMode === 'verbatim'
            ? 'verbatim'
            : 'fallback-folded'
          : 'folded',
        ...(outcome.fallbackReason ? { priorSummaryVerbatimFallbackReason: outcome.fallbackReason } : {}),
        ...(m
          ? {
              modelPackRequestDigest: m.digests.pack_request_digest,
              modelSummaryDigests: m.digests,
              modelPackEstimatedTokens: Math.ceil(m.estimatedTokens),
              modelPackEstimatedTokenBudget: m.tokenBudget,
              modelPackCharBudget: m.charBudget,
              modelPackTruncated: m.optional.truncated,
              modelPackOptionalEvidenceOmitted: m.optional.total - m.optional.included,
              modelPackOmittedDigest: m.optional.omittedDigest,
            }
          : {}),
      },
    }
  }
  // Only the deterministic summary reads the source through the spans (a pack hashes it whole).
  summarize.readsThroughSpans = source.kind === 'deterministic'
  return summarize
}
