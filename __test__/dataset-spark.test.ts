// A distributed engine reads the dataset unchanged: Apache Spark (pyspark, local mode on this
// machine's Java, bound to 127.0.0.1) over the dataset a simulated team of three machines
// exported, against stats over each machine's estate summed, to the token and the cent.
import test from 'ava'
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { exportDataset } from '../src-ts/dataset/export.js'
import { FolderDestination } from '../src-ts/dataset/destination.js'
import { stats } from '../src-ts/read/stats.js'
import { REPO, tempDir } from './helpers/transcripts.js'
import { refuseInQuick } from './helpers/quick.js'

const SCRIPT = join(REPO, '__test__', 'helpers', 'spark-totals.py')

function sparkMissing(): string | undefined {
  const py = spawnSync('python3', ['-c', 'import pyspark'], { encoding: 'utf8' })
  if (py.status !== 0) return 'pyspark is not installed (pip install pyspark)'
  const java = spawnSync('java', ['-version'], { encoding: 'utf8' })
  if (java.status !== 0) return 'no java on PATH (Spark needs Java 17 or later)'
  return undefined
}

test('Spark reads the exported dataset of three machines as it is and gets the totals stats gets', async (t) => {
  const missing = sparkMissing()
  if (missing) return t.log(`SKIPPED: ${missing}`)
  const { generateEstate } = await import(join(REPO, 'fixtures', 'generate.mjs'))
  const root = join(tempDir('cj-spark-'), 'team')
  const dest = new FolderDestination(root).open()
  // The token sums Spark is asked for, by their names in `stats`' totals.
  const tokens = [
    'requests',
    'inputTokens',
    'outputTokens',
    'cacheCreationInputTokens',
    'cacheReadInputTokens',
  ] as const
  const want = { ...Object.fromEntries(tokens.map((k) => [k, 0])), costUsd: 0 } as Record<
    (typeof tokens)[number] | 'costUsd',
    number
  >
  const byMachine: Record<string, number> = {}
  const tools: Record<string, number> = {}
  let sessions = 0
  for (const machine of ['alice', 'bob', 'carol']) {
    const dir = tempDir('cj-spark-estate-')
    generateEstate({ out: dir, sessions: 4, targetMb: 2, seed: `spark-${machine}` })
    const projects = join(dir, 'projects')
    await exportDataset(dest, { projects, machine })
    const s = await stats({ projects })
    for (const k of Object.keys(want) as (keyof typeof want)[]) want[k] += s.totals[k]
    byMachine[machine] = s.totals.requests
    for (const x of s.tools) tools[x.name] = (tools[x.name] ?? 0) + x.calls
    sessions += s.scope.sessions
  }
  refuseInQuick('Spark')
  const r = spawnSync('python3', [SCRIPT, root], {
    encoding: 'utf8',
    timeout: 240_000,
    env: { ...process.env, SPARK_LOCAL_IP: '127.0.0.1', PYSPARK_PYTHON: 'python3' },
  })
  t.is(r.status, 0, r.stderr.split('\n').slice(-15).join('\n'))
  const got = JSON.parse(r.stdout.trim().split('\n').pop()!)
  for (const k of tokens) t.is(got[k], want[k], k)
  t.true(Math.abs(got.costUsd - want.costUsd) < 0.005, `cost ${got.costUsd} vs ${want.costUsd}`)
  t.is(got.machines, 3)
  t.deepEqual(got.byMachine, byMachine)
  t.deepEqual(got.tools, tools, 'tool_calls: the calls stats counts per tool')
  t.is(got.sessions, sessions)
})
