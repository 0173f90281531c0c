// `claude-jsonl cache [clean]`: the archive read views earlier versions left (decoded copies of
// archives; no reader makes one now), listed with their sizes, or removed.
import { cleanArchiveViews, listArchiveViews, archiveViewsDir } from '../archive/view.js'
import { EXIT, usageError } from '../errors.js'
import { defineCommand } from './command.js'
import { JSON_OUTPUT } from './common-options.js'
import { count, formatBytes } from '../terminal/format.js'

export const command = defineCommand({
  name: 'cache',
  args: '[clean]',
  options: { json: JSON_OUTPUT },
  description: `Lists the archive read views earlier versions left ($XDG_CACHE_HOME/claude-jsonl/archive-view,
else ~/.cache/claude-jsonl/archive-view: one folder per archive, its latest generation decoded);
every reader now reads an archive's streams in memory and makes none. clean removes them all
(the archives are not touched).`,
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
      `${what === 'clean' ? 'Removed' : 'Archive read views left by earlier versions:'} ${count(views.length, 'cache')}, ${formatBytes(bytes)} in ${archiveViewsDir()}`,
    )
    print(lines.join('\n'))
    return EXIT.ok
  },
})
