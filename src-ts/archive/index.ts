/**
 * The estate archive (byte-exact, incremental, every generation kept), restore, the history of
 * generations, and the read view through which readers take an archive as an estate. The root
 * entry point's readers read an archive without this.
 *
 * @packageDocumentation
 * @module claude-jsonl/archive
 */
export { archive, restore, listArchive, listArchiveAll, archiveHistory, selectSessions } from './archive.js'
export type {
  ArchiveOptions,
  ArchiveReport,
  ArchivedFile,
  ArchiveListing,
  RestoreOptions,
  RestoreReport,
  SessionHistory,
  GenerationInfo,
} from './archive.js'
export { isArchiveRoot, listArchiveViews, cleanArchiveViews } from './view.js'
export type { ArchiveViewInfo } from './view.js'
