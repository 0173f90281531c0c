// What Claude Code's cleanup deletes, observed with the real client (2.1.332) against the loopback
// mock, and that the archive brings a session's files back where the client reads them. The
// rules are in docs/claude-code-client.md#cleanup. Each client run lasts about 8 s: the sweep
// runs 5 s after the client starts its background housekeeping, so the mock answers late.
import test from 'ava'
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { archive, restore } from '../src-ts/archive/archive.js'
import {
  CLIENT_MODEL,
  clientEnv,
  encodeProjectDir,
  ensureClaudeClient,
  runProcess,
  startMockApi,
  MockOptions,
  RecordedRequest,
} from './helpers/claude-client.js'

const OLD = '11111111-1111-4111-8111-111111111111'
const FRESH = '22222222-2222-4222-8222-222222222222'
/** Long enough for the sweep (5 s after housekeeping starts) to finish before the client exits. */
const SWEEP_WAIT_MS = 8_000

test.before(async () => {
  await ensureClaudeClient()
})

interface Home {
  tmp: string
  home: string
  config: string
  cwd: string
  project: string
}

function makeHome(): Home {
  const tmp = mkdtempSync(join(tmpdir(), 'cj-cleanup-'))
  const home = join(tmp, 'home')
  const cwd = join(tmp, 'work')
  mkdirSync(cwd, { recursive: true })
  const config = join(home, '.claude')
  const project = join(config, 'projects', encodeProjectDir(cwd))
  mkdirSync(project, { recursive: true })
  writeFileSync(join(config, 'settings.json'), JSON.stringify({ cleanupPeriodDays: 1 }) + '\n')
  return { tmp, home, config, cwd, project }
}

function put(path: string, body: string | Buffer): void {
  mkdirSync(dirname(path), { recursive: true })
  writeFileSync(path, body)
}

/** Every file below `dir`, as paths relative to it. */
function filesBelow(dir: string, rel = ''): string[] {
  if (!existsSync(join(dir, rel))) return []
  return readdirSync(join(dir, rel), { withFileTypes: true }).flatMap((e) => {
    const r = rel ? `${rel}/${e.name}` : e.name
    return e.isDirectory() ? filesBelow(dir, r) : [r]
  })
}

/** Sets the mtime of every file and folder below `dir` (the folder too) `days` days back, except
 * paths containing one of `spare`. */
function age(dir: string, days: number, spare: string[] = []): void {
  const t = Date.now() / 1000 - days * 86_400
  const walk = (p: string) => {
    for (const e of readdirSync(p, { withFileTypes: true })) {
      const q = join(p, e.name)
      if (e.isDirectory()) walk(q)
      if (!spare.some((s) => q.includes(s)) && !q.endsWith('settings.json')) utimesSync(q, t, t)
    }
  }
  walk(dir)
}

/** One client run (`-p`, a new session) that lives long enough for the cleanup sweep. */
async function runClient(h: Home, args: string[], mock: MockOptions = {}): Promise<RecordedRequest[]> {
  const bin = await ensureClaudeClient()
  const api = await startMockApi(120_000, mock)
  try {
    const r = await runProcess(
      bin,
      ['--output-format', 'json', '--model', CLIENT_MODEL, ...args],
      h.cwd,
      clientEnv(h.home, h.tmp, api.url),
      120_000,
    )
    if (r.code !== 0) throw new Error(`client exit ${r.code}: ${r.stderr.slice(0, 500)} ${r.stdout.slice(0, 500)}`)
    return api.requests
  } finally {
    await api.close()
  }
}

function record(sessionId: string, extra: Record<string, unknown>): string {
  return (
    JSON.stringify({ sessionId, cwd: '/tmp/x', version: '2.1.332', timestamp: '2026-09-01T00:00:00.000Z', ...extra }) +
    '\n'
  )
}

/** The fields of an assistant record whose whole answer is `text`. */
function assistantText(uuid: string, parentUuid: string, text: string): Record<string, unknown> {
  return {
    type: 'assistant',
    uuid,
    parentUuid,
    message: {
      id: `msg_${uuid.slice(-4)}`,
      role: 'assistant',
      model: CLIENT_MODEL,
      type: 'message',
      content: [{ type: 'text', text }],
      stop_reason: 'end_turn',
      usage: { input_tokens: 1, output_tokens: 1 },
    },
  }
}

/** A session's files in the projects folder and in the config folder. */
function sessionFiles(h: Home, sid: string): Record<string, string> {
  const p = `projects/${encodeProjectDir(h.cwd)}`
  return {
    transcript: `${p}/${sid}.jsonl`,
    toolResult: `${p}/${sid}/tool-results/toolu_01.txt`,
    subagent: `${p}/${sid}/subagents/agent-a1.jsonl`,
    subagentMeta: `${p}/${sid}/subagents/agent-a1.meta.json`,
    precompact: `${p}/${sid}.precompact.json`,
    fileHistory: `file-history/${sid}/abc123@v1`,
    todos: `todos/${sid}-agent-${sid}.json`,
    debug: `debug/${sid}.txt`,
    sessionEnv: `session-env/${sid}/hook-1.sh`,
    tasks: `tasks/${sid}/1.json`,
  }
}

function writeSession(h: Home, sid: string): void {
  for (const [what, rel] of Object.entries(sessionFiles(h, sid))) {
    const body =
      what === 'transcript' || what === 'subagent'
        ? record(sid, { type: 'user', uuid: `u-${what}`, parentUuid: null, message: { role: 'user', content: 'hi' } })
        : `${what}\n`
    put(join(h.config, rel), body)
  }
}

test('the cleanup runs 5 s into a client run, once a day, and deletes old session files everywhere but memory/ and history.jsonl', async (t) => {
  const h = makeHome()
  try {
    writeSession(h, OLD)
    writeSession(h, FRESH)
    const shared = {
      plans: 'plans/old-plan.md',
      shellSnapshot: 'shell-snapshots/snapshot-bash-1700000000000-abc.sh',
      pasteCache: 'paste-cache/abc.txt',
      memory: `projects/${encodeProjectDir(h.cwd)}/memory/MEMORY.md`,
      history: 'history.jsonl',
    }
    for (const rel of Object.values(shared)) put(join(h.config, rel), 'x\n')
    for (const sid of [OLD, FRESH]) put(join(h.config, `image-cache/${sid}/1.png`), 'png')
    age(h.config, 60, [FRESH])
    await runClient(h, ['-p', 'hello', '--max-turns', '1'], { delayMs: SWEEP_WAIT_MS })
    const left = new Set(filesBelow(h.config))
    for (const [what, rel] of Object.entries(sessionFiles(h, OLD))) t.false(left.has(rel), `old ${what} deleted`)
    for (const [what, rel] of Object.entries(sessionFiles(h, FRESH))) t.true(left.has(rel), `fresh ${what} kept`)
    t.false(left.has(shared.plans))
    t.false(left.has(shared.shellSnapshot))
    t.false(left.has(shared.pasteCache))
    t.true(left.has(shared.memory), 'memory/ is kept')
    t.true(left.has(shared.history), 'history.jsonl is kept')
    t.true(left.has('.last-cleanup'), 'the sweep leaves its marker')
    // The image cache of every other session goes, whatever its age.
    t.false(left.has(`image-cache/${OLD}/1.png`))
    t.false(left.has(`image-cache/${FRESH}/1.png`))

    // Behind a marker younger than a day, the next run does not sweep.
    writeSession(h, OLD)
    age(h.config, 60, [FRESH, '.last-cleanup'])
    await runClient(h, ['-p', 'hello', '--max-turns', '1'], { delayMs: SWEEP_WAIT_MS })
    t.true(existsSync(join(h.config, sessionFiles(h, OLD).transcript)), 'no second sweep within a day')
  } finally {
    rmSync(h.tmp, { recursive: true, force: true })
  }
})

test('an archived session survives the cleanup: restored, the client resumes it and reads its persisted tool output', async (t) => {
  const h = makeHome()
  try {
    const marker = 'PERSISTED-OUTPUT-MARKER-7f3a'
    const output =
      Array.from({ length: 2000 }, (_, i) => `line ${i} ${i === 1234 ? marker : 'x'.repeat(20)}`).join('\n') + '\n'
    const resultPath = join(h.project, OLD, 'tool-results', 'toolu_01.txt')
    put(resultPath, output)
    // The shape the client writes for a tool output too large for the transcript: the result
    // holds a preview and the path of the full output.
    const persisted = `<persisted-output>\nOutput too large (${(output.length / 1024).toFixed(1)}KB). Full output saved to: ${resultPath}\n\nPreview (first 2KB):\n${output.slice(0, 2048)}\n...\n</persisted-output>`
    const transcript = [
      record(OLD, {
        type: 'user',
        uuid: 'a0000000-0000-4000-8000-000000000001',
        parentUuid: null,
        message: { role: 'user', content: 'list it' },
      }),
      record(OLD, {
        type: 'assistant',
        uuid: 'a0000000-0000-4000-8000-000000000002',
        parentUuid: 'a0000000-0000-4000-8000-000000000001',
        message: {
          id: 'msg_1',
          role: 'assistant',
          model: CLIENT_MODEL,
          type: 'message',
          content: [{ type: 'tool_use', id: 'toolu_01', name: 'Bash', input: { command: 'seq 2000' } }],
          stop_reason: 'tool_use',
          usage: { input_tokens: 1, output_tokens: 1 },
        },
      }),
      record(OLD, {
        type: 'user',
        uuid: 'a0000000-0000-4000-8000-000000000003',
        parentUuid: 'a0000000-0000-4000-8000-000000000002',
        message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01', content: persisted }] },
        toolUseResult: { stdout: persisted, stderr: '', interrupted: false, isImage: false },
      }),
      record(
        OLD,
        assistantText('a0000000-0000-4000-8000-000000000004', 'a0000000-0000-4000-8000-000000000003', 'done'),
      ),
    ].join('')
    put(join(h.project, `${OLD}.jsonl`), transcript)
    put(join(h.project, OLD, 'subagents', 'agent-a1.meta.json'), '{"agentType":"general-purpose"}')
    const before = new Map(filesBelow(h.project).map((rel) => [rel, readFileSync(join(h.project, rel))]))
    const store = join(h.tmp, 'archive')
    const env = { ...process.env, CLAUDE_CONFIG_DIR: h.config, HOME: h.home }
    const a = await archive({ projects: join(h.config, 'projects'), to: store, env })
    t.is(a.failures.length, 0)
    t.is(a.files, 3)

    age(h.config, 60)
    await runClient(h, ['-p', 'hello', '--max-turns', '1'], { delayMs: SWEEP_WAIT_MS })
    t.false(existsSync(join(h.project, `${OLD}.jsonl`)), 'the cleanup deleted the transcript')
    t.false(existsSync(resultPath), 'and its tool results')

    const r = await restore(store, { all: true, to: join(h.config, 'projects'), intoClaudeDir: true, env })
    t.is(r.failed, 0)
    for (const [rel, bytes] of before)
      t.deepEqual(readFileSync(join(h.project, rel)), bytes, `${rel} restored byte-identical`)

    // Resumed, the model asks to read the saved output; the client reads the restored file.
    const requests = await runClient(
      h,
      ['-p', 'continue', '--resume', OLD, '--max-turns', '2', '--allowedTools', 'Read'],
      {
        reply: (n) =>
          n === 1
            ? [{ type: 'tool_use', id: 'toolu_read', name: 'Read', input: { file_path: resultPath } }]
            : undefined,
      },
    )
    const conversation = requests.filter((q) => q.url.startsWith('/v1/messages?') || q.url === '/v1/messages')
    const first = conversation.find((q) => JSON.stringify(q.body?.messages ?? []).includes('Full output saved to'))
    t.truthy(first, 'the resumed history carries the persisted-output pointer')
    const readBack = conversation.find((q) =>
      (q.body?.messages ?? []).some(
        (m: any) =>
          Array.isArray(m.content) &&
          m.content.some(
            (b: any) =>
              b.type === 'tool_result' && b.tool_use_id === 'toolu_read' && JSON.stringify(b.content).includes(marker),
          ),
      ),
    )
    t.truthy(readBack, 'the client read the restored tool output and sent it to the model')
  } finally {
    rmSync(h.tmp, { recursive: true, force: true })
  }
})

test('archive --include-config: after the cleanup, a restored session rewinds its files from the restored file-history', async (t) => {
  const h = makeHome()
  try {
    const user = 'b0000000-0000-4000-8000-000000000001'
    const base = { sessionId: OLD, cwd: h.cwd, version: '2.1.332', userType: 'external', isSidechain: false }
    const backup = 'aaaabbbbccccdddd@v1'
    // the client's record of which file versions it backed up before the turn of `user`
    const snapshot = {
      type: 'file-history-snapshot',
      messageId: user,
      snapshot: {
        messageId: user,
        trackedFileBackups: { 'a.txt': { backupFileName: backup, version: 1, backupTime: '2026-09-01T00:00:00.000Z' } },
        timestamp: '2026-09-01T00:00:00.000Z',
      },
      isSnapshotUpdate: false,
    }
    const transcript = [
      snapshot,
      { ...base, type: 'user', uuid: user, parentUuid: null, message: { role: 'user', content: 'edit a.txt' } },
      { ...base, ...assistantText('b0000000-0000-4000-8000-000000000002', user, 'edited') },
    ]
    put(join(h.project, `${OLD}.jsonl`), transcript.map((r) => JSON.stringify(r) + '\n').join(''))
    const history = join(h.config, 'file-history', OLD, backup)
    put(history, 'ORIGINAL\n')
    const todo = join(h.config, 'todos', `${OLD}-agent-${OLD}.json`)
    put(todo, '[{"content":"edit a.txt","status":"completed","activeForm":"Editing a.txt"}]')
    const store = join(h.tmp, 'archive')
    const env = { ...process.env, CLAUDE_CONFIG_DIR: h.config, HOME: h.home }
    const a = await archive({ projects: join(h.config, 'projects'), to: store, env, includeConfig: true })
    t.is(a.failures.length, 0)
    t.is(a.configFiles, 2)

    age(h.config, 60)
    await runClient(h, ['-p', 'hello', '--max-turns', '1'], { delayMs: SWEEP_WAIT_MS })
    t.false(existsSync(history), 'the cleanup deleted the file-history backup')
    t.false(existsSync(todo), 'and the todo list')

    // `--rewind-files` puts the session's files back as they were at a user message, from its
    // file-history (in -p mode only with SDK file checkpointing on); it asks the API nothing
    const rewind = async () => {
      writeFileSync(join(h.cwd, 'a.txt'), 'CHANGED\n')
      const r = await runProcess(
        await ensureClaudeClient(),
        ['-p', '--resume', OLD, '--rewind-files', user, '--model', CLIENT_MODEL],
        h.cwd,
        { ...clientEnv(h.home, h.tmp, 'http://127.0.0.1:9'), CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING: '1' },
        120_000,
      )
      return { ...r, file: readFileSync(join(h.cwd, 'a.txt'), 'utf8') }
    }
    // the transcript alone: the client has nothing to rewind from
    const projectsOnly = await restore(store, { all: true, to: join(h.config, 'projects'), intoClaudeDir: true, env })
    t.is(projectsOnly.failed, 0)
    t.is(projectsOnly.configSkipped, 2)
    t.is((await rewind()).file, 'CHANGED\n', 'without its file-history the session cannot rewind')
    // that resume appended to the transcript, and restore never replaces a different file
    rmSync(join(h.project, `${OLD}.jsonl`))

    const r = await restore(store, {
      all: true,
      includeConfig: true,
      to: join(h.config, 'projects'),
      intoClaudeDir: true,
      env,
    })
    t.deepEqual(
      r.files.filter((f) => f.error).map((f) => f.error),
      [],
    )
    t.is(r.files.filter((f) => f.config && f.status === 'written').length, 2)
    t.is(readFileSync(history, 'utf8'), 'ORIGINAL\n')
    t.is(readFileSync(todo, 'utf8'), '[{"content":"edit a.txt","status":"completed","activeForm":"Editing a.txt"}]')
    const back = await rewind()
    t.is(back.code, 0, back.stderr)
    t.regex(back.stdout, /Files rewound/)
    t.is(back.file, 'ORIGINAL\n', 'the client rewound a.txt from the restored backup')
  } finally {
    rmSync(h.tmp, { recursive: true, force: true })
  }
})
