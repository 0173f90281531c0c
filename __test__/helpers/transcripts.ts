// Small, explicit transcript builders for tests: each record is what Claude Code writes,
// with only the fields a test needs.
import { existsSync, mkdtempSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

export const REPO = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..')
/**
 * The command as installed (`bin.cjs`: the CLI bundled into one file, run through V8's code
 * cache), which the tests start several hundred times: each start costs about a fifth less CPU
 * than the ES modules of `main.js` it is built from (scripts/test.mjs bundles after compiling).
 */
export const CLI = join(REPO, 'dist', 'src-ts', 'cli', 'bin.cjs')
/** The shared real transcripts: beside the checkout, else at the workplace's fixed place. */
export const REAL =
  [join(REPO, '..', 'shared', 'real-transcripts'), '/work/shared/real-transcripts'].find((p) => existsSync(p)) ??
  join(REPO, '..', 'shared', 'real-transcripts')

export interface AssistantOpts {
  requestId?: string | null
  messageId: string
  output: number
  input?: number
  cacheWrite?: number
  cacheRead?: number
  split?: [number, number]
  sidechain?: boolean
  model?: string
  timestamp?: string
  tool?: [string, string]
  stop?: string | null
  sessionId?: string
  /** parentUuid (default null: a root) */
  parent?: string
}

export function assistant(o: AssistantOpts): string {
  const usage: Record<string, unknown> = {
    input_tokens: o.input ?? 3,
    cache_creation_input_tokens: o.cacheWrite ?? 100,
    cache_read_input_tokens: o.cacheRead ?? 1000,
  }
  if (o.split) usage.cache_creation = { ephemeral_5m_input_tokens: o.split[0], ephemeral_1h_input_tokens: o.split[1] }
  usage.output_tokens = o.output
  const content = o.tool
    ? [{ type: 'tool_use', id: o.tool[0], name: o.tool[1], input: {} }]
    : [{ type: 'text', text: 'ok' }]
  const rec: Record<string, unknown> = {
    parentUuid: o.parent ?? null,
    isSidechain: o.sidechain ?? false,
    type: 'assistant',
    uuid: `u-${o.messageId}-${o.output}-${Math.random().toString(36).slice(2)}`,
    timestamp: o.timestamp ?? '2026-03-01T10:00:00.000Z',
    sessionId: o.sessionId ?? 'sess',
    message: {
      id: o.messageId,
      type: 'message',
      role: 'assistant',
      model: o.model ?? 'claude-sonnet-4-5-20250929',
      content,
      stop_reason: o.stop ?? null,
      usage,
    },
  }
  if (o.requestId !== null) rec.requestId = o.requestId ?? `req_${o.messageId}`
  return JSON.stringify(rec)
}

export function userText(text: string, uuid = 'h1'): string {
  return JSON.stringify({
    parentUuid: null,
    isSidechain: false,
    type: 'user',
    message: { role: 'user', content: text },
    uuid,
    timestamp: '2026-03-01T09:59:00.000Z',
    sessionId: 'sess',
  })
}

export function tempDir(prefix = 'cj-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix))
}

/** Writes files (relative path → lines) under a fresh temp dir; returns the dir. */
export function writeTree(files: Record<string, string[] | string>, root = tempDir()): string {
  for (const [rel, content] of Object.entries(files)) {
    const p = join(root, rel)
    mkdirSync(dirname(p), { recursive: true })
    writeFileSync(p, Array.isArray(content) ? content.join('\n') + '\n' : content)
  }
  return root
}

/** Every file under `dir` with its size and mtime: equal before and after proves nothing was written. */
export function snapshot(dir: string): string[] {
  const out: string[] = []
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name)
      const s = statSync(p)
      if (s.isDirectory()) walk(p)
      else out.push(`${p} ${s.size} ${s.mtimeMs}`)
    }
  }
  walk(dir)
  return out
}
