// `claude-jsonl restore ARCHIVE [SESSION...|--all] --to DIR`: archived transcripts written
// back byte-identical (SHA-256 checked), never replacing a different file.
import { archiveHistory, restore, RestoreReport, SessionHistory } from '../archive/archive.js'
import { EXIT, usageError } from '../errors.js'
import { decimal, defineCommand, flag, text, wholeNumber } from './command.js'
import { JSON_OUTPUT } from './common-options.js'
import { withProgress } from '../terminal/progress.js'
import { formatBytes, formatInt, count } from '../terminal/format.js'
import { writeStderr } from '../terminal/output.cjs'

/** `restore --list`: per session, every generation of its transcript. */
export function renderHistory(sessions: SessionHistory[]): string {
  const lines: string[] = []
  for (const s of sessions) {
    const files = s.files > 1 ? `, ${formatInt(s.files)} files` : ''
    lines.push(`${s.sessionId}  ${s.project}${files}${s.deleted ? '  (deleted from the estate)' : ''}`)
    for (const g of s.generations) {
      const what = [
        g.compressed ? 'compressed candidate (ours)' : 'original',
        g.replaced ? `replaced ${g.replaced}` : '',
      ]
        .filter(Boolean)
        .join(', ')
      const at = g.archivedAt.replace(/\.\d{3}Z$/, 'Z') + (g.archivedAtRecorded ? '' : '~')
      lines.push(
        `  ${String(g.generation).padStart(3)}  ${at}  ${formatBytes(g.bytes).padStart(9)}  ${g.sha256.slice(0, 12)}  ${what}`,
      )
    }
  }
  const gens = sessions.reduce((n, s) => n + s.generations.length, 0)
  lines.push(
    `${formatInt(sessions.length)} sessions, ${formatInt(gens)} generations (~: time from the source's mtime, for runs that did not record theirs)`,
  )
  return lines.join('\n')
}

export function renderRestore(r: RestoreReport): string {
  const config = r.files.filter((f) => f.config && f.status === 'written').length
  const into = r.configTo ? `${r.to} and ${count(config, 'config file')} into ${r.configTo}` : r.to
  const skipped = r.configSkipped
    ? `\n${formatInt(r.configSkipped)} archived config files not restored (pass --include-config to restore them into the config folder)`
    : ''
  const replaced = r.replaced
    ? `, ${formatInt(r.replaced)} replaced (the files there kept as ${r.files
        .filter((f) => f.backup)
        .slice(0, 3)
        .map((f) => f.backup)
        .join(', ')}${r.replaced > 3 ? ', …' : ''})`
    : ''
  return `Restored ${count(r.written - config, 'transcript')} into ${into}${replaced}${r.identical ? `, ${formatInt(r.identical)} already there` : ''}${r.failed ? `, ${formatInt(r.failed)} failed` : ''} (${formatBytes(r.bytes)}, SHA-256 verified) in ${(r.elapsedMs / 1000).toFixed(2)} s${skipped}`
}

export const command = defineCommand({
  name: 'restore',
  args: 'ARCHIVE (SESSION... | --all)',
  options: {
    to: text('DIR', 'where the transcripts are written (not with --list)'),
    list: flag('list every generation of the sessions (all, or those named) instead of restoring'),
    generation: wholeNumber('N', "restore generation N of each session's transcript (1 is the first archived)", {
      min: 1,
      noun: 'a generation number (1 is the first archived)',
    }),
    'as-of': text('DATE', 'restore each session as the last archive run at or before DATE left it'),
    all: flag('restore every archived session'),
    'into-claude-dir': flag('allow DIR inside a .claude folder'),
    replace: flag(
      'replace a file that exists and differs (kept as a verified numbered .backup beside it; a live session is refused)',
    ),
    'stable-for': decimal('SECONDS', 'with --replace: refuse a session modified this recently (default 10)', 'seconds'),
    'include-config': flag(
      "also restore archived config-folder files into DIR's parent (DIR must be a projects/ folder)",
    ),
    json: JSON_OUTPUT,
  },
  description: `Writes archived transcripts back, byte-identical to the bytes archived last (checked by
SHA-256), as DIR/<project>/<session>.jsonl with subagents under DIR/<project>/<session>/.
SESSION is a session uuid or a unique prefix (with its subagents, old-layout agent-*.jsonl
files whose records name it included); --all restores everything. A file already at
the target is left alone: skipped when identical, an error when different, unless --replace is
given: then it is replaced through the in-place transaction of compress (kept first as a
verified numbered FILE.backup beside it; a session Claude Code is running, or one written within
--stable-for seconds, is refused). DIR may not be
inside a .claude folder unless --into-claude-dir is given. Restored files keep the mtime
recorded at archive time (except inside a Claude config folder, where that would get them
deleted again by the 30-day cleanup). With --include-config, files archived by
archive --include-config (file-history/, todos/, plans/, ...) are restored too, into the config
folder DIR is the projects/ folder of: with --all every one, else those named after a restored
session. --list lists, per session, every generation of its transcript (number, when archived,
size, SHA-256, whether it is a compressed candidate of ours, which generation it replaced; a
session deleted from the estate is marked). --generation N restores generation N of each named
session with its subagents and session files as they were while it was the latest; --as-of
DATE restores each session as the last run at or before DATE left it (with --all, every session
archived by then).`,
  exitCodes: `Exit codes: 0 restored, 1 some files could not be restored or were refused (each named on
stderr: a header placing a file outside DIR, a symbolic link leading out of it, or with
--replace a session Claude Code is running or one written within --stable-for), 2 bad
usage (no SESSION or --all, an ambiguous prefix, a target inside .claude, --include-config with
a DIR not named projects, --stable-for without --replace), 3 ARCHIVE is
missing or not an archive, no session matches, or a session has no such generation or was
not archived yet at DATE (one line per session naming what it has; nothing written).`,
  async run({ values, positionals, print }) {
    const [root, ...sessions] = positionals
    if (!root) throw usageError('restore: name the archive (see claude-jsonl restore --help)')
    if (values.list) {
      if (values.to || values.all || values.generation !== undefined || values['as-of'] !== undefined)
        throw usageError(
          'restore --list takes ARCHIVE and optional SESSIONs only (no --to, --all, --generation, --as-of)',
        )
      const h = await archiveHistory(root, sessions)
      print(values.json ? JSON.stringify({ sessions: h }, null, 2) : renderHistory(h))
      return EXIT.ok
    }
    const to = values.to
    if (values['stable-for'] !== undefined && !values.replace)
      throw usageError('restore: --stable-for goes with --replace')
    if (!to) throw usageError('restore: --to DIR is required (see claude-jsonl restore --help)')
    const report = await withProgress((onProgress) =>
      restore(root, {
        sessions,
        all: values.all,
        to,
        intoClaudeDir: values['into-claude-dir'],
        includeConfig: values['include-config'],
        generation: values.generation,
        asOf: values['as-of'],
        replace: values.replace,
        stableForMs: values['stable-for'] === undefined ? undefined : values['stable-for'] * 1000,
        onProgress,
      }),
    )
    for (const f of report.files) if (f.error) writeStderr(`claude-jsonl: ${f.error}\n`)
    for (const w of report.warnings) writeStderr(`claude-jsonl: warning: ${w}\n`)
    print(values.json ? JSON.stringify(report, null, 2) : renderRestore(report))
    return report.failed > 0 || report.warnings.length > 0 ? EXIT.flagged : EXIT.ok
  },
})
