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

function parsedLines(bytes: Buffer): any[] {
  return linesOf(bytes).lines.map((l) => {
    try {
      return JSON.parse(l.toString('utf8'))
    } catch {
      return undefined
    }
  })
}

const toolUses = (r: any): string[] =>
  r?.type === 'assistant' && Array.isArray(r.message?.content)
    ? r.message.content.filter((b: any) => b?.type === 'tool_use').map((b: any) => b.id)
    : []
const toolResults = (r: any): string[] =>
  r?.type === 'user' && Array.isArray(r.message?.content)
    ? r.message.content.filter((b: any) => b?.type === 'tool_result').map((b: any) => b.tool_use_id)
    : []

/** Lines (0-based) of tool_result records an `orphan-tool-result` repair can relink: the record
 * answers every call of the record it hangs from, that call record is its API message alone (no
 * other record shares its `message.id`) and hangs from a record that is not an assistant one. */
export function callResultLines(bytes: Buffer): number[] {
  const recs = parsedLines(bytes)
  const at = new Map(recs.map((r, k) => [r?.uuid, k]))
  const out: number[] = []
  recs.forEach((r, k) => {
    const ids = toolResults(r)
    const j = at.get(r?.parentUuid)
    if (!ids.length || j === undefined || r.isSidechain) return
    const call = recs[j]
    const calls = toolUses(call)
    const p = at.get(call.parentUuid)
    const alone = recs.filter((x) => x?.type === 'assistant' && x.message?.id === call.message?.id).length === 1
    if (alone && p !== undefined && recs[p].type !== 'assistant' && calls.length === ids.length)
      if (calls.every((c) => ids.includes(c))) out.push(k)
  })
  return out
}

function replaceParent(line: Buffer, to: string): Buffer {
  const text = line.toString('utf8')
  const m = /"parentUuid":("[^"]*"|null)/.exec(text)
  if (!m) throw new Error('no parentUuid')
  return Buffer.from(text.replace(m[0], `"parentUuid":${to}`))
}

/** The tool_result record of line `k` hung from its call's parent instead of the call: the call
 * is left a leaf of its own, off the chain. */
export function resultOffItsCall(bytes: Buffer, k: number): Damaged {
  const { lines, terminated } = linesOf(bytes)
  const recs = parsedLines(bytes)
  const call = recs.find((r) => r?.uuid === recs[k].parentUuid)
  const l = [...lines]
  l[k] = replaceParent(lines[k], JSON.stringify(call.parentUuid))
  return { damaged: join(l, terminated), expected: bytes }
}

/** The tool_result record of line `k` with a parent never written and a time just after its
 * call's parent (so the client re-attaches it there, not to the call); the repair gives it back
 * relinked to its call, with the time it now has. Undefined when another record's time lies in
 * that millisecond. */
export function resultOffItsCallByTime(bytes: Buffer, k: number): Damaged | undefined {
  const { lines, terminated } = linesOf(bytes)
  const recs = parsedLines(bytes)
  const call = recs.find((r) => r?.uuid === recs[k].parentUuid)
  const parent = recs.find((r) => r?.uuid === call.parentUuid)
  const t0 = Date.parse(parent.timestamp)
  const ts = new Date(t0 + 1).toISOString()
  const times = recs.filter((r) => r?.timestamp && r !== parent).map((r) => Date.parse(r.timestamp))
  if (times.some((t) => t >= t0 && t <= t0 + 1)) return undefined
  const text = lines[k].toString('utf8')
  const stamp = `"timestamp":${JSON.stringify(recs[k].timestamp)}`
  if (!text.includes(stamp)) return undefined
  const retimed = Buffer.from(text.replace(stamp, `"timestamp":"${ts}"`))
  const l = [...lines]
  l[k] = replaceParent(retimed, '"00000000-dead-4000-8000-000000000000"')
  const e = [...lines]
  e[k] = retimed
  return { damaged: join(l, terminated), expected: join(e, terminated) }
}

/** The call record the tool_result of line `k` answers removed (never written), the result hung
 * from the call's parent: no record holds its call any more. */
export function callRecordLost(bytes: Buffer, k: number): Buffer {
  const { lines, terminated } = linesOf(bytes)
  const recs = parsedLines(bytes)
  const j = recs.findIndex((r) => r?.uuid === recs[k].parentUuid)
  const l = [...lines]
  l[k] = replaceParent(lines[k], JSON.stringify(recs[j].parentUuid))
  l.splice(j, 1)
  return join(l, terminated)
}
