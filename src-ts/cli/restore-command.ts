// `claude-jsonl restore ARCHIVE [SESSION...|--all] --to DIR`: archived transcripts written
// back byte-identical (SHA-256 checked), never replacing a different file.
import { restore, RestoreReport } from '../archive/archive.js'
import { EXIT, usageError } from '../errors.js'
import { defineCommand, flag, text } from './command.js'
import { JSON_OUTPUT } from './common-options.js'
import { withProgress } from '../terminal/progress.js'
import { formatBytes, formatInt, count } from '../terminal/format.js'

export function renderRestore(r: RestoreReport): string {
  const config = r.files.filter((f) => f.config && f.status === 'written').length
  const into = r.configTo ? `${r.to} and ${count(config, 'config file')} into ${r.configTo}` : r.to
  const skipped = r.configSkipped
    ? `\n${formatInt(r.configSkipped)} archived config files not restored (pass --include-config to restore them into the config folder)`
    : ''
  return `Restored ${count(r.written - config, 'transcript')} into ${into}${r.identical ? `, ${formatInt(r.identical)} already there` : ''}${r.failed ? `, ${formatInt(r.failed)} failed` : ''} (${formatBytes(r.bytes)}, SHA-256 verified) in ${(r.elapsedMs / 1000).toFixed(2)} s${skipped}`
}

export const command = defineCommand({
  name: 'restore',
  args: 'ARCHIVE (SESSION... | --all)',
  options: {
    to: text('DIR', 'where the transcripts are written', { required: true }),
    all: flag('restore every archived session'),
    'into-claude-dir': flag('allow DIR inside a .claude folder'),
    'include-config': flag(
      "also restore archived config-folder files into DIR's parent (DIR must be a projects/ folder)",
    ),
    json: JSON_OUTPUT,
  },
  description: `Writes archived transcripts back, byte-identical to the bytes archived last (checked by
SHA-256), as DIR/<project>/<session>.jsonl with subagents under DIR/<project>/<session>/.
SESSION is a session uuid or a unique prefix (with its subagents, old-layout agent-*.jsonl
files whose records name it included); --all restores everything. A file already at
the target is left alone: skipped when identical, an error when different. DIR may not be
inside a .claude folder unless --into-claude-dir is given. Restored files keep the mtime
recorded at archive time (except inside a Claude config folder, where that would get them
deleted again by the 30-day cleanup). With --include-config, files archived by
archive --include-config (file-history/, todos/, plans/, ...) are restored too, into the config
folder DIR is the projects/ folder of: with --all every one, else those named after a restored
session.`,
  exitCodes: `Exit codes: 0 restored, 1 some files could not be restored or were refused (each named on
stderr: a header placing a file outside DIR, or a symbolic link leading out of it), 2 bad
usage (no SESSION or --all, an ambiguous prefix, a target inside .claude, --include-config with
a DIR not named projects), 3 ARCHIVE is
missing or not an archive, or no session matches.`,
  async run({ values, positionals, print }) {
    const [root, ...sessions] = positionals
    if (!root) throw usageError('restore: name the archive (see claude-jsonl restore --help)')
    const report = await withProgress((onProgress) =>
      restore(root, {
        sessions,
        all: values.all,
        to: values.to,
        intoClaudeDir: values['into-claude-dir'],
        includeConfig: values['include-config'],
        onProgress,
      }),
    )
    for (const f of report.files) if (f.error) process.stderr.write(`claude-jsonl: ${f.error}\n`)
    print(values.json ? JSON.stringify(report, null, 2) : renderRestore(report))
    return report.failed > 0 ? EXIT.flagged : EXIT.ok
  },
})
