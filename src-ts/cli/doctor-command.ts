// `claude-jsonl doctor [PATH...]`: what is wrong with the estate's transcripts (bad lines, unknown
// record types, a dedupe key that stopped matching...), flagged files first.
import { doctor, type DoctorReport } from '../read/doctor.js'
import { EXIT } from '../errors.js'
import { withProgress } from '../terminal/progress.js'
import { defineCommand, flag } from './command.js'
import { JSON_OUTPUT, PROJECTS, ARCHIVE_STATE } from './common-options.js'
import { formatInt, count } from '../terminal/format.js'
import { renderTable } from '../terminal/table.js'

export function renderDoctor(r: DoctorReport, opts: { verbose?: boolean } = {}): string {
  const out: string[] = []
  const t = r.totals
  out.push(`${count(t.files, 'file')}, ${count(t.lines, 'line')}, ${count(t.records, 'record')}`)
  out.push(
    `bad JSON lines: ${formatInt(t.badJsonLines)}, non-object lines: ${formatInt(t.nonObjectLines)}, lone-surrogate lines: ${formatInt(t.loneSurrogateLines)}`,
  )
  out.push(
    `assistant entries: ${formatInt(t.assistantEntries)} → ${count(t.distinctRequests, 'request')} (${count(t.duplicatesCollapsed, 'duplicate')} collapsed); requests with stop_reason null throughout: ${formatInt(t.nullStopGroups)}`,
  )
  out.push('')
  out.push(
    renderTable(
      [{ header: 'Record type' }, { header: 'Count', align: 'right' }, { header: 'Note' }],
      r.types.map((x) => [x.name || '(no type)', formatInt(x.count), x.known ? '' : 'unknown']),
    ),
  )
  // Flagged files in full; informational findings summarised per kind unless --verbose.
  const shown = r.files.filter((f) =>
    opts.verbose ? f.findings.length > 0 : f.findings.some((x) => x.severity === 'flag'),
  )
  if (shown.length > 0) out.push('')
  for (const f of shown) {
    out.push(f.path)
    for (const x of f.findings) out.push(`  ${x.severity === 'flag' ? 'FLAG' : 'info'} ${x.code}: ${x.message}`)
  }
  if (!opts.verbose) {
    const info = new Map<string, { files: number; example: string }>()
    for (const f of r.files) {
      if (f.findings.some((x) => x.severity === 'flag')) continue
      for (const x of f.findings) {
        const k = info.get(x.code)
        if (k) k.files++
        else info.set(x.code, { files: 1, example: `${f.path}: ${x.message}` })
      }
    }
    if (info.size > 0) out.push('')
    for (const [code, k] of info) out.push(`info ${code} in ${count(k.files, 'file')}, e.g. ${k.example}`)
    if (info.size > 0) out.push('(--verbose lists every file)')
  }
  out.push('')
  out.push(r.clean ? 'No problems flagged.' : `${formatInt(r.flagged)} of ${count(t.files, 'file')} flagged.`)
  return out.join('\n')
}

export const command = defineCommand({
  name: 'doctor',
  args: '[PATH...]',
  options: {
    projects: PROJECTS,
    ...ARCHIVE_STATE,
    verbose: flag('list every file with an informational finding, not one line per kind'),
    json: JSON_OUTPUT,
  },
  description: `Checks every transcript of the estate (same roots as stats): lines that are not JSON objects,
torn tails, unknown record types, a dedupe key that no longer collapses streamed fragments,
transcripts past Claude Code's cleanup age. Nothing is written.`,
  exitCodes: 'Exit codes: 0 nothing flagged, 1 some files flagged, 2 bad usage, 3 a missing or unreadable path.',
  async run({ values, positionals, print }) {
    const report = await withProgress((onProgress) =>
      doctor({
        paths: positionals,
        projects: values.projects,
        generation: values.generation,
        asOf: values['as-of'],
        onProgress,
      }),
    )
    print(values.json ? JSON.stringify(report, null, 2) : renderDoctor(report, { verbose: values.verbose }))
    return report.clean ? EXIT.ok : EXIT.flagged
  },
})
