// A small estate for the web view's tests: two projects, two models over three days (one day
// between them without a request), hostile texts in titles and messages, a damaged transcript,
// and as many filler sessions as a test asks for (to page the list).
import { utimesSync } from 'node:fs'
import { join } from 'node:path'
import { writeTree } from './transcripts.js'

export const SESSION_A = '0a0a0a0a-1111-4222-8333-000000000001'
export const SESSION_B = '0b0b0b0b-1111-4222-8333-000000000002'
export const SESSION_DAMAGED = '0d0d0d0d-1111-4222-8333-000000000003'
/** Hostile texts the pages must show as text. */
export const HOSTILE = {
  script: '<script>alert("x")</script>',
  img: '<img src=x onerror=alert(1)>',
  link: '[click](javascript:alert(1))',
}
/** A phrase only session A holds, and the line it is on. */
export const PHRASE = 'zebra migration plan'
export const PHRASE_LINE = 2

function rec(o: Record<string, unknown>): string {
  return JSON.stringify({ isSidechain: false, userType: 'external', cwd: '/home/u/app', version: '2.1.140', ...o })
}

function human(session: string, uuid: string, parent: string | null, text: string, ts: string, cwd: string): string {
  return rec({
    parentUuid: parent,
    type: 'user',
    sessionId: session,
    cwd,
    message: { role: 'user', content: text },
    uuid,
    timestamp: ts,
  })
}

function reply(
  session: string,
  uuid: string,
  parent: string,
  text: string,
  ts: string,
  model: string,
  output: number,
  cwd: string,
): string {
  return rec({
    parentUuid: parent,
    type: 'assistant',
    sessionId: session,
    cwd,
    uuid,
    timestamp: ts,
    requestId: `req_${uuid}`,
    message: {
      id: `msg_${uuid}`,
      type: 'message',
      role: 'assistant',
      model,
      content: [{ type: 'text', text }],
      stop_reason: 'end_turn',
      usage: {
        input_tokens: 10,
        cache_creation_input_tokens: 1000,
        cache_read_input_tokens: 5000,
        output_tokens: output,
      },
    },
  })
}

/** Session lines: prompts and replies on the days given. */
function session(id: string, cwd: string, turns: { day: string; model: string; prompt: string; said: string }[]) {
  const lines: string[] = []
  let parent: string | null = null
  turns.forEach((t, i) => {
    const h = `${id.slice(0, 8)}-h${i}`
    const a = `${id.slice(0, 8)}-a${i}`
    lines.push(human(id, h, parent, t.prompt, `${t.day}T10:00:00.000Z`, cwd))
    lines.push(reply(id, a, h, t.said, `${t.day}T10:00:05.000Z`, t.model, 100 + i, cwd))
    parent = a
  })
  return lines
}

/** Writes the estate; returns its projects folder. */
export function serveEstate(fillers = 0): string {
  const files: Record<string, string[] | string> = {
    [`-home-u-app/${SESSION_A}.jsonl`]: [
      rec({ type: 'custom-title', customTitle: `Fix ${HOSTILE.script}`, sessionId: SESSION_A }),
      ...session(SESSION_A, '/home/u/app', [
        {
          day: '2026-03-01',
          model: 'claude-sonnet-4-5-20250929',
          prompt: `Write the ${PHRASE}`,
          said: `Here: ${HOSTILE.img}`,
        },
        { day: '2026-03-03', model: 'claude-opus-4-5-20251101', prompt: 'and the rollback?', said: HOSTILE.link },
      ]),
    ],
    [`-home-u-web/${SESSION_B}.jsonl`]: session(SESSION_B, '/home/u/web', [
      { day: '2026-03-02', model: 'claude-sonnet-4-5-20250929', prompt: 'style the page', said: 'done' },
      { day: '2026-03-03', model: 'claude-sonnet-4-5-20250929', prompt: 'darker', said: 'darker it is' },
    ]),
    [`-home-u-web/${SESSION_DAMAGED}.jsonl`]: '\u0000\u0000 not json at all\n{"half":',
  }
  for (let i = 0; i < fillers; i++) {
    const id = `0f0f0f0f-1111-4222-8333-${String(i).padStart(12, '0')}`
    files[`-home-u-fill/${id}.jsonl`] = session(id, '/home/u/fill', [
      { day: '2026-02-01', model: 'claude-sonnet-4-5-20250929', prompt: `filler ${i}`, said: 'ok' },
    ])
  }
  const root = writeTree(files)
  // The damaged file has no timestamp: its mtime is its last activity; an old one lists it last.
  const old = new Date('2026-01-01T00:00:00Z')
  utimesSync(join(root, '-home-u-web', `${SESSION_DAMAGED}.jsonl`), old, old)
  return root
}
