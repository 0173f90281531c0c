// Random transcript graphs for property tests: a main conversation (prompts, meta records,
// thinking, parallel tool calls written as Claude Code writes them, progress records off the
// chain), rewound branches forking from it and written at random places in the file, an
// optional native compaction, snapshots, titles, and a last-prompt naming the main leaf.
// Every text on a rewound branch carries PLANTED, so a test can prove none of it is kept.
import fc from 'fast-check'

export const SESSION = '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d'
export const PLANTED = 'PLANTED'

export interface Turn {
  meta: boolean
  thinking: boolean
  tools: number
}
export interface Branch {
  /** Fork from the last record of main turn `at % written-so-far`. */
  at: number
  /** Written just before main turn `writtenBefore` (or at the end). */
  writtenBefore: number
  tool: boolean
}
export interface Shape {
  turns: Turn[]
  branches: Branch[]
  /** Compact after main turn `compactAfter % (turns - 1)`, when set. */
  compactAfter: number | null
  snapshots: boolean
  progress: boolean
  titles: number
}

export const shapeArb: fc.Arbitrary<Shape> = fc.record({
  turns: fc.array(fc.record({ meta: fc.boolean(), thinking: fc.boolean(), tools: fc.integer({ min: 0, max: 3 }) }), {
    minLength: 2,
    maxLength: 9,
  }),
  branches: fc.array(fc.record({ at: fc.nat(), writtenBefore: fc.nat(), tool: fc.boolean() }), { maxLength: 3 }),
  compactAfter: fc.option(fc.nat(), { nil: null }),
  snapshots: fc.boolean(),
  progress: fc.boolean(),
  titles: fc.integer({ min: 0, max: 2 }),
})

export interface Built {
  records: Record<string, any>[]
  /** uuids of the main line's records (what the active chain may hold). */
  main: string[]
  /** Indexes (into records) of records on rewound branches. */
  branch: number[]
  /** Indexes of main-line records after the compaction (model-visible), boundary and summary included. */
  visible: number[]
  leaf: string
}

export function build(shape: Shape): Built {
  let clock = Date.parse('2026-03-01T10:00:00.000Z')
  let n = 0
  const records: Record<string, any>[] = []
  const main: string[] = []
  const branch: number[] = []
  const visible: number[] = []
  let compacted = false
  const ts = () => new Date((clock += 1000)).toISOString()
  const id = (p: string) => `${p}-${++n}`
  const base = (uuid: string, parent: string | null) => ({
    parentUuid: parent,
    isSidechain: false,
    uuid,
    timestamp: ts(),
    sessionId: SESSION,
  })
  const push = (r: Record<string, any>, onMain: boolean) => {
    if (onMain) {
      main.push(r.uuid)
      if (compacted) visible.push(records.length)
    } else if (r.uuid) {
      branch.push(records.length)
    }
    records.push(r)
  }
  const tool = (tid: string, tag: string) => ({
    type: 'tool_use',
    id: tid,
    name: 'Bash',
    input: { command: `ls ${tag}` },
  })
  /** One turn from `parent`; returns the last record's uuid. */
  const turn = (parent: string | null, t: Turn, onMain: boolean): string => {
    const tag = onMain ? 'main' : PLANTED
    let at = parent
    if (t.meta) {
      const m: Record<string, any> = {
        ...base(id('meta'), at),
        type: 'user',
        isMeta: true,
        message: { role: 'user', content: `<local-command-caveat>${tag}</local-command-caveat>` },
      }
      push(m, onMain)
      at = m.uuid
    }
    const u: Record<string, any> = {
      ...base(id('u'), at),
      type: 'user',
      message: { role: 'user', content: `prompt ${tag} ${n}` },
    }
    push(u, onMain)
    at = u.uuid
    if (shape.snapshots && onMain)
      records.push({
        type: 'file-history-snapshot',
        messageId: u.uuid,
        snapshot: { messageId: u.uuid, trackedFileBackups: {} },
        isSnapshotUpdate: false,
      })
    const mid = id('msg')
    if (t.thinking) {
      const th: Record<string, any> = {
        ...base(id('th'), at),
        type: 'assistant',
        message: {
          id: mid,
          role: 'assistant',
          model: 'claude-opus-4-7',
          content: [{ type: 'thinking', thinking: `thinking ${tag}`, signature: 'c2ln' }],
        },
      }
      push(th, onMain)
      at = th.uuid
    }
    if (t.tools > 0) {
      const frags: { uuid: string; tid: string }[] = []
      for (let k = 0; k < t.tools; k++) {
        const tid = `toolu_${id('t')}`
        const f: Record<string, any> = {
          ...base(id('f'), at),
          type: 'assistant',
          message: { id: mid, role: 'assistant', model: 'claude-opus-4-7', content: [tool(tid, tag)] },
        }
        push(f, onMain)
        at = f.uuid
        frags.push({ uuid: f.uuid, tid })
        if (shape.progress)
          records.push({ ...base(id('p'), f.uuid), type: 'progress', data: { type: 'bash_progress', output: tag } })
      }
      for (const f of frags) {
        const r: Record<string, any> = {
          ...base(id('r'), f.uuid),
          type: 'user',
          message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: f.tid, content: `result ${tag}` }] },
          sourceToolAssistantUUID: f.uuid,
        }
        push(r, onMain)
        at = r.uuid
      }
      const a = {
        ...base(id('a'), at),
        type: 'assistant',
        message: {
          id: id('msg'),
          role: 'assistant',
          model: 'claude-opus-4-7',
          content: [{ type: 'text', text: `answer ${tag}` }],
        },
      }
      push(a, onMain)
      return a.uuid
    }
    const a = {
      ...base(id('a'), at),
      type: 'assistant',
      message: {
        id: mid,
        role: 'assistant',
        model: 'claude-opus-4-7',
        content: [{ type: 'text', text: `answer ${tag}` }],
      },
    }
    push(a, onMain)
    return a.uuid
  }
  const ends: string[] = []
  const compactAfter = shape.compactAfter === null ? -1 : shape.compactAfter % (shape.turns.length - 1)
  const writeBranches = (before: number) => {
    for (const b of shape.branches) {
      const when = b.writtenBefore % (shape.turns.length + 1)
      // Never from the main leaf: a branch below it would make the pointer stale.
      const forks = before === shape.turns.length ? ends.slice(0, -1) : ends
      if (when !== before || forks.length === 0) continue
      const from = forks[b.at % forks.length]
      turn(from, { meta: false, thinking: false, tools: b.tool ? 1 : 0 }, false)
    }
  }
  let tip: string | null = null
  for (let i = 0; i < shape.turns.length; i++) {
    writeBranches(i)
    if (i === shape.titles) records.push({ type: 'custom-title', customTitle: `title ${i}`, sessionId: SESSION })
    tip = turn(tip, shape.turns[i], true)
    ends.push(tip)
    if (i === compactAfter) {
      compacted = true
      const b = {
        ...base(id('b'), null),
        logicalParentUuid: tip,
        type: 'system',
        subtype: 'compact_boundary',
        content: 'Conversation compacted',
        isMeta: false,
        compactMetadata: { trigger: 'manual', preTokens: 999 },
      }
      push(b, true)
      const s = {
        ...base(id('s'), b.uuid),
        type: 'user',
        isCompactSummary: true,
        isVisibleInTranscriptOnly: true,
        message: { role: 'user', content: 'This session is being continued from a previous conversation. SUMMARY' },
      }
      push(s, true)
      tip = s.uuid
      ends[ends.length - 1] = s.uuid
    }
  }
  writeBranches(shape.turns.length)
  if (!compacted) visible.unshift(...main.map((u) => records.findIndex((r) => r.uuid === u)))
  records.push({ type: 'permission-mode', permissionMode: 'default', sessionId: SESSION })
  records.push({ type: 'last-prompt', lastPrompt: 'the last prompt', leafUuid: tip, sessionId: SESSION })
  return { records, main, branch, visible, leaf: tip! }
}

export function toJsonl(records: Record<string, any>[]): Buffer {
  return Buffer.from(records.map((r) => (typeof r === 'string' ? r : JSON.stringify(r))).join('\n') + '\n')
}
