#!/usr/bin/env node
// Bundles the compiled CLI (dist/src-ts/cli/main.js and every module it reaches, the library's
// included) into CommonJS files which the installed command (bin.cjs) loads: Node then resolves,
// reads and compiles one file instead of a few dozen ES modules, and needs no ES module loader at
// all for most commands.
//   - dist/src-ts/cli/bundle.<command>.cjs, one per command of the registry: the CLI with only
//     that command's module (the registry's other imports are left out), which bin.cjs runs when
//     the first argument names the command. Reading and compiling a file costs in proportion to
//     its size, even from V8's code cache: `stats` alone is a fifth of the whole CLI, and its
//     start-up is a few milliseconds shorter for it.
//   - dist/src-ts/cli/bundle.cjs, every command: for `--help`, an unknown command and anything
//     else no command's own bundle answers.
// Each command's module stays behind a lazy initialiser inside a bundle, so a command runs only its
// own modules' top level (the price table included). The native addon and the npm dependencies
// stay outside the bundles and load as before, only when used. The unbundled modules are kept:
// they are the library's entry points, and the batch worker thread loads its own module from them.
// esbuild writes other characters as escapes where it can (`charset: 'ascii'`), so that Node reads
// a bundle into a one-byte string, half the work of a file with any other character; a regular
// expression of other scripts' words stays as written (compress's summary cues).
//
//   node scripts/bundle-cli.mjs          (run by `npm run build:ts`, after tsc)
import { build } from 'esbuild'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..')
const cliDir = path.join(root, 'dist', 'src-ts', 'cli')

/**
 * `import.meta.url` means the module's own file. In the bundle each module keeps meaning its own
 * compiled file (beside which it finds its worker or resolves its dependencies), written relative
 * to the bundle so that the installed package can live anywhere.
 */
const MODULE_URL = '__claudeJsonlModuleUrl'
const MODULE_URL_FN = `function ${MODULE_URL}(rel) { return require('node:url').pathToFileURL(require('node:path').join(__dirname, rel)).href }`
const ownUrl = {
  name: 'own-import-meta-url',
  setup(b) {
    b.onLoad({ filter: /\.js$/ }, async (args) => {
      const fs = await import('node:fs/promises')
      const text = await fs.readFile(args.path, 'utf8')
      if (!text.includes('import.meta.url')) return undefined
      const rel = path.relative(cliDir, args.path).split(path.sep).join('/')
      return { contents: text.replaceAll('import.meta.url', `${MODULE_URL}(${JSON.stringify(rel)})`), loader: 'js' }
    })
  },
}

/**
 * `#native`, the package's own import of the addon loader, becomes the loader's path from the
 * bundles' folder (dist/src-ts/cli/ to the package root, where native.cjs lies in a checkout and in
 * the installed package alike): resolving a package import loads Node's ES module resolver, which
 * costs a command a millisecond of start-up.
 */
const nativeByPath = {
  name: 'native-by-path',
  setup(b) {
    b.onResolve({ filter: /^#native$/ }, () => ({ path: '../../../native.cjs', external: true }))
  },
}

/** The module file each command of the registry loads, by command name. */
async function commandModules() {
  const { COMMANDS } = await import(pathToFileURL(path.join(cliDir, 'registry.js')).href)
  return new Map(
    COMMANDS.map((c) => {
      const m = /import\(['"](\.\/[\w-]+\.js)['"]\)/.exec(String(c.load))
      if (!m)
        throw new Error(`bundle-cli: the registry's command ${c.name} does not load one module by a literal import`)
      return [c.name, m[1]]
    }),
  )
}

/** Leaves out of a command's bundle every command module of the registry but its own. */
const onlyCommand = (own) => ({
  name: 'only-command',
  setup(b) {
    b.onResolve({ filter: /^\.\/[\w-]+\.js$/ }, (args) =>
      path.basename(args.importer) === 'registry.js' && args.path !== own
        ? { path: args.path, namespace: 'left-out-command' }
        : undefined,
    )
    b.onLoad({ filter: /.*/, namespace: 'left-out-command' }, (args) => ({
      contents: `throw new Error(${JSON.stringify(`${args.path} is not in this command's bundle`)})`,
      loader: 'js',
    }))
  },
})

const options = (outfile, plugins) => ({
  entryPoints: [path.join(cliDir, 'main.js')],
  outfile,
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  charset: 'ascii',
  // Dependencies are loaded from node_modules only by the commands that use them.
  packages: 'external',
  // The MCP server's command stays an ES module of its own: it loads the SDK bundled for it
  // (scripts/bundle-mcp.mjs), which no other command should pay to parse.
  external: ['./mcp-command.js'],
  plugins: [...plugins, nativeByPath, ownUrl],
  logLevel: 'warning',
  legalComments: 'none',
  banner: { js: '// Generated by scripts/bundle-cli.mjs from the compiled CLI: do not edit.' },
  // The helper sits at the bundle's top level (hoisted), where `require` is Node's own (a module
  // may name its own `require`); after the code, so that the bundle's "use strict" stays first.
  footer: { js: MODULE_URL_FN },
})

// `mcp` and `statusline` run from main.js, not a bundle (bin.cts says why).
const own = [...(await commandModules())].filter(([name]) => name !== 'mcp' && name !== 'statusline')
for (const f of fs.readdirSync(cliDir)) if (/^bundle\..+\.cjs$/.test(f)) fs.rmSync(path.join(cliDir, f))
await Promise.all([
  build(options(path.join(cliDir, 'bundle.cjs'), [])),
  ...own.map(([name, module]) => build(options(path.join(cliDir, `bundle.${name}.cjs`), [onlyCommand(module)]))),
])
