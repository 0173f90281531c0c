// `claude-jsonl doctor`: renders a DoctorReport.
import type { DoctorReport } from '../read/doctor.js'
import { formatInt, renderTable } from './table.js'

export function renderDoctor(r: DoctorReport): string {
  const out: string[] = []
  const t = r.totals
  out.push(`${formatInt(t.files)} files, ${formatInt(t.lines)} lines, ${formatInt(t.records)} records`)
  out.push(`bad JSON lines: ${formatInt(t.badJsonLines)}, non-object lines: ${formatInt(t.nonObjectLines)}, lone-surrogate lines: ${formatInt(t.loneSurrogateLines)}`)
  out.push(
    `assistant entries: ${formatInt(t.assistantEntries)} → ${formatInt(t.distinctRequests)} requests (${formatInt(t.duplicatesCollapsed)} duplicates collapsed); requests with stop_reason null throughout: ${formatInt(t.nullStopGroups)}`,
  )
  out.push('')
  out.push(renderTable([{ header: 'Record type' }, { header: 'Count', align: 'right' }, { header: 'Note' }], r.types.map((x) => [x.name || '(no type)', formatInt(x.count), x.known ? '' : 'unknown'])))
  const withFindings = r.files.filter((f) => f.findings.length > 0)
  if (withFindings.length > 0) out.push('')
  for (const f of withFindings) {
    out.push(f.path)
    for (const x of f.findings) out.push(`  ${x.severity === 'flag' ? 'FLAG' : 'info'} ${x.code}: ${x.message}`)
  }
  out.push('')
  out.push(r.clean ? 'No problems flagged.' : `${formatInt(r.flagged)} of ${formatInt(t.files)} files flagged.`)
  return out.join('\n')
}
