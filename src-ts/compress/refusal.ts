// Why compress declined a session, as data: one line for a person (the message) and a reason a
// batch can count without parsing text. Every refusal writes nothing and exits 1.
import { ClaudeJsonlError, EXIT, usageError } from '../errors.js'

/** Why compress refused to write a candidate. */
export type RefusalReason =
  /** The candidate would not be small enough (--min-gain), or the chain is too short to cut. */
  | 'nothing-to-gain'
  /** The resume leaf is ambiguous: an option (named in `option`) decides it. */
  | 'ambiguous-leaf'
  /** The source is damaged where compress must keep it, or its topology stops. */
  | 'invalid-source'
  /** --target-estimated-tokens cannot be met. */
  | 'token-ceiling'
  /** Under --min-estimated-tokens. */
  | 'too-small'

/**
 * Compress declined the session: nothing was written. `reason` says why, `option` names the option
 * that would change the outcome, when one does. Exit code 1.
 */
export class CompressRefusal extends ClaudeJsonlError {
  constructor(
    message: string,
    /** Why nothing was written. */
    readonly reason: RefusalReason,
    path?: string,
    /** The option that would change the outcome, when one does. */
    readonly option?: string,
    /** Estimated message tokens of the source's chain and of the candidate, when known. */
    readonly tokens?: { before: number; after?: number },
  ) {
    super(message, EXIT.flagged, path)
  }
}

/** The default --min-gain: a candidate must hold at most this fraction of the source's tokens. */
export const DEFAULT_MIN_GAIN = 0.9

/** --min-gain checked: a fraction above 0 (above 1 lets a candidate grow; for experiments). */
export function minGainOf(v: number | undefined): number {
  if (v === undefined) return DEFAULT_MIN_GAIN
  if (!(Number.isFinite(v) && v > 0)) throw usageError(`--min-gain must be a number > 0, not '${v}'`)
  return v
}

/** The refusal when the candidate's estimated message tokens exceed minGain × the source's.
 * `lowerBound` says the figure is the least the candidate could hold (checked before the summary). */
export function nothingToGain(
  input: string,
  sourceTokens: number,
  candidateTokens: number,
  minGain: number,
  lowerBound = false,
): CompressRefusal {
  const allowed = Math.floor(sourceTokens * minGain)
  const cand = Math.ceil(candidateTokens)
  const pct = sourceTokens > 0 ? Math.round((candidateTokens / sourceTokens) * 100) : Infinity
  return new CompressRefusal(
    `${input}: nothing to gain: the candidate would hold ${lowerBound ? 'at least ' : ''}~${cand} estimated message tokens, ${pct}% of the source's ~${Math.round(sourceTokens)}; --min-gain ${minGain} allows at most ~${allowed}, missed by ~${cand - allowed}; nothing written`,
    'nothing-to-gain',
    input,
    '--min-gain',
    { before: sourceTokens, after: candidateTokens },
  )
}

/** The refusal for a chain with nothing that can be summarised. */
export function tooShortToCut(input: string, chainRecords: number, why: string): CompressRefusal {
  return new CompressRefusal(
    `${input}: nothing to gain: the active chain has only ${chainRecords} record${chainRecords === 1 ? '' : 's'} and ${why}; nothing written`,
    'nothing-to-gain',
    input,
  )
}

/** A topology stop as a refusal: an ambiguous leaf when an option that chooses the leaf would
 * recover it (that option named), else an invalid source. */
export function topologyRefusal(input: string, message: string, recovery: string[]): CompressRefusal {
  // A leaf policy decides for every session alike (a batch can pass it); a named record is one
  // session's choice.
  const option =
    recovery.find((r) => r.startsWith('--leaf-policy')) ??
    recovery.find((r) => /^--(resume-leaf|max-post-last-prompt-extension)\b/.test(r))
  return new CompressRefusal(message, option ? 'ambiguous-leaf' : 'invalid-source', input, option ?? recovery[0])
}

/** The one torn-tail rule of every writer that rewrites a transcript (single-file compress,
 * `--in-place`, `compress --all`, `pack`): a source whose last line is cut short (an interrupted
 * write, or a file still being written) is refused, never published with the cut line kept or
 * dropped. `claude-jsonl repair` mends such a file first. */
export function tornTailRefusal(input: string): CompressRefusal {
  return new CompressRefusal(
    `${input}: torn: its last line is cut short (still being written, or damaged); nothing written (claude-jsonl repair can mend it)`,
    'invalid-source',
    input,
  )
}
