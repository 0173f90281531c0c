// The documentation holds together: every relative link in README.md and docs/**/*.md names a
// file that exists (and a heading of it, for a link with an anchor), and README.md stays a short
// introduction (at most 200 lines).
import test from 'ava'
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'

// Compiled to dist/__test__: the repository root is two folders up.
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..')

/** Fenced code blocks (indented fences included): links and headings inside are not ones. */
const FENCED = /^[ \t]*(```|~~~)[^\n]*\n[\s\S]*?^[ \t]*\1[^\n]*$/gm

function markdownFiles(dir: string): string[] {
  if (!existsSync(dir)) return []
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) return markdownFiles(path)
    return name.endsWith('.md') ? [path] : []
  })
}

/** Link targets of a Markdown text: inline `[text](target)` and reference `[id]: target`, outside code. */
function linkTargets(markdown: string): string[] {
  const prose = markdown.replace(FENCED, '').replace(/`[^`\n]*`/g, '')
  const targets: string[] = []
  for (const m of prose.matchAll(/\]\(\s*(?:<([^>\n]+)>|([^)\s]+))(?:\s+"[^"]*")?\s*\)/g)) targets.push(m[1] ?? m[2])
  for (const m of prose.matchAll(/^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+"[^"]*")?\s*$/gm)) targets.push(m[1])
  return targets
}

/** A target that points into this repository (not a URL or a mail address). */
function isRelative(target: string): boolean {
  return !/^[a-z][a-z0-9+.-]*:/i.test(target) && !target.startsWith('//')
}

/** The anchors of a Markdown file: its headings, as GitHub derives them, and HTML `<a id>`/`name` targets. */
function anchors(markdown: string): Set<string> {
  const prose = markdown.replace(FENCED, '')
  const out = new Set<string>()
  for (const m of prose.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) out.add(m[1])
  for (const m of prose.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm))
    out.add(
      m[1]
        .toLowerCase()
        .replace(/[^\p{L}\p{N}\s_-]/gu, '')
        .replace(/\s/g, '-'),
    )
  return out
}

const files = [join(ROOT, 'README.md'), ...markdownFiles(join(ROOT, 'docs'))]

test('the link scanner finds inline and reference links and skips code', (t) => {
  const md = [
    'See [a](docs/a.md) and [b](<docs/b c.md> "title"), [c](#anchor), [d](https://x.y/z).',
    '`[not](code.md)`',
    '```',
    '[not](fenced.md)',
    '```',
    '[ref]: ./ref.md',
  ].join('\n')
  t.deepEqual(linkTargets(md), ['docs/a.md', 'docs/b c.md', '#anchor', 'https://x.y/z', './ref.md'])
})

test('README.md and docs/ exist, with a page per command', (t) => {
  t.true(existsSync(join(ROOT, 'README.md')))
  for (const cmd of [
    'stats',
    'doctor',
    'show',
    'timeline',
    'sessions',
    'teleport-id',
    'find',
    'validate',
    'plan',
    'compress',
    'pack',
    'archive',
    'restore',
    'repair-read-pages',
  ])
    t.true(existsSync(join(ROOT, 'docs', 'commands', `${cmd}.md`)), `docs/commands/${cmd}.md`)
})

test('README.md is at most 200 lines', (t) => {
  const lines = readFileSync(join(ROOT, 'README.md'), 'utf8').replace(/\n$/, '').split('\n').length
  t.true(lines <= 200, `README.md has ${lines} lines`)
})

test('every relative link in README.md and docs/ names an existing file and heading', (t) => {
  const broken: string[] = []
  let checked = 0
  for (const file of files) {
    for (const target of linkTargets(readFileSync(file, 'utf8'))) {
      if (!isRelative(target)) continue
      const path = decodeURIComponent(target.split('#')[0].split('?')[0])
      checked++
      const to = path ? join(dirname(file), path) : file
      const anchor = target.includes('#') ? target.slice(target.indexOf('#') + 1) : ''
      if (!existsSync(to)) broken.push(`${relative(ROOT, file)}: ${target}`)
      else if (anchor && to.endsWith('.md') && !anchors(readFileSync(to, 'utf8')).has(anchor))
        broken.push(`${relative(ROOT, file)}: ${target} (no such heading)`)
    }
  }
  t.true(checked > 20, `only ${checked} relative links found: is the scanner broken?`)
  t.deepEqual(broken, [])
})
