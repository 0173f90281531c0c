// The npm dependencies only some commands need (DuckDB, the AWS SDK's S3 client, the Anthropic
// SDK) are loaded with require when a command first needs one, never at start-up. Not with import(): the
// installed command runs the CLI bundle from V8's code cache, and a script read from that cache
// has no loader for import() on Node 20 ("A dynamic import callback was not specified").
import { createRequire } from 'node:module'

const requireHere = createRequire(import.meta.url)

/** The package `name`, resolved from this module's folder as an import would resolve it. */
export function requireDependency(name: '@duckdb/node-api' | '@aws-sdk/client-s3' | '@anthropic-ai/sdk'): unknown {
  return requireHere(name)
}
