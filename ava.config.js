// ava's settings (a JS file rather than package.json, because the file order is a function).
import { longestFirst } from './scripts/test-tiers.mjs'

export default {
  files: ['dist/__test__/**/*.test.js'],
  require: ['./dist/__test__/helpers/file-timing.js', './dist/__test__/helpers/exit-when-done.js'],
  timeout: '5m',
  workerThreads: false,
  concurrency: 2,
  sortTestFiles: longestFirst,
}
