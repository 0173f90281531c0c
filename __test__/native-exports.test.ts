import test from 'ava'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import native from '../src-ts/native.js'
import { REPO } from './helpers/transcripts.js'

test('native.d.cts declares exactly what the addon exports', (t) => {
  const dts = readFileSync(join(REPO, 'native.d.cts'), 'utf8')
  // functions, classes and constants, and the string enums (a type to TypeScript, an object at run time)
  const declared = [...dts.matchAll(/^export (?:declare (?:function|class|const)|type) (\w+)/gm)]
    .map((m) => m[1])
    .sort()
  t.deepEqual(Object.keys(native).sort(), declared)
})

test('a native misuse is a thrown error, not a crash', (t) => {
  // @ts-expect-error: deliberately wrong mode
  t.throws(() => native.scanBuffer(Buffer.from('{}\n'), 'everything'), { message: /unknown scan mode 'everything'/ })
})
