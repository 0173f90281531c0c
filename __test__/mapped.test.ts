import test from 'ava'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import native from '../src-ts/native.js'
import { tempDir } from './helpers/transcripts.js'

test('a mapped file reads as the file, before and after its pages are released', (t) => {
  const dir = tempDir('cj-mapped-')
  const path = join(dir, 'f.jsonl')
  const bytes = Buffer.alloc(1 << 20)
  for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 7) % 251
  writeFileSync(path, bytes)
  const m = native.mapFile(path)
  if (process.platform !== 'linux') {
    t.is(m, null)
    return
  }
  t.truthy(m)
  t.true(m!.equals(bytes))
  const part = native.releaseMapped(m!, 100_000, 700_000)
  t.true(part > 0 && part % 65536 === 0 && part <= 600_000, `${part}`)
  t.is(native.releaseMapped(m!, 10, 20), 0, 'nothing whole inside a tiny range')
  t.is(native.releaseMapped(m!), bytes.length)
  t.true(m!.equals(bytes), 'released pages read again from the file')
  t.true(native.mappedIntact(m!))
  // Buffers that are not mappings are left alone.
  t.is(native.releaseMapped(Buffer.from(bytes)), 0)
  t.true(native.mappedIntact(Buffer.from('x')))
  writeFileSync(join(dir, 'empty'), '')
  t.is(native.mapFile(join(dir, 'empty')), null)
  t.is(native.mapFile(join(dir, 'missing')), null)
})
