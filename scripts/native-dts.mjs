// native.d.cts from the Rust source: napi-derive writes an intermediate type-def file while
// it compiles the binding (into the folder build-native.mjs names in NAPI_TYPE_DEF_TMP_FOLDER),
// and the napi CLI renders it as TypeScript. Used by `npm run build:dts` (which writes the
// file) and by the test that fails when the committed file differs from a fresh rendering.
import { existsSync, readdirSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

export const root = join(dirname(fileURLToPath(import.meta.url)), '..')
/** Where each addon build leaves napi-derive's intermediate type definitions. */
export const typeDefDir = join(root, 'target', 'napi-type-def')
export const dtsPath = join(root, 'native.d.cts')

const HEADER = `// Types of the native addon's exports, generated from the Rust source (crate/node/src/)
// by \`npm run build:dts\`: do not edit. A test fails when this file is not what the current
// source generates. The hand-written loader is native.cjs.
`

/** True once a build has left type definitions to render. */
export function haveTypeDefs() {
  return existsSync(typeDefDir) && readdirSync(typeDefDir).length > 0
}

/** The text native.d.cts should hold for the binding as last compiled. */
export async function renderNativeDts() {
  if (!haveTypeDefs()) {
    throw new Error(`no type definitions in ${typeDefDir}: run \`npm run build:dts\` (it builds the addon first)`)
  }
  const { generateTypeDef } = await import('@napi-rs/cli')
  // string enums as union types, so TypeScript compares them with plain string literals
  const { dts } = await generateTypeDef({ typeDefDir, cwd: root, constEnum: false, dtsHeader: HEADER })
  return dts.endsWith('\n') ? dts : `${dts}\n`
}
