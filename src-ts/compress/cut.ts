// The kept suffix under a token ceiling: `--target-estimated-tokens N` narrows the plan to the
// largest legal suffix whose estimated tokens, plus a reserve for the summary, stay within N (and
// replaces the default kept-suffix ceiling: N is the caller's own). The choice depends only on the transcript and the options, so `pack` and `compress`
// (which must summarise exactly the same records) always agree on it.
import { usageError } from '../errors.js'
import { summaryCharBudget as checkedCharBudget } from './model-summary.js'
import { planIndex, type PlanOptions, type TranscriptPlan } from './plan.js'

export interface BudgetOptions extends PlanOptions {
  /** Hard ceiling on the candidate's estimated message tokens (>= 1000). */
  targetEstimatedTokens?: number
  /** Characters the summary may take (>= 4000). */
  summaryCharBudget?: number
}

/** --summary-char-budget, defaulted and checked (a usage error below the minimum). */
export function summaryCharBudget(o: BudgetOptions): number {
  return checkedCharBudget(o.summaryCharBudget)
}

/** The plan options of a budgeted plan: a hard token gate replaces the default kept-suffix ceiling. */
export function planOptionsOf(o: BudgetOptions): BudgetOptions {
  return o.targetEstimatedTokens !== undefined && o.maxKeptTokens === undefined ? { ...o, maxKeptTokens: Infinity } : o
}

/** Tokens held back for the compact pair: the summary at its full budget, as ASCII. */
export function summaryReserveTokens(o: BudgetOptions): number {
  return Math.ceil(summaryCharBudget(o) / 4) + 2 * 12
}

/**
 * Plans, then (with a token ceiling) moves the cut later until the kept suffix fits. Returns the
 * plan whose partition is final, and the per-record token estimates of the source.
 */
export function planWithBudget(plan: TranscriptPlan, o: BudgetOptions): { plan: TranscriptPlan; tokens: Float64Array } {
  const tokens = chainTokens(plan)
  const n = o.targetEstimatedTokens
  if (n === undefined) return { plan, tokens }
  if (!Number.isInteger(n) || n < 1000)
    throw usageError(`--target-estimated-tokens must be a whole number >= 1000, not '${n}'`)
  const t = plan.topology
  if (t.status !== 'valid' || t.cut === undefined) return { plan, tokens }
  const room = n - summaryReserveTokens(o)
  // Suffix tokens per chain position, from the leaf back.
  const suffix = new Float64Array(t.chain.length + 1)
  for (let k = t.chain.length - 1; k >= 0; k--) suffix[k] = suffix[k + 1] + tokens[t.chain[k]]
  if (suffix[t.cut] <= room) return { plan, tokens }
  const cuts = Array.from(t.legalCuts)
  let j = cuts.findIndex((c) => c >= t.cut! && suffix[c] <= room)
  if (j < 0) j = cuts.length - 1 // nothing fits: the shortest suffix, which the candidate gate then rejects
  if (cuts[j] === t.cut) return { plan, tokens }
  const narrowed = planIndex(
    plan.index,
    plan.buffer,
    { ...planOptionsOf(o), cutPosition: cuts[j] },
    plan.report.input,
    plan.report.sourceSha256,
  )
  return { plan: narrowed, tokens }
}

/** Estimated tokens per record index, from the plan (which measured the chain for its cut);
 * only the active chain's records are estimated (the rest never reaches the output), others are 0. */
export function chainTokens(plan: TranscriptPlan): Float64Array {
  const t = plan.topology
  const tokens = new Float64Array(plan.index.length)
  for (let k = 0; k < t.chain.length; k++) tokens[t.chain[k]] = t.chainTokens[k]
  return tokens
}
