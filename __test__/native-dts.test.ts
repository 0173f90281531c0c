import test from 'ava'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { REPO } from './helpers/transcripts.js'

test('native.d.cts is what the napi CLI generates from the binding as built', async (t) => {
  // npm test builds the addon first, which leaves napi-derive's type definitions behind
  const { renderNativeDts, dtsPath } = await import(pathToFileURL(join(REPO, 'scripts', 'native-dts.mjs')).href)
  const fresh: string = await renderNativeDts()
  const committed = readFileSync(dtsPath, 'utf8')
  t.true(committed === fresh, 'native.d.cts is stale: run `npm run build:dts` and commit it')
})
