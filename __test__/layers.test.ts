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
