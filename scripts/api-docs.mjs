#!/usr/bin/env node
// `npm run docs:api`: the API reference (docs/api/, Markdown by TypeDoc) and the record of the public
// surface (docs/api/surface.md), both made from the declarations the package ships for each of
// its entry points (the root, `/compress`, `/archive`, `/store`: dist/src-ts/**/index.d.ts, so
// compile first: the npm script runs tsc). Exits 1, after writing,
// when an export that must have a doc comment has none (see `undocumented`).
//
// The reference describes what a user of the package sees: the `types` it publishes, with the doc
// comments tsc copies into them. TypeDoc runs on the TypeScript 6 compiler API; the project compiles
// with TypeScript 7, which has none, so TypeDoc and its TypeScript are pinned in scripts/typedoc/.
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, mkdirSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join, relative, sep } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

export const root = join(dirname(fileURLToPath(import.meta.url)), '..')
export const apiDir = join(root, 'docs', 'api')
const toolchain = createRequire(join(root, 'scripts', 'typedoc', 'package.json'))

async function typedoc() {
  return import(pathToFileURL(toolchain.resolve('typedoc')).href)
}

/** The package's entry points, as `exports` in package.json names them, and their declarations. */
export const ENTRY_POINTS = [
  ['claude-jsonl', 'index.d.ts'],
  ['claude-jsonl/compress', 'compress/index.d.ts'],
  ['claude-jsonl/archive', 'archive/index.d.ts'],
  ['claude-jsonl/store', 'store/index.d.ts'],
].map(([name, file]) => ({ name, entry: join(root, 'dist', 'src-ts', ...file.split('/')) }))

const shipped = {
  entries: ENTRY_POINTS,
  tsconfig: join(root, 'scripts', 'typedoc', 'tsconfig.json'),
}

/** The entry points of a source: `entries`, or one `entry` as the package root. */
const entriesOf = (source) => source.entries ?? [{ name: 'claude-jsonl', entry: source.entry }]

/** Converts declarations (by default the shipped ones) into TypeDoc's model, and the app that renders it. */
async function convert(source, out) {
  const { tsconfig } = source
  const entries = entriesOf(source)
  const td = await typedoc()
  const app = await td.Application.bootstrapWithPlugins({
    entryPoints: entries.map((e) => e.entry),
    out,
    tsconfig,
    plugin: [toolchain.resolve('typedoc-plugin-markdown')],
    name: 'claude-jsonl',
    readme: 'none',
    // Source links would name dist/ lines and change with every edit above a declaration.
    disableSources: true,
    // tsc has checked the program already.
    skipErrorChecking: true,
    excludePrivate: true,
    excludeProtected: true,
    // Members inherited from Error and other platform types are documented by the platform.
    excludeExternals: true,
    logLevel: 'Warn',
    validation: { notExported: true, invalidLink: true, notDocumented: false },
    // typedoc-plugin-markdown
    entryFileName: 'README.md',
    // The index lists each export with the first sentence of its comment.
    indexFormat: 'table',
    hidePageHeader: true,
    useCodeBlocks: true,
    parametersFormat: 'table',
    interfacePropertiesFormat: 'table',
    classPropertiesFormat: 'table',
    typeAliasPropertiesFormat: 'table',
    enumMembersFormat: 'table',
    propertyMembersFormat: 'table',
    typeDeclarationFormat: 'table',
  })
  const project = await app.convert()
  if (!project)
    throw new Error(
      `api-docs: TypeDoc could not convert ${entries.map((e) => relative(root, e.entry)).join(', ')} (run \`npm run build:ts\`)`,
    )
  return { td, app, project, entries }
}

/**
 * Each entry point's reflection with the name users import it by: the project itself for one
 * entry point, else its modules, by the name each entry file gives its module.
 */
function entryModules(project, entries, K) {
  const children = project.children ?? []
  if (entries.length === 1 || !children.every((c) => c.kindOf(K.Module)))
    return [{ name: entries[0].name, exp: project }]
  // Each entry file names its module (`@module claude-jsonl/compress`).
  const byName = new Map(children.map((m) => [m.name, m]))
  return entries.map((e) => {
    const m = byName.get(e.name)
    if (!m) throw new Error(`api-docs: no module named ${e.name} (TypeDoc made ${[...byName.keys()].join(', ')})`)
    return { name: e.name, exp: m }
  })
}

/** Every file under `dir`, as a map from its path relative to `dir` (with `/`) to its text. */
function readTree(dir) {
  const out = new Map()
  const walk = (d) => {
    for (const name of readdirSync(d).sort()) {
      const path = join(d, name)
      if (statSync(path).isDirectory()) walk(path)
      else out.set(relative(dir, path).split(sep).join('/'), readFileSync(path, 'utf8'))
    }
  }
  walk(dir)
  return out
}

/** The text of a doc comment's summary, or '' (a comment of only tags does not count). */
function summaryText(comment) {
  return (comment?.summary ?? [])
    .map((part) => part.text)
    .join('')
    .trim()
}

function documented(reflection) {
  if (summaryText(reflection.comment)) return true
  for (const sig of [...(reflection.signatures ?? []), reflection.getSignature, reflection.setSignature])
    if (sig && summaryText(sig.comment)) return true
  // A property whose type is a function literal may carry its comment on the signature.
  const decl = reflection.type?.type === 'reflection' ? reflection.type.declaration : null
  return Boolean(decl?.signatures?.some((sig) => summaryText(sig.comment)))
}

function isCallable(reflection, K) {
  if (reflection.kindOf(K.Method)) return true
  const decl = reflection.type?.type === 'reflection' ? reflection.type.declaration : null
  return Boolean(decl?.signatures?.length)
}

/**
 * The public names that must have a doc comment and have none: every export; every own member of a
 * class (its constructor is described by the class); every method or function-valued member of an
 * interface (something the caller calls, or that calls the caller back); every member of an
 * `...Options` interface (what a caller chooses). Plain data fields of result interfaces are
 * named by their type and may go without.
 */
export function undocumented(project, K, modules = [{ exp: project }]) {
  const missing = []
  for (const exp of modules.flatMap((m) => m.exp.children ?? [])) {
    if (!documented(exp)) missing.push(`${K[exp.kind]} ${exp.name}`)
    if (!exp.kindOf(K.Class | K.Interface)) continue
    for (const member of exp.children ?? []) {
      if (member.inheritedFrom || member.kindOf(K.Constructor)) continue
      const required = exp.kindOf(K.Class) || isCallable(member, K) || exp.name.endsWith('Options')
      if (required && !documented(member)) missing.push(`${K[exp.kind]} ${exp.name}: member ${member.name}`)
    }
  }
  return missing
}

// ---- the surface report: every export with its signature, no comments ----

function typeText(type, K) {
  if (!type) return 'unknown'
  if (type.type === 'reflection') return literalText(type.declaration, K)
  return type.toString()
}

function paramsText(sig, K) {
  return (sig.parameters ?? [])
    .map((p) => {
      const rest = p.flags.isRest ? '...' : ''
      const opt = p.flags.isOptional ? '?' : ''
      return `${rest}${p.name}${opt}: ${typeText(p.type, K)}`
    })
    .join(', ')
}

function typeParamsText(owner) {
  const tps = owner.typeParameters ?? []
  if (!tps.length) return ''
  return `<${tps
    .map(
      (tp) =>
        `${tp.name}${tp.type ? ` extends ${tp.type.toString()}` : ''}${tp.default ? ` = ${tp.default.toString()}` : ''}`,
    )
    .join(', ')}>`
}

function signatureText(sig, K, { arrow = false } = {}) {
  const ret = typeText(sig.type, K)
  return `${typeParamsText(sig)}(${paramsText(sig, K)})${arrow ? ' => ' : ': '}${ret}`
}

/** An object or function type literal, on one line. */
function literalText(decl, K) {
  if (decl.signatures?.length && !decl.children?.length) {
    const [first, ...more] = decl.signatures.map((s) => signatureText(s, K, { arrow: true }))
    return more.length ? `{ ${[first, ...more].join('; ')} }` : `(${first})`
  }
  const parts = (decl.children ?? []).map((m) => memberText(m, K))
  for (const s of decl.signatures ?? []) parts.push(signatureText(s, K))
  if (decl.indexSignatures) for (const s of decl.indexSignatures) parts.push(indexText(s, K))
  return parts.length ? `{ ${parts.join('; ')} }` : '{}'
}

function indexText(sig, K) {
  const [key] = sig.parameters ?? []
  return `[${key?.name ?? 'key'}: ${typeText(key?.type, K)}]: ${typeText(sig.type, K)}`
}

function modifiers(m) {
  return `${m.flags.isStatic ? 'static ' : ''}${m.flags.isReadonly ? 'readonly ' : ''}`
}

function memberText(m, K) {
  if (m.kindOf(K.Method))
    return (m.signatures ?? []).map((s) => `${modifiers(m)}${m.name}${signatureText(s, K)}`).join('; ')
  if (m.kindOf(K.Accessor)) {
    const get = m.getSignature ? `get ${m.name}(): ${typeText(m.getSignature.type, K)}` : ''
    const set = m.setSignature ? `set ${m.name}(${paramsText(m.setSignature, K)})` : ''
    return `${modifiers(m)}${[get, set].filter(Boolean).join('; ')}`
  }
  if (m.kindOf(K.Constructor)) return (m.signatures ?? []).map((s) => `constructor(${paramsText(s, K)})`).join('; ')
  return `${modifiers(m)}${m.name}${m.flags.isOptional ? '?' : ''}: ${typeText(m.type, K)}`
}

function heritage(exp) {
  const ext = (exp.extendedTypes ?? []).map((t) => t.toString())
  const impl = (exp.implementedTypes ?? []).map((t) => t.toString())
  return `${ext.length ? ` extends ${ext.join(', ')}` : ''}${impl.length ? ` implements ${impl.join(', ')}` : ''}`
}

function exportText(exp, K) {
  const name = `${exp.name}${typeParamsText(exp)}`
  if (exp.kindOf(K.Function)) return (exp.signatures ?? []).map((s) => `function ${exp.name}${signatureText(s, K)}`)
  if (exp.kindOf(K.Variable)) return [`const ${exp.name}: ${typeText(exp.type, K)}`]
  if (exp.kindOf(K.TypeAlias)) return [`type ${name} = ${typeText(exp.type, K)}`]
  if (exp.kindOf(K.Class | K.Interface)) {
    const lines = [`${exp.kindOf(K.Class) ? 'class' : 'interface'} ${name}${heritage(exp)}`]
    for (const m of exp.children ?? []) if (!m.inheritedFrom) lines.push(`  ${memberText(m, K)}`)
    return lines
  }
  return [`${K[exp.kind]} ${exp.name}`]
}

/**
 * Types of this package that the public API names but the package root does not export (a user
 * can see them in a signature but cannot import them), each with the exports that name it.
 */
function notExported(app, project, modules) {
  const json = app.serializer.projectToObject(project, root)
  // This package is the one the exports are declared in (a dependency's types are not ours to export).
  const first = modules[0]?.exp.children?.[0]
  const own = first ? project.getSymbolIdFromReflection(first)?.packageName : undefined
  const users = new Map()
  const walk = (value, owner) => {
    if (Array.isArray(value)) for (const v of value) walk(v, owner)
    else if (value && typeof value === 'object') {
      // A reference resolved inside the project has a numeric target; an unresolved one names its symbol.
      const target = value.type === 'reference' ? value.target : undefined
      if (target && typeof target === 'object' && target.packageName === own) {
        const names = users.get(target.qualifiedName) ?? new Set()
        names.add(owner)
        users.set(target.qualifiedName, names)
      }
      for (const v of Object.values(value)) walk(v, owner)
    }
  }
  const top = json.children ?? []
  const exported = modules.length > 1 ? top.flatMap((m) => m.children ?? []) : top
  for (const child of exported) walk(child, child.name)
  return [...users]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, owners]) => `${name}: ${[...owners].sort().join(', ')}`)
}

/** The surface report: per entry point, one line per export (and per own member of a class or
 * interface), sorted. */
export function surfaceReport(modules, K, unexported = []) {
  const sorted = (m) => [...(m.exp.children ?? [])].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
  const total = modules.reduce((n, m) => n + (m.exp.children?.length ?? 0), 0)
  const sections = modules.flatMap((m) => [
    ...(modules.length > 1 ? [`## \`${m.name}\``, '', `${sorted(m).length} exports.`, ''] : []),
    '```ts',
    sorted(m)
      .map((exp) => exportText(exp, K).join('\n'))
      .join('\n'),
    '```',
    '',
  ])
  return [
    '# Public API surface',
    '',
    'Every export of each entry point of the `claude-jsonl` package with its signature, and the own',
    'members of each class and interface, read from the declarations the package ships',
    '(`dist/src-ts/**/index.d.ts`). Generated by `npm run docs:api`; `__test__/api-docs.test.ts`',
    'fails when it differs from what the code declares, so a change of the public API shows up here',
    `in review. Doc comments are in the [reference](README.md). ${total} exports in all.`,
    '',
    ...sections,
    '## Named but not exported',
    '',
    'Types of this package that appear in the signatures above but cannot be imported from any',
    'entry point, each with the exports that name it.',
    '',
    '```text',
    ...(unexported.length ? unexported : ['(none)']),
    '```',
    '',
  ].join('\n')
}

/**
 * Renders the reference and the surface report into memory: a map from each file's path under
 * docs/api/ to its text, and the names that lack a doc comment. `source` (an entry .d.ts and the
 * tsconfig.json that compiles it) defaults to the package's shipped declarations.
 */
export async function renderApiDocs(source = shipped) {
  const scratch = mkdtempSync(join(tmpdir(), 'claude-jsonl-api-docs-'))
  try {
    const { td, app, project, entries } = await convert(source, scratch)
    const K = td.ReflectionKind
    const modules = entryModules(project, entries, K)
    // The markdown plugin's output, into `out`
    await app.generateOutputs(project)
    if (app.logger.hasErrors()) throw new Error('api-docs: TypeDoc reported errors (above)')
    const files = readTree(scratch)
    files.set('surface.md', surfaceReport(modules, K, notExported(app, project, modules)))
    return { files, undocumented: undocumented(project, K, modules) }
  } finally {
    rmSync(scratch, { recursive: true, force: true })
  }
}

async function main() {
  const { files, undocumented: missing } = await renderApiDocs()
  rmSync(apiDir, { recursive: true, force: true })
  for (const [path, text] of files) {
    const to = join(apiDir, ...path.split('/'))
    mkdirSync(dirname(to), { recursive: true })
    writeFileSync(to, text)
  }
  console.log(`api-docs: wrote ${files.size} files to ${relative(root, apiDir)}/`)
  if (missing.length) {
    console.error(`api-docs: ${missing.length} public names have no doc comment:\n  ${missing.join('\n  ')}`)
    process.exitCode = 1
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main()
