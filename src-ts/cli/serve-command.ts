// `claude-jsonl serve`: the local web view of an estate or an archive (sessions, search, usage),
// on 127.0.0.1 until interrupted.
import { startServer } from '../serve/server.js'
import { ClaudeJsonlError, EXIT, usageError } from '../errors.js'
import { defineCommand, runCommand, text, wholeNumber, type Write } from './command.js'
import { PROJECTS } from './common-options.js'
import { writeStderr } from '../terminal/output.cjs'

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1'])

export const command = defineCommand({
  name: 'serve',
  args: '[ARCHIVE]',
  options: {
    projects: PROJECTS,
    port: wholeNumber('N', 'the port to listen on (default 7421; 0 picks a free one)'),
    host: text('ADDR', 'the address to listen on (default 127.0.0.1; see the risk in docs/commands/serve.md)'),
    timezone: text('TZ', "IANA zone for days and times (default: the system's)"),
    'index-dir': text('DIR', "find's index folder (default $XDG_CACHE_HOME/claude-jsonl/find)"),
  },
  conflicts: [],
  description: `Serves a read-only web view of the estate (or of an ARCHIVE made by \`claude-jsonl archive\`):
the sessions, each conversation as the client would resume it, search, and cost over time as
plots. It listens on 127.0.0.1 only, unless --host names another address, and runs until
interrupted (Ctrl-C).`,
  exitCodes:
    'Exit codes: 0 stopped by a signal, 2 bad usage (a bad port, host or time zone), 3 a missing estate or archive, or the port is taken.',
  async run({ values: v, positionals, print }) {
    if (positionals.length > 1) throw usageError('serve: takes at most one ARCHIVE (or --projects DIR)')
    if (positionals.length === 1 && v.projects) throw usageError('serve: give an ARCHIVE or --projects, not both')
    if (v.port !== undefined && v.port > 65535) throw usageError(`serve: --port takes a port number, not '${v.port}'`)
    if (v.host !== undefined && v.host.trim() === '') throw usageError('serve: --host needs an address')
    const host = v.host ?? '127.0.0.1'
    let running
    try {
      running = await startServer({
        projects: positionals[0] ?? v.projects,
        host,
        port: v.port ?? 7421,
        timezone: v.timezone,
        indexDir: v['index-dir'],
      })
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code
      if (code === 'EADDRINUSE')
        throw new ClaudeJsonlError(
          `serve: port ${v.port ?? 7421} is taken (pass --port N, or --port 0 for any free port)`,
          EXIT.input,
        )
      if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND')
        throw usageError(`serve: cannot listen on ${host}: no such address on this machine`)
      throw err
    }
    if (!LOOPBACK.has(host))
      writeStderr(
        `claude-jsonl serve: listening on ${host}: anyone who can reach this address can read these transcripts\n`,
      )
    const snap = await running.model.snapshot()
    print(`claude-jsonl serve: ${running.url} (${snap.sessions.length} sessions; Ctrl-C to stop)`)
    await new Promise<void>((resolve) => {
      const stop = () => resolve()
      process.once('SIGINT', stop)
      process.once('SIGTERM', stop)
    })
    await running.close()
    return EXIT.ok
  },
})

export const runServe = (args: string[], write?: Write) => runCommand(command, args, write)
