#!/usr/bin/env node
// The claude-jsonl command line: finds the command in the registry, loads its module and runs
// it. Every failure is one line on stderr and a documented exit code (docs/exit-codes.md);
// nothing is ever written into the estate.
import { ClaudeJsonlError, EXIT, usageError } from '../errors.js'
import { runCommand } from './command.js'
import { writeStdout, writeStderr } from '../terminal/output.cjs'
import { COMMANDS, globalHelp } from './registry.js'
import { asksVersion, versionLine } from './version.cjs'

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv
  const print = (text: string) => writeStdout(text + '\n')
  if (asksVersion(argv)) {
    const { default: native } = await import('../native.js')
    return (print(versionLine(native.version())), EXIT.ok)
  }
  if (name === undefined || name === '--help' || name === '-h' || name === 'help')
    return (print(globalHelp()), name === undefined ? EXIT.usage : EXIT.ok)
  const entry = COMMANDS.find((c) => c.name === name)
  if (!entry) throw usageError(`unknown command '${name}' (see claude-jsonl --help)`)
  return runCommand((await entry.load()).command, rest)
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code
  },
  (e: unknown) => {
    if (e instanceof ClaudeJsonlError) {
      writeStderr(`claude-jsonl: ${e.message}\n`)
      process.exitCode = e.exitCode
    } else {
      const msg = e instanceof Error ? e.message.split('\n')[0] : String(e)
      writeStderr(`claude-jsonl: internal error: ${msg}\n`)
      process.exitCode = EXIT.internal
    }
  },
)
