// The doctor: does the parser still fit the format, and is anything at risk? Facts come
// from a full native scan; which facts are findings, and how bad, is decided here.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import native, { type EstateFileInfo } from '../native.js'
import type { BadLineKind } from '#native'
import type { RepairKind } from '../compress/repair.js'
import { KNOWN_TYPES } from './record-types.js'
import {
  EstateOptions,
  claudeConfigDirs,
  fileProblem,
  inClaudeProjects,
  scanEstateFiles,
  transcriptBytes,
} from './estate.js'

/** Below this many assistant entries, zero collapsed duplicates proves nothing. */
export const DEDUPE_MIN_ENTRIES = 20
const DAY_MS = 86_400_000

export type Severity = 'flag' | 'info'

/**
 * One thing `doctor` noticed about a file: a flag (something wrong or at risk) or information,
 * with a stable code and one line of text.
 */
export interface Finding {
  severity: Severity
  code:
    | 'unreadable'
    | 'not-jsonl'
    | 'foreign-format'
    | 'bad-json'
    | 'unreadable-json'
    | 'non-object'
    | 'torn-tail'
    | 'dedupe-key'
    | 'past-cleanup-age'
    | 'lone-surrogates'
    | 'unknown-types'
    | 'null-stop-reason'
    | 'missing-request-id'
    | RepairKind
    | 'not-repairable'
  message: string
}

/** What `doctor` found in one transcript: its line, record and request counts, and its findings. */
export interface DoctorFile {
  path: string
  kind: 'session' | 'subagent'
  lines: number
  records: number
  assistantEntries: number
  distinctRequests: number
  duplicatesCollapsed: number
  findings: Finding[]
}

/**
 * The result of `doctor`: the roots, a report per file, the totals, the record types seen, the
 * cleanup age used, and how many findings were flagged.
 */
export interface DoctorReport {
  roots: string[]
  files: DoctorFile[]
  totals: {
    files: number
    lines: number
    records: number
    badJsonLines: number
    nonObjectLines: number
    loneSurrogateLines: number
    assistantEntries: number
    distinctRequests: number
    duplicatesCollapsed: number
    nullStopGroups: number
  }
  types: { name: string; count: number; known: boolean }[]
  unknownTypes: string[]
  cleanupPeriodDays: number
  flagged: number
  /** True when nothing was flagged (exit code 0). */
  clean: boolean
}

/** What `doctor` checks: the estate or given paths, and the cleanup age to compare against. */
export interface DoctorOptions extends EstateOptions {
  /** Clock for the cleanup-age check (tests). */
  now?: number
  /** Override of Claude Code's cleanupPeriodDays (default: settings.json, else 30). */
  cleanupPeriodDays?: number
}

/** Claude Code deletes transcripts older than this many days at start-up (settings.json). */
export function cleanupPeriodDays(env: NodeJS.ProcessEnv = process.env): number {
  for (const dir of claudeConfigDirs(env)) {
    try {
      const v = JSON.parse(readFileSync(join(dir, 'settings.json'), 'utf8')).cleanupPeriodDays
      if (typeof v === 'number' && v > 0) return v
    } catch {
      // no settings file, or not JSON: Claude Code then uses its default
    }
  }
  return 30
}

function plural(n: number, word: string): string {
  const many = word.endsWith('y') ? `${word.slice(0, -1)}ies` : `${word}s`
  return `${n.toLocaleString('en-US')} ${n === 1 ? word : many}`
}

function examine(
  f: EstateFileInfo,
  now: number,
  cleanupDays: number,
  env: NodeJS.ProcessEnv,
  read: (path: string) => Buffer,
): Finding[] {
  const out: Finding[] = []
  const problem = fileProblem(f)
  if (f.error) return [{ severity: 'flag', code: 'unreadable', message: f.error }]
  if (problem) out.push({ severity: 'flag', code: 'not-jsonl', message: problem })
  const s = f.summary!
  const lineList = (kinds: BadLineKind[]) =>
    s.badLines
      .filter((b) => kinds.includes(b.kind))
      .slice(0, 5)
      .map((b) => b.line)
      .join(', ')
  const invalid = s.badJsonLines - s.unreadableJsonLines
  if (!problem && invalid > 0) {
    out.push({
      severity: 'flag',
      code: 'bad-json',
      message: `${plural(invalid, 'line')} of invalid JSON (line ${lineList(['invalid-json'])}…)`,
    })
  }
  if (s.unreadableJsonLines > 0) {
    // Valid JSON that this reader cannot hold: the client reads these records, claude-jsonl's
    // readers leave them out, and repair does not touch them.
    const kinds = s.badLines.filter((b) => b.kind === 'too-deep' || b.kind === 'number-out-of-range')
    const what = [...new Set(kinds.map((b) => b.problem))].join('; ')
    out.push({
      severity: 'flag',
      code: 'unreadable-json',
      message: `${plural(s.unreadableJsonLines, 'line')} of valid JSON that claude-jsonl cannot read, left out of its reports (line ${lineList(['too-deep', 'number-out-of-range'])}…): ${what}`,
    })
  }
  if (s.nonObjectLines > 0) {
    out.push({
      severity: 'flag',
      code: 'non-object',
      message: `${plural(s.nonObjectLines, 'line')} of JSON that is not an object (line ${lineList(['non-object'])}…)`,
    })
  }
  if (s.tornTail)
    out.push({
      severity: 'flag',
      code: 'torn-tail',
      message: 'the last line is cut short (no newline, not valid JSON): a write was interrupted',
    })
  const r = s.requests
  if (r.assistantEntries >= DEDUPE_MIN_ENTRIES && r.duplicatesCollapsed === 0) {
    out.push({
      severity: 'flag',
      code: 'dedupe-key',
      message: `${plural(r.assistantEntries, 'assistant entry')} and no streamed fragment collapsed: the dedupe key (requestId / message.id) may have stopped matching, so totals could be inflated`,
    })
  }
  const ageDays = (now - f.mtimeMs) / DAY_MS
  if (ageDays > cleanupDays && inClaudeProjects(f.path, env)) {
    out.push({
      severity: 'flag',
      code: 'past-cleanup-age',
      message: `last written ${Math.floor(ageDays)} days ago, past Claude Code's ${cleanupDays}-day cleanup: it is deleted at Claude Code's next start-up unless archived`,
    })
  }
  out.push(...repairFindings(f, read))
  const unknown = s.types.filter((t) => !KNOWN_TYPES.has(t.name))
  if (s.records > 0 && unknown.length === s.types.length) {
    out.push({
      severity: 'flag',
      code: 'foreign-format',
      message: 'no record has a Claude Code record type: this is another format (numbers from it mean nothing)',
    })
  }
  if (unknown.length > 0) {
    out.push({
      severity: 'info',
      code: 'unknown-types',
      message: `unknown record types: ${unknown.map((t) => `${t.name || '(no type)'} ×${t.count}`).join(', ')}`,
    })
  }
  if (r.nullStopGroups > 0) {
    out.push({
      severity: 'info',
      code: 'null-stop-reason',
      message: `${plural(r.nullStopGroups, 'request')} with stop_reason null on every entry (older Claude Code, or interrupted)`,
    })
  }
  if (r.assistantEntries > 0 && r.entriesWithRequestId < r.assistantEntries / 2) {
    out.push({
      severity: 'info',
      code: 'missing-request-id',
      message: `${r.assistantEntries - r.entriesWithRequestId} of ${plural(r.assistantEntries, 'assistant entry')} have no requestId (deduped by message.id)`,
    })
  }
  return out
}

/** Damage `claude-jsonl repair` mends: lines and links the client resumes less of. Line damage
 * that stays informational for the reader (lone surrogates, read after repair) and a relink
 * (the client re-attaches by itself) are info; the rest (a call and result the client drops
 * among them) is flagged. */
const REPAIR_FLAGS: ReadonlySet<string> = new Set([
  'records-on-one-line',
  'torn-line',
  'non-json-bytes',
  'orphan-tool-result',
])

/** The repairs a damaged file needs, by kind, from the native repair itself (run only on files
 * whose scan shows damage), or why it cannot be repaired. */
function repairFindings(f: EstateFileInfo, read: (path: string) => Buffer): Finding[] {
  const s = f.summary!
  const damaged =
    s.badJsonLines -
      s.unreadableJsonLines +
      s.nonObjectLines +
      s.loneSurrogateLines +
      s.danglingOnChain +
      s.orphanResultsOnChain >
      0 || s.tornTail
  if (!damaged) return []
  let bytes: Buffer
  try {
    bytes = read(f.path)
  } catch {
    return []
  }
  const r = native.repairTranscript(bytes)
  if (r.refusal) {
    if (r.refusal.kind === 'not-transcript') return []
    return [{ severity: 'flag', code: 'not-repairable', message: `cannot be repaired safely: ${r.refusal.message}` }]
  }
  const byKind = new Map<string, number[]>()
  for (const m of r.mends) byKind.set(m.kind, [...(byKind.get(m.kind) ?? []), m.line])
  const out: Finding[] = []
  for (const [kind, lines] of byKind) {
    const at = [...new Set(lines)].slice(0, 5).join(', ')
    out.push({
      severity: REPAIR_FLAGS.has(kind) ? 'flag' : 'info',
      code: kind as RepairKind,
      message: `${plural(lines.length, 'edit')} (line ${at}${lines.length > 5 ? '…' : ''}): repairable with \`claude-jsonl repair\``,
    })
  }
  for (const l of r.left)
    out.push({ severity: 'info', code: l.kind as RepairKind, message: `line ${l.line}: ${l.message}` })
  return out
}

/** Checks every transcript under the roots (or paths). Never writes. */
export async function doctor(opts: DoctorOptions = {}): Promise<DoctorReport> {
  const env = opts.env ?? process.env
  const now = opts.now ?? Date.now()
  const cleanupDays = opts.cleanupPeriodDays ?? cleanupPeriodDays(env)
  const estate = await scanEstateFiles(opts, 'full')
  const { roots, scan, files } = estate
  scan.release()
  const totals = {
    files: files.length,
    lines: 0,
    records: 0,
    badJsonLines: 0,
    nonObjectLines: 0,
    loneSurrogateLines: 0,
    assistantEntries: 0,
    distinctRequests: 0,
    duplicatesCollapsed: 0,
    nullStopGroups: 0,
  }
  const types = new Map<string, number>()
  const out: DoctorFile[] = []
  for (const f of files) {
    const s = f.summary
    if (s) {
      totals.lines += s.lines
      totals.records += s.records
      totals.badJsonLines += s.badJsonLines
      totals.nonObjectLines += s.nonObjectLines
      totals.loneSurrogateLines += s.loneSurrogateLines
      totals.assistantEntries += s.requests.assistantEntries
      totals.distinctRequests += s.requests.distinctRequests
      totals.duplicatesCollapsed += s.requests.duplicatesCollapsed
      totals.nullStopGroups += s.requests.nullStopGroups
      for (const t of s.types) types.set(t.name, (types.get(t.name) ?? 0) + t.count)
    }
    out.push({
      path: f.path,
      kind: f.kind,
      lines: s?.lines ?? 0,
      records: s?.records ?? 0,
      assistantEntries: s?.requests.assistantEntries ?? 0,
      distinctRequests: s?.requests.distinctRequests ?? 0,
      duplicatesCollapsed: s?.requests.duplicatesCollapsed ?? 0,
      findings: examine(f, now, cleanupDays, env, (path) => transcriptBytes(estate, path)),
    })
  }
  const typeList = [...types]
    .map(([name, count]) => ({ name, count, known: KNOWN_TYPES.has(name) }))
    .sort((a, b) => b.count - a.count)
  const flagged = out.filter((f) => f.findings.some((x) => x.severity === 'flag')).length
  return {
    roots: roots.roots,
    files: out,
    totals,
    types: typeList,
    unknownTypes: typeList.filter((t) => !t.known).map((t) => t.name),
    cleanupPeriodDays: cleanupDays,
    flagged,
    clean: flagged === 0,
  }
}
