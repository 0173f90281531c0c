// Headless Chromium (Debian's package) driven over the DevTools protocol on a pipe (fds 3 and 4,
// NUL-delimited JSON), so a test can load a page, ask what the browser laid out (sizes, text,
// elements) and keep a screenshot, with no WebSocket client and no network.
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Readable, Writable } from 'node:stream'
import { refuseInQuick } from './quick.js'

export const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p))

/** Flags for a headless run on a machine with no network: nothing starts a connection of its own. */
export const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
]

/**
 * Removes a Chromium profile folder without ever throwing: a helper process (zygote, renderer) can
 * outlive the browser for a moment and write into the folder while it is removed, and a failed
 * clean-up of a temp folder must not fail a test or stop the teardowns after it.
 */
export function removeProfile(dir: string): void {
  try {
    rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 })
  } catch (err) {
    console.error(`chromium: left its profile ${dir} (${(err as Error).message})`)
  }
}

/** Why the browser part of a test cannot run here, or undefined when it can. */
export const chromiumMissing = CHROMIUM
  ? undefined
  : 'no chromium at /usr/bin/chromium (install it: apt-get install -y chromium)'

interface Pending {
  resolve: (v: any) => void
  reject: (e: Error) => void
}

/** A browser with one page open at a time. */
export class Browser {
  private nextId = 1
  private readonly pending = new Map<number, Pending>()
  private readonly listeners: ((m: any) => void)[] = []
  private buffer = ''

  private constructor(
    private readonly child: ChildProcess,
    private readonly profile: string,
  ) {
    const out = child.stdio[4] as Readable
    out.setEncoding('utf8')
    out.on('data', (chunk: string) => {
      this.buffer += chunk
      let nul: number
      while ((nul = this.buffer.indexOf('\0')) >= 0) {
        const msg = JSON.parse(this.buffer.slice(0, nul))
        this.buffer = this.buffer.slice(nul + 1)
        if (msg.id !== undefined && this.pending.has(msg.id)) {
          const p = this.pending.get(msg.id)!
          this.pending.delete(msg.id)
          if (msg.error) p.reject(new Error(`${msg.error.message} (${msg.error.code})`))
          else p.resolve(msg.result)
        } else for (const l of this.listeners) l(msg)
      }
    })
    child.on('exit', () => {
      for (const p of this.pending.values()) p.reject(new Error('chromium exited'))
      this.pending.clear()
    })
  }

  static async launch(): Promise<Browser> {
    refuseInQuick('browser')
    if (!CHROMIUM) throw new Error(chromiumMissing)
    const profile = mkdtempSync(join(tmpdir(), 'cj-chromium-'))
    const child = spawn(
      CHROMIUM,
      [...CHROMIUM_FLAGS, '--hide-scrollbars', `--user-data-dir=${profile}`, '--remote-debugging-pipe', 'about:blank'],
      // A process group of its own, so close() can end the helper processes with the browser.
      { stdio: ['ignore', 'ignore', 'ignore', 'pipe', 'pipe'], detached: true },
    )
    return new Browser(child, profile)
  }

  send(method: string, params: Record<string, unknown> = {}, sessionId?: string): Promise<any> {
    const id = this.nextId++
    const msg = JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) })
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject })
      ;(this.child.stdio[3] as Writable).write(msg + '\0')
    })
  }

  /** Opens `url` in a new page of `width` x `height` CSS pixels, once it has loaded. */
  async open(url: string, width = 1280, height = 900): Promise<Page> {
    const { targetId } = await this.send('Target.createTarget', { url: 'about:blank' })
    const { sessionId } = await this.send('Target.attachToTarget', { targetId, flatten: true })
    await this.send('Page.enable', {}, sessionId)
    await this.send(
      'Emulation.setDeviceMetricsOverride',
      { width, height, deviceScaleFactor: 1, mobile: false },
      sessionId,
    )
    const loaded = new Promise<void>((resolve) => {
      const l = (m: any) => {
        if (m.sessionId === sessionId && m.method === 'Page.loadEventFired') {
          this.listeners.splice(this.listeners.indexOf(l), 1)
          resolve()
        }
      }
      this.listeners.push(l)
    })
    await this.send('Page.navigate', { url }, sessionId)
    await loaded
    return new Page(this, targetId, sessionId)
  }

  async close(): Promise<void> {
    try {
      await Promise.race([this.send('Browser.close'), new Promise((r) => setTimeout(r, 3000))])
    } catch {
      // already gone
    }
    if (this.child.exitCode === null && this.child.signalCode === null) {
      const gone = new Promise((r) => this.child.once('exit', r))
      this.child.kill('SIGKILL')
      await gone
    }
    // Helper processes that outlived the browser would keep writing the profile.
    try {
      process.kill(-this.child.pid!, 'SIGKILL')
    } catch {
      // the group is gone already
    }
    for (const fd of [3, 4]) (this.child.stdio[fd] as Readable | Writable | null)?.destroy()
    removeProfile(this.profile)
  }
}

export class Page {
  constructor(
    private readonly browser: Browser,
    private readonly targetId: string,
    private readonly sessionId: string,
  ) {}

  /** The value of a JavaScript expression evaluated in the page (DevTools is not bound by its CSP). */
  async evaluate<T>(expression: string): Promise<T> {
    const r = await this.browser.send('Runtime.evaluate', { expression, returnByValue: true }, this.sessionId)
    if (r.exceptionDetails) throw new Error(`in the page: ${r.exceptionDetails.text}`)
    return r.result.value as T
  }

  /** Writes a PNG of what the window shows to `path`. */
  async screenshot(path: string): Promise<void> {
    const { data } = await this.browser.send('Page.captureScreenshot', { format: 'png' }, this.sessionId)
    writeFileSync(path, Buffer.from(data, 'base64'))
  }

  close(): Promise<void> {
    return this.browser.send('Target.closeTarget', { targetId: this.targetId })
  }
}
