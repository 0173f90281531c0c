// `validate`: is a transcript coherent, and would it resume as one well-formed API conversation?
// The checks run natively (crate/core/src/validate) over the record index and the record graph; this
// side decides what is not a transcript at all (exit 3) and shapes the report.
import { basename } from 'node:path'
import native from '../native.js'
import type { ValidationFinding, ValidationResult } from '#native'
import { fromNative, inputError } from '../errors.js'
import { isClaudeCodeTranscript, NOT_CLAUDE_CODE, transcriptProblem } from './record-types.js'
import type { EstateOptions } from './estate.js'
import { isPathRef, resolveSessionAt, sessionPath } from './session-ref.js'
import { archivedAt, transcriptBytesAt } from '../archive/in-memory.js'

/**
 * One finding of the validator: severity, a stable code (docs/finding-codes.md), its lines and one
 * line of text.
 */
export type ValidationIssue = ValidationFinding

/**
 * The result of `validate`: whether the transcript has no error finding, its findings, the leaf
 * it resumes from, and counts.
 */
export interface ValidationReport {
  path: string
  /** No finding of severity 'error'. */
  valid: boolean
  errors: number
  warnings: number
  /** Errors first, then warnings; each with a stable code, its lines and one line of text. */
  findings: ValidationIssue[]
  /** The leaf the client resumes from and how it was chosen (see `show`). */
  leaf: { line?: number; rule: ValidationResult['leafRule']; pointer: ValidationResult['pointer'] }
  counts: {
    lines: number
    records: number
    /** Active chain, spliced fragments and tool results included. */
    chainRecords: number
    /** Of those, after the current compact boundary: what the model is sent. */
    visibleRecords: number
    /** After merging fragments of one message.id and consecutive user records. */
    apiMessages: number
    toolUses: number
    compactBoundaries: number
  }
  sessions: { sessionId: string; records: number }[]
  /** The session the file name names, when it is a uuid (the chain must end in it). */
  fileSessionId?: string
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/**
 * The session a transcript file is, by its name: the real client (2.1.332) finds a session by
 * `<uuid>.jsonl` and does not check its records' `sessionId`. Undefined when the name is no uuid.
 * `validate` and compress's check of a candidate under its published name both use it.
 */
export function fileSessionOf(path: string): string | undefined {
  const stem = basename(path).replace(/\.jsonl$/i, '')
  return UUID.test(stem) ? stem : undefined
}

/** The findings `validate` would report for `bytes` published at `path`: the one check compress
 * and the in-place transaction make of a candidate before and after publishing it. */
export function validateAs(bytes: Buffer, path: string): ValidationResult {
  return native.validateBuffer(bytes, { fileSessionId: fileSessionOf(path) })
}

/**
 * Validates one session: a transcript path, a session uuid or a unique prefix of one (looked up
 * under `opts.projects`, else the estate root of the environment). Resolves with the report
 * whatever the verdict; throws a ClaudeJsonlError (exit code 3) when the file cannot be read, is
 * not JSONL, or is not a Claude Code transcript (no record has a Claude Code type: a Codex
 * rollout, for instance).
 */
export async function validate(session: string, opts: EstateOptions = {}): Promise<ValidationReport> {
  const path = isPathRef(session) ? sessionPath(session, opts) : (await resolveSessionAt(session, opts)).path
  const fileSessionId = fileSessionOf(path)
  let r: ValidationResult
  try {
    // an archived session: its transcript decoded into memory, nothing written
    r = archivedAt(path)
      ? native.validateBuffer(transcriptBytesAt(path), { fileSessionId })
      : await native.validateFile(path, { fileSessionId })
  } catch (e) {
    throw fromNative(e, path)
  }
  if (r.records === 0) throw inputError(path, transcriptProblem(r)!)
  if (!isClaudeCodeTranscript(r.types)) {
    const seen = r.types
      .slice(0, 4)
      .map((t) => t.name || '(no type)')
      .join(', ')
    throw inputError(path, `${NOT_CLAUDE_CODE.slice(0, -1)}; types: ${seen})`)
  }
  const findings = [
    ...r.findings.filter((f) => f.severity === 'error'),
    ...r.findings.filter((f) => f.severity !== 'error'),
  ]
  const errors = r.findings.filter((f) => f.severity === 'error').length
  return {
    path,
    valid: errors === 0,
    errors,
    warnings: r.findings.length - errors,
    findings,
    leaf: { line: r.leafLine, rule: r.leafRule, pointer: r.pointer },
    counts: {
      lines: r.lines,
      records: r.records,
      chainRecords: r.chainRecords,
      visibleRecords: r.visibleRecords,
      apiMessages: r.apiMessages,
      toolUses: r.toolUses,
      compactBoundaries: r.compactBoundaries,
    },
    sessions: r.sessions,
    fileSessionId,
  }
}
