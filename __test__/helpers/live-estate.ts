// A throw-away Claude config folder holding one session under projects/, for the in-place
// commands, and the CLI run against it (synchronously, or as a child a test can stop and kill).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { copyFileSync, mkdirSync, readdirSync, readFileSync, utimesSync } from 'node:fs'
import { basename, join } from 'node:path'
import { CLI, REAL, tempDir } from './transcripts.js'

export interface LiveEstate {
  root: string
  config: string
  project: string
  session: string
  target: string
  work: string
  original: Buffer
  env: NodeJS.ProcessEnv
}

/** real-01 (a real transcript that compresses with the default options) as a session in a
 * fresh config folder; its mtime is set in the past so the stability window passes. */
export function liveEstate(source = join(REAL, 'real-01.jsonl'), session?: string): LiveEstate {
  const root = tempDir('cj-inplace-')
  const config = join(root, 'home', '.claude')
  const project = join(config, 'projects', '-tmp-project')
  mkdirSync(project, { recursive: true })
  const id = session ?? sessionOf(readFileSync(source))
  const target = join(project, `${id}.jsonl`)
  copyFileSync(source, target)
  const past = new Date(Date.now() - 60_000)
  utimesSync(target, past, past)
  const work = join(root, 'work')
  const env: NodeJS.ProcessEnv = { ...process.env, CLAUDE_CONFIG_DIR: config, HOME: join(root, 'home') }
  for (const k of ['CLAUDE_JSONL_FAULT_STOP', 'CLAUDE_JSONL_FAULT_ERRNO', 'CLAUDE_JSONL_NO_EXCHANGE']) delete env[k]
  return { root, config, project, session: id, target, work, original: readFileSync(target), env }
}

export function sessionOf(bytes: Buffer): string {
  const m = /"sessionId":"([0-9a-f-]{36})"/.exec(bytes.toString('utf8'))
  if (!m) throw new Error('no sessionId in the transcript')
  return m[1]
}

export function inPlaceArgs(e: LiveEstate, command = 'compress'): string[] {
  return [command, e.target, '--in-place', '--work-dir', e.work, '--confirm-session-closed', '--stable-for', '0']
}

export function cli(args: string[], env: NodeJS.ProcessEnv) {
  const r = spawnSync(process.execPath, [CLI, ...args], { env, encoding: 'utf8', timeout: 120_000 })
  return { code: r.status, stdout: r.stdout, stderr: r.stderr }
}

export interface Child {
  child: ChildProcess
  stderr: () => string
  stdout: () => string
  /** Resolves when the child announces the fault point (and has stopped itself). */
  stopped: Promise<void>
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
}

/** Runs the CLI as a child; with `stopAt` it stops itself after that transaction step. */
export function spawnCli(args: string[], env: NodeJS.ProcessEnv, stopAt?: string): Child {
  const child = spawn(process.execPath, [CLI, ...args], {
    env: stopAt ? { ...env, CLAUDE_JSONL_FAULT_STOP: stopAt } : env,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  let err = ''
  child.stdout!.setEncoding('utf8').on('data', (c) => (out += c))
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((res) =>
    child.on('close', (code, signal) => res({ code, signal })),
  )
  const stopped = new Promise<void>((res, rej) => {
    child.stderr!.setEncoding('utf8').on('data', (c) => {
      err += c
      if (stopAt && err.includes(`fault point ${stopAt}\n`)) void untilStopped(child.pid!).then(res)
    })
    void exited.then(() => rej(new Error(`the child exited before fault point ${stopAt}: ${err}`)))
  })
  stopped.catch(() => {})
  return { child, stderr: () => err, stdout: () => out, stopped, exited }
}

/** The announcement comes just before the child stops itself: a SIGCONT sent in between would
 * be lost, so wait until the kernel shows it stopped (state T). */
async function untilStopped(pid: number): Promise<void> {
  for (;;) {
    let state = ''
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
      state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3)
    } catch {
      return // gone, or no /proc: the caller's next step shows it
    }
    if (state === 'T' || state === 't') return
    await new Promise((r) => setTimeout(r, 10))
  }
}

/** Files an in-place run leaves beside the target only while it runs (stage, lock). */
export function leftovers(e: LiveEstate): string[] {
  const name = basename(e.target)
  return readdirSync(e.project).filter((f) => f.startsWith(`.${name}.in-place-`) || f === `${name}.in-place.lock`)
}

/** The numbered backups beside the target, in order. */
export function backups(e: LiveEstate): string[] {
  const name = basename(e.target)
  return readdirSync(e.project)
    .filter((f) => /^.+\.jsonl\.backup\d*$/.test(f) && f.startsWith(name))
    .sort((a, b) => a.length - b.length || a.localeCompare(b))
    .map((f) => join(e.project, f))
}
