// Renderings of a ShowResult: plain text, markdown and JSON here; the HTML page in show-html.ts.
import type { Item, ShowResult, Turn } from './show.js'
import { formatInt, formatTokensCompact } from '../cli/table.js'
import { renderHtml } from './show-html.js'

export { renderHtml }

export type ShowFormat = 'text' | 'markdown' | 'json' | 'html'

export function tokensLine(t: Turn): string {
  const k = t.tokens
  if (t.requests.length === 0) return ''
  const input = k.inputTokens + k.cacheCreationInputTokens + k.cacheReadInputTokens
  return `${formatInt(t.requests.length)} request${t.requests.length === 1 ? '' : 's'}, ${formatTokensCompact(input)} in, ${formatTokensCompact(k.outputTokens)} out`
}

function when(ts: string | undefined): string {
  return ts ? ts.replace('T', ' ').replace(/\.\d+Z$/, 'Z') : ''
}

export function turnTitle(t: Turn): string {
  const parts = [
    t.branch
      ? `Branch turn ${t.index} (off the active chain${t.branch.forkLine ? `, forks after line ${t.branch.forkLine}` : ''})`
      : `Turn ${t.index}`,
  ]
  if (t.startedAt) parts.push(when(t.startedAt))
  if (t.durationMs !== undefined && t.durationMs > 0) parts.push(duration(t.durationMs))
  const tok = tokensLine(t)
  if (tok) parts.push(tok)
  return parts.join(' · ')
}

export function duration(ms: number): string {
  if (ms < 1000) return `${ms} ms`
  const s = Math.round(ms / 1000)
  if (s < 60) return `${s}s`
  const m = Math.floor(s / 60)
  if (m < 60) return `${m}m ${String(s % 60).padStart(2, '0')}s`
  return `${Math.floor(m / 60)}h ${String(m % 60).padStart(2, '0')}m`
}

export function header(r: ShowResult): string[] {
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

export function target(x: Extract<Item, { kind: 'tool-call' }>): string {
  return x.target ? x.target.value.replace(/\s*\n\s*/g, ' ⏎ ') : ''
}

export function firstLines(text: string, n: number): string {
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
