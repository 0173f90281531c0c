// Damage as real transcripts get it, made at test time in a copy of a transcript's bytes (never in
// the shared files): each function returns the damaged bytes and the bytes a correct repair gives
// back (the undamaged file itself, except that a lone surrogate comes back as U+FFFD, as the
// scanner reads it).

export interface Damaged {
  damaged: Buffer
  /** What `repair` must give back. */
  expected: Buffer
}

/** The file as lines (without their terminators) and whether it ends with a newline. */
export function linesOf(bytes: Buffer): { lines: Buffer[]; terminated: boolean } {
  const parts: Buffer[] = []
  let at = 0
  for (;;) {
    const nl = bytes.indexOf(0x0a, at)
    if (nl < 0) break
    parts.push(bytes.subarray(at, nl))
    at = nl + 1
  }
  const terminated = at === bytes.length
  if (!terminated) parts.push(bytes.subarray(at))
  return { lines: parts, terminated }
}

export function join(lines: Buffer[], terminated: boolean): Buffer {
  const out: Buffer[] = []
  lines.forEach((l, i) => {
    out.push(l)
    if (i < lines.length - 1 || terminated) out.push(Buffer.from('\n'))
  })
  return Buffer.concat(out)
}

const NL = Buffer.from('\n')

/** Two records on one line: the newline after line `k` (0-based) is lost. */
export function recordsOnOneLine(bytes: Buffer, k: number): Damaged {
  const { lines, terminated } = linesOf(bytes)
  const joined = [...lines.slice(0, k), Buffer.concat([lines[k], lines[k + 1]]), ...lines.slice(k + 2)]
  return { damaged: join(joined, terminated), expected: bytes }
}

/** A write cut short at the end of the file: the first `cut` bytes of a record appended. */
export function tornTail(bytes: Buffer, record: Buffer, cut: number): Damaged {
  const base = bytes.length === 0 || bytes[bytes.length - 1] === 0x0a ? bytes : Buffer.concat([bytes, NL])
  return { damaged: Buffer.concat([base, record.subarray(0, cut)]), expected: base }
}

/** A process killed mid-write: the first `cut` bytes of line `k`'s record written, then line `k`
 * itself written onto the same line. */
export function tornBeforeRecord(bytes: Buffer, k: number, cut: number): Damaged {
  const { lines, terminated } = linesOf(bytes)
  const damagedLines = [...lines]
  damagedLines[k] = Buffer.concat([lines[k].subarray(0, cut), lines[k]])
  return { damaged: join(damagedLines, terminated), expected: bytes }
}

/** An interrupted append padded with NUL bytes: `n` NULs before line `k` (on its own line when
 * `ownLine`, else on the same line as the record). */
export function nulPadding(bytes: Buffer, k: number, n: number, ownLine: boolean): Damaged {
  const { lines, terminated } = linesOf(bytes)
  const nul = Buffer.alloc(n)
  const damagedLines = ownLine
    ? [...lines.slice(0, k), nul, ...lines.slice(k)]
    : [...lines.slice(0, k), Buffer.concat([nul, lines[k]]), ...lines.slice(k + 1)]
  return { damaged: join(damagedLines, terminated), expected: bytes }
}

/** A lone high surrogate escape written into the first `"text":"` string of line `k` (a string
 * cut inside an emoji); the repair gives it back as `\ufffd`. */
export function loneSurrogate(bytes: Buffer, k: number): Damaged {
  const { lines, terminated } = linesOf(bytes)
  const at = lines[k].indexOf('"text":"')
  if (at < 0) throw new Error(`line ${k + 1} has no text string`)
  const insert = (esc: string) => {
    const l = [...lines]
    const p = at + '"text":"'.length
    l[k] = Buffer.concat([lines[k].subarray(0, p), Buffer.from(esc), lines[k].subarray(p)])
    return join(l, terminated)
  }
  return { damaged: insert('\\ud83d'), expected: insert('\\ufffd') }
}

/** The parent of line `k`'s record replaced by a uuid no record has (its parent never written). */
export function danglingParent(bytes: Buffer, k: number): Damaged {
  const { lines, terminated } = linesOf(bytes)
  const text = lines[k].toString('utf8')
  const m = /"parentUuid":"[0-9a-f-]{36}"/.exec(text)
  if (!m) throw new Error(`line ${k + 1} has no parentUuid`)
  const l = [...lines]
  l[k] = Buffer.from(text.replace(m[0], '"parentUuid":"00000000-dead-4000-8000-000000000000"'))
  return { damaged: join(l, terminated), expected: bytes }
}

/** Lines (0-based) of records a dangling-parent repair can relink unambiguously: a conversation
 * record whose parent is the nearest earlier conversation record, written earlier (timestamps in
 * file order up to it). */
export function relinkableLines(bytes: Buffer): number[] {
  const { lines } = linesOf(bytes)
  const recs = lines.map((l) => {
    try {
      return JSON.parse(l.toString('utf8'))
    } catch {
      return undefined
    }
  })
  const out: number[] = []
  const isConv = (r: any) => r && (r.type === 'user' || r.type === 'assistant') && !r.isSidechain && r.uuid
  const times = recs.filter(isConv).map((r) => Date.parse(r.timestamp))
  let last: { uuid: string; ts: number } | undefined
  let latest = -Infinity
  recs.forEach((r, k) => {
    if (!isConv(r)) return
    const ts = Date.parse(r.timestamp)
    // The client re-attaches by timestamp over the whole file: no record may lie in between.
    const between = (x: number) => x > (last?.ts ?? Infinity) && x < ts
    if (last && r.parentUuid === last.uuid && last.ts === latest && ts > last.ts && !times.some(between)) out.push(k)
    latest = Math.max(latest, ts)
    last = { uuid: r.uuid, ts }
  })
  return out
}

/** Lines (0-based) whose record has a `"text":"` string and parses as JSON. */
export function textLines(bytes: Buffer, type?: string): number[] {
  const { lines } = linesOf(bytes)
  const out: number[] = []
  lines.forEach((l, k) => {
    if (!l.includes('"text":"')) return
    try {
      const r = JSON.parse(l.toString('utf8'))
      if (!type || r.type === type) out.push(k)
    } catch {
      // not a record
    }
  })
  return out
}
