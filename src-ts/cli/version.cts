// `claude-jsonl --version`: the line it prints, from the native core's own version. The installed
// command answers it before loading the rest of the CLI (bin.cts), the CLI module after (main.ts).
// CommonJS, so that bin.cts can require it without starting the ES module loader.

/** Whether `argv` (after the node and script paths) asks for the version. */
export const asksVersion = (argv: readonly string[]): boolean => argv[0] === '--version' || argv[0] === '-v'

/** The version line for the addon's version string. */
export const versionLine = (nativeVersion: string): string => `claude-jsonl ${nativeVersion}`
