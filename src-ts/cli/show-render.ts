// Renderings of a ShowResult: plain text, markdown and JSON here; the HTML page in show-html.ts.
import type { ShowResult } from '../read/show.js'
import { count } from '../terminal/format.js'
import { renderHtml } from './show-html.js'
import { escapeHtml, firstLines, header, target, turnTitle } from './show-parts.js'

export { escapeHtml, renderHtml }

/** The forms `renderShow` writes a conversation in: plain text, Markdown, JSON, or one HTML page. */
export type ShowFormat = 'text' | 'markdown' | 'json' | 'html'

function indent(text: string, pre: string): string {
  return text
    .split('\n')
    .map((l) => pre + l)
    .join('\n')
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
            `══ Compacted${x.trigger ? ` (${x.trigger})` : ''}${x.preTokens !== undefined ? `: ${count(x.preTokens, 'token')} before` : ''} ══`,
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
            `**Compacted**${x.trigger ? ` (${x.trigger})` : ''}${x.preTokens !== undefined ? `, ${count(x.preTokens, 'token')} before` : ''}`,
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

/** Writes a conversation read by `showSession` in the given form (the output of `claude-jsonl show`). */
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
