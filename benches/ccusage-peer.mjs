// Where the benchmarks keep ccusage, the peer they compare with: pinned, installed from npm on
// first use into .bench-cache (gitignored), never into the project's node_modules.
import fs from 'node:fs'
import path from 'node:path'
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
export const PEER_VERSION = '20.0.24'
export const PEER_PREFIX = path.join(REPO, '.bench-cache', 'peers', `ccusage-${PEER_VERSION}`)
export const PEER_BIN = path.join(PEER_PREFIX, 'node_modules', '.bin', 'ccusage')

/** Installs the pinned ccusage into PEER_PREFIX; returns npm's exit status. */
export function installPeer() {
  fs.mkdirSync(PEER_PREFIX, { recursive: true })
  const r = spawnSync(
    'npm',
    ['install', '--prefix', PEER_PREFIX, '--no-audit', '--no-fund', '--save-exact', `ccusage@${PEER_VERSION}`],
    { stdio: ['ignore', 'inherit', 'inherit'] },
  )
  return r.status
}
