// The text report of `claude-jsonl validate`.
import type { ValidationReport } from '../read/validate.js'

/** The text report: a verdict line, then one line per finding. */
export function renderValidation(v: ValidationReport): string {
  const c = v.counts
  const verdict = v.valid ? 'valid' : `INVALID (${v.errors} error${v.errors === 1 ? '' : 's'})`
  const warn = v.warnings > 0 ? `, ${v.warnings} warning${v.warnings === 1 ? '' : 's'}` : ''
  const out = [
    `${v.path}: ${verdict}${warn}`,
    `  leaf line ${v.leaf.line ?? '-'} (${v.leaf.rule}, pointer ${v.leaf.pointer}); ${c.records} records, ${c.chainRecords} on the active chain, ${c.apiMessages} API messages, ${c.toolUses} tool calls, ${c.compactBoundaries} compact boundaries`,
  ]
  for (const f of v.findings) {
    const lines = f.lines.length > 0 ? ` [line${f.lines.length > 1 ? 's' : ''} ${f.lines.join(',')}]` : ''
    out.push(`  ${f.severity} ${f.code}${lines}: ${f.message}`)
  }
  return out.join('\n')
}
