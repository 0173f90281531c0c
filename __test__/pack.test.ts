import test from 'ava'
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { buildPack, COMMENT_OPEN, Pack } from '../src-ts/compress/pack.js'
import { composeSummary, ModelSummaryError, validateModelSummary } from '../src-ts/compress/model-summary.js'
import { SECTION_HEADINGS } from '../src-ts/compress/summary-sections.js'
import { PLANTED, planted, plantedLines } from './helpers/summary-fixture.js'
import { CLI, snapshot, tempDir } from './helpers/transcripts.js'

const pack = (lines?: string[], handoff?: string, opts = {}) => {
  const p = planted(lines)
  return { p, pack: buildPack({ ...p, handoff }, opts) }
}

/** The records of the pack's `section` as anchor → decoded JSON field. */
function recordsIn(text: string, section: string, field = 'full_text_json'): Map<string, string> {
  const part = text.split(`## ${section}\n`)[1].split('\n## ')[0]
  const out = new Map<string, string>()
  for (const m of part.matchAll(new RegExp(`^- ([LH]\\d+) .*?${field}=(".*")$`, 'gm'))) out.set(m[1], JSON.parse(m[2]))
  return out
}

/** A summary that follows every rule of the pack. */
function goodSummary(pk: Pack): string {
  const m = pk.manifest
  const mandatory = [...m.mandatory.keys()]
  const cites = [...new Set(m.requiredGroups.map((g) => g.anchors[0]))].join(' ')
  const [first, last] = [mandatory[0], mandatory[mandatory.length - 1]]
  const body: Record<string, string[]> = {
    'Current State': [`- The cache is being wired into the request path; the last test run failed (${last}).`],
    'Timeline and Supersessions': [
      `- The session began from a prior summary (${first}) and moved on to the cache work (${mandatory[1]}).`,
    ],
    'Decisions and Reasons': [`- Redis was chosen because it is already deployed (${mandatory[3] ?? last}).`],
    'Assistant Research Decisions and Rationales': [
      `- The unstable key includes a timestamp (${mandatory[2] ?? last}).`,
    ],
    'Rejected or Superseded Alternatives': [
      `- SQLite was rejected: it cannot handle concurrent writers (${mandatory[3] ?? last}).`,
      '',
      'Unknown from provided anchors.',
    ],
    'Evidence and Source Anchors': [
      `- Cited evidence across the session: ${cites}.`,
      '',
      '### Mandatory Evidence Coverage',
      ...mandatory.map(
        (a) =>
          `- ${a} support_text_json=${JSON.stringify((m.mandatory.get(a) as string).trim().slice(0, 40))} disposition=covered`,
      ),
    ],
    'User Wording and Constraints': [
      `- "Never touch the migrations folder; keep the public API stable." (${mandatory[1]})`,
    ],
    'Risks, Unknowns, and Follow-Ups': [`- The cache tests still fail and the key is not stable yet (${last}).`],
    'Recent Raw Context Boundary': [`- The summary ends at ${last}; the recent messages follow verbatim.`],
  }
  const comment = pk.text.slice(pk.text.indexOf(COMMENT_OPEN), pk.text.indexOf('-->') + 3)
  return [comment, '', ...SECTION_HEADINGS.flatMap((h) => [`## ${h}`, '', ...body[h], ''])].join('\n')
}

test('pack: every human prompt and assistant text/thinking in full, prior summaries apart, seven digests', (t) => {
  const long = 'Please keep every one of these words: ' + 'word '.repeat(5000)
  const lines = plantedLines()
  lines.push(
    JSON.stringify({
      ...JSON.parse(lines[2]),
      uuid: 'u-long',
      parentUuid: JSON.parse(lines.at(-1)!).uuid,
      message: { role: 'user', content: long },
    }),
  )
  const { p, pack: pk } = pack(lines)
  const ledger = recordsIn(pk.text, 'Mandatory Semantic Records')
  for (const e of p.inputs.entries) {
    if (e.human !== undefined) t.is(ledger.get(`L${e.line}`), e.human)
    if (e.texts.length || e.thinking.length) t.is(ledger.get(`L${e.line}`), [...e.thinking, ...e.texts].join('\n\n'))
  }
  t.is(ledger.get('L16'), long, 'a long prompt is not cut')
  t.deepEqual([...recordsIn(pk.text, 'Prior Compact Summaries').keys()], ['L2'])
  t.false(pk.text.includes('/x.jsonl') && pk.text.includes('real-'), 'no source path')
  t.regex(pk.text, /SOURCE_JSONL: the transcript being compressed/)
  const comment = pk.text.slice(pk.text.indexOf(COMMENT_OPEN), pk.text.indexOf('-->'))
  for (const [k, v] of Object.entries(pk.manifest.digests)) t.true(comment.includes(`${k}: ${v}`), k)
  t.is(pk.manifest.digests.handoff_summary_digest, 'none')
  t.true(pk.manifest.visibleAnchors.has('L13'), 'the failed Bash result is optional evidence')
  t.is(pk.manifest.optional.truncated, false)
})

test('pack: the same inputs and options give the same pack; options and handoff change the digests', (t) => {
  const a = pack().pack
  const b = pack().pack
  t.is(a.text, b.text)
  t.deepEqual(a.manifest.digests, b.manifest.digests)
  const c = pack(undefined, undefined, { charBudget: 400000 }).pack
  t.not(c.manifest.digests.pack_request_digest, a.manifest.digests.pack_request_digest)
  const h = pack(undefined, 'step one\nstep two\nstep three\nstep four\n').pack
  t.deepEqual(
    [...recordsIn(h.text, 'Handoff').entries()],
    [
      ['H1', 'step one'],
      ['H2', 'step two'],
      ['H3', 'step three'],
      ['H4', 'step four'],
    ],
  )
  t.deepEqual(
    h.manifest.requiredGroups.filter((g) => g.id.startsWith('handoff')).map((g) => g.id),
    ['handoff-early', 'handoff-middle', 'handoff-late', 'handoff-latest'],
  )
  t.not(h.manifest.digests.handoff_summary_digest, 'none')
})

test('pack: optional evidence is ranked and cut to the ceilings, and the truncation is recorded', (t) => {
  const lines = plantedLines()
  let parent = JSON.parse(lines.at(-1)!).uuid
  for (let i = 0; i < 30; i++) {
    const use = {
      parentUuid: parent,
      type: 'assistant',
      uuid: `x-use-${i}`,
      sessionId: 's',
      message: {
        role: 'assistant',
        content: [{ type: 'tool_use', id: `t${i}`, name: 'Read', input: { file_path: `/f${i}` } }],
      },
    }
    const res = {
      parentUuid: use.uuid,
      type: 'user',
      uuid: `x-res-${i}`,
      sessionId: 's',
      message: {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: `t${i}`, content: 'line of file content\n'.repeat(100) }],
      },
    }
    lines.push(JSON.stringify(use), JSON.stringify(res))
    parent = res.uuid
  }
  const { pack: pk } = pack(lines, undefined, { charBudget: 20000 })
  t.true(pk.text.length <= 20000)
  t.true(pk.manifest.optional.truncated)
  t.true(pk.manifest.optional.included < pk.manifest.optional.total)
  t.regex(
    pk.text,
    new RegExp(
      `optional_evidence: included=${pk.manifest.optional.included} of ${pk.manifest.optional.total} truncated=yes`,
    ),
  )
  t.true(pk.manifest.visibleAnchors.has('L13'), 'the failed command outranks file reads')
  t.is(recordsIn(pk.text, 'Mandatory Semantic Records').size, 5)
})

test('pack: mandatory evidence over either ceiling stops with a clear error', (t) => {
  const lines = plantedLines()
  const last = JSON.parse(lines.at(-1)!).uuid
  lines.push(
    JSON.stringify({
      parentUuid: last,
      type: 'user',
      uuid: 'big',
      sessionId: 's',
      message: { role: 'user', content: 'x'.repeat(12000) },
    }),
  )
  const e = t.throws(() => pack(lines, undefined, { charBudget: 10000 }))
  t.regex(e.message, /mandatory evidence .* over the ceilings of 10000 characters/)
  t.is((e as ModelSummaryError).exitCode, 1)
  const cjk = plantedLines()
  cjk.push(
    JSON.stringify({
      parentUuid: last,
      type: 'user',
      uuid: 'cjk',
      sessionId: 's',
      message: { role: 'user', content: '漢'.repeat(8000) },
    }),
  )
  t.throws(() => pack(cjk, undefined, { tokenBudget: 10000 }), { message: /estimated tokens/ })
  t.notThrows(() => pack(cjk, undefined, { tokenBudget: 20000 }))
  t.throws(() => pack(undefined, undefined, { charBudget: 9999 }), { message: /at least 10000/ })
})

// ---- the validator: a good summary passes; each planted defect names its rule ---------------

test('validator: a summary that follows every rule is accepted and composed within the budget', (t) => {
  const { p, pack: pk } = pack()
  const good = goodSummary(pk)
  const accepted = validateModelSummary(good, pk.manifest)
  t.false(accepted.body.includes(COMMENT_OPEN))
  const c = composeSummary(p.inputs, { transcriptPath: '/t.jsonl', charBudget: 8000 }, accepted)
  t.is(c.kind, 'model-assisted')
  t.true(c.text.length <= 8000)
  t.true(c.text.startsWith('This session is being continued from a previous conversation.'))
  t.true(c.text.includes(accepted.body), 'the model text is kept whole')
  t.true(c.text.includes('## Deterministic Safety Appendix'))
  t.true(c.text.includes('read the full transcript at: /t.jsonl'))
  t.throws(() => composeSummary(p.inputs, { transcriptPath: '/t.jsonl', charBudget: 4000 }, accepted), {
    message: /never cut/,
  })
})

const defects: [string, (s: string, pk: Pack) => string, string][] = [
  ['non-blank', () => '  \n', 'empty'],
  ['metadata-comment', (s) => s.replace(COMMENT_OPEN + '\n', ''), 'must begin'],
  ['metadata-comment', (s) => s.replace(/(source_sha256: \w+\n)/, '$1$1'), 'appears twice'],
  ['digest', (s) => s.replace(/source_sha256: \w/, 'source_sha256: Z'), 'source_sha256 is Z'],
  ['html-comment', (s) => s.replace('## Current State\n', '## Current State\n<!-- note -->\n'), 'second HTML comment'],
  ['min-length', (s) => s.slice(0, s.indexOf('-->') + 3) + '\n## Current State\n- short (L3)\n', 'at least 800'],
  [
    'boilerplate',
    (s) => s.replace('- The cache is being wired', "- I don't have access to the files, but the cache is being wired"),
    'boilerplate',
  ],
  [
    'headings',
    (s) => s.replace('## Decisions and Reasons\n', '## Decisions and Reasons\n### Notes (L3)\n'),
    'extra or renamed heading',
  ],
  ['headings', (s) => s.replace('## Timeline and Supersessions', '## Timeline'), 'extra or renamed heading'],
  [
    'headings',
    (s) =>
      s
        .replace('## Decisions and Reasons', '## TMP')
        .replace('## Assistant Research Decisions and Rationales', '## Decisions and Reasons')
        .replace('## TMP', '## Assistant Research Decisions and Rationales'),
    'out of order',
  ],
  [
    'anchor-range',
    (s) => s.replace('- The cache is being wired', '- (L99999) The cache is being wired'),
    'outside the source',
  ],
  [
    'anchor-visible',
    (s) => s.replace('- The cache is being wired', '- (L1) The cache is being wired'),
    'not a summarised record',
  ],
  [
    'anchor-range',
    (s) => s.replace('- The cache is being wired', '- (H1) The cache is being wired'),
    'outside the handoff',
  ],
  [
    'unanchored-line',
    (s) => s.replace('Unknown from provided anchors.', 'Unknown from provided anchors. Probably fine.'),
    'without an L/H anchor',
  ],
  [
    'section-anchor',
    (s) =>
      s.replace(
        /## Recent Raw Context Boundary\n\n- .*\n/,
        '## Recent Raw Context Boundary\n\nUnknown from provided anchors.\n',
      ),
    'cites no L or H anchor',
  ],
  [
    'coverage',
    (s) => s.replace('### Mandatory Evidence Coverage', '### Mandatory Coverage'),
    'extra or renamed heading',
  ],
  ['coverage', (s) => s.replace(/\n- L3 support_text_json=.*\n/, '\n'), 'have no coverage line: L3'],
  ['coverage', (s) => s.replace(/(- L3 support_text_json=.*\n)/, '$1$1'), 'appears twice'],
  [
    'coverage',
    (s) => s.replace(/- L3 support_text_json=".*?"/, '- L3 support_text_json="Add a cache to the CLI"'),
    'not an exact substring',
  ],
  ['coverage', (s) => s.replace(/- L3 support_text_json=".*?"/, '- L3 support_text_json="Add a"'), 'too short'],
  [
    'coverage',
    (s) =>
      s.replace(/- L3 support_text_json=(".*?") disposition=covered/, '- L3 support_text_json=$1 disposition=maybe'),
    'is not "- L<n>',
  ],
  [
    'required-group',
    (s, pk) => {
      const tool = pk.manifest.requiredGroups.find((g) => g.id === 'source-tool')!.anchors
      return s.replace(
        /- Cited evidence across the session: .*\n/,
        (line) =>
          line
            .split(' ')
            .filter((w) => !tool.includes(w.replace(/[.,]$/, '')))
            .join(' ') + '\n',
      )
    },
    "group 'source-tool'",
  ],
]

for (const [k, [rule, plant, message]] of defects.entries()) {
  test(`validator: rejects a summary that breaks rule ${rule} (${k}: ${message})`, (t) => {
    const { pack: pk } = pack()
    const bad = plant(goodSummary(pk), pk)
    t.not(bad, goodSummary(pk), 'the defect was planted')
    const e = t.throws(() => validateModelSummary(bad, pk.manifest), { instanceOf: ModelSummaryError })
    t.is(
      (e as ModelSummaryError).rule === rule || (rule === 'coverage' && (e as ModelSummaryError).rule === 'headings'),
      true,
      e.message,
    )
    t.true(e.message.includes(message), e.message)
    t.false(e.message.includes('\n'), 'one line')
  })
}

test('validator: anchor-like words inside a coverage excerpt are source text, not citations', (t) => {
  const lines = plantedLines()
  const prompt = JSON.parse(lines[2])
  prompt.message.content = 'Use an H2 heading and check L999 in the old doc. ' + prompt.message.content
  lines[2] = JSON.stringify(prompt)
  const { pack: pk } = pack(lines)
  t.notThrows(() => validateModelSummary(goodSummary(pk), pk.manifest))
})

test('validator: a summary of another pack (changed handoff) fails on its digest', (t) => {
  const { pack: a } = pack()
  const { pack: b } = pack(undefined, 'a handoff line\n')
  const e = t.throws(() => validateModelSummary(goodSummary(a), b.manifest), { instanceOf: ModelSummaryError })
  t.is((e as ModelSummaryError).rule, 'digest')
})

// ---- the CLI ---------------------------------------------------------------------------------

test('cli pack: writes the pack atomically outside .claude; refuses a .claude path and an overflow, writing nothing', (t) => {
  const dir = tempDir()
  const src = join(dir, 'session.jsonl')
  writeFileSync(src, plantedLines().join('\n') + '\n')
  const out = join(dir, 'out', 'PACK.md')
  mkdirSync(join(dir, 'out'))
  const ok = spawnSync(process.execPath, [CLI, 'pack', src, '--out', out], { encoding: 'utf8' })
  t.is(ok.status, 0, ok.stderr)
  t.regex(ok.stdout, /^pack: .*PACK\.md: \d+ characters/)
  t.true(readFileSync(out, 'utf8').startsWith('# claude-jsonl model-summary evidence pack (protocol v11)'))
  mkdirSync(join(dir, '.claude'))
  const before = snapshot(dir)
  const inside = spawnSync(process.execPath, [CLI, 'pack', src, '--out', join(dir, '.claude', 'PACK.md')], {
    encoding: 'utf8',
  })
  t.is(inside.status, 2)
  t.regex(inside.stderr, /inside a \.claude tree/)
  const big = join(dir, 'big.jsonl')
  const bigLines = plantedLines()
  const prompt = JSON.parse(bigLines[2])
  prompt.message.content = 'y'.repeat(12000)
  bigLines[2] = JSON.stringify(prompt)
  // A long last reply keeps the big prompt in the older part the stand-in summarises.
  bigLines.push(
    JSON.stringify({
      type: 'assistant',
      uuid: 'tail',
      parentUuid: JSON.parse(bigLines.at(-1)!).uuid,
      message: { role: 'assistant', content: [{ type: 'text', text: 'z'.repeat(30000) }] },
    }),
  )
  writeFileSync(big, bigLines.join('\n') + '\n')
  const snap = snapshot(dir)
  const over = spawnSync(
    process.execPath,
    [CLI, 'pack', big, '--out', join(dir, 'o2.md'), '--model-pack-char-budget', '10000'],
    { encoding: 'utf8' },
  )
  t.is(over.status, 1)
  t.regex(over.stderr, /^claude-jsonl: model pack: the mandatory evidence/)
  t.false(existsSync(join(dir, 'o2.md')))
  t.deepEqual(snapshot(dir), snap)
  t.true(before.length < snap.length)
  const usage = spawnSync(process.execPath, [CLI, 'pack', src], { encoding: 'utf8' })
  t.is(usage.status, 2)
  t.true(PLANTED.todo.length > 0)
})
