// Errors the CLI turns into one line and a documented exit code (docs/exit-codes.md).

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

export class ClaudeJsonlError extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
    readonly path?: string,
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
