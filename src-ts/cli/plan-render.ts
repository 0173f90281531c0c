// The text report of `claude-jsonl plan`: topology status, leaf, chain, cut, partition and
// what is excluded and why.
import { stopMessage, type PlanReport } from '../compress/plan.js'

/** The text report of `claude-jsonl plan`. */
export function renderPlan(r: PlanReport, path: string): string {
  const out: string[] = []
  const li = r.resumeLeafInfo
  out.push(
    `${path}: topology ${r.status} (leaf policy ${r.leafPolicy}, ${r.preserveMode}${r.branchIsolation ? '' : ', NO branch isolation'})`,
  )
  if (r.stop) out.push(`  stop: ${stopMessage(r)}`)
  if (li.selectedLeafLine !== undefined)
    out.push(`  leaf: line ${li.selectedLeafLine} (${li.selectedLeafUuid ?? 'no uuid'}): ${li.reason}`)
  else if (li.clientLeafLine !== undefined)
    out.push(
      `  client leaf would be line ${li.clientLeafLine}; pointer: ${li.pointerState}${li.pointerLine ? ` (line ${li.pointerLine})` : ''}`,
    )
  if (r.sourceActiveChainLength > 0) {
    const start =
      r.priorCompactRecordCount > 0 ? `, starts at the compact boundary on line ${r.activeChainStartLine}` : ''
    const seg = r.preservedSegmentApplied ? ', preserved segment spliced' : ''
    const pre = r.precompactRecords > 0 ? `; ${r.precompactRecords} earlier records only through logicalParentUuid` : ''
    out.push(
      `  chain: ${r.sourceActiveChainLength} records, ~${r.visibleEstimatedTokens} estimated message tokens (what the client sends)${start}${seg}${pre}`,
    )
    if (r.lineageRuns.length > 1)
      out.push(
        `  lineage: ${r.lineageRuns.map((x) => `${x.sessionId} (${x.endPosition - x.startPosition})`).join(' -> ')}; earlier sessions are summarised`,
      )
  }
  if (r.cut) {
    const c = r.cut
    out.push(
      `  cut: chain position ${c.position} (line ${c.firstKeptLine}${c.promptStart ? ', a human prompt' : ''}): keeps ${c.recentRecordsPreserved} records, ~${c.keptEstimatedTokens} of the chain's ~${r.visibleEstimatedTokens} estimated message tokens (${(c.keptTokenRatio * 100).toFixed(1)}%; target ${(r.requestedTargetRatio * 100).toFixed(0)}%${r.maxKeptTokens !== undefined ? `, at most ~${r.maxKeptTokens}` : ''}), ${c.keptBytes} bytes (${(c.ratio * 100).toFixed(1)}% of the file); ${c.legalPositions.length} legal cut positions`,
    )
  } else if (r.sourceActiveChainLength > 0) {
    out.push('  cut: none (no legal position)')
  }
  out.push(
    `  partition: summary ${r.summarizedRecords}, raw ${r.rawKeepRecords}, side ${r.sideKeepRecords} (${r.fileHistorySnapshotsPreserved} snapshots, ${r.checkpointPolicy}), control ${r.controlProjectionRecords}, excluded branch ${r.excludedBranchCount}, excluded unattributed ${r.excludedUnattributedCount}`,
  )
  for (const x of r.excludedBranchReasons) out.push(`  excluded (branch): ${x.count} ${x.reason}`)
  for (const x of r.excludedUnattributedReasons) out.push(`  excluded (unattributed): ${x.count} ${x.reason}`)
  if (r.unparsedLines > 0) out.push(`  ${r.unparsedLines} line(s) are not JSON objects (left out)`)
  for (const w of r.warnings) {
    const lines = w.lines.length > 0 ? ` [line${w.lines.length > 1 ? 's' : ''} ${w.lines.slice(0, 12).join(',')}]` : ''
    out.push(`  warning ${w.code}${lines}: ${w.message}`)
  }
  return out.join('\n')
}
