// The topology and budget flags that `plan`, `pack` and `compress` share: one spelling, one
// parser, so a pack and the compress that applies its summary plan the same cut.
import { usageError } from '../errors.js'
import type { BudgetOptions } from '../compress/cut.js'
import type { PlanOptions } from '../compress/plan.js'

export const TOPOLOGY_FLAGS = {
  'leaf-policy': { type: 'string' },
  'resume-leaf': { type: 'string' },
  'preserve-physical-tail': { type: 'boolean' },
  'max-post-last-prompt-extension': { type: 'string' },
  'checkpoint-policy': { type: 'string' },
  'max-file-history-snapshots': { type: 'string' },
  'target-ratio': { type: 'string' },
  'min-recent-records': { type: 'string' },
} as const

export const BUDGET_FLAGS = {
  ...TOPOLOGY_FLAGS,
  'target-estimated-tokens': { type: 'string' },
  'summary-char-budget': { type: 'string' },
} as const

export const TOPOLOGY_USAGE = `  [--leaf-policy strict|client|auto] [--resume-leaf UUID] [--preserve-physical-tail]
  [--max-post-last-prompt-extension N] [--checkpoint-policy active-correlated|preserve-recent|none]
  [--max-file-history-snapshots N] [--target-ratio R] [--min-recent-records N]`

export function wholeNumber(command: string, name: string, v: string | undefined): number | undefined {
  if (v === undefined) return undefined
  if (!/^\d+$/.test(v)) throw usageError(`${command}: ${name} takes a whole number, not '${v}'`)
  return Number(v)
}

/** A positive decimal number (like --min-gain 0.8), or undefined when the flag is absent. */
export function fraction(command: string, name: string, v: string | undefined): number | undefined {
  if (v === undefined) return undefined
  if (!/^\d*\.?\d+$/.test(v) || !(Number(v) > 0)) throw usageError(`${command}: ${name} takes a number > 0, not '${v}'`)
  return Number(v)
}

type Values = {
  [K in keyof typeof BUDGET_FLAGS]?: (typeof BUDGET_FLAGS)[K]['type'] extends 'boolean' ? boolean : string
}

export function topologyOptions(command: string, v: Values): PlanOptions {
  const ratio = v['target-ratio']
  if (ratio !== undefined && !/^\d*\.?\d+$/.test(ratio))
    throw usageError(`${command}: --target-ratio takes a number in (0, 1], not '${ratio}'`)
  return {
    leafPolicy: v['leaf-policy'] as PlanOptions['leafPolicy'],
    resumeLeaf: v['resume-leaf'],
    preservePhysicalTail: v['preserve-physical-tail'],
    maxPostLastPromptExtension: wholeNumber(
      command,
      '--max-post-last-prompt-extension',
      v['max-post-last-prompt-extension'],
    ),
    checkpointPolicy: v['checkpoint-policy'] as PlanOptions['checkpointPolicy'],
    maxFileHistorySnapshots: wholeNumber(command, '--max-file-history-snapshots', v['max-file-history-snapshots']),
    targetRatio: ratio === undefined ? undefined : Number(ratio),
    minRecentRecords: wholeNumber(command, '--min-recent-records', v['min-recent-records']),
  }
}

export function budgetOptions(command: string, v: Values): BudgetOptions {
  return {
    ...topologyOptions(command, v),
    targetEstimatedTokens: wholeNumber(command, '--target-estimated-tokens', v['target-estimated-tokens']),
    summaryCharBudget: wholeNumber(command, '--summary-char-budget', v['summary-char-budget']),
  }
}
