// What a stored log line holds beyond one event verbatim, and what a reader adds to an
// interrupted log, for the session store (store.ts):
// - packed chunk rows: a run of at least three consecutive `assistant/chunk` delta events of the
//   same block (text, reasoning or tool-call arguments) stored as one line
//   (`text-chunks` / `reasoning-chunks` / `tool-call-chunks`: tags without a slash, so they are
//   never mistaken for event types). Only events whose whole shape is known pack; anything else
//   is stored as it is. Reading always expands rows, so packed, unpacked and mixed files load the
//   same events.
// - recovery closers: when the log ends inside a turn (the writer died), the synthetic events
//   that close it: an error result for every tool call the assistant asked for that has none
//   (TOOL_NOT_STARTED when no `tool/call` was recorded, TOOL_OUTCOME_UNKNOWN when one was), then
//   the open step's `step/end` and an interrupted `turn/end`. They continue the seq and reuse the
//   last event's time, so the same log always gets the same closers.

/** One event of a stored session: its sequence number, type, time and payload. */
export interface StoredEvent {
  seq: number
  type: string
  time?: number
  data?: unknown
}

/**
 * Error code of the result a loaded log gets for a tool call that never started (the log ends
 * before any `tool/call` event for it).
 */
export const TOOL_NOT_STARTED = 'TOOL_NOT_STARTED'
/**
 * Error code of the result a loaded log gets for a tool call that started but whose outcome was
 * never recorded (the writer died while it ran).
 */
export const TOOL_OUTCOME_UNKNOWN = 'TOOL_OUTCOME_UNKNOWN'

/** Fewer members than this do not pack (the row's envelope would cost about as much). */
const MIN_RUN = 3

type Obj = Record<string, unknown>
type DeltaKind = 'text-delta' | 'reasoning-delta' | 'tool-call-delta'
const ROW_OF: Record<DeltaKind, string> = {
  'text-delta': 'text-chunks',
  'reasoning-delta': 'reasoning-chunks',
  'tool-call-delta': 'tool-call-chunks',
}

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v)
const keysAre = (v: Obj, ...keys: string[]) =>
  Object.keys(v).length === keys.length && keys.every((k) => Object.hasOwn(v, k))

/** The delta kind of an event whose every key and type is the known chunk shape, else undefined. */
function deltaKind(e: StoredEvent): DeltaKind | undefined {
  const ev = e as unknown as Obj
  if (ev.type !== 'assistant/chunk' || !keysAre(ev, 'type', 'seq', 'time', 'data')) return undefined
  if (!Number.isSafeInteger(ev.seq) || (ev.seq as number) < 0 || !Number.isSafeInteger(ev.time)) return undefined
  const data = ev.data
  if (!isObj(data) || !keysAre(data, 'turn', 'step', 'chunk')) return undefined
  if (typeof data.turn !== 'number' || typeof data.step !== 'number') return undefined
  const c = data.chunk
  if (!isObj(c) || typeof c.index !== 'number') return undefined
  if (c.type === 'text-delta' || c.type === 'reasoning-delta')
    return keysAre(c, 'type', 'index', 'text') && typeof c.text === 'string' ? c.type : undefined
  if (c.type === 'tool-call-delta') {
    const shape =
      keysAre(c, 'type', 'index', 'id', 'argumentsDelta') ||
      (keysAre(c, 'type', 'index', 'id', 'name', 'argumentsDelta') && typeof c.name === 'string')
    return shape && typeof c.id === 'string' && typeof c.argumentsDelta === 'string' ? c.type : undefined
  }
  return undefined
}

interface Delta {
  seq: number
  time: number
  data: { turn: number; step: number; chunk: Obj }
}

/** Whether `b` continues a run that ends with `a` (both of `kind`). */
function continues(a: Delta, b: Delta, kind: DeltaKind): boolean {
  if (b.seq !== a.seq + 1 || !Number.isSafeInteger(b.time - a.time)) return false
  if (b.data.turn !== a.data.turn || b.data.step !== a.data.step || b.data.chunk.index !== a.data.chunk.index)
    return false
  if (kind !== 'tool-call-delta') return true
  const [x, y] = [a.data.chunk, b.data.chunk]
  return x.id === y.id && Object.hasOwn(x, 'name') === Object.hasOwn(y, 'name') && x.name === y.name
}

function row(kind: DeltaKind, run: Delta[]): Obj {
  const first = run[0]
  const data: Obj = {
    turn: first.data.turn,
    step: first.data.step,
    index: first.data.chunk.index,
    dt: run.slice(1).map((e, i) => e.time - run[i].time),
  }
  if (kind === 'tool-call-delta') {
    data.id = first.data.chunk.id
    if (Object.hasOwn(first.data.chunk, 'name')) data.name = first.data.chunk.name
    data.args = run.map((e) => e.data.chunk.argumentsDelta)
  } else data.texts = run.map((e) => e.data.chunk.text)
  return { type: ROW_OF[kind], seq0: first.seq, time0: first.time, data }
}

/** The records to store for a batch: each run of packable deltas as one row, the rest as is. */
export function packChunks(events: readonly StoredEvent[]): (StoredEvent | Obj)[] {
  const out: (StoredEvent | Obj)[] = []
  let kind: DeltaKind | undefined
  let run: Delta[] = []
  const end = () => {
    if (kind && run.length >= MIN_RUN) out.push(row(kind, run))
    else out.push(...(run as unknown as StoredEvent[]))
    kind = undefined
    run = []
  }
  for (const e of events) {
    const k = deltaKind(e)
    const d = e as unknown as Delta
    if (k && k === kind && continues(run[run.length - 1], d, k)) {
      run.push(d)
      continue
    }
    end()
    if (k) {
      kind = k
      run = [d]
    } else out.push(e)
  }
  end()
  return out
}

/** The events one stored line holds: a packed row expanded (Err text when it is malformed), any
 * other value as the one event it is. */
export function decodeRecord(v: unknown): StoredEvent[] | string {
  if (!isObj(v) || (v.type !== 'text-chunks' && v.type !== 'reasoning-chunks' && v.type !== 'tool-call-chunks'))
    return [v as unknown as StoredEvent]
  const tag = v.type
  if (!keysAre(v, 'type', 'seq0', 'time0', 'data')) return `a ${tag} row is not {type, seq0, time0, data}`
  if (!Number.isSafeInteger(v.seq0) || (v.seq0 as number) < 0 || !Number.isSafeInteger(v.time0))
    return `a ${tag} row's seq0/time0 are not safe integers`
  const d = v.data
  const tool = tag === 'tool-call-chunks'
  const shape =
    isObj(d) &&
    (tool
      ? keysAre(d, 'turn', 'step', 'index', 'id', 'dt', 'args') ||
        (keysAre(d, 'turn', 'step', 'index', 'id', 'name', 'dt', 'args') && typeof d.name === 'string')
      : keysAre(d, 'turn', 'step', 'index', 'dt', 'texts'))
  if (!shape || typeof d.turn !== 'number' || typeof d.step !== 'number' || typeof d.index !== 'number')
    return `a ${tag} row's data has an unknown shape`
  if (tool && typeof d.id !== 'string') return `a ${tag} row's id is not a string`
  const members = (tool ? d.args : d.texts) as unknown
  if (!Array.isArray(members) || members.length === 0 || members.some((m) => typeof m !== 'string'))
    return `a ${tag} row's members are not a non-empty list of strings`
  const dt = d.dt
  if (!Array.isArray(dt) || dt.length !== members.length - 1 || dt.some((g) => !Number.isSafeInteger(g)))
    return `a ${tag} row's dt does not give one whole gap between each two members`
  if (!Number.isSafeInteger((v.seq0 as number) + members.length - 1)) return `a ${tag} row's seqs overflow`
  const out: StoredEvent[] = []
  let time = v.time0 as number
  for (let k = 0; k < members.length; k++) {
    if (k > 0) time += dt[k - 1] as number
    if (!Number.isSafeInteger(time)) return `a ${tag} row's times overflow`
    const chunk: Obj = tool
      ? {
          type: 'tool-call-delta',
          index: d.index,
          id: d.id,
          ...(Object.hasOwn(d, 'name') ? { name: d.name } : {}),
          argumentsDelta: members[k],
        }
      : { type: tag === 'text-chunks' ? 'text-delta' : 'reasoning-delta', index: d.index, text: members[k] }
    out.push({
      type: 'assistant/chunk',
      seq: (v.seq0 as number) + k,
      time,
      data: { turn: d.turn, step: d.step, chunk },
    })
  }
  return out
}

/** The synthetic events that close a log ending inside a turn (empty when it is balanced). */
export function recoveryClosers(events: readonly StoredEvent[]): StoredEvent[] {
  let turn: unknown = null
  let step: unknown = null
  // calls asked for in the open step, in order: the seq of their `tool/call` once recorded
  const pending = new Map<string, { step: unknown; callSeq?: number }>()
  for (const e of events) {
    const data = isObj(e.data) ? e.data : {}
    switch (e.type) {
      case 'turn/start':
        turn = data.turn ?? null
        step = null
        pending.clear()
        break
      case 'turn/end':
        turn = null
        step = null
        pending.clear()
        break
      case 'step/start':
        step = data.step ?? null
        break
      case 'step/end':
        step = null
        pending.clear()
        break
      case 'assistant/message': {
        const content = isObj(data.message) ? data.message.content : undefined
        if (Array.isArray(content))
          for (const b of content)
            if (isObj(b) && b.type === 'tool-call' && typeof b.id === 'string') pending.set(b.id, { step: data.step })
        break
      }
      case 'tool/call': {
        const p = typeof data.callId === 'string' ? pending.get(data.callId) : undefined
        if (p) p.callSeq = e.seq
        break
      }
      case 'tool/result': {
        const source = isObj(data.message) ? data.message.source : undefined
        if (isObj(source) && typeof source.callId === 'string') pending.delete(source.callId)
        break
      }
    }
  }
  const last = events[events.length - 1]
  if (turn === null || !last) return []
  let seq = last.seq + 1
  const time = last.time
  const out: StoredEvent[] = []
  for (const [callId, p] of pending) {
    const started = p.callSeq !== undefined
    const text = started
      ? 'The tool call was interrupted after it was recorded, but no result was durably recorded. Its outcome is unknown: retry only if the operation is read-only or idempotent; if it may have side effects, first verify external state or ask the user.'
      : 'The tool call was interrupted before it was recorded as started. Retry it if it is still needed.'
    out.push({
      type: 'tool/result',
      seq,
      time,
      data: {
        turn,
        step: p.step,
        message: {
          id: `interrupted-tool-result-${callId}-${seq}`,
          role: 'user',
          source: { kind: 'tool', callId },
          content: [{ type: 'tool-result', toolCallId: callId, isError: true, content: [{ type: 'text', text }] }],
        },
        error: started
          ? { name: 'ToolOutcomeUnknownError', code: TOOL_OUTCOME_UNKNOWN }
          : { name: 'ToolNotStartedError', code: TOOL_NOT_STARTED },
      },
      surfaceOp: 'append',
      ...(started ? { sourceEventSeqs: [p.callSeq] } : {}),
    } as StoredEvent)
    seq++
  }
  if (step !== null) out.push({ type: 'step/end', seq: seq++, time, data: { turn, step } })
  out.push({ type: 'turn/end', seq: seq++, time, data: { turn, reason: { kind: 'interrupted' } } })
  return out
}
