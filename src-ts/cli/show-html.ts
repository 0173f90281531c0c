// One self-contained HTML page for a ShowResult: human and assistant Markdown rendered with
// raw HTML disabled, code blocks highlighted at render time (only the theme's CSS is inlined),
// tool calls and results collapsible, a list of turns and a filter box. Safety does not rest
// on escaping alone: the page's Content-Security-Policy allows no source of anything except the
// inline style and the one inline script, named by its hash.
//
// markdown-it and highlight.js are required on the first page rendered, never at start-up, so
// the other commands and formats do not pay for them.
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import type markdownItFactory from 'markdown-it'
import type { MarkdownIt } from 'markdown-it'
import type { HLJSApi, LanguageFn } from 'highlight.js'
import type { Item, ShowResult, Turn } from '../read/show.js'
import {
  clientMarkup,
  clientMarkupLine,
  escapeHtml,
  firstLines,
  header,
  target,
  tokensLine,
  turnTitle,
  type ClientMarkup,
} from './show-parts.js'
import { count } from '../terminal/format.js'

const require = createRequire(import.meta.url)

/** The languages highlighted (by fence name and highlight.js's aliases); other fences stay plain. */
export const LANGUAGES = ['bash', 'javascript', 'typescript', 'json', 'python', 'rust', 'diff', 'xml', 'css', 'yaml']

/** URL schemes a rendered link may carry; no scheme (a relative or #fragment link) is fine too. */
const SAFE_SCHEMES = new Set(['http', 'https', 'mailto'])

/** Whether a link from transcript text may become an href: never javascript:, vbscript:, data:, file:. */
export function safeLink(url: string): boolean {
  // markdown-it percent-encodes a link before checking it, and browsers ignore ASCII whitespace
  // and control characters inside a scheme ("java%09script:"): judge what a browser would see.
  let decoded = url
  try {
    decoded = decodeURIComponent(url)
  } catch {
    // A stray % is kept as it is.
  }
  const plain = decoded.replace(/[\u0000-\u0020\u007f]/g, '').toLowerCase()
  const scheme = /^([a-z][a-z0-9+.-]*):/.exec(plain)
  return !scheme || SAFE_SCHEMES.has(scheme[1])
}

interface Renderers {
  /** Assistant text: Markdown as written. */
  assistant: MarkdownIt
  /** Human text: a newline is a line break, as it was typed. */
  human: MarkdownIt
  css: string
}

let loaded: Renderers | undefined

function renderers(): Renderers {
  if (loaded) return loaded
  const markdownIt = require('markdown-it') as typeof markdownItFactory
  const hljs = require('highlight.js/lib/core') as HLJSApi
  for (const name of LANGUAGES)
    if (!hljs.getLanguage(name))
      hljs.registerLanguage(name, require(`highlight.js/lib/languages/${name}`) as LanguageFn)
  hljs.registerAliases(['shell', 'console', 'zsh'], { languageName: 'bash' })
  const make = (breaks: boolean): MarkdownIt => {
    const md = markdownIt('default', {
      html: false,
      linkify: false,
      breaks,
      highlight: (code, lang) => {
        const language = lang && hljs.getLanguage(lang) ? lang : undefined
        if (!language) return ''
        const html = hljs.highlight(code, { language, ignoreIllegals: true }).value
        return `<pre class="hljs"><code class="language-${escapeHtml(language)}">${html}</code></pre>`
      },
    })
    md.validateLink = safeLink
    // Images in transcript text become links: the page never loads anything.
    md.renderer.rules.image = (tokens, idx, options, env, self) => {
      const t = tokens[idx]
      const alt = self.renderInlineAsText(t.children ?? [], options, env)
      return `<a class="image" href="${escapeHtml(String(t.attrGet('src') ?? ''))}" rel="noopener noreferrer">[image${alt ? `: ${escapeHtml(alt)}` : ''}]</a>`
    }
    md.renderer.rules.link_open = (tokens, idx, options, _env, self) => {
      tokens[idx].attrSet('rel', 'noopener noreferrer')
      return self.renderToken(tokens, idx, options)
    }
    return md
  }
  const theme = readFileSync(require.resolve('highlight.js/styles/github.min.css'), 'utf8')
  loaded = { assistant: make(false), human: make(true), css: theme }
  return loaded
}

const CSS = `
:root{--fg:#1d1d1f;--mut:#6e6e73;--bg:#fafafa;--card:#fff;--line:#e3e3e8;--hum:#eef5ff;--tool:#f5f5f7;--err:#b3261e;--br:#fff7e6}
*{box-sizing:border-box}body{overflow-wrap:anywhere;margin:0;background:var(--bg);color:var(--fg);font:15px/1.5 -apple-system,system-ui,"Segoe UI",sans-serif}
main{max-width:920px;margin:0 auto;padding:24px 16px 64px}
header h1{font-size:20px;margin:0 0 4px}header p{margin:2px 0;color:var(--mut);font-size:13px}
nav.turns{margin:12px 0;font-size:13px}nav.turns ol{margin:4px 0;padding-left:22px;max-height:220px;overflow:auto}
nav.turns a{color:var(--fg);text-decoration:none}nav.turns a:hover{text-decoration:underline}
.filter{display:flex;gap:8px;align-items:center;margin:12px 0}.filter input{flex:1;font:inherit;padding:6px 10px;border:1px solid var(--line);border-radius:8px}
.filter span{color:var(--mut);font-size:13px}
section.turn{background:var(--card);border:1px solid var(--line);border-radius:10px;margin:18px 0;padding:12px 16px}
section.branch{background:var(--br);border-style:dashed}[hidden]{display:none!important}
h2{font-size:13px;font-weight:600;color:var(--mut);margin:0 0 8px}
.human{background:var(--hum);border-radius:8px;padding:2px 12px;margin:8px 0}
.assistant{margin:8px 0}
.md p{margin:8px 0}.md h1,.md h2,.md h3,.md h4{color:var(--fg);font-size:16px;margin:14px 0 6px}.md h1{font-size:18px}
.md code{background:var(--tool);border-radius:4px;padding:1px 4px;font:13px ui-monospace,Menlo,Consolas,monospace}
.md pre code{background:none;padding:0}.md blockquote{margin:8px 0;padding-left:10px;border-left:3px solid var(--line);color:var(--mut)}
.md table{border-collapse:collapse}.md th,.md td{border:1px solid var(--line);padding:3px 8px}
details{margin:4px 0;border-left:3px solid var(--line);padding-left:8px}
summary{cursor:pointer;color:var(--mut);font-size:13px}
details.tool>summary{color:var(--fg);font-family:ui-monospace,Menlo,Consolas,monospace}
pre{background:var(--tool);border-radius:6px;padding:8px;overflow:auto;white-space:pre-wrap;word-break:break-word;font:12px/1.45 ui-monospace,Menlo,Consolas,monospace;margin:4px 0}
pre.hljs{padding:8px}
.err>summary{color:var(--err)}
.compaction{border-top:2px dashed var(--mut);border-bottom:2px dashed var(--mut);margin:10px 0;padding:6px 0;color:var(--mut)}
.corrupt{color:var(--err);font-weight:600}
.meta{color:var(--mut);font-size:13px}
.command{color:var(--mut);font-size:13px;margin:8px 0}.task>summary{color:var(--mut);font-size:13px}
.md table{display:block;max-width:100%;overflow-x:auto}img,pre,table{max-width:100%}
.tokens{color:var(--mut);font-size:12px;margin-top:8px}
`

/**
 * The filter box: hides turns (and their entries in the list) whose text lacks what was typed;
 * `?q=TEXT` in the page's address fills it in.
 */
const SCRIPT = `(()=>{const q=document.getElementById('filter'),n=document.getElementById('shown'),
turns=[...document.querySelectorAll('section.turn')],items=[...document.querySelectorAll('nav.turns li')];
const apply=()=>{const v=q.value.trim().toLowerCase();let k=0;turns.forEach((s,i)=>{const on=!v||s.textContent.toLowerCase().includes(v);
s.hidden=!on;if(items[i])items[i].hidden=!on;k+=on?1:0});n.textContent=v?k+' of '+turns.length+' turns':''};
q.addEventListener('input',apply);const p=new URLSearchParams(location.search).get('q');if(p){q.value=p;apply()}})()`

/** The script's hash for the page's CSP: node:crypto is loaded only to write a page (it loads the
 * stream modules, a few milliseconds that `show` in text would pay at start-up). */
const scriptHash = () =>
  (require('node:crypto') as typeof import('node:crypto')).createHash('sha256').update(SCRIPT).digest('base64')

/** A slash command or a background-task notice, shown as what it is instead of its tags. */
function htmlMarkup(m: ClientMarkup, line: number): string {
  const e = escapeHtml
  if (m.kind === 'command')
    return `<div class="command" data-line="${line}">slash command <code>${e(m.name)}</code>${m.args ? ` ${e(m.args)}` : ''}</div>`
  return `<details class="task" data-line="${line}"><summary>${e(clientMarkupLine(m))}</summary>${m.result ? `<pre>${e(m.result)}</pre>` : ''}</details>`
}

function htmlItem(x: Item, r: Renderers, anchors: boolean): string {
  const html = htmlItemBody(x, r)
  // With anchors, each item can be linked to by its line (`#line-N`), as search hits are.
  return anchors ? `<div class="at" id="line-${x.line}">${html}</div>` : html
}

function htmlItemBody(x: Item, r: Renderers): string {
  const e = escapeHtml
  const markup = (x.kind === 'human' || x.kind === 'meta') && clientMarkup(x.text)
  if (markup) return htmlMarkup(markup, 'line' in x ? (x.line as number) : 0)
  switch (x.kind) {
    case 'human':
      return `<div class="human md" data-line="${x.line}">${r.human.render(x.text)}</div>`
    case 'assistant':
      return `<div class="assistant md" data-line="${x.line}">${r.assistant.render(x.text)}</div>`
    case 'thinking':
      return `<details class="thinking"><summary>thinking</summary><pre>${e(x.text)}</pre></details>`
    case 'meta':
      return `<details class="meta"><summary>meta: ${e(firstLines(x.text, 1).slice(0, 120))}</summary><pre>${e(x.text)}</pre></details>`
    case 'tool-call':
      return `<details class="tool" data-tool-id="${e(x.id)}"><summary>${e(x.name)}${x.target ? `: <span class="target" title="${e(x.target.kind)}">${e(target(x))}</span>` : ''}</summary><pre>${e(x.input)}</pre></details>`
    case 'tool-result':
      return `<details class="result${x.isError ? ' err' : ''}" data-tool-use-id="${e(x.toolUseId)}"><summary>${x.isError ? 'error' : 'result'}${x.name ? ` of ${e(x.name)}` : ''}${x.truncated ? ' (truncated)' : ''}</summary><pre>${e(x.text)}</pre></details>`
    case 'compaction':
      return `<div class="compaction">Compacted${x.trigger ? ` (${e(x.trigger)})` : ''}${x.preTokens !== undefined ? `: ${count(x.preTokens, 'token')} before` : ''}${x.summary ? `<details><summary>summary</summary><pre>${e(x.summary)}</pre></details>` : ''}</div>`
    case 'corrupt':
      return `<div class="corrupt">line ${x.line}: ${e(x.problem)}</div>`
  }
}

/** A turn's entry in the list: its number and the start of its first human or assistant text. */
function turnLabel(t: Turn): string {
  const said = t.items.find((x) => x.kind === 'human') ?? t.items.find((x) => x.kind === 'assistant')
  const markup = said?.kind === 'human' ? clientMarkup(said.text) : undefined
  const raw = markup ? clientMarkupLine(markup) : said && 'text' in said ? said.text : ''
  const text = raw.replace(/\s+/g, ' ').trim()
  const head = `${t.branch ? 'Branch turn' : 'Turn'} ${t.index}`
  return text ? `${head}: ${text.length > 80 ? text.slice(0, 79) + '…' : text}` : head
}

/** What a page embedding the conversation adds to it. */
export interface HtmlPageOptions {
  /** HTML put first in the page's main column (navigation, a summary); trusted, not escaped. */
  before?: string
  /** Give each item an id from its line (`line-N`), so a link can point at it. */
  anchors?: boolean
}

/** One self-contained page: inline CSS and one inline script (allowed by its hash), no network. */
export function renderHtml(r: ShowResult, page: HtmlPageOptions = {}): string {
  const e = escapeHtml
  const md = renderers()
  const body = r.turns
    .map((t, i) => {
      const tok = tokensLine(t)
      return `<section class="turn${t.branch ? ' branch' : ''}" id="turn-${i + 1}"><h2>${e(turnTitle(t))}</h2>\n${t.items.map((x) => htmlItem(x, md, page.anchors === true)).join('\n')}${tok ? `\n<div class="tokens">${e(tok)}${t.models.length ? ` · ${e(t.models.join(', '))}` : ''}</div>` : ''}</section>`
    })
    .join('\n')
  const list = r.turns.map((t, i) => `<li><a href="#turn-${i + 1}">${e(turnLabel(t))}</a></li>`).join('')
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'sha256-${scriptHash()}'; base-uri 'none'; form-action 'none'">
<meta name="viewport" content="width=device-width,initial-scale=1">
<title>${e(`Session ${r.sessionId}`)}</title>
<style>${CSS}${md.css}pre.hljs{background:var(--tool)}</style></head>
<body><main>
${page.before ?? ''}<header><h1>${e(`Session ${r.sessionId}`)}</h1>${header(r)
    .slice(1)
    .map((l) => `<p>${e(l)}</p>`)
    .join('')}<p>${e(r.path)}</p></header>
<nav class="turns"><details${r.turns.length <= 30 ? ' open' : ''}><summary>${count(r.turns.length, 'turn')}</summary><ol>${list}</ol></details></nav>
<div class="filter"><input id="filter" type="search" placeholder="Filter turns by text" aria-label="Filter turns by text"><span id="shown"></span></div>
${body}
</main><script>${SCRIPT}</script></body></html>
`
}
