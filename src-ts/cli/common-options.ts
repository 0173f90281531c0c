// Options several commands share, declared once so they read the same in every --help.
import { flag, text, wholeNumber } from './command.js'

export const PROJECTS = text('DIR', 'the estate root (default $CLAUDE_CONFIG_DIR/projects, else ~/.claude/projects)')
export const JSON_OUTPUT = flag('print the whole report as JSON')

/** The SESSION argument of show, timeline, pack and compress. */
export const ONE_SESSION = { name: 'SESSION', what: 'a path, uuid or uuid prefix' }

/** `--last N` of show and timeline. */
export const LAST_TURNS = wholeNumber('N', 'only the last N turns', { noun: 'a number of turns' })
