// Command-line parsing shared by every command: node:util parseArgs, strict, with --help;
// a bad flag is a usage error (exit 2) naming the command.
import { parseArgs, type ParseArgsConfig } from 'node:util'
import { usageError } from '../errors.js'

type Options = NonNullable<ParseArgsConfig['options']>

export interface Parsed<O extends Options> {
  values: { [K in keyof O]?: O[K]['type'] extends 'boolean' ? boolean : string } & { help?: boolean }
  positionals: string[]
}

export function parseCommand<const O extends Options>(command: string, args: string[], options: O): Parsed<O> {
  try {
    return parseArgs({
      args,
      options: { ...options, help: { type: 'boolean', short: 'h' } } as O & { help: { type: 'boolean'; short: 'h' } },
      allowPositionals: true,
      strict: true,
    }) as Parsed<O>
  } catch (e) {
    throw usageError(`${command}: ${(e as Error).message.split('\n')[0]} (see claude-jsonl ${command} --help)`)
  }
}

/** Writes `text` to stdout with exactly one trailing newline. */
export function print(text: string): void {
  process.stdout.write(text.endsWith('\n') ? text : text + '\n')
}
