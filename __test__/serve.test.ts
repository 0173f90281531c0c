// The web view over HTTP: what each page shows, that its numbers are `stats`' numbers, that it
// stays current as transcripts change, and that it is safe to leave running (read-only, escaped,
// Host checked, no CORS, 404 and damaged-transcript pages). The browser's view: serve-browser.test.ts.
import test from 'ava'
import { spawn } from 'node:child_process'
import { appendFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { request } from 'node:http'
import { startServer, type RunningServer } from '../src-ts/serve/server.js'
import { PAGE_SIZE, markTerms } from '../src-ts/serve/pages.js'
import { stats } from '../src-ts/read/stats.js'
import { archive } from '../src-ts/archive/archive.js'
import { CLI, tempDir } from './helpers/transcripts.js'
import {
  HOSTILE,
  PHRASE,
  PHRASE_LINE,
  SESSION_A,
  SESSION_B,
  SESSION_DAMAGED,
  serveEstate,
} from './helpers/serve-estate.js'

interface Reply {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: string
}

/** One request to the server, with the Host header a browser would send (or the one given). */
function get(s: RunningServer, path: string, o: { host?: string; method?: string } = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: s.port,
        path,
        method: o.method ?? 'GET',
        headers: { host: o.host ?? `127.0.0.1:${s.port}` },
      },
      (res) => {
        let body = ''
        res.setEncoding('utf8')
        res.on('data', (c: string) => (body += c))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }))
      },
    )
    req.on('error', reject)
    req.end()
  })
}

const serve = (projects: string, more: Parameters<typeof startServer>[0] = {}) =>
  startServer({ projects, port: 0, timezone: 'UTC', indexDir: join(tempDir('cj-serve-index-'), 'find'), ...more })

test('the session list: newest first, titles escaped, filtered by text and project, paged', async (t) => {
  const root = serveEstate(PAGE_SIZE + 5)
  const s = await serve(root)
  t.teardown(() => s.close())
  const home = await get(s, '/')
  t.is(home.status, 200)
  t.regex(home.body, new RegExp(`${PAGE_SIZE + 8} of ${PAGE_SIZE + 8} sessions`))
  const ids = [...home.body.matchAll(/<tr data-session="([^"]+)"/g)].map((m) => m[1])
  t.is(ids.length, PAGE_SIZE, 'one page')
  t.deepEqual(ids.slice(0, 2), [SESSION_A, SESSION_B], 'the most recent activity first')
  t.false(home.body.includes(HOSTILE.script), 'a title with markup is text')
  t.true(home.body.includes('Fix &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;'))
  t.regex(home.body, /page 1 of 2/)
  const second = await get(s, '/?page=2')
  t.is([...second.body.matchAll(/<tr data-session=/g)].length, 8)
  const byText = await get(s, '/?q=web')
  t.deepEqual([...byText.body.matchAll(/<tr data-session="([^"]+)"/g)].map((m) => m[1]).sort(), [
    SESSION_B,
    SESSION_DAMAGED,
  ])
  const byProject = await get(s, `/?project=-home-u-app`)
  t.deepEqual(
    [...byProject.body.matchAll(/<tr data-session="([^"]+)"/g)].map((m) => m[1]),
    [SESSION_A],
  )
})

test('usage: the plots and tables carry the numbers stats computes, day by day and model by model', async (t) => {
  const root = serveEstate()
  const s = await serve(root)
  t.teardown(() => s.close())
  const page = await get(s, '/usage')
  t.is(page.status, 200)
  const byDay = await stats({ projects: root, by: 'day', timezone: 'UTC' })
  const byModel = await stats({ projects: root, by: 'model', timezone: 'UTC' })
  // Three calendar days of bars (03-01 to 03-03); each bar's total is that day's cost in stats.
  const bars = [...page.body.matchAll(/<g class="bar" data-label="([^"]+)" data-total="([^"]+)"/g)]
  t.deepEqual(
    bars.map((m) => m[1]),
    ['2026-03-01', '2026-03-02', '2026-03-03'],
  )
  for (const g of byDay.groups!) {
    const bar = bars.find((m) => m[1] === g.key)!
    t.true(Math.abs(Number(bar[2]) - g.costUsd) < 1e-9, `${g.key}: ${bar[2]} vs ${g.costUsd}`)
  }
  t.regex(page.body, new RegExp(`${byDay.totals.requests} requests`))
  // The by-model table: one row per model, requests as stats counts them.
  for (const m of byModel.groups!) t.regex(page.body, new RegExp(`<td>${m.key}</td><td class="n">${m.requests}</td>`))
  // A window: only its days.
  const one = await get(s, '/usage?since=2026-03-02&until=2026-03-02')
  t.deepEqual(
    [...one.body.matchAll(/<g class="bar" data-label="([^"]+)"/g)].map((m) => m[1]),
    ['2026-03-02'],
  )
  const bad = await get(s, '/usage?since=yesterday')
  t.is(bad.status, 400)
  t.regex(bad.body, /since expects a date/)
})

test('search: ranked and exact hits with the terms marked, linking to the line in the session', async (t) => {
  const root = serveEstate()
  const s = await serve(root)
  t.teardown(() => s.close())
  const ranked = await get(s, `/search?q=${encodeURIComponent(PHRASE)}`)
  t.is(ranked.status, 200)
  t.regex(ranked.body, new RegExp(`href="/session/${SESSION_A}#line-${PHRASE_LINE}"`))
  t.regex(ranked.body, /Write the <mark>zebra migration plan<\/mark>/, 'the phrase is marked whole')
  const exact = await get(s, `/search?exact=1&q=${encodeURIComponent('darker it')}`)
  t.regex(exact.body, new RegExp(`href="/session/${SESSION_B}#line-`))
  t.regex(exact.body, /<mark>darker it<\/mark>/)
  const none = await get(s, '/search?q=nothingmatchesthis')
  t.regex(none.body, /No session matches/)
  t.is(markTerms('a <b> A', ['a']), '<mark>a</mark> &lt;b&gt; <mark>A</mark>')
})

test('a session page: the conversation escaped, its cost and timeline, anchors at lines; missing and damaged ones say so', async (t) => {
  const root = serveEstate()
  const s = await serve(root)
  t.teardown(() => s.close())
  const page = await get(s, `/session/${SESSION_A}`)
  t.is(page.status, 200)
  t.false(/<img/i.test(page.body.replace(/&lt;img/g, '')), 'no img element')
  t.false(/href="javascript:/i.test(page.body), 'no javascript: link')
  t.regex(page.body, new RegExp(`id="line-${PHRASE_LINE}"`))
  t.regex(page.body, /id="session-cost">2 requests · \$/)
  t.regex(String(page.headers['content-security-policy']), /script-src 'sha256-/)
  const missing = await get(s, '/session/ffffffff-0000-4000-8000-000000000000')
  t.is(missing.status, 404)
  t.regex(missing.body, /No such session/)
  t.is((await get(s, '/session/..%2F..%2Fetc%2Fpasswd')).status, 404)
  const damaged = await get(s, `/session/${SESSION_DAMAGED}`)
  t.is(damaged.status, 422)
  t.regex(damaged.body, /This transcript cannot be shown/)
})

test('safe to leave running: Host checked, read-only, no CORS, a policy on every page, unknown paths 404', async (t) => {
  const root = serveEstate()
  const s = await serve(root)
  t.teardown(() => s.close())
  t.is(s.host, '127.0.0.1')
  t.is((await get(s, '/', { host: `localhost:${s.port}` })).status, 200)
  const rebound = await get(s, '/', { host: `attacker.example:${s.port}` })
  t.is(rebound.status, 421, 'a page whose name resolves here is refused (DNS rebinding)')
  t.false(rebound.body.includes(SESSION_A))
  for (const method of ['POST', 'PUT', 'DELETE']) {
    const r = await get(s, '/', { method })
    t.is(r.status, 405)
    t.is(r.headers.allow, 'GET, HEAD')
  }
  for (const path of ['/', '/usage', '/search?q=zebra', `/session/${SESSION_A}`, '/nope']) {
    const r = await get(s, path)
    t.false(
      Object.keys(r.headers).some((h) => h.startsWith('access-control-')),
      `${path}: no CORS header`,
    )
    t.truthy(r.headers['content-security-policy'], `${path}: a policy`)
    t.is(r.headers['x-content-type-options'], 'nosniff')
  }
  t.is((await get(s, '/nope')).status, 404)
  t.is((await get(s, '/', { method: 'HEAD' })).body, '')
})

test('the view stays current: a new session and a new request appear without a restart', async (t) => {
  const root = serveEstate()
  const s = await serve(root, { checkEveryMs: 0 })
  t.teardown(() => s.close())
  const before = await get(s, '/')
  t.regex(before.body, /3 of 3 sessions/)
  const id = '0c0c0c0c-1111-4222-8333-000000000004'
  writeFileSync(
    join(root, '-home-u-app', `${id}.jsonl`),
    JSON.stringify({
      parentUuid: null,
      type: 'user',
      sessionId: id,
      cwd: '/home/u/app',
      message: { role: 'user', content: 'a later session' },
      uuid: 'late-1',
      timestamp: '2026-03-04T10:00:00.000Z',
    }) + '\n',
  )
  appendFileSync(join(root, '-home-u-app', `${SESSION_A}.jsonl`), '')
  // The change starts a rebuild in the background; pages answer from the old view meanwhile.
  let now = before
  for (let i = 0; i < 100 && !now.body.includes('4 of 4 sessions'); i++) {
    await new Promise((r) => setTimeout(r, 50))
    now = await get(s, '/')
  }
  t.regex(now.body, /4 of 4 sessions/)
  t.regex(now.body, new RegExp(`<tr data-session="${id}"`))
})

test('an archive is served as the estate it keeps: the same sessions, the same cost', async (t) => {
  const root = serveEstate()
  const to = join(tempDir('cj-serve-archive-'), 'archive')
  await archive({ projects: root, to })
  const fromEstate = await serve(root)
  const fromArchive = await serve(to)
  t.teardown(async () => {
    await fromEstate.close()
    await fromArchive.close()
  })
  const rows = (body: string) => [...body.matchAll(/<tr data-session="([^"]+)"/g)].map((m) => m[1])
  const a = await get(fromArchive, '/')
  t.deepEqual(rows(a.body), rows((await get(fromEstate, '/')).body))
  const total = (body: string) => /id="usage-total">([^<]+)</.exec(body)?.[1]
  t.is(total((await get(fromArchive, '/usage')).body), total((await get(fromEstate, '/usage')).body))
  t.is((await get(fromArchive, `/session/${SESSION_A}`)).status, 200)
})

/** Runs `claude-jsonl serve ARGS` until it prints its URL (or exits); returns the child and what it said. */
function serveCli(args: string[]) {
  const child = spawn(process.execPath, [CLI, 'serve', ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  let err = ''
  child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c))
  child.stderr.setEncoding('utf8').on('data', (c: string) => (err += c))
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)))
  const ready = new Promise<void>((resolve) => {
    const poll = setInterval(() => {
      if (out.includes('http://') || child.exitCode !== null) {
        clearInterval(poll)
        resolve()
      }
    }, 20)
  })
  return { child, exited, ready, out: () => out, err: () => err }
}

test('cli: serve prints its loopback URL, answers, and exits 0 on SIGTERM; bad usage exits 2, a missing estate 3', async (t) => {
  const root = serveEstate()
  const run = serveCli(['--projects', root, '--port', '0'])
  await run.ready
  const url = /http:\/\/127\.0\.0\.1:(\d+)\//.exec(run.out())
  t.truthy(url, run.out() + run.err())
  t.regex(run.out(), /3 sessions/)
  const fake = { port: Number(url![1]) } as RunningServer
  t.is((await get(fake, '/')).status, 200)
  run.child.kill('SIGTERM')
  t.is(await run.exited, 0)

  const bad = serveCli(['--projects', root, '--port', '99999'])
  t.is(await bad.exited, 2)
  t.regex(bad.err(), /--port takes a port number/)
  const missing = serveCli(['--projects', join(root, 'nowhere'), '--port', '0'])
  t.is(await missing.exited, 3)
  t.regex(missing.err(), /nowhere/)
  t.notRegex(missing.err(), /\n\s+at /, 'no stack trace')
})
