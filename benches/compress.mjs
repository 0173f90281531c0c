#!/usr/bin/env node
// Times `plan` + `compress` (deterministic summary) of one large transcript whose whole history
// is one active chain (the worst case: everything is planned, estimated and summarised), in a
// running Node process and through the CLI, with the CLI's peak RSS; and a plain-JS baseline
// that does the least a compressor must (JSON.parse every line, walk the parent chain, write the
// suffix back) for scale. The reference compressor (@brandry/claude-jsonl-compressor, Python)
// is not on the npm registry, so it cannot be run side by side here.
//
//   node benches/compress.mjs [--mb 50] [--rounds 5]
//
// The transcript is generated once into .bench-cache/compress/. Prints a table and one JSON line.
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const repo = join(dirname(fileURLToPath(import.meta.url)), '..')
const args = process.argv.slice(2)
const opt = (name, dflt) => {
  const i = args.indexOf(name)
  return i >= 0 ? args[i + 1] : dflt
}
const mb = Number(opt('--mb', '50'))
const rounds = Number(opt('--rounds', '5'))
const SESSION = '7c0e55a1-3b2d-4e6f-8a9b-0c1d2e3f4a5b'
const dir = join(repo, '.bench-cache', 'compress')
const file = join(dir, `${SESSION}-${mb}mb-v2.jsonl`)

/** A deterministic session: turns of prompt, thinking + text + tool calls (some parallel), results.
 * Records average about 2.3 KB, as in the sample transcripts (tool results dominate the bytes). */
function generate(path, targetBytes) {
  let seed = 42
  const rnd = () => (seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32
  const words =
    'the parser index chain leaf branch summary token budget cache frame record session tool result commit test build error retry fix path file line byte span edit merge'.split(
      ' ',
    )
  const prose = (n) => Array.from({ length: n }, () => words[Math.floor(rnd() * words.length)]).join(' ')
  const out = []
  let size = 0
  let t = Date.UTC(2026, 5, 1)
  let parent = null
  let n = 0
  const push = (r) => {
    const line = JSON.stringify(r)
    out.push(line)
    size += line.length + 1
    return r.uuid
  }
  const base = (type, extra) => ({
    parentUuid: parent,
    isSidechain: false,
    userType: 'external',
    cwd: '/home/dev/acme',
    sessionId: SESSION,
    version: '2.1.300',
    gitBranch: 'main',
    type,
    ...extra,
    uuid: `00000000-0000-4000-8000-${(++n).toString(16).padStart(12, '0')}`,
    timestamp: new Date((t += 1500)).toISOString(),
  })
  const assistant = (id, content) =>
    base('assistant', {
      message: {
        id,
        type: 'message',
        role: 'assistant',
        model: 'claude-opus-5-5',
        content,
        stop_reason: null,
        usage: {
          input_tokens: 3,
          output_tokens: 200,
          cache_read_input_tokens: 20000,
          cache_creation_input_tokens: 500,
        },
      },
      requestId: `req_${id}`,
    })
  let turn = 0
  while (size < targetBytes) {
    turn++
    parent = push(base('user', { message: { role: 'user', content: `Turn ${turn}: ${prose(30)}` } }))
    const id = `msg_${turn}`
    parent = push(assistant(id, [{ type: 'thinking', thinking: prose(120), signature: 'sig'.repeat(40) }]))
    const calls = rnd() < 0.3 ? 3 : 1
    const holders = []
    for (let c = 0; c < calls; c++) {
      const rec = assistant(id, [
        { type: 'tool_use', id: `toolu_${turn}_${c}`, name: 'Bash', input: { command: `run ${prose(8)}` } },
      ])
      holders.push(rec.uuid)
      parent = push(rec)
    }
    // Results hang off the fragment holding their call (parallel ones off the chain).
    for (let c = 0; c < calls; c++) {
      const holder = holders[c]
      const save = parent
      parent = holder
      const r = base('user', {
        message: {
          role: 'user',
          content: [
            {
              tool_use_id: `toolu_${turn}_${c}`,
              type: 'tool_result',
              content: prose(300 + Math.floor(rnd() * 2700)),
              is_error: rnd() < 0.1,
            },
          ],
        },
        toolUseResult: { stdout: prose(50), stderr: '', interrupted: false },
        sourceToolAssistantUUID: holder,
      })
      push(r)
      parent = c === calls - 1 ? r.uuid : save
    }
    parent = push(assistant(`msg_${turn}b`, [{ type: 'text', text: prose(80) }]))
  }
  out.push(JSON.stringify({ type: 'last-prompt', lastPrompt: 'Turn', leafUuid: parent, sessionId: SESSION }))
  mkdirSync(dirname(path), { recursive: true })
  writeFileSync(path, out.join('\n') + '\n')
}

if (!existsSync(file)) generate(file, mb * 1024 * 1024)
const bytes = statSync(file).size
const { compress } = await import(join(repo, 'dist', 'src-ts', 'compress', 'compress.js'))
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2
}
const work = mkdtempSync(join(tmpdir(), 'cj-compress-bench-'))
try {
  const out = join(work, 'candidate.jsonl')
  const inProcess = []
  let report
  for (let i = 0; i <= rounds; i++) {
    const t0 = process.hrtime.bigint()
    report = await compress(file, out, { summary: 'deterministic', force: true, report: false })
    if (i > 0) inProcess.push(Number(process.hrtime.bigint() - t0) / 1e6) // the first run warms the page cache
  }
  const cli = []
  let rssMiB = 0
  for (let i = 0; i < rounds; i++) {
    const t0 = process.hrtime.bigint()
    // The installed command (the bundle from its code cache), as a user runs it; GNU time
    // reports its peak RSS and adds no interpreter of its own to the wall time.
    const r = spawnSync(
      '/usr/bin/time',
      [
        '-f',
        '%M',
        process.execPath,
        join(repo, 'dist', 'src-ts', 'cli', 'bin.cjs'),
        'compress',
        file,
        '--out',
        out,
        '--force',
        '--summary',
        'deterministic',
      ],
      { encoding: 'utf8' },
    )
    cli.push(Number(process.hrtime.bigint() - t0) / 1e6)
    if (r.status !== 0) throw new Error(`compress CLI failed: ${r.stderr}`)
    rssMiB = Math.max(rssMiB, Number(r.stderr.trim().split('\n').pop()) / 1024)
  }
  // Plain-JS baseline: parse every line, walk the chain from the last record, write the suffix.
  const baseline = []
  for (let i = 0; i < Math.min(rounds, 3); i++) {
    const t0 = process.hrtime.bigint()
    const lines = readFileSync(file, 'utf8').split('\n').filter(Boolean)
    const recs = lines.map((l) => JSON.parse(l))
    const byUuid = new Map(recs.map((r, k) => [r.uuid, k]))
    const chain = []
    for (let k = recs.findLastIndex((r) => r.uuid); k !== undefined && k >= 0; k = byUuid.get(recs[k].parentUuid))
      chain.push(k)
    chain.reverse()
    const keep = chain.slice(Math.floor(chain.length * 0.7))
    writeFileSync(join(work, 'baseline.jsonl'), keep.map((k) => JSON.stringify(recs[k])).join('\n') + '\n')
    baseline.push(Number(process.hrtime.bigint() - t0) / 1e6)
  }
  // What any Node CLI pays before its first line runs, for scale.
  const nodeStart = []
  for (let i = 0; i < rounds; i++) {
    const t0 = process.hrtime.bigint()
    spawnSync(process.execPath, ['-e', '0'])
    nodeStart.push(Number(process.hrtime.bigint() - t0) / 1e6)
  }
  const result = {
    bytes,
    nodeStartMs: median(nodeStart),
    chainRecords: report.sourceActiveChainLength,
    summarizedRecords: report.summarizedRecords,
    keptRecords: report.recentRecordsPreserved,
    outputBytes: report.outputBytes,
    inProcessMs: median(inProcess),
    cliMs: median(cli),
    cliPeakRssMiB: rssMiB,
    rssOverFileSize: (rssMiB * 1024 * 1024) / bytes,
    baselineMs: median(baseline),
  }
  process.stderr.write(
    `compress ${(bytes / 1e6).toFixed(1)} MB (${result.chainRecords} chain records, ${result.summarizedRecords} summarised): ` +
      `in-process ${result.inProcessMs.toFixed(0)} ms, CLI ${result.cliMs.toFixed(0)} ms, CLI peak RSS ${rssMiB.toFixed(0)} MiB (${result.rssOverFileSize.toFixed(2)}x the file); ` +
      `plain-JS baseline ${result.baselineMs.toFixed(0)} ms\n`,
  )
  process.stdout.write(JSON.stringify(result) + '\n')
} finally {
  rmSync(work, { recursive: true, force: true })
}
