// The web view's own pages: the session list, search results, usage with its plots, and the
// pages for a missing or damaged session. Plain HTML and CSS, no script: every value from a
// transcript goes through escapeHtml, and links are built from ids the server checked.
import { escapeHtml as e } from '../cli/show-parts.js'
import { formatBytes, formatInt, formatUsd, localTime } from '../terminal/format.js'
import { addCell, emptyCell, type EstateSnapshot, type ServedSession, type UsageCell } from './estate-model.js'
import { axisLabel, horizontalBarChart, stackedBarChart, type StackedBar } from './plots.js'
import type { FindExactReport, FindReport } from '../read/find.js'

/** Sessions per page of the list. */
export const PAGE_SIZE = 50

export const CSS = `
:root{--fg:#1d1d1f;--mut:#6e6e73;--bg:#fafafa;--card:#fff;--line:#e3e3e8;--acc:#0b57d0;--mark:#ffe58f}
*{box-sizing:border-box}html,body{max-width:100%;overflow-x:hidden}
body{margin:0;background:var(--bg);color:var(--fg);font:14px/1.5 -apple-system,system-ui,"Segoe UI",sans-serif}
nav.site{display:flex;gap:18px;align-items:center;padding:10px 16px;background:var(--card);border-bottom:1px solid var(--line)}
nav.site b{margin-right:12px}nav.site a{color:var(--fg);text-decoration:none}nav.site a.on{color:var(--acc);font-weight:600}
main.page{max-width:1200px;margin:0 auto;padding:16px}
h1{font-size:20px;margin:8px 0 12px}p.mut,.mut{color:var(--mut)}
form.bar{display:flex;flex-wrap:wrap;gap:8px;align-items:center;margin:8px 0 16px}
form.bar input[type=search],form.bar input[type=text]{flex:1 1 240px;min-width:0;font:inherit;padding:6px 10px;border:1px solid var(--line);border-radius:8px}
form.bar select,form.bar input[type=date],form.bar button{font:inherit;padding:5px 8px;border:1px solid var(--line);border-radius:8px;background:var(--card)}
table.list{width:100%;border-collapse:collapse;table-layout:fixed;background:var(--card);border:1px solid var(--line)}
table.list th,table.list td{padding:6px 8px;border-bottom:1px solid var(--line);text-align:left;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
table.list th{font-weight:600;color:var(--mut);font-size:12px}table.list td.n,table.list th.n{text-align:right}
table.list a{color:var(--acc);text-decoration:none}
.pager{display:flex;gap:12px;margin:12px 0}.pager a{color:var(--acc)}
ol.hits{padding-left:22px}ol.hits li{margin:10px 0}ol.hits .snippet{margin:2px 0;white-space:pre-wrap;word-break:break-word}
mark{background:var(--mark);padding:0 1px}
figure.chart{margin:16px 0;background:var(--card);border:1px solid var(--line);border-radius:10px;padding:10px}
figure.chart figcaption{font-weight:600;margin-bottom:6px}svg.plot{width:100%;height:auto;display:block}
svg .grid{stroke:var(--line)}svg .tick{font-size:12px;fill:var(--mut)}
ul.legend{list-style:none;display:flex;flex-wrap:wrap;gap:12px;padding:0;margin:6px 0 0}
.swatch{display:inline-block;width:10px;height:10px;border-radius:2px;margin-right:5px}
.err{color:#b3261e}
`

/** The page around a body: the site's navigation, `title`, and the body. */
export function layout(title: string, active: 'sessions' | 'search' | 'usage' | '', body: string): string {
  const link = (href: string, name: typeof active, text: string) =>
    `<a href="${href}"${active === name ? ' class="on"' : ''}>${text}</a>`
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1">
<title>${e(title)} · claude-jsonl</title><style>${CSS}</style></head>
<body><nav class="site"><b>claude-jsonl</b>${link('/', 'sessions', 'Sessions')}${link('/search', 'search', 'Search')}${link('/usage', 'usage', 'Usage')}</nav>
<main class="page">${body}</main></body></html>
`
}

/** A query string from the values given (empty ones left out). */
function query(values: Record<string, string | number | undefined>): string {
  const p = new URLSearchParams()
  for (const [k, v] of Object.entries(values)) if (v !== undefined && v !== '') p.set(k, String(v))
  const s = p.toString()
  return s ? `?${s}` : ''
}

/** The link to a session's page (ids are checked by the router before they get here). */
export function sessionHref(id: string, line?: number): string {
  return `/session/${encodeURIComponent(id)}${line !== undefined ? `#line-${line}` : ''}`
}

function costCell(s: { costUsd: number; unpricedRequests: number }): string {
  return formatUsd(s.costUsd) + (s.unpricedRequests > 0 ? '*' : '')
}

/** What the list page is asked for: a text filter, a project folder, a page number. */
export interface ListQuery {
  q: string
  project: string
  page: number
}

/** The sessions matching a list query, most recent first. */
export function filterSessions(snap: EstateSnapshot, lq: ListQuery): ServedSession[] {
  const q = lq.q.trim().toLowerCase()
  return snap.sessions.filter(
    (s) =>
      (!lq.project || s.project === lq.project) &&
      (!q ||
        s.sessionId.toLowerCase().includes(q) ||
        (s.title ?? '').toLowerCase().includes(q) ||
        (s.cwd ?? '').toLowerCase().includes(q) ||
        s.project.toLowerCase().includes(q)),
  )
}

/** `/`: the sessions, newest first, filtered and paged. */
export function sessionsPage(snap: EstateSnapshot, lq: ListQuery): string {
  const all = filterSessions(snap, lq)
  const pages = Math.max(1, Math.ceil(all.length / PAGE_SIZE))
  const page = Math.min(Math.max(1, lq.page), pages)
  const shown = all.slice((page - 1) * PAGE_SIZE, page * PAGE_SIZE)
  const options = snap.projects
    .map((p) => `<option value="${e(p)}"${p === lq.project ? ' selected' : ''}>${e(p)}</option>`)
    .join('')
  const rows = shown
    .map(
      (s) =>
        `<tr data-session="${e(s.sessionId)}"><td>${e(localTime(s.lastActivityMs, snap.timezone))}</td>` +
        `<td><a href="${sessionHref(s.sessionId)}" title="${e(s.title ?? '')}">${e(s.title ?? '(untitled)')}</a><br><span class="mut">${e(s.sessionId)}</span></td>` +
        `<td title="${e(s.cwd ?? s.project)}">${e(s.cwd ?? `(${s.project})`)}</td>` +
        `<td class="n">${e(formatBytes(s.size + s.subagentSize))}</td><td class="n">${e(formatInt(s.requests))}</td>` +
        `<td class="n">${e(costCell(s))}</td></tr>`,
    )
    .join('\n')
  const nav = (to: number, text: string) =>
    `<a href="/${query({ q: lq.q, project: lq.project, page: to === 1 ? undefined : to })}">${text}</a>`
  const pager =
    pages > 1
      ? `<div class="pager">${page > 1 ? nav(page - 1, '← newer') : ''}<span class="mut">page ${page} of ${pages}</span>${page < pages ? nav(page + 1, 'older →') : ''}</div>`
      : ''
  const body = `<h1>Sessions</h1>
<form class="bar" method="get" action="/"><input type="search" name="q" value="${e(lq.q)}" placeholder="Filter by title, cwd, project or id" aria-label="Filter sessions">
<select name="project" aria-label="Project"><option value="">all projects</option>${options}</select><button type="submit">Filter</button></form>
<p class="mut" id="count">${e(`${formatInt(all.length)} of ${formatInt(snap.sessions.length)} sessions · ${formatInt(snap.files)} transcripts, ${formatBytes(snap.bytes)}`)}</p>
<table class="list"><colgroup><col style="width:150px"><col><col style="width:28%"><col style="width:90px"><col style="width:80px"><col style="width:90px"></colgroup>
<thead><tr><th>Last activity</th><th>Title</th><th>cwd</th><th class="n">Size</th><th class="n">Requests</th><th class="n">Cost</th></tr></thead>
<tbody>${rows}</tbody></table>${pager}
${snap.sessions.some((s) => s.unpricedRequests > 0) ? '<p class="mut">*: some requests are of a model the price table does not know; they are in no cost.</p>' : ''}`
  return layout('Sessions', 'sessions', body)
}

/** Text with each (case-insensitive) occurrence of a term wrapped in <mark>, escaped. */
export function markTerms(text: string, terms: string[]): string {
  const wanted = terms.map((t) => t.toLowerCase()).filter((t) => t.length > 0)
  if (wanted.length === 0) return e(text)
  const lower = text.toLowerCase()
  let out = ''
  let at = 0
  while (at < text.length) {
    let best = -1
    let len = 0
    for (const t of wanted) {
      const i = lower.indexOf(t, at)
      if (i >= 0 && (best < 0 || i < best || (i === best && t.length > len))) {
        best = i
        len = t.length
      }
    }
    if (best < 0) break
    out += e(text.slice(at, best)) + `<mark>${e(text.slice(best, best + len))}</mark>`
    at = best + len
  }
  return out + e(text.slice(at))
}

/** What the search page is asked for. */
export interface SearchQuery {
  q: string
  exact: boolean
  project: string
}

/** `/search`: the form, and the hits of a ranked or exact search with their snippets. */
export function searchPage(
  sq: SearchQuery,
  report?: FindReport | FindExactReport,
  error?: string,
  titleOf: (sessionId: string) => string | null = () => null,
): string {
  const form = `<form class="bar" method="get" action="/search"><input type="search" name="q" value="${e(sq.q)}" placeholder="Search what was said" aria-label="Search" autofocus>
<input type="text" name="project" value="${e(sq.project)}" placeholder="project folder contains" aria-label="Project"><label><input type="checkbox" name="exact" value="1"${sq.exact ? ' checked' : ''}> exact</label><button type="submit">Search</button></form>`
  let results = ''
  if (error) results = `<p class="err">${e(error)}</p>`
  else if (report) {
    const terms =
      'terms' in report.query ? [...report.query.terms, ...report.query.phrases.map((p) => p.join(' '))] : []
    const marks = sq.exact ? [sq.q] : terms
    const hits = report.hits
      .map(
        (h) =>
          `<li class="hit"><a href="${sessionHref(h.sessionId, h.agentId ? undefined : h.line)}">${e(titleOf(h.sessionId) ?? h.sessionId)}</a> <span class="mut">${e(h.sessionId)} · ${e(h.project)}${h.timestamp ? ` · ${e(h.timestamp.slice(0, 16).replace('T', ' '))}` : ''} · line ${h.line}${h.agentId ? ` (subagent ${e(h.agentId)})` : ''}</span>` +
          `<p class="snippet">${markTerms(h.snippet, marks)}</p></li>`,
      )
      .join('\n')
    results =
      report.hits.length === 0
        ? '<p class="mut">No session matches.</p>'
        : `<p class="mut">${e(`${formatInt(report.hits.length)} ${report.hits.length === 1 ? 'hit' : 'hits'}`)}</p><ol class="hits">${hits}</ol>`
  }
  return layout(sq.q ? `Search: ${sq.q}` : 'Search', 'search', `<h1>Search</h1>${form}${results}`)
}

/** What the usage page is asked for: a day window (inclusive), either side open. */
export interface UsageQuery {
  since: string
  until: string
}

/** Every calendar day from `first` to `last` (YYYY-MM-DD, inclusive). */
export function calendarDays(first: string, last: string): string[] {
  const out: string[] = []
  for (let t = Date.parse(`${first}T00:00:00Z`); t <= Date.parse(`${last}T00:00:00Z`); t += 86_400_000)
    out.push(new Date(t).toISOString().slice(0, 10))
  return out
}

/** The usage of the days inside the window: per day, per model and per project, and the total. */
export function usageInWindow(snap: EstateSnapshot, uq: UsageQuery) {
  const known = snap.days.filter(
    (d) => d.day !== 'unknown' && (!uq.since || d.day >= uq.since) && (!uq.until || d.day <= uq.until),
  )
  const byDay = new Map(known.map((d) => [d.day, d]))
  const days = known.length ? calendarDays(known[0].day, known[known.length - 1].day) : []
  const models = new Map<string, UsageCell>()
  const projects = new Map<string, UsageCell>()
  const total = emptyCell()
  const perDay = days.map((day) => {
    const d = byDay.get(day)
    const cell = emptyCell()
    for (const [m, c] of d?.byModel ?? []) {
      addCell(cell, c)
      if (!models.has(m)) models.set(m, emptyCell())
      addCell(models.get(m)!, c)
    }
    for (const [p, c] of d?.byProject ?? []) {
      if (!projects.has(p)) projects.set(p, emptyCell())
      addCell(projects.get(p)!, c)
    }
    addCell(total, cell)
    return { day, cell, byModel: d?.byModel ?? new Map<string, UsageCell>() }
  })
  return { perDay, models, projects, total }
}

function usageRow(label: string, c: UsageCell): string {
  return `<tr><td>${e(label)}</td><td class="n">${formatInt(c.requests)}</td><td class="n">${formatInt(c.inputTokens)}</td><td class="n">${formatInt(c.cacheCreationInputTokens)}</td><td class="n">${formatInt(c.cacheReadInputTokens)}</td><td class="n">${formatInt(c.outputTokens)}</td><td class="n">${e(costCell(c))}</td></tr>`
}

function usageTable(first: string, rows: [string, UsageCell][], total: UsageCell, id: string): string {
  return `<table class="list" id="${id}"><colgroup><col style="width:30%"></colgroup><thead><tr><th>${e(first)}</th><th class="n">Requests</th><th class="n">Input</th><th class="n">Cache write</th><th class="n">Cache read</th><th class="n">Output</th><th class="n">Cost (USD)</th></tr></thead><tbody>${rows
    .map(([k, c]) => usageRow(k, c))
    .join('')}</tbody><tfoot>${usageRow('Total', total)}</tfoot></table>`
}

/** `/usage`: cost by day stacked by model, cost by project, and the tables behind them. */
export function usagePage(snap: EstateSnapshot, uq: UsageQuery, error?: string): string {
  const form = `<form class="bar" method="get" action="/usage"><label>since <input type="date" name="since" value="${e(uq.since)}"></label><label>until <input type="date" name="until" value="${e(uq.until)}"></label><button type="submit">Show</button><span class="mut">days in ${e(snap.timezone)}</span></form>`
  if (error) return layout('Usage', 'usage', `<h1>Usage</h1>${form}<p class="err">${e(error)}</p>`)
  const u = usageInWindow(snap, uq)
  const bars: StackedBar[] = u.perDay.map((d) => ({
    label: d.day,
    segments: [...d.byModel].map(([series, c]) => ({ series, value: c.costUsd })),
  }))
  const projectRows = [...u.projects]
    .sort((a, b) => b[1].costUsd - a[1].costUsd || (a[0] < b[0] ? -1 : 1))
    .slice(0, 20)
    .map(([label, c]) => ({ label, value: c.costUsd }))
  const usd = (v: number) => formatUsd(v)
  const modelRows = [...u.models].sort((a, b) => b[1].costUsd - a[1].costUsd)
  const body =
    u.perDay.length === 0
      ? `<h1>Usage</h1>${form}<p class="mut">No request in these days.</p>`
      : `<h1>Usage</h1>${form}
<p class="mut" id="usage-total">${e(`${formatInt(u.total.requests)} requests, ${formatUsd(u.total.costUsd)} over ${formatInt(u.perDay.length)} days (${u.perDay[0].day} to ${u.perDay[u.perDay.length - 1].day})`)}</p>
${stackedBarChart(bars, usd, axisLabel('$'), 'Cost by day, stacked by model (USD)')}
${horizontalBarChart(projectRows, usd, `Cost by project (USD)${u.projects.size > 20 ? ', the 20 largest' : ''}`)}
<h2>By model</h2>${usageTable('Model', modelRows, u.total, 'by-model')}
<h2>By day</h2>${usageTable(
          'Day',
          u.perDay.filter((d) => d.cell.requests > 0).map((d) => [d.day, d.cell]),
          u.total,
          'by-day',
        )}`
  return layout('Usage', 'usage', body)
}

/** A page that says what is wrong, for a missing page or session, or a transcript that cannot be read. */
export function problemPage(title: string, line: string): string {
  return layout(title, '', `<h1>${e(title)}</h1><p class="err">${e(line)}</p><p><a href="/">All sessions</a></p>`)
}
