import test from 'ava'
import { join } from 'node:path'
import { REPO, writeTree } from './helpers/transcripts.js'

interface ImportGraph {
  importGraph(root: string): Map<string, string[]>
  importCycles(graph: Map<string, string[]>): string[][]
  layerViolations(graph: Map<string, string[]>): string[]
}
const load = async () => (await import(join(REPO, 'scripts', 'import-graph.mjs'))) as ImportGraph

test('src-ts has no import cycle, type-only and dynamic imports included', async (t) => {
  const g = await load()
  const graph = g.importGraph(join(REPO, 'src-ts'))
  t.true(graph.size > 40, `walked ${graph.size} files`)
  t.deepEqual(g.importCycles(graph), [])
})

test('read/, compress/ and archive/ never import the CLI or the terminal helpers', async (t) => {
  const g = await load()
  t.deepEqual(g.layerViolations(g.importGraph(join(REPO, 'src-ts'))), [])
})

test('the import walk sees cycles through `import type` and import(), and layer breaks', async (t) => {
  const g = await load()
  const root = writeTree({
    'compress/a.ts': "import type { B } from './b.js'\nexport type A = B\n",
    'compress/b.ts': "export type B = number\nexport const later = () => import('./c.js')\n",
    'compress/c.ts': "export { x } from '../read/d.js'\nimport './a.js'\n",
    'read/d.ts':
      "// import { nothing } from '../cli/ignored.js'\nimport {\n  fmt,\n} from '../terminal/format.js'\nexport const x = fmt\n",
    'terminal/format.ts': 'export const fmt = 1\n',
    'cli/main.ts': "import { x } from '../read/d.js'\n",
  })
  const graph = g.importGraph(root)
  t.deepEqual(graph.get('compress/c.ts'), ['compress/a.ts', 'read/d.ts'])
  t.deepEqual(g.importCycles(graph), [['compress/a.ts', 'compress/b.ts', 'compress/c.ts']])
  t.deepEqual(g.layerViolations(graph), ['read/d.ts -> terminal/format.ts'])
})

// ---- the Rust crates -------------------------------------------------------------------------
interface RustGraph {
  rustModuleGraph(src: string): Map<string, string[]>
  rustSubmoduleGraph(src: string, top: string): Map<string, string[]>
}
const loadRust = async () => (await load()) as unknown as ImportGraph & RustGraph

test('the core crate: the graph knows nothing of the client, failures import only the JSON escaper', async (t) => {
  const g = await loadRust()
  const graph = g.rustModuleGraph(join(REPO, 'crate', 'core', 'src'))
  t.true(graph.size > 10, `walked ${graph.size} modules`)
  t.false(graph.get('graph')!.includes('client'), 'graph -> client (the client builds its rules on the graph)')
  t.deepEqual(graph.get('failure'), ['json_string'])
  t.deepEqual(graph.get('json_string'), [])
  // What is left: the record pass of scan applies two client rules as it reads (the reply shape
  // of client::blocks, the call target of read::tool_targets), which themselves read the scan.
  // A new cycle, or a longer one, fails here.
  t.deepEqual(g.importCycles(graph), [['client', 'graph', 'read', 'scan']])
})

test('the module walk of a crate names top-level modules and skips comments and tests', async (t) => {
  const g = await loadRust()
  const root = writeTree({
    'lib.rs': 'pub mod a;\npub mod b;\npub mod c;\n',
    'a/mod.rs': 'use crate::b::X;\n// crate::c is only named in a comment\n',
    'a/tests.rs': 'use crate::c::Y;\n',
    'b.rs': 'pub struct X;\nfn f() { crate::a::g() }\n#[cfg(test)]\nmod tests {\n    use crate::c::Z;\n}\n',
    'c.rs': '',
  })
  const graph = g.rustModuleGraph(root)
  t.deepEqual(Object.fromEntries(graph), { a: ['b'], b: ['a'], c: [] })
  t.deepEqual(g.importCycles(graph), [['a', 'b']])
})

test('the archive modules form no circle; its keys name nothing else in it', async (t) => {
  const g = await loadRust()
  const graph = g.rustSubmoduleGraph(join(REPO, 'crate', 'core', 'src'), 'archive')
  t.true(graph.size > 15, `walked ${graph.size} modules`)
  t.deepEqual(g.importCycles(graph), [])
  // the naming every archive module uses depends on none of them, so none can close a circle
  t.deepEqual(graph.get('archive/key'), [])
  t.false(graph.get('archive/layout')!.includes('archive/destination'), 'a header line knows no destination')
})

test('the submodule walk follows super, self and crate paths and opens use groups', async (t) => {
  const g = await loadRust()
  const root = writeTree({
    'lib.rs': 'pub mod a;\n',
    'a/mod.rs': 'mod r;\npub use r::*;\n',
    'a/k.rs': 'pub struct K;\n',
    'a/x.rs': 'use super::{k::K, y};\n// super::z is only named in a comment\n',
    'a/y.rs': 'use crate::a::r::f;\n#[cfg(test)]\nmod tests {\n    use super::super::z;\n}\n',
    'a/z.rs': 'fn g() { super::x::h() }\n',
    'a/r/mod.rs': 'pub fn f() { self::s::t() }\n',
    'a/r/s.rs': 'use super::super::z;\n',
    'a/tests.rs': 'use super::x;\n',
  })
  const graph = g.rustSubmoduleGraph(root, 'a')
  t.deepEqual([...graph].sort(), [
    ['a', ['a/r']],
    ['a/k', []],
    ['a/r', ['a/r/s']],
    ['a/r/s', ['a/z']],
    ['a/x', ['a/k', 'a/y']],
    ['a/y', ['a/r']],
    ['a/z', ['a/x']],
  ])
  t.deepEqual(g.importCycles(graph), [['a/r', 'a/r/s', 'a/x', 'a/y', 'a/z']])
})

test('the core crate knows nothing of Node; the binding runs no parallel loop of its own but two', async (t) => {
  const { readFileSync, readdirSync } = await import('node:fs')
  t.notRegex(readFileSync(join(REPO, 'crate', 'core', 'Cargo.toml'), 'utf8'), /napi/)
  const uses = (dir: string, re: RegExp) =>
    readdirSync(dir, { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.rs') && re.test(readFileSync(join(dir, f), 'utf8')))
      .sort()
  t.deepEqual(uses(join(REPO, 'crate', 'core', 'src'), /\b(use napi|napi::|napi_derive)\b/), [])
  // Still to move into the core: the per-file facts of EstateScan.files and archiveOwners' decoding.
  t.deepEqual(uses(join(REPO, 'crate', 'node', 'src'), /\bpar_iter\b|\binto_par_iter\b/), ['archive.rs', 'estate.rs'])
})
