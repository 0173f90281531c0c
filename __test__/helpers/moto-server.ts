// An S3-compatible server for tests: moto's server mode (PyPI `moto[server]`) on 127.0.0.1, on a
// free port, started and stopped by the test. Nothing else is contacted.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { createServer } from 'node:net'
import { request } from 'node:http'
import { refuseInQuick } from './quick.js'

/** Why moto cannot run here, or undefined when it can. */
export function motoMissing(): string | undefined {
  const r = spawnSync('python3', ['-c', 'import moto.server'], { encoding: 'utf8' })
  return r.status === 0 ? undefined : "moto is not installed (pip install 'moto[server]')"
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer()
    s.once('error', reject)
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port
      s.close(() => resolve(port))
    })
  })
}

export interface Moto {
  endpoint: string
  /** The environment a client of this server needs (endpoint, region, test credentials). */
  env: NodeJS.ProcessEnv
  /** From now on the server checks credentials: none it knows of (a wrong key is refused). */
  requireAuth(): Promise<void>
  stop(): Promise<void>
}

export async function startMoto(): Promise<Moto> {
  refuseInQuick('S3-compatible server')
  const port = await freePort()
  const child: ChildProcess = spawn('python3', ['-m', 'moto.server', '-H', '127.0.0.1', '-p', String(port)], {
    stdio: 'ignore',
  })
  const endpoint = `http://127.0.0.1:${port}`
  for (let i = 0; i < 200; i++) {
    const up = await new Promise<boolean>((resolve) => {
      const req = request(`${endpoint}/`, (res) => {
        res.resume()
        resolve(true)
      })
      req.on('error', () => resolve(false))
      req.end()
    })
    if (up) break
    if (child.exitCode !== null) throw new Error(`moto exited with ${child.exitCode}`)
    await new Promise((r) => setTimeout(r, 100))
  }
  return {
    endpoint,
    env: {
      ...process.env,
      AWS_ENDPOINT_URL: endpoint,
      AWS_ACCESS_KEY_ID: 'testing',
      AWS_SECRET_ACCESS_KEY: 'testing',
      AWS_REGION: 'us-east-1',
      AWS_EC2_METADATA_DISABLED: 'true',
    },
    requireAuth: () =>
      new Promise<void>((resolve, reject) => {
        // moto's own control endpoint: authenticate every request after the next 0.
        const req = request(`${endpoint}/moto-api/reset-auth`, { method: 'POST' }, (res) => {
          res.resume()
          if (res.statusCode === 200) resolve()
          else reject(new Error(`moto reset-auth answered ${res.statusCode}`))
        })
        req.on('error', reject)
        req.end('0')
      }),
    stop: async () => {
      if (child.exitCode === null) {
        const gone = new Promise((r) => child.once('exit', r))
        child.kill('SIGTERM')
        await gone
      }
    },
  }
}
