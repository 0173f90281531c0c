// `npm run test:quick` (CLAUDE_JSONL_TEST_QUICK=1) is the offline edit-test loop: no Claude Code
// client, no browser, no Spark, no S3 server. The helpers that start one call `refuseInQuick`, so a
// test that would start one in the quick run fails and says how to mark it, rather than slowing the
// loop down unseen. (No ava import here: .ci/run loads the client helper outside ava.)

export const QUICK = process.env.CLAUDE_JSONL_TEST_QUICK === '1'

export function refuseInQuick(what: string): void {
  if (!QUICK) return
  throw new Error(
    `npm run test:quick starts no ${what}: list the test file in scripts/test-tiers.mjs, ` +
      `or mark the test with slowTest/slowSerial (__test__/helpers/tiers.ts)`,
  )
}
