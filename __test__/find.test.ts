import test from 'ava'
import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { find } from '../src-ts/read/find.js'
import { renderFind, runFind } from '../src-ts/cli/find-command.js'
import { ClaudeJsonlError } from '../src-ts/errors.js'
import { REAL, tempDir, userText, writeTree, snapshot } from './helpers/transcripts.js'
import { findCli, S, said, toolResult, toolUse } from './helpers/search-records.js'

const filler = (n: number) =>
  Array.from({ length: n }, (_, i) => said(`routine progress note ${i} about the build and the tests`))

/** A small estate: rare and common terms spread so that the right order is known. */
function estate() {
  const root = writeTree({
    [`projects/-home-u-app/${S(1)}.jsonl`]: [
      userText('the quokka cache keeps timing out in the build'),
      said('I traced the quokka cache timeout to a stale lock'),
      ...filler(4),
    ],
    [`projects/-home-u-app/${S(2)}.jsonl`]: [userText('the build keeps timing out'), ...filler(4)],
    [`projects/-home-u-web/${S(3)}.jsonl`]: [userText('nothing relevant here'), ...filler(4)],
    // An echo: quotes the original's words only in tool traffic.
    [`projects/-home-u-web/${S(4)}.jsonl`]: [
      userText('read the old handoff'),
      toolUse('cat handoff.md'),
      toolResult('quokka cache quokka cache quokka cache stale lock quokka'),
      ...filler(2),
    ],
    // A subagent of session 3 holds a rare word.
    [`projects/-home-u-web/${S(3)}/subagents/agent-a1.jsonl`]: [
      userText('survey the wombat module'),
      said('the wombat module is fine'),
    ],
  })
  return { root, projects: join(root, 'projects') }
}

test('ranking prefers the session with more and rarer matches; partial matches still rank', async (t) => {
  const { projects } = estate()
  const r = await find(['quokka', 'timeout', 'build'], { projects, noIndex: true })
  t.is(r.hits[0].sessionId, S(1))
  t.deepEqual(r.hits[0].matched, ['quokka', 'timeout', 'build'])
  // S(2) has only "build" (and "timing", not "timeout"): it still ranks, below S(1).
  const two = r.hits.find((h) => h.sessionId === S(2))
  t.truthy(two)
  t.deepEqual(two!.matched, ['build'])
  t.true(two!.score < r.hits[0].score)
  // A term nobody wrote does not empty the answer (no AND cliff).
  const none = await find(['quokka', 'zyzzyva'], { projects, noIndex: true })
  t.is(none.hits[0].sessionId, S(1))
  t.deepEqual(none.scope.termFiles, [1, 0])
})

test('hits carry score, session, project, date, line and a snippet read from the record', async (t) => {
  const { projects } = estate()
  const r = await find(['stale', 'lock'], { projects, noIndex: true })
  const h = r.hits[0]
  t.is(h.sessionId, S(1))
  t.is(h.project, '-home-u-app')
  t.is(h.line, 2)
  t.is(h.timestamp, '2026-03-01T10:00:00.000Z')
  t.is(h.snippet, 'I traced the quokka cache timeout to a stale lock')
  t.true(h.score > 0)
  t.regex(
    renderFind(r),
    /1\. \d+\.\d\d {2}2026-03-01 {2}00000001-1111-4222-8333-444455556666 {2}-home-u-app\n {3}line 2: I traced the quokka/,
  )
})

test('tool traffic is searched only with tools, so an echo does not outrank the original', async (t) => {
  const { projects } = estate()
  const plain = await find(['quokka cache'], { projects, noIndex: true })
  t.deepEqual(
    plain.hits.map((h) => h.sessionId),
    [S(1)],
  )
  t.is(plain.hits[0].phrasesFound, 1)
  const tools = await find(['quokka cache'], { projects, noIndex: true, tools: true })
  t.true(tools.hits.some((h) => h.sessionId === S(4)))
  t.true(tools.scope.searched.tools)
})

test('thinking is searched only with thinking', async (t) => {
  const root = writeTree({
    [`projects/-home-u-app/${S(7)}.jsonl`]: [
      userText('go'),
      JSON.stringify({
        type: 'assistant',
        timestamp: '2026-03-01T10:00:00.000Z',
        message: { content: [{ type: 'thinking', thinking: 'maybe the axolotl flag' }] },
      }),
    ],
  })
  const projects = join(root, 'projects')
  t.is((await find(['axolotl'], { projects, noIndex: true })).hits.length, 0)
  const r = await find(['axolotl'], { projects, noIndex: true, thinking: true })
  t.is(r.hits[0].snippet, 'maybe the axolotl flag')
})

test('an index that cannot be written is reported and the answer is still complete', async (t) => {
  const { projects } = estate()
  const blocker = join(tempDir('cj-find-block-'), 'file')
  writeFileSync(blocker, 'not a folder')
  // (An --index-dir that is itself a file is bad usage; one below a file cannot be made.)
  const r = await find(['quokka'], { projects, indexDir: join(blocker, 'index') })
  t.is(r.hits[0].sessionId, S(1))
  t.like(r.scope.index, { written: false, filesRescanned: 5 })
  t.truthy(r.scope.index!.error)
})

test('subagent transcripts are searched and reported under their session', async (t) => {
  const { projects } = estate()
  const r = await find(['wombat'], { projects, noIndex: true })
  t.is(r.hits.length, 1)
  t.is(r.hits[0].sessionId, S(3))
  t.is(r.hits[0].agentId, 'a1')
})

test('every answer states its scope', async (t) => {
  const { projects } = estate()
  const r = await find(['quokka'], { projects, noIndex: true })
  const bytes = snapshot(projects).reduce((a, l) => a + Number(l.split(' ')[1]), 0)
  t.like(r.scope, {
    sessions: 4,
    files: 5,
    bytes,
    sessionsTotal: 4,
    filesTotal: 5,
    bytesTotal: bytes,
    index: null,
    matchingSessions: 1,
  })
  t.regex(renderFind(r), /^Searched 4 sessions \(5 files, [\d.]+ kB\) for human and assistant text\nNo index/)
  const f = await find(['quokka'], { projects, noIndex: true, project: 'u/web', since: '2026-01-01' })
  t.like(f.scope, { sessions: 2, files: 3, sessionsTotal: 4, project: 'u/web', since: '2026-01-01' })
  t.is(f.hits.length, 0)
  const later = await find(['quokka'], { projects, noIndex: true, since: '2026-04-01' })
  t.is(later.scope.sessions, 0)
})

test('the index is reused, refreshed when a file grows, rebuilt when one is rewritten shorter, and never in the estate', async (t) => {
  const { root, projects } = estate()
  const indexDir = tempDir('cj-find-index-')
  const before = snapshot(root)
  const first = await find(['quokka'], { projects, indexDir })
  t.like(first.scope.index, { written: true, filesReused: 0, filesRescanned: 5 })
  t.true(existsSync(first.scope.index!.path) && first.scope.index!.path.startsWith(indexDir))
  t.regex(renderFind(first), /\nIndex built now \([\d.]+ kB read\)\n/)
  const second = await find(['quokka'], { projects, indexDir })
  t.like(second.scope.index, { written: false, filesReused: 5, filesRescanned: 0 })
  t.true(second.scope.index!.ageMs! >= 0)
  t.regex(renderFind(second), /\nIndex \d+ s old, no file changed\n/)
  t.deepEqual(snapshot(root), before, 'nothing written into the estate')

  // Append a line: only that line is read, and its new word is found.
  const grown = join(projects, '-home-u-app', `${S(2)}.jsonl`)
  const line = said('found the platypus in the lockfile', '2026-03-05T10:00:00.000Z') + '\n'
  appendFileSync(grown, line)
  const third = await find(['platypus'], { projects, indexDir })
  t.like(third.scope.index, {
    written: true,
    filesReused: 4,
    filesRescanned: 1,
    filesAppended: 1,
    bytesRescanned: Buffer.byteLength(line),
  })
  t.regex(renderFind(third), /\nIndex \d+ s old, 1 file changed \(\d+ B read now, 1 of them only appended to\)\n/)
  t.is(third.hits[0].sessionId, S(2))
  t.is(third.hits[0].line, 6)

  // Rewrite it shorter: rebuilt, its old words are gone.
  writeFileSync(grown, userText('only a short memo') + '\n')
  const fourth = await find(['platypus', 'memo'], { projects, indexDir })
  t.like(fourth.scope.index, { filesRescanned: 1, filesAppended: 0 })
  t.deepEqual(
    fourth.hits.map((h) => [h.sessionId, h.matched]),
    [[S(2), ['memo']]],
  )
})

test('an index folder inside the estate is refused', async (t) => {
  const { projects } = estate()
  const e = await t.throwsAsync(find(['x'], { projects, indexDir: join(projects, 'cache') }), {
    instanceOf: ClaudeJsonlError,
  })
  t.is(e!.exitCode, 2)
})

test('bad flags and a missing root are one-line errors with their exit codes', async (t) => {
  const { projects } = estate()
  const code = async (args: string[]) => {
    const e = await t.throwsAsync(runFind(args), { instanceOf: ClaudeJsonlError })
    t.false(e!.message.includes('\n'))
    return e!.exitCode
  }
  t.is(await code(['x', '--bogus']), 2)
  t.is(await code(['x', '--limit', '0', '--projects', projects]), 2)
  t.is(await code(['x', '--since', '2026-13-45', '--projects', projects]), 2)
  t.is(await code(['--projects', projects]), 2)
  t.is(await code(['?!', '--no-index', '--projects', projects]), 2)
  t.is(await code(['x', '--no-index', '--index-dir', '/tmp/i']), 2)
  t.is(await code(['x', '--no-index', '--projects', join(projects, 'missing')]), 3)
})

test('the CLI prints hits, or JSON, and --limit caps them', (t) => {
  const { projects } = estate()
  const run = findCli()
  const text = run(['build', '--projects', projects, '--limit', '1'])
  t.is(text.status, 0, text.stderr)
  t.is(text.stderr, '')
  t.regex(text.stdout, /^Searched 4 sessions/)
  t.is(text.stdout.match(/^\d+\. /gm)!.length, 1)
  const json = run(['quokka', '--projects', projects, '--json', '--no-index'])
  t.is(json.status, 0, json.stderr)
  const j = JSON.parse(json.stdout)
  t.is(j.hits[0].sessionId, S(1))
  t.is(j.scope.index, null)
})

const realTest = existsSync(REAL) ? test : test.skip

realTest('on the real transcripts, each hit points at the record it quotes', async (t) => {
  const r = await find(['test', 'failing', 'temp directory'], { projects: REAL, noIndex: true, limit: 5 })
  t.is(r.scope.sessions, 12)
  t.true(r.hits.length >= 3)
  t.is(r.hits[0].sessionId, 'real-09')
  for (const h of r.hits) {
    const bytes = readFileSync(h.path)
    const rec = JSON.parse(bytes.subarray(h.offset, h.offset + h.length).toString('utf8'))
    t.is(bytes.subarray(0, h.offset).toString('latin1').split('\n').length, h.line)
    t.true(rec.type === 'assistant' || (rec.type === 'user' && !rec.isMeta), `${h.sessionId}:${h.line} is ${rec.type}`)
    const text =
      typeof rec.message.content === 'string'
        ? rec.message.content
        : rec.message.content
            .filter((b: { type: string }) => b.type === 'text')
            .map((b: { text: string }) => b.text)
            .join('\n')
    const words = h.snippet.replace(/^…|…$/g, '').split(' ').slice(0, 4).join(' ')
    t.true(
      text.replace(/\s+/g, ' ').includes(words),
      `${h.sessionId}:${h.line} snippet '${words}' comes from the record`,
    )
  }
})
