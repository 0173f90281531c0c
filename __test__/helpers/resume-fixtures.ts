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

  /** The rewound branch U2alt A2alt, a second child of A1, written now. */
  alternative(): this {
    return this.user('U2alt', 'A1', 'U2-alt: no, write the docs instead').text('A2alt', 'U2alt', 'A2-alt: docs written')
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

/** U1 A1: the opening of most fixtures. */
export function opening(t = new Transcript()): Transcript {
  return t.user('U1', null, 'U1: set up the project').text('A1', 'U1', 'A1: done, what next?')
}

/** U1 A1 U2 A2(tool) R2 A3: the conversation most fixtures start from. */
export function linearBase(t = new Transcript()): Transcript {
  return opening(t)
    .user('U2', 'A1', 'U2: run the build')
    .call('A2', 'U2', 'toolu_build')
    .result('R2', 'A2', 'toolu_build', 'build ok')
    .text('A3', 'R2', 'A3: the build passed')
}

/** The main branch U2…A3 written first (older), the alt branch U2alt A2alt (second child of A1) later. */
export function branched(t = new Transcript()): Transcript {
  return linearBase(t).alternative()
}

/** A streamed text block that says nothing. */
const BLANK = { type: 'text', text: '\n\n' }

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
      'the results in file order, second first (seen in real-06)',
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
      'interior pointer on a tool call',
      branched().lastPrompt('A2'),
      'resumed from the tool result R2, truncated there + "No response requested." (case 2e)',
    ),
    f(
      'interior pointer on parallel calls in fragments',
      opening()
        .user('U2', 'A1', 'U2: two commands')
        .assistant('A2t', 'U2', [{ type: 'thinking', thinking: 't', signature: 'c2ln' }], 'msg_p')
        .call('A2a', 'A2t', 'toolu_a', 'msg_p')
        .call('A2b', 'A2a', 'toolu_b', 'msg_p')
        .result('Ra', 'A2a', 'toolu_a', 'out a')
        .result('Rb', 'A2b', 'toolu_b', 'out b')
        .text('A3', 'Rb', 'A3: both ran')
        .alternative()
        .lastPrompt('A2a'),
      "resumed from the last fragment's result Rb: one message with both calls, both results",
    ),
    f(
      'interior pointer on a call without a result',
      opening()
        .user('U2', 'A1', 'U2: run it')
        .call('A2', 'U2', 'toolu_lost')
        .user('U3', 'A2', 'U3: never mind')
        .text('A3', 'U3', 'A3: ok')
        .alternative()
        .lastPrompt('A2'),
      'resumed from the call itself, closed with an interrupted result',
    ),
    f(
      'blank assistant records',
      new Transcript()
        .user('U1', null, 'U1: set up the project')
        .assistant('A1', 'U1', [{ type: 'text', text: '\n\n' }])
        .user('U2', 'A1', 'U2: anyone?')
        .assistant('A2a', 'U2', [{ type: 'text', text: '\n\n' }], 'msg_f')
        .call('A2b', 'A2a', 'toolu_f', 'msg_f')
        .result('R2', 'A2b', 'toolu_f', 'out')
        .assistant('A3', 'R2', [
          { type: 'thinking', thinking: 'x', signature: 'c2ln' },
          { type: 'text', text: ' \n' },
        ])
        .user('U4', 'A3', 'U4: next')
        .text('A4', 'U4', 'A4: end'),
      'blank-text records dropped: U1+U2 merged, the call alone, R2+U4 merged',
    ),
    f(
      'blank text beside other blocks',
      new Transcript()
        .user('U1', null, 'U1: set up the project')
        .assistant('A1', 'U1', [
          { type: 'text', text: '' },
          { type: 'text', text: 'A1: real' },
          { type: 'text', text: '  \n' },
        ])
        .user('U2', 'A1', [
          { type: 'text', text: '' },
          { type: 'text', text: 'U2: real' },
          { type: 'text', text: '\n\n' },
        ])
        .assistant('A2', 'U2', [
          { type: 'text', text: ' \n ' },
          { type: 'tool_use', id: 'toolu_w', name: 'Bash', input: { command: 'ls' } },
        ])
        .user('R2', 'A2', [
          { tool_use_id: 'toolu_w', type: 'tool_result', content: 'out', is_error: false },
          { type: 'text', text: '\n' },
        ])
        .text('A3', 'R2', 'A3: end'),
      'empty texts dropped everywhere; whitespace kept beside assistant blocks, dropped from user blocks',
    ),
    f(
      'thinking-only records and blank user messages',
      new Transcript()
        .user('U1', null, 'U1: set up the project')
        .assistant('A1', 'U1', [{ type: 'thinking', thinking: 'hmm', signature: 'c2ln' }])
        .user('U2', 'A1', '  \n')
        .assistant('A2t', 'U2', [{ type: 'thinking', thinking: '', signature: 'c2ln' }], 'msg_q')
        .text('A2', 'A2t', 'A2: said', 'msg_q')
        .user('U3', 'A2', [{ type: 'text', text: '\n' }])
        .text('A3', 'U3', 'A3: end'),
      'a thinking-only message dropped (U1+U2 merged); a lone blank user block becomes "(no content)"',
    ),
    f(
      'a blank reply last',
      opening().user('U2', 'A1', 'U2: anything?').assistant('Ab', 'U2', [BLANK]),
      'dropped on load: resumed from U2 + "No response requested."',
    ),
    f(
      'a blank reply last, the pointer on it',
      opening().user('U2', 'A1', 'U2: anything?').assistant('Ab', 'U2', [BLANK]).lastPrompt('Ab'),
      'the pointer names a leaf the client drops: resumed from U2',
    ),
    f(
      'silent replies in a row: blank, blank fragments, thinking only, a placeholder',
      opening()
        .user('U2', 'A1', 'U2: anything?')
        .assistant('Ab1', 'U2', [BLANK])
        .assistant('Ab2', 'Ab1', [{ type: 'thinking', thinking: 'x', signature: 'c2ln' }, BLANK], 'msg_s')
        .assistant('Ab3', 'Ab2', [BLANK], 'msg_s')
        .assistant('Ab4', 'Ab3', [{ type: 'thinking', thinking: 'y', signature: 'c2ln' }])
        .assistant('Ab5', 'Ab4', [{ type: 'text', text: '(no content)' }]),
      'all dropped: resumed from U2',
    ),
    f(
      'a blank reply, then a prompt',
      opening().user('U2', 'A1', 'U2: anything?').assistant('Ab', 'U2', [BLANK]).user('U3', 'Ab', 'U3: hello?'),
      'the blank reply dropped, U2 and U3 merged, resumed from U3',
    ),
    f(
      'a blank fragment after a call of its message',
      opening()
        .user('U2', 'A1', 'U2: run it')
        .call('Ac', 'U2', 'toolu_c', 'msg_c')
        .assistant('Ab', 'Ac', [BLANK], 'msg_c'),
      'the fragment stays the leaf (its message has a call), is not sent; the call is answered as interrupted',
    ),
    f(
      'a blank fragment after a text of its message',
      opening()
        .user('U2', 'A1', 'U2: say it')
        .text('A2', 'U2', 'A2: said', 'msg_y')
        .assistant('Ab', 'A2', [BLANK], 'msg_y'),
      'the fragment stays the leaf ("continue" hangs off it), only the text is sent',
    ),
    f(
      'a blank reply after a tool result, behind a system record',
      (() => {
        const t = opening()
          .user('U2', 'A1', 'U2: run it')
          .call('Ac', 'U2', 'toolu_c')
          .result('Rc', 'Ac', 'toolu_c', 'out')
        t.raw({
          parentUuid: t.uuid('Rc'),
          isSidechain: false,
          type: 'system',
          subtype: 'informational',
          content: 'a note',
          level: 'info',
          isMeta: false,
          uuid: t.uuid('SY'),
          timestamp: '2026-01-01T00:01:00.000Z',
          sessionId: FIXTURE_SESSION,
        })
        return t.assistant('Ab', 'SY', [BLANK])
      })(),
      'resumed from the result Rc (the system record is passed over)',
    ),
    f(
      'a blank reply behind an attachment',
      opening()
        .user('U2', 'A1', 'U2: anything?')
        .attachment('T1', 'U2', { type: 'date_change', newDate: '2026-01-02' })
        .assistant('Ab', 'T1', [BLANK]),
      'resumed from the attachment T1',
    ),
    f(
      'a blank text before a thinking block',
      opening()
        .user('U2', 'A1', 'U2: think')
        .assistant('Ax', 'U2', [BLANK, { type: 'thinking', thinking: 'x', signature: 'c2ln' }])
        .user('U3', 'Ax', 'U3: more')
        .text('A3', 'U3', 'A3: end'),
      'an ordinary reply: sent as it is, the blank text included',
    ),
    f(
      'parallel tool calls, three results in mixed order',
      new Transcript()
        .user('U1', null, 'U1: three commands')
        .call('A1a', 'U1', 'toolu_1', 'msg_3')
        .call('A1b', 'A1a', 'toolu_2', 'msg_3')
        .call('A1c', 'A1b', 'toolu_3', 'msg_3')
        .result('Rb', 'A1b', 'toolu_2', 'out 2')
        .result('Rc', 'A1c', 'toolu_3', 'out 3')
        .result('Ra', 'A1a', 'toolu_1', 'out 1')
        .text('A2', 'Rc', 'A2: all ran'),
      'one message with the three calls, then the results in file order: 2, 3, 1',
    ),
    f(
      'attachments the client renders as nothing, between two replies',
      opening()
        .attachment('T1', 'A1', { type: 'prompt_snapshot', text: 'x' })
        .attachment('T2', 'T1', {
          type: 'hook_success',
          hookName: 'Stop',
          hookEvent: 'Stop',
          content: '',
          toolUseID: 'h',
        })
        .text('A2', 'T2', 'A2: and one more thing'),
      'no message for them: the two replies follow each other',
    ),
    f(
      'tool call without a result, then a prompt',
      linearBase().call('A4', 'A3', 'toolu_lost').user('U5', 'A4', 'U5: never mind').text('A5', 'U5', 'A5: ok'),
      'the unanswered call is dropped (case 4a)',
    ),
  ]
}
