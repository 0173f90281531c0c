import test from 'ava'
import { spawnSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import native from '../src-ts/native.js'
import { REPO, tempDir } from './helpers/transcripts.js'

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

test('the SIGBUS guard leaves other SIGBUS signals their default action', (t) => {
  if (process.platform !== 'linux') return t.pass()
  const dir = tempDir('cj-mapped-kill-')
  const path = join(dir, 'f.jsonl')
  writeFileSync(path, 'x'.repeat(100_000))
  // The child maps a file (which installs the guard), then is sent SIGBUS by kill: it must
  // still end by that signal, not carry on.
  const script = `const n = require(${JSON.stringify(join(REPO, 'native.cjs'))}); const m = n.mapFile(${JSON.stringify(path)}); if (!m) process.exit(3); process.kill(process.pid, 'SIGBUS'); setTimeout(() => process.exit(0), 2000)`
  const r = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' })
  t.is(r.signal, 'SIGBUS', `status ${r.status} ${r.stderr}`)
})
