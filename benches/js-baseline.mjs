#!/usr/bin/env node
// Plain-JS baseline for `claude-jsonl stats` token totals.
//
//   node benches/js-baseline.mjs PATH...
//
// PATH is a projects directory (walked recursively for *.jsonl) or a .jsonl file.
// What a careful Node programmer would write without native code: stream each file
// with fs.createReadStream (Buffer chunks), split on '\n' at the Buffer level (no
// readline), JSON.parse every line (blank and invalid lines are skipped and counted),
// then apply the same usage dedupe as claude-jsonl:
//   - only `type: "assistant"` entries with an object `message.usage` count;
//     entries whose message.model is "<synthetic>" are ignored entirely;
//   - key = requestId, falling back to message.id (an entry with neither is its own group);
//     the dedupe is global across files, which are read in sorted path order;
//   - per key, keep the WHOLE usage row of the entry with the largest output_tokens
//     (the first one wins on ties) - fields are never spliced from two rows;
//   - a group whose entries are all isSidechain:true is a sidechain replay, and is
//     dropped, when one of its message.ids also appears on a non-sidechain assistant entry.
// Prints {"totals":{requests,inputTokens,cacheCreationInputTokens,cacheReadInputTokens,
// outputTokens}} plus input counters (files, bytes, lines, blankLines, invalidLines).

import fs from 'node:fs'
import path from 'node:path'

const NL = 0x0a

function num(x) {
  return typeof x === 'number' && Number.isFinite(x) ? x : 0
}

function walk(p, out) {
  const st = fs.statSync(p)
  if (st.isFile()) {
    out.push(p)
    return
  }
  if (!st.isDirectory()) return
  for (const ent of fs.readdirSync(p, { withFileTypes: true })) {
    const child = path.join(p, ent.name)
    if (ent.isDirectory()) walk(child, out)
    else if (ent.name.endsWith('.jsonl')) {
      if (ent.isFile()) out.push(child)
      else if (ent.isSymbolicLink()) {
        try {
          if (fs.statSync(child).isFile()) out.push(child)
        } catch {
          /* dangling link */
        }
      }
    }
  }
}

const counters = { files: 0, bytes: 0, lines: 0, blankLines: 0, invalidLines: 0, assistantEntries: 0 }
/** key -> { out, inp, cc, cr, allSide, msgIds } */
const groups = new Map()
/** message.ids seen on non-sidechain assistant entries */
const mainMsgIds = new Set()
let anon = 0
let currentFile = ''
// --ccusage-compat: what ccusage 20.0.24 does, found by experiment: a NON-sidechain entry without
// requestId is not grouped by message.id, only with copies of itself (same uuid) in the same file;
// sidechain entries still fall back to message.id. run.mjs uses it only to explain a disagreement
// with ccusage; it is never timed.
const COMPAT = process.argv.includes('--ccusage-compat')

function onRecord(obj) {
  if (obj === null || typeof obj !== 'object' || obj.type !== 'assistant') return
  const msg = obj.message
  if (msg === null || typeof msg !== 'object') return
  if (msg.model === '<synthetic>') return
  counters.assistantEntries++
  const msgId = typeof msg.id === 'string' && msg.id !== '' ? msg.id : undefined
  const side = obj.isSidechain === true
  if (!side && msgId !== undefined) mainMsgIds.add(msgId)
  const u = msg.usage
  if (u === null || typeof u !== 'object' || Array.isArray(u)) return
  let key = typeof obj.requestId === 'string' && obj.requestId !== '' ? obj.requestId : msgId
  if (COMPAT && !side && key === msgId)
    key = typeof obj.uuid === 'string' ? `\u0000uuid:${currentFile}\u0000${obj.uuid}` : undefined
  if (key === undefined) key = `\u0000anon:${anon++}`
  const out = num(u.output_tokens)
  let cc
  if (typeof u.cache_creation_input_tokens === 'number') cc = num(u.cache_creation_input_tokens)
  else if (u.cache_creation && typeof u.cache_creation === 'object')
    cc = num(u.cache_creation.ephemeral_5m_input_tokens) + num(u.cache_creation.ephemeral_1h_input_tokens)
  else cc = 0
  const g = groups.get(key)
  if (g === undefined) {
    groups.set(key, {
      out,
      inp: num(u.input_tokens),
      cc,
      cr: num(u.cache_read_input_tokens),
      allSide: side,
      msgIds: msgId === undefined ? [] : [msgId],
    })
    return
  }
  if (!side) g.allSide = false
  if (msgId !== undefined && !g.msgIds.includes(msgId)) g.msgIds.push(msgId)
  if (out > g.out) {
    g.out = out
    g.inp = num(u.input_tokens)
    g.cc = cc
    g.cr = num(u.cache_read_input_tokens)
  }
}

function onLine(buf, firstInFile) {
  counters.lines++
  let start = 0
  if (firstInFile && buf.length >= 3 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf) start = 3
  const s = buf.toString('utf8', start)
  let obj
  try {
    obj = JSON.parse(s)
  } catch {
    if (s.trim() === '') counters.blankLines++
    else counters.invalidLines++
    return
  }
  onRecord(obj)
}

function processFile(file) {
  return new Promise((resolve, reject) => {
    let pending = [] // pieces of a line that spans chunks
    let first = true
    const stream = fs.createReadStream(file, { highWaterMark: 1 << 20 })
    stream.on('data', (chunk) => {
      counters.bytes += chunk.length
      let start = 0
      let nl = chunk.indexOf(NL, start)
      while (nl !== -1) {
        let line
        if (pending.length !== 0) {
          pending.push(chunk.subarray(start, nl))
          line = Buffer.concat(pending)
          pending = []
        } else {
          line = chunk.subarray(start, nl)
        }
        onLine(line, first)
        first = false
        start = nl + 1
        nl = chunk.indexOf(NL, start)
      }
      if (start < chunk.length) pending.push(chunk.subarray(start))
    })
    stream.on('error', reject)
    stream.on('end', () => {
      if (pending.length !== 0) onLine(Buffer.concat(pending), first) // torn last line
      resolve()
    })
  })
}

async function main() {
  const args = process.argv.slice(2).filter((a) => a !== '--ccusage-compat')
  if (args.length === 0 || args.includes('--help') || args.includes('-h')) {
    process.stderr.write('usage: node benches/js-baseline.mjs PROJECTS_DIR_OR_FILE...\n')
    process.exit(args.length === 0 ? 2 : 0)
  }
  const files = []
  for (const a of args) {
    try {
      walk(path.resolve(a), files)
    } catch (e) {
      process.stderr.write(`js-baseline: ${a}: ${e.message}\n`)
      process.exit(2)
    }
  }
  const sorted = [...new Set(files)].sort()
  counters.files = sorted.length
  for (const f of sorted) {
    currentFile = f
    await processFile(f)
  }

  const totals = { requests: 0, inputTokens: 0, cacheCreationInputTokens: 0, cacheReadInputTokens: 0, outputTokens: 0 }
  let sidechainReplaysDropped = 0
  for (const g of groups.values()) {
    if (g.allSide && g.msgIds.some((id) => mainMsgIds.has(id))) {
      sidechainReplaysDropped++
      continue
    }
    totals.requests++
    totals.inputTokens += g.inp
    totals.cacheCreationInputTokens += g.cc
    totals.cacheReadInputTokens += g.cr
    totals.outputTokens += g.out
  }
  process.stdout.write(
    JSON.stringify({ totals, ...counters, sidechainReplaysDropped, ...(COMPAT ? { mode: 'ccusage-compat' } : {}) }) +
      '\n',
  )
}

main().catch((e) => {
  process.stderr.write(`js-baseline: ${e && e.stack ? e.stack : e}\n`)
  process.exit(1)
})
