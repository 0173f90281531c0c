// `claude-jsonl query "SQL" --dataset DEST`: SQL over the team dataset with embedded DuckDB.
import { openDestination } from '../dataset/open.js'
import { query } from '../dataset/query.js'
import { EXIT } from '../errors.js'
import { defineCommand, text } from './command.js'
import { JSON_OUTPUT } from './common-options.js'
import { renderTable } from '../terminal/table.js'

export const command = defineCommand({
  name: 'query',
  args: 'SQL',
  oneArgument: { name: 'SQL', what: 'one SQL statement, quoted' },
  options: {
    dataset: text('DEST', 'the dataset written by export (a folder or s3://bucket/prefix)', { required: true }),
    json: JSON_OUTPUT,
  },
  description: `Runs SQL over the dataset with embedded DuckDB. The tables requests, sessions, tool_calls
(and messages) are views over their Parquet partitions, with the partition's UTC day as column day.`,
  exitCodes: 'Exit codes: 0 ok, 2 bad usage or a SQL error, 3 a missing dataset or one of another schema version.',
  async run({ values: v, positionals, print }) {
    const dest = await openDestination(v.dataset, { create: false })
    const r = await query(dest, positionals[0])
    if (v.json) print(JSON.stringify(r, null, 2))
    else
      print(
        renderTable(
          r.columns.map((header) => ({ header })),
          r.rows.map((row) =>
            row.map((x) => (x === null ? '' : typeof x === 'object' ? JSON.stringify(x) : String(x))),
          ),
        ),
      )
    return EXIT.ok
  },
})
