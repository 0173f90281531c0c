// `show --last N` reads only the records of the turns it shows, and shows exactly what the full
// read shows of them: the last N turns, numbered among all turns, with their requests, times and
// the lines that are not records.
import test from 'ava'
import fc from 'fast-check'
import { spawnSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { showSession, traceShowReads, ShowOptions, ShowResult } from '../src-ts/read/show.js'
import { timeline } from '../src-ts/read/timeline.js'
import { fixtures } from './helpers/resume-fixtures.js'
import { build, shapeArb, SESSION, toJsonl } from './helpers/random-transcript.js'
import { REAL, REPO, tempDir } from './helpers/transcripts.js'

const full: ShowOptions = { tools: true, thinking: true }

/** What `last` must give: the full read's last `n` turns. */
function lastOf(r: ShowResult, n: number): ShowResult {
  const k = Math.min(n, r.turns.length)
  return { ...r, omittedTurns: r.turns.length - k, turns: r.turns.slice(r.turns.length - k) }
}

async function sameAsFullRead(t: { deepEqual: (a: unknown, b: unknown, m?: string) => void }, path: string) {
  const whole = await showSession(path, full)
  for (const n of new Set([0, 1, 2, 3, whole.turns.length - 1, whole.turns.length, whole.turns.length + 2])) {
    if (n < 0) continue
    t.deepEqual(await showSession(path, { ...full, last: n }), lastOf(whole, n), `${path} --last ${n}`)
  }
  const tl = await timeline(path)
  const tlLast = await timeline(path, { last: 2 })
  t.deepEqual(tlLast.turns, tl.turns.slice(Math.max(0, tl.turns.length - 2)), `${path} timeline --last 2`)
}

/** A 1 MB transcript of fixtures/generate.mjs. */
function generated(t: { is: (a: unknown, b: unknown, m?: string) => void }, seed: string): string {
  const p = join(tempDir(), `${SESSION}.jsonl`)
  const r = spawnSync(
    process.execPath,
    [join(REPO, 'fixtures', 'generate.mjs'), 'single', '--out', p, '--target-mb', '1', '--seed', seed],
    { encoding: 'utf8' },
  )
  t.is(r.status, 0, r.stderr)
  return p
}

function write(dir: string, name: string, bytes: Buffer | string): string {
  const p = join(dir, name)
  writeFileSync(p, bytes)
  return p
}

test('--last N equals the last N turns of the full read: resume fixtures', async (t) => {
  const dir = tempDir()
  for (const [k, f] of fixtures().entries()) await sameAsFullRead(t, write(dir, `f${k}.jsonl`, f.bytes))
})

const realTest = existsSync(REAL) ? test : test.skip
realTest('--last N equals the last N turns of the full read: real transcripts, read in place', async (t) => {
  const files = readdirSync(REAL).filter((f) => f.endsWith('.jsonl'))
  let read = 0
  for (const f of files) {
    // Some hold no conversation: show refuses them, with or without --last.
    const whole = await showSession(join(REAL, f)).catch(() => undefined)
    if (!whole) {
      await t.throwsAsync(showSession(join(REAL, f), { last: 1 }))
      continue
    }
    await sameAsFullRead(t, join(REAL, f))
    read++
  }
  t.true(read > 5)
})

test('--last N equals the last N turns of the full read: a generated transcript', async (t) => {
  const p = generated(t, '3')
  await sameAsFullRead(t, p)
})

test('--last N equals the last N turns of the full read: random graphs with lines that are not records', async (t) => {
  const dir = tempDir()
  let k = 0
  await fc.assert(
    fc.asyncProperty(shapeArb, fc.array(fc.nat(), { maxLength: 3 }), fc.boolean(), async (shape, badAt, torn) => {
      const lines = toJsonl(build(shape).records).toString('utf8').split('\n').filter(Boolean)
      for (const at of badAt) lines.splice(at % (lines.length + 1), 0, '{"type": "user", broken')
      const p = write(dir, `r${k++}.jsonl`, lines.join('\n') + (torn ? '\n{"type":"assis' : '\n'))
      await sameAsFullRead(t, p)
    }),
    { numRuns: 40, seed: 23 },
  )
})

// Hand-made edge cases of the turn rule: a chain that opens with no prompt, consecutive prompt
// records, a prompt of only an image, a blank reply, tool ids and requests met again in a later
// turn, a compaction, lines that are not records between and after.
test('--last N equals the last N turns of the full read: edge cases of the turn rule', async (t) => {
  let n = 0
  let parent: string | null = null
  const rec = (o: Record<string, unknown>) => {
    const uuid = `u${++n}`
    const line = JSON.stringify({
      parentUuid: parent,
      isSidechain: false,
      uuid,
      sessionId: 's',
      timestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString(),
      ...o,
    })
    parent = uuid
    return line
  }
  const user = (content: unknown, extra = {}) => rec({ type: 'user', message: { role: 'user', content }, ...extra })
  const reply = (id: string, content: unknown, req?: string) =>
    rec({
      type: 'assistant',
      ...(req ? { requestId: req } : {}),
      message: {
        id,
        role: 'assistant',
        model: 'claude-x',
        content,
        usage: { input_tokens: 3, output_tokens: n, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 },
      },
    })
  const lines = [
    rec({ type: 'system', subtype: 'informational', content: 'starting' }),
    'not json at all',
    reply('m0', [{ type: 'text', text: 'before any prompt' }], 'r0'),
    user('<command-name>/x</command-name>'),
    user('  '),
    user([{ type: 'image', source: {} }]),
    reply('m1', [{ type: 'text', text: '\u{feff}' }]),
    user('second prompt'),
    reply('m2', [{ type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'ls' } }], 'r2'),
    user([{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'a b' }]),
    '[1, 2]',
    user('third prompt'),
    reply('m2', [{ type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'ls' } }], 'r2'),
    user([{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'a b again' }]),
    reply('m3', [{ type: 'thinking', thinking: 'hm' }], 'r3'),
    user('fourth prompt'),
    user([{ type: 'text', text: 'meta' }], { isMeta: true }),
    rec({ type: 'system', subtype: 'compact_boundary', compactMetadata: { trigger: 'auto', preTokens: 9 } }),
    user('summary of it all', { isCompactSummary: true }),
    user([{ type: 'tool_result', content: 'no id' }]),
    user('fifth prompt'),
    reply('m4', 'a string reply', 'r4'),
    user([{ type: 'text', text: 7 }]),
    reply('m5', [{ type: 'text', text: 'last' }], 'r5'),
    '{"cut',
  ]
  await sameAsFullRead(t, write(tempDir(), 'edges.jsonl', lines.join('\n') + '\n'))
})

// Serial: the trace sees every read of the process.
test.serial('--last N reads no record of the turns before the ones it shows', async (t) => {
  const p = generated(t, '5')
  const whole = await showSession(p, full)
  t.true(whole.turns.length > 10)
  const reads: number[] = []
  traceShowReads((offset) => reads.push(offset))
  try {
    await showSession(p, full)
    const all = reads.length
    reads.length = 0
    const shown = await showSession(p, { ...full, last: 2 })
    t.is(shown.turns.length, 2)
    t.true(reads.length > 0 && reads.length < all / 2, `${reads.length} of ${all} records read`)
    // The generated chain is in file order: the shown turns' records start at their first item.
    const bytes = readFileSync(p)
    const lineOf = (offset: number) => bytes.subarray(0, offset).toString('latin1').split('\n').length
    const firstLine = Math.min(...shown.turns.flatMap((x) => x.items.map((i) => i.line)))
    const early = reads.map(lineOf).filter((l) => l < firstLine)
    t.deepEqual(early, [], 'records of earlier turns were read')
    reads.length = 0
    await showSession(p, { ...full, last: 0 })
    t.is(reads.length, 0)
  } finally {
    traceShowReads(undefined)
  }
})
