// The one place TypeScript touches the addon (loaded by native.cjs). Everything else imports
// the binding and its types from here.
import native from '#native'

export default native
export type {
  DatasetColumn,
  DatasetMessage,
  DatasetRows,
  DatasetTableInfo,
  DiscoveredFile,
  EstateFileInfo,
  EstateFileTotals,
  EstateScan,
  RecordInfo,
  RequestColumns,
  ScanMode,
  ScanSummary,
  SessionInfo,
  TranscriptFactsInfo,
  TranscriptIndex,
  ToolTargetsInfo,
  UsageColumns,
  ProgressSnapshot,
} from '#native'
