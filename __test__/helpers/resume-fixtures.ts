// Small hand-built transcripts for the real-client tests: each one a shape whose loading
// docs/claude-code-client.md describes, written as Claude Code writes it, with readable texts.

export const FIXTURE_SESSION = '5e551011-0000-4000-8000-00000000c11e'
export const FIXTURE_MODEL = 'claude-sonnet-4-5-20250929'

type Rec = Record<string, unknown>

/** A transcript under construction: records get uuids U-<name> and increasing timestamps. */
export class Transcript {
  readonly records: Rec[] = []
  private clock = 0
  private messages = 0

  uuid(name: string): string {
    const hex = Buffer.from(name).toString('hex').padEnd(12, '0').slice(0, 12)
    return `00000000-0000-4000-8000-${hex}`
  }

  private base(type: string, name: string, parent: string | null, extra: Rec): Rec {
    this.clock += 1
    const r: Rec = {
      parentUuid: parent === null ? null : this.uuid(parent),
      isSidechain: false,
      type,
      ...extra,
      uuid: this.uuid(name),
      timestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, this.clock)).toISOString(),
      sessionId: FIXTURE_SESSION,
      cwd: '/tmp/fixture',
      version: '2.1.100',
      userType: 'external',
    }
    this.records.push(r)
    return r
  }

  user(name: string, parent: string | null, content: unknown, extra: Rec = {}): this {
    this.base('user', name, parent, { message: { role: 'user', content }, ...extra })
    return this
  }

  /** An assistant record; records of one streamed message share `messageId`. */
  assistant(name: string, parent: string | null, content: unknown[], messageId = `msg_${++this.messages}`): this {
    this.base('assistant', name, parent, {
      message: {
        id: messageId,
        type: 'message',
        role: 'assistant',
        model: FIXTURE_MODEL,
        content,
        stop_reason: 'end_turn',
        usage: { input_tokens: 1, output_tokens: 1 },
      },
      requestId: `req_${messageId}`,
    })
    return this
  }

  text(name: string, parent: string | null, text: string, messageId?: string): this {
    return this.assistant(name, parent, [{ type: 'text', text }], messageId)
  }

  call(name: string, parent: string | null, toolId: string, messageId?: string): this {
    return this.assistant(
      name,
      parent,
      [{ type: 'tool_use', id: toolId, name: 'Bash', input: { command: `echo ${name}` } }],
      messageId,
    )
  }

  result(name: string, parent: string, toolId: string, output: string): this {
    return this.user(name, parent, [{ tool_use_id: toolId, type: 'tool_result', content: output, is_error: false }])
  }

  attachment(name: string, parent: string, attachment: Rec): this {
    this.base('attachment', name, parent, { attachment })
    return this
  }

  lastPrompt(leaf?: string): this {
    const r: Rec = { type: 'last-prompt', lastPrompt: 'x', sessionId: FIXTURE_SESSION }
    if (leaf) r.leafUuid = this.uuid(leaf)
    this.records.push(r)
    return this
  }

  /** A compact pair: boundary (parentUuid null, logicalParentUuid) and its summary child. */
  compact(boundary: string, logicalParent: string | null, summary: string, text: unknown, metadata: Rec = {}): this {
    this.base('system', boundary, null, {
      subtype: 'compact_boundary',
      content: 'Conversation compacted',
      isMeta: false,
      level: 'info',
      logicalParentUuid:
        logicalParent === null ? null : logicalParent.includes('-') ? logicalParent : this.uuid(logicalParent),
      compactMetadata: { trigger: 'manual', preTokens: 12345, ...metadata },
    })
    this.user(summary, boundary, text, { isCompactSummary: true, isVisibleInTranscriptOnly: true })
    return this
  }

  /** Changes a field of the message of the record named `name` (e.g. its model). */
  patch(name: string, change: (r: Rec) => void): this {
    const r = this.records.find((x) => x.uuid === this.uuid(name))
    if (!r) throw new Error(`no record ${name}`)
    change(r)
    return this
  }

  raw(r: Rec): this {
    this.records.push(r)
    return this
  }

  bytes(): Buffer {
    return Buffer.from(this.records.map((r) => JSON.stringify(r)).join('\n') + '\n')
  }
}

/** U1 A1 U2 A2(tool) R2 A3: the conversation most fixtures start from. */
function linearBase(t = new Transcript()): Transcript {
  return t
    .user('U1', null, 'U1: set up the project')
    .text('A1', 'U1', 'A1: done, what next?')
    .user('U2', 'A1', 'U2: run the build')
    .call('A2', 'U2', 'toolu_build')
    .result('R2', 'A2', 'toolu_build', 'build ok')
    .text('A3', 'R2', 'A3: the build passed')
}

/** The main branch U2…A3 written first (older), the alt branch U2alt A2alt (second child of A1) later. */
function branched(t = new Transcript()): Transcript {
  return linearBase(t)
    .user('U2alt', 'A1', 'U2-alt: no, write the docs instead')
    .text('A2alt', 'U2alt', 'A2-alt: docs written')
}

export interface Fixture {
  name: string
  bytes: Buffer
  /** What the notes say the client does with it. */
  expect: string
}

export function fixtures(): Fixture[] {
  const f = (name: string, t: Transcript, expect: string): Fixture => ({ name, bytes: t.bytes(), expect })
  return [
    f('linear + last-prompt', linearBase().lastPrompt('A3'), 'all six messages, leaf A3'),
    f(
      'parallel tool calls',
      new Transcript()
        .user('U1', null, 'U1: look at two files')
        .assistant(
          'A1t',
          'U1',
          [{ type: 'thinking', thinking: 'two reads at once', signature: 'c2lnbmF0dXJl' }],
          'msg_par',
        )
        .call('A1a', 'A1t', 'toolu_a', 'msg_par')
        .call('A1b', 'A1a', 'toolu_b', 'msg_par')
        .result('Ra', 'A1a', 'toolu_a', 'file a')
        .result('Rb', 'A1b', 'toolu_b', 'file b')
        .text('A2', 'Rb', 'A2: both read'),
      'one assistant message with thinking and both calls, one user message with both results (Ra is off the chain)',
    ),
    f(
      'parallel tool calls, results written out of call order',
      new Transcript()
        .user('U1', null, 'U1: two commands')
        .call('A1a', 'U1', 'toolu_first', 'msg_two')
        .call('A1b', 'A1a', 'toolu_second', 'msg_two')
        .result('Rb', 'A1b', 'toolu_second', 'second output')
        .result('Ra', 'A1a', 'toolu_first', 'first output')
        .text('A2', 'Ra', 'A2: both ran'),
      'the results in file order, second first (seen in real-06; the graph splices them in call order)',
    ),
    f('rewound, last-prompt on the main leaf', branched().lastPrompt('A3'), 'main branch (case 2a)'),
    f('rewound, last-prompt on the alt leaf', branched().lastPrompt('A2alt'), 'alt branch (case 2b)'),
    f('rewound, no last-prompt', branched(), 'alt branch: the last record in the file (case 2c)'),
    f(
      'stale pointer, linear continuation',
      linearBase().lastPrompt('U2').user('U3', 'A3', 'U3: and the tests?').text('A4', 'U3', 'A4: tests pass'),
      'the pointer names an interior record of the only chain: ignored, full history to A4',
    ),
    f(
      'interior pointer on one branch',
      branched().lastPrompt('U2'),
      'truncated at U2 + "No response requested." (case 2k)',
    ),
    f(
      'compact pair + suffix',
      linearBase()
        .compact('B1', 'A3', 'S1', 'SUMMARY: the project was set up and the build passed.')
        .user('U4', 'S1', 'U4: now deploy')
        .call('A4', 'U4', 'toolu_deploy')
        .result('R4', 'A4', 'toolu_deploy', 'deployed')
        .text('A5', 'R4', 'A5: deployed'),
      'summary merged with U4, older records dropped (case 3a)',
    ),
    f(
      'compact + preservedSegment',
      (() => {
        const t = linearBase()
        t.compact('B1', 'A3', 'S1', 'SUMMARY: the project was set up.', {
          preservedSegment: { headUuid: t.uuid('U2'), anchorUuid: t.uuid('S1'), tailUuid: t.uuid('A3') },
        })
        return t.user('U4', 'A3', 'U4: now deploy').text('A4', 'U4', 'A4: deployed')
      })(),
      'summary + preserved U2…A3 + U4 A4 (case 3h)',
    ),
    f(
      'trailing local command after a caveat',
      linearBase()
        .user('C1', 'A3', '<local-command-caveat>Caveat: local commands below.</local-command-caveat>', {
          isMeta: true,
        })
        .user('C2', 'C1', '<command-name>/exit</command-name>')
        .user('C3', 'C2', '<local-command-stdout>bye</local-command-stdout>'),
      "no synthetic answer: the trailing records join the client's final message",
    ),
    f(
      'attachments before a prompt and after a tool result',
      linearBase()
        .attachment('T1', 'A3', { type: 'date_change', newDate: '2026-01-02' })
        .user('U4', 'T1', 'U4: next step')
        .attachment('T2', 'U4', {
          type: 'hook_additional_context',
          content: ['be brief'],
          hookName: 'UserPromptSubmit',
          hookEvent: 'UserPromptSubmit',
          toolUseID: 'h1',
        })
        .call('A4', 'T2', 'toolu_next')
        .result('R4', 'A4', 'toolu_next', 'next done  ')
        .attachment('T3', 'R4', { type: 'task_reminder', content: [], itemCount: 0 })
        .text('A5', 'T3', 'A5: finished'),
      'reminders moved in front of the prompt; the one after the result folded into it',
    ),
    f(
      'session ends on a tool call',
      linearBase().call('A4', 'A3', 'toolu_end'),
      'an interrupted error result, then "No response requested." (case 4b)',
    ),
    f('two last-prompts: the last one wins', branched().lastPrompt('A2alt').lastPrompt('A3'), 'main branch (case 2g)'),
    f(
      'pointer to an unknown uuid',
      branched().raw({
        type: 'last-prompt',
        leafUuid: '00000000-0000-4000-8000-0000deadbeef',
        sessionId: FIXTURE_SESSION,
      }),
      'as with no pointer: alt branch (case 2f)',
    ),
    f(
      'compact boundary whose history is absent',
      new Transcript()
        .compact('B1', '00000000-0000-4000-8000-00000000f00d', 'S1', 'SUMMARY: earlier work in another file.')
        .user('U4', 'S1', 'U4: go on')
        .text('A4', 'U4', 'A4: going on'),
      'summary merged with U4 (case 3b)',
    ),
    f(
      'summary as blocks, followed by an assistant record',
      linearBase()
        .compact('B1', 'A3', 'S1', [{ type: 'text', text: 'SUMMARY: in blocks.' }])
        .text('A4', 'S1', 'A4: continuing after the summary'),
      'the summary is a user message of its own (cases 3c, 3g)',
    ),
    f(
      'two compactions: only the last counts',
      linearBase()
        .compact('B1', 'A3', 'S1', 'SUMMARY ONE')
        .user('U4', 'S1', 'U4: more')
        .text('A4', 'U4', 'A4: more done')
        .compact('B2', 'A4', 'S2', 'SUMMARY TWO')
        .user('U5', 'S2', 'U5: last part')
        .text('A5', 'U5', 'A5: all done'),
      'SUMMARY TWO + U5, A5 (case 3d)',
    ),
    f(
      'thinking written by another model',
      new Transcript()
        .user('U1', null, 'U1: think about it')
        .assistant('A1', 'U1', [
          { type: 'thinking', thinking: 'hmm', signature: 'c2ln' },
          { type: 'text', text: 'A1: thought' },
        ])
        .patch('A1', (r) => ((r.message as Rec).model = 'claude-opus-4-5-20251101'))
        .user('U2', 'A1', 'U2: and now?')
        .text('A2', 'U2', 'A2: now this'),
      'the thinking block is not sent (case 5b)',
    ),
    f(
      'a tool result whose call is gone',
      linearBase().result('R9', 'A3', 'toolu_gone', 'orphan output').text('A4', 'R9', 'A4: after the orphan'),
      'the result is removed, the message becomes "(no content)" (case 4f)',
    ),
    f(
      'a parent uuid that names no record',
      linearBase()
        .user('U4', 'A3', 'U4: next')
        .patch('U4', (r) => (r.parentUuid = '00000000-0000-4000-8000-00000000dead'))
        .text('A4', 'U4', 'A4: next done'),
      're-attached to the newest earlier record (case 4c)',
    ),
    f(
      'a uuid reused by a later record',
      linearBase().text('A3', 'R2', 'A3-DUP: the later copy'),
      "the later record takes the earlier one's place (case 4e)",
    ),
    f(
      'tool call without a result, then a prompt',
      linearBase().call('A4', 'A3', 'toolu_lost').user('U5', 'A4', 'U5: never mind').text('A5', 'U5', 'A5: ok'),
      'the unanswered call is dropped (case 4a)',
    ),
  ]
}
