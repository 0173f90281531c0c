#!/usr/bin/env node
// Writes the screenshots in docs/commands/serve/ (one per page of `claude-jsonl serve`), from an
// estate the fixture generator makes, in headless Chromium at 1280 x 900:
//   node scripts/serve-screenshots.mjs        (after `npm run build:ts`; needs /usr/bin/chromium)
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const { generateEstate } = await import(join(root, 'fixtures', 'generate.mjs'))
const { startServer } = await import(join(root, 'dist', 'src-ts', 'serve', 'server.js'))
const { Browser } = await import(join(root, 'dist', '__test__', 'helpers', 'chromium.js'))

const work = mkdtempSync(join(tmpdir(), 'cj-serve-shots-'))
generateEstate({ out: work, sessions: 40, targetMb: 15, seed: 'serve-docs' })
const server = await startServer({
  projects: join(work, 'projects'),
  port: 0,
  timezone: 'UTC',
  indexDir: join(work, 'find'),
})
const snap = await server.model.snapshot()
const session = snap.sessions.find((s) => s.requests > 5) ?? snap.sessions[0]
const out = join(root, 'docs', 'commands', 'serve')
mkdirSync(out, { recursive: true })
const browser = await Browser.launch()
for (const [name, path] of [
  ['sessions', '/'],
  ['session', `/session/${session.sessionId}`],
  ['search', '/search?q=retry+timeout'],
  ['usage', '/usage'],
]) {
  const page = await browser.open(`${server.url.replace(/\/$/, '')}${path}`)
  await page.screenshot(join(out, `${name}.png`))
  await page.close()
  console.log(`serve-screenshots: ${join('docs', 'commands', 'serve', `${name}.png`)}`)
}
await browser.close()
await server.close()
rmSync(work, { recursive: true, force: true })
