// Producing the summary text (produceSummary): the deterministic one, or a model's for the
// evidence pack, got from a command the user names (`--summarizer-cmd`) or from the Anthropic
// Messages API (`--summarizer anthropic`). A model's answer is only a candidate: it must pass
// validateModelSummary before it is used.
import { spawn } from 'node:child_process'
import type Anthropic from '@anthropic-ai/sdk'
import type { TranscriptIndex } from '../native.js'
import { ClaudeJsonlError, EXIT, usageError } from '../errors.js'
import { buildPack, PackManifest, PackOptions } from './pack.js'
import { ComposedSummary, ComposeOptions, composeSummary, validateModelSummary } from './model-summary.js'
import { readSummaryInputs, SummaryInputs } from './summary-inputs.js'
import type { SourceSpans } from './source-spans.js'
import { requireDependency } from '../lazy-dependency.js'

export const DEFAULT_SUMMARIZER_TIMEOUT_MS = 600_000
export const DEFAULT_SUMMARIZER_MODEL = 'claude-sonnet-5-5'
/** Below the SDK's limit for a non-streaming request; a 60,000-character summary needs ~15k. */
export const SUMMARIZER_MAX_TOKENS = 20_000

const fail = (message: string) => new ClaudeJsonlError(message, EXIT.input)

export interface SummarizerCommandOptions {
  /** A command line, run by the platform shell (`sh -c` on POSIX, `cmd.exe /d /s /c` on Windows). */
  command: string
  timeoutMs?: number
  cwd?: string
  env?: NodeJS.ProcessEnv
}

/**
 * Runs `command` with the pack on its standard input and returns what it prints on standard
 * output. The command line is the user's own, like an editor or pager setting, so it goes to
 * the shell as written (pipes and quoting work); nothing from the transcript is put into it.
 * A non-zero exit, a signal, no output or the timeout is an error naming the command; on the
 * timeout the whole process group is killed.
 */
export function runSummarizerCommand(pack: string, opts: SummarizerCommandOptions): Promise<string> {
  const timeoutMs = opts.timeoutMs ?? DEFAULT_SUMMARIZER_TIMEOUT_MS
  return new Promise((resolve, reject) => {
    const child = spawn(opts.command, {
      shell: true,
      cwd: opts.cwd,
      env: opts.env ?? process.env,
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: process.platform !== 'win32',
    })
    const out: Buffer[] = []
    let err = ''
    let timedOut = false
    const timer = setTimeout(() => {
      timedOut = true
      try {
        if (child.pid !== undefined && process.platform !== 'win32') process.kill(-child.pid, 'SIGKILL')
        else child.kill('SIGKILL')
      } catch {
        child.kill('SIGKILL')
      }
    }, timeoutMs)
    child.stdout.on('data', (b: Buffer) => out.push(b))
    child.stderr.on('data', (b: Buffer) => {
      err = (err + b.toString('utf8')).slice(-4000)
    })
    // A command that does not read its input closes the pipe early: not an error by itself.
    child.stdin.on('error', () => {})
    child.stdin.end(pack, 'utf8')
    child.on('error', (e) => {
      clearTimeout(timer)
      reject(fail(`--summarizer-cmd could not be started: ${e.message}`))
    })
    child.on('close', (code, signal) => {
      clearTimeout(timer)
      const lastErr = err.trim().split('\n').pop() ?? ''
      const why = lastErr ? `: ${lastErr.slice(0, 300)}` : ''
      if (timedOut)
        return reject(fail(`--summarizer-cmd timed out after ${Math.round(timeoutMs / 1000)} s and was killed`))
      if (signal) return reject(fail(`--summarizer-cmd was killed by ${signal}${why}`))
      if (code !== 0) return reject(fail(`--summarizer-cmd exited with code ${code}${why}`))
      const text = Buffer.concat(out).toString('utf8')
      if (text.trim() === '') return reject(fail('--summarizer-cmd printed nothing on standard output'))
      resolve(text)
    })
  })
}

export interface AnthropicSummarizerOptions {
  model?: string
  /** Default: $ANTHROPIC_API_KEY. */
  apiKey?: string
  /** Default: $ANTHROPIC_BASE_URL, else the SDK's. */
  baseURL?: string
  timeoutMs?: number
  maxTokens?: number
  env?: NodeJS.ProcessEnv
}

const SYSTEM_PROMPT =
  'You write the summary that lets a Claude Code session continue after its older messages are removed. Read the evidence pack and answer with the summary only, exactly in the format its "Required Output" section prescribes: the metadata comment first, then the nine sections. Cite pack anchors on every line.'

/** Asks the Messages API for a summary of `pack` (one non-streaming request). */
export async function runAnthropicSummarizer(pack: string, opts: AnthropicSummarizerOptions = {}): Promise<string> {
  const env = opts.env ?? process.env
  const apiKey = opts.apiKey ?? env.ANTHROPIC_API_KEY
  if (!apiKey) throw usageError('--summarizer anthropic needs ANTHROPIC_API_KEY in the environment')
  const baseURL = opts.baseURL ?? (env.ANTHROPIC_BASE_URL || undefined)
  // Loaded only when asked for: the deterministic path never pays for the SDK.
  const { default: Anthropic } = requireDependency('@anthropic-ai/sdk') as typeof import('@anthropic-ai/sdk')
  const client = new Anthropic({
    apiKey,
    baseURL,
    timeout: opts.timeoutMs ?? DEFAULT_SUMMARIZER_TIMEOUT_MS,
    maxRetries: 1,
  })
  const model = opts.model ?? DEFAULT_SUMMARIZER_MODEL
  let message: Anthropic.Message
  try {
    message = await client.messages.create({
      model,
      max_tokens: opts.maxTokens ?? SUMMARIZER_MAX_TOKENS,
      system: SYSTEM_PROMPT,
      messages: [{ role: 'user', content: pack }],
    })
  } catch (e) {
    const status = (e as { status?: number }).status
    const msg = (e as Error).message.split('\n')[0]
    throw fail(`--summarizer anthropic: the Messages API request failed${status ? ` (HTTP ${status})` : ''}: ${msg}`)
  }
  const text = message.content
    .filter((b): b is Anthropic.TextBlock => b.type === 'text')
    .map((b) => b.text)
    .join('')
  if (message.stop_reason === 'max_tokens')
    throw fail(
      `--summarizer anthropic: the answer of ${model} was cut at max_tokens (${opts.maxTokens ?? SUMMARIZER_MAX_TOKENS}); lower --summary-char-budget or use a model with more output`,
    )
  if (text.trim() === '') throw fail(`--summarizer anthropic: ${model} answered with no text`)
  return text
}

export type SummarySource =
  | { kind: 'deterministic' }
  /** A model summary the user wrote or obtained (`--model-summary FILE`). */
  | { kind: 'model-summary'; text: string }
  | { kind: 'summarizer-cmd'; command: string; timeoutMs?: number }
  | { kind: 'anthropic'; model?: string; timeoutMs?: number; env?: NodeJS.ProcessEnv }

/** What `produceSummary` needs: the source, the records to summarise and where the text comes from. */
export interface SummaryProductionRequest extends ComposeOptions {
  bytes: Uint8Array
  index: TranscriptIndex
  /** Record indexes to summarise, in chain order (the plan's summaryIndexes). */
  summaryIndexes: ArrayLike<number>
  source: SummarySource
  /** The handoff file's text (`--handoff FILE`): shown to the model as H anchors. */
  handoff?: string
  /** SHA-256 of `bytes`, when already known. */
  sourceSha256?: string
  pack?: PackOptions
  /** The deterministic path loads the records it reads through these (the buffer holds only
   * what is loaded); a model summary's pack reads the whole buffer, which must then be whole. */
  spans?: SourceSpans
}

export interface SummaryOutcome extends ComposedSummary {
  inputs: SummaryInputs
  /** The pack's manifest (digests, truncation) when a model summary was used. */
  manifest?: PackManifest
}

/** Characters of a successful tool result the deterministic summary reads. */
const SUCCESS_RESULT_CHARS = 120

/**
 * The compact summary text for `summaryIndexes`: deterministic, or model-assisted (the pack is
 * built, the model text obtained from the file, command or API, validated against the pack's
 * manifest and composed with the safety appendix). Throws a one-line ClaudeJsonlError.
 */
export async function produceSummary(req: SummaryProductionRequest): Promise<SummaryOutcome> {
  // The deterministic summary quotes failed results only: successful ones cross with just
  // their head and tail (enough for the id in `Task #3 created successfully: …`).
  const deterministic = req.source.kind === 'deterministic'
  const inputs = readSummaryInputs(
    req.bytes,
    req.index,
    req.summaryIndexes,
    deterministic ? { spans: req.spans, successResultChars: SUCCESS_RESULT_CHARS } : {},
  )
  const compose: ComposeOptions = {
    transcriptPath: req.transcriptPath,
    charBudget: req.charBudget,
    preservePriorSummariesVerbatim: req.preservePriorSummariesVerbatim,
    firstKeptLine: req.firstKeptLine,
    keptRecords: req.keptRecords,
  }
  if (req.source.kind === 'deterministic') return { ...composeSummary(inputs, compose), inputs }
  const pack = buildPack(
    {
      bytes: req.bytes,
      index: req.index,
      summaryIndexes: req.summaryIndexes,
      inputs,
      handoff: req.handoff,
      sourceSha256: req.sourceSha256,
    },
    req.pack,
  )
  const s = req.source
  const text =
    s.kind === 'model-summary'
      ? s.text
      : s.kind === 'summarizer-cmd'
        ? await runSummarizerCommand(pack.text, { command: s.command, timeoutMs: s.timeoutMs })
        : await runAnthropicSummarizer(pack.text, { model: s.model, timeoutMs: s.timeoutMs, env: s.env })
  const accepted = validateModelSummary(text, pack.manifest)
  return { ...composeSummary(inputs, compose, accepted), inputs, manifest: pack.manifest }
}
