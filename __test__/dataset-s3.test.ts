// The team dataset in S3-compatible object storage: moto's server on 127.0.0.1 stands for S3.
// Export into a bucket, read it back (stats --dataset, query), re-run incrementally, and the
// storage failures a team meets: no such bucket, an endpoint that does not answer.
import test from 'ava'
import { spawn } from 'node:child_process'
import { hostname } from 'node:os'
import { join } from 'node:path'
import { stats } from '../src-ts/read/stats.js'
import { CLI, REPO, tempDir } from './helpers/transcripts.js'
import { motoMissing, startMoto } from './helpers/moto-server.js'

function cli(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    let err = ''
    child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c))
    child.stderr.setEncoding('utf8').on('data', (c: string) => (err += c))
    child.on('exit', (code) => resolve({ code, out, err }))
  })
}

test('export into s3://bucket/prefix (moto on 127.0.0.1), read back to the cent, incremental, storage failures in one line', async (t) => {
  const missing = motoMissing()
  if (missing) return t.log(`SKIPPED: ${missing}`)
  const moto = await startMoto()
  t.teardown(() => moto.stop())
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true' // the SDK's notice about newer Node
  const { S3Client, CreateBucketCommand } = await import('@aws-sdk/client-s3')
  const client = new S3Client({
    endpoint: moto.endpoint,
    forcePathStyle: true,
    region: 'us-east-1',
    credentials: { accessKeyId: 'testing', secretAccessKey: 'testing' },
  })
  await client.send(new CreateBucketCommand({ Bucket: 'team-usage' }))

  const { generateEstate } = await import(join(REPO, 'fixtures', 'generate.mjs'))
  const dir = tempDir('cj-s3-estate-')
  generateEstate({ out: dir, sessions: 5, targetMb: 2, seed: 's3' })
  const projects = join(dir, 'projects')
  const env = { ...moto.env, XDG_CACHE_HOME: tempDir('cj-s3-cache-') }

  const exp = await cli(
    ['export', '--projects', projects, '--to', 's3://team-usage/claude', '--machine', 'dev1', '--json'],
    env,
  )
  t.is(exp.code, 0, exp.err)
  t.is(exp.err, '', 'nothing on stderr (no SDK notice either)')
  const report = JSON.parse(exp.out)
  t.true(report.tables.find((x: { table: string }) => x.table === 'requests').written > 0)
  const expected = await stats({ projects })
  const s = await cli(['stats', '--dataset', 's3://team-usage/claude', '--json'], env)
  t.is(s.code, 0, s.err)
  const team = JSON.parse(s.out)
  t.is(team.totals.requests, expected.totals.requests)
  t.is(team.totals.outputTokens, expected.totals.outputTokens)
  t.true(Math.abs(team.totals.costUsd - expected.totals.costUsd) < 1e-9 * Math.max(1, expected.totals.costUsd))
  const q = await cli(
    [
      'query',
      "SELECT count(*)::DOUBLE FROM requests WHERE machine = 'dev1'",
      '--dataset',
      's3://team-usage/claude',
      '--json',
    ],
    env,
  )
  t.is(q.code, 0, q.err)
  t.deepEqual(JSON.parse(q.out).rows, [[expected.totals.requests]])

  const again = await cli(
    ['export', '--projects', projects, '--to', 's3://team-usage/claude', '--machine', 'dev1', '--json'],
    env,
  )
  t.is(again.code, 0, again.err)
  t.true(
    JSON.parse(again.out).tables.every((x: { written: number }) => x.written === 0),
    'a re-run writes nothing',
  )

  // The machine's lock: written only where there is none (a conditional PutObject), so a live
  // holder's lock makes a second export give up; a finished export leaves none.
  const { PutObjectCommand, DeleteObjectCommand, ListObjectsV2Command } = await import('@aws-sdk/client-s3')
  const lockKey = 'claude/_claude_jsonl/locks/dev1.lock'
  const locks = async () =>
    (await client.send(new ListObjectsV2Command({ Bucket: 'team-usage', Prefix: 'claude/_claude_jsonl/locks/' })))
      .KeyCount ?? 0
  t.is(await locks(), 0, 'the exports released their lock')
  const holder = JSON.stringify({ host: hostname(), pid: process.pid, start: '0', since: new Date().toISOString() })
  await client.send(new PutObjectCommand({ Bucket: 'team-usage', Key: lockKey, Body: holder }))
  const held = await cli(['export', '--projects', projects, '--to', 's3://team-usage/claude', '--machine', 'dev1'], {
    ...env,
    CLAUDE_JSONL_DATASET_LOCK_WAIT_MS: '0',
  })
  t.is(held.code, 3, held.err)
  t.regex(
    held.err,
    /^claude-jsonl: s3:\/\/team-usage\/claude: another export of machine 'dev1' is running \(pid \d+ on /m,
  )
  t.is(held.err.trim().split('\n').length, 1, held.err)
  await client.send(new DeleteObjectCommand({ Bucket: 'team-usage', Key: lockKey }))

  const noBucket = await cli(['export', '--projects', projects, '--to', 's3://no-such-bucket/x'], env)
  t.is(noBucket.code, 3)
  t.regex(noBucket.err, /^claude-jsonl: s3:\/\/no-such-bucket\/x: cannot open the bucket: the bucket does not exist$/m)
  const down = await cli(['stats', '--dataset', 's3://team-usage/claude'], {
    ...env,
    AWS_ENDPOINT_URL: 'http://127.0.0.1:9',
  })
  t.is(down.code, 3)
  t.regex(down.err, /cannot open the bucket: the endpoint cannot be reached/)
  await moto.requireAuth()
  const denied = await cli(['export', '--projects', projects, '--to', 's3://team-usage/claude', '--machine', 'dev1'], {
    ...env,
    AWS_ACCESS_KEY_ID: 'AKIAWRONGWRONGWRONG0',
    AWS_SECRET_ACCESS_KEY: 'wrong',
  })
  t.is(denied.code, 3)
  t.regex(
    denied.err,
    /^claude-jsonl: s3:\/\/team-usage\/claude: cannot open the bucket: access denied \(check the credentials/m,
  )
  t.notRegex(down.err + noBucket.err + denied.err, /\n\s+at /, 'no stack trace')
  for (const r of [noBucket, down, denied]) t.is(r.err.trim().split('\n').length, 1, r.err)
})
