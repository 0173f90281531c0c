#!/usr/bin/env node
// Measures what the real Claude Code client (2.1.332, against a mock API on 127.0.0.1) sends when
// it resumes a compressed session, for a few kept-suffix ceilings: the estimated tokens of its
// whole request (system prompt, tools, messages), of the summary and of the kept suffix. It is
// how the default ceiling (plan's DEFAULT_MAX_KEPT_TOKENS) was chosen; the figures are in
// docs/compress/kept-ceiling.md.
//
//   CLAUDE_JSONL_CLIENT_CACHE=DIR node benches/kept-ceiling.mjs FILE... [--ceilings 20000,40000,60000]
//
// Needs the built dist/ (npx tsc -p tsconfig.json). Prints a table and, last, one JSON line.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const repo = join(dirname(fileURLToPath(import.meta.url)), '..')
const { compress } = await import(join(repo, 'dist', 'src-ts', 'compress', 'compress.js'))
const { resumeWithRealClient } = await import(join(repo, 'dist', '__test__', 'helpers', 'claude-client.js'))
const native = (await import(join(repo, 'dist', 'src-ts', 'native.js'))).default

const args = process.argv.slice(2)
const at = args.indexOf('--ceilings')
const ceilings = (at >= 0 ? args.splice(at, 2)[1] : '20000,40000,60000').split(',').map(Number)
if (args.length === 0) {
  process.stderr.write('usage: node benches/kept-ceiling.mjs FILE... [--ceilings 20000,40000,60000]\n')
  process.exit(2)
}
const tokens = (v) => Math.round(native.estimateTextTokens(typeof v === 'string' ? v : JSON.stringify(v ?? '')))
const rows = []
const work = mkdtempSync(join(tmpdir(), 'cj-kept-ceiling-'))
try {
  for (const file of args) {
    const bytes = readFileSync(file)
    const sid = basename(file).match(/^[0-9a-f-]{36}/)?.[0] ?? '5e551011-0000-4000-8000-00000000c0de'
    for (const ceiling of ceilings) {
      const out = join(work, `${rows.length}-${sid}.jsonl`)
      const report = await compress(file, out, { maxKeptTokens: ceiling, report: false, force: true })
      const r = await resumeWithRealClient(readFileSync(out), { sessionId: sid, timeoutMs: 300_000 })
      const req = r.requests.find(
        (q) => q.url.startsWith('/v1/messages') && Array.isArray(q.body?.messages) && q.body.messages.length > 1,
      )
      if (r.exitCode !== 0 || !req)
        throw new Error(
          `${file} at ${ceiling}: the client sent no resumed request (exit ${r.exitCode}): ${r.stderr.slice(0, 300)}`,
        )
      const frame = tokens(req.body.system) + tokens(req.body.tools)
      const messages = tokens(req.body.messages)
      rows.push({
        file: basename(file),
        bytes: bytes.length,
        ceiling,
        sourceTokens: report.inputEstimatedMessageTokens,
        candidateTokens: report.outputEstimatedMessageTokens,
        summaryChars: report.summaryChars,
        keptTokens: report.cut?.keptEstimatedTokens,
        requestFrameTokens: frame,
        requestMessageTokens: messages,
        requestTokens: frame + messages,
      })
      const x = rows[rows.length - 1]
      process.stdout.write(
        `${x.file.padEnd(44)} ceiling ${String(ceiling).padStart(6)}: source ~${x.sourceTokens}, candidate ~${x.candidateTokens} (kept ~${x.keptTokens}, summary ${x.summaryChars} chars); resumed request ~${x.requestTokens} (system+tools ~${frame}, messages ~${messages})\n`,
      )
    }
  }
  process.stdout.write(JSON.stringify(rows) + '\n')
} finally {
  rmSync(work, { recursive: true, force: true })
}
