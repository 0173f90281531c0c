// Marks for the tests of a file that need what `npm run test:quick` never starts (the Claude Code
// client, a browser, Spark, an S3 server; see helpers/quick.ts): they are skipped there, and say so.
// Whole files of such tests are left out by the runner instead (scripts/test-tiers.mjs).
import test from 'ava'
import { QUICK } from './quick.js'

export { QUICK }
/** A test that drives the real client or a browser: skipped (and said so) in the quick run. */
export const slowTest = QUICK ? test.skip : test
/** The same, run serially. */
export const slowSerial = QUICK ? test.serial.skip : test.serial
/** A test only `npm run test:full` runs (CLAUDE_JSONL_TEST_FULL): minutes of work that `npm test`
 * covers another way; skipped (and said so) otherwise. */
export const fullSerial = process.env.CLAUDE_JSONL_TEST_FULL === '1' ? test.serial : test.serial.skip
