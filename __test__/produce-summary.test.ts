import test from 'ava'
import { createServer, IncomingMessage } from 'node:http'
import { AddressInfo } from 'node:net'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { buildPack } from '../src-ts/compress/pack.js'
import { composeSummary, ModelSummaryError, validateModelSummary } from '../src-ts/compress/model-summary.js'
import { produceSummary, runAnthropicSummarizer, runSummarizerCommand } from '../src-ts/compress/produce-summary.js'
import { SECTION, SECTION_HEADINGS } from '../src-ts/compress/summary-sections.js'
import { planted } from './helpers/summary-fixture.js'
import { tempDir } from './helpers/transcripts.js'

/**
 * A stand-in summarising model: reads a pack and writes a summary that follows its rules (the
 * comment copied, the nine sections, one cited anchor per group, one coverage line per record).
 */
const FAKE_MODEL = `
const pack = require('fs').readFileSync(0, 'utf8')
const comment = pack.slice(pack.indexOf('<!-- claude-jsonl-compressor'), pack.indexOf('-->') + 3)
const groups = [...pack.matchAll(/^- group \\S+ \\(cite at least one\\): (\\S+)/gm)].map((m) => m[1])
const part = (name) => pack.split('## ' + name + '\\n')[1].split('\\n## ')[0]
const records = [...(part('Mandatory Semantic Records') + part('Prior Compact Summaries')).matchAll(/^- (L\\d+) .*?full_text_json=(".*")$/gm)].map((m) => [m[1], JSON.parse(m[2])])
const cite = records.map((r) => r[0]).join(' ')
const heads = ${JSON.stringify(SECTION_HEADINGS)}
const out = [comment, '']
for (const h of heads) {
  out.push('## ' + h, '', '- What the records say about this, in order (' + cite + ').', '')
  if (h === ${JSON.stringify(SECTION_HEADINGS[SECTION.evidence])}) {
    out.push('- Group anchors: ' + groups.join(' ') + '.', '', '### Mandatory Evidence Coverage')
    for (const [a, t] of records) out.push('- ' + a + ' support_text_json=' + JSON.stringify(t.trim().slice(0, 30)) + ' disposition=covered')
    out.push('')
  }
}
process.stdout.write(out.join('\\n') + '\\n'.repeat(2) + 'x'.repeat(0))
`

function fixture() {
  const p = planted()
  return { p, pack: buildPack(p) }
}

test('--summarizer-cmd: the pack goes to the command on stdin; what it prints passes the validator', async (t) => {
  const dir = tempDir()
  const script = join(dir, 'fake-model.cjs')
  writeFileSync(script, FAKE_MODEL)
  const { p, pack } = fixture()
  const text = await runSummarizerCommand(pack.text, { command: `"${process.execPath}" "${script}" | cat` })
  const accepted = validateModelSummary(text, pack.manifest)
  const composed = composeSummary(p.inputs, { transcriptPath: '/t.jsonl', charBudget: 60000 }, accepted)
  t.true(composed.text.includes(accepted.body))
})

test('--summarizer-cmd: a failing, silent or slow command is a clear one-line error', async (t) => {
  await t.throwsAsync(runSummarizerCommand('pack', { command: 'echo "no credits left" >&2; exit 3' }), {
    message: '--summarizer-cmd exited with code 3: no credits left',
  })
  await t.throwsAsync(runSummarizerCommand('pack', { command: 'cat >/dev/null' }), { message: /printed nothing/ })
  const started = Date.now()
  await t.throwsAsync(runSummarizerCommand('pack', { command: 'sleep 30', timeoutMs: 300 }), {
    message: /timed out after 0 s and was killed/,
  })
  t.true(Date.now() - started < 10000)
  // A command that never reads its input still works.
  t.is(await runSummarizerCommand('x'.repeat(1 << 20), { command: 'echo done' }), 'done\n')
})

interface Seen {
  headers: IncomingMessage['headers']
  body: { model: string; max_tokens: number; messages: { role: string; content: string }[]; system?: string }
  url?: string
}

/** A Messages API stand-in on 127.0.0.1: answers every request with `reply(body)`. */
async function mockApi(reply: (body: Seen['body']) => { status: number; json: unknown }) {
  const seen: Seen[] = []
  const server = createServer((req, res) => {
    let raw = ''
    req.on('data', (c) => (raw += c))
    req.on('end', () => {
      const body = JSON.parse(raw)
      seen.push({ headers: req.headers, body, url: req.url })
      const r = reply(body)
      res.writeHead(r.status, { 'content-type': 'application/json', 'request-id': 'req_mock' })
      res.end(JSON.stringify(r.json))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as AddressInfo).port
  return { seen, baseURL: `http://127.0.0.1:${port}`, close: () => new Promise((r) => server.close(r)) }
}

const message = (text: string, stop = 'end_turn') => ({
  id: 'msg_mock',
  type: 'message',
  role: 'assistant',
  model: 'claude-test',
  content: [{ type: 'text', text }],
  stop_reason: stop,
  stop_sequence: null,
  usage: { input_tokens: 10, output_tokens: 10 },
})

test('--summarizer anthropic: one Messages API request with the pack, key and model; the answer is validated', async (t) => {
  const dir = tempDir()
  const script = join(dir, 'fake-model.cjs')
  writeFileSync(script, FAKE_MODEL)
  const { pack } = fixture()
  const summary = await runSummarizerCommand(pack.text, { command: `"${process.execPath}" "${script}"` })
  const api = await mockApi(() => ({ status: 200, json: message(summary) }))
  try {
    const text = await runAnthropicSummarizer(pack.text, {
      model: 'claude-test',
      env: { ANTHROPIC_API_KEY: 'sk-test', ANTHROPIC_BASE_URL: api.baseURL },
    })
    t.is(text, summary)
    t.notThrows(() => validateModelSummary(text, pack.manifest))
    t.is(api.seen.length, 1)
    const [req] = api.seen
    t.is(req.url, '/v1/messages')
    // The SDK sends the key as x-api-key or, in its newer releases, as a bearer token.
    t.true(
      req.headers['x-api-key'] === 'sk-test' || req.headers.authorization === 'Bearer sk-test',
      JSON.stringify(req.headers),
    )
    t.is(req.body.model, 'claude-test')
    t.deepEqual(req.body.messages, [{ role: 'user', content: pack.text }])
    t.regex(req.body.system ?? '', /Required Output/)
  } finally {
    await api.close()
  }
})

test('--summarizer anthropic: API errors, a cut answer and a missing key are clear errors', async (t) => {
  const api = await mockApi((body) =>
    body.model === 'bad'
      ? { status: 400, json: { type: 'error', error: { type: 'invalid_request_error', message: 'model: not found' } } }
      : { status: 200, json: message('partial', 'max_tokens') },
  )
  try {
    const env = { ANTHROPIC_API_KEY: 'sk-test', ANTHROPIC_BASE_URL: api.baseURL }
    await t.throwsAsync(runAnthropicSummarizer('pack', { model: 'bad', env }), {
      message: /^--summarizer anthropic: the Messages API request failed \(HTTP 400\)/,
    })
    await t.throwsAsync(runAnthropicSummarizer('pack', { model: 'ok', env }), { message: /cut at max_tokens/ })
    await t.throwsAsync(runAnthropicSummarizer('pack', { env: {} }), { message: /needs ANTHROPIC_API_KEY/ })
  } finally {
    await api.close()
  }
})

test('produceSummary: deterministic, or pack → summarizer command → validation → composition', async (t) => {
  const dir = tempDir()
  const script = join(dir, 'fake-model.cjs')
  writeFileSync(script, FAKE_MODEL)
  const { p } = fixture()
  const base = {
    bytes: p.bytes,
    index: p.index,
    summaryIndexes: p.summaryIndexes,
    transcriptPath: '/t.jsonl',
    charBudget: 20000,
  }
  const det = await produceSummary({ ...base, source: { kind: 'deterministic' } })
  t.is(det.kind, 'deterministic')
  t.is(det.manifest, undefined)
  const viaCmd = await produceSummary({
    ...base,
    source: { kind: 'summarizer-cmd', command: `"${process.execPath}" "${script}"` },
  })
  t.is(viaCmd.kind, 'model-assisted')
  t.truthy(viaCmd.manifest?.digests.source_sha256)
  t.true(viaCmd.text.length <= 20000)
  await t.throwsAsync(
    produceSummary({ ...base, source: { kind: 'model-summary', text: 'I cannot access the transcript.' } }),
    { instanceOf: ModelSummaryError },
  )
})

test('the installed command loads the Anthropic SDK on every run, the first and those from its code cache', async (t) => {
  const { spawnSync } = await import('node:child_process')
  const { existsSync } = await import('node:fs')
  const { REPO, REAL, tempDir } = await import('./helpers/transcripts.js')
  if (!existsSync(REAL)) return t.log('SKIPPED: the real sample transcripts are not here')
  const bin = join(REPO, 'dist', 'src-ts', 'cli', 'bin.cjs')
  const out = tempDir('cj-sdk-load-')
  // A loopback port nothing listens on: the request fails after the SDK loaded, never before.
  const env = { ...process.env, ANTHROPIC_API_KEY: 'x', ANTHROPIC_BASE_URL: 'http://127.0.0.1:9' }
  for (const run of [1, 2]) {
    const r = spawnSync(
      process.execPath,
      [bin, 'compress', join(REAL, 'real-07.jsonl'), '--out', join(out, `c${run}.jsonl`), '--summarizer', 'anthropic'],
      { encoding: 'utf8', env },
    )
    t.notRegex(r.stderr, /internal error|dynamic import/, `run ${run}: ${r.stderr}`)
    t.regex(r.stderr, /the Messages API request failed/, `run ${run}`)
  }
})
