// The dataset's files, byte for byte: an export of a generated estate (and a second machine's,
// holding a copy of one of its projects) against the digests recorded in
// __test__/golden/dataset-bytes.json. A change to how rows are built, ordered, priced or merged
// that changes a single byte of a part file fails here. A deliberate change of the format records
// the new digests with CLAUDE_JSONL_UPDATE_GOLDEN=1 (and says why in its commit).
import test from 'ava'
import { createHash } from 'node:crypto'
import { cpSync, readdirSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { exportDataset } from '../src-ts/dataset/export.js'
import { FolderDestination } from '../src-ts/dataset/destination.js'
import { REPO, tempDir } from './helpers/transcripts.js'

const GOLDEN = join(REPO, '__test__', 'golden', 'dataset-bytes.json')

async function estate(seed: string, sessions: number): Promise<string> {
  const { generateEstate } = await import(join(REPO, 'fixtures', 'generate.mjs'))
  const dir = tempDir('cj-dataset-bytes-')
  generateEstate({ out: dir, sessions, targetMb: 3, seed })
  return join(dir, 'projects')
}

/** Every part file under `root`, by key, with its sha256. */
function digests(root: string): Record<string, string> {
  const out: Record<string, string> = {}
  for (const e of readdirSync(root, { recursive: true, withFileTypes: true }))
    if (e.isFile() && e.name.endsWith('.parquet')) {
      const key = join(e.parentPath, e.name).slice(root.length + 1)
      out[key] = createHash('sha256')
        .update(readFileSync(join(e.parentPath, e.name)))
        .digest('hex')
    }
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => (a < b ? -1 : 1)))
}

test('the part files of an export are the recorded bytes', async (t) => {
  const first = await estate('dataset-bytes-1', 10)
  const second = await estate('dataset-bytes-2', 4)
  // The second machine also holds a copy of the first's first project: its rows count once.
  const project = readdirSync(first).sort()[0]
  cpSync(join(first, project), join(second, project), { recursive: true })
  const root = join(tempDir('cj-dataset-bytes-out-'), 'team')
  const dest = new FolderDestination(root).open()
  await exportDataset(dest, { projects: first, machine: 'laptop' })
  const afterFirst = digests(root)
  await exportDataset(dest, { projects: second, machine: 'desk' })
  const got = { afterFirst, afterSecond: digests(root) }
  if (process.env.CLAUDE_JSONL_UPDATE_GOLDEN === '1') {
    mkdirSync(join(REPO, '__test__', 'golden'), { recursive: true })
    writeFileSync(GOLDEN, JSON.stringify(got, null, 2) + '\n')
  }
  t.true(Object.keys(afterFirst).length > 10)
  t.deepEqual(got, JSON.parse(readFileSync(GOLDEN, 'utf8')))
})
