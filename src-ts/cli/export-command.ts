// `claude-jsonl export --to DEST`: the estate (or an archive) as the team dataset, Parquet
// partitions by day in a folder or object storage.
import { exportDataset, type ExportReport } from '../dataset/export.js'
import { openDestination } from '../dataset/open.js'
import { EXIT } from '../errors.js'
import { defineCommand, flag, text } from './command.js'
import { JSON_OUTPUT, PROJECTS } from './common-options.js'
import { formatInt } from '../terminal/format.js'

function renderExport(r: ExportReport): string {
  const lines = [
    `Exported machine ${r.machine} into ${r.dataset} (schema ${r.schemaVersion}) in ${(r.ms / 1000).toFixed(2)} s`,
  ]
  for (const t of r.tables) {
    const dup =
      t.duplicatesOfOtherMachines > 0
        ? `; ${formatInt(t.duplicatesOfOtherMachines)} already exported by another machine`
        : ''
    lines.push(
      `  ${t.table}: ${formatInt(t.rows)} ${t.rows === 1 ? 'row' : 'rows'} in ${formatInt(t.partitions)} ${t.partitions === 1 ? 'day' : 'days'}; ${formatInt(t.written)} written, ${formatInt(t.unchanged)} unchanged${dup}`,
    )
  }
  return lines.join('\n')
}

export const command = defineCommand({
  name: 'export',
  args: '[PATH...]',
  options: {
    to: text('DEST', 'the dataset: a folder, or s3://bucket/prefix', { required: true }),
    machine: text('NAME', "this machine's name in the dataset (default: the host name)"),
    'include-text': flag('also write the messages table (what was said, as text)'),
    projects: PROJECTS,
    json: JSON_OUTPUT,
  },
  description: `Writes the estate (or PATHs, or an archive) as an open dataset: Parquet tables requests,
sessions and tool_calls, hive-partitioned by UTC day (day=YYYY-MM-DD), that DuckDB, Spark, Trino or
ClickHouse read as they are. A re-run writes only the days that changed; several machines export
into one dataset without counting a request twice. No message text unless --include-text.`,
  exitCodes:
    'Exit codes: 0 ok, 2 bad usage, 3 a missing estate, a dataset of another schema version, or storage that cannot be written.',
  async run({ values: v, positionals, print }) {
    const dest = await openDestination(v.to, { create: true })
    const report = await exportDataset(dest, {
      paths: positionals,
      projects: v.projects,
      machine: v.machine,
      includeText: v['include-text'],
    })
    print(v.json ? JSON.stringify(report, null, 2) : renderExport(report))
    return EXIT.ok
  },
})
