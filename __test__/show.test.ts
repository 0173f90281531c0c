import test from 'ava'
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { showSession, Item, ShowResult } from '../src-ts/read/show.js'
import { renderHtml, renderMarkdown, renderText } from '../src-ts/cli/show-render.js'
import native from '../src-ts/native.js'
import { CHROMIUM, CHROMIUM_FLAGS, removeProfile } from './helpers/chromium.js'
import { QUICK } from './helpers/tiers.js'
import { CLI, REAL, REPO, tempDir, writeTree } from './helpers/transcripts.js'
import { createHash } from 'node:crypto'

const hasReal = existsSync(REAL)
const realTest = hasReal ? test : test.skip
if (!hasReal) console.warn(`real transcripts not found at ${REAL}: those tests are skipped`)

// ---- hand-made records -------------------------------------------------------------------
let clock = Date.parse('2026-03-01T10:00:00.000Z')
const ts = (advanceSec = 1) => new Date((clock += advanceSec * 1000)).toISOString()
const base = (uuid: string, parent: string | null) => ({
  parentUuid: parent,
  isSidechain: false,
  uuid,
  sessionId: 'sess',
  timestamp: ts(),
})
const human = (uuid: string, parent: string | null, text: string) =>
  JSON.stringify({ ...base(uuid, parent), type: 'user', message: { role: 'user', content: text } })
const meta = (uuid: string, parent: string | null, text: string) =>
  JSON.stringify({
    ...base(uuid, parent),
    type: 'user',
    isMeta: true,
    message: { role: 'user', content: [{ type: 'text', text }] },
  })
const said = (
  uuid: string,
  parent: string | null,
  msg: string,
  blocks: unknown[],
  output = 10,
  requestId = `req_${msg}`,
) =>
  JSON.stringify({
    ...base(uuid, parent),
    type: 'assistant',
    requestId,
    message: {
      id: msg,
      role: 'assistant',
      model: 'claude-opus-4-7',
      content: blocks,
      usage: {
        input_tokens: 3,
        cache_creation_input_tokens: 100,
        cache_read_input_tokens: 1000,
        output_tokens: output,
      },
    },
  })
const text = (t: string) => ({ type: 'text', text: t })
const call = (id: string, name: string, input: unknown) => ({ type: 'tool_use', id, name, input })
const result = (uuid: string, parent: string, id: string, content: string, isError = false) =>
  JSON.stringify({
    ...base(uuid, parent),
    type: 'user',
    message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content, is_error: isError }] },
    toolUseResult: { stdout: content },
  })

function file(lines: string[]): string {
  return join(
    writeTree({ 'projects/-tmp-x/11111111-2222-4333-8444-555555555555.jsonl': lines }),
    'projects/-tmp-x/11111111-2222-4333-8444-555555555555.jsonl',
  )
}

const all = (r: ShowResult) => r.turns.flatMap((t) => t.items)
const ofKind = <K extends Item['kind']>(r: ShowResult, k: K) =>
  all(r).filter((x): x is Extract<Item, { kind: K }> => x.kind === k)

/** A session rewound once: the main branch (written first) and a newer alternative from A1. */
function rewound(): string {
  return file([
    human('U1', null, 'first question'),
    said('A1', 'U1', 'm1', [text('first answer')]),
    human('U2', 'A1', 'ABANDONED prompt'),
    said('A2', 'U2', 'm2', [text('ABANDONED answer')]),
    human('U2b', 'A1', 'second try'),
    said('A2b', 'U2b', 'm3', [text('kept answer')]),
  ])
}

test('a rewound branch is left out by default and shown, marked, with --all-branches', async (t) => {
  const path = rewound()
  const r = await showSession(path)
  t.is(r.leaf.rule, 'last-conversation-record')
  t.is(r.leaf.pointer, 'absent')
  t.deepEqual(
    all(r).map((x) => ('text' in x ? x.text : x.kind)),
    ['first question', 'first answer', 'second try', 'kept answer'],
  )
  t.false(renderText(r).includes('ABANDONED'))
  const b = await showSession(path, { allBranches: true })
  const branchTurns = b.turns.filter((x) => x.branch)
  t.is(branchTurns.length, 1)
  t.deepEqual(
    branchTurns[0].items.map((x) => ('text' in x ? x.text : x.kind)),
    ['ABANDONED prompt', 'ABANDONED answer'],
  )
  t.is(branchTurns[0].branch!.forkLine, 2)
  // The branch comes right after the turn holding its fork point (turn 1), before turn 2.
  t.deepEqual(
    b.turns.map((x) => (x.branch ? 'branch' : x.index)),
    [1, 'branch', 2],
  )
  t.regex(renderText(b), /Branch turn 1 \(off the active chain, forks after line 2\)/)
})

test('the last last-prompt naming a leaf wins over file order', async (t) => {
  const lines = readFileSync(rewound(), 'utf8').trim().split('\n')
  lines.push(JSON.stringify({ type: 'last-prompt', leafUuid: 'A2', sessionId: 'sess' }))
  const r = await showSession(file(lines))
  t.is(r.leaf.rule, 'last-prompt')
  t.is(r.leaf.uuid, 'A2')
  t.true(renderText(r).includes('ABANDONED answer'))
  t.false(renderText(r).includes('kept answer'))
})

test('fragments merge by message.id, tool_use is deduplicated by id, results and meta are told apart', async (t) => {
  const path = file([
    human('U1', null, 'look at things'),
    meta('M1', 'U1', '<system-reminder>injected</system-reminder>'),
    said('F1', 'M1', 'mA', [{ type: 'thinking', thinking: 'pondering', signature: 'x' }], 1, 'reqA'),
    said('F2', 'F1', 'mA', [text('I will read two files.')], 2, 'reqA'),
    said('F3', 'F2', 'mA', [call('t1', 'Read', { file_path: '/src/a.ts' })], 3, 'reqA'),
    said('F4', 'F3', 'mA', [call('t2', 'Bash', { command: 'ls -la' })], 40, 'reqA'),
    said('F4dup', 'F4', 'mA', [call('t2', 'Bash', { command: 'ls -la' })], 40, 'reqA'),
    result('R1', 'F3', 't1', 'contents of a'),
    result('R2', 'F4dup', 't2', 'no such file', true),
    said('A2', 'R2', 'mB', [text('Done.')], 7, 'reqB'),
  ])
  const r = await showSession(path, { tools: true, thinking: true })
  t.is(r.turns.length, 1)
  const kinds = all(r).map((x) => x.kind)
  t.deepEqual(kinds, [
    'human',
    'meta',
    'thinking',
    'assistant',
    'tool-call',
    'tool-call',
    'tool-result',
    'tool-result',
    'assistant',
  ])
  t.deepEqual(
    ofKind(r, 'tool-call').map((x) => [x.name, x.target]),
    [
      ['Read', { kind: 'file', value: '/src/a.ts' }],
      ['Bash', { kind: 'command', value: 'ls -la' }],
    ],
  )
  const res = ofKind(r, 'tool-result')
  t.deepEqual(
    res.map((x) => [x.toolUseId, x.name, x.isError]),
    [
      ['t1', 'Read', false],
      ['t2', 'Bash', true],
    ],
  )
  // Per-request tokens: reqA counted once with its largest output.
  t.deepEqual(
    r.turns[0].requests.map((q) => [q.key, q.outputTokens]),
    [
      ['reqA', 40],
      ['reqB', 7],
    ],
  )
  t.is(r.turns[0].tokens.outputTokens, 47)
  // Without --tools/--thinking only the conversation remains; --human-only keeps the prompt.
  const plain = await showSession(path)
  t.deepEqual(
    all(plain).map((x) => x.kind),
    ['human', 'assistant', 'assistant'],
  )
  const h = await showSession(path, { humanOnly: true })
  t.deepEqual(
    all(h).map((x) => x.kind),
    ['human'],
  )
})

test('a compaction boundary is a marker with its pre-compaction tokens; history before it is kept', async (t) => {
  const path = file([
    human('U1', null, 'old prompt'),
    said('A1', 'U1', 'm1', [text('old answer')]),
    JSON.stringify({
      ...base('B', null),
      type: 'system',
      subtype: 'compact_boundary',
      logicalParentUuid: 'A1',
      content: 'Conversation compacted',
      compactMetadata: { trigger: 'manual', preTokens: 12345 },
    }),
    JSON.stringify({
      ...base('S', 'B'),
      type: 'user',
      isCompactSummary: true,
      isVisibleInTranscriptOnly: true,
      message: { role: 'user', content: 'SUMMARY of the old part' },
    }),
    human('U2', 'S', 'new prompt'),
    said('A2', 'U2', 'm2', [text('new answer')]),
  ])
  const r = await showSession(path)
  const c = ofKind(r, 'compaction')
  t.is(c.length, 1)
  t.is(c[0].preTokens, 12345)
  t.is(c[0].trigger, 'manual')
  t.is(c[0].summary, 'SUMMARY of the old part')
  t.deepEqual(
    all(r).map((x) => ('text' in x ? x.text : x.kind)),
    ['old prompt', 'old answer', 'compaction', 'new prompt', 'new answer'],
  )
  t.regex(renderText(r), /Compacted \(manual\): 12,345 tokens before/)
  t.regex(renderMarkdown(r), /\*\*Compacted\*\* \(manual\), 12,345 tokens before/)
})

test('a corrupt line in the middle is a marker in its place, never a crash', async (t) => {
  const path = file([
    human('U1', null, 'before'),
    said('A1', 'U1', 'm1', [text('answer one')]),
    '{"type":"user","uuid":"broken',
    human('U2', 'A1', 'after'),
    said('A2', 'U2', 'm2', [text('answer two')]),
  ])
  const r = await showSession(path)
  t.is(r.corruptLines, 1)
  t.deepEqual(
    all(r).map((x) => (x.kind === 'corrupt' ? `corrupt@${x.line}` : 'text' in x ? x.text : x.kind)),
    ['before', 'answer one', 'corrupt@3', 'after', 'answer two'],
  )
  t.regex(renderText(r), /!! line 3: corrupt line \(not valid JSON\)/)
  // The corrupt line was a link of the chain: its child is re-attached (by timestamp, as the
  // client does) and the history before it is still shown.
  const broken = file([
    human('U1', null, 'before'),
    said('A1', 'U1', 'm1', [text('answer one')]),
    human('U2', 'A1', 'lost').slice(0, 40),
    said('A2', 'U2', 'm2', [text('answer two')]),
  ])
  const b = await showSession(broken)
  t.deepEqual(
    all(b).map((x) => (x.kind === 'corrupt' ? `corrupt@${x.line}` : 'text' in x ? x.text : x.kind)),
    ['before', 'answer one', 'corrupt@3', 'answer two'],
  )
})

test('--last N keeps the last N turns of the active chain', async (t) => {
  const r = await showSession(rewound(), { last: 1 })
  t.is(r.turns.length, 1)
  t.is(r.turns[0].index, 2)
  t.is(r.omittedTurns, 1)
})

test('a file with no conversation is a one-line input error', async (t) => {
  const path = file([JSON.stringify({ type: 'custom-title', customTitle: 'x' })])
  const e = await t.throwsAsync(showSession(path))
  t.is((e as { exitCode?: number }).exitCode, 3)
  t.regex(e!.message, /no Claude Code conversation/)
})

// ---- real transcripts ---------------------------------------------------------------------
const TAGS: Record<string, string> = {
  'real-01.jsonl': 'absent',
  'real-04.jsonl': 'absent',
  'real-05.jsonl': 'absent',
  'real-06.jsonl': 'absent',
  'real-07.jsonl': 'interior-on-chain',
  'real-08.jsonl': 'interior-on-chain',
  'real-09.jsonl': 'absent',
  'real-10.jsonl': 'no-leaf-uuid',
  'real-11.jsonl': 'no-leaf-uuid',
  'real-12.jsonl': 'absent',
}

/** Independent of the native graph: the last user/assistant line, and every tool_use id. */
function plainFacts(path: string) {
  const lines = readFileSync(path, 'utf8').split('\n')
  let lastConv = 0
  const toolIds = new Set<string>()
  lines.forEach((l, i) => {
    if (!l.trim()) return
    const r = JSON.parse(l)
    if ((r.type === 'user' || r.type === 'assistant') && !r.isSidechain && r.uuid) lastConv = i + 1
    if (r.type === 'assistant' && !r.isSidechain && Array.isArray(r.message?.content)) {
      for (const b of r.message.content) if (b.type === 'tool_use') toolIds.add(b.id)
    }
  })
  return { lastConv, toolIds }
}

realTest('real transcripts: the leaf the client resumes from, per the README tags', async (t) => {
  for (const [name, pointer] of Object.entries(TAGS)) {
    const path = join(REAL, name)
    const r = await showSession(path)
    t.is(r.leaf.pointer, pointer, name)
    // no pointer, a pointer without leafUuid, or a stale pointer with a linear continuation:
    // the client resumes from the last conversation record in file order.
    t.is(r.leaf.rule, 'last-conversation-record', name)
    t.is(r.leaf.line, plainFacts(path).lastConv, name)
    if (pointer === 'interior-on-chain') {
      const idx = await native.scanFile(path)
      const chain = native.activeChain(idx)
      t.true(chain.indexes.includes(chain.pointerTarget!), `${name}: the stale pointer's record is on the chain`)
      t.is(chain.branchesBelowPointer, 0, `${name}: a linear continuation below the stale pointer`)
      t.true(r.leaf.line! > r.leaf.pointerLine!, name)
    }
  }
  for (const name of ['real-02.jsonl', 'real-03.jsonl']) {
    await t.throwsAsync(
      showSession(join(REAL, name)),
      { message: /no Claude Code conversation/ },
      `${name} is a Codex transcript`,
    )
  }
})

realTest('real transcripts: every tool_use is shown once, with its result, fragments spliced back in', async (t) => {
  let spliced = 0
  for (const name of Object.keys(TAGS)) {
    const path = join(REAL, name)
    const r = await showSession(path, { tools: true, allBranches: true })
    const calls = ofKind(r, 'tool-call').map((x) => x.id)
    t.is(new Set(calls).size, calls.length, `${name}: no tool_use shown twice`)
    t.deepEqual(new Set(calls), plainFacts(path).toolIds, `${name}: every tool_use of the file is shown`)
    const results = ofKind(r, 'tool-result').map((x) => x.toolUseId)
    t.is(new Set(results).size, results.length, `${name}: no result shown twice`)
    const answered = new Set(results)
    const open = calls.filter((c) => !answered.has(c))
    t.true(open.length <= 1, `${name}: unanswered calls ${open.join(', ')}`)
    const chain = native.activeChain(await native.scanFile(path))
    spliced += chain.origins.filter((o) => o !== 0).length
  }
  // Without the splice, parallel tool calls off the parent chain would be lost.
  t.true(spliced > 0)
  const r = await showSession(join(REAL, 'real-11.jsonl'), { tools: true })
  const idx = await native.scanFile(join(REAL, 'real-11.jsonl'))
  const chain = native.activeChain(idx)
  const onlyChain = new Set(
    [...chain.indexes]
      .filter((_, k) => chain.origins[k] === 0)
      .flatMap((i) => idx.record(i)!.toolUses.map((u) => u.id)),
  )
  t.true(ofKind(r, 'tool-call').length > onlyChain.size, 'real-11 has fragments off the parent chain')
})

realTest('real transcripts: compaction marker with preTokens (real-06)', async (t) => {
  const r = await showSession(join(REAL, 'real-06.jsonl'))
  const c = ofKind(r, 'compaction')
  t.is(c.length, 1)
  t.is(c[0].preTokens, 155333)
  t.true(c[0].summary!.startsWith('This session is being continued'))
  // Turns from before the boundary are on the chain too (followed across logicalParentUuid).
  t.true(r.turns.findIndex((x) => x.items.some((i) => i.kind === 'compaction')) > 3)
})

// ---- CLI module ---------------------------------------------------------------------------
function cli(args: string[]) {
  const mod = join(REPO, 'dist', 'src-ts', 'cli', 'show-command.js')
  const script = `import(${JSON.stringify(mod)}).then(m => m.runShow(process.argv.slice(1))).then(c => { process.exitCode = c }, e => { process.stderr.write('claude-jsonl: ' + e.message + '\\n'); process.exitCode = e.exitCode ?? 4 })`
  return spawnSync(process.execPath, ['-e', script, ...args], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH, HOME: '/nonexistent-home' },
  })
}

test('runShow: session by uuid prefix, formats, --out, and one-line errors', (t) => {
  const path = rewound()
  const projects = join(path, '..', '..')
  const r = cli(['11111111', '--projects', projects, '--format', 'markdown'])
  t.is(r.status, 0, r.stderr)
  t.regex(r.stdout, /^# Session 11111111-2222-4333-8444-555555555555/)
  t.regex(r.stdout, /> second try/)
  const json = cli([path, '--json', '--all-branches'])
  t.is(json.status, 0)
  t.is(JSON.parse(json.stdout).turns.length, 3)
  const out = join(tempDir(), 'page.html')
  t.is(cli([path, '--format', 'html', '--out', out]).status, 0)
  t.regex(readFileSync(out, 'utf8'), /^<!doctype html>/)
  const bad = cli([path, '--colour'])
  t.is(bad.status, 2)
  t.is(bad.stderr.trim().split('\n').length, 1)
  t.is(cli([path, '--format', 'pdf']).status, 2)
  t.is(cli([path, '--last', 'x']).status, 2)
  t.is(cli([]).status, 2)
  const missing = cli(['ffffffff', '--projects', projects])
  t.is(missing.status, 3)
  t.regex(missing.stderr, /^claude-jsonl: no session matches 'ffffffff' \(searched 1 session under /)
})

// ---- HTML in headless Chromium ------------------------------------------------------------
// `npm run test:quick` (CLAUDE_JSONL_TEST_QUICK, helpers/tiers.ts) starts no browser: the Chromium
// parts say they skipped.

/** The DOM Chromium built from `html` (opened with `query` in its address), or why it could not. */
function chromiumDom(
  html: string,
  name: string,
  query = '',
  extra: string[] = [],
): { dom?: string; skipped?: string; page: string } {
  const dir = join(REPO, 'dist', 'test-artifacts')
  mkdirSync(dir, { recursive: true })
  const page = join(dir, `${name}.html`)
  writeFileSync(page, html)
  if (QUICK) return { page, skipped: 'npm run test:quick runs no browser' }
  if (!CHROMIUM) return { page, skipped: 'no chromium at /usr/bin/chromium (install it: apt-get install -y chromium)' }
  const profile = tempDir('cj-chromium-')
  try {
    const r = spawnSync(
      CHROMIUM,
      [...CHROMIUM_FLAGS, ...extra, `--user-data-dir=${profile}`, '--dump-dom', `file://${page}${query}`],
      {
        encoding: 'utf8',
        timeout: 60_000,
      },
    )
    if (r.status !== 0 && !r.stdout)
      return { page, skipped: `chromium could not start (${(r.stderr || String(r.error)).split('\n')[0]})` }
    return { page, dom: r.stdout }
  } finally {
    removeProfile(profile)
  }
}

/** The page's own script, the only one it may hold. */
const OWN_SCRIPT = /<script>\(\(\)=>\{const q=document\.getElementById\('filter'\)[\s\S]*?<\/script>/g

test('HTML: one self-contained page, escaped, rendered by headless Chromium (screenshot kept)', async (t) => {
  const path = file([
    human('U1', null, 'Why does <script>alert("x")</script> & co break?'),
    said('A1', 'U1', 'm1', [
      { type: 'thinking', thinking: 'deep thought', signature: 's' },
      text(
        "## What's happening\n\nBecause <b>markup</b> must be escaped: the **server** runs `make check`.\n\n```ts\nconst answer: number = 42\n```",
      ),
      call('t1', 'Bash', { command: 'echo "<img src=x onerror=alert(1)>"' }),
    ]),
    result('R1', 'A1', 't1', '<img src=x onerror=alert(1)>'),
    JSON.stringify({
      ...base('B', null),
      type: 'system',
      subtype: 'compact_boundary',
      logicalParentUuid: 'R1',
      compactMetadata: { trigger: 'auto', preTokens: 170000 },
    }),
    JSON.stringify({
      ...base('S', 'B'),
      type: 'user',
      isCompactSummary: true,
      message: { role: 'user', content: 'Summary text' },
    }),
    human('U2', 'S', 'next'),
    said('A2', 'U2', 'm2', [text('final words')]),
  ])
  const r = await showSession(path, { tools: true, thinking: true })
  const html = renderHtml(r)
  t.is((html.match(OWN_SCRIPT) ?? []).length, 1, 'the page has its own filter script')
  t.false(
    /<script|<img|<link|src=["']?http|url\(/i.test(html.replace(OWN_SCRIPT, '').replace(/&lt;(script|img)/g, '')),
    'no other script, no image, link or remote URL',
  )
  t.true(html.includes('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;'))
  const { dom: d, skipped, page } = chromiumDom(html, 'show')
  if (!d) return t.log(`SKIPPED the Chromium part: ${skipped}`)
  // What the browser parsed: the escaped texts are text, not elements.
  t.false(/<script/i.test(d.replace(OWN_SCRIPT, '').replace(/&lt;script/g, '')), 'no other script element in the DOM')
  t.false(/<img/i.test(d.replace(/&lt;img/g, '')), 'no img element in the rendered DOM')
  t.regex(d, /Why does &lt;script&gt;alert\("x"\)&lt;\/script&gt; &amp; co break\?/)
  // Markdown is rendered, raw HTML in it is not.
  t.regex(d, /<h2>What's happening<\/h2>/)
  t.regex(
    d,
    /Because &lt;b&gt;markup&lt;\/b&gt; must be escaped: the <strong>server<\/strong> runs <code>make check<\/code>/,
  )
  t.regex(
    d,
    /<pre class="hljs"><code class="language-ts"><span class="hljs-keyword">const<\/span> .*answer.*<span class="hljs-number">42<\/span>/,
  )
  t.is((d.match(/<details/g) ?? []).length, 5, 'turn list, thinking, tool call, tool result, compaction summary')
  t.regex(d, /<li><a href="#turn-1">Turn 1: Why does &lt;script&gt;/)
  t.regex(d, /Compacted \(auto\): 170,000 tokens before/)
  t.regex(d, /final words/)
  t.regex(d, /class="tokens">1 request, 1.1k in, 10 out/)
  // The filter box, filled from the address: only the turn holding the text stays shown.
  const filtered = chromiumDom(html, 'show-filtered', '?q=FINAL%20words').dom!
  t.deepEqual(filtered.match(/<section [^>]*>/g), [
    '<section class="turn" id="turn-1" hidden="">',
    '<section class="turn" id="turn-2" hidden="">',
    '<section class="turn" id="turn-3">',
  ])
  t.regex(filtered, /<span id="shown">1 of 3 turns<\/span>/)
  const dir = join(REPO, 'dist', 'test-artifacts')
  const profile = tempDir('cj-chromium-')
  const flags = [...CHROMIUM_FLAGS, `--user-data-dir=${profile}`]
  try {
    const shot = join(dir, 'show.png')
    rmSync(shot, { force: true })
    const s = spawnSync(CHROMIUM!, [...flags, `--screenshot=${shot}`, '--window-size=1000,1400', `file://${page}`], {
      encoding: 'utf8',
      timeout: 60_000,
    })
    t.true(existsSync(shot), `screenshot written (${s.stderr.split('\n')[0]})`)
    const png = readFileSync(shot)
    t.true(png.subarray(1, 4).toString() === 'PNG' && statSync(shot).size > 5000, 'a real PNG')
    t.log(`screenshot: ${shot}`)
  } finally {
    removeProfile(profile)
  }
})

// Each payload, if it ever ran, would mark the document: the DOM Chromium built must show no mark.
const PWN = (how: string) => `document.documentElement.dataset.pwned='${how}'`
const ATTACKS = [
  `<script>${PWN('script')}</script>`,
  `<img src=x onerror="${PWN('img')}">`,
  `<svg onload="${PWN('svg')}"></svg> <iframe src="javascript:${PWN('iframe')}"></iframe>`,
  `<a href="javascript:${PWN('a')}">raw anchor</a> <javascript:${PWN('autolink')}>`,
  `[click](javascript:${PWN('link')}) [upper](JAVASCRIPT:alert(1)) [entity](&#106;avascript:alert(1)) [tabbed](java&#x09;script:alert(1))`,
  `[vb](vbscript:msgbox(1)) [page](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==) [file](file:///etc/passwd)`,
  `![pixel](data:image/png;base64,iVBORw0KGgo=) ![js](javascript:alert(1)) ![remote](https://example.invalid/x.png)`,
  `[by reference][evil]\n\n[evil]: javascript:alert(1)`,
  '```html\n<script>' + PWN('fence') + '</script>\n```\n\n`<img src=x onerror=alert(1)>`',
  '<style>body{display:none}</style> <meta http-equiv="refresh" content="0;url=javascript:alert(1)">',
  `[docs](https://example.com/docs) [mail](mailto:a@example.com) [top](#turn-1)`,
].join('\n\n')

test('HTML: planted scripts, event handlers and javascript:/vbscript:/data: links never execute', async (t) => {
  const path = file([
    human('U1', null, ATTACKS),
    said('A1', 'U1', 'm1', [text(ATTACKS)]),
    human('U2', 'A1', `thanks <img src=x onerror="${PWN('late')}">`),
  ])
  const html = renderHtml(await showSession(path, {}))
  const check = (doc: string, what: string) => {
    const own = doc.replace(OWN_SCRIPT, '')
    t.false(
      /<(script|img|svg|iframe|object|embed|style|link|base|form|meta)\b/i.test(
        own
          .replace(/<style>[\s\S]*?<\/style><\/head>/, '')
          .replace(/<meta (charset|http-equiv="Content-Security-Policy"|name="viewport")[^>]*>/g, ''),
      ),
      `${what}: no active element from the transcript`,
    )
    t.false(/<[a-z][^>]*\son[a-z]+\s*=/i.test(own), `${what}: no event-handler attribute`)
    // Text is serialised with < escaped, so every <x ...> is an element; its URL attributes:
    const tags = own.match(/<[a-z][^<>]*>/gi) ?? []
    const hrefs = tags.flatMap((tag) =>
      [...tag.matchAll(/\s(?:href|src|action|formaction|xlink:href)\s*=\s*"([^"]*)"/gi)].map((m) => m[1]),
    )
    t.true(hrefs.length >= 5, `${what}: the safe links are kept`)
    for (const h of hrefs) t.regex(h, /^(#|https:\/\/|http:\/\/|mailto:)/, `${what}: href ${h}`)
    t.false(/data-pwned/.test(own), `${what}: no payload ran`)
  }
  check(html, 'the page as written')
  t.true(html.includes('href="https://example.com/docs"'))
  t.true(
    html.includes(
      '<a class="image" href="https://example.invalid/x.png" rel="noopener noreferrer">[image: remote]</a>',
    ),
  )
  const { dom, skipped } = chromiumDom(html, 'show-attacks')
  if (!dom) return t.log(`SKIPPED the Chromium part: ${skipped}`)
  check(dom, 'the DOM Chromium built')
  t.regex(dom, /<html lang="en">/, 'the document element carries no mark')
  t.regex(dom, /<title>Session [^<]*<\/title>/)
  t.regex(
    dom,
    /&lt;script&gt;document\.documentElement\.dataset\.pwned='script'&lt;\/script&gt;/,
    'the payload shows as text',
  )
})

test('HTML: the Markdown renderer and highlighter load only for --format html', (t) => {
  const probe = (format: string) => {
    // The command prints the session on stdout; the probe's answer goes to a file of its own.
    const script = `import { createRequire } from 'node:module'
import { writeFileSync } from 'node:fs'
import { runShow } from ${JSON.stringify(join(REPO, 'dist', 'src-ts', 'cli', 'show-command.js'))}
await runShow([process.argv[2], '--format', ${JSON.stringify(format)}])
const cache = Object.keys(createRequire(import.meta.url).cache)
writeFileSync(process.argv[3], JSON.stringify({ markdownIt: cache.some((k) => k.includes('/markdown-it/')), hljs: cache.some((k) => k.includes('/highlight.js/')) }))`
    const dir = tempDir('cj-show-probe-')
    const f = join(dir, 'probe.mjs')
    const answer = join(dir, 'answer.json')
    writeFileSync(f, script)
    const r = spawnSync(
      process.execPath,
      [f, file([human('U1', null, 'hi'), said('A1', 'U1', 'm1', [text('**yes**')])]), answer],
      { encoding: 'utf8' },
    )
    t.is(r.status, 0, r.stderr)
    return JSON.parse(readFileSync(answer, 'utf8'))
  }
  t.deepEqual(probe('text'), { markdownIt: false, hljs: false })
  t.deepEqual(probe('markdown'), { markdownIt: false, hljs: false })
  t.deepEqual(probe('html'), { markdownIt: true, hljs: true })
})

// `--last N` keeps only the last turns whole while it reads (a huge transcript's text is never
// held at once): what it returns must be exactly the last N turns of the whole conversation.
test('showSession with last N returns the last N turns of the whole result, on the real transcripts', async (t) => {
  const files = ['real-04.jsonl', 'real-07.jsonl', 'real-08.jsonl', 'real-11.jsonl']
    .map((f) => join(REAL, f))
    .filter(existsSync)
  if (files.length === 0) return t.pass('no real transcripts here')
  for (const file of files) {
    const whole = await showSession(file, { tools: true, thinking: true })
    for (const last of [0, 1, 2, 5, whole.turns.length - 1, whole.turns.length + 3]) {
      const some = await showSession(file, { tools: true, thinking: true, last })
      const expected =
        last >= 0 && last < whole.turns.length ? whole.turns.slice(whole.turns.length - last) : whole.turns
      t.deepEqual(some.turns, expected, `${file} --last ${last}`)
      t.is(some.omittedTurns, whole.turns.length - expected.length, `${file} --last ${last}: omitted turns`)
    }
  }
})

test('HTML from the CLI: slash commands and background-task notices read as what they are, tool lines name their target once, no horizontal scrollbar at 1280 px', (t) => {
  const notice =
    '<task-notification>\n<task-id>a9e0</task-id>\n<status>completed</status>\n<summary>Agent "Security &amp; review" completed</summary>\n<result>Two files changed, both fine.</result>\n</task-notification>'
  const path = file([
    human(
      'U1',
      null,
      '<command-message>review</command-message>\n<command-name>/review</command-name>\n<command-args>src</command-args>',
    ),
    said('A1', 'U1', 'm1', [
      text('Looking: ' + 'x'.repeat(400)),
      call('t1', 'Agent', { subagent_type: 'Explore', prompt: 'find it' }),
      call('t2', 'Task', { description: 'Security review', prompt: 'review' }),
      call('t3', 'Bash', { command: 'ls ' + '/very/long/path'.repeat(40) }),
    ]),
    result('R1', 'A1', 't1', 'found'),
    human('U2', 'R1', notice),
    said('A2', 'U2', 'm2', [text('| a | b |\n|---|---|\n| ' + 'wide '.repeat(80) + ' | ' + 'y'.repeat(300) + ' |')]),
  ])
  const out = join(tempDir(), 'page.html')
  const r = spawnSync(process.execPath, [CLI, 'show', path, '--tools', '--format', 'html', '--out', out], {
    encoding: 'utf8',
  })
  t.is(r.status, 0, r.stderr)
  const html = readFileSync(out, 'utf8')
  t.notRegex(html, /&lt;(task-notification|command-message|command-name)&gt;/, 'no raw client tags')
  t.regex(html, /<li><a href="#turn-1">Turn 1: slash command \/review src<\/a><\/li>/)
  t.regex(
    html,
    /<li><a href="#turn-2">Turn 2: background task completed: Agent &quot;Security &amp; review&quot; completed<\/a>/,
  )
  t.regex(html, /<div class="command" data-line="1">slash command <code>\/review<\/code> src<\/div>/)
  t.regex(
    html,
    /<details class="task"[^>]*><summary>background task completed: [^<]*<\/summary><pre>Two files changed, both fine\.<\/pre>/,
  )
  t.regex(html, /<summary>Agent: <span class="target" title="subagent type">Explore<\/span><\/summary>/)
  t.regex(html, /<summary>Task: <span class="target" title="subagent type">Security review<\/span><\/summary>/)
  t.notRegex(html, /Agent agent|agent: Explore/)
  // The page's width in Chromium at 1280 px: a copy of the page whose one extra script (allowed
  // in the copy only) writes the document's scroll width into its title.
  const probe = `document.title=String(document.documentElement.scrollWidth)+'/'+String(document.documentElement.clientWidth)`
  const hash = createHash('sha256').update(probe).digest('base64')
  const measured = html
    .replace(/script-src 'sha256-/, `script-src 'sha256-${hash}' 'sha256-`)
    .replace('</body>', `<script>${probe}</script></body>`)
  const { dom, skipped } = chromiumDom(measured, 'show-width', '', ['--window-size=1280,900'])
  if (!dom) return t.log(`SKIPPED the Chromium part: ${skipped}`)
  const [scroll, client] = /<title>(\d+)\/(\d+)<\/title>/.exec(dom)!.slice(1).map(Number)
  t.true(client > 1000, `the window is about 1280 px wide (${client})`)
  t.true(scroll <= client, `no horizontal scrollbar: scroll width ${scroll} <= ${client}`)
})

test('show and stats --tools name a call by one rule: the same kind, the target stats counts', async (t) => {
  const calls = [
    call('c1', 'Bash', { command: 'cargo test --profile fast', description: 'run the tests' }),
    call('c2', 'WebFetch', { url: 'https://Docs.Example.com:443/a?b=1' }),
    call('c3', 'Skill', { skill: 'recall-past-sessions' }),
    call('c4', 'Agent', { subagent_type: 'Explore', description: 'find the parser' }),
    call('c5', 'LS', { path: '/src' }),
    call('c6', 'mcp__x__search', { query: 'no target for tools the table does not name' }),
  ]
  const path = file([human('H1', null, 'go'), said('A1', 'H1', 'm1', calls, 5, 'r1')])
  const r = await showSession(path, { tools: true })
  const shown = new Map(ofKind(r, 'tool-call').map((x) => [x.name, x.target]))
  const { stats } = await import('../src-ts/read/stats.js')
  const s = await stats({ paths: [path], tools: true })
  for (const row of s.toolTargets!) {
    const target = shown.get(row.name)
    if (!row.kind) {
      t.is(target, undefined, `${row.name}: no target in either`)
      continue
    }
    t.is(target?.kind as string | undefined, row.kind, row.name)
    const counted = row.top[0]?.target
    // counting keeps the command's first word and the URL's host; show keeps the whole field
    if (row.kind === 'command') t.is(counted, target!.value.split(' ')[0])
    else if (row.kind === 'host') t.is(counted, new URL(target!.value).hostname)
    else if (row.kind === 'subagent type') t.is(`${counted}: find the parser`, target!.value)
    else t.is(counted, target!.value, row.name)
  }
  t.is(s.toolTargets!.length, 6)
})
