// Peak anonymous memory of the commands that read one whole transcript, on the ~1.2 GB bench
// transcript (`node benches/run.mjs --huge` generates it into .bench-cache/huge). Anonymous memory
// is what the process allocated (heaps, buffers, parsed records), as opposed to the file's pages
// it maps from the page cache, which the kernel can drop and read again at any time: it is
// sampled from /proc/PID/status (RssAnon) every 10 ms while the command runs, and the largest
// sample is reported beside the bound (600 MB, 10^6 bytes). Each command runs once, through the
// installed command (dist/src-ts/cli/bin.cjs), its output discarded.
// It writes the "## Memory on one 1.2 GB transcript" section of benches/RESULTS.md.
//
//   node benches/huge-memory.mjs [--file PATH]
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { writeResultsSection } from './results-section.mjs'

const REPO = path.join(path.dirname(fileURLToPath(import.meta.url)), '..')
const TITLE = '## Memory on one 1.2 GB transcript'
const BOUND_MB = 600
const args = process.argv.slice(2)
const fileArg = args.indexOf('--file') >= 0 ? args[args.indexOf('--file') + 1] : undefined
const dir = path.join(REPO, '.bench-cache', 'huge', 'projects', 'p')
const file =
  fileArg ??
  (fs.existsSync(dir)
    ? fs.readdirSync(dir).find((f) => f.endsWith('.jsonl')) &&
      path.join(
        dir,
        fs.readdirSync(dir).find((f) => f.endsWith('.jsonl')),
      )
    : undefined)
const BIN = path.join(REPO, 'dist', 'src-ts', 'cli', 'bin.cjs')
const load = () => fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')

/** RssAnon of `pid` in bytes, or undefined once it has gone. */
function rssAnon(pid) {
  try {
    const m = /RssAnon:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))
    return m ? Number(m[1]) * 1024 : undefined
  } catch {
    return undefined
  }
}

/** Runs `argv` once; its peak anonymous memory (sampled), wall seconds and exit status. */
function measure(argv) {
  return new Promise((resolve) => {
    const t = process.hrtime.bigint()
    const child = spawn(process.execPath, argv, { stdio: ['ignore', 'ignore', 'pipe'] })
    let peak = 0
    let err = ''
    child.stderr.on('data', (d) => (err += d))
    const timer = setInterval(() => {
      const v = rssAnon(child.pid)
      if (v !== undefined && v > peak) peak = v
    }, 10)
    child.on('exit', (code, signal) => {
      clearInterval(timer)
      resolve({ peak, wallS: Number(process.hrtime.bigint() - t) / 1e9, status: code ?? signal, err: err.trim() })
    })
  })
}

const L = [TITLE, '']
if (!file || !fs.existsSync(file)) {
  L.push('Not run: no ~1.2 GB transcript (generate it with `node benches/run.mjs --huge`).', '')
} else {
  const bytes = fs.statSync(file).size
  // Read once first, so that every command finds the file in the page cache.
  fs.readFileSync(file, { encoding: null }).length
  const rows = [
    ['plan', ['plan', file]],
    ['validate', ['validate', file]],
    ['show --last 5', ['show', '--last', '5', file]],
    ['timeline --last 5', ['timeline', '--last', '5', file]],
    ['stats (reference)', ['stats', file]],
  ]
  const before = load()
  const results = []
  for (const [name, a] of rows) {
    const r = await measure([BIN, ...a])
    results.push([name, r])
    process.stderr.write(
      `[huge-memory] ${name}: ${(r.peak / 1e6).toFixed(0)} MB anon, ${r.wallS.toFixed(2)} s, exit ${r.status}\n`,
    )
  }
  L.push(
    `Written by \`node benches/huge-memory.mjs\` on ${new Date().toISOString()}, Node ${process.version}: one run each of the installed command on \`${path.relative(REPO, file)}\` (${(bytes / 1e6).toFixed(0)} MB), the file in the page cache. Peak anonymous memory is the largest RssAnon sampled every 10 ms (the file's own pages, mapped from the page cache, are not in it). Load average ${before} at the start, ${load()} at the end.`,
    '',
    '| command | peak anonymous MB | bound MB | wall s | exit | result |',
    '| ------- | ----------------: | -------: | -----: | ---: | ------ |',
  )
  for (const [name, r] of results) {
    const bounded = !name.includes('reference')
    const ok = r.peak <= BOUND_MB * 1e6
    L.push(
      `| ${name} | ${(r.peak / 1e6).toFixed(0)} | ${bounded ? BOUND_MB : ''} | ${r.wallS.toFixed(2)} | ${r.status} | ${bounded ? (ok ? 'met' : 'not met') : ''} |`,
    )
  }
  const failed = results.filter(([, r]) => typeof r.status !== 'number' || r.status > 1)
  for (const [name, r] of failed) L.push('', `${name} failed: ${r.err.split('\n')[0]}`)
  L.push('')
}
const section = L.join('\n')
process.stdout.write(section + '\n')
writeResultsSection(section)
