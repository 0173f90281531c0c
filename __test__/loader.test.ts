import test from 'ava'
import { spawnSync } from 'node:child_process'
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'

const require = createRequire(import.meta.url)
// dist/__test__/loader.test.js -> <root>/native.cjs
const loaderPath = require.resolve('../../native.cjs')

test('native.cjs loads the binding and it exposes version()', (t) => {
  const binding = require(loaderPath)
  t.is(typeof binding.version, 'function')
  const v: unknown = binding.version()
  t.is(typeof v, 'string')
  t.true((v as string).length > 0)
})

test('when nothing loads, the error names the package, the .node path and how to build', (t) => {
  // A copy of the loader alone in a temp dir: no .node beside it and no node_modules above it,
  // so the env override, the platform package and the local file all fail.
  const dir = mkdtempSync(join(tmpdir(), 'claude-jsonl-loader-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const loader = join(dir, 'native.cjs')
  copyFileSync(loaderPath, loader)
  copyFileSync(join(dirname(loaderPath), 'platform.cjs'), join(dir, 'platform.cjs'))
  const missing = join(dir, 'does-not-exist.node')

  const script = `
    try {
      require(process.env.LOADER_UNDER_TEST)
      process.exit(0)
    } catch (err) {
      const causes = Array.isArray(err.cause) ? err.cause.map((e) => e.message) : []
      process.stdout.write(JSON.stringify({ message: err.message, causes }))
      process.exit(3)
    }`
  const child = spawnSync(process.execPath, ['-e', script], {
    cwd: dir,
    encoding: 'utf8',
    env: { ...process.env, LOADER_UNDER_TEST: loader, NAPI_RS_NATIVE_LIBRARY_PATH: missing, NODE_PATH: '' },
  })
  t.is(child.status, 3, `child should fail to load; stderr: ${child.stderr}`)
  const { message, causes } = JSON.parse(child.stdout) as { message: string; causes: string[] }

  const pkg = message.match(new RegExp(`claude-jsonl-(${process.platform}-${process.arch}[a-z0-9-]*)`))
  t.truthy(pkg, `message should name the platform package: ${message}`)
  const abi = pkg![1]
  t.true(message.includes(abi), 'names the platform')
  t.true(message.includes(join(dir, `claude-jsonl.${abi}.node`)), `names the .node path: ${message}`)
  t.true(message.includes('npm run build:native'), 'says how to build')
  t.true(message.includes(missing), 'mentions the NAPI_RS_NATIVE_LIBRARY_PATH it tried')

  // every candidate was tried, the env override first
  t.is(causes.length, 3)
  t.true(causes[0].includes(missing))
  t.true(causes[1].includes(`claude-jsonl-${abi}`))
  t.true(causes[2].includes(`claude-jsonl.${abi}.node`))
})
