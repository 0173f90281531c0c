// Options several commands share, declared once so they read the same in every --help.
import { flag, text, wholeNumber } from './command.js'

export const PROJECTS = text('DIR', 'the estate root (default $CLAUDE_CONFIG_DIR/projects, else ~/.claude/projects)')
export const JSON_OUTPUT = flag('print the whole report as JSON')

/** The SESSION argument of every command that takes one session. */
export const ONE_SESSION = { name: 'SESSION', what: 'a path, uuid or uuid prefix' }

/** The line every such command's --help says of it. */
export const SESSION_HELP =
  'SESSION is a transcript path, a session uuid, or a unique prefix of one (looked up under --projects DIR, else the estate root).'

/** `--last N` of show and timeline. */
export const LAST_TURNS = wholeNumber('N', 'only the last N turns', { noun: 'a number of turns' })

/** `--generation N` and `--as-of DATE` of the readers that take an archive root. */
export const ARCHIVE_STATE = {
  generation: wholeNumber('N', 'an archive root: generation N of each session that has one (1: the first archived)', {
    min: 1,
    noun: 'a generation number (1 is the first archived)',
  }),
  'as-of': text('DATE', 'an archive root: as the last archive run at or before DATE left it'),
}
