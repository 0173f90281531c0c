// The source of a compression kept in memory only where it is being read (the peak RSS
// target: under 3x the file). After the plan, the whole buffer's pages go back to the OS; each
// later pass loads the spans of the records it reads (from the same open file, checked to be the
// file that was planned) and lets them go again; the candidate's kept records are read from the
// file straight into it. Offsets stay those of the scan, so every native pass reads the buffer
// as before. A source that changed on disk is refused.
import { closeSync, fstatSync, openSync, readSync, type BigIntStats } from 'node:fs'
import native from '../native.js'
import type { TranscriptIndex } from '../native.js'
import type { OutputPart, SummaryInputOptions } from '#native'
import { ClaudeJsonlError, EXIT } from '../errors.js'

/** Neighbouring records closer than this are read in one call (the gap is read too). */
const MERGE_GAP = 64 * 1024
/** A batch of summarised records is read from the file into one reused window of at most this
 * many bytes (its first to its last record); a batch spread wider is loaded into the buffer. */
const MAX_SUMMARY_WINDOW = 8 * 1024 * 1024

/** The file is still the one first seen: size, inode and nanosecond change/modify times catch
 * any write or replacement. */
export function sameFile(now: BigIntStats, was: BigIntStats): boolean {
  return now.size === was.size && now.ino === was.ino && now.mtimeNs === was.mtimeNs && now.ctimeNs === was.ctimeNs
}

/** The refusal of a source that changed while compress ran. */
export function sourceChanged(path: string): ClaudeJsonlError {
  return new ClaudeJsonlError(
    `${path}: the source changed during the run (is the session still open?); nothing written`,
    EXIT.input,
    path,
  )
}

export interface SourceSpans {
  /** Makes the bytes of `records` present in the buffer again. */
  load(records: ArrayLike<number>): void
  /** Gives the buffer's pages back; nothing in it may be read until loaded again. */
  release(): void
  /** summaryRecordsJson of `records` read straight from the file, never through the buffer;
   * undefined when the buffer is to be loaded instead. */
  summaryRecordsJson?(records: Uint32Array, limits: SummaryInputOptions): string | undefined
}

/** The candidate's bytes from `parts`, and the end of the source's use. */
export interface CompressSpans extends SourceSpans {
  assemble(parts: OutputPart[]): Buffer
  close(): void
}

/** Spans of a source mapped from its file (`native.mapFile`): the pages are always there to be
 * read (from the page cache, when touched), so loading is free; releasing drops them from the
 * process, which is what the peak RSS counts. */
export class MappedSpans implements CompressSpans {
  /** The byte range the last `load` named: what the next `release` drops (all when unknown). */
  private loaded: [number, number] | undefined
  private offsets: Float64Array | undefined
  private lengths: Uint32Array | undefined

  constructor(
    private readonly buffer: Buffer,
    private readonly index: TranscriptIndex,
  ) {}

  load(records: ArrayLike<number>): void {
    this.offsets ??= this.index.offsets()
    this.lengths ??= this.index.lengths()
    let start = Infinity
    let end = 0
    for (let k = 0; k < records.length; k++) {
      const i = records[k]
      start = Math.min(start, this.offsets[i])
      end = Math.max(end, this.offsets[i] + this.lengths[i])
    }
    this.loaded = records.length ? [start, end] : undefined
  }

  release(): void {
    if (this.loaded) native.releaseMapped(this.buffer, this.loaded[0], this.loaded[1])
    else native.releaseMapped(this.buffer)
    this.loaded = undefined
  }

  assemble(parts: OutputPart[]): Buffer {
    return native.assembleTranscript(this.buffer, this.index, parts)
  }

  close(): void {}
}

export class FileSpans implements CompressSpans {
  private fd: number | undefined
  private released = false
  private readonly offsets: Float64Array
  private readonly lengths: Uint32Array

  constructor(
    private readonly path: string,
    private readonly stat: BigIntStats,
    private readonly buffer: Buffer,
    private readonly index: TranscriptIndex,
  ) {
    this.offsets = index.offsets()
    this.lengths = index.lengths()
  }

  release(): void {
    if (native.releasePages(this.buffer) > 0) this.released = true
  }

  load(records: ArrayLike<number>): void {
    // Nothing was ever given back (a small file, or a platform that keeps the pages): the
    // buffer is still whole.
    if (!this.released || records.length === 0) return
    const fd = this.open()
    const order = Uint32Array.from(records).sort((a, b) => this.offsets[a] - this.offsets[b])
    let start = this.offsets[order[0]]
    let end = start + this.lengths[order[0]]
    for (let k = 1; k <= order.length; k++) {
      const off = k < order.length ? this.offsets[order[k]] : Infinity
      if (off <= end + MERGE_GAP) {
        end = Math.max(end, off + this.lengths[order[k]])
        continue
      }
      this.read(fd, start, end)
      start = off
      end = off + (k < order.length ? this.lengths[order[k]] : 0)
    }
  }

  summaryRecordsJson(records: Uint32Array, limits: SummaryInputOptions): string | undefined {
    if (!this.released || records.length === 0) return undefined
    const fd = this.open()
    try {
      return native.summaryRecordsJsonFromFile(this.path, this.index, records, MAX_SUMMARY_WINDOW, limits) ?? undefined
    } catch (e) {
      if (!sameFile(fstatSync(fd, { bigint: true }), this.stat)) throw sourceChanged(this.path)
      throw e
    }
  }

  /** The candidate built from `parts` (see assembleTranscript). Once the buffer was released, the
   * kept records are read from the file straight into it, never held twice. */
  assemble(parts: OutputPart[]): Buffer {
    if (!this.released) return native.assembleTranscript(this.buffer, this.index, parts)
    const fd = this.open()
    try {
      return native.assembleTranscriptFromFile(this.path, this.index, parts)
    } catch (e) {
      if (!sameFile(fstatSync(fd, { bigint: true }), this.stat)) throw sourceChanged(this.path)
      throw e
    }
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd)
    this.fd = undefined
  }

  /** The source, opened once and checked to be the file that was read and planned. */
  private open(): number {
    if (this.fd !== undefined) return this.fd
    let fd: number
    try {
      fd = openSync(this.path, 'r')
    } catch {
      throw sourceChanged(this.path)
    }
    if (!sameFile(fstatSync(fd, { bigint: true }), this.stat)) {
      closeSync(fd)
      throw sourceChanged(this.path)
    }
    this.fd = fd
    return fd
  }

  private read(fd: number, start: number, end: number): void {
    for (let at = start; at < end;) {
      const n = readSync(fd, this.buffer, at, end - at, at)
      if (n === 0) throw sourceChanged(this.path)
      at += n
    }
  }
}
