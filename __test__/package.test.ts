// The published packages, as a user on this platform installs them: `npm run pack:local` builds the
// root tarball (listing every platform package as an optionalDependency) and this platform's
// prebuilt-addon tarball; they are installed into empty projects and used the way a user would.
import test from 'ava'
import { spawnSync, type SpawnSyncOptions } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, readFileSync, truncateSync, writeFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { dirname, join } from 'node:path'
import { createRequire } from 'node:module'
import { REPO, tempDir, assistant, userText, writeTree } from './helpers/transcripts.js'
import { fullSerial } from './helpers/tiers.js'

interface Packed {
  name: string
  path: string
  bytes: number
  files: string[]
}

const { platformArchABI, prebuiltTargets } = createRequire(import.meta.url)(join(REPO, 'platform.cjs')) as {
  platformArchABI(): string
  prebuiltTargets(): string[]
}
const abi = platformArchABI()
const rootPkg = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8'))
// npm and node without any Rust toolchain: only node's own folder and the system folders, and a
// HOME without ~/.cargo (the build script also looks there). npm keeps using the real cache.
const NO_RUST_PATH = [dirname(process.execPath), '/usr/bin', '/bin'].join(':')
const npmCache = process.env.npm_config_cache || join(homedir(), '.npm')

function sh(cmd: string, args: string[], opts: SpawnSyncOptions = {}) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 64 << 20, ...opts })
  return { code: r.status, stdout: String(r.stdout ?? ''), stderr: String(r.stderr ?? ''), error: r.error }
}

let packedOnce: Promise<Packed[]> | undefined
function pack(): Promise<Packed[]> {
  packedOnce ??= Promise.resolve().then(() => {
    const r = sh(process.execPath, [join(REPO, 'scripts', 'pack-local.mjs'), '--no-build'], { cwd: REPO })
    if (r.code !== 0) throw new Error(`pack:local failed (${r.code}): ${r.stderr.slice(-2000)}`)
    return r.stdout
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Packed)
  })
  return packedOnce
}

function emptyProject(env: NodeJS.ProcessEnv): string {
  const dir = tempDir('cj-install-')
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'user-project', private: true, type: 'module' }))
  mkdirSync(env.HOME!, { recursive: true })
  return dir
}

function npmInstall(dir: string, tarballs: string[], env: NodeJS.ProcessEnv) {
  const npmCli = join(dirname(process.execPath), '..', 'lib', 'node_modules', 'npm', 'bin', 'npm-cli.js')
  const npmArgs = existsSync(npmCli) ? [npmCli] : [process.env.npm_execpath ?? 'npm']
  return sh(
    process.execPath,
    [...npmArgs, 'install', '--no-audit', '--no-fund', '--prefer-offline', '--foreground-scripts', ...tarballs],
    { cwd: dir, env },
  )
}

const estate = () =>
  writeTree({
    'projects/-home-u-app/s1.jsonl': [userText('hi'), assistant({ messageId: 'm1', output: 42 })],
  })

test.serial(
  'pack:local: the root tarball lists every platform package and holds what the fallback build needs',
  async (t) => {
    const [root, platform] = await pack()
    t.is(root.name, 'claude-jsonl')
    t.is(platform.name, `claude-jsonl-${abi}`)
    t.log(`root ${root.bytes} bytes, ${root.files.length} files; ${platform.name} ${platform.bytes} bytes`)

    for (const banned of [
      '__test__/',
      'dist/__test__/',
      'fixtures/',
      'benches/',
      'target/',
      'crate/core/examples/',
      'npm/',
    ]) {
      t.deepEqual(
        root.files.filter((f) => f.startsWith(banned)),
        [],
        `${banned} is not packed`,
      )
    }
    for (const needed of [
      'Cargo.toml',
      'Cargo.lock',
      'crate/core/Cargo.toml',
      'crate/core/src/lib.rs',
      'crate/node/Cargo.toml',
      'crate/node/build.rs',
      'crate/node/src/lib.rs',
    ]) {
      t.true(root.files.includes(needed), `${needed} is packed for the fallback build`)
    }
    for (const needed of [
      'native.cjs',
      'native.d.cts',
      'platform.cjs',
      'scripts/build-native.mjs',
      'dist/src-ts/cli/bin.cjs',
      'dist/src-ts/cli/load-cached.cjs',
      'dist/src-ts/cli/bundle.cjs',
    ]) {
      t.true(root.files.includes(needed), `${needed} is packed`)
    }
    t.false(
      root.files.some((f) => f.endsWith('.node')),
      'the root package carries no addon',
    )
    t.deepEqual(platform.files.sort(), ['README.md', `claude-jsonl.${abi}.node`, 'package.json'].sort())

    // The packed package.json: one optional dependency per target, at the root's own version.
    const extracted = tempDir('cj-tar-')
    t.is(sh('tar', ['-xzf', root.path, '-C', extracted]).code, 0)
    const packedPkg = JSON.parse(readFileSync(join(extracted, 'package', 'package.json'), 'utf8'))
    t.deepEqual(
      packedPkg.optionalDependencies,
      Object.fromEntries(prebuiltTargets().map((target) => [`claude-jsonl-${target}`, rootPkg.version])),
    )
    t.deepEqual(readdirSync(join(REPO, 'npm')).sort(), prebuiltTargets().sort(), 'one npm/ folder per target')
    for (const target of prebuiltTargets()) {
      const p = JSON.parse(readFileSync(join(REPO, 'npm', target, 'package.json'), 'utf8'))
      t.is(p.version, rootPkg.version, `npm/${target} is at the root's version`)
      t.is(p.name, `claude-jsonl-${target}`)
    }
  },
)

test.serial('the prebuilt install works with no Rust toolchain: CLI, stats and the ESM API', async (t) => {
  const [root, platform] = await pack()
  const home = tempDir('cj-home-')
  const env = { PATH: NO_RUST_PATH, HOME: home, npm_config_cache: npmCache, CARGO_HOME: join(home, 'no-cargo') }
  t.not(sh('cargo', ['--version'], { env }).code, 0, 'cargo is not reachable in this environment')
  const dir = emptyProject(env)
  const install = npmInstall(dir, [root.path, platform.path], env)
  t.is(install.code, 0, install.stderr.slice(-3000))
  t.regex(install.stdout + install.stderr, /already loads; not building/)
  t.false(existsSync(join(dir, 'node_modules', 'claude-jsonl', `claude-jsonl.${abi}.node`)), 'nothing was built')

  const bin = join(dir, 'node_modules', '.bin', 'claude-jsonl')
  const version = sh(bin, ['--version'], { env })
  t.is(version.code, 0, version.stderr)
  t.is(version.stdout.trim(), `claude-jsonl ${rootPkg.version}`)

  const projects = join(estate(), 'projects')
  const stats = sh(bin, ['stats', '--projects', projects, '--json'], { env })
  t.is(stats.code, 0, stats.stderr)
  t.is(JSON.parse(stats.stdout).totals.outputTokens, 42)

  writeFileSync(
    join(dir, 'api.mjs'),
    `import { stats } from 'claude-jsonl'\n` +
      `import { plan } from 'claude-jsonl/compress'\n` +
      `import { isArchiveRoot } from 'claude-jsonl/archive'\n` +
      `import { Store } from 'claude-jsonl/store'\n` +
      `const report = await stats({ projects: process.argv[2] })\n` +
      `const tiers = [typeof plan, typeof isArchiveRoot, typeof Store]\n` +
      `console.log(JSON.stringify({ requests: report.totals.requests, output: report.totals.outputTokens, tiers }))\n`,
  )
  const api = sh(process.execPath, ['api.mjs', projects], { cwd: dir, env })
  t.is(api.code, 0, api.stderr)
  t.deepEqual(JSON.parse(api.stdout), { requests: 1, output: 42, tiers: ['function', 'function', 'function'] })

  // A platform package that is installed but broken: one line naming it and what was tried, exit 4.
  const addon = join(dir, 'node_modules', `claude-jsonl-${abi}`, `claude-jsonl.${abi}.node`)
  truncateSync(addon, 1000)
  const broken = sh(bin, ['--version'], { env })
  t.is(broken.code, 4, broken.stderr)
  t.is(broken.stderr.trim().split('\n').length, 1, broken.stderr)
  t.regex(broken.stderr, new RegExp(`claude-jsonl-${abi} does not load`))
  t.regex(broken.stderr, /npm rebuild claude-jsonl/)
})

// About two minutes of compiling the two crates again from the installed package's sources, so
// only in `npm run test:full`: `npm test` covers the fallback build by the checkout's own `npm
// install` (the same script) and by the first test here (the tarball holds what the build needs).
fullSerial('the root tarball alone builds the addon from source when Rust is present', async (t) => {
  const [root] = await pack()
  const home = tempDir('cj-home-')
  // The checkout's target folder and the `fast` profile `npm test`'s cargo test has just built in:
  // its compiled dependencies are reused, so only the two crates are built again from the installed
  // package's sources, without the release profile's fat LTO (minutes on two cores). `npm install`
  // of the checkout builds the release profile itself.
  const env = {
    ...process.env,
    CLAUDE_JSONL_CARGO_PROFILE: 'fast',
    HOME: home,
    npm_config_cache: npmCache,
    CARGO_HOME: process.env.CARGO_HOME ?? join(homedir(), '.cargo'),
    RUSTUP_HOME: process.env.RUSTUP_HOME ?? join(homedir(), '.rustup'),
    CARGO_TARGET_DIR: join(REPO, 'target'),
    PATH: `${process.env.PATH}:${join(homedir(), '.cargo', 'bin')}`,
  }
  const dir = emptyProject(env)
  const install = npmInstall(dir, [root.path], env)
  t.is(install.code, 0, install.stderr.slice(-3000))
  t.regex(install.stderr, /building the addon for .* from source/)
  t.true(existsSync(join(dir, 'node_modules', 'claude-jsonl', `claude-jsonl.${abi}.node`)), 'the addon was built')
  const version = sh(join(dir, 'node_modules', '.bin', 'claude-jsonl'), ['--version'], { env })
  t.is(version.code, 0, version.stderr)
  t.is(version.stdout.trim(), `claude-jsonl ${rootPkg.version}`)
})

test('the release workflow builds, tests and publishes every target of package.json', async (t) => {
  const { parse } = await import('yaml')
  const wf = parse(readFileSync(join(REPO, '.github', 'workflows', 'release.yml'), 'utf8'))
  const targets: string[] = rootPkg.napi.targets
  for (const job of ['build', 'test']) {
    const matrix = wf.jobs[job].strategy.matrix.include.map((m: { target: string }) => m.target)
    t.deepEqual([...matrix].sort(), [...targets].sort(), `the ${job} job covers every target`)
  }
  const steps = JSON.stringify(wf.jobs.publish.steps)
  t.regex(steps, /napi artifacts/)
  t.regex(steps, /--provenance/)
  t.is(wf.jobs.publish.permissions['id-token'], 'write')
})
