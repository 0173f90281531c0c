// `claude-jsonl mcp` through the SDK's own client over stdio: the four tools, pages of
// read_session under the client's 25k-token output cap, usage equal to stats, and failures
// as one-line tool errors with the server still answering.
import test from 'ava'
import { spawnSync } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { CLI, REAL, REPO, tempDir, writeTree } from './helpers/transcripts.js'
import { estimateTokens } from '../src-ts/index.js'
import { formatUsd } from '../src-ts/terminal/format.js'

const BIN = join(REPO, 'dist', 'src-ts', 'cli', 'bin.cjs')
const BIG = 'd1d1d1d1-0000-4000-8000-000000000001'
const SMALL = 'd2d2d2d2-0000-4000-8000-000000000002'

/** A linear session of 80 turns, each with some 3,000 characters of text: several pages. */
function longSession(): string[] {
  const lines: string[] = []
  let parent: string | null = null
  for (let i = 0; i < 80; i++) {
    const at = new Date(Date.UTC(2026, 10, 2, 9, 0, i)).toISOString()
    const words = Array.from({ length: 250 }, (_, k) => `word${(i * 7 + k) % 97}`).join(' ')
    lines.push(
      JSON.stringify({
        type: 'user',
        uuid: `u${i}`,
        parentUuid: parent,
        sessionId: BIG,
        timestamp: at,
        message: { role: 'user', content: `question ${i}: ${words}` },
      }),
    )
    lines.push(
      JSON.stringify({
        type: 'assistant',
        uuid: `a${i}`,
        parentUuid: `u${i}`,
        sessionId: BIG,
        timestamp: at,
        message: {
          id: `msg_${i}`,
          role: 'assistant',
          model: 'claude-sonnet-4-5-20250929',
          content: [{ type: 'text', text: `answer ${i}: ${words}` }],
          usage: { input_tokens: 5, output_tokens: 9 },
        },
      }),
    )
    parent = `a${i}`
  }
  return lines
}

async function connect(archived = false) {
  const projects = writeTree({
    [`-work-big/${BIG}.jsonl`]: longSession(),
    [`-work-small/${SMALL}.jsonl`]: readFileSync(join(REAL, 'real-01.jsonl'), 'utf8'),
  })
  const env = { ...process.env, XDG_CACHE_HOME: tempDir(), CLAUDE_JSONL_ARCHIVE: '' } as Record<string, string>
  // an archive of the same estate, read in its place
  const root = archived ? join(tempDir(), 'arch') : projects
  if (archived) spawnSync(process.execPath, [CLI, 'archive', '--projects', projects, '--to', root], { env })
  const client = new Client({ name: 'test', version: '1' })
  await client.connect(
    new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', '--projects', root], env }),
  )
  const call = async (name: string, args: Record<string, unknown>) => {
    const r = (await client.callTool({ name, arguments: args })) as { content: { text: string }[]; isError?: boolean }
    return { text: r.content.map((c) => c.text).join('\n'), isError: r.isError === true }
  }
  return { client, call, projects, env }
}

test('the four read-only tools: search finds the session, list names it, usage equals stats', async (t) => {
  const { client, call, projects, env } = await connect()
  try {
    const tools = (await client.listTools()).tools
    t.deepEqual(tools.map((x) => x.name).sort(), ['list_sessions', 'read_session', 'search_sessions', 'usage'])
    t.true(tools.every((x) => x.annotations?.readOnlyHint === true))
    const hit = await call('search_sessions', { query: 'resume test' })
    t.false(hit.isError, hit.text)
    t.regex(hit.text, new RegExp(`^1\\. session ${SMALL} · -work-small · `))
    const exact = await call('search_sessions', { query: 'resume test', exact: true, project: 'small' })
    t.true(exact.text.includes(SMALL) && !exact.text.includes(BIG), exact.text)
    const list = await call('list_sessions', { project: 'big' })
    t.true(list.text.startsWith(BIG), list.text)
    const usage = await call('usage', { session: SMALL.slice(0, 8) })
    const stats = spawnSync(
      process.execPath,
      [CLI, 'stats', '--json', join(projects, '-work-small', `${SMALL}.jsonl`)],
      { encoding: 'utf8', env },
    )
    t.true(usage.text.includes(`total: ${formatUsd(JSON.parse(stats.stdout).totals.costUsd)}`), usage.text)
  } finally {
    await client.close()
  }
})

test('read_session pages a long session by turns, each page under the 25k-token cap, and every turn once', async (t) => {
  const { client, call } = await connect()
  try {
    const first = await call('read_session', { session: BIG })
    const m = /page 1 of (\d+): turns 1-(\d+) of (\d+)/.exec(first.text)
    t.truthy(m, first.text.slice(0, 300))
    const pages = Number(m![1])
    const turns = Number(m![3])
    t.true(pages > 1, `${pages} pages`)
    let seen = 0
    for (let p = 1; p <= pages; p++) {
      const page = p === 1 ? first : await call('read_session', { session: BIG, page: p })
      t.true(estimateTokens(page.text) < 25_000, `page ${p}: ${estimateTokens(page.text)} tokens`)
      seen += (page.text.match(/^# turn \d+$/gm) ?? []).length
    }
    t.is(seen, turns)
    t.is(turns, 80)
  } finally {
    await client.close()
  }
})

test('failures are one-line tool errors and the server keeps answering', async (t) => {
  const { client, call } = await connect()
  t.teardown(() => client.close())
  const missing = await call('read_session', { session: 'ffffffff' })
  t.true(missing.isError)
  t.regex(missing.text, /^no session matches 'ffffffff' \(searched 2 sessions under .*\)$/)
  const bad = await call('list_sessions', { limit: 'x' })
  t.true(bad.isError)
  t.false(bad.text.includes('\n'))
  const page = await call('read_session', { session: SMALL, page: 99 })
  t.true(page.isError)
  t.regex(page.text, /has \d+ pages?, not 99$/)
  const still = await call('search_sessions', { query: 'resume' })
  t.false(still.isError)
})

test('over an archive: the same answers, read from its streams with no copy of it', async (t) => {
  const direct = await connect()
  const viaArchive = await connect(true)
  try {
    for (const [name, args] of [
      ['search_sessions', { query: 'resume test' }],
      ['search_sessions', { query: 'resume test', exact: true }],
      ['list_sessions', {}],
      ['read_session', { session: SMALL }],
      ['usage', {}],
    ] as const) {
      const a = await direct.call(name, args)
      const b = await viaArchive.call(name, args)
      t.false(b.isError, b.text)
      const strip = (x: string) => x.replace(/\d+(\.\d+)? ?(ms|s)\b/g, 'T')
      t.is(strip(b.text), strip(a.text), name)
    }
    // only the search index (outside the archive), no decoded copy of the archive
    t.deepEqual(readdirSync(join(viaArchive.env.XDG_CACHE_HOME, 'claude-jsonl')), ['find'])
  } finally {
    await direct.client.close()
    await viaArchive.client.close()
  }
})
