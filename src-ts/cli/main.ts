#!/usr/bin/env node
// The claude-jsonl command line. Every failure is one line on stderr and a documented exit
// code (docs/exit-codes.md); nothing is ever written into the estate.
import { parseCommand, print } from './args.js'
import type { GroupBy } from '../read/stats.js'
import { ClaudeJsonlError, EXIT, usageError } from '../errors.js'
import native from '../native.js'
// Each command's module is loaded when that command runs: start-up pays only for what it uses.

const HELP = `claude-jsonl: fast, correct tools for Claude Code session transcripts

Usage:
  claude-jsonl stats  [PATH...] [--projects DIR] [--by day|session|project|model]
                      [--since DATE] [--until DATE] [--timezone TZ] [--json]
  claude-jsonl doctor [PATH...] [--projects DIR] [--verbose] [--json]
  claude-jsonl show SESSION [--tools] [--thinking] [--human-only] [--last N] [--all-branches]
                    [--format text|markdown|json|html] [--out FILE] [--projects DIR]
  claude-jsonl timeline SESSION [--requests] [--last N] [--all-branches] [--json] [--projects DIR]
  claude-jsonl sessions [PATH...] [--recent N | --all] [--today] [--since DATE] [--project PATH]
                        [--timezone TZ] [--projects DIR] [--json]
  claude-jsonl teleport-id ID [--fallback] [--title TEXT] [--projects DIR] [--json]
  claude-jsonl find TERMS... [--tools] [--thinking] [--since DATE] [--project NAME] [--limit N]
                    [--no-index] [--index-dir DIR] [--projects DIR] [--json]
  claude-jsonl find --exact TEXT [--case-sensitive] [--tools] [--thinking] [--since DATE] ...
  claude-jsonl validate FILE [--json]
  claude-jsonl plan FILE [--json] [--leaf-policy strict|client|auto] [--resume-leaf UUID] ...
  claude-jsonl compress SESSION --out FILE [--summary deterministic|model] [--model-summary FILE]
                        [--target-estimated-tokens N] [--force] [--json] ...
  claude-jsonl pack SESSION --out PACK.md [--handoff FILE] [--model-pack-char-budget N]
                    [--model-pack-estimated-token-budget N] [--projects DIR] [--json]
  claude-jsonl archive [PATH...] --to DIR [--projects DIR] [--json]
  claude-jsonl restore ARCHIVE (SESSION... | --all) --to DIR [--into-claude-dir] [--json]
  claude-jsonl --version | --help

Without PATH, the estate root is --projects DIR, else $CLAUDE_CONFIG_DIR/projects,
else ~/.claude/projects. PATHs may be transcript files or folders (walked recursively);
an archive root (made by archive) is read as the estate it holds.
SESSION is a transcript path, a session uuid, or a unique prefix of one.

Exit codes: 0 ok, 1 flagged or refused (doctor findings, validate errors, a topology stop, the
compress token ceiling, archive or restore failed for some files), 2 bad usage, 3 missing or
unreadable path or a file that is not JSONL, 4 internal error.`

async function progressBar() {
  const { createProgress } = await import('./progress.js')
  // Drawn on stderr only when stderr is a terminal; createProgress draws nothing otherwise.
  const bar = createProgress(process.stderr)
  return {
    onProgress: (p: { bytesDone: number; bytesTotal: number; filesDone: number; filesTotal: number }) => bar.update(p),
    done: () => bar.done(),
  }
}

async function runStats(args: string[]): Promise<number> {
  const { values, positionals } = parseCommand('stats', args, {
    projects: { type: 'string' },
    json: { type: 'boolean' },
    by: { type: 'string' },
    since: { type: 'string' },
    until: { type: 'string' },
    timezone: { type: 'string' },
  })
  if (values.help) return (print(HELP), EXIT.ok)
  const [{ stats }, { renderStats }] = await Promise.all([import('../read/stats.js'), import('./stats-command.js')])
  const progress = await progressBar()
  try {
    const report = await stats({
      paths: positionals,
      projects: values.projects,
      by: values.by as GroupBy | undefined,
      since: values.since,
      until: values.until,
      timezone: values.timezone,
      onProgress: progress.onProgress,
    })
    progress.done()
    print(values.json ? JSON.stringify(report, null, 2) : renderStats(report))
    return EXIT.ok
  } finally {
    progress.done()
  }
}

async function runDoctor(args: string[]): Promise<number> {
  const { values, positionals } = parseCommand('doctor', args, {
    projects: { type: 'string' },
    json: { type: 'boolean' },
    verbose: { type: 'boolean' },
  })
  if (values.help) return (print(HELP), EXIT.ok)
  const [{ doctor }, { renderDoctor }] = await Promise.all([import('../read/doctor.js'), import('./doctor-command.js')])
  const progress = await progressBar()
  try {
    const report = await doctor({ paths: positionals, projects: values.projects, onProgress: progress.onProgress })
    progress.done()
    print(values.json ? JSON.stringify(report, null, 2) : renderDoctor(report, { verbose: values.verbose }))
    return report.clean ? EXIT.ok : EXIT.flagged
  } finally {
    progress.done()
  }
}

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv
  switch (command) {
    case 'stats':
      return runStats(rest)
    case 'doctor':
      return runDoctor(rest)
    case 'show':
      return (await import('./show-command.js')).runShow(rest)
    case 'timeline':
      return (await import('./timeline-command.js')).runTimeline(rest)
    case 'sessions':
      return (await import('./sessions-command.js')).runSessions(rest)
    case 'teleport-id':
      return (await import('./teleport-command.js')).runTeleport(rest)
    case 'find':
      return (await import('./find-command.js')).runFind(rest)
    case 'validate':
      return (await import('./validate-command.js')).runValidate(rest)
    case 'plan':
      return (await import('./plan-command.js')).runPlan(rest)
    case 'compress':
      return (await import('./compress-command.js')).runCompress(rest)
    case 'pack':
      return (await import('./pack-command.js')).runPack(rest)
    case 'archive':
      return (await import('./archive-command.js')).runArchive(rest)
    case 'restore':
      return (await import('./restore-command.js')).runRestore(rest)
    case '--version':
    case '-v':
      print(`claude-jsonl ${native.version()}`)
      return EXIT.ok
    case undefined:
    case '--help':
    case '-h':
    case 'help':
      print(HELP)
      return command === undefined ? EXIT.usage : EXIT.ok
    default:
      throw usageError(`unknown command '${command}' (see claude-jsonl --help)`)
  }
}

process.stdout.on('error', (e: NodeJS.ErrnoException) => {
  // `claude-jsonl stats | head` closes the pipe early: not an error worth a trace.
  if (e.code === 'EPIPE') process.exit(EXIT.ok)
})

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code
  },
  (e: unknown) => {
    if (e instanceof ClaudeJsonlError) {
      process.stderr.write(`claude-jsonl: ${e.message}\n`)
      process.exitCode = e.exitCode
    } else {
      const msg = e instanceof Error ? e.message.split('\n')[0] : String(e)
      process.stderr.write(`claude-jsonl: internal error: ${msg}\n`)
      process.exitCode = EXIT.internal
    }
  },
)
