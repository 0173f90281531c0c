import test from 'ava'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import native from '../src-ts/native.js'
import { ClaudeJsonlError, EXIT, fromNative, nativeFailure } from '../src-ts/errors.js'
import { REPO } from './helpers/transcripts.js'

test('docs/api.md lists exactly the codes native failures carry', (t) => {
  const api = readFileSync(join(REPO, 'docs', 'api.md'), 'utf8')
  const section = api.slice(api.indexOf('## Native error codes'))
  const documented = [...section.matchAll(/^\| `([a-z-]+)` /gm)].map((m) => m[1]).sort()
  t.deepEqual(documented, [...native.nativeErrorCodes()].sort())
})

test('a native failure carries its code and path as data, and maps to the exit code once', async (t) => {
  const missing = join(REPO, 'no-such-dir', 'x.jsonl')
  const e = await t.throwsAsync(native.scanFile(missing))
  t.deepEqual(nativeFailure(e), { code: 'io', path: missing, message: `${missing}: no such file or directory` })
  const mapped = fromNative(e, 'other') as ClaudeJsonlError
  t.true(mapped instanceof ClaudeJsonlError)
  t.is(mapped.exitCode, EXIT.input)
  t.is(mapped.path, missing)
  t.is(mapped.message, e!.message)
  t.is(mapped.code, 'io', 'the native code stays on the error, as a field')

  const usage = t.throws(() => native.checkPlanOptions({ targetRatio: 2 }))
  t.is(nativeFailure(usage)?.code, 'usage')
  t.is((fromNative(usage) as ClaudeJsonlError).exitCode, EXIT.usage)
  t.is((fromNative(usage) as ClaudeJsonlError).code, 'usage')

  // a misuse of the binding stays what it is (the CLI reports it as an internal error)
  const index = native.scanBuffer(Buffer.from('{"type":"user","uuid":"a"}\n'))
  const misuse = t.throws(() => native.recordLinks(index, new Uint32Array([5])))
  t.is(nativeFailure(misuse)?.code, 'invalid-argument')
  t.is(fromNative(misuse), misuse)
  t.is(nativeFailure(new Error('plain')), undefined)
})
