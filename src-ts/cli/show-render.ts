// Renderings of a ShowResult: plain text, markdown and one self-contained HTML page.
import type { Item, ShowResult, Turn } from '../read/show.js'
import { formatDuration, formatInt, formatTimestamp, formatTokensCompact } from '../terminal/format.js'

export type ShowFormat = 'text' | 'markdown' | 'json' | 'html'

function tokensLine(t: Turn): string {
  const k = t.tokens
  if (t.requests.length === 0) return ''
  const input = k.inputTokens + k.cacheCreationInputTokens + k.cacheReadInputTokens
  return `${formatInt(t.requests.length)} request${t.requests.length === 1 ? '' : 's'}, ${formatTokensCompact(input)} in, ${formatTokensCompact(k.outputTokens)} out`
}

function turnTitle(t: Turn): string {
  const parts = [
    t.branch
      ? `Branch turn ${t.index} (off the active chain${t.branch.forkLine ? `, forks after line ${t.branch.forkLine}` : ''})`
      : `Turn ${t.index}`,
  ]
  if (t.startedAt) parts.push(formatTimestamp(t.startedAt))
  if (t.durationMs !== undefined && t.durationMs > 0) parts.push(formatDuration(t.durationMs))
  const tok = tokensLine(t)
  if (tok) parts.push(tok)
  return parts.join(' · ')
}

function header(r: ShowResult): string[] {
  const ptr =
    r.leaf.pointer === 'absent' ? 'no last-prompt' : `last-prompt at line ${r.leaf.pointerLine}: ${r.leaf.pointer}`
  const lines = [
    `Session ${r.sessionId} (${r.path})`,
    `Leaf: line ${r.leaf.line} by ${r.leaf.rule} (${ptr}); ${formatInt(r.chainRecords)} of ${formatInt(r.records)} records on the active chain`,
  ]
  if (r.omittedTurns > 0) lines.push(`${formatInt(r.omittedTurns)} earlier turns not shown`)
  if (r.corruptLines > 0)
    lines.push(`${formatInt(r.corruptLines)} corrupt line${r.corruptLines === 1 ? '' : 's'} skipped`)
  return lines
}

function indent(text: string, pre: string): string {
  return text
    .split('\n')
    .map((l) => pre + l)
    .join('\n')
}

function target(x: Extract<Item, { kind: 'tool-call' }>): string {
  return x.target ? x.target.value.replace(/\s*\n\s*/g, ' ⏎ ') : ''
}

function firstLines(text: string, n: number): string {
  const lines = text.split('\n')
  return lines.slice(0, n).join('\n') + (lines.length > n ? `\n… (${lines.length - n} more lines)` : '')
}

export function renderText(r: ShowResult): string {
  const out = header(r)
  for (const t of r.turns) {
    out.push('', `── ${turnTitle(t)} ──`)
    for (const x of t.items) {
      switch (x.kind) {
        case 'human':
          out.push(indent(x.text, '> '))
          break
        case 'assistant':
          out.push(x.text)
          break
        case 'thinking':
          out.push(indent(x.text, '  ∴ '))
          break
        case 'meta':
          out.push(`  [meta] ${firstLines(x.text, 1)}`)
          break
        case 'tool-call':
          out.push(`  ⏺ ${x.name}${x.target ? `: ${target(x)}` : ''}`)
          break
        case 'tool-result':
          out.push(indent(firstLines(x.text, 3) + (x.truncated ? ' …' : ''), x.isError ? '    ⎿ ✗ ' : '    ⎿ '))
          break
        case 'compaction':
          out.push(
            `══ Compacted${x.trigger ? ` (${x.trigger})` : ''}${x.preTokens !== undefined ? `: ${formatInt(x.preTokens)} tokens before` : ''} ══`,
          )
          if (x.summary) out.push(indent(firstLines(x.summary, 3), '  '))
          break
        case 'corrupt':
          out.push(`!! line ${x.line}: ${x.problem}`)
          break
      }
    }
  }
  return out.join('\n')
}

function fence(text: string): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length))
  const f = '`'.repeat(longest + 1)
  return `${f}\n${text}\n${f}`
}

export function renderMarkdown(r: ShowResult): string {
  const h = header(r)
  const out = [`# Session ${r.sessionId}`, '', ...h.slice(1).map((l) => `- ${l}`)]
  for (const t of r.turns) {
    out.push('', `## ${turnTitle(t)}`, '')
    for (const x of t.items) {
      switch (x.kind) {
        case 'human':
          out.push(indent(x.text, '> '), '')
          break
        case 'assistant':
          out.push(x.text, '')
          break
        case 'thinking':
          out.push('<details><summary>thinking</summary>', '', fence(x.text), '', '</details>', '')
          break
        case 'meta':
          out.push(`*meta:* ${firstLines(x.text, 1).replace(/[<>]/g, (c) => (c === '<' ? '&lt;' : '&gt;'))}`, '')
          break
        case 'tool-call':
          out.push(`- **${x.name}**${x.target ? ` ${x.target.kind}: \`${target(x).replace(/`/g, "'")}\`` : ''}`)
          break
        case 'tool-result':
          out.push('', fence(x.text + (x.truncated ? '\n…' : '')), '')
          break
        case 'compaction':
          out.push(
            `---`,
            '',
            `**Compacted**${x.trigger ? ` (${x.trigger})` : ''}${x.preTokens !== undefined ? `, ${formatInt(x.preTokens)} tokens before` : ''}`,
            '',
          )
          if (x.summary) out.push('<details><summary>summary</summary>', '', fence(x.summary), '', '</details>', '')
          break
        case 'corrupt':
          out.push(`> **line ${x.line}: ${x.problem}**`, '')
          break
      }
    }
  }
  return out.join('\n')
}

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!)
}

const CSS = `
:root{--fg:#1d1d1f;--mut:#6e6e73;--bg:#fafafa;--card:#fff;--line:#e3e3e8;--hum:#eef5ff;--tool:#f5f5f7;--err:#b3261e;--br:#fff7e6}
*{box-sizing:border-box}body{margin:0;background:var(--bg);color:var(--fg);font:15px/1.5 -apple-system,system-ui,"Segoe UI",sans-serif}
main{max-width:920px;margin:0 auto;padding:24px 16px 64px}
header h1{font-size:20px;margin:0 0 4px}header p{margin:2px 0;color:var(--mut);font-size:13px}
section.turn{background:var(--card);border:1px solid var(--line);border-radius:10px;margin:18px 0;padding:12px 16px}
section.branch{background:var(--br);border-style:dashed}
h2{font-size:13px;font-weight:600;color:var(--mut);margin:0 0 8px}
.human{background:var(--hum);border-radius:8px;padding:8px 12px;white-space:pre-wrap;margin:8px 0}
.assistant{white-space:pre-wrap;margin:8px 0}
details{margin:4px 0;border-left:3px solid var(--line);padding-left:8px}
summary{cursor:pointer;color:var(--mut);font-size:13px}
details.tool>summary{color:var(--fg);font-family:ui-monospace,Menlo,Consolas,monospace}
pre{background:var(--tool);border-radius:6px;padding:8px;overflow:auto;white-space:pre-wrap;word-break:break-word;font:12px/1.45 ui-monospace,Menlo,Consolas,monospace;margin:4px 0}
.err>summary{color:var(--err)}
.compaction{border-top:2px dashed var(--mut);border-bottom:2px dashed var(--mut);margin:10px 0;padding:6px 0;color:var(--mut)}
.corrupt{color:var(--err);font-weight:600}
.meta{color:var(--mut);font-size:13px}
.tokens{color:var(--mut);font-size:12px;margin-top:8px}
`

function htmlItem(x: Item): string {
  const e = escapeHtml
  switch (x.kind) {
    case 'human':
      return `<div class="human" data-line="${x.line}">${e(x.text)}</div>`
    case 'assistant':
      return `<div class="assistant" data-line="${x.line}">${e(x.text)}</div>`
    case 'thinking':
      return `<details class="thinking"><summary>thinking</summary><pre>${e(x.text)}</pre></details>`
    case 'meta':
      return `<details class="meta"><summary>meta: ${e(firstLines(x.text, 1).slice(0, 120))}</summary><pre>${e(x.text)}</pre></details>`
    case 'tool-call':
      return `<details class="tool" data-tool-id="${e(x.id)}"><summary>${e(x.name)}${x.target ? ` <span class="target">${e(x.target.kind)}: ${e(target(x))}</span>` : ''}</summary><pre>${e(x.input)}</pre></details>`
    case 'tool-result':
      return `<details class="result${x.isError ? ' err' : ''}" data-tool-use-id="${e(x.toolUseId)}"><summary>${x.isError ? 'error' : 'result'}${x.name ? ` of ${e(x.name)}` : ''}${x.truncated ? ' (truncated)' : ''}</summary><pre>${e(x.text)}</pre></details>`
    case 'compaction':
      return `<div class="compaction">Compacted${x.trigger ? ` (${e(x.trigger)})` : ''}${x.preTokens !== undefined ? `: ${formatInt(x.preTokens)} tokens before` : ''}${x.summary ? `<details><summary>summary</summary><pre>${e(x.summary)}</pre></details>` : ''}</div>`
    case 'corrupt':
      return `<div class="corrupt">line ${x.line}: ${e(x.problem)}</div>`
  }
}

/** One self-contained page: inline CSS, no script, no network, every text escaped. */
export function renderHtml(r: ShowResult): string {
  const e = escapeHtml
  const body = r.turns
    .map((t) => {
      const tok = tokensLine(t)
      return `<section class="turn${t.branch ? ' branch' : ''}"><h2>${e(turnTitle(t))}</h2>\n${t.items.map(htmlItem).join('\n')}${tok ? `\n<div class="tokens">${e(tok)}${t.models.length ? ` · ${e(t.models.join(', '))}` : ''}</div>` : ''}</section>`
    })
    .join('\n')
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width,initial-scale=1">
<title>${e(`Session ${r.sessionId}`)}</title>
<style>${CSS}</style></head>
<body><main>
<header><h1>${e(`Session ${r.sessionId}`)}</h1>${header(r)
    .slice(1)
    .map((l) => `<p>${e(l)}</p>`)
    .join('')}<p>${e(r.path)}</p></header>
${body}
</main></body></html>
`
}

export function renderShow(r: ShowResult, format: ShowFormat): string {
  switch (format) {
    case 'json':
      return JSON.stringify(r, null, 2)
    case 'markdown':
      return renderMarkdown(r)
    case 'html':
      return renderHtml(r)
    default:
      return renderText(r)
  }
}
