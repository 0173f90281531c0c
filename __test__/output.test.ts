// The command line writes its output to the descriptors synchronously (terminal/output.cts): a
// reader that closes early must still end the command with success, a non-blocking pipe that
// fills must still get the whole output in order, and a small command must not load Node's stream,
// crypto, perf_hooks, worker or child-process modules to print a table or a notice.
import test from 'ava'
import { spawn, spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { CLI, assistant, userText, writeTree } from './helpers/transcripts.js'

const SESSION = '0e6b3a52-1c1f-4d6e-8a57-2f1c9d3b7a10'

/** An estate whose one session prints a few MB as text: more than any pipe holds. */
function bigEstate(): string {
  const words = Array.from({ length: 400_000 }, (_, i) => `word${i}`).join(' ')
  const lines = [userText(`question: ${words}`, 'h1'), assistant({ messageId: 'm1', output: 10, parent: 'h1' })]
  return join(writeTree({ [`projects/-home-u-app/${SESSION}.jsonl`]: lines }), 'projects')
}

function exitOf(child: ReturnType<typeof spawn>): Promise<{ code: number | null; stderr: string; stdout: string }> {
  let stderr = ''
  let stdout = ''
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()))
  child.stdout?.on('data', (d: Buffer) => (stdout += d.toString()))
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stderr, stdout })))
}

test('a reader that closes stdout early ends the command with success and no message', async (t) => {
  const projects = bigEstate()
  const child = spawn(process.execPath, [CLI, 'show', '--projects', projects, SESSION], { stdio: 'pipe' })
  child.stdout.once('data', () => child.stdout.destroy())
  const r = await exitOf(child)
  t.is(r.code, 0)
  t.is(r.stderr, '')
})

test('a full non-blocking stdout still gets the whole output, in order', async (t) => {
  const projects = bigEstate()
  const args = [CLI, 'show', '--projects', projects, SESSION]
  const whole = spawnSync(process.execPath, args, { encoding: 'utf8', maxBuffer: 1 << 28 })
  t.is(whole.status, 0, whole.stderr)
  t.true(whole.stdout.length > 1 << 20)
  // Python makes the child's end of the pipe non-blocking, then becomes the command; the test
  // reads nothing for a while, so that the pipe fills and a write meets EAGAIN.
  const wrapper = 'import os, sys; os.set_blocking(1, False); os.execv(sys.argv[1], sys.argv[1:])'
  const child = spawn('python3', ['-c', wrapper, process.execPath, ...args], { stdio: 'pipe' })
  child.stdout.pause()
  setTimeout(() => child.stdout.resume(), 400)
  const r = await exitOf(child)
  t.is(r.code, 0, r.stderr)
  t.is(r.stdout.length, whole.stdout.length)
  t.true(r.stdout === whole.stdout, 'the same output, byte for byte')
})

// Each of these modules costs a small command a millisecond or more of start-up. (A command's
// help loads every module the command imports: what their top levels load shows there.)
test('stats, sessions, find and show on an empty estate, and export and hook, load none of the stream, crypto, perf_hooks, worker or child-process modules node -e 0 does not', (t) => {
  const projects = join(writeTree({ 'projects/.keep': '' }), 'projects')
  const report = `process.on('exit', () => require('node:fs').writeSync(2, '\\n' + JSON.stringify(process.moduleLoadList)));`
  const loaded = (r: { stderr: string }) => JSON.parse(r.stderr.trim().split('\n').at(-1)!) as string[]
  const bare = new Set(loaded(spawnSync(process.execPath, ['-e', report], { encoding: 'utf8' })))
  const cases: Array<[string[], number]> = [
    [['stats', '--projects', projects], 0],
    [['stats', '--json', '--projects', projects], 0],
    [['sessions', '--projects', projects], 0],
    [['find', 'word', '--projects', projects], 0],
    [['show', '0123abcd', '--projects', projects], 3],
    [['timeline', '0123abcd', '--projects', projects], 3],
    [['export', '--help'], 0],
    [['hook', '--help'], 0],
  ]
  for (const [args, status] of cases) {
    const probe = `${report}require(${JSON.stringify(CLI)})`
    const r = spawnSync(process.execPath, ['-e', probe, 'x', ...args], { encoding: 'utf8' })
    t.is(r.status, status, `${args.join(' ')}: ${r.stderr}`)
    t.true(r.stdout.length > 0 || status !== 0, `${args.join(' ')} printed its report`)
    const heavy = loaded(r).filter((m) => /stream|crypto|perf|worker|child_process/.test(m) && !bare.has(m))
    t.deepEqual(heavy, [], `${args.join(' ')} loaded these`)
  }
})
