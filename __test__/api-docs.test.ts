// The API reference in docs/api/ (TypeDoc) and its record of the public surface (docs/api/surface.md)
// are what `npm run docs:api` makes from the declarations the package ships, and every public name
// that needs a doc comment has one.
import test from 'ava'
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative, sep } from 'node:path'
import { pathToFileURL } from 'node:url'
import { REPO } from './helpers/transcripts.js'

interface Rendered {
  files: Map<string, string>
  undocumented: string[]
}
interface ApiDocs {
  renderApiDocs(source?: { entry: string; tsconfig: string }): Promise<Rendered>
  apiDir: string
}

const apiDocs = (): Promise<ApiDocs> => import(pathToFileURL(join(REPO, 'scripts', 'api-docs.mjs')).href)

function committedTree(dir: string): Map<string, string> {
  const out = new Map<string, string>()
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const path = join(d, name)
      if (statSync(path).isDirectory()) walk(path)
      else out.set(relative(dir, path).split(sep).join('/'), readFileSync(path, 'utf8'))
    }
  }
  walk(dir)
  return out
}

// One TypeDoc run over dist/src-ts/index.d.ts (tsc has just written it) serves the tests below.
let shipped: Promise<Rendered> | undefined
const renderShipped = () => (shipped ??= apiDocs().then((m) => m.renderApiDocs()))

test('docs/api/ (reference and surface.md) is what `npm run docs:api` makes from the shipped declarations', async (t) => {
  const { apiDir } = await apiDocs()
  const { files } = await renderShipped()
  const committed = committedTree(apiDir)
  const stale = [...files].filter(([path, text]) => committed.get(path) !== text).map(([path]) => path)
  const extra = [...committed.keys()].filter((path) => !files.has(path))
  t.deepEqual(
    { stale, extra },
    { stale: [], extra: [] },
    'docs/api/ is stale (the public API or its doc comments changed): run `npm run docs:api` and commit it',
  )
})

test('every public export, class member, callable member and option has a doc comment', async (t) => {
  const { undocumented } = await renderShipped()
  t.deepEqual(undocumented, [], 'write a doc comment for each (`npm run docs:api` lists them too)')
})

test('surface.md names every runtime export of each entry point, in its own section', async (t) => {
  const { files } = await renderShipped()
  const surface = files.get('surface.md') ?? ''
  const pkg = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8'))
  const entries = Object.entries(pkg.exports as Record<string, { default: string } | string>).filter(
    ([, v]) => typeof v !== 'string',
  )
  t.deepEqual(
    entries.map(([k]) => k),
    ['.', './compress', './archive', './store'],
  )
  for (const [key, target] of entries) {
    const name = key === '.' ? 'claude-jsonl' : `claude-jsonl/${key.slice(2)}`
    const at = surface.indexOf(`## \`${name}\``)
    t.true(at >= 0, `a section for ${name}`)
    const section = surface.slice(at, surface.indexOf('\n## ', at + 1))
    const runtime = Object.keys(await import(pathToFileURL(join(REPO, (target as { default: string }).default)).href))
    t.true(runtime.length > 3, name)
    const missing = runtime.filter((n) => !new RegExp(`^(function|class|const) ${n}\\b`, 'm').test(section))
    t.deepEqual(missing, [], name)
  }
})

test('the doc-comment check reports what lacks one, and the surface shows signatures', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'claude-jsonl-api-docs-test-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  writeFileSync(
    join(dir, 'index.d.ts'),
    [
      '/** Adds two numbers. */',
      'export declare function add(a: number, b?: number): number;',
      'export declare function bare(x: string): void;',
      '/** What `run` takes. */',
      'export interface RunOptions {',
      '  /** How many times. */',
      '  times?: number;',
      '  quiet?: boolean;',
      '}',
      // In a declaration file, declarations are exported unless the file says `export {}`.
      'export {};',
      'interface Hidden {',
      '  x: number;',
      '}',
      '/** A result. */',
      'export interface RunResult {',
      '  count: number;',
      '  hidden: Hidden;',
      '  onDone: (n: number) => void;',
      '}',
      '/** A thing with members. */',
      'export declare class Thing {',
      '  constructor(name: string);',
      '  readonly name: string;',
      '  /** Says hi. */',
      '  greet(): string;',
      '}',
      '',
    ].join('\n'),
  )
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: { strict: true, noEmit: true, skipLibCheck: true, types: [] },
      files: ['index.d.ts'],
    }),
  )
  const { renderApiDocs } = await apiDocs()
  const { files, undocumented } = await renderApiDocs({
    entry: join(dir, 'index.d.ts'),
    tsconfig: join(dir, 'tsconfig.json'),
  })
  t.deepEqual(undocumented.sort(), [
    'Class Thing: member name',
    'Function bare',
    'Interface RunOptions: member quiet',
    'Interface RunResult: member onDone',
  ])
  const surface = files.get('surface.md') ?? ''
  t.regex(surface, /^function add\(a: number, b\?: number\): number$/m)
  t.regex(surface, /^class Thing$\n^ {2}constructor\(name: string\)$\n^ {2}readonly name: string$/m)
  t.regex(surface, /^ {2}onDone: \(\(n: number\) => void\)$/m)
  t.regex(surface, /^Hidden: RunResult$/m)
  t.true(files.has('README.md'))
})
