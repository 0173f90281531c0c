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

/** The `.rs` files under `dir` that are code, not tests (`tests.rs`, `*_tests.rs`, `tests_*.rs`, `tests/`). */
function rustCodeFiles(dir) {
  const out = []
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name)
    if (e.isDirectory()) {
      if (e.name !== 'tests') out.push(...rustCodeFiles(p))
    } else if (
      e.name.endsWith('.rs') &&
      e.name !== 'tests.rs' &&
      !e.name.endsWith('_tests.rs') &&
      !e.name.startsWith('tests_')
    )
      out.push(p)
  }
  return out
}

/** A Rust file's text without its trailing `#[cfg(test)] mod tests` and its line comments. */
function rustCode(path) {
  return readFileSync(path, 'utf8')
    .replace(/#\[cfg\(test\)\]\s*mod tests \{[\s\S]*$/m, '')
    .replace(/\/\/.*$/gm, '')
}

/**
 * The module graph of a Rust crate's `src`, one node per top-level module (`scan`, `failure`, ...):
 * module -> the other top-level modules its files name as `crate::<module>`, comments and test
 * files (`rustCodeFiles`) left out, so a test that uses a neighbour does not
 * count as a dependency of the code.
 */
export function rustModuleGraph(src) {
  const graph = new Map()
  for (const p of rustCodeFiles(src)) {
    const rel = relative(src, p).split('\\').join('/')
    if (rel === 'lib.rs') continue
    const top = rel.split('/')[0].replace(/\.rs$/, '')
    if (!graph.has(top)) graph.set(top, new Set())
    for (const m of rustCode(p).matchAll(/\bcrate::(\w+)/g)) if (m[1] !== top) graph.get(top).add(m[1])
  }
  const names = new Set(graph.keys())
  return new Map([...graph].map(([k, v]) => [k, [...v].filter((d) => names.has(d)).sort()]))
}

/**
 * The module graph inside one top-level module `top` of a Rust crate's `src`, one node per file
 * (`archive`, `archive/key`, `archive/read/catalog`, ...): module -> the other modules of `top`
 * it names, by `crate::top::…`, `super::…` or `self::…` paths (braced `use` groups opened) and,
 * in a `mod.rs`, by `use child::…`. Comments and tests are left out as in `rustModuleGraph`; a
 * name resolves to the longest module it starts with, and a module naming its own parent (a
 * type the parent re-exports) counts as naming it.
 */
export function rustSubmoduleGraph(src, top) {
  const files = new Map()
  for (const p of rustCodeFiles(join(src, top))) {
    const parts = relative(src, p).split('\\').join('/').replace(/\.rs$/, '').split('/')
    if (parts.at(-1) === 'mod') parts.pop()
    files.set(parts.join('/'), { path: p, modRs: p.endsWith('mod.rs') })
  }
  if (readdirSync(src).includes(`${top}.rs`)) files.set(top, { path: join(src, `${top}.rs`), modRs: true })
  const resolve = (segs) => {
    for (let k = segs.length; k > 0; k--) {
      const name = segs.slice(0, k).join('/')
      if (files.has(name)) return name
    }
    return undefined
  }
  // `a::{b, c::{d}}` -> ['a::b', 'a::c::d']
  const expand = (prefix, body) => {
    const out = []
    let depth = 0
    let cur = ''
    const items = []
    for (const ch of body) {
      if (ch === '{') depth++
      if (ch === '}') depth--
      if (ch === ',' && depth === 0) (items.push(cur.trim()), (cur = ''))
      else cur += ch
    }
    if (cur.trim()) items.push(cur.trim())
    for (const it of items) {
      const m = /^([\w:]*?)::\{([\s\S]*)\}$/.exec(it)
      if (m) out.push(...expand(`${prefix}::${m[1]}`, m[2]))
      else out.push(`${prefix}::${it}`)
    }
    return out
  }
  const graph = new Map()
  for (const [mod, { path, modRs }] of files) {
    const code = rustCode(path)
    const here = mod.split('/')
    const names = []
    for (const m of code.matchAll(/\b((?:crate|super|self)(?:::\w+)*)::\{([^;]*?)\};/g))
      names.push(...expand(m[1], m[2]))
    for (const m of code.matchAll(/\b(?:crate|super|self)(?:::\w+)+/g)) names.push(m[0])
    const deps = new Set()
    if (modRs)
      for (const m of code.matchAll(/\buse\s+(\w+)::/g)) if (files.has(`${mod}/${m[1]}`)) deps.add(`${mod}/${m[1]}`)
    for (const n of names) {
      const segs = n
        .split(/\s+as\s+/)[0]
        .trim()
        .split('::')
      let full
      if (segs[0] === 'crate') full = segs.slice(1)
      else if (segs[0] === 'self') full = [...here, ...segs.slice(1)]
      else {
        let base = here
        let i = 0
        while (segs[i] === 'super') ((base = base.slice(0, -1)), i++)
        full = [...base, ...segs.slice(i)]
      }
      const d = resolve(full)
      if (d !== undefined && d !== mod && !mod.startsWith(`${d}/`)) deps.add(d)
    }
    graph.set(mod, [...deps].sort())
  }
  return graph
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
