// `claude-jsonl cache [clean]`: the archive read views (decoded copies of archives that the
// readers opening transcripts by path read through), listed with their sizes, or removed.
import { cleanArchiveViews, listArchiveViews, archiveViewsDir } from '../archive/view.js'
import { EXIT, usageError } from '../errors.js'
import { defineCommand } from './command.js'
import { JSON_OUTPUT } from './common-options.js'
import { count, formatBytes } from '../terminal/format.js'

export const command = defineCommand({
  name: 'cache',
  args: '[clean]',
  options: { json: JSON_OUTPUT },
  description: `Lists the archive read caches ($XDG_CACHE_HOME/claude-jsonl/archive-view, else
~/.cache/claude-jsonl/archive-view: one folder per archive, the latest generation of its
transcripts decoded for sessions, find, show, timeline, teleport-id, compress and pack of an
archive root; stats and doctor read an archive without one), with their sizes; clean removes
them all (the archives are not touched; a reader makes its cache again when it needs it).`,
  exitCodes: 'Exit codes: 0 ok, 2 bad usage.',
  async run({ values, positionals, print }) {
    const [what, ...rest] = positionals
    if (rest.length > 0 || (what !== undefined && what !== 'clean'))
      throw usageError('cache: the only action is clean (see claude-jsonl cache --help)')
    const views = what === 'clean' ? cleanArchiveViews() : listArchiveViews()
    const bytes = views.reduce((n, v) => n + v.bytes, 0)
    if (values.json) {
      print(JSON.stringify({ dir: archiveViewsDir(), removed: what === 'clean', views, bytes }, null, 2))
      return EXIT.ok
    }
    const lines = what === 'clean' ? [] : views.map((v) => `${formatBytes(v.bytes).padStart(9)}  ${v.dir}`)
    lines.push(
      `${what === 'clean' ? 'Removed' : 'Archive read caches:'} ${count(views.length, 'cache')}, ${formatBytes(bytes)} in ${archiveViewsDir()}`,
    )
    print(lines.join('\n'))
    return EXIT.ok
  },
})
