// The web view as a person sees it, in headless Chromium at 1280 px: the session list, a search
// hit highlighted, the usage plot with one bar per day, a conversation, and nothing wider than
// the window. Screenshots are kept in dist/test-artifacts/serve-*.png.
import test from 'ava'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { startServer } from '../src-ts/serve/server.js'
import { Browser, chromiumMissing } from './helpers/chromium.js'
import { REPO, tempDir } from './helpers/transcripts.js'
import { PHRASE, SESSION_A, serveEstate } from './helpers/serve-estate.js'

test('serve in Chromium: list, search hit, usage plot and a session, each inside the window at 1280 px', async (t) => {
  if (chromiumMissing) return t.log(`SKIPPED: ${chromiumMissing}`)
  const s = await startServer({
    projects: serveEstate(),
    port: 0,
    timezone: 'UTC',
    indexDir: join(tempDir('cj-serve-index-'), 'find'),
  })
  t.teardown(() => s.close())
  const browser = await Browser.launch()
  t.teardown(() => browser.close())
  const shots = join(REPO, 'dist', 'test-artifacts')
  mkdirSync(shots, { recursive: true })
  const look = async (path: string, name: string) => {
    const page = await browser.open(`http://127.0.0.1:${s.port}${path}`)
    const widths = await page.evaluate<{ scroll: number; inner: number }>(
      '({ scroll: document.documentElement.scrollWidth, inner: window.innerWidth })',
    )
    t.true(widths.scroll <= widths.inner, `${name}: ${widths.scroll} px of content in a ${widths.inner} px window`)
    await page.screenshot(join(shots, `serve-${name}.png`))
    return page
  }

  const list = await look('/', 'sessions')
  const rows = await list.evaluate<string[]>(
    '[...document.querySelectorAll("tr[data-session]")].map((r) => r.querySelector("a").textContent)',
  )
  t.deepEqual(rows.slice(0, 2), ['Fix <script>alert("x")</script>', 'style the page'], 'titles shown as text')
  t.is(await list.evaluate<number>('document.scripts.length'), 0, 'the list page runs no script')
  await list.close()

  const search = await look(`/search?q=${encodeURIComponent(PHRASE)}`, 'search')
  const marked = await search.evaluate<{ text: string; background: string }[]>(
    '[...document.querySelectorAll("li.hit mark")].map((m) => ({ text: m.textContent, background: getComputedStyle(m).backgroundColor }))',
  )
  t.deepEqual(
    marked.map((m) => m.text),
    [PHRASE],
  )
  t.not(marked[0].background, 'rgba(0, 0, 0, 0)', 'the hit is highlighted')
  await search.close()

  const usage = await look('/usage', 'usage')
  const bars = await usage.evaluate<{ label: string; height: number }[]>(
    '[...document.querySelectorAll("svg g.bar")].map((g) => ({ label: g.dataset.label, height: g.getBoundingClientRect().height }))',
  )
  t.deepEqual(
    bars.map((b) => b.label),
    ['2026-03-01', '2026-03-02', '2026-03-03'],
    'one bar per day',
  )
  t.true(
    bars.every((b) => b.height > 0),
    'every day had a request: every bar is drawn',
  )
  await usage.close()

  const session = await look(`/session/${SESSION_A}`, 'session')
  const said = await session.evaluate<{ img: number; human: string }>(
    '({ img: document.querySelectorAll("img").length, human: document.querySelector(".human").textContent.trim() })',
  )
  t.is(said.img, 0, 'an <img> in the transcript is text')
  t.is(said.human, `Write the ${PHRASE}`)
  await session.close()
})
