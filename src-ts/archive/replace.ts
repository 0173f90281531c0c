// `restore --replace`: an archived file put back over the different file at its place (a
// session Claude Code or a compression rewrote since), through the replacement transaction of
// in-place compression (compress/transaction.ts): the current file becomes a numbered
// `.backup` beside it, verified, before the archived bytes take its name; a session Claude Code
// is running (or one written within the stability window) is refused as compress refuses it; a
// process killed at any step leaves the current file or the archived one, and the next run
// recovers what it left. No write follows a symbolic link out of the restore's root.
import { existsSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import native from '../native.js'
import type { ArchivedFile } from '#native'
import { ClaudeJsonlError, EXIT, fromNative } from '../errors.js'
import { checkSessionClosed } from '../read/live-sessions.js'
import { recoverInterrupted, replaceInPlace } from '../compress/transaction.js'
import { checkWithin } from '../durable-files.js'

/** The message the core gives a restore target that holds other bytes. */
export const DIFFERS = 'exists and differs from the archived transcript (not overwritten)'

/** What replacing one file did: the numbered backup of what was there, or why not. */
export interface Replaced {
  backup?: string
  /** The archived file's length, when it was put in place. */
  bytes: number
  error?: string
}

/**
 * Replaces `target` (under the restore root `to`) with the archived file `file`, decoded into
 * memory (SHA-256 checked against the archive's record). `stableForMs`: refuse a session
 * written more recently than this (default 10 s).
 */
export async function replaceWithArchived(
  file: ArchivedFile,
  target: string,
  to: string,
  env: NodeJS.ProcessEnv,
  stableForMs?: number,
): Promise<Replaced> {
  // the session's own transcript says whether Claude Code has it open (a subagent's file or a
  // session file is checked through it)
  const main = file.sessionId ? join(to, file.project, `${file.sessionId}.jsonl`) : target
  const live = () => checkSessionClosed(existsSync(main) ? main : target, { stableForMs, env })
  let bytes: Buffer
  try {
    live()
    bytes = native.archiveReadFile(file)
  } catch (e) {
    return { bytes: 0, error: (fromNative(e) as Error).message }
  }
  const sha = native.sha256(bytes)
  const result = await replaceInPlace({
    target,
    // nothing is written there: the candidate is the archived bytes, held in memory
    workDir: tmpdir(),
    env,
    within: to,
    guard: () => void checkSessionClosed(existsSync(main) ? main : target, { stableForMs: 0, env }),
    produce: async () => ({ bytes }),
    verify: (b) => {
      if (native.sha256(b) !== sha)
        throw new ClaudeJsonlError(`${target}: the bytes to publish are not the archived ones`, EXIT.internal, target)
    },
  })
  if (result.operationState === 'not-committed') return { bytes: 0, error: result.error!.message }
  return { backup: result.backup, bytes: bytes.length }
}

/**
 * Finishes or rolls back what a killed `restore --replace` (or in-place run) left beside each
 * target (its stage, its lock), by the transaction's recovery rules, before anything is
 * restored: a re-run that finds the archived bytes already in place must still clear them. A
 * target reached through a symbolic link out of `to` is left alone (nothing is written there).
 */
export function recoverTargets(targets: string[], to: string): void {
  for (const target of targets) {
    try {
      checkWithin(target, to)
    } catch {
      continue
    }
    recoverInterrupted(dirname(target), target)
  }
}
