// The durable session store: one append-only logical JSONL log per session,
// first line an immutable header, stored as checksummed zstd frames (default) or plain JSONL.
// Frame format, validation and torn-tail recovery live in Rust (crate/core/src/store); this module
// owns the layout, the write path (batching window, fsync, rollback, no-clobber publish), the
// one-writer lock and the API.
//
// <root>/<project>/<escaped id>/session.jsonl.zstd   (or session.jsonl with compression 'none')
import { randomBytes } from 'node:crypto'
import { constants as fsc } from 'node:fs'
import * as fs from 'node:fs/promises'
import { join } from 'node:path'
import native from '../native.js'
import type { StoreLock } from '#native'
import { ClaudeJsonlError, EXIT, fromNative, inputError } from '../errors.js'
import { decodeRecord, packChunks, recoveryClosers, type StoredEvent } from './store-records.js'
import { fsyncDir } from '../durable-files.js'
import { processExists } from '../durable-lock.cjs'

export type { StoredEvent } from './store-records.js'

/** How a session file is stored: zstd frames (`session.jsonl.zstd`) or plain JSONL (`session.jsonl`). */
export type Compression = 'zstd' | 'none'
/** The session file format version written into every header; a file of another version is refused. */
export const SESSION_FORMAT_VERSION = 0
/** File name of an uncompressed session log in its session folder (compressed: with `.zstd` added). */
export const TRANSCRIPT_NAME = 'session.jsonl'
const SUFFIX: Record<Compression, string> = { zstd: `${TRANSCRIPT_NAME}.zstd`, none: TRANSCRIPT_NAME }
/** Longest project folder name kept from the cwd (the rest is cut: a deliberate, lossy choice). */
const PROJECT_MAX = 120
const NO_CWD = '_no-cwd'
/** The archive index's name (crate/core/src/archive/layout.rs INDEX): the one file a root may hold. */
const ARCHIVE_INDEX = '.claude-jsonl-archive'

/** How a `Store` is opened: its root folder and how it writes. */
export interface StoreOptions {
  /** Root of every session file; required (no default). Created at the first materialisation. */
  root: string
  /** How new session files are written (default 'zstd'); existing files are read whichever they are. */
  compression?: Compression
  /** Fixed batching window opened by the first pending event; later events do not extend it. */
  writeBatchMaxDelayMs?: number
  /** How many inspected sessions (not loaded for appending) are kept for reuse by a later
   * `inspect` or `load` while their file's revision is unchanged (default 5). */
  preparedSessionCacheSize?: number
  /** Store each run of three or more consecutive same-block `assistant/chunk` delta events as one
   * packed line (default true). Packed lines are read whatever this says. */
  packChunks?: boolean
  /** Test hook: called after a batch's bytes are written and before fsync; a throw fails the write. */
  faults?: { afterWrite?: (path: string) => void }
}

/** What `Store.create` records about a new session: its id and the header fields the caller knows. */
export interface SessionMeta {
  id: string
  cwd?: string
  createdAt?: string
  parentSession?: string
  /** How many of the first events were seeded from elsewhere (e.g. the parent), if any. */
  seedLength?: number
  origin?: string
  delegationDepth?: number
  agentPreset?: string
}

/**
 * A session file's first line, fixed at creation: format version, id, working directory, times
 * and lineage (parent session, seeded events, delegation depth).
 */
export interface SessionHeader {
  type: 'session'
  version: number
  id: string
  cwd?: string
  createdAt: string
  parentSession?: string
  seedLength?: number
  origin?: string
  delegationDepth: number
  agentPreset?: string
}

/**
 * A stored session as read back: its header, every event in order, the file it came from and its
 * revision, and what reading had to repair.
 */
export interface LoadedSession {
  header: SessionHeader
  events: StoredEvent[]
  path: string
  revision: string
  /** A torn tail was cut and its whole records re-encoded (load), or would be (inspect). */
  tornTail: boolean
  /** Records recovered from the torn frame. */
  recovered: number
  /** Synthetic events at the end of `events` that close a turn the log ends inside (a writer
   * died mid-turn). Held in memory: written before the next appended batch, never otherwise. */
  closers: number
}

/** One stored session as `Store.list` finds it: read from its header frame only. */
export interface StoredSession {
  id: string
  cwd?: string
  createdAt: string
  path: string
  header: SessionHeader
}

/** A stored session's file and revision (`dev:ino:size:mtimeNs`), for telling whether it changed. */
export interface Snapshot {
  id: string
  path: string
  revision: string
}

function storeError(path: string, problem: string): ClaudeJsonlError {
  return inputError(path, problem)
}

/** Session id as one safe path component: [a-z0-9_-] kept, every other UTF-8 byte as %XX
 * (uppercase hex). Injective, never '.'/'..', and injective on case-insensitive file systems too. */
export function escapeSessionId(id: string): string {
  if (typeof id !== 'string' || id.length === 0)
    throw new ClaudeJsonlError('session id must be a non-empty string', EXIT.usage)
  let out = ''
  for (const b of Buffer.from(id, 'utf8')) {
    const c = String.fromCharCode(b)
    out += /[a-z0-9_-]/.test(c) ? c : `%${b.toString(16).toUpperCase().padStart(2, '0')}`
  }
  if (Buffer.byteLength(out) > 255)
    throw new ClaudeJsonlError(`session id too long for a folder name: ${id.slice(0, 40)}…`, EXIT.usage)
  return out
}

/**
 * The session id a path component stands for (the inverse of `escapeSessionId`); undefined when
 * the name is not one `escapeSessionId` produces.
 */
export function unescapeSessionId(name: string): string | undefined {
  if (!/^(?:[a-z0-9_-]|%[0-9A-F]{2})+$/.test(name)) return undefined
  const bytes: number[] = []
  for (let i = 0; i < name.length; i++) {
    if (name[i] === '%') {
      bytes.push(parseInt(name.slice(i + 1, i + 3), 16))
      i += 2
    } else bytes.push(name.charCodeAt(i))
  }
  const id = Buffer.from(bytes).toString('utf8')
  return escapeSessionId(id) === name ? id : undefined
}

/** The readable project folder of a cwd: separators and unsafe characters become '-', cut to a
 * bounded length. Lossy on purpose; the session folder keeps sessions apart. */
export function projectFolder(cwd: string | undefined): string {
  if (cwd === undefined || cwd === '') return NO_CWD
  const norm = cwd.replace(/[^A-Za-z0-9._]/g, '-').slice(0, PROJECT_MAX)
  return `--${norm}--`
}

function revisionOf(st: import('node:fs').BigIntStats): string {
  return `${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}`
}

/** An open session's stored log as the caller sees it: with the closers not yet written. */
function withHeld(out: LoadedSession, held: StoredEvent[]): LoadedSession {
  return { ...out, events: [...out.events, ...structuredClone(held)], closers: held.length }
}

/** A kept (frozen) inspection as load returns it: the caller may change its copy. */
function unfrozen(v: Readonly<LoadedSession>): LoadedSession {
  return { ...v, header: { ...v.header }, events: structuredClone(v.events) as StoredEvent[] }
}

function changedWhileRead(path: string): ClaudeJsonlError {
  return storeError(
    path,
    'changed while being read (replaced or written by another program); nothing was changed, load it again',
  )
}

function deepFreeze<T>(v: T): T {
  if (v && typeof v === 'object' && !Object.isFrozen(v)) {
    Object.freeze(v)
    for (const k of Object.keys(v)) deepFreeze((v as Record<string, unknown>)[k])
  }
  return v
}

/** An aborted listing rejects with an Error named AbortError (the signal's reason as cause). */
function checkAbort(signal: AbortSignal | undefined): void {
  if (signal?.aborted)
    throw Object.assign(new Error('store: listing aborted', { cause: signal.reason }), { name: 'AbortError' })
}

async function exists(p: string): Promise<boolean> {
  try {
    await fs.lstat(p)
    return true
  } catch {
    return false
  }
}

/** Removes temp files of a first publish whose writer died (its pid is gone) before linking. */
async function sweepDeadTemps(dir: string): Promise<void> {
  for (const name of await fs.readdir(dir).catch(() => [] as string[])) {
    const m = /^\.session\.jsonl(?:\.zstd)?\.tmp-(\d+)-/.exec(name)
    // a live writer's publish may still be under way
    if (!m || Number(m[1]) === process.pid || processExists(Number(m[1]))) continue
    await fs.unlink(join(dir, name)).catch(() => {})
  }
}

interface Waiter {
  resolve: () => void
  reject: (e: unknown) => void
}

interface Active {
  header: SessionHeader
  path: string
  materialized: boolean
  fh?: fs.FileHandle
  lock?: StoreLock
  size: number
  /** seq the next appended event must carry */
  nextSeq: number
  /** events durable on disk */
  storedSeq: number
  pending: string[]
  /** the pending events themselves (packed at write time) */
  pendingEvents: StoredEvent[]
  pendingCount: number
  /** recovery closers seq'd after the stored log, written ahead of the next batch */
  held: StoredEvent[]
  firstPendingAt: number
  waiters: Waiter[]
  timer?: NodeJS.Timeout
  writing?: Promise<void>
  /** set when a rollback failed: the file's end is unknown, so no more appends */
  broken?: ClaudeJsonlError
}

/**
 * A durable, append-only store of session event logs, one file per session under `root`. Appends
 * are batched and resolve once fsynced; one writer per session holds its lock; a torn tail is
 * repaired on load. The format is in docs/store-format.md.
 */
export class Store {
  /** The folder holding every session file. */
  readonly root: string
  /** How new session files are written. */
  readonly compression: Compression
  /** The batching window in ms: appends within it after the first pending one share one write and fsync. */
  readonly windowMs: number
  private readonly faults: StoreOptions['faults']
  private readonly active = new Map<string, Active>()
  /** Inspected sessions by id, oldest first (reused while the revision is the same). */
  private readonly prepared = new Map<string, Readonly<LoadedSession>>()
  /** How many inspected sessions are kept for reuse while their files are unchanged. */
  readonly preparedSessionCacheSize: number
  /** Whether runs of `assistant/chunk` delta events are packed into one line when written. */
  readonly packChunks: boolean
  private disposed = false

  constructor(options: StoreOptions) {
    if (!options || typeof options.root !== 'string' || options.root === '') {
      throw new ClaudeJsonlError('store: root is required', EXIT.usage)
    }
    const compression = options.compression ?? 'zstd'
    if (compression !== 'zstd' && compression !== 'none')
      throw new ClaudeJsonlError(`store: unknown compression '${compression}'`, EXIT.usage)
    const ms = options.writeBatchMaxDelayMs ?? 200
    if (!Number.isInteger(ms) || ms < 1 || ms > 2_147_483_647)
      throw new ClaudeJsonlError('store: writeBatchMaxDelayMs must be a positive integer', EXIT.usage)
    const cache = options.preparedSessionCacheSize ?? 5
    if (!Number.isInteger(cache) || cache < 1)
      throw new ClaudeJsonlError('store: preparedSessionCacheSize must be a positive integer', EXIT.usage)
    this.preparedSessionCacheSize = cache
    this.packChunks = options.packChunks ?? true
    this.root = options.root
    this.compression = compression
    this.windowMs = ms
    this.faults = options.faults
  }

  /** Where a session's transcript lives (no I/O: the file may not exist yet). */
  locate(meta: Pick<SessionMeta, 'id' | 'cwd'>): { kind: 'jsonl'; path: string } {
    return {
      kind: 'jsonl',
      path: join(this.root, projectFolder(meta.cwd), escapeSessionId(meta.id), SUFFIX[this.compression]),
    }
  }

  private live(): void {
    if (this.disposed) throw new ClaudeJsonlError('store: disposed', EXIT.usage)
  }

  /** Registers a new session; nothing is written until its first append. */
  async create(meta: SessionMeta): Promise<SessionHeader> {
    this.live()
    const { path } = this.locate(meta)
    if (this.active.has(meta.id)) throw storeError(path, 'session already open in this store')
    const depth = meta.delegationDepth ?? 0
    if (!Number.isInteger(depth) || depth < 0) throw storeError(path, 'delegationDepth must be a non-negative integer')
    if (meta.seedLength !== undefined && !(Number.isInteger(meta.seedLength) && meta.seedLength >= 0))
      throw storeError(path, 'seedLength must be a non-negative integer')
    if (await exists(path)) throw storeError(path, 'session already exists')
    const elsewhere = await this.find(meta.id, true)
    if (elsewhere) throw storeError(elsewhere, `session ${meta.id} already exists (under another cwd)`)
    const header: SessionHeader = {
      type: 'session',
      version: SESSION_FORMAT_VERSION,
      id: meta.id,
      ...(meta.cwd !== undefined ? { cwd: meta.cwd } : {}),
      createdAt: meta.createdAt ?? new Date().toISOString(),
      ...(meta.parentSession !== undefined ? { parentSession: meta.parentSession } : {}),
      ...(meta.seedLength !== undefined ? { seedLength: meta.seedLength } : {}),
      ...(meta.origin !== undefined ? { origin: meta.origin } : {}),
      delegationDepth: depth,
      ...(meta.agentPreset !== undefined ? { agentPreset: meta.agentPreset } : {}),
    }
    this.active.set(meta.id, this.fresh(header, path, false, 0, 0))
    return deepFreeze({ ...header })
  }

  private fresh(header: SessionHeader, path: string, materialized: boolean, size: number, seq: number): Active {
    return {
      header,
      path,
      materialized,
      size,
      nextSeq: seq,
      storedSeq: seq,
      pending: [],
      pendingEvents: [],
      pendingCount: 0,
      held: [],
      firstPendingAt: 0,
      waiters: [],
    }
  }

  /** Queues events; resolves once the batch holding them is durable (fsynced). The first
   * event's seq must continue the log; seqs must be consecutive. */
  append(id: string, events: readonly StoredEvent[]): Promise<void> {
    if (this.disposed) return Promise.reject(new ClaudeJsonlError('store: disposed', EXIT.usage))
    const s = this.active.get(id)
    if (!s)
      return Promise.reject(
        new ClaudeJsonlError(`store: session ${id} is not open (create or load it first)`, EXIT.usage),
      )
    if (s.broken) return Promise.reject(s.broken)
    if (!Array.isArray(events) || events.length === 0)
      return Promise.reject(storeError(s.path, 'append needs at least one event'))
    const lines: string[] = []
    for (let i = 0; i < events.length; i++) {
      const e = events[i]
      if (!e || typeof e.type !== 'string') return Promise.reject(storeError(s.path, `event ${i} has no type`))
      if (e.seq !== s.nextSeq + i) {
        return Promise.reject(
          storeError(
            s.path,
            `event ${e.type} has seq ${e.seq}, expected ${s.nextSeq + i} (seq must continue the stored log)`,
          ),
        )
      }
      let line: string
      try {
        line = JSON.stringify(e)
      } catch (err) {
        return Promise.reject(
          storeError(s.path, `event ${e.type}: data is not JSON-serialisable (${(err as Error).message})`),
        )
      }
      if (e.data !== undefined && JSON.stringify(e.data) === undefined) {
        return Promise.reject(storeError(s.path, `event ${e.type}: data is not JSON-serialisable`))
      }
      lines.push(line)
    }
    s.nextSeq += events.length
    if (s.pendingCount === 0) s.firstPendingAt = Date.now()
    s.pending.push(...lines)
    s.pendingEvents.push(...events)
    s.pendingCount += lines.length
    const done = new Promise<void>((resolve, reject) => s.waiters.push({ resolve, reject }))
    this.arm(s)
    return done
  }

  /** Opens the batching window if the queue is idle: fixed from the first pending event. */
  private arm(s: Active): void {
    if (s.timer || s.writing || s.pendingCount === 0) return
    const wait = Math.max(0, s.firstPendingAt + this.windowMs - Date.now())
    s.timer = setTimeout(() => {
      s.timer = undefined
      void this.writeBatch(s).catch(() => {})
    }, wait)
  }

  private writeBatch(s: Active): Promise<void> {
    if (s.writing) return s.writing
    if (s.pendingCount === 0) return Promise.resolve()
    const { held, pending, pendingEvents } = s
    const count = s.pendingCount
    const waiters = s.waiters
    s.held = []
    s.pending = []
    s.pendingEvents = []
    s.pendingCount = 0
    s.waiters = []
    const text = Buffer.from(this.batchText(held, pending, pendingEvents), 'utf8')
    s.writing = this.persist(s, text).then(
      () => {
        s.storedSeq += held.length + count
        for (const w of waiters) w.resolve()
      },
      (err) => {
        // the failed batch and everything queued behind it are dropped: seq restarts at the
        // stored log's end (and its held closers), so a retry continues it
        for (const w of [...waiters, ...s.waiters]) w.reject(err)
        s.held = held
        s.pending = []
        s.pendingEvents = []
        s.pendingCount = 0
        s.waiters = []
        s.nextSeq = s.storedSeq + held.length
        throw err
      },
    )
    const w = s.writing
    void w
      .finally(() => {
        s.writing = undefined
        this.arm(s)
      })
      .catch(() => {})
    return w
  }

  /** One batch's lines: held closers first, then the appended events, packed when enabled
   * (an event stored as it is keeps the line append made of it). */
  private batchText(held: StoredEvent[], lines: string[], events: StoredEvent[]): string {
    const all = [...held, ...events]
    const lineOf = new Map<unknown, string>(events.map((e, i) => [e, lines[i]]))
    const records = this.packChunks ? packChunks(all) : all
    return records.map((r) => lineOf.get(r) ?? JSON.stringify(r)).join('\n') + '\n'
  }

  private async persist(s: Active, text: Buffer): Promise<void> {
    const batch = await native.storeEncodeBatchAsync(text, this.compression)
    if (!s.materialized) return this.publish(s, batch)
    const fh = s.fh!
    const prev = s.size
    try {
      let off = 0
      while (off < batch.length) {
        const { bytesWritten } = await fh.write(batch, off, batch.length - off, prev + off)
        off += bytesWritten
      }
      this.faults?.afterWrite?.(s.path)
      await fh.sync()
    } catch (err) {
      try {
        await fh.truncate(prev)
        await fh.sync()
      } catch (err2) {
        s.broken = storeError(
          s.path,
          `write failed (${(err as Error).message}) and rollback failed (${(err2 as Error).message}); load the session again before appending`,
        )
        throw s.broken
      }
      throw storeError(s.path, `write failed, rolled back to ${prev} bytes (${(err as Error).message})`)
    }
    s.size = prev + batch.length
  }

  /** First append: header + first batch to a temp file, fsync, hard-link without clobbering,
   * parent fsync. The writer lock is taken on the temp inode before it becomes visible. */
  private async publish(s: Active, batch: Buffer): Promise<void> {
    const dir = join(s.path, '..')
    await this.makeDirs(dir)
    await sweepDeadTemps(dir)
    const header = await native.storeEncodeBatchAsync(
      Buffer.from(JSON.stringify(s.header) + '\n', 'utf8'),
      this.compression,
    )
    const bytes = Buffer.concat([header, batch])
    const tmp = join(dir, `.${TRANSCRIPT_NAME}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`)
    const fh = await fs.open(tmp, fsc.O_CREAT | fsc.O_EXCL | fsc.O_RDWR, 0o644)
    let lock: StoreLock | undefined
    try {
      await fh.writeFile(bytes)
      this.faults?.afterWrite?.(s.path)
      await fh.sync()
      lock = native.storeLock(tmp)
      try {
        await fs.link(tmp, s.path)
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'EEXIST')
          throw storeError(s.path, 'session already exists (not overwritten)')
        throw storeError(s.path, `cannot publish: ${(err as Error).message}`)
      }
    } catch (err) {
      lock?.release()
      await fh.close().catch(() => {})
      await fs.unlink(tmp).catch(() => {})
      throw err
    }
    await fs.unlink(tmp)
    await fsyncDir(dir)
    s.fh = fh
    s.lock = lock
    s.size = bytes.length
    s.materialized = true
  }

  private async makeDirs(dir: string): Promise<void> {
    const missing: string[] = []
    for (let d = dir; !(await exists(d)); d = join(d, '..')) missing.unshift(d)
    for (const d of missing) {
      await fs.mkdir(d).catch((e: NodeJS.ErrnoException) => {
        if (e.code !== 'EEXIST') throw storeError(d, `cannot create: ${e.message}`)
      })
      await fsyncDir(join(d, '..'))
    }
  }

  /** Writes everything queued, now (one session, or all). */
  async flush(id?: string): Promise<void> {
    const targets = id === undefined ? [...this.active.values()] : [this.active.get(id)].filter((s): s is Active => !!s)
    for (const s of targets) {
      if (s.timer) {
        clearTimeout(s.timer)
        s.timer = undefined
      }
      while (s.writing || s.pendingCount > 0) {
        if (s.writing) await s.writing.catch(() => {})
        else await this.writeBatch(s)
      }
    }
  }

  /** Flushes every session, closes files and releases writer locks. */
  async dispose(): Promise<void> {
    if (this.disposed) return
    let first: unknown
    try {
      await this.flush()
    } catch (e) {
      first = e
    }
    this.disposed = true
    for (const s of this.active.values()) {
      await s.fh?.close().catch(() => {})
      s.lock?.release()
    }
    this.active.clear()
    if (first) throw first
  }

  /** Finds a session's transcript by id: exactly one matching session folder. */
  private async find(id: string): Promise<string>
  private async find(id: string, optional: true): Promise<string | undefined>
  private async find(id: string, optional = false): Promise<string | undefined> {
    const name = escapeSessionId(id)
    const found: string[] = []
    for (const project of await this.projects()) {
      const dir = join(this.root, project, name)
      // a folder without a transcript is a first publish that never happened (e.g. a crash)
      const t = (await exists(dir)) ? await this.transcriptIn(dir, false) : undefined
      if (t) found.push(t)
    }
    if (found.length === 0 && optional) return undefined
    if (found.length === 0)
      throw new ClaudeJsonlError(`${join(this.root, '*', name)}: no such stored session`, EXIT.input, this.root)
    if (found.length > 1) throw storeError(found[1], `session ${id} is stored twice (also ${found[0]})`)
    return found[0]
  }

  /** The project folders of the root; a flat file in the root is refused by name. */
  private async projects(): Promise<string[]> {
    let entries: import('node:fs').Dirent[]
    try {
      entries = await fs.readdir(this.root, { withFileTypes: true })
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return []
      throw storeError(this.root, `cannot read store root: ${(e as Error).message}`)
    }
    const out: string[] = []
    for (const e of entries) {
      // an archive root's index (claude-jsonl archive) and its temp files
      if (e.name.startsWith(ARCHIVE_INDEX)) continue
      if (!e.isDirectory())
        throw storeError(
          join(this.root, e.name),
          'not a project folder: flat files in a store root are not loaded (use a separate root)',
        )
      out.push(e.name)
    }
    return out.sort()
  }

  /** The transcript in a session folder; the opposite encoding is refused by name. */
  private async transcriptIn(dir: string, required: boolean): Promise<string | undefined> {
    const other: Compression = this.compression === 'zstd' ? 'none' : 'zstd'
    const wrong = join(dir, SUFFIX[other])
    if (await exists(wrong)) {
      throw storeError(
        wrong,
        `stored with compression '${other}' but this store uses '${this.compression}': choose the matching mode or a separate root`,
      )
    }
    const p = join(dir, SUFFIX[this.compression])
    if (await exists(p)) return p
    if (required) throw storeError(p, 'no such stored session')
    return undefined
  }

  /** Every materialised session folder: [id, transcript path]. */
  private async sessions(signal?: AbortSignal): Promise<Array<[string, string]>> {
    const out: Array<[string, string]> = []
    for (const project of await this.projects()) {
      checkAbort(signal)
      const pdir = join(this.root, project)
      for (const e of await fs.readdir(pdir, { withFileTypes: true })) {
        const p = join(pdir, e.name)
        if (!e.isDirectory())
          throw storeError(p, 'not a session folder: flat files in a store root are not loaded (use a separate root)')
        const id = unescapeSessionId(e.name)
        if (id === undefined) throw storeError(p, 'not a session folder name this store writes')
        const t = await this.transcriptIn(p, false)
        if (t) out.push([id, t])
      }
    }
    return out
  }

  private checkHeader(path: string, header: unknown, id?: string): SessionHeader {
    const h = header as SessionHeader
    if (!h || typeof h !== 'object' || h.type !== 'session')
      throw storeError(path, 'corrupt store: the first line is not a session header')
    if (h.version !== SESSION_FORMAT_VERSION) throw storeError(path, `unsupported session format version ${h.version}`)
    if (typeof h.id !== 'string' || (id !== undefined && h.id !== id))
      throw storeError(path, `header id ${JSON.stringify(h.id)} is not the requested session ${id}`)
    if (!Number.isInteger(h.delegationDepth) || h.delegationDepth < 0)
      throw storeError(path, 'header delegationDepth is missing or invalid')
    if (h.seedLength !== undefined && !(Number.isInteger(h.seedLength) && h.seedLength >= 0))
      throw storeError(path, 'header seedLength is invalid')
    if (this.locate(h).path !== path)
      throw storeError(path, `header id/cwd place this session at ${this.locate(h).path}`)
    return h
  }

  private parse(
    path: string,
    loaded: import('#native').StoreLoaded,
    id: string,
  ): { header: SessionHeader; events: StoredEvent[] } {
    let header: unknown
    try {
      header = JSON.parse(loaded.header.toString('utf8'))
    } catch {
      throw storeError(path, 'corrupt store: the header line is not JSON')
    }
    const h = this.checkHeader(path, header, id)
    const events: StoredEvent[] = []
    const text = loaded.data.toString('utf8')
    let at = 0
    while (at < text.length) {
      const nl = text.indexOf('\n', at)
      let value: unknown
      try {
        value = JSON.parse(text.slice(at, nl))
      } catch {
        throw storeError(path, `corrupt store: record ${events.length + 1} is not JSON`)
      }
      const decoded = decodeRecord(value)
      if (typeof decoded === 'string') throw storeError(path, `corrupt store: ${decoded}`)
      for (const e of decoded) {
        if (e === null || typeof e !== 'object' || e.seq !== events.length)
          throw storeError(
            path,
            `corrupt store: record ${events.length + 1} has seq ${e?.seq}, expected ${events.length}`,
          )
        events.push(e)
      }
      at = nl + 1
    }
    return { header: h, events }
  }

  /** Opens a stored session for appending: takes its writer lock, repairs a torn tail, returns
   * the header and every stored event. */
  async load(id: string): Promise<LoadedSession> {
    this.live()
    const open = this.active.get(id)
    if (open) {
      await this.flush(id)
      if (open.materialized) return withHeld(await this.read(open.path, id, false, false), open.held)
      return {
        header: open.header,
        events: [],
        path: open.path,
        revision: '',
        tornTail: false,
        recovered: 0,
        closers: 0,
      }
    }
    const path = await this.find(id)
    const lock = native.storeLock(path)
    try {
      const kept = await this.takePrepared(id, path)
      const out = kept && !kept.tornTail ? unfrozen(kept) : await this.read(path, id, true)
      const fh = await fs.open(path, 'r+')
      const st = await fh.stat()
      const s = this.fresh(out.header, path, true, st.size, out.events.length - out.closers)
      s.held = out.events.slice(out.events.length - out.closers)
      s.nextSeq = out.events.length
      s.fh = fh
      s.lock = lock
      this.active.set(id, s)
      return out
    } catch (e) {
      lock.release()
      throw e
    }
  }

  /** Reads a stored session whole. Every identity and format check passes on the bytes as read
   * before a torn tail is repaired (`repair`), so a file that fails one is never changed. The
   * file's identity (device, inode, size, ns mtime) must be the same before and after the read:
   * a file replaced or changed meanwhile is reported, not half-trusted. */
  private async read(path: string, id: string, repair: boolean, close = true): Promise<LoadedSession> {
    const before = revisionOf(await fs.stat(path, { bigint: true }))
    const loaded = await native.storeLoad(path, this.compression, false)
    let revision = revisionOf(await fs.stat(path, { bigint: true }))
    if (revision !== before) throw changedWhileRead(path)
    const { header, events } = this.parse(path, loaded, id)
    if (repair && loaded.tornAt !== undefined) {
      // still the file just checked (the writer lock keeps other stores out; this catches the rest)
      if (revisionOf(await fs.stat(path, { bigint: true })) !== revision) throw changedWhileRead(path)
      const fixed = await native.storeLoad(path, this.compression, true)
      if (fixed.fileLen !== loaded.fileLen || !fixed.data.equals(loaded.data)) throw changedWhileRead(path)
      revision = revisionOf(await fs.stat(path, { bigint: true }))
    }
    // a log that ends inside a turn is closed in memory (this store holds no writer for it)
    const closers = close ? recoveryClosers(events) : []
    events.push(...closers)
    return {
      header,
      events,
      path,
      revision,
      tornTail: loaded.tornAt !== undefined,
      recovered: loaded.tornKept,
      closers: closers.length,
    }
  }

  /** A read-only, frozen view of a stored session: a torn tail is reported, never cut. Kept
   * (up to preparedSessionCacheSize sessions) for a later inspect or load to reuse while the
   * file's revision is unchanged. */
  async inspect(id: string): Promise<Readonly<LoadedSession>> {
    this.live()
    const open = this.active.get(id)
    if (open?.materialized) return deepFreeze(withHeld(await this.read(open.path, id, false, false), open.held))
    const path = await this.find(id)
    const kept = await this.takePrepared(id, path)
    const view = kept ?? deepFreeze(await this.read(path, id, false))
    this.prepared.set(id, view)
    while (this.prepared.size > this.preparedSessionCacheSize) this.prepared.delete(this.prepared.keys().next().value!)
    return view
  }

  /** The kept inspection of a session (removed from the cache) if its file is still the same
   * revision, else undefined. */
  private async takePrepared(id: string, path: string): Promise<Readonly<LoadedSession> | undefined> {
    const kept = this.prepared.get(id)
    if (!kept) return undefined
    this.prepared.delete(id)
    const now = await fs.stat(path, { bigint: true }).catch(() => undefined)
    return kept.path === path && now && revisionOf(now) === kept.revision ? kept : undefined
  }

  /** Every stored session, from its header frame only. Duplicate ids are refused. */
  async list(): Promise<StoredSession[]> {
    this.live()
    const out: StoredSession[] = []
    const seen = new Map<string, string>()
    for (const [id, path] of await this.sessions()) {
      let header: unknown
      try {
        header = JSON.parse(native.storeReadHeader(path, this.compression).toString('utf8'))
      } catch (e) {
        if (e instanceof SyntaxError) throw storeError(path, 'corrupt store: the header line is not JSON')
        throw fromNative(e, path)
      }
      const h = this.checkHeader(path, header, id)
      if (seen.has(id)) throw storeError(path, `session ${id} is stored twice (also ${seen.get(id)})`)
      seen.set(id, path)
      out.push({ id, ...(h.cwd !== undefined ? { cwd: h.cwd } : {}), createdAt: h.createdAt, path, header: h })
    }
    return out
  }

  /** Lightweight revisions (device, inode, size, ns mtime) of every stored session; no parsing. */
  async listSnapshots(signal?: AbortSignal): Promise<Snapshot[]> {
    this.live()
    const out: Snapshot[] = []
    for (const [id, path] of await this.sessions(signal)) {
      checkAbort(signal)
      const st = await fs.stat(path, { bigint: true })
      checkAbort(signal)
      out.push({ id, path, revision: revisionOf(st) })
    }
    return out
  }

  /** The stored revision of one session, or undefined when it is not materialised. */
  async readStoredRevision(id: string): Promise<string | undefined> {
    this.live()
    const s = this.active.get(id)
    if (s && !s.materialized) return undefined
    const path = s ? s.path : await this.find(id, true)
    if (!path) return undefined
    return revisionOf(await fs.stat(path, { bigint: true }))
  }
}
