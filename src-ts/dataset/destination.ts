// Where a dataset lives: a folder (or, through the same interface, object storage). Keys are
// `/`-separated paths below the dataset's root. A put is atomic: a reader sees the old object
// or the whole new one, never part of it (a folder: temp file, fsync, rename).
import { lstatSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { dirname, join, resolve, sep } from 'node:path'
import { checkWithin, publishFile } from '../durable-files.js'
import { fromNative, inputError } from '../errors.js'
import native from '../native.js'

export interface DatasetDestination {
  /** How the dataset is named to a person (the folder, or `s3://bucket/prefix`). */
  readonly label: string
  /** The keys below `prefix` (a folder key ending in `/`), recursively. */
  list(prefix: string): Promise<string[]>
  /** The object's bytes, or undefined when there is none. */
  get(key: string): Promise<Buffer | undefined>
  /** Writes the object; `private` (a table holding transcript text) keeps a folder's file to its
   * owner (0600), as the transcripts it comes from are. */
  put(key: string, bytes: Uint8Array, opts?: { private?: boolean }): Promise<void>
  /** Writes every object, each atomically (not the lot): a folder makes them all durable
   * together, before any is visible at its name. */
  putMany(objects: DatasetObject[]): Promise<void>
  delete(key: string): Promise<void>
  /** Writes the object only if there is none at `key` (atomically: of two callers, one gets
   * true); false when one exists. How an export takes its machine's lock. */
  putIfAbsent(key: string, bytes: Uint8Array): Promise<boolean>
  /** A local folder holding the dataset's files as they are, for a query engine to read. */
  localRoot(): Promise<string>
}

/** An object to write: its key, its bytes, and whether it holds transcript text (`put`'s private). */
export interface DatasetObject {
  key: string
  bytes: Uint8Array
  private?: boolean
}

/** Keys are plain relative paths: no `..`, no absolute path, nothing hidden but our own folder. */
export function checkKey(key: string): string {
  const parts = key.split('/')
  if (key.startsWith('/') || parts.some((p) => p === '' || p === '.' || p === '..'))
    throw new Error(`not a dataset key: ${key}`)
  return key
}

/** A dataset in a folder of this machine. Nothing is written through a link out of it. */
export class FolderDestination implements DatasetDestination {
  readonly root: string
  readonly label: string

  constructor(root: string) {
    this.root = resolve(root)
    this.label = this.root
  }

  /** Creates the folder when it is missing; refuses a file or a link where the folder should be. */
  open(): this {
    try {
      const st = lstatSync(this.root)
      if (st.isSymbolicLink()) throw inputError(this.root, 'is a symbolic link; give the folder it points to')
      if (!st.isDirectory()) throw inputError(this.root, 'is not a folder')
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e
      mkdirSync(this.root, { recursive: true, mode: 0o755 })
    }
    return this
  }

  private path(key: string): string {
    // What join(root, ...parts) gives, without its normalisation (an export names hundreds of
    // files): the root is resolved, and checkKey leaves no empty, `.` or `..` part.
    const rel = checkKey(key).split('/').join(sep)
    return this.root.endsWith(sep) ? this.root + rel : this.root + sep + rel
  }

  async list(prefix: string): Promise<string[]> {
    const out: string[] = []
    const walk = (dir: string, rel: string) => {
      let entries
      try {
        entries = readdirSync(dir, { withFileTypes: true })
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') return
        throw e
      }
      for (const d of entries) {
        if (d.name.startsWith('.')) continue // temp files of a put in progress
        if (d.isDirectory()) walk(join(dir, d.name), `${rel}${d.name}/`)
        else if (d.isFile()) out.push(`${rel}${d.name}`)
      }
    }
    const base = prefix.replace(/\/$/, '')
    walk(base ? this.path(base) : this.root, base ? `${base}/` : '')
    return out.sort()
  }

  async get(key: string): Promise<Buffer | undefined> {
    try {
      return readFileSync(this.path(key))
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined
      throw e
    }
  }

  async put(key: string, bytes: Uint8Array, opts: { private?: boolean } = {}): Promise<void> {
    const target = this.path(key)
    // No folder is made, and nothing written, through a link out of the dataset.
    checkWithin(target, this.root)
    mkdirSync(dirname(target), { recursive: true })
    await publishFile(target, bytes, { replace: true, within: this.root, mode: opts.private ? 0o600 : undefined })
  }

  async putMany(objects: DatasetObject[]): Promise<void> {
    // In the core: every file written to a temp name, one flush of the file system for all of
    // them, the renames, one flush for the renames (instead of two disk flushes per file).
    if (objects.length === 0) return
    try {
      await native.datasetPublish(
        this.root,
        objects.map((o) => ({ path: this.path(o.key), bytes: o.bytes, private: o.private === true })),
      )
    } catch (e) {
      throw fromNative(e)
    }
  }

  async putIfAbsent(key: string, bytes: Uint8Array): Promise<boolean> {
    const target = this.path(key)
    checkWithin(target, this.root)
    mkdirSync(dirname(target), { recursive: true })
    return publishFile(target, bytes, { within: this.root, keepExisting: true })
  }

  async delete(key: string): Promise<void> {
    checkWithin(this.path(key), this.root)
    rmSync(this.path(key), { force: true })
  }

  async localRoot(): Promise<string> {
    return this.root
  }
}
