// The options of the in-place replacement, shared by compress and repair-read-pages, and how
// their outcome is printed when the replacement committed but its report could not be written.
import type { ModeConfig } from '../compress/batch-modes.js'
import type { ReplaceResult } from '../compress/transaction.js'
import { usageError } from '../errors.js'
import { decimal, flag, text, type Values } from './command.js'

export const IN_PLACE_OPTIONS = {
  'in-place': flag('replace the transcript itself (a verified FILE.backup is kept beside it)'),
  'work-dir': text('DIR', 'with --in-place: where the candidate and the report go (outside any .claude tree)'),
  'confirm-session-closed': flag('with --in-place: you confirm no Claude Code process has the session open'),
  'stable-for': decimal('SECONDS', 'with --in-place: refuse a file modified this recently (default 10)', 'seconds'),
}

type InPlaceValues = Values<typeof IN_PLACE_OPTIONS> & { out?: string; force?: boolean }

/** The in-place settings, or undefined for candidate mode; refuses options given to the wrong mode. */
export function inPlaceSettings(
  command: string,
  v: InPlaceValues,
): { workDir: string; confirmSessionClosed?: boolean; stableForMs?: number } | undefined {
  if (v['in-place'] && v.out !== undefined) throw usageError(`${command}: give --out FILE or --in-place, not both`)
  if (!v['in-place']) {
    if (v['work-dir'] !== undefined || v['confirm-session-closed'] || v['stable-for'] !== undefined)
      throw usageError(`${command}: --work-dir, --confirm-session-closed and --stable-for go with --in-place`)
    if (v.out === undefined)
      throw usageError(`${command} needs exactly one of --out FILE or --in-place (see claude-jsonl ${command} --help)`)
    return undefined
  }
  if (v.force)
    throw usageError(`${command}: --force goes with --out (in place, the original is always kept as a numbered backup)`)
  return {
    workDir: v['work-dir'] ?? '',
    confirmSessionClosed: v['confirm-session-closed'],
    stableForMs: v['stable-for'] === undefined ? undefined : v['stable-for'] * 1000,
  }
}

/**
 * How `COMMAND --all` publishes: candidates into --out-dir, or in place. Refuses the single-file
 * options (--out, --force) and options of the other mode, before any session is read.
 */
export function batchMode(command: string, v: InPlaceValues & { 'out-dir'?: string }): ModeConfig {
  if (v.out) throw usageError(`${command} --all writes into --out-dir DIR, not --out FILE`)
  if (v.force) throw usageError(`${command} --all: --force is not needed (a re-run replaces changed sessions)`)
  if (v['in-place'] && v['out-dir'])
    throw usageError(`${command} --all: give --out-dir DIR (candidates) or --in-place, not both`)
  if (v['in-place']) {
    const s = inPlaceSettings(command, v)!
    return {
      kind: 'in-place',
      workDir: s.workDir,
      confirmSessionClosed: s.confirmSessionClosed === true,
      stableForMs: s.stableForMs,
    }
  }
  if (v['work-dir'] !== undefined || v['confirm-session-closed'] || v['stable-for'] !== undefined)
    throw usageError(`${command}: --work-dir, --confirm-session-closed and --stable-for go with --in-place`)
  if (!v['out-dir'])
    throw usageError(`${command} --all needs --out-dir DIR or --in-place (see claude-jsonl ${command} --help)`)
  return { kind: 'candidate', outDir: v['out-dir'] }
}

/** The receipt printed when a replacement committed but its report could not be written. */
export function committedReportFailed(r: ReplaceResult, stateKey: 'operation_state' | 'operationState'): string {
  return JSON.stringify(
    {
      [stateKey]: r.operationState,
      target: r.target,
      backup: r.backup,
      candidate: r.candidate,
      frozenSha256: r.frozenSha256,
      candidateSha256: r.candidateSha256,
      publishedSha256: r.publishedSha256,
      error: r.error?.message,
    },
    null,
    2,
  )
}
