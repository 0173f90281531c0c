// Which test files `npm run test:quick` (the offline edit-test loop) leaves out, in one place: the
// runner (scripts/test.mjs) reads it. A test that would start the Claude Code client, Chromium, an
// S3 server or Spark in the quick run fails (__test__/helpers/quick.ts), so a file that needs one
// is listed here, or marks those tests to be skipped there (__test__/helpers/tiers.ts).

/** Whole test files left out of the quick run, by name without `.test.js`. */
export const NOT_QUICK = [
  // the real Claude Code client (installed from the npm registry)
  'real-client',
  'real-client-cleanup',
  'in-place-real-client',
  'repair-real-client',
  'claude-code-plugin',
  'compress-fixtures',
  // npm installs of the packed packages
  'package',
  // Chromium
  'serve-browser',
  // a JVM (Spark in local mode) and an S3-compatible server (moto)
  'dataset-spark',
  'dataset-s3',
]
