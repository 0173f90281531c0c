import test from 'ava'

import { createProgress, renderLine, withProgress } from '../src-ts/terminal/progress.js'

interface FakeStream {
  isTTY: boolean
  columns?: number
  chunks: string[]
  write(chunk: string): boolean
}

function fakeStream(isTTY: boolean, columns = 80): FakeStream {
  const chunks: string[] = []
  return {
    isTTY,
    columns,
    chunks,
    write(chunk: string): boolean {
      chunks.push(String(chunk))
      return true
    },
  }
}
const asStream = (s: FakeStream): NodeJS.WriteStream => s as unknown as NodeJS.WriteStream
const strip = (s: string): string => s.replace(/\u001b\[[0-9;]*[A-Za-z]/g, '').replace(/\r/g, '')

const STATE = { bytesDone: 5_000_000, bytesTotal: 10_000_000, filesDone: 3, filesTotal: 7 }

test('writes nothing to a non-TTY stream', (t) => {
  const s = fakeStream(false)
  const p = createProgress(asStream(s))
  p.update(STATE)
  p.update({ ...STATE, bytesDone: 10_000_000, filesDone: 7 })
  p.done()
  t.deepEqual(s.chunks, [])
})

test('writes nothing when isTTY is missing', (t) => {
  const s = fakeStream(false)
  delete (s as Partial<FakeStream>).isTTY
  const p = createProgress(asStream(s))
  p.update(STATE)
  p.done()
  t.deepEqual(s.chunks, [])
})

test('draws a bar with percent, bytes, files and rate on a TTY', (t) => {
  const s = fakeStream(true, 100)
  let clock = 0
  const p = createProgress(asStream(s), { now: () => clock })
  clock = 2000 // 5 MB in 2 s
  p.update(STATE)
  t.is(s.chunks.length, 1)
  const chunk = s.chunks[0]!
  t.true(chunk.startsWith('\r'), 'redraws from column 0')
  const line = strip(chunk)
  t.regex(line, /^ 50% \[#+-+\] /)
  t.true(line.includes('5.0 MB/10.0 MB'), line)
  t.true(line.includes('3/7 files'), line)
  t.true(line.includes('2.5 MB/s'), line)
  t.false(line.includes('\n'))
  t.true(line.length <= 99, `fits in ${100} columns: ${line.length}`)
  p.done()
})

test('throttles redraws to one per 80 ms and draws the latest state later', async (t) => {
  const s = fakeStream(true)
  let clock = 1000
  const p = createProgress(asStream(s), { now: () => clock })
  p.update({ ...STATE, filesDone: 1 })
  clock += 10
  p.update({ ...STATE, filesDone: 2 })
  clock += 10
  p.update({ ...STATE, filesDone: 3 })
  t.is(s.chunks.length, 1, 'second and third updates within 80 ms are not drawn immediately')
  clock += 100
  p.update({ ...STATE, filesDone: 4 })
  t.is(s.chunks.length, 2)
  t.true(strip(s.chunks[1]!).includes('4/7 files'))

  // A throttled update is drawn by a trailing timer.
  clock += 1
  p.update({ ...STATE, filesDone: 5 })
  t.is(s.chunks.length, 2)
  clock += 200
  await new Promise((resolve) => setTimeout(resolve, 150))
  t.is(s.chunks.length, 3)
  t.true(strip(s.chunks[2]!).includes('5/7 files'))
  p.done()
})

test('done() clears the line and later updates are ignored', (t) => {
  const s = fakeStream(true)
  let clock = 0
  const p = createProgress(asStream(s), { now: () => clock })
  p.update(STATE)
  p.done()
  const last = s.chunks.at(-1)!
  t.is(last, '\r\u001b[2K')
  const n = s.chunks.length
  clock += 1000
  p.update(STATE)
  p.done()
  t.is(s.chunks.length, n)
})

test('done() without any update writes nothing', (t) => {
  const s = fakeStream(true)
  createProgress(asStream(s)).done()
  t.deepEqual(s.chunks, [])
})

test('renderLine fits narrow terminals and handles zero totals', (t) => {
  const narrow = renderLine(STATE, 1, 30)
  t.true(narrow.length <= 29, narrow)
  t.true(narrow.startsWith(' 50%'))
  const empty = renderLine({ bytesDone: 0, bytesTotal: 0, filesDone: 0, filesTotal: 0 }, 0, 80)
  t.regex(empty, /^ {2}0% \[-+\] 0 B\/0 B {2}0\/0 files$/)
  const over = renderLine({ bytesDone: 20, bytesTotal: 10, filesDone: 1, filesTotal: 1 }, 1, 80)
  t.true(over.startsWith('100% [#'), over)
})

test('withProgress draws while the work runs and clears the line when it ends or fails', async (t) => {
  const s = fakeStream(true)
  t.is(
    await withProgress(async (onProgress) => {
      onProgress(STATE)
      return 42
    }, asStream(s)),
    42,
  )
  t.regex(s.chunks.join(''), /50%/)
  t.is(s.chunks.at(-1), '\r\u001b[2K')
  const failing = fakeStream(true)
  await t.throwsAsync(
    withProgress(async (onProgress) => {
      onProgress(STATE)
      throw new Error('scan failed')
    }, asStream(failing)),
    { message: 'scan failed' },
  )
  t.is(failing.chunks.at(-1), '\r\u001b[2K')
})
