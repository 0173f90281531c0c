// The session-keeper plugin (plugin/) with the real Claude Code client (pinned 2.1.332),
// headless against the loopback mock: the client validates and loads it, calls its MCP server's
// search_sessions when the model asks, and its SessionEnd hook archives the session after the
// client let it go, byte for byte.
import test from 'ava'
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { clientEnv, CLIENT_MODEL, ensureClaudeClient, runProcess, startMockApi } from './helpers/claude-client.js'
import { CLI, REPO } from './helpers/transcripts.js'
import { isLocked } from '../src-ts/durable-lock.cjs'

const PLUGIN = join(REPO, 'plugin')
const SEARCH_TOOL = 'mcp__plugin_session-keeper_sessions__search_sessions'
const OTHER = 'aaaaaaaa-1111-4111-8111-000000000001'
const PHRASE = 'zircon lattice migration'
const PROMPT = 'what did we plan before?'

/** A throw-away HOME whose estate holds one earlier session that mentions PHRASE. */

/** The detached archive worker the SessionEnd hook started may still be letting go of its queue
 * and lock after it logged the session (on a loaded machine, seconds later): the folder is removed
 * once no worker holds an archive in it, retrying while one lets go. */
async function removeHome(tmp: string): Promise<void> {
  const locks = readdirSync(tmp)
    .filter((d) => d.endsWith('.hook'))
    .map((d) => join(tmp, d, 'worker.lock'))
  for (const deadline = Date.now() + 20_000; Date.now() < deadline && locks.some(isLocked);)
    await new Promise((r) => setTimeout(r, 100))
  rmSync(tmp, { recursive: true, force: true, maxRetries: 50, retryDelay: 100 })
}

function home(): { tmp: string; home: string; env: Record<string, string>; archive: string } {
  const tmp = mkdtempSync(join(tmpdir(), 'cj-plugin-'))
  const h = join(tmp, 'home')
  const project = join(h, '.claude', 'projects', '-work-earlier')
  mkdirSync(project, { recursive: true })
  const at = (s: number) => new Date(Date.UTC(2026, 10, 1, 10, 0, s)).toISOString()
  const lines = [
    {
      type: 'user',
      uuid: 'u1',
      parentUuid: null,
      sessionId: OTHER,
      timestamp: at(0),
      cwd: '/work/earlier',
      message: { role: 'user', content: `Plan the ${PHRASE} for the billing tables.` },
    },
    {
      type: 'assistant',
      uuid: 'a1',
      parentUuid: 'u1',
      sessionId: OTHER,
      timestamp: at(5),
      message: {
        id: 'msg_1',
        role: 'assistant',
        model: CLIENT_MODEL,
        content: [{ type: 'text', text: 'We move the tables in three steps.' }],
        usage: { input_tokens: 10, output_tokens: 5 },
      },
    },
  ]
  writeFileSync(join(project, `${OTHER}.jsonl`), lines.map((l) => JSON.stringify(l)).join('\n') + '\n')
  const archive = join(tmp, 'archive')
  const env = {
    ...clientEnv(h, tmp, ''),
    // the plugin's launcher runs node (and sh) from PATH
    PATH: `${dirname(process.execPath)}:/usr/bin:/bin`,
    CLAUDE_JSONL_ARCHIVE: archive,
  }
  return { tmp, home: h, env, archive }
}

const claude = async (args: string[], env: Record<string, string>, cwd: string) =>
  runProcess(await ensureClaudeClient(), args, cwd, env, 120_000)

test('claude plugin validate passes on the plugin and the marketplace; plugin details lists hooks, MCP server and skills', async (t) => {
  const h = home()
  try {
    const plugin = await claude(['plugin', 'validate', PLUGIN], h.env, h.tmp)
    t.is(plugin.code, 0, plugin.stdout + plugin.stderr)
    t.regex(plugin.stdout, /Validation passed/)
    const market = await claude(['plugin', 'validate', REPO], h.env, h.tmp)
    t.is(market.code, 0, market.stdout + market.stderr)
    const details = await claude(['--plugin-dir', PLUGIN, 'plugin', 'details', 'session-keeper'], h.env, h.tmp)
    t.is(details.code, 0, details.stderr)
    t.regex(details.stdout, /Hooks \(3\)\s+SessionEnd, PreCompact, SessionStart/)
    t.regex(details.stdout, /MCP servers \(1\)\s+sessions/)
    t.regex(details.stdout, /Skills \(3\)\s+archive-then-compress, recall-past-sessions, usage-report/)
  } finally {
    await removeHome(h.tmp)
  }
})

test('with --plugin-dir, the model calls search_sessions and gets the other session back; SessionEnd archives the session byte-identical after the client exits', async (t) => {
  const h = home()
  const mock = await startMockApi(120_000, {
    // The conversation request holds the prompt; the plugin's tools are deferred (named in a
    // reminder, not in `tools`), and the client runs a call of one all the same.
    reply: (n, body) => {
      const messages = JSON.stringify(body?.messages ?? [])
      if (!messages.includes(PROMPT) || messages.includes('tool_result')) return undefined
      return [{ type: 'tool_use', id: `toolu_mock_${n}`, name: SEARCH_TOOL, input: { query: PHRASE } }]
    },
  })
  const cwd = join(h.tmp, 'work')
  mkdirSync(cwd, { recursive: true })
  try {
    const env = { ...h.env, ANTHROPIC_BASE_URL: mock.url }
    const args = ['-p', PROMPT, '--plugin-dir', PLUGIN, '--allowedTools', SEARCH_TOOL]
    const run = await claude(
      [...args, '--max-turns', '3', '--model', CLIENT_MODEL, '--output-format', 'json'],
      env,
      cwd,
    )
    const exitedAt = Date.now()
    t.is(run.code, 0, run.stderr.slice(0, 2000))
    const conversation = mock.requests.filter((r) => JSON.stringify(r.body?.messages ?? []).includes(PROMPT))
    t.true(conversation.length >= 2, `conversation requests: ${conversation.length}`)
    const results = conversation
      .slice(1)
      .flatMap((r) => r.body.messages)
      .flatMap((m: any) => (Array.isArray(m.content) ? m.content : []))
      .filter((b: any) => b.type === 'tool_result')
    t.true(results.length > 0, 'a tool_result came back')
    const text = JSON.stringify(results[0].content)
    t.true(text.includes(OTHER), text.slice(0, 500))
    t.true(text.includes('zircon lattice migration'), text.slice(0, 500))
    t.falsy(results[0].is_error, text.slice(0, 500))

    // The session the client ran, and the SessionEnd hook's archive of it.
    const sessionId = JSON.parse(run.stdout).session_id as string
    const project = join(h.home, '.claude', 'projects')
    const dir = readdirSync(project).find((d) => existsSync(join(project, d, `${sessionId}.jsonl`)))!
    const transcript = readFileSync(join(project, dir, `${sessionId}.jsonl`))
    const log = `${h.archive}.hook.log`
    let archivedAt = 0
    for (const deadline = Date.now() + 10_000; Date.now() < deadline;) {
      const line = existsSync(log)
        ? readFileSync(log, 'utf8')
            .split('\n')
            .find((l) => l.includes(`session-end ${sessionId}`))
        : undefined
      if (line) {
        archivedAt = Date.parse(line.split(' ')[0])
        break
      }
      await new Promise((r) => setTimeout(r, 200))
    }
    t.true(archivedAt > 0, existsSync(log) ? readFileSync(log, 'utf8') : 'no hook log')
    // The worker archives only once the client let the session go: the hook did not hold the exit.
    t.true(archivedAt <= exitedAt + 10_000)
    const out = join(h.tmp, 'restored')
    const r = spawnSync(process.execPath, [CLI, 'restore', h.archive, sessionId, '--to', out], {
      encoding: 'utf8',
      env: { ...process.env, HOME: h.home },
    })
    t.is(r.status, 0, r.stderr)
    t.deepEqual(readFileSync(join(out, dir, `${sessionId}.jsonl`)), transcript)
    t.log(`hook log: ${readFileSync(log, 'utf8').trim()}`)
  } finally {
    await mock.close()
    await removeHome(h.tmp)
  }
})

test("the plugin's archive_dir option (userConfig, set in settings.json's pluginConfigs) is where SessionEnd archives", async (t) => {
  const h = home()
  const chosen = join(h.tmp, 'archive-from-option')
  // A side-loaded plugin's id is `<name>@inline`; its options live under pluginConfigs.
  writeFileSync(
    join(h.home, '.claude', 'settings.json'),
    JSON.stringify({ pluginConfigs: { 'session-keeper@inline': { options: { archive_dir: chosen } } } }),
  )
  const mock = await startMockApi(120_000)
  const cwd = join(h.tmp, 'work')
  mkdirSync(cwd, { recursive: true })
  try {
    const env: Record<string, string> = { ...h.env, ANTHROPIC_BASE_URL: mock.url }
    delete env.CLAUDE_JSONL_ARCHIVE
    const run = await claude(
      ['-p', 'hello', '--plugin-dir', PLUGIN, '--max-turns', '1', '--model', CLIENT_MODEL, '--output-format', 'json'],
      env,
      cwd,
    )
    t.is(run.code, 0, run.stderr.slice(0, 2000))
    const sessionId = JSON.parse(run.stdout).session_id as string
    const log = `${chosen}.hook.log`
    let line: string | undefined
    for (const deadline = Date.now() + 10_000; Date.now() < deadline && !line;) {
      line = existsSync(log)
        ? readFileSync(log, 'utf8')
            .split('\n')
            .find((l) => l.includes(`session-end ${sessionId}`))
        : undefined
      if (!line) await new Promise((r) => setTimeout(r, 200))
    }
    t.truthy(line, existsSync(log) ? readFileSync(log, 'utf8') : `no hook log at ${log}`)
    const listed = spawnSync(process.execPath, [CLI, 'restore', chosen, '--list', '--json'], { encoding: 'utf8' })
    t.is(listed.status, 0, listed.stderr)
    t.true(listed.stdout.includes(sessionId), 'the session is in the archive the option named')
    t.false(existsSync(join(h.home, '.local', 'share', 'claude-jsonl', 'archive')), 'not in the default archive')
  } finally {
    await mock.close()
    await removeHome(h.tmp)
  }
})
