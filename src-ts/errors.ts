// Errors the CLI turns into one line and a documented exit code (docs/exit-codes.md).
import type { NativeErrorCode } from '#native'

/** The process exit codes, by meaning: every `ClaudeJsonlError` carries one, and the CLI exits with it. */
export const EXIT = {
  ok: 0,
  /** doctor: something was flagged */
  flagged: 1,
  /** bad command-line usage */
  usage: 2,
  /** a path is missing or unreadable, or a file is not JSONL */
  input: 3,
  /** a bug in claude-jsonl */
  internal: 4,
} as const

/**
 * An error for a person: a one-line message, the exit code it maps to and, when the failure concerns
 * a file or folder, its path. Every API function throws this for bad input.
 */
export class ClaudeJsonlError extends Error {
  constructor(
    message: string,
    /** The exit code the CLI ends with for this error (one of `EXIT`). */
    readonly exitCode: number,
    /** The file or folder the failure concerns, when there is one. */
    readonly path?: string,
    /** What kind of failure the native core reported (`locked`, `changed`, `not-found`, …), when
     * the error came from it: a caller can branch on it without reading the message. */
    readonly code?: NativeCode,
  ) {
    super(message)
    this.name = 'ClaudeJsonlError'
  }
}

export function inputError(path: string, problem: string): ClaudeJsonlError {
  return new ClaudeJsonlError(`${path}: ${problem}`, EXIT.input, path)
}

export function usageError(message: string): ClaudeJsonlError {
  return new ClaudeJsonlError(message, EXIT.usage)
}

/** The kinds of failure the native core reports (crate/core/src/failure.rs; docs/api.md lists them). */
export type NativeCode = NativeErrorCode

export interface NativeFailure {
  code: NativeCode
  /** The file or folder the failure concerns, when it concerns one. */
  path?: string
  /** The one line a person reads (it names the path itself). */
  message: string
}

/** The code and path a native failure carries as data (in its `cause`), or undefined when `e` is
 * not a native failure. */
export function nativeFailure(e: unknown): NativeFailure | undefined {
  if (!(e instanceof Error) || !(e.cause instanceof Error)) return undefined
  let data: unknown
  try {
    data = JSON.parse(e.cause.message)
  } catch {
    return undefined
  }
  const { code, path } = (data ?? {}) as { code?: unknown; path?: unknown }
  if (typeof code !== 'string') return undefined
  return { code: code as NativeCode, path: typeof path === 'string' ? path : undefined, message: e.message }
}

/**
 * The one mapping of native failures to the errors the CLI reports: a `usage` or `illegal-cut`
 * failure exits 2; a failure about a file or store exits 3 naming its path (or `path`, the file
 * the caller asked about, when the failure names none). Anything else (a misuse of the binding,
 * a bug) is returned unchanged, to be reported as the internal error it is.
 */
export function fromNative(e: unknown, path?: string): unknown {
  if (e instanceof ClaudeJsonlError) return e
  const f = nativeFailure(e)
  if (f === undefined || f.code === 'invalid-argument' || f.code === 'internal') return e
  if (f.code === 'usage' || f.code === 'illegal-cut')
    return new ClaudeJsonlError(f.message, EXIT.usage, undefined, f.code)
  if (f.path !== undefined) return new ClaudeJsonlError(f.message, EXIT.input, f.path, f.code)
  return path !== undefined
    ? new ClaudeJsonlError(`${path}: ${f.message}`, EXIT.input, path, f.code)
    : new ClaudeJsonlError(f.message, EXIT.input, undefined, f.code)
}
