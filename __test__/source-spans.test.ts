// compress holds only the source spans it reads (the peak RSS target: under 3x the file): the buffer's pages
// are released after the plan and each pass loads what it reads from the file. These tests check
// that the loads restore exactly the file's bytes, that a changed file is refused, and that a
// compression through the spans writes the same candidate as one that keeps the whole buffer.
import test from 'ava'
import { appendFileSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import native from '../src-ts/native.js'
import { compress, compressWith } from '../src-ts/compress/compress.js'
import type { Summarizer } from '../src-ts/compress/summarizer-contract.js'
import { summarizerFor } from '../src-ts/compress/summary-source.js'
import { FileSpans } from '../src-ts/compress/source-spans.js'
import { ClaudeJsonlError } from '../src-ts/errors.js'
import { Transcript } from './helpers/resume-fixtures.js'
import { tempDir } from './helpers/transcripts.js'

/** A one-chain session of about 1 MB: prompts, calls and long results, so it spans many pages. */
function longSession(turns = 120): Buffer {
  const t = new Transcript()
  let parent: string | null = null
  for (let k = 0; k < turns; k++) {
    const words = Array.from({ length: 900 }, (_, i) => `w${(i * 7 + k) % 97}`).join(' ')
    t.user(`U${k}`, parent, `U${k}: run step ${k}; we must keep the output small`)
      .call(`C${k}`, `U${k}`, `toolu_${k}`)
      .result(`R${k}`, `C${k}`, `toolu_${k}`, k % 9 === 4 ? `Exit code 1\nerror: step ${k} failed\n${words}` : words)
      .text(`A${k}`, `R${k}`, `A${k}: step ${k} is done, I decided to keep going because the output is fine`)
    parent = `A${k}`
  }
  t.lastPrompt()
  return t.bytes()
}

test('released spans read back as the file after load, and only what was loaded', (t) => {
  const dir = tempDir()
  const path = join(dir, 'long.jsonl')
  writeFileSync(path, longSession())
  const buffer = readFileSync(path)
  const original = Buffer.from(buffer)
  const index = native.scanBuffer(buffer, 'full')
  const spans = new FileSpans(path, statSync(path, { bigint: true }), buffer, index)
  try {
    spans.release()
    const released = process.platform === 'linux'
    if (released) t.false(buffer.equals(original), 'on Linux the pages are given back (they read as zeros)')
    const records = [3, 4, 5, 200, index.length - 1]
    spans.load(records)
    const offsets = index.offsets()
    const lengths = index.lengths()
    for (const i of records) {
      const [a, b] = [offsets[i], offsets[i] + lengths[i]]
      t.true(buffer.subarray(a, b).equals(original.subarray(a, b)), `record ${i} is restored`)
    }
    spans.load(Array.from({ length: index.length }, (_, i) => i))
    const end = offsets[index.length - 1] + lengths[index.length - 1]
    t.true(
      buffer.subarray(0, end).equals(original.subarray(0, end)),
      'loading every record restores the file (neighbours are read in one run)',
    )
  } finally {
    spans.close()
  }
})

test('a source changed after it was planned is refused when spans are loaded', (t) => {
  const dir = tempDir()
  const path = join(dir, 'long.jsonl')
  writeFileSync(path, longSession(20))
  const buffer = readFileSync(path)
  const index = native.scanBuffer(buffer, 'full')
  const spans = new FileSpans(path, statSync(path, { bigint: true }), buffer, index)
  appendFileSync(path, '{"type":"user"}\n')
  try {
    spans.release()
    // Elsewhere nothing is released and nothing is read again: compress's final check refuses it.
    if (process.platform !== 'linux') return t.pass()
    const e = t.throws(() => spans.load([0]))
    t.true(e instanceof ClaudeJsonlError)
    t.regex(e!.message, /changed during the run/)
  } finally {
    spans.close()
  }
})

test('compress through the spans writes the same candidate as with the whole buffer kept', async (t) => {
  const dir = tempDir()
  const path = join(dir, 'long.jsonl')
  writeFileSync(path, longSession())
  const deterministic = summarizerFor({})
  t.true(deterministic.readsThroughSpans, 'the deterministic summariser reads through the spans')
  // The same summariser without the declaration: compress keeps the whole buffer for it.
  const whole: Summarizer = (req) => deterministic({ ...req, spans: undefined })
  const viaSpans = await compress(path, join(dir, 'spans.jsonl'), { report: false })
  const viaWhole = await compressWith(path, join(dir, 'whole.jsonl'), whole, { report: false })
  const normalised = (file: string, r: { boundaryUuid: string; summaryUuid: string }) =>
    readFileSync(join(dir, file), 'utf8')
      .split(r.boundaryUuid)
      .join('<boundary>')
      .split(r.summaryUuid)
      .join('<summary>')
  t.true(viaSpans.summarizedRecords > 100)
  t.is(viaSpans.summaryChars, viaWhole.summaryChars)
  t.is(normalised('spans.jsonl', viaSpans), normalised('whole.jsonl', viaWhole))
})
