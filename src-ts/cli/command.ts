// The declarative command line. A command declares its arguments and options once (kind, value
// name, one help line); from that declaration this module parses the arguments (node:util
// parseArgs tokens, worded here), validates every value (numbers, choices, required options, options that
// exclude each other, the argument count) and writes the command's --help. A command's run()
// only ever sees values that passed.
import { parseArgs } from 'node:util'
import { usageError } from '../errors.js'
import { writeStdout } from '../terminal/output.cjs'

interface OptionBase {
  /** One line for --help. */
  help: string
  /** Refused as a usage error when missing. */
  required?: boolean
}
export interface FlagOption extends OptionBase {
  kind: 'flag'
  short?: string
}
export interface StringOption extends OptionBase {
  kind: 'string'
  /** The value's name in --help: DIR, FILE, DATE... */
  value: string
}
export interface ChoiceOption<C extends string = string> extends OptionBase {
  kind: 'choice'
  choices: readonly C[]
}
export interface NumberOption extends OptionBase {
  kind: 'number'
  value: string
  /** 'integer': digits only; 'decimal': digits with at most one point. */
  form: 'integer' | 'decimal'
  /** The smallest integer accepted (a decimal's range is its consumer's rule). */
  min: number
  /** What the option takes, for the error: "a whole number", "a number of turns"... */
  noun: string
}
export type OptionSpec = FlagOption | StringOption | ChoiceOption | NumberOption
export type Options = Record<string, OptionSpec>

type Extra = { required?: boolean }

/** A boolean flag. */
export const flag = (help: string, o: { short?: string } = {}): FlagOption => ({ kind: 'flag', help, ...o })

/** A string value, passed on as given. */
export const text = <const E extends Extra>(value: string, help: string, o?: E): StringOption & E =>
  ({ kind: 'string', value, help, ...o }) as StringOption & E

/** One of `choices`. */
export const choice = <const C extends string>(choices: readonly C[], help: string): ChoiceOption<C> => ({
  kind: 'choice',
  choices,
  help,
})

/** An integer of at least 0 (or `min`). */
export const wholeNumber = (value: string, help: string, o: { min?: number; noun?: string } = {}): NumberOption => ({
  kind: 'number',
  form: 'integer',
  value,
  help,
  min: o.min ?? 0,
  noun: o.noun ?? (o.min === 1 ? 'a positive whole number' : 'a whole number'),
})

/** A decimal number such as 0.25 or .5; `noun` names its range. */
export const decimal = (value: string, help: string, noun: string): NumberOption => ({
  kind: 'number',
  form: 'decimal',
  value,
  help,
  min: 0,
  noun,
})

type ValueOf<S> = S extends FlagOption
  ? boolean
  : S extends ChoiceOption<infer C>
    ? C
    : S extends NumberOption
      ? number
      : string

export type Values<O extends Options> = {
  [K in keyof O]: O[K] extends { required: true } ? ValueOf<O[K]> : ValueOf<O[K]> | undefined
}

export interface CommandContext<O extends Options> {
  values: Values<O>
  positionals: string[]
  /** Writes `text` to the command's output with exactly one trailing newline. */
  print(text: string): void
}

export interface Command<O extends Options = Options> {
  name: string
  /** The arguments after the command name in the usage line: "SESSION", "[PATH...]". */
  args: string
  /**
   * When the command takes exactly one argument: its name and what it may be; with `unless`,
   * none when that option is given (`compress SESSION | --all`).
   */
  oneArgument?: { name: string; what?: string; unless?: keyof O & string }
  options: O
  /** Pairs of options that cannot be given together. */
  conflicts?: readonly (readonly [keyof O & string, keyof O & string])[]
  /** Paragraphs printed under the usage line. */
  description?: string
  /** The command's exit codes, printed last. */
  exitCodes?: string
  run(ctx: CommandContext<O>): Promise<number>
}

/** Declares a command (an identity function that lets TypeScript infer its option values). */
export function defineCommand<const O extends Options>(command: Command<O>): Command<O> {
  return command
}

const see = (name: string) => `(see claude-jsonl ${name} --help)`

function parseNumber(command: string, flagName: string, spec: NumberOption, raw: string): number {
  const shape = spec.form === 'integer' ? /^\d+$/ : /^\d*\.?\d+$/
  const n = Number(raw)
  if (!shape.test(raw) || n < spec.min) throw usageError(`${command}: --${flagName} takes ${spec.noun}, not '${raw}'`)
  return n
}

function listChoices(choices: readonly string[]): string {
  return choices.length < 2 ? choices.join('') : `${choices.slice(0, -1).join(', ')} or ${choices.at(-1)}`
}

type ParseConfig = Record<string, { type: 'boolean' | 'string'; short?: string }>

/**
 * Splits `args` into option values and positionals. Node's parseArgs tokenizes (non-strict, so
 * every token comes back); the checks and their wording are ours, so every command words an
 * unknown option, a missing value or a value that looks like an option the same way.
 */
function readTokens(
  name: string,
  args: string[],
  config: ParseConfig,
  options: Options,
): { values: Record<string, string | boolean | undefined>; positionals: string[] } {
  const { tokens } = parseArgs({ args, options: config, allowPositionals: true, strict: false, tokens: true })
  const values: Record<string, string | boolean | undefined> = {}
  const positionals: string[] = []
  const shorts = new Set(Object.values(config).map((c) => c.short && `-${c.short}`))
  const isOption = (arg: string) => (arg.startsWith('--') ? arg.slice(2).split('=')[0] in config : shorts.has(arg))
  for (const token of tokens) {
    if (token.kind === 'positional') positionals.push(token.value)
    if (token.kind !== 'option') continue
    const spec = config[token.name]
    const label = token.rawName.startsWith('--') ? token.rawName : `${token.rawName} (--${token.name})`
    if (!spec) throw usageError(`${name}: unknown option ${token.rawName} ${see(name)}`)
    if (spec.type === 'boolean') {
      if (token.value !== undefined) throw usageError(`${name}: ${label} takes no value ${see(name)}`)
      values[token.name] = true
      continue
    }
    const declared = options[token.name]
    const valueName = declared && declared.kind !== 'flag' && declared.kind !== 'choice' ? declared.value : 'a value'
    const v = token.value
    if (v === undefined || (!token.inlineValue && isOption(v)))
      throw usageError(
        `${name}: ${label} needs ${valueName === 'a value' ? valueName : `a value (${valueName})`} ${see(name)}`,
      )
    if (v === '') throw usageError(`${name}: ${label} needs a value, not an empty string ${see(name)}`)
    // A separate value that starts with '-' is taken only where it cannot be mistaken: a number
    // (refused by its own check below) or written joined, --exact=-p.
    if (!token.inlineValue && v.startsWith('-') && declared?.kind !== 'number')
      throw usageError(
        `${name}: ${label} ${v}: a value that starts with '-' is written joined, ${token.rawName}=${v} ${see(name)}`,
      )
    values[token.name] = v
  }
  return { values, positionals }
}

/** Parses and validates `args` against `command`'s declaration; `help` is true for -h/--help. */
export function parseCommandLine<O extends Options>(
  command: Command<O>,
  args: string[],
): { help: boolean; values: Values<O>; positionals: string[] } {
  const { name, options } = command
  const config: ParseConfig = {
    help: { type: 'boolean', short: 'h' },
  }
  for (const [key, spec] of Object.entries(options))
    config[key] =
      spec.kind !== 'flag'
        ? { type: 'string' }
        : spec.short
          ? { type: 'boolean', short: spec.short }
          : { type: 'boolean' }
  const { values: raw, positionals } = readTokens(name, args, config, options)
  if (raw.help) return { help: true, values: {} as Values<O>, positionals }
  const values: Record<string, unknown> = {}
  for (const [key, spec] of Object.entries(options)) {
    const v = raw[key]
    if (v === undefined) {
      if (spec.required)
        throw usageError(
          `${name}: --${key}${spec.kind === 'string' || spec.kind === 'number' ? ` ${spec.value}` : ''} is required ${see(name)}`,
        )
      continue
    }
    if (spec.kind === 'number') values[key] = parseNumber(name, key, spec, v as string)
    else if (spec.kind === 'choice' && !spec.choices.includes(v as string))
      throw usageError(`${name}: unknown --${key} '${v}' (${listChoices(spec.choices)})`)
    else values[key] = v
  }
  for (const [a, b] of command.conflicts ?? [])
    if (values[a] !== undefined && values[b] !== undefined)
      throw usageError(`${name}: --${a} and --${b} exclude each other ${see(name)}`)
  const one = command.oneArgument
  if (one?.unless !== undefined && values[one.unless] !== undefined) {
    if (positionals.length > 0)
      throw usageError(`${name}: --${one.unless} takes no ${one.name}, got ${positionals.length} ${see(name)}`)
  } else if (one && positionals.length !== 1)
    throw usageError(
      `${name} takes one ${one.name}${one.what ? ` (${one.what})` : ''}, got ${positionals.length} ${see(name)}`,
    )
  return { help: false, values: values as Values<O>, positionals }
}

function optionLabel(key: string, spec: OptionSpec): string {
  const name = spec.kind === 'flag' && spec.short ? `-${spec.short}, --${key}` : `--${key}`
  if (spec.kind === 'flag') return name
  return `${name} ${spec.kind === 'choice' ? spec.choices.join('|') : spec.value}`
}

/** The usage line: the command, its arguments, its required options, then [options]. */
export function usageLine<O extends Options>(command: Command<O>): string {
  const required = Object.entries(command.options)
    .filter(([, s]) => s.required)
    .map(([k, s]) => optionLabel(k, s))
  return ['claude-jsonl', command.name, command.args, ...required, '[options]'].filter(Boolean).join(' ')
}

// --help fits in 100 columns: an option's help line wraps under itself.
const HELP_COLUMNS = 100

function wrap(text: string, columns: number): string[] {
  const out: string[] = []
  let line = ''
  for (const word of text.split(' ')) {
    if (line && line.length + 1 + word.length > columns) (out.push(line), (line = word))
    else line = line ? `${line} ${word}` : word
  }
  return [...out, line]
}

/** A command's --help: its usage, description, every option with its help line, exit codes. */
export function renderHelp<O extends Options>(command: Command<O>): string {
  const rows = [
    ...Object.entries(command.options).map(([k, s]) => [optionLabel(k, s), s.help]),
    ['-h, --help', 'print this help'],
  ]
  const width = Math.min(36, Math.max(...rows.map(([l]) => l.length)))
  const indent = ' '.repeat(width + 4)
  const lines = rows.map(([label, help]) => {
    const body = wrap(help, HELP_COLUMNS - indent.length).join(`\n${indent}`)
    return label.length > width ? `  ${label}\n${indent}${body}` : `  ${label.padEnd(width)}  ${body}`
  })
  return [
    `Usage: ${usageLine(command)}`,
    ...(command.description ? ['', command.description] : []),
    '',
    'Options:',
    ...lines,
    ...(command.exitCodes ? ['', command.exitCodes] : []),
  ].join('\n')
}

export type Write = (text: string) => void

/** Parses `args`, prints the help when asked, else runs the command on the validated values. */
export async function runCommand<O extends Options>(
  command: Command<O>,
  args: string[],
  write: Write = writeStdout,
): Promise<number> {
  const print = (text: string) => write(text.endsWith('\n') ? text : text + '\n')
  const { help, values, positionals } = parseCommandLine(command, args)
  if (help) return (print(renderHelp(command)), 0)
  return command.run({ values, positionals, print })
}
