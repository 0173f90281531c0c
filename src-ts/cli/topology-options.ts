// The topology and budget options that `plan`, `pack` and `compress` share: one spelling, one
// declaration, so a pack and the compress that applies its summary plan the same cut.
import type { BudgetOptions } from '../compress/cut.js'
import type { PlanOptions } from '../compress/plan.js'
import { decimal, flag, text, wholeNumber, type Values } from './command.js'

export const TOPOLOGY_OPTIONS = {
  'leaf-policy': text('strict|client|auto', 'how the leaf to resume from is chosen (default auto)'),
  'resume-leaf': text('UUID', 'resume from this record instead'),
  'preserve-physical-tail': flag('legacy mode: keep the physical tail of the file, without branch isolation'),
  'max-post-last-prompt-extension': wholeNumber(
    'N',
    'accept up to N tool-result records after the last-prompt pointer (default 0)',
  ),
  'checkpoint-policy': text('active-correlated|preserve-recent|none', 'which file-history snapshots are kept'),
  'max-file-history-snapshots': wholeNumber('N', 'keep at most N file-history snapshots (default 80)'),
  'target-ratio': decimal(
    'R',
    "the kept suffix's share of the chain's estimated message tokens (default 0.30, at most 40000 tokens)",
    'a number in (0, 1]',
  ),
  'min-recent-records': wholeNumber('N', 'keep at least N recent records verbatim (default 10)'),
} as const

export const BUDGET_OPTIONS = {
  ...TOPOLOGY_OPTIONS,
  'target-estimated-tokens': wholeNumber('N', 'move the cut later until the estimated message tokens fit in N'),
  'summary-char-budget': wholeNumber('N', "the summary's character budget (default 60000, at least 4000)"),
} as const

/** The model-pack ceilings `pack` and `compress` share (a model summary is checked against its pack). */
export const PACK_BUDGET_OPTIONS = {
  handoff: text('FILE', 'an external handoff summary, shown to the model in full as H<n> lines'),
  'model-pack-char-budget': wholeNumber('N', "the pack's ceiling in characters (default 500,000)"),
  'model-pack-estimated-token-budget': wholeNumber('N', "the pack's ceiling in estimated tokens (default 150,000)"),
} as const

export function topologyOptions(v: Values<typeof TOPOLOGY_OPTIONS>): PlanOptions {
  return {
    leafPolicy: v['leaf-policy'] as PlanOptions['leafPolicy'],
    resumeLeaf: v['resume-leaf'],
    preservePhysicalTail: v['preserve-physical-tail'],
    maxPostLastPromptExtension: v['max-post-last-prompt-extension'],
    checkpointPolicy: v['checkpoint-policy'] as PlanOptions['checkpointPolicy'],
    maxFileHistorySnapshots: v['max-file-history-snapshots'],
    targetRatio: v['target-ratio'],
    minRecentRecords: v['min-recent-records'],
  }
}

export function budgetOptions(v: Values<typeof BUDGET_OPTIONS>): BudgetOptions {
  return {
    ...topologyOptions(v),
    targetEstimatedTokens: v['target-estimated-tokens'],
    summaryCharBudget: v['summary-char-budget'],
  }
}
