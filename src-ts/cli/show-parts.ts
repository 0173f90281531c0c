// Pieces every rendering of a ShowResult shares: a turn's title and token line, the session
// header, a tool call's target, the first lines of a text, HTML escaping.
import type { Item, ShowResult, Turn } from '../read/show.js'
import { formatDuration, formatInt, formatTimestamp, formatTokensCompact, count } from '../terminal/format.js'

export function tokensLine(t: Turn): string {
  const k = t.tokens
  if (t.requests.length === 0) return ''
  const input = k.inputTokens + k.cacheCreationInputTokens + k.cacheReadInputTokens
  return `${count(t.requests.length, 'request')}, ${formatTokensCompact(input)} in, ${formatTokensCompact(k.outputTokens)} out`
}

export function turnTitle(t: Turn): string {
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

export function header(r: ShowResult): string[] {
  const ptr =
    r.leaf.pointer === 'absent' ? 'no last-prompt' : `last-prompt at line ${r.leaf.pointerLine}: ${r.leaf.pointer}`
  const lines = [
    `Session ${r.sessionId} (${r.path})`,
    `Leaf: line ${r.leaf.line} by ${r.leaf.rule} (${ptr}); ${formatInt(r.chainRecords)} of ${count(r.records, 'record')} on the active chain`,
  ]
  if (r.omittedTurns > 0) lines.push(`${formatInt(r.omittedTurns)} earlier turns not shown`)
  if (r.corruptLines > 0) lines.push(`${count(r.corruptLines, 'corrupt line')} skipped`)
  return lines
}

export function target(x: Extract<Item, { kind: 'tool-call' }>): string {
  return x.target ? x.target.value.replace(/\s*\n\s*/g, ' ⏎ ') : ''
}

export function firstLines(text: string, n: number): string {
  const lines = text.split('\n')
  return lines.slice(0, n).join('\n') + (lines.length > n ? `\n… (${lines.length - n} more lines)` : '')
}

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!)
}

/** What the client's own markup in a user message stands for: a slash command it ran, or the
 * notice of a background task (a subagent or a shell) that finished. */
export type ClientMarkup =
  { kind: 'command'; name: string; args: string } | { kind: 'task'; status: string; summary: string; result: string }

const tag = (text: string, name: string): string | undefined => {
  const m = new RegExp(`<${name}>([\\s\\S]*?)</${name}>`).exec(text)
  return m ? m[1].trim() : undefined
}

/** The client writes these tag texts entity-escaped (&amp;, &lt;...). */
const unescapeTags = (s: string) =>
  s.replace(/&(amp|lt|gt|quot|#39);/g, (_, x: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" })[x]!)

/** The client markup `text` consists of (a slash command or a task notification), if any. */
export function clientMarkup(text: string): ClientMarkup | undefined {
  const t = text.trim()
  if (t.startsWith('<task-notification>')) {
    return {
      kind: 'task',
      status: unescapeTags(tag(t, 'status') ?? ''),
      summary: unescapeTags(tag(t, 'summary') ?? ''),
      result: unescapeTags(tag(t, 'result') ?? ''),
    }
  }
  const name = tag(t, 'command-name')
  if (name !== undefined && /^<command-(name|message|args)>/.test(t)) {
    const slash = name.startsWith('/') ? name : `/${name}`
    return { kind: 'command', name: unescapeTags(slash), args: unescapeTags(tag(t, 'command-args') ?? '') }
  }
  return undefined
}

/** A client markup as one line: "/review src", "background task completed: Agent … completed". */
export function clientMarkupLine(m: ClientMarkup): string {
  if (m.kind === 'command') return `slash command ${m.name}${m.args ? ` ${m.args}` : ''}`
  return `background task${m.status ? ` ${m.status}` : ''}${m.summary ? `: ${m.summary}` : ''}`
}
