// Every command of claude-jsonl: its name, one line for `claude-jsonl --help`, and how to load
// its module. A module is imported only when its command runs (or prints its help), so start-up
// pays only for the command used. Each module exports `command`, made by defineCommand.
import type { Command } from './command.js'

export interface CommandEntry {
  name: string
  summary: string
  load: () => Promise<{ command: Command<any> }>
}

export const COMMANDS: readonly CommandEntry[] = [
  {
    name: 'stats',
    summary: 'token usage and cost, by model, day, session or project',
    load: () => import('./stats-command.js'),
  },
  {
    name: 'doctor',
    summary: 'what is wrong with the transcripts: bad lines, unknown types, a broken dedupe key',
    load: () => import('./doctor-command.js'),
  },
  {
    name: 'show',
    summary: 'the conversation of one session as text, markdown, JSON or HTML',
    load: () => import('./show-command.js'),
  },
  {
    name: 'timeline',
    summary: "a session's turns with their durations, models and tokens",
    load: () => import('./timeline-command.js'),
  },
  { name: 'sessions', summary: 'the most recently active sessions', load: () => import('./sessions-command.js') },
  {
    name: 'teleport-id',
    summary: 'the local session and transcript of a teleport id',
    load: () => import('./teleport-command.js'),
  },
  {
    name: 'find',
    summary: 'ranked search of what was said, across the estate',
    load: () => import('./find-command.js'),
  },
  {
    name: 'serve',
    summary: 'a local web view: sessions, search and cost over time (read-only, 127.0.0.1)',
    load: () => import('./serve-command.js'),
  },
  {
    name: 'export',
    summary: 'the estate as an open Parquet dataset by day, in a folder or object storage',
    load: () => import('./export-command.js'),
  },
  {
    name: 'query',
    summary: 'SQL over an exported dataset, with embedded DuckDB',
    load: () => import('./query-command.js'),
  },
  {
    name: 'validate',
    summary: 'whether a transcript would resume as one well-formed conversation',
    load: () => import('./validate-command.js'),
  },
  {
    name: 'plan',
    summary: 'the topology a compression would use (writes nothing)',
    load: () => import('./plan-command.js'),
  },
  {
    name: 'compress',
    summary: 'a compressed copy of one session (--all: of every session) that resumes like the original',
    load: () => import('./compress-command.js'),
  },
  {
    name: 'repair',
    summary: 'mend a damaged transcript (--all: every one) so the client resumes all of it',
    load: () => import('./repair-command.js'),
  },
  {
    name: 'repair-read-pages',
    summary: 'a transcript without the Read.pages members some readers reject',
    load: () => import('./repair-read-pages-command.js'),
  },
  {
    name: 'pack',
    summary: 'the evidence pack a summarising model reads for compress --model-summary',
    load: () => import('./pack-command.js'),
  },
  {
    name: 'archive',
    summary: "mirror the estate into an archive Claude Code's cleanup does not touch",
    load: () => import('./archive-command.js'),
  },
  {
    name: 'restore',
    summary: 'write archived transcripts back, byte-identical',
    load: () => import('./restore-command.js'),
  },
  {
    name: 'cache',
    summary: 'the archive read views earlier versions left: list them, or clean them away',
    load: () => import('./cache-command.js'),
  },
  {
    name: 'hook',
    summary: 'Claude Code hooks: archive each session as it ends, warn of unarchived old sessions',
    load: () => import('./hook-command.js'),
  },
  {
    name: 'mcp',
    summary: 'an MCP server (stdio) that lets Claude search and read past sessions',
    load: () => import('./mcp-command.js'),
  },
  {
    name: 'statusline',
    summary: "Claude Code's status line: this session's cost and tokens, today's cost, context in use",
    load: () => import('./statusline-command.js'),
  },
]

/** `claude-jsonl --help`: the commands, from COMMANDS, and the rules every command shares. */
export function globalHelp(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length))
  return `claude-jsonl: fast, correct tools for Claude Code session transcripts

Usage: claude-jsonl COMMAND [ARGS...] [options]
       claude-jsonl COMMAND --help      (that command's usage and options)
       claude-jsonl --version | --help

Commands:
${COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`).join('\n')}

Without PATH, the estate root is --projects DIR, else $CLAUDE_CONFIG_DIR/projects,
else ~/.claude/projects. PATHs may be transcript files or folders (walked recursively);
an archive root (made by archive) is read as the estate it holds.
SESSION is a transcript path, a session uuid, or a unique prefix of one.

Exit codes: 0 ok, 1 flagged or refused (doctor findings, validate errors, a topology stop, the
compress token ceiling, archive or restore failed for some files), 2 bad usage, 3 missing or
unreadable path or a file that is not JSONL, 4 internal error.`
}
