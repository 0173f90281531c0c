// SQL over a dataset with embedded DuckDB: each table is a view over its Parquet partitions
// (`day` from the partition folder), so a query reads only the columns and days it needs.
// DuckDB is loaded on the first query, never at start-up.
import { ClaudeJsonlError, EXIT } from '../errors.js'
import native from '../native.js'
import type { DatasetDestination } from './destination.js'
import { readDatasetInfo } from './info.js'
import { requireDependency } from '../lazy-dependency.js'

/** The result of a query: column names and rows as JSON values (DuckDB's JSON form: a BIGINT is
 * a string of digits; cast to DOUBLE for a number). */
export interface QueryResult {
  columns: string[]
  rows: unknown[][]
}

type Connection = {
  runAndReadAll(sql: string): Promise<{ columnNames(): string[]; getRowsJson(): unknown[][] }>
  run(sql: string): Promise<unknown>
  closeSync(): void
}

const sqlString = (s: string) => `'${s.replace(/'/g, "''")}'`

/** A connection whose views `requests`, `sessions`, `tool_calls` (and `messages`) read `root`. */
export async function openDataset(dest: DatasetDestination): Promise<{ connection: Connection; close(): void }> {
  const info = await readDatasetInfo(dest)
  if (!info)
    throw new ClaudeJsonlError(`${dest.label}: no dataset here (write one with claude-jsonl export --to)`, EXIT.input)
  const root = await dest.localRoot()
  const { DuckDBInstance } = requireDependency('@duckdb/node-api') as typeof import('@duckdb/node-api')
  const instance = await DuckDBInstance.create(':memory:')
  const connection = (await instance.connect()) as unknown as Connection
  for (const t of native.datasetTables()) {
    const files = (await dest.list(`${t.name}/`)).filter((k) => k.endsWith('.parquet'))
    const columns = t.columns.map((c) => c.name)
    let view: string
    if (files.length === 0) {
      // No partition yet: an empty view of the same columns, so queries still run.
      const cols = t.columns.map((c) => `CAST(NULL AS ${c.sqlType}) AS ${c.name}`).join(', ')
      view = `SELECT ${cols}, CAST(NULL AS VARCHAR) AS day WHERE false`
    } else {
      const glob = sqlString(`${root}/${t.name}/*/*.parquet`)
      view = `SELECT ${columns.join(', ')}, day FROM read_parquet(${glob}, hive_partitioning = true, hive_types = {'day': VARCHAR}, union_by_name = true)`
    }
    await connection.run(`CREATE VIEW ${t.name} AS ${view}`)
  }
  return {
    connection,
    close: () => {
      connection.closeSync()
      ;(instance as unknown as { closeSync?: () => void }).closeSync?.()
    },
  }
}

/** Runs `sql` over the dataset; a SQL error is an input error with DuckDB's first line. */
export async function query(dest: DatasetDestination, sql: string): Promise<QueryResult> {
  const { connection, close } = await openDataset(dest)
  try {
    return await run(connection, sql)
  } finally {
    close()
  }
}

export async function run(connection: Connection, sql: string): Promise<QueryResult> {
  try {
    const reader = await connection.runAndReadAll(sql)
    return { columns: reader.columnNames(), rows: reader.getRowsJson() }
  } catch (e) {
    throw new ClaudeJsonlError(`query: ${String((e as Error).message).split('\n')[0]}`, EXIT.usage)
  }
}
