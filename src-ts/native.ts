// The one place TypeScript touches the addon (loaded by native.cjs). Everything else imports
// the binding and its types from here.
import native from '#native'

export default native
export type {
  DiscoveredFile,
  EstateFileInfo,
  EstateScan,
  RecordInfo,
  ScanMode,
  ScanSummary,
  SessionInfo,
  TranscriptIndex,
  ToolTargetsInfo,
  UsageColumns,
  ProgressSnapshot,
} from '#native'
