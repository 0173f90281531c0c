// The import graph of src-ts: every relative import of every .ts file, type-only imports,
// re-exports and dynamic import() included, so a cycle cannot hide behind `import type`.
// Used by __test__/layers.test.ts; `node scripts/import-graph.mjs` prints the cycles and
// the layer violations it finds.
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const STATIC_RE = /(?:\bfrom\s*|^\s*import\s+)['"]([^'"]+)['"]/gm
const DYNAMIC_RE = /\bimport\s*\(\s*['"]([^'"]+)['"]/gm

function walk(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? walk(join(dir, e.name)) : /\.c?ts$/.test(e.name) ? [join(dir, e.name)] : [],
  )
}

/**
 * Map from each file (relative to `root`, with '/') to the src-ts files it imports; with
 * `{ dynamic: false }`, only the imports loaded with the file itself (no import()).
 */
export function importGraph(root, { dynamic = true } = {}) {
  const graph = new Map()
  for (const file of walk(root)) {
    // Comments may mention imports in prose; strip them before matching.
    const text = readFileSync(file, 'utf8')
      .replace(/\/\*[\s\S]*?\*\//g, '')
      .replace(/^\s*\/\/.*$/gm, '')
    const deps = new Set()
    const found = [...text.matchAll(STATIC_RE), ...(dynamic ? text.matchAll(DYNAMIC_RE) : [])]
    for (const m of found) {
      const spec = m[1]
      if (!spec.startsWith('.')) continue
      deps.add(
        relative(root, resolve(dirname(file), spec.replace(/\.js$/, '.ts').replace(/\.cjs$/, '.cts')))
          .split('\\')
          .join('/'),
      )
    }
    graph.set(relative(root, file).split('\\').join('/'), [...deps].sort())
  }
  return graph
}

/** Every import cycle, each as the list of files around it (strongly connected components). */
export function importCycles(graph) {
  let next = 0
  const index = new Map()
  const low = new Map()
  const stack = []
  const onStack = new Set()
  const cycles = []
  const visit = (v) => {
    index.set(v, next)
    low.set(v, next++)
    stack.push(v)
    onStack.add(v)
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue
      if (!index.has(w)) {
        visit(w)
        low.set(v, Math.min(low.get(v), low.get(w)))
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), index.get(w)))
    }
    if (low.get(v) === index.get(v)) {
      const scc = []
      let w
      do {
        w = stack.pop()
        onStack.delete(w)
        scc.push(w)
      } while (w !== v)
      if (scc.length > 1 || (graph.get(v) ?? []).includes(v)) cycles.push(scc.sort())
    }
  }
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) visit(v)
  return cycles
}

/** Every file `from` loads, directly or through others. */
export function reachable(graph, from) {
  const seen = new Set([from])
  const todo = [from]
  while (todo.length > 0) for (const d of graph.get(todo.pop()) ?? []) if (!seen.has(d)) (seen.add(d), todo.push(d))
  return [...seen].sort()
}

/** The layers below the CLI: none of them may import a file under cli/ or terminal/. */
export const LIBRARY_LAYERS = ['read/', 'compress/', 'archive/']

export function layerViolations(graph) {
  const out = []
  for (const [file, deps] of graph)
    if (LIBRARY_LAYERS.some((l) => file.startsWith(l)))
      for (const d of deps) if (d.startsWith('cli/') || d.startsWith('terminal/')) out.push(`${file} -> ${d}`)
  return out
}

/**
 * The module graph of a Rust crate's `src`, one node per top-level module (`scan`, `failure`, ...):
 * module -> the other top-level modules its files name as `crate::<module>`, comments and test
 * files (`tests.rs`, `*_tests.rs`, `tests/`) left out, so a test that uses a neighbour does not
 * count as a dependency of the code.
 */
export function rustModuleGraph(src) {
  const graph = new Map()
  const walk = (dir) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name)
      if (e.isDirectory()) {
        if (e.name !== 'tests') walk(p)
        continue
      }
      if (!e.name.endsWith('.rs') || e.name === 'tests.rs' || e.name.endsWith('_tests.rs')) continue
      const rel = relative(src, p).split('\\').join('/')
      if (rel === 'lib.rs') continue
      const top = rel.split('/')[0].replace(/\.rs$/, '')
      if (!graph.has(top)) graph.set(top, new Set())
      const code = readFileSync(p, 'utf8')
        .replace(/#\[cfg\(test\)\]\s*mod tests \{[\s\S]*$/m, '')
        .replace(/\/\/.*$/gm, '')
      for (const m of code.matchAll(/\bcrate::(\w+)/g)) if (m[1] !== top) graph.get(top).add(m[1])
    }
  }
  walk(src)
  const names = new Set(graph.keys())
  return new Map([...graph].map(([k, v]) => [k, [...v].filter((d) => names.has(d)).sort()]))
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const graph = importGraph(join(dirname(fileURLToPath(import.meta.url)), '..', 'src-ts'))
  const cycles = importCycles(graph)
  const violations = layerViolations(graph)
  for (const c of cycles) console.log(`cycle: ${c.join(' <-> ')}`)
  for (const v of violations) console.log(`layer: ${v}`)
  console.log(`${graph.size} files, ${cycles.length} cycles, ${violations.length} layer violations`)
  process.exitCode = cycles.length || violations.length ? 1 : 0
}
