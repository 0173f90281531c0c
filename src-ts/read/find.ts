// Ranked search over the estate's conversations. The native side walks the estate, refreshes
// the index (outside the estate) and ranks; this file resolves policy (roots, index folder,
// dates) and shapes the report. Only the hits' snippets cross from the transcripts into JS.
import { existsSync, statSync } from 'node:fs'
import { homedir } from 'node:os'
import { isAbsolute, join, relative, resolve, sep } from 'node:path'
import native from '../native.js'
import type { ProgressSnapshot } from '../native.js'
import type { ArchiveSource, FindExactResult, FindResult } from '#native'
import { isArchiveRoot } from '../archive/view.js'
import { readerFiles } from '../archive/generations.js'
import { resolveRoots, warnToStderr } from './estate.js'
import type { EstateOptions, Roots } from './estate.js'
import { inputError, usageError } from '../errors.js'
import { withNativeProgress, type LongOperationOptions } from '../native-progress.js'
import { parseDay } from './days.js'
import { monotonicMs } from '../monotonic.js'

/** What ranked search (`find`) searches, how many hits it returns, and where it keeps its index. */
export interface FindOptions extends Omit<EstateOptions, 'paths'> {
  /** Also search tool traffic: tool_use inputs and tool results. */
  tools?: boolean
  /** Also search thinking blocks. */
  thinking?: boolean
  /** Hits to return (default 10). */
  limit?: number
  /** Only sessions active on or after this local day (YYYY-MM-DD or YYYYMMDD). */
  since?: string
  /** Only projects whose folder name contains this (`/` matches the `-` it was encoded to). */
  project?: string
  /** Index folder (default $XDG_CACHE_HOME/claude-jsonl/find, else ~/.cache/claude-jsonl/find). */
  indexDir?: string
  /** Scan every transcript and write no index. */
  noIndex?: boolean
}

/** Where a search hit is: the session, its snippet record's file, line and byte span, and times. */
interface HitPlace {
  rank: number
  sessionId: string
  /** Set when the snippet's record is in one of the session's subagent transcripts. */
  agentId?: string
  project: string
  /** The transcript holding the snippet's record, and that record's 1-based line and byte span. */
  path: string
  line: number
  offset: number
  length: number
  /** The snippet record's timestamp (ISO), when it has one. */
  timestamp?: string
  firstActivity?: string
  lastActivity?: string
  snippet: string
}

/** The native hit fields both searches share, as a `HitPlace` without its rank (times as ISO). */
function hitPlace(h: {
  sessionId: string
  agentId?: string | null
  project: string
  path: string
  line: number
  offset: number
  length: number
  timestamp?: string | null
  firstMs?: number | null
  lastMs?: number | null
  snippet: string
}): Omit<HitPlace, 'rank'> {
  return {
    sessionId: h.sessionId,
    ...(h.agentId ? { agentId: h.agentId } : {}),
    project: h.project,
    path: h.path,
    line: h.line,
    offset: h.offset,
    length: h.length,
    timestamp: h.timestamp ?? undefined,
    firstActivity: iso(h.firstMs),
    lastActivity: iso(h.lastMs),
    snippet: h.snippet,
  }
}

/**
 * A session that matches a ranked search: its score, the terms it holds, and where its best
 * snippet is.
 */
export interface FindHit extends HitPlace {
  score: number
  /** Query terms the session holds (a partial match ranks too). */
  matched: string[]
  /** Phrases found contiguous in the snippet's record. */
  phrasesFound: number
}

/** The result of a ranked search: the query as parsed, the scope searched, and the hits, best first. */
export interface FindReport {
  query: { terms: string[]; phrases: string[][] }
  scope: {
    roots: string[]
    /** What chose the roots: --projects, $CLAUDE_CONFIG_DIR or ~/.claude (home). */
    rootsSource: Roots['source']
    /** Sessions, transcript files (main and subagent) and bytes searched, after --since / --project. */
    sessions: number
    files: number
    bytes: number
    /** Everything under the roots. */
    sessionsTotal: number
    filesTotal: number
    bytesTotal: number
    matchingSessions: number
    /** Files (in scope) holding each query term, in `query.terms` order. */
    termFiles: number[]
    searched: { humanText: true; assistantText: true; tools: boolean; thinking: boolean }
    since?: string
    project?: string
    /** Null with --no-index. */
    index: {
      path: string
      /** When the index on disk was written, and how long before this answer. */
      builtAt?: string
      ageMs?: number
      written: boolean
      filesReused: number
      /** Files read now; of those, `filesAppended` only grew and just their new bytes were read. */
      filesRescanned: number
      filesAppended: number
      bytesRescanned: number
      /** Why the index could not be written (the answer is still complete). */
      error?: string
    } | null
    /** Files that could not be read, with why. */
    skipped: { path: string; problem: string }[]
    elapsedMs: number
  }
  hits: FindHit[]
}

/** The scope counts both searches report first: the roots and what was searched of them. */
function scopeCounts(
  roots: Roots,
  s: Pick<
    NonNullable<FindResult['scope']>,
    'sessions' | 'files' | 'bytes' | 'sessionsTotal' | 'filesTotal' | 'bytesTotal' | 'matchingSessions'
  >,
) {
  return {
    roots: roots.roots,
    rootsSource: roots.source,
    sessions: s.sessions,
    files: s.files,
    bytes: s.bytes,
    sessionsTotal: s.sessionsTotal,
    filesTotal: s.filesTotal,
    bytesTotal: s.bytesTotal,
    matchingSessions: s.matchingSessions,
  }
}

/** What both searches read (text kinds) and the filters they applied, for the report's scope. */
function scopeFilters(opts: Pick<FindOptions, 'tools' | 'thinking' | 'project'>, since?: { day: string }) {
  return {
    searched: {
      humanText: true as const,
      assistantText: true as const,
      tools: opts.tools ?? false,
      thinking: opts.thinking ?? false,
    },
    since: since?.day,
    project: opts.project,
  }
}

/** The default index folder: $XDG_CACHE_HOME/claude-jsonl/find, else ~/.cache/claude-jsonl/find. */
export function defaultIndexDir(env: NodeJS.ProcessEnv = process.env): string {
  const base =
    env.XDG_CACHE_HOME && isAbsolute(env.XDG_CACHE_HOME) ? env.XDG_CACHE_HOME : join(env.HOME || homedir(), '.cache')
  return join(base, 'claude-jsonl', 'find')
}

/** The day and its local midnight (the system's zone). */
function sinceMs(value: string): { day: string; ms: number } {
  const day = parseDay('--since', value)
  const [y, mo, d] = day.split('-').map(Number)
  return { day, ms: new Date(y, mo - 1, d).getTime() }
}

function inside(dir: string, root: string): boolean {
  const rel = relative(root, dir)
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel))
}

const iso = (ms: number | undefined | null) =>
  ms === undefined || ms === null ? undefined : new Date(ms).toISOString()

/** What ranked and exact search share: checked options, the roots, the --since day. */
function prepare(opts: FindOptions) {
  const limit = opts.limit ?? 10
  if (!Number.isInteger(limit) || limit < 1)
    throw usageError(`limit expects a positive whole number, got '${opts.limit}'`)
  const since = opts.since === undefined ? undefined : sinceMs(opts.since)
  const roots = resolveRoots({ projects: opts.projects, env: opts.env })
  return { limit, since, roots }
}

/** The roots a native search walks, and the archive roots it reads from their streams in
 * memory (the state `--generation`/`--as-of` names, else the latest; nothing written there). */
async function searched(roots: Roots, opts: FindOptions): Promise<{ plain: string[]; archives: ArchiveSource[] }> {
  const archiveRoots = roots.roots.filter((r) => isArchiveRoot(r))
  if ((opts.generation !== undefined || opts.asOf !== undefined) && archiveRoots.length === 0)
    throw usageError(`--generation and --as-of read an archive; ${roots.roots.join(', ')} holds none`)
  const warn = opts.warn ?? warnToStderr
  const archives: ArchiveSource[] = []
  for (const root of archiveRoots) archives.push({ root, files: await readerFiles(root, opts, warn) })
  return { plain: roots.roots.filter((r) => !archiveRoots.includes(r)), archives }
}

/** Names on stderr (as `stats` does) each archived transcript that did not decode: a damaged
 * stream is skipped, the rest searched. */
function warnArchived(failed: { path: string; message: string }[], archives: ArchiveSource[], opts: FindOptions) {
  const warn = opts.warn ?? warnToStderr
  for (const f of failed) if (archives.some((a) => f.path.startsWith(a.root + sep))) warn(`${f.message} (skipped)`)
}

/** Runs a native search with progress reports; a root that cannot be walked is an input error. */
async function runNative<R extends { failure?: { path: string; message: string } }>(
  roots: ReturnType<typeof resolveRoots>,
  opts: LongOperationOptions,
  run: (progress: InstanceType<typeof native.ScanProgress>) => Promise<R>,
): Promise<R> {
  const r = await withNativeProgress(opts, run)
  if (r.failure) {
    const src =
      roots.source === 'projects' ? '--projects' : roots.source === 'home' ? '~/.claude' : '$CLAUDE_CONFIG_DIR'
    throw inputError(r.failure.path, `${r.failure.message} (estate root from ${src})`)
  }
  return r
}

/** Ranked search (BM25 over sessions) for `terms` across the estate. */
export async function find(
  terms: string[],
  opts: FindOptions & { onProgress?: (p: ProgressSnapshot) => void } = {},
): Promise<FindReport> {
  const started = monotonicMs()
  if (terms.length === 0 || terms.every((t) => t.trim() === '')) throw usageError('find needs at least one search term')
  const { limit, since, roots } = prepare(opts)
  const env = opts.env ?? process.env
  const indexDir = opts.noIndex ? undefined : resolve(opts.indexDir ?? defaultIndexDir(env))
  if (indexDir) {
    const root = roots.roots.find((r) => inside(indexDir, r))
    if (root) throw usageError(`--index-dir ${indexDir} is inside the estate (${root}); nothing is ever written there`)
    // A file where the index folder should be is refused, not searched without an index.
    if (existsSync(indexDir) && !statSync(indexDir).isDirectory())
      throw usageError(`--index-dir ${indexDir}: is a file, not a folder`)
  }
  const { plain, archives } = await searched(roots, opts)
  const r: FindResult = await runNative(roots, opts, (progress) =>
    native.findText(
      plain,
      {
        terms,
        tools: opts.tools,
        thinking: opts.thinking,
        limit,
        sinceMs: since?.ms,
        project: opts.project,
        indexDir,
        archives,
      },
      progress,
    ),
  )
  const s = r.scope!
  warnArchived(s.failed, archives, opts)
  if (s.terms.length === 0)
    throw usageError(`no searchable word in '${terms.join(' ')}' (words are letters and digits)`)
  const now = Date.now()
  return {
    query: { terms: s.terms, phrases: s.phrases },
    scope: {
      ...scopeCounts(roots, s),
      termFiles: s.termFiles,
      ...scopeFilters(opts, since),
      index: s.indexPath
        ? {
            path: s.indexPath,
            builtAt: iso(s.indexBuiltMs),
            ageMs:
              s.indexBuiltMs === undefined || s.indexBuiltMs === null ? undefined : Math.max(0, now - s.indexBuiltMs),
            written: s.indexWritten,
            filesReused: s.filesReused,
            filesRescanned: s.filesRescanned,
            filesAppended: s.filesAppended,
            bytesRescanned: s.bytesRescanned,
            ...(s.indexError ? { error: s.indexError } : {}),
          }
        : null,
      skipped: s.failed.map((f) => ({ path: f.path, problem: f.message })),
      elapsedMs: Math.round(monotonicMs() - started),
    },
    hits: r.hits.map((h, i) => ({
      rank: i + 1,
      score: Math.round(h.score * 1000) / 1000,
      ...hitPlace(h),
      matched: h.matched,
      phrasesFound: h.phrasesFound,
    })),
  }
}

/**
 * What literal search (`findExact`) searches: the scope and text kinds of ranked search, and
 * whether case must match.
 */
export interface FindExactOptions extends Omit<FindOptions, 'indexDir' | 'noIndex'> {
  /** Match case exactly (default: case-insensitive, one character for one; see docs/commands/find.md). */
  caseSensitive?: boolean
}

/** A session holding the text: its first match in the file with the most matches. */
export interface FindExactHit extends HitPlace {
  /** Occurrences of the text in the session's files in scope, and the records and files holding them. */
  matches: number
  records: number
  files: number
}

/**
 * The result of a literal search: the text and case rule, the scope searched with the total
 * matches, and one hit per session holding the text.
 */
export interface FindExactReport {
  query: { exact: string; caseSensitive: boolean }
  scope: Omit<FindReport['scope'], 'termFiles' | 'index'> & {
    matchingFiles: number
    /** Occurrences over every file in scope. */
    matches: number
    /** Exact search keeps no index: every transcript in scope is read now. */
    index: null
  }
  hits: FindExactHit[]
}

/**
 * Literal substring search for `text` in the same text ranked search covers (human and assistant
 * text; tool traffic and thinking when asked), matched in the decoded text; one hit per session
 * with its number of matches, most matches first.
 */
export async function findExact(
  text: string,
  opts: FindExactOptions & { onProgress?: (p: ProgressSnapshot) => void } = {},
): Promise<FindExactReport> {
  const started = monotonicMs()
  if (typeof text !== 'string' || text === '') throw usageError('find --exact needs a non-empty TEXT')
  const { limit, since, roots } = prepare(opts)
  const caseSensitive = opts.caseSensitive ?? false
  const { plain, archives } = await searched(roots, opts)
  const r: FindExactResult = await runNative(roots, opts, (progress) =>
    native.findExact(
      plain,
      {
        archives,
        text,
        caseSensitive,
        tools: opts.tools,
        thinking: opts.thinking,
        limit,
        sinceMs: since?.ms,
        project: opts.project,
      },
      progress,
    ),
  )
  const s = r.scope!
  warnArchived(s.failed, archives, opts)
  return {
    query: { exact: text, caseSensitive },
    scope: {
      ...scopeCounts(roots, s),
      matchingFiles: s.matchingFiles,
      matches: s.matches,
      ...scopeFilters(opts, since),
      index: null,
      skipped: s.failed.map((f) => ({ path: f.path, problem: f.message })),
      elapsedMs: Math.round(monotonicMs() - started),
    },
    hits: r.hits.map((h, i) => ({
      rank: i + 1,
      matches: h.matches,
      records: h.records,
      files: h.files,
      ...hitPlace(h),
    })),
  }
}
