// `claude-jsonl mcp`: an MCP server on stdio that lets Claude search and read past sessions of
// the estate and of archive roots, with four read-only tools. Each tool calls the library
// function its CLI command uses (find, conversation, listSessions, stats); a failure is a tool
// error of one line, never the end of the server. The library is loaded on the first call, so
// the server answers `initialize` after loading only the SDK.
import { McpServer, StdioServerTransport, z } from './mcp-sdk.js'
import type { ContentBlock } from '../records/blocks.js'
import type { ConversationMessage } from '../records/conversation.js'

/** The estate roots the tools read: the estate (as for `stats`) and any archive roots. */
export interface McpOptions {
  projects?: string
  archives?: string[]
  env?: NodeJS.ProcessEnv
}

/** Claude Code cuts a tool's output at 25,000 tokens (MAX_MCP_OUTPUT_TOKENS); a page of
 * read_session stays below this estimate, leaving room for the estimate's error. */
export const PAGE_TOKENS = 20_000
/** One block of a message is cut to this many characters in read_session (a huge tool result
 * must not take a page by itself). */
const BLOCK_CHARS = 4_000

type ToolResult = { content: { type: 'text'; text: string }[]; isError?: boolean }

const ok = (text: string): ToolResult => ({ content: [{ type: 'text', text }] })

/** Runs a tool, turning any failure into an MCP tool error of one line. */
async function guarded(run: () => Promise<string>): Promise<ToolResult> {
  try {
    return ok(await run())
  } catch (e) {
    const msg = e instanceof Error ? e.message : String(e)
    return { content: [{ type: 'text', text: msg.split('\n')[0] }], isError: true }
  }
}

/** Every root a tool reads, each as the `projects` of an estate call (the estate first). */
function rootsOf(opts: McpOptions): (string | undefined)[] {
  return [opts.projects, ...(opts.archives ?? [])]
}

const cut = (s: string, n: number) => (s.length > n ? `${s.slice(0, n)}… [${s.length - n} more characters]` : s)

function blockText(b: ContentBlock): string | undefined {
  switch (b.type) {
    case 'text':
      return (b as { text?: string }).text ?? ''
    case 'tool_use': {
      const u = b as { name?: string; input?: unknown }
      return `[tool call ${u.name ?? '?'}: ${cut(JSON.stringify(u.input ?? {}), BLOCK_CHARS)}]`
    }
    case 'tool_result': {
      const r = b as { content?: unknown; is_error?: boolean }
      const body =
        typeof r.content === 'string'
          ? r.content
          : Array.isArray(r.content)
            ? r.content
                .map((c) => (c && typeof c === 'object' && 'text' in c ? String(c.text) : `[${c?.type ?? '?'}]`))
                .join('\n')
            : ''
      return `[tool result${r.is_error ? ' (error)' : ''}: ${cut(body, BLOCK_CHARS)}]`
    }
    case 'thinking':
    case 'redacted_thinking':
      return undefined
    default:
      return `[${b.type}]`
  }
}

function messageText(m: ConversationMessage): string {
  const body =
    typeof m.content === 'string'
      ? m.content
      : m.content
          .map(blockText)
          .filter((t) => t !== undefined)
          .join('\n')
  return `## ${m.role} (line ${m.records[0]?.line ?? '?'})\n${cut(body, BLOCK_CHARS * 4)}`
}

/** Whether a user message starts a turn: it holds something besides tool results. */
function startsTurn(m: ConversationMessage): boolean {
  return m.role === 'user' && (typeof m.content === 'string' || m.content.some((b) => b.type !== 'tool_result'))
}

/** The conversation's turns as text, grouped into pages under `pageTokens` (a turn larger than
 * a page is cut at the page's end). */
export function pageTurns(
  messages: ConversationMessage[],
  estimate: (text: string) => number,
  pageTokens = PAGE_TOKENS,
): { turns: number; pages: { first: number; last: number; text: string }[] } {
  const turns: string[][] = []
  for (const m of messages) {
    if (turns.length === 0 || startsTurn(m)) turns.push([])
    turns[turns.length - 1].push(messageText(m))
  }
  const pages: { first: number; last: number; text: string }[] = []
  let current: { first: number; last: number; parts: string[]; tokens: number } | undefined
  turns.forEach((t, i) => {
    let text = `# turn ${i + 1}\n${t.join('\n\n')}`
    let tokens = estimate(text)
    if (tokens > pageTokens) {
      text = `${text.slice(0, Math.floor((text.length * pageTokens) / tokens) - 200)}\n… [turn ${i + 1} cut to fit one page]`
      tokens = estimate(text)
    }
    if (current && current.tokens + tokens > pageTokens) {
      pages.push({ first: current.first, last: current.last, text: current.parts.join('\n\n') })
      current = undefined
    }
    current ??= { first: i + 1, last: i + 1, parts: [], tokens: 0 }
    current.parts.push(text)
    current.last = i + 1
    current.tokens += tokens
  })
  if (current) pages.push({ first: current.first, last: current.last, text: current.parts.join('\n\n') })
  return { turns: turns.length, pages }
}

/** The first root where `ref` names a session (estate first, then the archives). */
async function findSession(ref: string, opts: McpOptions) {
  const { resolveSession } = await import('../read/session-ref.js')
  let first: unknown
  for (const projects of rootsOf(opts)) {
    try {
      return resolveSession(ref, { projects, env: opts.env })
    } catch (e) {
      first ??= e
    }
  }
  throw first
}

const day = z
  .string()
  .regex(/^\d{4}-?\d{2}-?\d{2}$/, 'a day as YYYY-MM-DD')
  .optional()

/** The server with its four tools (not yet connected). */
export function createMcpServer(opts: McpOptions = {}): McpServer {
  const server = new McpServer({ name: 'claude-jsonl', version: '0.1.0' })

  server.registerTool(
    'search_sessions',
    {
      description:
        'Search past Claude Code sessions for what was said (ranked by relevance, or literal text with exact). Returns one hit per session: session id, project, time and a snippet. Read a hit with read_session.',
      inputSchema: {
        query: z.string().min(1).describe('words to look for; "quoted phrases" must be contiguous'),
        project: z.string().optional().describe("only projects whose folder name contains this ('/' matches '-')"),
        since: day.describe('only sessions active on or after this day (YYYY-MM-DD)'),
        exact: z.boolean().optional().describe('match the query as literal text (case-insensitive)'),
        limit: z.number().int().min(1).max(50).optional().describe('hits to return (default 10)'),
      },
      annotations: { readOnlyHint: true },
    },
    (args) =>
      guarded(async () => {
        const { find, findExact } = await import('../read/find.js')
        const limit = args.limit ?? 10
        const seen = new Set<string>()
        const hits: { sessionId: string; project: string; time?: string; snippet: string; score: number }[] = []
        for (const projects of rootsOf(opts)) {
          const scope = { projects, env: opts.env, project: args.project, since: args.since, limit }
          const found = args.exact
            ? (await findExact(args.query, scope)).hits.map((h) => ({ ...h, score: h.matches }))
            : (await find(args.query.split(/\s+(?=(?:[^"]*"[^"]*")*[^"]*$)/).filter(Boolean), scope)).hits
          for (const h of found) {
            if (seen.has(h.sessionId)) continue
            seen.add(h.sessionId)
            hits.push({
              sessionId: h.sessionId,
              project: h.project,
              time: h.timestamp ?? h.lastActivity,
              snippet: h.snippet,
              score: h.score,
            })
          }
        }
        if (hits.length === 0) return `No session matches ${JSON.stringify(args.query)}.`
        return hits
          .slice(0, limit)
          .map(
            (h, i) =>
              `${i + 1}. session ${h.sessionId} · ${h.project} · ${h.time ?? 'no time'}\n   ${h.snippet.replace(/\s+/g, ' ')}`,
          )
          .join('\n')
      }),
  )

  server.registerTool(
    'read_session',
    {
      description:
        'Read one past session as Claude Code would resume it (the messages sent to the model), paged by turns; each page stays under the MCP output limit. Tool inputs and results are shortened; thinking is left out.',
      inputSchema: {
        session: z.string().min(1).describe('a session id, a unique prefix of one, or a transcript path'),
        page: z.number().int().min(1).optional().describe('page number (default 1)'),
      },
      annotations: { readOnlyHint: true },
    },
    (args) =>
      guarded(async () => {
        const ref = await findSession(args.session, opts)
        const { conversation } = await import('../records/conversation.js')
        const { default: native } = await import('../native.js')
        const c = await conversation(ref.path)
        const { turns, pages } = pageTurns(c.messages, (t) => native.estimateTextTokens(t))
        const n = args.page ?? 1
        if (pages.length === 0) return `Session ${ref.sessionId} (${ref.project}) has no conversation to read.`
        if (n > pages.length) throw new Error(`session ${ref.sessionId} has ${pages.length} pages, not ${n}`)
        const p = pages[n - 1]
        const more = n < pages.length ? `; next: page ${n + 1}` : ''
        return `Session ${ref.sessionId} (${ref.project}), page ${n} of ${pages.length}: turns ${p.first}-${p.last} of ${turns}${more}\n\n${p.text}`
      }),
  )

  server.registerTool(
    'list_sessions',
    {
      description:
        'List recent Claude Code sessions, most recent first, with their titles; filter by project or working directory.',
      inputSchema: {
        project: z.string().optional().describe("only projects whose folder name contains this ('/' matches '-')"),
        cwd: z.string().optional().describe('only sessions whose working directory is this path or inside it'),
        since: day.describe('only sessions active on or after this day'),
        limit: z.number().int().min(1).max(200).optional().describe('how many (default 20)'),
      },
      annotations: { readOnlyHint: true },
    },
    (args) =>
      guarded(async () => {
        const { listSessions } = await import('../read/sessions.js')
        const limit = args.limit ?? 20
        const want = args.project?.replace(/[^A-Za-z0-9]/g, '-').toLowerCase()
        const rows = new Map<string, string>()
        const order: { id: string; at: string }[] = []
        for (const projects of rootsOf(opts)) {
          const l = await listSessions({
            projects,
            env: opts.env,
            project: args.cwd,
            since: args.since,
            recent: want ? Infinity : limit,
          })
          for (const s of l.sessions) {
            if (rows.has(s.sessionId) || (want && !s.project.toLowerCase().includes(want))) continue
            rows.set(
              s.sessionId,
              `${s.sessionId} · ${s.lastActivity} · ${s.project} · ${s.messageCount} messages · ${s.title ?? '(no title)'}`,
            )
            order.push({ id: s.sessionId, at: s.lastActivity })
          }
        }
        if (order.length === 0) return 'No session found.'
        return order
          .sort((a, b) => b.at.localeCompare(a.at))
          .slice(0, limit)
          .map((o) => rows.get(o.id)!)
          .join('\n')
      }),
  )

  server.registerTool(
    'usage',
    {
      description:
        'Tokens and cost (USD), counted as `claude-jsonl stats` counts them: of one session (with its subagents), of a day range, or of the projects whose folder name contains a text.',
      inputSchema: {
        session: z.string().optional().describe('a session id or unique prefix'),
        since: day.describe('first day included (YYYY-MM-DD)'),
        until: day.describe('last day included'),
        project: z.string().optional().describe('only projects whose folder name contains this'),
      },
      annotations: { readOnlyHint: true },
    },
    (args) =>
      guarded(async () => {
        const { stats } = await import('../read/stats.js')
        const { formatInt, formatUsd } = await import('../terminal/format.js')
        const window = { since: args.since, until: args.until, env: opts.env }
        const report = args.session
          ? await findSession(args.session, opts).then((s) => stats({ ...window, paths: [s.path, ...s.subagentPaths] }))
          : await stats({ ...window, projects: opts.projects, by: args.project ? 'project' : undefined })
        const want = args.project?.replace(/[^A-Za-z0-9]/g, '-').toLowerCase()
        const groups = want ? (report.groups ?? []).filter((g) => g.key.toLowerCase().includes(want)) : undefined
        const line = (label: string, t: typeof report.totals) =>
          `${label}: ${formatUsd(t.costUsd)}${t.estimatedRequests ? ' (part estimated)' : ''}${t.unpricedRequests ? ` (${t.unpricedRequests} requests not priced)` : ''}, ${formatInt(t.requests)} requests, input ${formatInt(t.inputTokens)}, cache write ${formatInt(t.cacheCreationInputTokens)}, cache read ${formatInt(t.cacheReadInputTokens)}, output ${formatInt(t.outputTokens)}`
        const scope = `${args.session ? `session ${args.session}` : want ? `projects matching ${args.project}` : 'the estate'}${args.since || args.until ? `, ${args.since ?? '…'} to ${args.until ?? '…'}` : ''}`
        if (groups) {
          if (groups.length === 0) return `No usage in ${scope}.`
          return [`Usage of ${scope}:`, ...groups.map((g) => line(g.key, g))].join('\n')
        }
        return [`Usage of ${scope}:`, line('total', report.totals), ...report.models.map((m) => line(m.model, m))].join(
          '\n',
        )
      }),
  )
  return server
}

/** Serves the tools on stdin/stdout until the client closes the pipe. */
export async function serveMcp(opts: McpOptions = {}): Promise<void> {
  const server = createMcpServer(opts)
  const transport = new StdioServerTransport()
  const closed = new Promise<void>((resolve) => (transport.onclose = () => resolve()))
  await server.connect(transport)
  process.stdin.on('end', () => void server.close())
  await closed
}
