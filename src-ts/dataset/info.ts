// The dataset's own folder, `_claude_jsonl/` (engines skip names starting with `_`): which
// schema version the dataset is, and one manifest per machine of the partitions it wrote.
import native from '../native.js'
import { ClaudeJsonlError, EXIT } from '../errors.js'
import type { DatasetDestination } from './destination.js'

export const INFO_KEY = '_claude_jsonl/dataset.json'
export const MACHINES_PREFIX = '_claude_jsonl/machines/'

export interface DatasetInfo {
  format: 'claude-jsonl-dataset'
  schemaVersion: number
}

/**
 * The dataset's info, or undefined when `dest` holds no dataset yet. A dataset of another schema
 * version, or a folder whose info is not ours, is refused (exit 3) before anything is written.
 */
export async function readDatasetInfo(dest: DatasetDestination): Promise<DatasetInfo | undefined> {
  const bytes = await dest.get(INFO_KEY)
  if (!bytes) return undefined
  let info: Partial<DatasetInfo>
  try {
    info = JSON.parse(bytes.toString('utf8')) as Partial<DatasetInfo>
  } catch {
    throw new ClaudeJsonlError(`${dest.label}: ${INFO_KEY} is not valid JSON: not a claude-jsonl dataset`, EXIT.input)
  }
  if (info.format !== 'claude-jsonl-dataset')
    throw new ClaudeJsonlError(`${dest.label}: not a claude-jsonl dataset (${INFO_KEY} says otherwise)`, EXIT.input)
  const version = native.datasetSchemaVersion()
  if (info.schemaVersion !== version)
    throw new ClaudeJsonlError(
      `${dest.label}: a dataset of schema version ${info.schemaVersion}; this claude-jsonl reads and writes version ${version}`,
      EXIT.input,
    )
  return info as DatasetInfo
}

export async function writeDatasetInfo(dest: DatasetDestination): Promise<void> {
  const info: DatasetInfo = { format: 'claude-jsonl-dataset', schemaVersion: native.datasetSchemaVersion() }
  await dest.put(INFO_KEY, Buffer.from(JSON.stringify(info, null, 2) + '\n'))
}
