// `export`: an estate (or an archive) as rows of the team dataset, written as Parquet partitions
// (`TABLE/day=YYYY-MM-DD/part-MACHINE.parquet`) into a folder or object storage.
//
// The rows are what `stats` counts: every request of `requests()` (deduplicated and priced by the
// same code), the sessions with their titles as `sessions` reads them. A re-run writes only the
// partitions whose rows changed, and merges the rows it wrote before with today's, so rows whose
// transcripts Claude Code's cleanup deleted since stay in the dataset. Several machines write into
// one dataset, each its own part file of a day: a request (or tool call) another machine's part
// already holds is left out of this machine's, so a session copied to two machines counts once.
import { hostname } from 'node:os'
import native from '../native.js'
import type { DatasetColumn, DatasetRows, DatasetTableInfo } from '../native.js'
import { ClaudeJsonlError, EXIT, fromNative, usageError } from '../errors.js'
import type { EstateOptions } from '../read/estate.js'
import { scanEstateTotals, unusableFiles } from '../read/estate.js'
import { archivedAt, transcriptBytesAt } from '../archive/in-memory.js'
import { costsOf, priceKeys, promptThresholds } from '../read/prices.js'
import { factsFromNative, type TranscriptFacts } from '../read/sessions.js'
import { utcDay } from '../read/days.js'
import type { DatasetDestination, DatasetObject } from './destination.js'
import { readDatasetInfo, writeDatasetInfo, MACHINES_PREFIX } from './info.js'
import { lockMachine } from './lock.js'
import { faultPoint } from '../durable-files.js'
import { monotonicMs } from '../monotonic.js'

/** A row: column name to value (null for a null). */
export type Row = Record<string, string | number | boolean | null>

export interface ExportOptions extends Pick<EstateOptions, 'projects' | 'paths' | 'env'> {
  /** The machine's name in the dataset (default: the host name). */
  machine?: string
  /** Also write the `messages` table (what was said, as text). */
  includeText?: boolean
}

/** What one table's export did. */
export interface TableExport {
  table: string
  /** Rows this machine has for the table now (after leaving out other machines' duplicates). */
  rows: number
  /** Partitions (days) this machine has rows in. */
  partitions: number
  /** Partitions written by this run, and those left as they were. */
  written: number
  unchanged: number
  /** Rows left out because another machine's part of the same day already holds them. */
  duplicatesOfOtherMachines: number
  /**
   * Requests left out as a subagent's replay of a request the dataset already holds (the same
   * `message.id`): `stats` leaves such a replay out while the original's transcript is there,
   * and counts it once that transcript is gone; the dataset, which keeps the original, never.
   */
  replaysLeftOut: number
}

export interface ExportReport {
  dataset: string
  machine: string
  schemaVersion: number
  tables: TableExport[]
  ms: number
}

const MACHINE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/

/** The machine name to write under: `--machine`, else the host name made safe for a file name. */
export function machineName(given?: string): string {
  if (given !== undefined) {
    if (!MACHINE_NAME.test(given))
      throw usageError(`export: --machine takes letters, digits, '.', '_' and '-' (at most 64), not '${given}'`)
    return given
  }
  const h = hostname()
    .replace(/[^A-Za-z0-9._-]/g, '-')
    .replace(/^[^A-Za-z0-9]+/, '')
  return (h || 'machine').slice(0, 64)
}

/**
 * One table's rows of today's estate, by UTC day: made in the native core (requests, tool calls)
 * or, for the small tables, as rows here.
 */
interface TableDays {
  /** The days with rows, ascending, with their row counts. */
  days: { day: string; rows: number }[]
  /** Each day's rows alone as a part file, in the order of `days`. */
  encodeAll(): Promise<Buffer[]>
  /** The day's rows, for a merge with rows written before. */
  rows(day: string): Row[]
  /** The key of every row of the table (any day). */
  keys(): Set<string>
  /** Frees the rows, once nothing more is asked of them. */
  release(): void
}

function rowDays(table: DatasetTableInfo, all: Row[]): TableDays {
  const byDay = new Map<string, Row[]>()
  for (const row of all) {
    const day = dayOf(table.name, row)
    let list = byDay.get(day)
    if (!list) byDay.set(day, (list = []))
    list.push(row)
  }
  const days = [...byDay].sort((a, b) => (a[0] < b[0] ? -1 : 1)).map(([day, rows]) => ({ day, rows: rows.length }))
  // The files are started at once, off this thread, while the other tables' are made: the
  // table's columns cross once, each day's rows (in their file's order) as indices into them.
  const at = new Map(all.map((row, i) => [row, i]))
  const order = days.map(({ day }) => Uint32Array.from(sortRows(table, byDay.get(day)!), (row) => at.get(row)!))
  const files = encodeDays(table, all, order)
  files.catch(() => {}) // awaited by encodeAll
  return {
    days,
    encodeAll: () => files,
    rows: (day) => byDay.get(day) ?? [],
    keys: () => new Set(all.map((r) => rowKey(table, r))),
    release: () => byDay.clear(),
  }
}

/** A native table's days; its files are started being made at once, off this thread, while
 * this thread goes on (pricing, the sessions' rows, the other tables). */
function nativeDays(table: DatasetTableInfo, rows: DatasetRows): TableDays {
  const files = rows.encodeDays(table.name).catch((e) => Promise.reject(fromNative(e)))
  files.catch(() => {}) // awaited by encodeAll
  return {
    days: rows.days(table.name),
    encodeAll: () => files,
    rows: (day) => fromColumns(rows.dayColumns(table.name, day)),
    keys: () => new Set(rows.keys(table.name)),
    release: () => rows.release(table.name),
  }
}

/**
 * The requests' cost columns, from the price table (the one owner of pricing): each price key
 * priced once, then each request's tokens at its key's rates. Returns each session's request
 * count, cost and first request, summed in the requests' order.
 */
function priceRows(rows: DatasetRows) {
  const p = rows.pricingInputs()
  const pricing = priceKeys({ ...p.keys, models: p.models, speeds: p.speeds }, promptThresholds())
  const cost = costsOf(pricing, p.key, p)
  const sums = rows.addPriced(cost, {
    estimated: pricing.estimated,
    fast: pricing.fast,
    longContext: pricing.longContext,
    pricedAs: pricing.pricedAs.map((s) => s ?? null),
  })
  const perSession = new Map<number, { requests: number; cost: number; first: number }>()
  for (let k = 0; k < sums.session.length; k++)
    perSession.set(sums.session[k], { requests: sums.requests[k], cost: sums.cost[k], first: sums.firstMs[k] })
  return perSession
}

/**
 * The rows of the estate, by table, from one usage scan: the requests `stats` counts and the
 * tool calls it counts per tool, with their targets and errors (both built in the native core,
 * from the same grouping; the cost columns from the price table here), the sessions with their
 * titles as `sessions` reads them, and with `includeText` what was said.
 */
async function estateRows(
  machine: string,
  tables: DatasetTableInfo[],
  opts: ExportOptions,
  /** Called once the estate has been read (it exists and holds transcripts), before the rows are made. */
  read: () => void,
): Promise<Map<string, TableDays>> {
  // An archive root is read from its streams: each transcript's bytes decoded into memory when
  // its titles or texts are read, one at a time (nothing written).
  const scope: EstateOptions = { projects: opts.projects, paths: opts.paths, env: opts.env }
  // (the files in sum, and an entry only for each session's main transcript: an estate has
  // thousands of files, and a JS object for each costs its milliseconds)
  const scanned = await scanEstateTotals(scope, 'usage', undefined, true)
  unusableFiles(scanned.roots, scanned.totals.unread) // a named file that is not a transcript: exit 3
  read()
  const { scan } = scanned
  // The rows are made off this thread, which meanwhile writes the lock and the dataset's info
  // and reads from the scan what the sessions' rows need.
  const making = scan.datasetRows(machine, promptThresholds()).catch((e) => Promise.reject(fromNative(e)))
  making.catch(() => {}) // awaited below
  const sessions = scan.sessions()
  const mainAt = sessions.flatMap((s) => (s.mainFile === undefined || s.mainFile === null ? [] : [s.mainFile]))
  const mainEntries = scan.filesAt(mainAt)
  const mainOf = new Map(mainAt.map((fi, k) => [fi, mainEntries[k]]))
  const sizes = scan.fileSizes()
  // The sessions' head-and-tail facts (titles, cwd, times) and whether each begins with this
  // tool's compact pair, as the scan read them, by file (an archived transcript's from its bytes
  // below); and with the text, every file's entry.
  const early = new Map<number, SessionFacts>()
  scan.sessionFactsAt(mainAt).forEach((f, k) => {
    if (f) early.set(mainAt[k], { facts: factsFromNative(f.facts), compressedByUs: f.compressedByUs })
  })
  const files = opts.includeText ? scan.files(false) : []
  const counted = await making
  const table = (name: string) => tables.find((t) => t.name === name)!
  // The tool calls need no price: their files are made while the requests are priced.
  const toolCalls = nativeDays(table('tool_calls'), counted)
  const perSession = priceRows(counted)
  const requests = nativeDays(table('requests'), counted)

  // Each session's main transcript, with its facts.
  const mains = sessions.flatMap((s, si) => {
    // (subagent transcripts whose parent is gone have no main file: no row)
    if (s.mainFile === undefined || s.mainFile === null) return []
    const main = mainOf.get(s.mainFile)!
    return [{ s, si, main, known: early.get(s.mainFile) }]
  })
  const sessionRows: Row[] = []
  for (const { s, si, main, known } of mains) {
    let got: SessionFacts | undefined = known
    if (archivedAt(main.path))
      try {
        // an archived transcript, decoded into memory (undecodable since the scan: named by it)
        const f = native.datasetSessionFactsOf(transcriptBytesAt(main.path))
        got = { facts: factsFromNative(f.facts), compressedByUs: f.compressedByUs }
      } catch {
        got = undefined
      }
    if (!got) continue // vanished or unreadable since the scan
    const { facts, compressedByUs } = got
    const agg = perSession.get(si)
    const last = facts.lastTimestamp ? Date.parse(facts.lastTimestamp) : NaN
    sessionRows.push({
      machine,
      project: s.project,
      session_id: s.sessionId,
      cwd: facts.cwd,
      title: facts.title,
      first_activity: agg && Number.isFinite(agg.first) ? agg.first : null,
      last_activity: Number.isFinite(last) ? last : main.mtimeMs,
      requests: agg?.requests ?? 0,
      cost_usd: agg?.cost ?? 0,
      compressed_by_us: compressedByUs,
      bytes: s.files.reduce((n, fi) => n + sizes[fi], 0),
    })
  }
  scan.release() // (what the rows need of the scan is read: its memory goes now)
  const out = new Map<string, TableDays>([
    ['requests', requests],
    ['sessions', rowDays(table('sessions'), sessionRows)],
    ['tool_calls', toolCalls],
  ])
  if (opts.includeText) {
    const messages: Row[] = []
    for (const file of files) {
      if (file.error || file.pruned) continue
      const session = sessions[file.sessionIndex]
      let said
      try {
        said = archivedAt(file.path)
          ? native.datasetMessagesOf(transcriptBytesAt(file.path))
          : await native.datasetMessages(file.path)
      } catch {
        continue // vanished since the scan
      }
      for (const m of said)
        messages.push({
          machine,
          project: session.project,
          session_id: session.sessionId,
          agent_id: file.agentId ?? null,
          uuid: m.uuid,
          timestamp: Number.isFinite(m.timeMs) ? m.timeMs : null,
          role: m.role,
          text: m.text,
        })
    }
    out.set('messages', rowDays(table('messages'), messages))
  }
  return out
}

/** What the sessions table needs of one main transcript. */
interface SessionFacts {
  facts: TranscriptFacts
  compressedByUs: boolean
}

/** The day a row of `table` belongs to. */
function dayOf(table: string, row: Row): string {
  if (table === 'sessions') return utcDay(Number(row.first_activity ?? row.last_activity))
  return utcDay(row.timestamp === null ? NaN : Number(row.timestamp))
}

/** What identifies a row of `table` within one machine's part. */
function rowKey(table: DatasetTableInfo, row: Row): string {
  if (table.uniqueKey) return String(row[table.uniqueKey])
  return `${row.project}\0${row.session_id}\0${row.uuid ?? ''}`
}

/** A subagent's request whose `message.id` is one of `messages`: a replay of that request. */
function isReplayOf(row: Row, messages: Set<string>): boolean {
  return (
    row.agent_id !== undefined &&
    row.agent_id !== null &&
    typeof row.message_id === 'string' &&
    messages.has(row.message_id)
  )
}

/** Columns for the native encoder, in the table's order, from rows. */
export function toColumns(table: DatasetTableInfo, rows: Row[]): DatasetColumn[] {
  const n = rows.length
  return table.columns.map((c) => {
    const name = c.name
    if (c.values === 'strings') {
      // One NUL-joined string crosses instead of one string per value (unless a value holds NUL).
      const values = new Array<string>(n)
      const nulls = new Uint8Array(n)
      let holdsNul = false
      for (let i = 0; i < n; i++) {
        const v = rows[i][name]
        if (v === null || v === undefined) {
          values[i] = ''
          nulls[i] = 1
        } else {
          const text = typeof v === 'string' ? v : String(v)
          if (!holdsNul && text.includes('\0')) holdsNul = true
          values[i] = text
        }
      }
      if (holdsNul) return { name, strings: values.map((v, i) => (nulls[i] ? null : v)) }
      return { name, joined: values.join('\0'), nulls }
    }
    if (c.values === 'flags') {
      const flags = new Uint8Array(n)
      for (let i = 0; i < n; i++) {
        const v = rows[i][name]
        flags[i] = v === null || v === undefined ? 2 : v ? 1 : 0
      }
      return { name, flags }
    }
    const numbers = new Float64Array(n)
    for (let i = 0; i < n; i++) {
      const v = rows[i][name]
      numbers[i] = v === null || v === undefined ? NaN : Number(v)
    }
    return { name, numbers }
  })
}

/** Rows from decoded columns. */
export function fromColumns(columns: DatasetColumn[]): Row[] {
  const n =
    columns[0]?.strings?.length ??
    columns[0]?.nulls?.length ??
    columns[0]?.numbers?.length ??
    columns[0]?.flags?.length ??
    0
  const rows: Row[] = Array.from({ length: n }, () => ({}))
  for (const c of columns) {
    const parts = c.joined !== undefined && n > 0 ? c.joined.split('\0') : undefined
    for (let i = 0; i < n; i++) {
      if (parts) rows[i][c.name] = c.nulls![i] ? null : parts[i]
      else if (c.strings) rows[i][c.name] = c.strings[i] ?? null
      else if (c.numbers) rows[i][c.name] = Number.isNaN(c.numbers[i]) ? null : c.numbers[i]
      else if (c.flags) rows[i][c.name] = c.flags[i] === 2 ? null : c.flags[i] === 1
    }
  }
  return rows
}

function sortRows(table: DatasetTableInfo, rows: Row[]): Row[] {
  const ts = (r: Row) => Number(r.timestamp ?? r.first_activity ?? r.last_activity ?? 0)
  return rows.sort((a, b) => ts(a) - ts(b) || (rowKey(table, a) < rowKey(table, b) ? -1 : 1))
}

const sha256 = (bytes: Uint8Array) => native.sha256(bytes)

/** The machine's record of what it wrote: per partition key, a hash of the estate's rows then. */
interface MachineManifest {
  schemaVersion: number
  machine: string
  exportedAt: string
  /** Per partition: the digest of today's rows' file, the digest of the file, its rows, and how
   * many of them are rows of before that today's estate no longer has. */
  partitions: Record<string, { rows: string; bytes: string; count: number; history?: number }>
}

/** The day before `day`, the day, and the day after (`unknown` alone). */
function neighbours(day: string): string[] {
  const ms = Date.parse(`${day}T00:00:00Z`)
  if (!Number.isFinite(ms)) return [day]
  return [utcDay(ms - 86_400_000), day, utcDay(ms + 86_400_000)]
}

/** Writes the estate into the dataset at `dest` as machine `opts.machine`. */
export async function exportDataset(dest: DatasetDestination, opts: ExportOptions = {}): Promise<ExportReport> {
  const started = monotonicMs()
  const machine = machineName(opts.machine)
  // Another schema version is refused before the estate is read; a new dataset's info is
  // written only once the estate has been read (a missing estate leaves no dataset behind).
  const info = await readDatasetInfo(dest)
  const tables = native.datasetTables().filter((t) => t.name !== 'messages' || opts.includeText)
  // From reading what this machine wrote before to publishing the merge, no other export of it
  // runs (one of another machine may: it writes other part files). The lock is taken, and a new
  // dataset's info written, once the estate has been read, while its rows are made: their disk
  // flushes are waited for beside that work, not after it.
  let locking: Promise<() => Promise<void>> | undefined
  let described: Promise<void> | undefined
  const read = () => {
    locking = lockMachine(dest, machine, opts.env)
    // (both awaited below, or the export has failed already: a lock held by another export must
    // not end the process as an unhandled rejection while the rows are still being made)
    locking.catch(() => {})
    described = info === undefined ? locking.then(() => writeDatasetInfo(dest)) : Promise.resolve()
    described.catch(() => {})
  }
  let rowsByTable: Map<string, TableDays>
  try {
    rowsByTable = await estateRows(machine, tables, opts, read)
    await described
  } catch (e) {
    const taken = await locking?.catch(() => undefined)
    await taken?.().catch(() => {})
    throw e
  }
  const release = await locking!
  try {
    return await exportLocked(dest, machine, tables, rowsByTable, opts, started)
  } finally {
    // A lock left behind (storage that failed meanwhile) is taken over by the next run on this
    // host; the export's own outcome is what is reported.
    await release().catch(() => {})
  }
}

async function exportLocked(
  dest: DatasetDestination,
  machine: string,
  tables: DatasetTableInfo[],
  rowsByTable: Map<string, TableDays>,
  opts: ExportOptions,
  started: number,
): Promise<ExportReport> {
  const manifestKey = `${MACHINES_PREFIX}${machine}.json`
  const previous = await dest.get(manifestKey)
  let manifest: MachineManifest
  try {
    manifest = previous
      ? (JSON.parse(previous.toString('utf8')) as MachineManifest)
      : { schemaVersion: native.datasetSchemaVersion(), machine, exportedAt: '', partitions: {} }
  } catch {
    throw new ClaudeJsonlError(`${dest.label}: ${manifestKey} is not valid JSON`, EXIT.input)
  }
  // Every table's partitions are published together once all are made: in a folder, all
  // their bytes are made durable at once before any is renamed into place (a disk flush per
  // file was most of an export's time); in object storage, side by side. Each file is whole or
  // absent; the manifest is written only once every put and delete has ended.
  const puts: DatasetObject[] = []
  const deletes: string[] = []
  const publish = (key: string, bytes: Buffer) => puts.push({ key, bytes, private: key.startsWith('messages/') })
  const report: TableExport[] = []
  for (const table of tables) {
    const source = rowsByTable.get(table.name)!
    const byDay = new Set(source.days.map((d) => d.day))
    const t: TableExport = {
      table: table.name,
      rows: 0,
      partitions: 0,
      written: 0,
      unchanged: 0,
      duplicatesOfOtherMachines: 0,
      replaysLeftOut: 0,
    }
    // A row moves to another day when what it is made of does: a session's when its first
    // request appears later, a request's when the entry that counts for it becomes a copy written
    // after midnight UTC (a resumed or copied session repeating the reply). Its old row leaves
    // the day it was in: a row is in one partition of this machine's, the one today's estate puts
    // it in.
    // (Every key of the table is asked for only when a partition is merged: not on a first run.)
    let everyFreshKey: Set<string> | undefined
    const movedAway = (k: string, freshKeysOfDay: Set<string>) =>
      !freshKeysOfDay.has(k) && (everyFreshKey ??= source.keys()).has(k)
    // One listing of the table: which partitions exist, this machine's and the others'.
    const listed = new Set(await dest.list(`${table.name}/`))
    // Test hook: a stop here, after the first table's listing and before anything of it is
    // published, lets a test run a second export of the machine in between.
    if (table === tables[0]) faultPoint('dataset-read', opts.env)
    const partOf = (day: string) => `${table.name}/day=${day}/part-${machine}.parquet`
    // Every day's file of today's rows, made in parallel off this thread. Their digests say
    // which days changed since the last run.
    const freshFiles = await source.encodeAll()
    const freshHashes = freshFiles.map((b) => sha256(b))
    const changed = new Set(
      source.days
        .filter(({ day }, i) => {
          const known = manifest.partitions[partOf(day)]
          return !(known && listed.has(partOf(day)) && known.rows === freshHashes[i])
        })
        .map((d) => d.day),
    )
    // A row that moved went to (or came from) a day next to its own: the days beside a changed
    // one are looked at again, this machine's partitions and the others'.
    const nearChange = (day: string) => neighbours(day).some((d) => d !== day && changed.has(d))
    const theirs = new Map<string, { keys: Set<string>; messages: Set<string> }>()
    const theirRows = async (other: string) => {
      let known = theirs.get(other)
      if (!known) {
        known = { keys: new Set(), messages: new Set() }
        theirs.set(other, known)
        const bytes = await dest.get(other)
        if (bytes && table.uniqueKey) {
          for (const k of readKeys(bytes, table.uniqueKey, dest.label, other)) if (k != null) known.keys.add(k)
          if (table.name === 'requests')
            for (const m of readKeys(bytes, 'message_id', dest.label, other)) if (m != null) known.messages.add(m)
        }
      }
      return known
    }
    for (const [i, { day, rows: freshCount }] of source.days.entries()) {
      const key = partOf(day)
      // The rows of today's estate for the day, as the file they make alone: their digest says
      // whether anything changed since the last run, and on a first run they are the file.
      const freshBytes = freshFiles[i]
      const freshHash = freshHashes[i]
      const known = manifest.partitions[key]
      // A partition that holds rows of before (their transcripts gone) is looked at again when a
      // day beside it changed: one of its rows may be today's row of that day. (Written before
      // the count of such rows was kept: when it holds more or fewer rows than today's.)
      const history = known?.history ?? (known && known.count !== freshCount ? 1 : 0)
      if (!changed.has(day) && !(history > 0 && nearChange(day))) {
        t.partitions++
        t.unchanged++
        t.rows += known.count
        continue
      }
      const existing = listed.has(key) ? await dest.get(key) : undefined
      const folders = neighbours(day).map((d) => `${table.name}/day=${d}/`)
      const others = table.uniqueKey
        ? [...listed].filter(
            (o) =>
              o.endsWith('.parquet') && !o.endsWith(`/part-${machine}.parquet`) && folders.some((f) => o.startsWith(f)),
          )
        : []
      if (!existing && others.length === 0) {
        // Nothing to merge with: the file is the one made of today's rows.
        t.rows += freshCount
        t.partitions++
        publish(key, freshBytes)
        t.written++
        manifest.partitions[key] = { rows: freshHash, bytes: freshHash, count: freshCount, history: 0 }
        continue
      }
      const fresh = source.rows(day)
      // What this machine wrote before stays unless today's estate has the same row anew (rows
      // whose transcripts the cleanup deleted since stay: the dataset keeps history).
      const freshKeys = new Set(fresh.map((r) => rowKey(table, r)))
      const merged = new Map<string, Row>()
      const historyMessages = new Set<string>()
      if (existing)
        for (const r of fromColumns(decode(table.name, existing, dest.label, key))) {
          const k = rowKey(table, r)
          if (movedAway(k, freshKeys)) continue
          merged.set(k, r)
          if (!freshKeys.has(k) && typeof r.message_id === 'string') historyMessages.add(r.message_id)
        }
      for (const r of fresh) {
        const k = rowKey(table, r)
        if (!merged.has(k) && isReplayOf(r, historyMessages)) {
          t.replaysLeftOut++
          continue
        }
        merged.set(k, r)
      }
      if (table.uniqueKey) {
        const theirKeys = new Set<string>()
        const theirMessages = new Set<string>()
        for (const other of others) {
          const rows = await theirRows(other)
          for (const k of rows.keys) theirKeys.add(k)
          for (const m of rows.messages) theirMessages.add(m)
        }
        for (const [k, r] of [...merged])
          if (theirKeys.has(k) || isReplayOf(r, theirMessages)) {
            merged.delete(k)
            t.duplicatesOfOtherMachines++
          }
      }
      const rows = sortRows(table, [...merged.values()])
      t.rows += rows.length
      t.partitions++
      // Nothing merged in or left out: the file is the one made of today's rows.
      const asFresh = !existing && rows.length === fresh.length
      const bytes = rows.length === 0 ? undefined : asFresh ? freshBytes : await encode(table, rows)
      if (bytes && existing && existing.equals(bytes)) t.unchanged++
      else if (bytes) {
        publish(key, bytes)
        t.written++
      } else if (existing) {
        deletes.push(key)
        t.written++
      }
      const kept = rows.reduce((n, r) => n + (freshKeys.has(rowKey(table, r)) ? 0 : 1), 0)
      if (bytes)
        manifest.partitions[key] = {
          rows: freshHash,
          bytes: bytes === freshBytes ? freshHash : sha256(bytes),
          count: rows.length,
          history: kept,
        }
      else delete manifest.partitions[key]
    }
    // Partitions this machine wrote before and has no rows for now (their transcripts are gone)
    // stay as they are: the dataset keeps history.
    for (const key of Object.keys(manifest.partitions)) {
      const day = /day=([^/]+)\//.exec(key)?.[1] ?? ''
      if (!key.startsWith(`${table.name}/`) || byDay.has(day)) continue
      if (table.name === 'sessions' || nearChange(day)) {
        // A day left with no row of today's estate may still hold one that moved away.
        const existing = await dest.get(key)
        if (existing) {
          const kept = fromColumns(decode(table.name, existing, dest.label, key)).filter(
            (r) => !movedAway(rowKey(table, r), new Set()),
          )
          if (kept.length < manifest.partitions[key].count) {
            t.written++
            if (kept.length === 0) {
              deletes.push(key)
              delete manifest.partitions[key]
              continue
            }
            const bytes = await encode(table, sortRows(table, kept))
            publish(key, bytes)
            manifest.partitions[key] = {
              ...manifest.partitions[key],
              bytes: sha256(bytes),
              count: kept.length,
              history: kept.length,
            }
            t.partitions++
            t.rows += kept.length
            continue
          }
        }
      }
      t.partitions++
      t.unchanged++
      t.rows += manifest.partitions[key].count
    }
    source.release()
    report.push(t)
  }
  await dest.putMany(puts)
  for (const key of deletes) await dest.delete(key)
  manifest.exportedAt = new Date().toISOString()
  manifest.schemaVersion = native.datasetSchemaVersion()
  await dest.put(manifestKey, Buffer.from(JSON.stringify(manifest, null, 2) + '\n'))
  return {
    dataset: dest.label,
    machine,
    schemaVersion: native.datasetSchemaVersion(),
    tables: report,
    ms: monotonicMs() - started,
  }
}

/** One file of `table` for each of `days` (indices into `rows`, in the order its file holds them). */
async function encodeDays(table: DatasetTableInfo, rows: Row[], days: Uint32Array[]): Promise<Buffer[]> {
  try {
    return await native.encodeDatasetDays(table.name, toColumns(table, rows), days)
  } catch (e) {
    throw fromNative(e)
  }
}

async function encode(table: DatasetTableInfo, rows: Row[]): Promise<Buffer> {
  try {
    return await native.encodeDatasetTable(table.name, toColumns(table, rows))
  } catch (e) {
    throw fromNative(e)
  }
}

function decode(table: string, bytes: Buffer, label: string, key: string): DatasetColumn[] {
  try {
    return native.decodeDatasetTable(table, bytes)
  } catch (e) {
    throw new ClaudeJsonlError(`${label}/${key}: ${(e as Error).message}`, EXIT.input)
  }
}

function readKeys(bytes: Buffer, column: string, label: string, key: string): (string | null | undefined)[] {
  try {
    return native.readDatasetStrings(bytes, column)
  } catch (e) {
    throw new ClaudeJsonlError(`${label}/${key}: ${(e as Error).message}`, EXIT.input)
  }
}
