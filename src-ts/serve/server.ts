// `claude-jsonl serve`'s HTTP server: read-only pages over an estate (or an archive), on the
// loopback address unless told otherwise.
//
// Safe to leave running: only GET and HEAD are answered; no endpoint writes, deletes or runs
// anything; the Host header must name this server (a page of another site that resolves its own
// name to 127.0.0.1, DNS rebinding, gets 421); no CORS header is ever sent, so other origins
// cannot read a response; every page carries a Content-Security-Policy that allows no script of
// its own (the session page: only its one filter script, by hash) and no request to anywhere.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { statSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import { EstateModel, type EstateModelOptions, type EstateSnapshot, type ServedSession } from './estate-model.js'
import { problemPage, searchPage, sessionsPage, usagePage } from './pages.js'
import { showSession } from '../read/show.js'
import { archivedAt } from '../archive/in-memory.js'
import { find, findExact, type FindExactReport, type FindReport } from '../read/find.js'
import { parseDay } from '../read/days.js'
import { ClaudeJsonlError } from '../errors.js'
import { renderHtml } from '../cli/show-html.js'
import { escapeHtml as e } from '../cli/show-parts.js'
import { formatDuration, formatInt, formatUsd, localTime } from '../terminal/format.js'

export interface ServeOptions extends EstateModelOptions {
  /** Address to listen on (default 127.0.0.1). */
  host?: string
  /** Port (default 0: any free port). */
  port?: number
  /** The find index folder (default: find's). */
  indexDir?: string
}

export interface RunningServer {
  /** `http://HOST:PORT/`. */
  url: string
  host: string
  port: number
  model: EstateModel
  server: Server
  close(): Promise<void>
}

const OWN_PAGE_CSP =
  "default-src 'none'; style-src 'unsafe-inline'; img-src 'none'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"

/** Names a browser on this machine may use for the server: loopback names and the address bound. */
export function allowedHosts(host: string, port: number): Set<string> {
  const names = new Set(['127.0.0.1', 'localhost', '[::1]'])
  names.add(host.includes(':') && !host.startsWith('[') ? `[${host}]` : host)
  return new Set([...names].map((n) => `${n}:${port}`.toLowerCase()))
}

/** Session ids are uuids; anything else in the path is no session of ours. */
const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/

/** Rendered session pages kept, by transcript path, size and mtime: a few, and bounded in bytes. */
class PageCache {
  private readonly pages = new Map<string, string>()
  private bytes = 0
  constructor(
    private readonly maxPages = 8,
    private readonly maxBytes = 32 * 1024 * 1024,
  ) {}
  get(key: string): string | undefined {
    const v = this.pages.get(key)
    if (v !== undefined) {
      this.pages.delete(key)
      this.pages.set(key, v)
    }
    return v
  }
  set(key: string, html: string): void {
    if (html.length > this.maxBytes) return
    this.pages.set(key, html)
    this.bytes += html.length
    while (this.pages.size > this.maxPages || this.bytes > this.maxBytes) {
      const [k, v] = this.pages.entries().next().value as [string, string]
      this.pages.delete(k)
      this.bytes -= v.length
    }
  }
}

/** The strip above a session's conversation: navigation, its cost, and its turns' timeline. */
function sessionHead(s: ServedSession, timezone: string, r: Awaited<ReturnType<typeof showSession>>): string {
  const rows = r.turns
    .filter((t) => !t.branch)
    .map((t) => {
      const out = t.tokens.outputTokens
      return `<tr><td><a href="#turn-${t.index}">${t.index}</a></td><td>${t.startedAt ? e(localTime(Date.parse(t.startedAt), timezone)) : ''}</td><td class="n">${t.durationMs !== undefined ? e(formatDuration(t.durationMs)) : ''}</td><td class="n">${formatInt(t.requests.length)}</td><td class="n">${formatInt(out)}</td><td>${e(t.models.join(', '))}</td></tr>`
    })
    .join('')
  return `<style>nav.site{display:flex;gap:18px;margin:0 0 12px}nav.site a{color:#0b57d0;text-decoration:none}
.cost{margin:8px 0;color:#1d1d1f}table.tl{border-collapse:collapse;font-size:13px;width:100%}table.tl td,table.tl th{padding:2px 8px;border-bottom:1px solid #e3e3e8;text-align:left}table.tl .n{text-align:right}
:target{outline:2px solid #f2a900;outline-offset:2px;border-radius:4px}</style>
<nav class="site"><a href="/">← Sessions</a><a href="/search">Search</a><a href="/usage">Usage</a></nav>
<p class="cost" id="session-cost">${e(`${formatInt(s.requests)} requests · ${formatUsd(s.costUsd)}${s.unpricedRequests > 0 ? ` (${formatInt(s.unpricedRequests)} unpriced)` : ''}`)}</p>
<details class="timeline"><summary>Timeline: ${formatInt(rows ? r.turns.filter((t) => !t.branch).length : 0)} turns</summary><table class="tl"><thead><tr><th>Turn</th><th>Started</th><th class="n">Took</th><th class="n">Requests</th><th class="n">Output</th><th>Models</th></tr></thead><tbody>${rows}</tbody></table></details>`
}

/** Starts the server; resolves once it listens. */
export async function startServer(opts: ServeOptions = {}): Promise<RunningServer> {
  const host = opts.host ?? '127.0.0.1'
  const model = new EstateModel(opts)
  const pages = new PageCache()
  // Search answers by query, for the estate as the current snapshot saw it: a repeated search
  // (paging back, a reload) costs nothing until a transcript changes.
  const searches = new Map<string, { builtAt: number; report: FindReport | FindExactReport }>()
  let allowed = new Set<string>()

  const send = (res: ServerResponse, status: number, html: string, headers: Record<string, string> = {}) => {
    res.writeHead(status, {
      'Content-Type': 'text/html; charset=utf-8',
      'Content-Length': String(Buffer.byteLength(html)),
      'Content-Security-Policy': OWN_PAGE_CSP,
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'no-referrer',
      'X-Frame-Options': 'DENY',
      'Cache-Control': 'no-store',
      ...headers,
    })
    res.end(res.req.method === 'HEAD' ? undefined : html)
  }

  const sessionPage = async (snap: EstateSnapshot, id: string, res: ServerResponse) => {
    const s = snap.byId.get(id)
    if (!s) return send(res, 404, problemPage('No such session', `no session ${id} in this estate`))
    let key: string
    try {
      // an archived session has no file at its path: the listing's size stands for its state
      const st = archivedAt(s.path) ? { size: s.size, mtimeMs: s.lastActivityMs } : statSync(s.path)
      key = `${s.path}\0${st.size}\0${st.mtimeMs}\0${s.requests}\0${s.costUsd}`
    } catch {
      return send(res, 404, problemPage('No such session', `${s.path} is gone since the estate was read`))
    }
    let html = pages.get(key)
    if (!html) {
      let shown
      try {
        shown = await showSession(s.path, { tools: true, thinking: true, allBranches: true, env: opts.env })
      } catch (err) {
        if (!(err instanceof ClaudeJsonlError)) throw err
        return send(res, 422, problemPage('This transcript cannot be shown', err.message))
      }
      html = renderHtml(shown, { before: sessionHead(s, snap.timezone, shown), anchors: true })
      pages.set(key, html)
    }
    // The conversation page keeps its own policy: its one filter script is allowed by hash.
    const own = /http-equiv="Content-Security-Policy" content="([^"]+)"/.exec(html)
    send(res, 200, html, own ? { 'Content-Security-Policy': own[1] } : {})
  }

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    if (!allowed.has(String(req.headers.host ?? '').toLowerCase()))
      return send(res, 421, problemPage('Wrong host', 'this server answers only to its own address'))
    if (req.method !== 'GET' && req.method !== 'HEAD')
      return send(res, 405, problemPage('Read-only', 'this server only shows pages'), { Allow: 'GET, HEAD' })
    const url = new URL(req.url ?? '/', 'http://localhost')
    const p = url.searchParams
    const path = url.pathname
    if (path === '/') {
      const snap = await model.snapshot()
      const page = Number.parseInt(p.get('page') ?? '1', 10)
      return send(
        res,
        200,
        sessionsPage(snap, {
          q: p.get('q') ?? '',
          project: p.get('project') ?? '',
          page: Number.isFinite(page) ? page : 1,
        }),
      )
    }
    const m = /^\/session\/([^/]+)$/.exec(path)
    if (m) {
      let id: string
      try {
        id = decodeURIComponent(m[1])
      } catch {
        id = ''
      }
      if (!SESSION_ID.test(id)) return send(res, 404, problemPage('No such session', 'that is not a session id'))
      return sessionPage(await model.snapshot(), id, res)
    }
    if (path === '/search') {
      const sq = { q: (p.get('q') ?? '').slice(0, 500), exact: p.get('exact') === '1', project: p.get('project') ?? '' }
      if (!sq.q.trim()) return send(res, 200, searchPage(sq))
      const common = {
        projects: opts.projects,
        env: opts.env,
        limit: 25,
        ...(sq.project ? { project: sq.project } : {}),
      }
      try {
        const snap = await model.snapshot()
        const key = JSON.stringify(sq)
        const known = searches.get(key)
        let report = known?.builtAt === snap.builtAt ? known.report : undefined
        if (!report) {
          report = sq.exact
            ? await findExact(sq.q, common)
            : await find([sq.q], { ...common, ...(opts.indexDir ? { indexDir: opts.indexDir } : {}) })
          if (searches.size >= 64) searches.delete(searches.keys().next().value as string)
          searches.set(key, { builtAt: snap.builtAt, report })
        }
        const titleOf = (id: string) => snap.byId.get(id)?.title ?? null
        return send(res, 200, searchPage(sq, report, undefined, titleOf))
      } catch (err) {
        if (!(err instanceof ClaudeJsonlError)) throw err
        return send(res, 400, searchPage(sq, undefined, err.message))
      }
    }
    if (path === '/usage') {
      const snap = await model.snapshot()
      const uq = { since: p.get('since') ?? '', until: p.get('until') ?? '' }
      try {
        if (uq.since) uq.since = parseDay('since', uq.since)
        if (uq.until) uq.until = parseDay('until', uq.until)
      } catch (err) {
        if (!(err instanceof ClaudeJsonlError)) throw err
        return send(res, 400, usagePage(snap, uq, err.message))
      }
      return send(res, 200, usagePage(snap, uq))
    }
    return send(res, 404, problemPage('Not found', `no page at ${path}`))
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      // A bug must not take the server down, nor show a stack to the browser.
      const line = err instanceof Error ? err.message.split('\n')[0] : String(err)
      if (!res.headersSent) send(res, 500, problemPage('Something went wrong', line))
      else res.destroy()
    })
  })
  // The first snapshot is built before the URL is printed, so the first page is warm.
  await model.refresh()
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(opts.port ?? 0, host, () => {
      server.off('error', reject)
      resolve()
    })
  })
  const port = (server.address() as AddressInfo).port
  allowed = allowedHosts(host, port)
  const shown = host.includes(':') ? `[${host}]` : host
  return {
    url: `http://${shown}:${port}/`,
    host,
    port,
    model,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
