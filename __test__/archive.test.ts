import test from 'ava'
import fc from 'fast-check'
import { spawnSync } from 'node:child_process'
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { archive, listArchive, restore } from '../src-ts/archive/archive.js'
import { isArchiveRoot } from '../src-ts/archive/view.js'
import { Store } from '../src-ts/store/store.js'
import { stats } from '../src-ts/read/stats.js'
import { CLI, REAL, REPO, assistant, tempDir, userText, writeTree } from './helpers/transcripts.js'
import { fileTree as tree } from './helpers/file-tree.js'

function run(args: string[], env: NodeJS.ProcessEnv = {}) {
  const r = spawnSync(process.execPath, [CLI, ...args], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH, HOME: '/nonexistent-home', ...env },
  })
  return { code: r.status, stdout: r.stdout, stderr: r.stderr }
}

const SID = [
  '0b7c8a8e-1111-4222-8333-444455556666',
  '1c8d9b9f-2222-4333-8444-555566667777',
  '2d9eac0a-3333-4444-8555-666677778888',
]

/** Pieces a transcript can be made of, awkward ones included. */
const piece = fc.oneof(
  {
    weight: 6,
    arbitrary: fc
      .record({ type: fc.constantFrom('user', 'assistant', 'system'), n: fc.integer(), text: fc.string() })
      .map((o) => JSON.stringify(o) + '\n'),
  },
  { weight: 1, arbitrary: fc.constant('{"crlf":true}\r\n') },
  { weight: 1, arbitrary: fc.constant('not json at all\n') },
  { weight: 1, arbitrary: fc.constant('\n') },
  { weight: 1, arbitrary: fc.constant('{"lone":"\\ud83d"}\n') },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 12 }).map((b) => Buffer.from(b).toString('latin1')) },
)
const content = fc
  .tuple(fc.boolean(), fc.array(piece, { maxLength: 8 }), fc.option(fc.constant('{"torn":'), { nil: '' }))
  .map(([bom, ps, tail]) =>
    Buffer.concat([Buffer.from(bom ? '\uFEFF' : ''), Buffer.from(ps.join(''), 'latin1'), Buffer.from(tail)]),
  )
const place = fc.constantFrom(
  `-home-u-a/${SID[0]}.jsonl`,
  `-home-u-a/${SID[1]}.jsonl`,
  `-home-u-a/${SID[0]}/subagents/agent-a1.jsonl`,
  `-home-u-a/agent-old.jsonl`,
  `-Users-Me-b/${SID[2]}.jsonl`,
  `-Users-Me-b/${SID[2]}/subagents/agent-b2.jsonl`,
)
const change = fc.record({ at: place, kind: fc.constantFrom('append', 'rewrite', 'delete', 'touch'), bytes: content })

/** Some line is a JSON object, or a "type" key occurs: a transcript, maybe a damaged one. */
function looksLikeTranscript(b: Buffer): boolean {
  if (b.includes('"type"')) return true
  return b
    .toString('utf8')
    .split('\n')
    .some((l) => {
      try {
        const v = JSON.parse(l)
        return v !== null && typeof v === 'object' && !Array.isArray(v)
      } catch {
        return false
      }
    })
}

function put(root: string, rel: string, bytes: Buffer) {
  mkdirSync(dirname(join(root, rel)), { recursive: true })
  writeFileSync(join(root, rel), bytes)
}

test('property: archive, change (append, rewrite, delete), re-archive, restore is byte-identical', async (t) => {
  await fc.assert(
    fc.asyncProperty(
      fc.dictionary(place, content, { minKeys: 1 }),
      fc.array(fc.array(change, { maxLength: 4 }), { minLength: 1, maxLength: 3 }),
      async (initial, rounds) => {
        const dir = tempDir('cj-arch-prop-')
        const src = join(dir, 'src')
        const arch = join(dir, 'arch')
        try {
          for (const [rel, bytes] of Object.entries(initial)) put(src, rel, bytes)
          // What each transcript last held when archived (deleted ones stay in the archive). A
          // file that is no transcript at all is left out, named in the report: each such file
          // must have no line that is a JSON object and no "type" key anywhere.
          const expected = new Map<string, Buffer>()
          const archived = async () => {
            const r = await archive({ paths: [src], to: arch })
            const out = new Set(r.notTranscripts.map((f) => relative(src, f.path)))
            for (const rel of out) if (looksLikeTranscript(readFileSync(join(src, rel)))) return undefined
            for (const [k, v] of tree(src)) if (!out.has(k)) expected.set(k, v)
            return r
          }
          if (!(await archived())) return false
          for (const round of rounds) {
            for (const c of round) {
              const p = join(src, c.at)
              if (c.kind === 'append' && existsSync(p)) appendFileSync(p, c.bytes)
              else if (c.kind === 'rewrite') put(src, c.at, c.bytes)
              else if (c.kind === 'delete') rmSync(p, { force: true })
              else if (c.kind === 'touch' && existsSync(p)) utimesSync(p, new Date(), new Date(Date.now() + 5000))
            }
            if (!existsSync(src)) mkdirSync(src)
            const r = await archived()
            if (!r || r.failures.length > 0) return false
          }
          const out = join(dir, 'out')
          const rr = await restore(arch, { all: true, to: out })
          if (rr.failed > 0) return false
          const got = tree(out)
          t.deepEqual([...got.keys()].sort(), [...expected.keys()].sort())
          for (const [k, v] of expected) if (!got.get(k)?.equals(v)) return false
          // an unchanged re-run stores nothing
          const again = await archive({ paths: [src], to: arch })
          return again.bytesIn === 0 && again.failures.length === 0
        } finally {
          rmSync(dir, { recursive: true, force: true })
        }
      },
    ),
    { numRuns: 30 },
  )
})

test('a rewritten transcript becomes a new generation; the old one is kept and the latest restored (format 1: generations are store sessions)', async (t) => {
  const src = writeTree({ [`p/${SID[0]}.jsonl`]: ['{"a":1}', '{"b":2}'] })
  const arch = join(tempDir(), 'arch')
  t.is((await archive({ paths: [src], to: arch, format: 1 })).archive.format, 1)
  writeFileSync(join(src, 'p', `${SID[0]}.jsonl`), '{"compacted":1}\n')
  const r = await archive({ paths: [src], to: arch })
  t.is(r.archive.format, 1, 'a format-1 archive is continued in format 1')
  t.is(r.generations, 1)
  const [f] = listArchive(arch)
  t.is(f.generations, 2)
  t.is(f.generation, 1)
  const s = new Store({ root: arch })
  const all = await s.list()
  t.is(all.length, 2, 'both generations are sessions of the store')
  const old = await s.inspect(all.find((x) => x.id.includes('-g0-'))!.id)
  t.deepEqual(
    old.events.map((e) => e.type),
    ['line', 'line', 'mark'],
  )
  await s.dispose()
  const out = tempDir()
  await restore(arch, { sessions: [SID[0].slice(0, 6)], to: out })
  t.is(readFileSync(join(out, 'p', `${SID[0]}.jsonl`), 'utf8'), '{"compacted":1}\n')
})

const estateFiles = () => ({
  [`-home-u-app/${SID[0]}.jsonl`]: [
    userText('archive me please'),
    assistant({ messageId: 'm1', output: 5, sessionId: SID[0] }),
    assistant({ messageId: 'm1', output: 80, tool: ['t1', 'Bash'], sessionId: SID[0] }),
  ],
  [`-home-u-app/${SID[0]}/subagents/agent-a1.jsonl`]: [
    assistant({ messageId: 'm2', output: 7, sidechain: true, sessionId: SID[0] }),
  ],
  [`-home-u-b/${SID[1]}.jsonl`]: [userText('second'), assistant({ messageId: 'm3', output: 9, sessionId: SID[1] })],
})

test('stats, doctor, sessions, find and show read an archive root as the estate it holds', (t) => {
  const src = writeTree(estateFiles())
  const arch = join(tempDir(), 'arch')
  const env = { XDG_CACHE_HOME: tempDir() }
  t.is(run(['archive', src, '--to', arch], env).code, 0)
  for (const [args, key] of [
    [['stats', '--json'], 'totals'],
    [['doctor', '--json'], 'clean'],
    [['sessions', '--json', '--all'], 'sessions'],
    [['find', 'archive', '--json', '--no-index'], 'hits'],
  ] as const) {
    const a = run([...args, '--projects', src], env)
    const b = run([...args, '--projects', arch], env)
    t.is(b.code, a.code, b.stderr)
    const strip = (j: Record<string, unknown>) =>
      JSON.stringify(j[key]).replaceAll(src, 'ROOT').replaceAll(arch, 'ROOT')
    t.is(strip(JSON.parse(b.stdout)), strip(JSON.parse(a.stdout)), args[0])
  }
  const a = run(['show', SID[0], '--projects', src, '--tools'], env)
  const b = run(['show', SID[0].slice(0, 8), '--projects', arch, '--tools'], env)
  t.is(b.code, 0, b.stderr)
  // the same conversation; only the transcript's path differs (where the archive lists it)
  t.true(b.stdout.split('\n')[0].includes(arch))
  t.is(b.stdout.split('\n').slice(1).join('\n'), a.stdout.split('\n').slice(1).join('\n'))
})

test('stats over the archive equal stats over the originals: a generated estate', async (t) => {
  const { generateEstate } = await import(join(REPO, 'fixtures', 'generate.mjs'))
  const dir = tempDir()
  generateEstate({ out: dir, sessions: 10, targetMb: 6, seed: 11 })
  const arch = join(dir, 'arch')
  const r = await archive({ projects: join(dir, 'projects'), to: arch })
  t.deepEqual(r.failures, [])
  t.true(r.ratio! > 3, `ratio ${r.ratio}`)
  t.true(isArchiveRoot(arch))
  const env = { ...process.env, XDG_CACHE_HOME: join(dir, 'cache') }
  const a = await stats({ projects: join(dir, 'projects'), by: 'day', timezone: 'UTC' })
  const b = await stats({ projects: arch, by: 'day', timezone: 'UTC', env })
  t.deepEqual({ ...b, scope: { ...b.scope, roots: [] } }, { ...a, scope: { ...a.scope, roots: [] } })
})

test('stats over the archive equal stats over the originals: the real transcripts', async (t) => {
  if (!existsSync(REAL)) return t.pass('real transcripts absent: skipped')
  const dir = tempDir()
  const arch = join(dir, 'arch')
  await archive({ paths: [REAL], to: arch })
  const env = { ...process.env, XDG_CACHE_HOME: join(dir, 'cache') }
  const a = await stats({ paths: [REAL], by: 'model', timezone: 'UTC' })
  const b = await stats({ paths: [arch], by: 'model', timezone: 'UTC', env })
  t.deepEqual(b.totals, a.totals)
  t.deepEqual(b.groups, a.groups)
  t.is(b.scope.files, a.scope.files)
  const out = join(dir, 'out')
  const rr = await restore(arch, { all: true, to: out })
  t.is(rr.failed, 0)
  for (const f of rr.files)
    t.true(readFileSync(f.target).equals(readFileSync(join(REAL, f.key.split('/').slice(1).join('/')))), f.key)
})

test('two writers on one session (format 1, whose store files a Store opens): the archive run names the store file, commits nothing half-done, and the next run catches up', async (t) => {
  const src = writeTree(estateFiles())
  const arch = join(tempDir(), 'arch')
  await archive({ paths: [src], to: arch, format: 1 })
  const store = new Store({ root: arch })
  const held = (await store.list()).find((s) => s.id.startsWith(SID[1]))!
  await store.load(held.id) // takes the session's writer lock
  appendFileSync(join(src, '-home-u-b', `${SID[1]}.jsonl`), '{"later":1}\n')
  const before = readFileSync(held.path)
  const r = run(['archive', src, '--to', arch])
  t.is(r.code, 1)
  t.true(r.stderr.includes(held.path) && r.stderr.includes('another writer'), r.stderr)
  t.true(readFileSync(held.path).equals(before))
  await store.dispose()
  t.is(run(['archive', src, '--to', arch]).code, 0)
  const out = tempDir()
  t.is(run(['restore', arch, SID[1], '--to', out]).code, 0)
  t.true(readFileSync(join(out, '-home-u-b', `${SID[1]}.jsonl`), 'utf8').endsWith('{"later":1}\n'))
})

test('a damaged frame and a foreign file: clear errors naming the file; committed data still restores', async (t) => {
  const src = writeTree(estateFiles())
  const arch = join(tempDir(), 'arch')
  await archive({ paths: [src], to: arch })
  const victim = listArchive(arch).find((f) => f.sessionId === SID[1])!
  const bytes = readFileSync(victim.storePath)
  bytes[bytes.length - 30] ^= 0x40
  writeFileSync(victim.storePath, bytes)
  appendFileSync(join(src, '-home-u-b', `${SID[1]}.jsonl`), '{"later":1}\n')
  const r = run(['archive', src, '--to', arch])
  t.is(r.code, 1)
  t.regex(r.stderr, new RegExp(`${victim.storePath.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: corrupt`))
  // nothing is appended to the damaged stream: it is set aside byte for byte, and its session
  // stored again from the estate
  t.true(readFileSync(`${victim.storePath}.damaged-1`).equals(bytes), 'the damaged file is kept as it was')
  t.regex(r.stderr, /set aside as .*\.damaged-1 and its session's files in the estate stored again/)
  const out = tempDir()
  const rr = run(['restore', arch, '--all', '--to', out])
  t.is(rr.code, 0, rr.stderr)
  for (const sid of [SID[0], SID[1]])
    t.true(existsSync(join(out, sid === SID[0] ? '-home-u-app' : '-home-u-b', `${sid}.jsonl`)), sid)
  writeFileSync(join(arch, 'notes.txt'), 'x')
  for (const args of [
    ['archive', src, '--to', arch],
    ['stats', arch],
    ['restore', arch, '--all', '--to', tempDir()],
  ]) {
    const f = run(args, { XDG_CACHE_HOME: tempDir() })
    t.is(f.code, 3, args[0])
    t.regex(f.stderr, /notes\.txt: not part of an archive/)
  }
})

test('restore: refuses .claude targets, never overwrites a different file, exit codes', async (t) => {
  const src = writeTree(estateFiles())
  const arch = join(tempDir(), 'arch')
  t.is(run(['archive', '--to', arch, src, '--json']).code, 0)
  t.is(run(['archive', src]).code, 2, 'no --to')
  t.is(run(['archive', src, '--to', join(src, 'inside')]).code, 2, '--to inside the estate')
  t.is(run(['archive', join(src, 'missing'), '--to', arch]).code, 3)
  t.is(run(['restore', arch, '--to', tempDir()]).code, 2, 'no SESSION or --all')
  t.is(run(['restore', arch, '--all', '--to', join(arch, 'x')]).code, 2, 'into the archive itself')
  const claude = join(tempDir(), '.claude', 'projects')
  const into = run(['restore', arch, '--all', '--to', claude])
  t.is(into.code, 2)
  t.regex(into.stderr, /--into-claude-dir/)
  t.false(existsSync(claude))
  t.is(run(['restore', arch, '--all', '--to', claude, '--into-claude-dir']).code, 0)
  t.is(run(['restore', arch, 'ffffffff', '--to', tempDir()]).code, 3, 'no such session')
  t.is(run(['restore', join(arch, 'nope'), '--all', '--to', tempDir()]).code, 3, 'no archive')
  const out = tempDir()
  t.is(run(['restore', arch, SID[0], '--to', out]).code, 0)
  t.is(tree(out).size, 2, 'the session and its subagent')
  const again = run(['restore', arch, SID[0], '--to', out, '--json'])
  t.is(again.code, 0)
  t.is(JSON.parse(again.stdout).identical, 2)
  const target = join(out, '-home-u-app', `${SID[0]}.jsonl`)
  writeFileSync(target, 'mine\n')
  const clash = run(['restore', arch, SID[0], '--to', out])
  t.is(clash.code, 1)
  t.regex(clash.stderr, /exists and differs from the archived transcript \(not overwritten\)/)
  t.is(readFileSync(target, 'utf8'), 'mine\n')
})

test("restore SESSION brings back its old-layout agent files (first sessionId in their records), not other sessions' ones", async (t) => {
  const src = writeTree({
    [`-home-u-app/${SID[0]}.jsonl`]: [assistant({ messageId: 'm1', output: 5, sessionId: SID[0] })],
    [`-home-u-app/${SID[0]}/subagents/agent-a1.jsonl`]: [
      assistant({ messageId: 'm2', output: 7, sidechain: true, sessionId: SID[0] }),
    ],
    [`-home-u-app/${SID[1]}.jsonl`]: [assistant({ messageId: 'm3', output: 9, sessionId: SID[1] })],
    // a first line without a sessionId: the first record that has one decides
    '-home-u-app/agent-old0.jsonl': [
      '{"type":"summary","summary":"x"}',
      assistant({ messageId: 'm4', output: 1, sidechain: true, sessionId: SID[0] }),
    ],
    '-home-u-app/agent-old1.jsonl': [assistant({ messageId: 'm5', output: 2, sidechain: true, sessionId: SID[1] })],
    // same session id in another project: not this session's
    [`-home-u-other/${SID[2]}.jsonl`]: [assistant({ messageId: 'm6', output: 3, sessionId: SID[2] })],
    '-home-u-other/agent-old2.jsonl': [assistant({ messageId: 'm7', output: 4, sidechain: true, sessionId: SID[0] })],
  })
  const arch = join(tempDir(), 'arch')
  t.is(run(['archive', src, '--to', arch]).code, 0)
  const out = tempDir()
  const r = run(['restore', arch, SID[0].slice(0, 8), '--to', out, '--json'])
  t.is(r.code, 0, r.stderr)
  t.deepEqual(
    [...tree(out).keys()].sort(),
    [
      `-home-u-app/${SID[0]}.jsonl`,
      `-home-u-app/${SID[0]}/subagents/agent-a1.jsonl`,
      '-home-u-app/agent-old0.jsonl',
    ].sort(),
  )
  t.true(
    tree(out)
      .get('-home-u-app/agent-old0.jsonl')!
      .equals(readFileSync(join(src, '-home-u-app', 'agent-old0.jsonl'))),
  )
  const two = tempDir()
  t.is(run(['restore', arch, SID[1], '--to', two]).code, 0)
  t.deepEqual([...tree(two).keys()].sort(), [`-home-u-app/${SID[1]}.jsonl`, '-home-u-app/agent-old1.jsonl'])
})

test('a touch-only change is archived: restore gives back the latest mtime', async (t) => {
  const src = writeTree(estateFiles())
  const arch = join(tempDir(), 'arch')
  await archive({ paths: [src], to: arch })
  const main = join(src, '-home-u-b', `${SID[1]}.jsonl`)
  const later = new Date(Date.now() + 86_400_000)
  utimesSync(main, later, later)
  const r = await archive({ paths: [src], to: arch })
  t.is(r.touched, 1)
  t.is(r.bytesIn, 0)
  t.true(r.bytesStored > 0, 'a mark recording the new mtime')
  const out = tempDir()
  t.is(run(['restore', arch, SID[1], '--to', out]).code, 0)
  const back = join(out, '-home-u-b', `${SID[1]}.jsonl`)
  t.true(readFileSync(back).equals(readFileSync(main)))
  t.is(statSync(back).mtimeMs, statSync(main).mtimeMs)
  t.is((await archive({ paths: [src], to: arch })).unchanged, 3)
})

test("store: a dead writer's temp file from before the first publish is swept", async (t) => {
  const root = tempDir()
  const store = new Store({ root })
  const { path } = store.locate({ id: 's1', cwd: '/w' })
  mkdirSync(dirname(path), { recursive: true })
  const stale = join(dirname(path), '.session.jsonl.tmp-999999999-abcd')
  writeFileSync(stale, 'half')
  await store.create({ id: 's1', cwd: '/w' })
  await store.append('s1', [{ seq: 0, type: 'x' }])
  t.false(existsSync(stale))
  await store.dispose()
})

test('the readers list an archive at its latest state, following appends and new generations', async (t) => {
  const { discoverFiles } = await import('../src-ts/read/session-ref.js')
  const { transcriptBytesAt } = await import('../src-ts/archive/in-memory.js')
  const src = writeTree(estateFiles())
  const arch = join(tempDir(), 'arch')
  const main = join('-home-u-b', `${SID[1]}.jsonl`)
  const listed = () => {
    const f = discoverFiles({ projects: arch }).find((x) => x.path === join(arch, main))!
    return { size: f.size, mtimeMs: f.mtimeMs, bytes: transcriptBytesAt(f.path) }
  }
  await archive({ paths: [src], to: arch })
  t.is(discoverFiles({ projects: arch }).length, 3)
  appendFileSync(join(src, main), '{"later":1}\n')
  await archive({ paths: [src], to: arch })
  let l = listed()
  t.true(l.bytes.equals(readFileSync(join(src, main))))
  t.is(l.size, statSync(join(src, main)).size)
  writeFileSync(join(src, main), '{"rewritten":1}\n')
  await archive({ paths: [src], to: arch })
  l = listed()
  t.is(l.bytes.toString('utf8'), '{"rewritten":1}\n')
  t.is(l.mtimeMs, statSync(join(src, main)).mtimeMs, 'the recorded mtime')
})

test('CLAUDE_JSONL_NO_MMAP=1 (sources read instead of mapped) writes the same archive through the CLI', async (t) => {
  const { generateEstate } = await import(join(REPO, 'fixtures', 'generate.mjs'))
  const dir = tempDir()
  generateEstate({ out: dir, sessions: 4, targetMb: 3, seed: 23 })
  put(
    join(dir, 'projects'),
    `-home-u-edge/${SID[1]}.jsonl`,
    Buffer.from('\uFEFF{"x":0}\n{"a":1e400}\nnot json\n{"b":"\\ud800"}\r\n{"torn":'),
  )
  // every stream file, byte for byte but for the run's time in each segment directory (and the
  // directory checksum over it); the index holds inode numbers, so it differs
  const withoutRunTime = (b: Buffer) => {
    const parts: Buffer[] = []
    for (let at = 0; at < b.length;) {
      const size = b.readUInt32LE(at + 4)
      const text = b.subarray(at + 20, at + 8 + size).toString('latin1')
      const [head, frames] = text.split('\n')
      parts.push(Buffer.from(text.replace(head, head.split('\t').slice(0, 4).join('\t')), 'latin1'))
      const stored = frames
        .split('\t')
        .slice(1)
        .reduce((n, f) => n + Number(f.split(':')[0]), 0)
      parts.push(b.subarray(at + 8 + size, at + 8 + size + stored))
      at += 8 + size + stored
    }
    return Buffer.concat(parts)
  }
  const streams = (root: string) => {
    const out = new Map<string, Buffer>()
    const walk = (d: string) => {
      for (const n of readdirSync(d)) {
        const p = join(d, n)
        if (statSync(p).isDirectory()) walk(p)
        else if (n !== '.claude-jsonl-archive') out.set(p.slice(root.length), withoutRunTime(readFileSync(p)))
      }
    }
    walk(root)
    return out
  }
  const roots = [join(dir, 'mapped'), join(dir, 'read')]
  t.is(run(['archive', '--projects', join(dir, 'projects'), '--to', roots[0]]).code, 0)
  t.is(run(['archive', '--projects', join(dir, 'projects'), '--to', roots[1]], { CLAUDE_JSONL_NO_MMAP: '1' }).code, 0)
  const [a, b] = [streams(roots[0]), streams(roots[1])]
  t.true(a.size > 4)
  t.true(
    [...a.keys()].every((k) => k.endsWith('.v2.zst')),
    [...a.keys()].join(' '),
  )
  t.deepEqual(b, a)
  const out = tempDir()
  t.is(run(['restore', roots[1], '--all', '--to', out]).code, 0)
  t.true(
    readFileSync(join(out, '-home-u-edge', `${SID[1]}.jsonl`)).equals(
      readFileSync(join(dir, 'projects', '-home-u-edge', `${SID[1]}.jsonl`)),
    ),
  )
})

test('format 2: one stream per session holds its files; one session restores from its own stream alone', async (t) => {
  const src = writeTree(estateFiles())
  const arch = join(tempDir(), 'arch')
  const r = await archive({ paths: [src], to: arch })
  t.is(r.archive.format, 2)
  const files = listArchive(arch)
  const app = files.filter((f) => f.sessionId === SID[0])
  t.is(app.length, 2, 'the transcript and its subagent')
  t.is(new Set(app.map((f) => f.storePath)).size, 1, 'in one stream')
  t.true(app[0].storePath.endsWith('.v2.zst'))
  // the other session's stream unreadable: this session still restores, the other is refused by name
  const other = files.find((f) => f.sessionId === SID[1])!
  const bytes = readFileSync(other.storePath)
  bytes[bytes.length - 30] ^= 0x40 // inside its data frame
  writeFileSync(other.storePath, bytes)
  const out = tempDir()
  const one = await restore(arch, { sessions: [SID[0]], to: out })
  t.is(one.written, 2)
  for (const f of app) t.true(readFileSync(join(out, f.key)).equals(readFileSync(join(src, f.key))))
  const all = run(['restore', arch, '--all', '--to', tempDir()])
  t.is(all.code, 1)
  t.true(all.stderr.includes(other.storePath), all.stderr)
})

test('an archive in format 1 (fixtures/archive-format-1) lists and restores byte for byte', async (t) => {
  const fixture = join(REPO, 'fixtures', 'archive-format-1')
  const files = listArchive(join(fixture, 'archive'))
  t.true(files.length >= 2)
  t.true(files.every((f) => f.storePath.endsWith('session.jsonl.zstd')))
  const out = tempDir()
  const r = await restore(join(fixture, 'archive'), { all: true, to: out })
  t.is(r.failed, 0)
  for (const f of files)
    t.true(readFileSync(join(out, f.key)).equals(readFileSync(join(fixture, 'projects', f.key))), f.key)
})
