#!/usr/bin/env node
// Writes docs/finding-codes.md from the validator's finding codes (crate/core/src/validate/codes.rs):
// runs the Rust test that compares the committed table, asking it to write the table first.
import { spawnSync } from 'node:child_process'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const r = spawnSync(
  'cargo',
  [
    'test',
    '--profile',
    'fast',
    '-p',
    'claude-jsonl-core',
    '--lib',
    'validate::tests::finding_codes_table_is_current',
    '--',
    '--exact',
  ],
  { cwd: root, stdio: 'inherit', env: { ...process.env, CLAUDE_JSONL_WRITE_FINDING_CODES: '1' } },
)
process.exit(r.status ?? 1)
