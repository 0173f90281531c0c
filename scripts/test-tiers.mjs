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
  // offline, but a fifth of the quick run's time on what an edit seldom breaks: the generated API
  // reference (typedoc over the whole package) and the start-up guard (dozens of whole processes)
  'api-docs',
  'startup',
]

/**
 * The longest test files, longest first (seconds from load to exit in a full run on a 2-core
 * machine: the real client about 90, the fixture compressions and Spark about 50, the rest 15 to
 * 30). ava runs two files at a time in the order it is given: started last, the longest file
 * would end the run alone while the other slot idles, so these start first and the short files
 * fill in around them.
 */
export const LONGEST_FIRST = [
  'real-client',
  'compress-fixtures',
  'dataset-spark',
  'compress',
  'repair-real-client',
  'package',
  'claude-code-plugin',
  'dataset',
  'real-client-cleanup',
  'in-place-crash',
  'batch',
  'cli-user',
  'archive',
]

/** ava's `sortTestFiles`: the files of LONGEST_FIRST in its order, then the rest by name. */
export function longestFirst(a, b) {
  const rank = (file) => {
    const name = file.replace(/^.*[\\/]/, '').replace(/\.test\.js$/, '')
    const i = LONGEST_FIRST.indexOf(name)
    return i < 0 ? LONGEST_FIRST.length : i
  }
  return rank(a) - rank(b) || a.localeCompare(b)
}
