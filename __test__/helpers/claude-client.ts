// The real Claude Code client (pinned 2.1.332) run headless against a loopback mock of the
// Anthropic Messages API, as `docs/claude-code-client.md` describes: install it into a
// cache once, resume a transcript copied into a throw-away HOME, record what it sends.
// Nothing leaves 127.0.0.1: the client gets only the environment below (env -i style), with the
// API base URL on the mock, a dummy key and every optional traffic switched off.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs'
import { createServer, IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib'
import { REPO } from './transcripts.js'
import { refuseInQuick } from './quick.js'

export const CLIENT_VERSION = '2.1.332'
export const CLIENT_PACKAGE = `@anthropic-ai/claude-code@${CLIENT_VERSION}`
/** Pinned so the request has one stable shape: with this (older) model the client sends no
 * system-role messages inside `messages` (its default model gets an `output_config` system message
 * after the first user message and a context system message after the prompt) and puts its context
 * into `<system-reminder>` blocks of the final user message, which is stripped whole. It also fixes
 * which thinking blocks are sent (only those whose record's model equals the request's). */
export const CLIENT_MODEL = 'claude-sonnet-4-5-20250929'
/** The prompt every resume sends; the final user message (client reminders + this) is stripped. */
export const PROMPT = 'continue'

/** The client's cache folder: `CLAUDE_JSONL_CLIENT_CACHE`, else `.cache/claude-code-<version>/` in the repo. */
export function clientCacheDir(): string {
  return process.env.CLAUDE_JSONL_CLIENT_CACHE || join(REPO, '.cache', `claude-code-${CLIENT_VERSION}`)
}

function clientPackageDir(cache: string): string {
  return join(cache, 'node_modules', '@anthropic-ai', 'claude-code')
}

/** The package's bin entry (`bin/claude.exe` on every platform; a placeholder until install.cjs ran). */
function clientBin(cache: string): string {
  return join(clientPackageDir(cache), 'bin', 'claude.exe')
}

/** The version line of the binary, or why it could not be run. */
function clientVersion(bin: string): { ok: boolean; text: string } {
  if (!existsSync(bin)) return { ok: false, text: `${bin} is missing` }
  const r = spawnSync(bin, ['--version'], {
    env: { HOME: tmpdir() },
    encoding: 'utf8',
    timeout: 60_000,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const text = `${r.stdout ?? ''}${r.stderr ?? ''}${r.error ? r.error.message : ''}`.trim()
  return { ok: r.status === 0 && text.startsWith(`${CLIENT_VERSION} `), text }
}

function sleep(ms: number): Promise<void> {
  return new Promise((res) => setTimeout(res, ms))
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/** A cross-process lock: a directory created atomically, holding its owner's pid. A lock whose
 * owner is gone (killed test run) is taken over. */
async function withLock<T>(lockDir: string, fn: () => T): Promise<T> {
  mkdirSync(dirname(lockDir), { recursive: true })
  for (;;) {
    try {
      mkdirSync(lockDir)
      writeFileSync(join(lockDir, 'pid'), String(process.pid))
      break
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e
      let owner = 0
      try {
        owner = Number(readFileSync(join(lockDir, 'pid'), 'utf8'))
      } catch {
        // Just created, pid not written yet: give it a moment unless it is old.
        if (Date.now() - statSync(lockDir, { throwIfNoEntry: false })!.mtimeMs < 10_000) owner = -1
      }
      if (owner === 0 || (owner > 0 && !alive(owner))) rmSync(lockDir, { recursive: true, force: true })
      else await sleep(500)
    }
  }
  try {
    return fn()
  } finally {
    rmSync(lockDir, { recursive: true, force: true })
  }
}

function npmCommand(): { cmd: string; pre: string[] } {
  // Under `npm test` npm names its own CLI: use that one; else `npm` from PATH.
  const execPath = process.env.npm_execpath
  if (execPath && /npm-cli\.js$/.test(execPath)) return { cmd: process.execPath, pre: [execPath] }
  return { cmd: process.platform === 'win32' ? 'npm.cmd' : 'npm', pre: [] }
}

function install(cache: string): void {
  mkdirSync(cache, { recursive: true })
  // Its own package.json, so npm does not walk up into the repository's.
  writeFileSync(join(cache, 'package.json'), JSON.stringify({ name: 'claude-code-client-cache', private: true }) + '\n')
  const { cmd, pre } = npmCommand()
  const args = [...pre, 'install', '--no-audit', '--no-fund', '--loglevel=error', '--no-package-lock', CLIENT_PACKAGE]
  process.stderr.write(`claude-client: installing ${CLIENT_PACKAGE} into ${cache} (about 400 MB, once)\n`)
  const r = spawnSync(cmd, args, {
    cwd: cache,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    shell: process.platform === 'win32',
  })
  if (r.status !== 0)
    throw new Error(
      `claude-client: npm install ${CLIENT_PACKAGE} failed (${r.error?.message ?? `exit ${r.status}`}): ${(r.stderr ?? '').trim().slice(-2000)}`,
    )
}

/** The package's postinstall copies the platform binary over the placeholder; npm may have
 * skipped install scripts. */
function runPostinstall(cache: string): void {
  const pkg = clientPackageDir(cache)
  const r = spawnSync(process.execPath, [join(pkg, 'install.cjs')], {
    cwd: pkg,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  if (r.status !== 0)
    throw new Error(
      `claude-client: ${join(pkg, 'install.cjs')} failed: ${`${r.stdout}${r.stderr}`.trim().slice(-2000)}`,
    )
}

let ensured: Promise<string> | undefined

/** Installs the pinned client into the cache when needed and returns the path of its binary,
 * checked to print `2.1.332 (Claude Code)`. Safe when several test processes call it at once. */
export function ensureClaudeClient(): Promise<string> {
  refuseInQuick('Claude Code client')
  ensured ??= (async () => {
    const cache = clientCacheDir()
    const bin = clientBin(cache)
    if (clientVersion(bin).ok) return bin
    return withLock(`${cache}.lock`, () => {
      if (clientVersion(bin).ok) return bin // installed by another process meanwhile
      if (!existsSync(join(clientPackageDir(cache), 'package.json'))) install(cache)
      let v = clientVersion(bin)
      if (!v.ok) {
        runPostinstall(cache)
        v = clientVersion(bin)
      }
      if (!v.ok)
        throw new Error(
          `claude-client: ${bin} --version gave "${v.text.slice(0, 300)}", expected ${CLIENT_VERSION} (Claude Code); remove ${cache} to reinstall`,
        )
      return bin
    })
  })()
  ensured.catch(() => (ensured = undefined))
  return ensured
}

// ---- the loopback mock of the Messages API ----

export interface RecordedRequest {
  method: string
  /** Path and query. */
  url: string
  headers: IncomingHttpHeaders
  /** The JSON body, parsed; undefined when it was empty or not JSON (then `raw` has it). */
  body?: any
  raw: string
}

export interface MockApi {
  /** `http://127.0.0.1:<port>` */
  url: string
  requests: RecordedRequest[]
  close(): Promise<void>
}

function decode(buf: Buffer, encoding: string | undefined): Buffer {
  switch (encoding) {
    case 'gzip':
      return gunzipSync(buf)
    case 'deflate':
      return inflateSync(buf)
    case 'br':
      return brotliDecompressSync(buf)
    default:
      return buf
  }
}

const USAGE = { input_tokens: 12, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 1 }

function sse(events: Record<string, unknown>[]): string {
  return events.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`).join('')
}

export interface MockOptions {
  /** How long the mock waits before answering each `/v1/messages` request (keeps the client alive). */
  delayMs?: number
  /** The content blocks of answer `n` (1-based) to `body`; default a text `ok`. A `tool_use`
   * block makes the answer stop with `tool_use`. */
  reply?: (n: number, body: any) => unknown[] | undefined
}

/** The stream events of each content block (text as one delta, tool input as one JSON delta). */
function contentEvents(content: any[]): Record<string, unknown>[] {
  return content.flatMap((block, index): Record<string, unknown>[] =>
    block.type === 'tool_use'
      ? [
          { type: 'content_block_start', index, content_block: { ...block, input: {} } },
          {
            type: 'content_block_delta',
            index,
            delta: { type: 'input_json_delta', partial_json: JSON.stringify(block.input) },
          },
          { type: 'content_block_stop', index },
        ]
      : [
          { type: 'content_block_start', index, content_block: { type: 'text', text: '' } },
          { type: 'content_block_delta', index, delta: { type: 'text_delta', text: block.text } },
          { type: 'content_block_stop', index },
        ],
  )
}

/** A Messages API mock on an ephemeral port of 127.0.0.1. Every request is recorded;
 * `POST /v1/messages` answers the text `ok` (streamed as SSE when asked; see MockOptions),
 * count_tokens a count, anything else 404. It closes itself after `lifetimeMs`. */
export function startMockApi(lifetimeMs = 180_000, opts: MockOptions = {}): Promise<MockApi> {
  const requests: RecordedRequest[] = []
  let n = 0
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    // With delayMs, message requests are answered late: the client stays alive (and registered
    // as a live session) meanwhile.
    req.on('end', () => {
      const delay = (req.url ?? '').split('?')[0] === '/v1/messages' ? (opts.delayMs ?? 0) : 0
      if (delay > 0) setTimeout(answer, delay).unref()
      else answer()
    })
    const answer = () => {
      let raw = ''
      let body: any
      try {
        raw = decode(Buffer.concat(chunks), req.headers['content-encoding'] as string | undefined).toString('utf8')
        body = raw ? JSON.parse(raw) : undefined
      } catch {
        body = undefined
      }
      requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body, raw })
      const path = (req.url ?? '').split('?')[0]
      const json = (status: number, v: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json', 'request-id': `req_mock_${n}` })
        res.end(JSON.stringify(v))
      }
      if (req.method === 'POST' && path === '/v1/messages/count_tokens') return json(200, { input_tokens: 12 })
      if (req.method !== 'POST' || path !== '/v1/messages') {
        return json(404, {
          type: 'error',
          error: { type: 'not_found_error', message: `mock: no ${req.method} ${path}` },
        })
      }
      n += 1
      const message = {
        id: `msg_mock_${n}`,
        type: 'message',
        role: 'assistant',
        model: body?.model ?? 'mock',
        content: [] as unknown[],
        stop_reason: null,
        stop_sequence: null,
        usage: USAGE,
      }
      const content = opts.reply?.(n, body) ?? [{ type: 'text', text: 'ok' }]
      const stopReason = content.some((b: any) => b?.type === 'tool_use') ? 'tool_use' : 'end_turn'
      if (!body?.stream) return json(200, { ...message, content, stop_reason: stopReason })
      res.writeHead(200, {
        'content-type': 'text/event-stream',
        'cache-control': 'no-cache',
        'request-id': `req_mock_${n}`,
      })
      res.end(
        sse([
          { type: 'message_start', message },
          ...contentEvents(content),
          {
            type: 'message_delta',
            delta: { stop_reason: stopReason, stop_sequence: null },
            usage: { output_tokens: 1 },
          },
          { type: 'message_stop' },
        ]),
      )
    }
  })
  return new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as AddressInfo).port
      let closed: Promise<void> | undefined
      const close = () =>
        (closed ??= new Promise<void>((res) => {
          clearTimeout(timer)
          server.close(() => res())
          server.closeAllConnections()
        }))
      const timer = setTimeout(close, lifetimeMs)
      timer.unref()
      resolve({ url: `http://127.0.0.1:${port}`, requests, close })
    })
  })
}

// ---- resuming a transcript ----

/** The client's project folder name for a cwd: every UTF-16 unit outside [A-Za-z0-9] becomes
 * `-`; past 200 characters, cut and suffixed with `-` + base36 of |Java hashCode(cwd)|. */
export function encodeProjectDir(cwd: string): string {
  const enc = cwd.replace(/[^A-Za-z0-9]/g, '-')
  if (enc.length <= 200) return enc
  let h = 0
  for (let i = 0; i < cwd.length; i++) h = (Math.imul(h, 31) + cwd.charCodeAt(i)) | 0
  return `${enc.slice(0, 200)}-${Math.abs(h).toString(36)}`
}

export interface ResumeOptions {
  sessionId: string
  /** Default CLIENT_MODEL; `null` lets the client pick (its default, or the transcript's). */
  model?: string | null
  /** The cwd the client runs in (default: a fresh folder in the temp dir). */
  cwd?: string
  timeoutMs?: number
  /** Run under strace (when installed) and report every connect() that is not loopback or a unix socket. */
  traceConnections?: boolean
}

export interface ResumeResult {
  exitCode: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
  requests: RecordedRequest[]
  /** The loaded history: the `messages` of the client's conversation request, without the final
   * user message (reminders + prompt), client-inserted system-role messages and the client's
   * `cache_control` markers. Undefined when the client sent no such request. */
  history?: ApiMessage[]
  /** The client's final user message (its reminders, trailing user records of the transcript,
   * the prompt), without cache_control markers. */
  finalMessage?: ApiMessage
  /** Records the client appended to the transcript (parsed). */
  appended: any[]
  /** With traceConnections: non-loopback connect() calls (empty is good); undefined when strace is missing. */
  foreignConnections?: string[]
}

export interface ApiMessage {
  role: string
  content: any
}

/** The conversation request: the first `/v1/messages` request whose last message ends with the
 * prompt (the client may send side requests, e.g. a title, before or after it). */
export function conversationRequest(requests: RecordedRequest[]): RecordedRequest | undefined {
  const isMessages = (r: RecordedRequest) =>
    r.method === 'POST' && r.url.split('?')[0] === '/v1/messages' && Array.isArray(r.body?.messages)
  const endsWithPrompt = (r: RecordedRequest) => {
    const last = r.body.messages[r.body.messages.length - 1]
    if (last?.role !== 'user') return false
    const c = last.content
    const text =
      typeof c === 'string'
        ? c
        : Array.isArray(c)
          ? c
              .filter((b: any) => b?.type === 'text')
              .map((b: any) => b.text)
              .pop()
          : undefined
    return typeof text === 'string' && text.trim() === PROMPT
  }
  return requests.find((r) => isMessages(r) && endsWithPrompt(r)) ?? requests.find(isMessages)
}

function stripCacheControl(v: any): any {
  if (Array.isArray(v)) return v.map(stripCacheControl)
  if (v && typeof v === 'object') {
    const out: Record<string, unknown> = {}
    for (const [k, x] of Object.entries(v)) if (k !== 'cache_control') out[k] = stripCacheControl(x)
    return out
  }
  return v
}

/** The history the client loaded, from its conversation request. */
export function loadedHistory(messages: ApiMessage[]): ApiMessage[] {
  const conversation = messages.filter((m) => m.role !== 'system')
  return stripCacheControl(conversation.slice(0, -1))
}

const HAS_STRACE = ['/usr/bin/strace', '/bin/strace'].find((p) => existsSync(p))

/** connect() lines of a strace log that go anywhere but loopback or a unix socket. */
function foreignConnects(log: string): string[] {
  return log
    .split('\n')
    .filter((l) => l.includes('connect('))
    .filter((l) => !/sa_family=AF_UNIX/.test(l))
    .filter(
      (l) => !/inet_addr\("127\.0\.0\.1"\)/.test(l) && !/inet_pton\(AF_INET6, "(::1|::ffff:127\.0\.0\.1)"/.test(l),
    )
    .filter((l) => /sa_family=AF_INET6?/.test(l))
}

/** The whole environment the client gets: a throw-away HOME, the mock as API, no optional traffic. */
export function clientEnv(home: string, tmp: string, mockUrl: string): Record<string, string> {
  return {
    HOME: home,
    CLAUDE_CONFIG_DIR: join(home, '.claude'),
    TMPDIR: tmp,
    ANTHROPIC_BASE_URL: mockUrl,
    ANTHROPIC_API_KEY: 'dummy',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_AUTOUPDATER: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_ERROR_REPORTING: '1',
  }
}

export interface ProcessResult {
  code: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
}

/** Runs `cmd` to its end (SIGTERM after timeoutMs, SIGKILL 5 s later). */
export function runProcess(
  cmd: string,
  argv: string[],
  cwd: string,
  env: Record<string, string>,
  timeoutMs: number,
): Promise<ProcessResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, argv, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (c) => (stdout += c))
    child.stderr.setEncoding('utf8').on('data', (c) => (stderr += c))
    const term = setTimeout(() => child.kill('SIGTERM'), timeoutMs)
    const kill = setTimeout(() => child.kill('SIGKILL'), timeoutMs + 5_000)
    child.on('error', reject)
    child.on('close', (code, signal) => {
      clearTimeout(term)
      clearTimeout(kill)
      resolve({ code, signal, stdout, stderr })
    })
  })
}

export interface HeldSession {
  child: ChildProcess
  /** The client's registry record `<config>/sessions/<pid>.json`, once it appeared. */
  registry: string
  record: Record<string, unknown>
  mock: MockApi
  /** SIGKILL (leaves the registry record behind, as a crash does) or SIGTERM, then closes the mock. */
  stop(signal?: NodeJS.Signals): Promise<void>
}

/** Starts the real client resuming `sessionId` from `<home>/.claude/projects/...` (already in
 * place) against a mock that answers only after `delayMs`, and resolves once the client has
 * registered the session as live. */
export async function holdSessionWithRealClient(
  home: string,
  sessionId: string,
  opts: { delayMs?: number; timeoutMs?: number } = {},
): Promise<HeldSession> {
  const bin = await ensureClaudeClient()
  const tmp = mkdtempSync(join(tmpdir(), 'cj-held-'))
  const cwd = join(tmp, 'work')
  mkdirSync(cwd, { recursive: true })
  const mock = await startMockApi(180_000, { delayMs: opts.delayMs ?? 120_000 })
  const args = [
    '-p',
    PROMPT,
    '--resume',
    sessionId,
    '--output-format',
    'json',
    '--max-turns',
    '1',
    '--model',
    CLIENT_MODEL,
  ]
  const child = spawn(bin, args, { cwd, env: clientEnv(home, tmp, mock.url), stdio: ['ignore', 'pipe', 'pipe'] })
  let stderr = ''
  child.stderr!.setEncoding('utf8').on('data', (c) => (stderr += c))
  child.stdout!.resume()
  const exited = new Promise<void>((res) => child.on('close', () => res()))
  const stop = async (signal: NodeJS.Signals = 'SIGTERM') => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal)
    await exited
    await mock.close()
    rmSync(tmp, { recursive: true, force: true })
  }
  const registry = join(home, '.claude', 'sessions', `${child.pid}.json`)
  const deadline = Date.now() + (opts.timeoutMs ?? 90_000)
  for (;;) {
    try {
      const record = JSON.parse(readFileSync(registry, 'utf8'))
      if (record.sessionId === sessionId) return { child, registry, record, mock, stop }
    } catch {
      // not written yet
    }
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop('SIGKILL')
      throw new Error(`claude-client: no registry record for ${sessionId} at ${registry}: ${stderr.slice(0, 500)}`)
    }
    await sleep(100)
  }
}

/**
 * How many resumes of one test process run at once (`CLAUDE_JSONL_CLIENT_CONCURRENCY`, default
 * 2). A resume spends about a third of its time waiting (the client's start, the mock's answer,
 * its exit), so two side by side keep a 2-core machine busy where one after another leave it
 * idle; each has its own HOME, mock and port, so they cannot see each other.
 */
const CLIENT_SLOTS = Math.max(1, Number(process.env.CLAUDE_JSONL_CLIENT_CONCURRENCY) || 2)
let clientsRunning = 0
const clientQueue: (() => void)[] = []

async function withClientSlot<T>(run: () => Promise<T>): Promise<T> {
  if (clientsRunning >= CLIENT_SLOTS) await new Promise<void>((go) => clientQueue.push(go))
  else clientsRunning++
  try {
    return await run()
  } finally {
    // the slot passes to the next waiting resume, or is given back
    const next = clientQueue.shift()
    if (next) next()
    else clientsRunning--
  }
}

/** Resumes `transcript` with the real client (`-p continue --resume <id> --output-format json
 * --max-turns 1`) in a throw-away HOME, against a fresh mock; see ResumeResult. At most
 * CLIENT_SLOTS run at once. */
export async function resumeWithRealClient(transcript: Buffer | string, opts: ResumeOptions): Promise<ResumeResult> {
  const bin = await ensureClaudeClient()
  return withClientSlot(() => resumeIn(bin, transcript, opts))
}

async function resumeIn(bin: string, transcript: Buffer | string, opts: ResumeOptions): Promise<ResumeResult> {
  const tmp = mkdtempSync(join(tmpdir(), 'cj-client-'))
  const home = join(tmp, 'home')
  const cwd = opts.cwd ?? join(tmp, 'work')
  mkdirSync(cwd, { recursive: true })
  const projectDir = join(home, '.claude', 'projects', encodeProjectDir(cwd))
  mkdirSync(projectDir, { recursive: true })
  const file = join(projectDir, `${opts.sessionId}.jsonl`)
  const original = Buffer.isBuffer(transcript) ? transcript : Buffer.from(transcript, 'utf8')
  writeFileSync(file, original)
  const mock = await startMockApi()
  const model = opts.model === undefined ? CLIENT_MODEL : opts.model
  const args = ['-p', PROMPT, '--resume', opts.sessionId, '--output-format', 'json', '--max-turns', '1']
  if (model) args.push('--model', model)
  const env = clientEnv(home, tmp, mock.url)
  const traceLog = join(tmp, 'connect.strace')
  const trace = opts.traceConnections && HAS_STRACE
  const [cmd, argv] = trace
    ? [HAS_STRACE!, ['-f', '-qq', '-e', 'trace=connect', '-o', traceLog, bin, ...args]]
    : [bin, args]
  const timeoutMs = opts.timeoutMs ?? 120_000
  try {
    const run = await runProcess(cmd, argv, cwd, env, timeoutMs)
    const after = readFileSync(file)
    const tail = after.subarray(after.subarray(0, original.length).equals(original) ? original.length : after.length)
    const appended = tail
      .toString('utf8')
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => {
        try {
          return JSON.parse(l)
        } catch {
          return { unparsed: l }
        }
      })
    const request = conversationRequest(mock.requests)
    const result: ResumeResult = {
      exitCode: run.code,
      signal: run.signal,
      stdout: run.stdout,
      stderr: run.stderr,
      requests: mock.requests,
      history: request ? loadedHistory(request.body.messages) : undefined,
      finalMessage: request
        ? stripCacheControl(request.body.messages.filter((m: ApiMessage) => m.role !== 'system').at(-1))
        : undefined,
      appended,
    }
    if (opts.traceConnections)
      result.foreignConnections = trace ? foreignConnects(readFileSync(traceLog, 'utf8')) : undefined
    return result
  } finally {
    await mock.close()
    if (process.env.CLAUDE_JSONL_KEEP_CLIENT_TMP) appendFileSync(join(tmpdir(), 'cj-client-kept.txt'), `${tmp}\n`)
    else rmSync(tmp, { recursive: true, force: true })
  }
}
