// The team dataset in a folder: export writes what stats counts, a re-run writes nothing new,
// a change rewrites only its day, history survives the cleanup, machines merge without counting
// a request twice, and DuckDB reads it (query, stats --dataset). Object storage: dataset-s3.test.ts;
// Spark: dataset-spark.test.ts.
import test from 'ava'
import { spawn, spawnSync } from 'node:child_process'
import {
  appendFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { hostname } from 'node:os'
import { join } from 'node:path'
import { exportDataset } from '../src-ts/dataset/export.js'
import { FolderDestination } from '../src-ts/dataset/destination.js'
import { datasetStats } from '../src-ts/dataset/stats.js'
import { query } from '../src-ts/dataset/query.js'
import { stats } from '../src-ts/read/stats.js'
import native from '../src-ts/native.js'
import { assistant, CLI, REPO, tempDir, userText, writeTree } from './helpers/transcripts.js'

/** A generated estate's projects folder. */
async function estate(seed: string, sessions = 8): Promise<string> {
  const { generateEstate } = await import(join(REPO, 'fixtures', 'generate.mjs'))
  const dir = tempDir('cj-dataset-estate-')
  generateEstate({ out: dir, sessions, targetMb: 3, seed })
  return join(dir, 'projects')
}

const close = (a: number, b: number) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b))

function cli(args: string[]) {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8' })
  return { code: r.status, out: r.stdout, err: r.stderr }
}

/** Every part file of the dataset with its mtime. */
function parts(root: string): Map<string, number> {
  const out = new Map<string, number>()
  const walk = (d: string, rel: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(d, e.name), `${rel}${e.name}/`)
      else if (e.name.endsWith('.parquet')) out.set(`${rel}${e.name}`, statSync(join(d, e.name)).mtimeMs)
    }
  }
  walk(root, '')
  return out
}

test('export writes what stats counts, by UTC day, and DuckDB reads it back to the token and the cent', async (t) => {
  const projects = await estate('dataset-1')
  const root = join(tempDir('cj-dataset-'), 'team')
  const dest = new FolderDestination(root).open()
  const report = await exportDataset(dest, { projects, machine: 'laptop' })
  const expected = await stats({ projects })
  const requests = report.tables.find((x) => x.table === 'requests')!
  t.is(requests.rows, expected.totals.requests)
  t.true(requests.written > 0)
  const files = [...parts(root).keys()]
  t.true(
    files.every((f) =>
      /^(requests|sessions|tool_calls)\/day=(\d{4}-\d{2}-\d{2}|unknown)\/part-laptop\.parquet$/.test(f),
    ),
    files.join(', '),
  )

  const team = await datasetStats(dest)
  for (const k of [
    'requests',
    'inputTokens',
    'outputTokens',
    'cacheCreationInputTokens',
    'cacheReadInputTokens',
    'cacheWrite5mTokens',
    'cacheWrite1hTokens',
  ] as const)
    t.is(team.totals[k], expected.totals[k], k)
  t.true(close(team.totals.costUsd, expected.totals.costUsd), `${team.totals.costUsd} vs ${expected.totals.costUsd}`)
  t.deepEqual(team.machines, ['laptop'])
  t.is(team.scope.sessions, expected.scope.sessions)

  const byModel = await datasetStats(dest, { by: 'model' })
  const want = await stats({ projects, by: 'model' })
  t.deepEqual(
    byModel.groups!.map((g) => [g.key, g.requests, g.outputTokens, g.toolCalls]),
    [...want.groups!]
      .sort((a, b) => (a.key < b.key ? -1 : 1))
      .map((g) => [g.key, g.requests, g.outputTokens, g.toolCalls]),
  )
  const byDay = await datasetStats(dest, { by: 'day' })
  const wantDays = await stats({ projects, by: 'day', timezone: 'UTC' })
  t.deepEqual(
    byDay.groups!.filter((g) => g.key !== 'unknown').map((g) => [g.key, g.requests]),
    wantDays
      .groups!.filter((g) => g.key !== 'unknown')
      .sort((a, b) => (a.key < b.key ? -1 : 1))
      .map((g) => [g.key, g.requests]),
  )

  const q = await query(dest, 'SELECT count(*)::DOUBLE AS n, count(DISTINCT request_key)::DOUBLE AS keys FROM requests')
  t.deepEqual(q.rows, [[expected.totals.requests, expected.totals.requests]], 'one row per request, keys unique')

  // tool_calls: the calls stats counts per tool, each with the target stats --tools names.
  const withTools = await stats({ projects, tools: true, toolLimit: 1000 })
  t.true(withTools.tools.length > 3)
  t.deepEqual(
    team.tools,
    [...withTools.tools].sort((a, b) => b.calls - a.calls || (a.name < b.name ? -1 : 1)),
  )
  const targets = await query(
    dest,
    'SELECT tool, target, count(*)::DOUBLE FROM tool_calls WHERE target IS NOT NULL GROUP BY ALL ORDER BY ALL',
  )
  const want2 = withTools
    .toolTargets!.flatMap((x) => x.top.map((y) => [x.name, y.target, y.calls]))
    .sort((a, b) => (`${a[0]}\0${a[1]}` < `${b[0]}\0${b[1]}` ? -1 : 1))
  t.deepEqual(targets.rows, want2)
  // stats --dataset --tools: the same per-tool targets as stats --tools.
  for (const toolLimit of [3, 1000]) {
    const want = (await stats({ projects, tools: true, toolLimit })).toolTargets
    t.deepEqual((await datasetStats(dest, { tools: true, toolLimit })).toolTargets, want, `limit ${toolLimit}`)
  }
  // is_error: the calls whose tool_result says is_error: true, counted here from the files.
  const failed = new Set<string>()
  for (const e of readdirSync(projects, { recursive: true, withFileTypes: true }))
    if (e.isFile() && e.name.endsWith('.jsonl'))
      for (const line of readFileSync(join(e.parentPath, e.name), 'utf8').split('\n')) {
        if (!line.includes('"is_error":true')) continue
        for (const b of JSON.parse(line).message?.content ?? [])
          if (b.type === 'tool_result' && b.is_error) failed.add(b.tool_use_id)
      }
  const errors = await query(dest, 'SELECT tool_use_id FROM tool_calls WHERE is_error ORDER BY 1')
  t.true(failed.size > 0)
  t.true(errors.rows.length > 0, 'some calls failed')
  const calledIds = new Set((await query(dest, 'SELECT tool_use_id FROM tool_calls')).rows.map((r) => r[0]))
  t.deepEqual(
    errors.rows.map((r) => r[0]),
    [...failed].filter((id) => calledIds.has(id)).sort(),
  )
})

test('a re-run writes nothing; a change rewrites only its day; a cleaned-up session stays in the dataset', async (t) => {
  const projects = await estate('dataset-2')
  const root = join(tempDir('cj-dataset-'), 'team')
  const dest = new FolderDestination(root).open()
  await exportDataset(dest, { projects, machine: 'm1' })
  const first = parts(root)
  const before = await datasetStats(dest)

  const again = await exportDataset(dest, { projects, machine: 'm1' })
  t.deepEqual(
    again.tables.map((x) => x.written),
    again.tables.map(() => 0),
    'nothing written',
  )
  t.deepEqual(parts(root), first, 'no file touched')

  // One more request, on a day that already has requests.
  const file = readdirSync(join(projects), { recursive: true, withFileTypes: true }).find(
    (e) =>
      e.isFile() && e.name.endsWith('.jsonl') && !e.name.startsWith('agent-') && !e.parentPath.includes('subagents'),
  )!
  const path = join(file.parentPath, file.name)
  const last = readFileSync(path, 'utf8')
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l))
    .filter((r) => r.type === 'assistant' && r.timestamp)
    .pop()
  const extra = {
    ...last,
    uuid: 'extra-uuid-1',
    requestId: 'req_extra_1',
    message: { ...last.message, id: 'msg_extra_1' },
  }
  appendFileSync(path, JSON.stringify(extra) + '\n')
  const changed = await exportDataset(dest, { projects, machine: 'm1' })
  const day = String(extra.timestamp).slice(0, 10)
  const after = parts(root)
  const touched = [...after].filter(([k, m]) => first.get(k) !== m).map(([k]) => k)
  t.true(touched.includes(`requests/day=${day}/part-m1.parquet`), touched.join(', '))
  t.true(
    touched.every((k) => k.includes(`day=${day}/`) || k.startsWith('sessions/')),
    touched.join(', '),
  )
  t.is(changed.tables.find((x) => x.table === 'requests')!.written, 1)
  t.is((await datasetStats(dest)).totals.requests, before.totals.requests + 1)

  // The cleanup deletes the session's transcript: its rows stay.
  rmSync(path)
  await exportDataset(dest, { projects, machine: 'm1' })
  t.is((await datasetStats(dest)).totals.requests, before.totals.requests + 1)
})

test('a request whose copy is written on the next UTC day counts once: across a re-export and across machines', async (t) => {
  // A resumed copy of a session repeats the last reply (same requestId and message.id) after
  // midnight, with more output: stats counts it once, as the copy; the dataset must too.
  const original = '22222222-2222-4222-8222-222222222222'
  const copy = '11111111-1111-4111-8111-111111111111'
  const reply = (sessionId: string, timestamp: string, output: number) =>
    assistant({
      messageId: 'msg_midnight',
      requestId: 'req_midnight',
      output,
      timestamp,
      sessionId,
      tool: ['toolu_midnight', 'Bash'],
    })
  const files = {
    [`projects/-p/${original}.jsonl`]: [userText('hi'), reply(original, '2026-03-01T23:59:58.000Z', 5)],
    [`projects/-p/${copy}.jsonl`]: [reply(copy, '2026-03-02T00:00:03.000Z', 9)],
  }
  const only = (name: string) => {
    const root = tempDir('cj-dataset-midnight-')
    writeTree(Object.fromEntries(Object.entries(files).filter(([k]) => k.includes(name))), root)
    return join(root, 'projects')
  }
  const counts = async (dest: FolderDestination) =>
    (
      await query(
        dest,
        "SELECT (SELECT count(*) FROM requests WHERE request_key = 'req_midnight')::DOUBLE, (SELECT count(*) FROM tool_calls WHERE tool_use_id = 'toolu_midnight')::DOUBLE",
      )
    ).rows[0]

  // One machine: the original is exported, then the copy appears beside it.
  const projects = only(original)
  const one = new FolderDestination(join(tempDir('cj-dataset-'), 'team')).open()
  await exportDataset(one, { projects, machine: 'm' })
  writeTree({ [`-p/${copy}.jsonl`]: files[`projects/-p/${copy}.jsonl`] }, projects)
  t.is((await stats({ projects })).totals.requests, 1)
  await exportDataset(one, { projects, machine: 'm' })
  t.deepEqual(await counts(one), [1, 1], 'one machine, re-exported')
  t.is((await datasetStats(one)).totals.outputTokens, 9, 'the copy, as stats counts it')

  // Two machines, each with one of the two, in either order.
  for (const order of [
    [original, copy],
    [copy, original],
  ]) {
    const team = new FolderDestination(join(tempDir('cj-dataset-'), 'team')).open()
    for (const name of order) await exportDataset(team, { projects: only(name), machine: name.slice(0, 4) })
    t.deepEqual(await counts(team), [1, 1], `two machines, ${order[0] === original ? 'original' : 'copy'} first`)
  }
})

/** A projects folder of one session with one request on 2026-03-01 (its ids from `name`). */
function oneRequest(name: string): string {
  const id = `${name.repeat(8).slice(0, 8)}-0000-4000-8000-000000000000`
  const root = tempDir('cj-dataset-one-')
  writeTree(
    {
      [`projects/-p/${id}.jsonl`]: [
        userText('hi'),
        assistant({ messageId: `msg_${name}`, output: 7, sessionId: id, timestamp: '2026-03-01T10:00:00.000Z' }),
      ],
    },
    root,
  )
  return join(root, 'projects')
}

test("two exports of one machine into one folder: the second waits for the first, so neither loses the other's rows", async (t) => {
  // Each estate has a request of the same day: a second export that listed the day's partition
  // before the first published it would publish its own rows over the first's.
  const root = join(tempDir('cj-dataset-'), 'team')
  const env = { ...process.env, CLAUDE_JSONL_FAULT_STOP: 'dataset-read', CLAUDE_JSONL_DATASET_LOCK_WAIT_MS: '600000' }
  const run = (projects: string) => {
    const p = spawn(process.execPath, [CLI, 'export', '--projects', projects, '--to', root, '--machine', 'same'], {
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
    })
    let err = ''
    p.stderr!.on('data', (d) => (err += d))
    t.teardown(() => void p.kill('SIGKILL'))
    return { p, err: () => err, exit: new Promise<number | null>((r) => p.on('exit', (code) => r(code))) }
  }
  // Polls for what a process said; no assertion depends on how long it takes.
  const until = async (what: () => boolean) => {
    while (!what()) await new Promise((r) => setTimeout(r, 20))
  }
  const a = run(oneRequest('a'))
  await until(() => a.err().includes('fault point dataset-read'))
  // a is stopped after listing, before publishing: b either waits for a's lock, or (no lock)
  // reaches the same point with the same stale listing.
  const b = run(oneRequest('b'))
  await until(() => /waiting for the export|fault point dataset-read/.test(b.err()))
  a.p.kill('SIGCONT')
  t.is(await a.exit, 0, a.err())
  await until(() => b.err().includes('fault point dataset-read'))
  b.p.kill('SIGCONT')
  t.is(await b.exit, 0, b.err())
  const dest = new FolderDestination(root)
  t.deepEqual(
    (await query(dest, 'SELECT message_id FROM requests ORDER BY 1')).rows,
    [['msg_a'], ['msg_b']],
    "both exports' rows",
  )
  t.false(
    readdirSync(join(root, '_claude_jsonl', 'locks')).some((n) => n.endsWith('.lock')),
    'the lock is released',
  )
})

test("a live lock of the machine makes export give up with one line and exit 3; a dead owner's lock is taken over", async (t) => {
  const projects = oneRequest('c')
  const root = join(tempDir('cj-dataset-'), 'team')
  const lock = join(root, '_claude_jsonl', 'locks', 'm.lock')
  mkdirSync(join(root, '_claude_jsonl', 'locks'), { recursive: true })
  const owner = (pid: number) =>
    JSON.stringify({ host: hostname(), pid, start: '0', since: '2026-03-01T00:00:00.000Z' }) + '\n'
  // This test's own process: alive.
  writeFileSync(lock, owner(process.pid))
  const r = spawnSync(process.execPath, [CLI, 'export', '--projects', projects, '--to', root, '--machine', 'm'], {
    encoding: 'utf8',
    env: { ...process.env, CLAUDE_JSONL_DATASET_LOCK_WAIT_MS: '0' },
  })
  t.is(r.status, 3)
  t.is(r.stderr.trim().split('\n').length, 1, r.stderr)
  t.regex(r.stderr, new RegExp(`another export of machine 'm' is running \\(pid ${process.pid} on `))
  t.false(existsSync(join(root, 'requests')), 'nothing written')
  t.is(readFileSync(lock, 'utf8'), owner(process.pid), "the holder's lock stays")
  // A process that has ended (a child that ran and exited): its lock is stale.
  const ended = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' })
  writeFileSync(lock, owner(Number(ended.stdout)))
  const again = spawnSync(process.execPath, [CLI, 'export', '--projects', projects, '--to', root, '--machine', 'm'], {
    encoding: 'utf8',
    env: { ...process.env, CLAUDE_JSONL_DATASET_LOCK_WAIT_MS: '0' },
  })
  t.is(again.status, 0, again.stderr)
  t.false(existsSync(lock))
  // A dataset that exists (its info written, so none is written now) and a live holder again,
  // over an estate whose rows take a while: the refusal arrives while the rows are being made,
  // and is still the one line and exit 3, not an unhandled rejection's stack trace.
  const bigger = await estate('lock-held', 24)
  writeFileSync(lock, owner(process.pid))
  const held = spawnSync(process.execPath, [CLI, 'export', '--projects', bigger, '--to', root, '--machine', 'm'], {
    encoding: 'utf8',
    env: { ...process.env, CLAUDE_JSONL_DATASET_LOCK_WAIT_MS: '0' },
  })
  t.is(held.status, 3, held.stderr)
  t.is(held.stderr.trim().split('\n').length, 1, held.stderr)
  t.regex(held.stderr, /another export of machine 'm' is running/)
})

test('machines merge into one dataset: a session copied to two machines counts once', async (t) => {
  const a = await estate('dataset-a', 6)
  const b = await estate('dataset-b', 6)
  // Machine b also holds a copy of one of a's sessions.
  const project = readdirSync(a)[0]
  const copied = readdirSync(join(a, project)).find((n) => n.endsWith('.jsonl'))!
  cpSync(join(a, project, copied), join(b, project, copied), { force: true })
  const root = join(tempDir('cj-dataset-'), 'team')
  const dest = new FolderDestination(root).open()
  const ra = await exportDataset(dest, { projects: a, machine: 'a' })
  const rb = await exportDataset(dest, { projects: b, machine: 'b' })
  const sa = await stats({ projects: a })
  const sb = await stats({ projects: b })
  const copy = await stats({ paths: [join(a, project, copied)] })
  t.true(copy.totals.requests > 0)
  t.is(rb.tables.find((x) => x.table === 'requests')!.duplicatesOfOtherMachines, copy.totals.requests)
  const team = await datasetStats(dest)
  t.is(team.totals.requests, sa.totals.requests + sb.totals.requests - copy.totals.requests)
  t.true(close(team.totals.costUsd, sa.totals.costUsd + sb.totals.costUsd - copy.totals.costUsd))
  const byMachine = await datasetStats(dest, { by: 'machine' })
  t.deepEqual(
    byMachine.groups!.map((g) => [g.key, g.requests]),
    [
      ['a', sa.totals.requests],
      ['b', sb.totals.requests - copy.totals.requests],
    ],
  )
  t.truthy(ra)
  // Exporting a again after b changes nothing: the copy stays counted once.
  await exportDataset(dest, { projects: a, machine: 'a' })
  t.is((await datasetStats(dest)).totals.requests, team.totals.requests)
})

test('cli: export, query and stats --dataset; bad input is one line with its exit code', async (t) => {
  const projects = await estate('dataset-cli', 4)
  const root = join(tempDir('cj-dataset-'), 'team')
  const exp = cli(['export', '--projects', projects, '--to', root, '--machine', 'ci-box'])
  t.is(exp.code, 0, exp.err)
  t.regex(exp.out, /Exported machine ci-box into .*team \(schema 1\)/)
  t.regex(exp.out, /requests: [\d,]+ rows in [\d,]+ days; [\d,]+ written, 0 unchanged/)
  const q = cli(['query', 'SELECT machine, count(*) AS n FROM requests GROUP BY machine', '--dataset', root, '--json'])
  t.is(q.code, 0, q.err)
  const expected = await stats({ projects })
  t.deepEqual(JSON.parse(q.out).rows, [['ci-box', String(expected.totals.requests)]])
  const s = cli(['stats', '--dataset', root, '--json'])
  t.is(s.code, 0, s.err)
  t.is(JSON.parse(s.out).totals.requests, expected.totals.requests)
  const text = cli(['stats', '--dataset', root, '--by', 'machine'])
  t.is(text.code, 0, text.err)
  t.regex(text.out, /ci-box/)

  // The installed command (the CLI bundle, the second time from V8's code cache) loads DuckDB
  // and answers with nothing on stderr.
  const env = { ...process.env, NODE_COMPILE_CACHE: tempDir('cj-dataset-cache-') }
  for (let i = 0; i < 2; i++)
    for (const args of [
      ['query', 'SELECT count(*)::DOUBLE FROM requests', '--dataset', root, '--json'],
      ['stats', '--dataset', root, '--json'],
    ]) {
      const r = spawnSync(process.execPath, [join(REPO, 'dist', 'src-ts', 'cli', 'bin.cjs'), ...args], {
        encoding: 'utf8',
        env,
      })
      t.is(r.status, 0, `${args[0]} (run ${i + 1}): ${r.stderr}`)
      t.is(r.stderr, '', `${args[0]} (run ${i + 1}) prints nothing on stderr`)
    }

  const badSql = cli(['query', 'SELECT nope FROM requests', '--dataset', root])
  t.is(badSql.code, 2)
  t.regex(badSql.err, /^claude-jsonl: query: .*nope/m)
  t.notRegex(badSql.err, /\n\s+at /)
  const badMachine = cli(['export', '--projects', projects, '--to', root, '--machine', '../evil'])
  t.is(badMachine.code, 2)
  const missing = cli(['stats', '--dataset', join(root, 'nowhere')])
  t.is(missing.code, 3)
  const info = join(root, '_claude_jsonl', 'dataset.json')
  writeFileSync(info, JSON.stringify({ format: 'claude-jsonl-dataset', schemaVersion: 99 }))
  const other = cli(['export', '--projects', projects, '--to', root])
  t.is(other.code, 3)
  t.regex(other.err, /schema version 99; this claude-jsonl reads and writes version 1/)
  const otherQuery = cli(['query', 'SELECT 1', '--dataset', root])
  t.is(otherQuery.code, 3)
})

test('an export killed part-way leaves only whole partitions, and the next run completes it without a duplicate', async (t) => {
  const projects = await estate('dataset-kill', 12)
  const root = join(tempDir('cj-dataset-'), 'team')
  const expected = await stats({ projects })
  // Killed as soon as its first partition is published, then at a few later moments.
  for (const after of [1, 10, 25]) {
    const child = spawn(process.execPath, [CLI, 'export', '--projects', projects, '--to', root, '--machine', 'm'], {
      stdio: 'ignore',
    })
    const exited = new Promise((r) => child.once('exit', r))
    for (;;) {
      let n = 0
      try {
        n = parts(root).size
      } catch {
        // not made yet
      }
      if (n >= after || child.exitCode !== null) break
      await new Promise((r) => setTimeout(r, 2))
    }
    child.kill('SIGKILL')
    await exited
    // Every part a reader sees is a whole Parquet file (the temp files of a put are hidden).
    for (const key of parts(root).keys()) {
      const table = key.split('/')[0]
      t.notThrows(() => native.decodeDatasetTable(table, readFileSync(join(root, key))), key)
    }
  }
  const done = cli(['export', '--projects', projects, '--to', root, '--machine', 'm', '--json'])
  t.is(done.code, 0, done.err)
  const dest = new FolderDestination(root).open()
  const q = await query(dest, 'SELECT count(*)::DOUBLE, count(DISTINCT request_key)::DOUBLE FROM requests')
  t.deepEqual(q.rows, [[expected.totals.requests, expected.totals.requests]])
  const again = JSON.parse(cli(['export', '--projects', projects, '--to', root, '--machine', 'm', '--json']).out)
  t.true(
    again.tables.every((x: { written: number }) => x.written === 0),
    'then a re-run writes nothing',
  )
})

test('no message text by default; --include-text adds the messages table: prompts and replies, no tool traffic', async (t) => {
  const projects = await estate('dataset-text', 3)
  const root = join(tempDir('cj-dataset-'), 'team')
  t.is(cli(['export', '--projects', projects, '--to', root, '--machine', 'm']).code, 0)
  t.false(
    [...parts(root).keys()].some((k) => k.startsWith('messages/')),
    'no messages without --include-text',
  )
  const dest = new FolderDestination(root).open()
  t.deepEqual((await query(dest, 'SELECT count(*)::DOUBLE FROM messages')).rows, [[0]], 'an empty view still answers')

  const r = cli(['export', '--projects', projects, '--to', root, '--machine', 'm', '--include-text', '--json'])
  t.is(r.code, 0, r.err)
  const written = JSON.parse(r.out).tables.find((x: { table: string }) => x.table === 'messages')
  t.true(written.rows > 0)
  // The text stays its owner's, as the transcripts it comes from are; the usage tables do not.
  for (const key of parts(root).keys())
    if (key.startsWith('messages/')) t.is(statSync(join(root, key)).mode & 0o077, 0, `${key} is private`)
  // Every typed prompt (a user record whose content is a string, neither meta nor a compaction
  // summary) is a row, word for word.
  const prompts: string[] = []
  let toolOutput = ''
  for (const e of readdirSync(projects, { recursive: true, withFileTypes: true }))
    if (e.isFile() && e.name.endsWith('.jsonl'))
      for (const line of readFileSync(join(e.parentPath, e.name), 'utf8').split('\n')) {
        let rec
        try {
          rec = JSON.parse(line)
        } catch {
          continue
        }
        if (
          rec.type === 'user' &&
          !rec.isMeta &&
          !rec.isCompactSummary &&
          typeof rec.message?.content === 'string' &&
          rec.message.content.trim()
        )
          prompts.push(rec.message.content)
        for (const b of Array.isArray(rec.message?.content) ? rec.message.content : [])
          if (b.type === 'tool_result' && typeof b.content === 'string' && b.content.length > 40 && !toolOutput)
            toolOutput = b.content
      }
  t.true(prompts.length > 0 && toolOutput !== '')
  const texts = new Set((await query(dest, "SELECT text FROM messages WHERE role = 'user'")).rows.map((x) => x[0]))
  for (const p of prompts) t.true(texts.has(p), p.slice(0, 60))
  const leaked = await query(
    dest,
    `SELECT count(*)::DOUBLE FROM messages WHERE contains(text, ${`'${toolOutput.slice(0, 40).replace(/'/g, "''")}'`})`,
  )
  t.deepEqual(leaked.rows, [[0]], 'tool results are not message text')
  const again = JSON.parse(
    cli(['export', '--projects', projects, '--to', root, '--machine', 'm', '--include-text', '--json']).out,
  )
  t.true(
    again.tables.every((x: { written: number }) => x.written === 0),
    'a re-run writes nothing',
  )
})

test('an archive root exports the rows its estate exports', async (t) => {
  const projects = await estate('dataset-archive', 4)
  const base = tempDir('cj-dataset-')
  const env = { ...process.env, XDG_CACHE_HOME: join(base, 'cache') }
  const run = (args: string[]) => spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', env })
  t.is(run(['archive', '--projects', projects, '--to', join(base, 'archive')]).status, 0)
  const a = run(['export', '--projects', projects, '--to', join(base, 'from-estate'), '--machine', 'm', '--json'])
  const b = run(['export', join(base, 'archive'), '--to', join(base, 'from-archive'), '--machine', 'm', '--json'])
  t.is(b.status, 0, b.stderr)
  const rows = (r: { stdout: string }) =>
    JSON.parse(r.stdout).tables.map((x: { table: string; rows: number }) => [x.table, x.rows])
  t.deepEqual(rows(b), rows(a))
  t.true(rows(a).every(([, n]: [string, number]) => n > 0))
})

test('nothing is written through a link out of the dataset folder: a table folder that links elsewhere is refused', async (t) => {
  const projects = await estate('dataset-link', 2)
  const root = join(tempDir('cj-dataset-'), 'team')
  const outside = tempDir('cj-dataset-outside-')
  mkdirSync(root, { recursive: true })
  symlinkSync(outside, join(root, 'requests'))
  const r = cli(['export', '--projects', projects, '--to', root, '--machine', 'm'])
  t.not(r.code, 0, r.out)
  t.is(r.err.trim().split('\n').length, 1, r.err)
  t.regex(r.err, /link/)
  t.deepEqual(readdirSync(outside), [], 'nothing written where the link leads')
})

test('a pricing of another length than the requests is refused, and the rows then take one of the right length', async (t) => {
  const { scanEstateTotals } = await import('../src-ts/read/estate.js')
  const { promptThresholds } = await import('../src-ts/read/prices.js')
  const projects = await estate('dataset-pricing-length', 2)
  const { scan } = await scanEstateTotals({ projects }, 'usage', undefined, true)
  const rows = await scan.datasetRows('m', promptThresholds())
  const p = rows.pricingInputs()
  t.true(p.key.length > 0)
  const keys = p.keys.model.length
  const perKey = {
    estimated: new Uint8Array(keys),
    fast: new Uint8Array(keys),
    longContext: new Uint8Array(keys),
    pricedAs: Array.from({ length: keys }, () => null),
  }
  t.throws(() => rows.addPriced(new Float64Array(p.key.length - 1), perKey), { message: /the pricing has/ })
  // nothing was set: the right length goes in, with a sum for every request
  const sums = rows.addPriced(new Float64Array(p.key.length).fill(0.5), perKey)
  t.is(
    Array.from(sums.requests).reduce((a, b) => a + b, 0),
    p.key.length,
  )
})
