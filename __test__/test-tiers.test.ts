// The quick run's tiers: what it leaves out names real test files, and a helper that would start
// the client, a browser, Spark or an S3 server refuses to in the quick run.
import test from 'ava'
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { REPO } from './helpers/transcripts.js'

test('every file the quick run leaves out is a test file', async (t) => {
  const { NOT_QUICK } = (await import(pathToFileURL(join(REPO, 'scripts', 'test-tiers.mjs')).href)) as {
    NOT_QUICK: string[]
  }
  for (const name of NOT_QUICK) t.true(existsSync(join(REPO, '__test__', `${name}.test.ts`)), name)
})

test('the longest files start first, in their listed order, and the rest follow by name', async (t) => {
  const { LONGEST_FIRST, longestFirst } = (await import(
    pathToFileURL(join(REPO, 'scripts', 'test-tiers.mjs')).href
  )) as {
    LONGEST_FIRST: string[]
    longestFirst: (a: string, b: string) => number
  }
  for (const name of LONGEST_FIRST) t.true(existsSync(join(REPO, '__test__', `${name}.test.ts`)), name)
  const file = (name: string) => join(REPO, 'dist', '__test__', `${name}.test.js`)
  const sorted = ['a-short', 'z-short', ...[...LONGEST_FIRST].reverse()].map(file).sort(longestFirst)
  t.deepEqual(sorted, [...LONGEST_FIRST, 'a-short', 'z-short'].map(file))
  // ava reads the order from its config file
  const config = (await import(pathToFileURL(join(REPO, 'ava.config.js')).href)).default
  t.is(config.sortTestFiles, longestFirst)
})

test('in the quick run, the client helper refuses to start the client and says how to mark the test', (t) => {
  const helper = pathToFileURL(join(REPO, 'dist', '__test__', 'helpers', 'claude-client.js')).href
  const r = spawnSync(
    process.execPath,
    ['--input-type=module', '-e', `import(${JSON.stringify(helper)}).then((m) => m.ensureClaudeClient())`],
    { encoding: 'utf8', env: { ...process.env, CLAUDE_JSONL_TEST_QUICK: '1' } },
  )
  t.not(r.status, 0)
  t.regex(r.stderr, /npm run test:quick starts no Claude Code client: list the test file in scripts\/test-tiers\.mjs/)
})
