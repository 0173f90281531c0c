#!/usr/bin/env node
// CLI start-up: what `show --format html` pays for its Markdown renderer and highlighter
// (markdown-it, highlight.js), and which commands load them at all.
//
//   node benches/show-html-startup.mjs [--rounds N]
//
// Uses a generated session of 40 turns of Markdown (headings, lists, code in several
// languages) in a temp folder. Prints a short table and one JSON line.
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { median, repo } from './script-args.mjs'

const i = process.argv.indexOf('--rounds')
const rounds = i >= 0 ? Number(process.argv[i + 1]) : 7
const dir = mkdtempSync(join(tmpdir(), 'cj-startup-bench-'))
const main = join(repo, 'dist', 'src-ts', 'cli', 'main.js')
try {
  const id = '5e55a0a0-1111-4222-8333-444455556666'
  const projects = join(dir, 'projects')
  const file = join(projects, '-home-u-app', `${id}.jsonl`)
  spawnSync('mkdir', ['-p', join(projects, '-home-u-app')])
  const lines = []
  let parent = null
  const at = (n) => new Date(Date.parse('2026-03-01T10:00:00Z') + n * 1000).toISOString()
  for (let t = 0; t < 40; t++) {
    const u = `u${t}`
    const a = `a${t}`
    lines.push(
      JSON.stringify({
        parentUuid: parent,
        uuid: u,
        sessionId: id,
        type: 'user',
        timestamp: at(2 * t),
        message: { role: 'user', content: `Step ${t}: fix **the parser** in \`src/parse.ts\`` },
      }),
    )
    const md = `## What's happening (${t})\n\nThe **server** fails on a lone surrogate:\n\n- reads \`line\`\n- calls \`JSON.parse\`\n\n\`\`\`ts\nexport function parse(line: string): Record<string, unknown> {\n  return JSON.parse(line) as Record<string, unknown>\n}\n\`\`\`\n\n\`\`\`bash\nnpm test -- --match '*surrogate*'\n\`\`\`\n\n\`\`\`python\ndef parse(line):\n    return json.loads(line)\n\`\`\``
    lines.push(
      JSON.stringify({
        parentUuid: u,
        uuid: a,
        sessionId: id,
        type: 'assistant',
        timestamp: at(2 * t + 1),
        requestId: `req_${t}`,
        message: {
          id: `msg_${t}`,
          role: 'assistant',
          model: 'claude-opus-4-7',
          content: [{ type: 'text', text: md }],
          usage: { input_tokens: 10, output_tokens: 100 },
        },
      }),
    )
    parent = a
  }
  writeFileSync(file, lines.join('\n') + '\n')
  const wall = (args) => {
    const t0 = process.hrtime.bigint()
    const r = spawnSync(process.execPath, args, { encoding: 'utf8', maxBuffer: 1 << 26 })
    if (r.status !== 0) throw new Error(`${args.join(' ')}: ${r.stderr}`)
    return Number(process.hrtime.bigint() - t0) / 1e6
  }
  const runs = {
    'node -e 0': ['-e', '0'],
    '--version': [main, '--version'],
    'show --format text': [main, 'show', file],
    'show --format markdown': [main, 'show', file, '--format', 'markdown'],
    'show --format html': [main, 'show', file, '--format', 'html', '--out', join(dir, 'page.html')],
    'stats --json': [main, 'stats', '--json', '--projects', projects],
    'find --exact': [main, 'find', '--exact', 'parse(', '--projects', projects],
  }
  const ms = Object.fromEntries(Object.keys(runs).map((k) => [k, []]))
  wall(runs['show --format html'])
  for (let r = 0; r < rounds; r++) for (const [k, args] of Object.entries(runs)) ms[k].push(wall(args))
  const medians = Object.fromEntries(Object.entries(ms).map(([k, v]) => [k, median(v)]))
  // Requiring the two libraries and registering the languages, alone, in a fresh process.
  const load = join(dir, 'load.mjs')
  writeFileSync(
    load,
    `import { createRequire } from 'node:module'
import { LANGUAGES } from ${JSON.stringify(join(repo, 'dist', 'src-ts', 'cli', 'show-html.js'))}
const require = createRequire(${JSON.stringify(join(repo, 'package.json'))})
const t0 = performance.now()
require('markdown-it')
const t1 = performance.now()
const hljs = require('highlight.js/lib/core')
for (const l of LANGUAGES) hljs.registerLanguage(l, require('highlight.js/lib/languages/' + l))
const t2 = performance.now()
process.stdout.write(JSON.stringify({ markdownItMs: t1 - t0, highlightMs: t2 - t1 }))`,
  )
  const loads = Array.from({ length: rounds }, () =>
    JSON.parse(spawnSync(process.execPath, [load], { encoding: 'utf8' }).stdout),
  )
  const markdownItMs = median(loads.map((l) => l.markdownItMs))
  const highlightMs = median(loads.map((l) => l.highlightMs))
  // Which runs load them: a preloaded hook reports the module cache at exit.
  const hook = join(dir, 'hook.mjs')
  writeFileSync(
    hook,
    `import { createRequire } from 'node:module'
import { writeSync } from 'node:fs'
process.on('exit', () => {
  const c = Object.keys(createRequire(import.meta.url).cache)
  writeSync(2, '\\nLOADED ' + JSON.stringify({ markdownIt: c.some((k) => k.includes('/markdown-it/')), highlightJs: c.some((k) => k.includes('/highlight.js/')) }) + '\\n')
})`,
  )
  const loaded = {}
  for (const [k, args] of Object.entries(runs)) {
    if (k === 'node -e 0') continue
    const r = spawnSync(process.execPath, ['--import', hook, ...args], { encoding: 'utf8', maxBuffer: 1 << 26 })
    loaded[k] = JSON.parse(/LOADED (.*)/.exec(r.stderr)[1])
  }
  const result = { rounds, medians, markdownItMs, highlightMs, languages: 10, loaded }
  const f = (n) => n.toFixed(0)
  process.stderr.write(
    Object.entries(medians)
      .map(
        ([k, v]) =>
          `  ${k.padEnd(24)} ${f(v).padStart(5)} ms${loaded[k] ? `  loads markdown-it: ${loaded[k].markdownIt}, highlight.js: ${loaded[k].highlightJs}` : ''}\n`,
      )
      .join('') +
      `  require markdown-it ${markdownItMs.toFixed(1)} ms, highlight.js core + 10 languages ${highlightMs.toFixed(1)} ms\n`,
  )
  process.stdout.write(JSON.stringify(result) + '\n')
} finally {
  rmSync(dir, { recursive: true, force: true })
}
