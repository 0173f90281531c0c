//! The Node-API binding: the only module that knows about JS. It converts types and maps
//! errors; every decision is made in the core modules or in TypeScript.

mod in_place;

use crate::estate::{self, EstateFile, FileKind};
use crate::io_message;
use crate::read::{facts, usage};
use crate::scan::{self, record, Mode, Scan};
use napi::bindgen_prelude::*;
use napi_derive::napi;
use rayon::prelude::*;
use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::sync::Arc;

mod tool_targets;

#[napi]
pub fn version() -> String {
    env!("CARGO_PKG_VERSION").to_string()
}

fn mode_of(mode: Option<String>) -> Result<Mode> {
    match mode.as_deref() {
        None | Some("full") => Ok(Mode::Full),
        Some("usage") => Ok(Mode::Usage),
        Some(other) => {
            Err(Error::new(Status::InvalidArg, format!("unknown scan mode '{other}' (expected 'full' or 'usage')")))
        }
    }
}

#[napi(object)]
pub struct TypeCount {
    pub name: String,
    pub count: f64,
}

#[napi(object)]
pub struct BadLineInfo {
    pub line: u32,
    pub offset: f64,
    pub kind: String,
}

#[napi(object)]
pub struct RequestFactsInfo {
    pub assistant_entries: f64,
    pub synthetic_entries: f64,
    pub entries_with_request_id: f64,
    pub sidechain_entries: f64,
    pub distinct_requests: f64,
    pub duplicates_collapsed: f64,
    pub null_stop_groups: f64,
}

/// What one scan found in one file. Counts only; no transcript text.
#[napi(object)]
pub struct ScanSummary {
    pub bytes: f64,
    pub lines: f64,
    pub records: f64,
    pub blank_lines: f64,
    pub crlf_lines: f64,
    pub bad_json_lines: f64,
    pub non_object_lines: f64,
    pub lone_surrogate_lines: f64,
    pub bom: bool,
    pub unterminated_tail: bool,
    pub torn_tail: bool,
    /// 'empty' | 'object' | 'non-object' | 'invalid'
    pub first_line: String,
    pub types: Vec<TypeCount>,
    pub bad_lines: Vec<BadLineInfo>,
    pub requests: RequestFactsInfo,
    pub last_version: Option<String>,
    pub first_timestamp_ms: Option<f64>,
    pub last_timestamp_ms: Option<f64>,
    pub session_id: Option<String>,
    pub cwd: Option<String>,
}

fn first_line_name(f: scan::FirstLine) -> &'static str {
    match f {
        scan::FirstLine::Empty => "empty",
        scan::FirstLine::Object => "object",
        scan::FirstLine::NonObject => "non-object",
        scan::FirstLine::Invalid => "invalid",
    }
}

fn summarize(s: &Scan) -> ScanSummary {
    let f = facts::request_facts(s);
    let (mut first_ts, mut last_ts) = (None::<i64>, None::<i64>);
    for t in s.records.iter().filter_map(|r| r.timestamp_ms) {
        first_ts = Some(first_ts.map_or(t, |v| v.min(t)));
        last_ts = Some(last_ts.map_or(t, |v| v.max(t)));
    }
    ScanSummary {
        bytes: s.bytes as f64,
        lines: s.counts.lines as f64,
        records: s.records.len() as f64,
        blank_lines: s.counts.blank_lines as f64,
        crlf_lines: s.counts.crlf_lines as f64,
        bad_json_lines: s.counts.bad_json_lines as f64,
        non_object_lines: s.counts.non_object_lines as f64,
        lone_surrogate_lines: s.counts.lone_surrogate_lines as f64,
        bom: s.bom,
        unterminated_tail: s.unterminated_tail,
        torn_tail: s.torn_tail,
        first_line: first_line_name(s.first_line).to_string(),
        types: s
            .type_counts()
            .into_iter()
            .map(|(name, count)| TypeCount { name: name.to_string(), count: count as f64 })
            .collect(),
        bad_lines: s
            .bad_lines
            .iter()
            .map(|b| BadLineInfo {
                line: b.line,
                offset: b.offset as f64,
                kind: match b.kind {
                    scan::BadKind::InvalidJson => "invalid-json",
                    scan::BadKind::NonObject => "non-object",
                }
                .to_string(),
            })
            .collect(),
        requests: RequestFactsInfo {
            assistant_entries: f.assistant_entries as f64,
            synthetic_entries: f.synthetic_entries as f64,
            entries_with_request_id: f.entries_with_request_id as f64,
            sidechain_entries: f.sidechain_entries as f64,
            distinct_requests: f.distinct_requests as f64,
            duplicates_collapsed: f.duplicates_collapsed as f64,
            null_stop_groups: f.null_stop_groups as f64,
        },
        last_version: s.records.iter().rev().find_map(|r| r.version).map(|v| s.str(v).to_string()),
        first_timestamp_ms: first_ts.map(|v| v as f64),
        last_timestamp_ms: last_ts.map(|v| v as f64),
        session_id: s.records.iter().find_map(|r| r.session_id).map(|v| s.str(v).to_string()),
        cwd: s.records.iter().find_map(|r| r.cwd).map(|v| s.str(v).to_string()),
    }
}

#[napi(object)]
pub struct UsageInfo {
    pub input_tokens: f64,
    pub cache_creation_input_tokens: f64,
    #[napi(js_name = "cacheCreation5mInputTokens")]
    pub cache_creation_5m_input_tokens: Option<f64>,
    #[napi(js_name = "cacheCreation1hInputTokens")]
    pub cache_creation_1h_input_tokens: Option<f64>,
    pub cache_read_input_tokens: f64,
    pub output_tokens: f64,
}

#[napi(object)]
pub struct ToolUseInfo {
    pub id: String,
    pub name: String,
}

/// One record's extracted fields, made on request for one file (never estate-wide).
#[napi(object)]
pub struct RecordInfo {
    pub offset: f64,
    pub length: u32,
    pub line: u32,
    #[napi(js_name = "type")]
    pub kind: Option<String>,
    pub subtype: Option<String>,
    pub uuid: Option<String>,
    pub parent_uuid: Option<String>,
    pub logical_parent_uuid: Option<String>,
    pub session_id: Option<String>,
    pub agent_id: Option<String>,
    pub timestamp: Option<String>,
    pub version: Option<String>,
    pub cwd: Option<String>,
    pub is_sidechain: bool,
    pub is_meta: bool,
    pub is_compact_summary: bool,
    pub is_api_error_message: bool,
    pub content_is_string: bool,
    pub has_parent_uuid_key: bool,
    pub repaired_lone_surrogates: bool,
    pub message_id: Option<String>,
    pub request_id: Option<String>,
    pub model: Option<String>,
    pub stop_reason: Option<String>,
    pub usage: Option<UsageInfo>,
    pub leaf_uuid: Option<String>,
    pub content_kinds: Vec<String>,
    pub tool_uses: Vec<ToolUseInfo>,
    pub tool_result_ids: Vec<String>,
}

fn record_info(s: &Scan, r: &record::Record) -> RecordInfo {
    let o = |v: Option<record::Str>| v.map(|v| s.str(v).to_string());
    RecordInfo {
        offset: r.offset as f64,
        length: r.len,
        line: r.line,
        kind: o(r.kind),
        subtype: o(r.subtype),
        uuid: o(r.uuid),
        parent_uuid: o(r.parent_uuid),
        logical_parent_uuid: o(r.logical_parent_uuid),
        session_id: o(r.session_id),
        agent_id: o(r.agent_id),
        timestamp: o(r.timestamp),
        version: o(r.version),
        cwd: o(r.cwd),
        is_sidechain: r.has(record::F_SIDECHAIN),
        is_meta: r.has(record::F_META),
        is_compact_summary: r.has(record::F_COMPACT_SUMMARY),
        is_api_error_message: r.has(record::F_API_ERROR),
        content_is_string: r.has(record::F_CONTENT_STRING),
        has_parent_uuid_key: r.has(record::F_HAS_PARENT_KEY),
        repaired_lone_surrogates: r.has(record::F_REPAIRED),
        message_id: o(r.message_id),
        request_id: o(r.request_id),
        model: o(r.model),
        stop_reason: o(r.stop_reason),
        usage: r.usage.map(|u| UsageInfo {
            input_tokens: u.input as f64,
            cache_creation_input_tokens: u.cache_creation as f64,
            cache_creation_5m_input_tokens: u.cache_5m.map(|v| v as f64),
            cache_creation_1h_input_tokens: u.cache_1h.map(|v| v as f64),
            cache_read_input_tokens: u.cache_read as f64,
            output_tokens: u.output as f64,
        }),
        leaf_uuid: o(r.leaf_uuid),
        content_kinds: s.tables.kinds(r).iter().map(|k| s.str(*k).to_string()).collect(),
        tool_uses: s
            .tables
            .tool_uses(r)
            .iter()
            .map(|t| ToolUseInfo { id: s.str(t.id).to_string(), name: s.str(t.name).to_string() })
            .collect(),
        tool_result_ids: s.tables.tool_results(r).iter().map(|t| s.str(*t).to_string()).collect(),
    }
}

/// The record index of one transcript, held in Rust. JS reads counts, columns, or single
/// records from it; the bytes themselves never cross.
#[napi]
pub struct TranscriptIndex {
    scan: Scan,
}

#[napi]
impl TranscriptIndex {
    #[napi(getter)]
    pub fn length(&self) -> u32 {
        self.scan.records.len() as u32
    }

    #[napi]
    pub fn summary(&self) -> ScanSummary {
        summarize(&self.scan)
    }

    #[napi]
    pub fn record(&self, index: u32) -> Option<RecordInfo> {
        self.scan.records.get(index as usize).map(|r| record_info(&self.scan, r))
    }

    #[napi]
    pub fn records(&self, start: Option<u32>, end: Option<u32>) -> Vec<RecordInfo> {
        let n = self.scan.records.len();
        let a = (start.unwrap_or(0) as usize).min(n);
        let b = (end.map_or(n, |e| e as usize)).clamp(a, n);
        self.scan.records[a..b].iter().map(|r| record_info(&self.scan, r)).collect()
    }

    /// Byte offsets of the records (f64: exact to 2^53).
    #[napi]
    pub fn offsets(&self) -> Float64Array {
        Float64Array::new(self.scan.records.iter().map(|r| r.offset as f64).collect())
    }

    #[napi]
    pub fn lengths(&self) -> Uint32Array {
        Uint32Array::new(self.scan.records.iter().map(|r| r.len).collect())
    }
}

/// Scans a transcript held in a Buffer, without copying it into JS strings.
#[napi]
pub fn scan_buffer(buffer: &[u8], mode: Option<String>) -> Result<TranscriptIndex> {
    Ok(TranscriptIndex { scan: scan::scan_bytes_parallel(buffer, mode_of(mode)?) })
}

pub struct ScanFileTask {
    path: PathBuf,
    mode: Mode,
}

impl Task for ScanFileTask {
    type Output = Scan;
    type JsValue = TranscriptIndex;
    fn compute(&mut self) -> Result<Scan> {
        scan::scan_file(&self.path, self.mode)
            .map_err(|e| Error::new(Status::GenericFailure, format!("{}: {}", self.path.display(), io_message(&e))))
    }
    fn resolve(&mut self, _env: Env, output: Scan) -> Result<TranscriptIndex> {
        Ok(TranscriptIndex { scan: output })
    }
}

/// Scans one transcript file on the libuv pool, split across cores when large.
#[napi(ts_return_type = "Promise<TranscriptIndex>")]
pub fn scan_file(path: String, mode: Option<String>) -> Result<AsyncTask<ScanFileTask>> {
    Ok(AsyncTask::new(ScanFileTask { path: PathBuf::from(path), mode: mode_of(mode)? }))
}

#[napi(object)]
pub struct ProgressSnapshot {
    pub bytes_done: f64,
    pub bytes_total: f64,
    pub files_done: f64,
    pub files_total: f64,
}

/// Counters a running scan updates; JS polls `snapshot()` from a timer on its own thread.
#[napi]
pub struct ScanProgress {
    inner: Arc<scan::Progress>,
}

#[napi]
impl ScanProgress {
    #[napi(constructor)]
    #[allow(clippy::new_without_default)]
    pub fn new() -> Self {
        ScanProgress { inner: Arc::new(scan::Progress::default()) }
    }

    #[napi]
    pub fn snapshot(&self) -> ProgressSnapshot {
        let p = &self.inner;
        ProgressSnapshot {
            bytes_done: p.bytes_done.load(Ordering::Relaxed) as f64,
            bytes_total: p.bytes_total.load(Ordering::Relaxed) as f64,
            files_done: p.files_done.load(Ordering::Relaxed) as f64,
            files_total: p.files_total.load(Ordering::Relaxed) as f64,
        }
    }
}

#[napi(object)]
pub struct EstateFileInfo {
    pub path: String,
    /// 'session' | 'subagent'
    pub kind: String,
    pub project: String,
    /// The session the file belongs to (for a subagent, its parent), resolved after scanning.
    pub session_id: String,
    pub session_index: u32,
    pub agent_id: Option<String>,
    pub size: f64,
    pub mtime_ms: f64,
    /// Set when the file could not be read; then `summary` is absent.
    pub error: Option<String>,
    /// Not scanned: last modified before `minMtimeMs`, so it cannot hold newer records.
    pub pruned: bool,
    /// Records kept by the scan (in a usage scan: assistant entries only).
    pub records: f64,
    /// How the first non-blank line read: 'empty' | 'object' | 'non-object' | 'invalid'.
    pub first_line: String,
    pub summary: Option<ScanSummary>,
}

#[napi(object)]
pub struct SessionInfo {
    pub project: String,
    pub session_id: String,
    pub main_file: Option<u32>,
    pub files: Vec<u32>,
}

#[napi(object)]
pub struct DiscoverFailure {
    pub path: String,
    pub message: String,
}

/// Usage buckets as columns: one entry per (session, 15-minute slot, model, subagent?, lane,
/// long-context?) with the deduplicated token sums of the requests in it.
#[napi(object)]
pub struct UsageColumns {
    pub session: Uint32Array,
    /// Slot start, ms since the epoch; NaN when the entries had no timestamp.
    pub slot_ms: Float64Array,
    pub model: Uint32Array,
    pub subagent: Uint8Array,
    /// 0 none, 1 vertex, 2 other
    pub lane: Uint8Array,
    /// How many of the prompt thresholds given to `usage` the requests' prompts exceed.
    pub prompt_band: Uint8Array,
    /// Index in `speeds` of `usage.speed` ("" when absent).
    pub speed: Uint32Array,
    pub speeds: Vec<String>,
    pub requests: Float64Array,
    pub input_tokens: Float64Array,
    pub cache_creation_input_tokens: Float64Array,
    #[napi(js_name = "cacheWrite5mTokens")]
    pub cache_write_5m_tokens: Float64Array,
    #[napi(js_name = "cacheWrite1hTokens")]
    pub cache_write_1h_tokens: Float64Array,
    pub cache_read_input_tokens: Float64Array,
    pub output_tokens: Float64Array,
    pub models: Vec<String>,
    /// Tool calls: bucket index, tool name index, count.
    pub tool_bucket: Uint32Array,
    pub tool_name: Uint32Array,
    pub tool_calls: Float64Array,
    pub tool_names: Vec<String>,
    pub assistant_entries: f64,
    pub synthetic_entries: f64,
    pub sidechain_replays: f64,
    pub malformed_usage_entries: f64,
}

/// An estate scan held in Rust: file list, sessions, and (on request) usage.
#[napi]
pub struct EstateScan {
    failure: Option<(String, String)>,
    files: Vec<EstateFile>,
    scans: Vec<std::result::Result<Scan, String>>,
    pruned: Vec<bool>,
    session_of_file: Vec<u32>,
    sessions: Vec<estate::Session>,
    /// Tool calls by target from the last `usage` call, for `toolTargets`.
    tool_targets: Option<(crate::read::tool_targets::TargetCounts, Vec<String>)>,
}

#[napi]
impl EstateScan {
    /// A path given to the scan that does not exist or cannot be listed.
    #[napi(getter)]
    pub fn failure(&self) -> Option<DiscoverFailure> {
        self.failure.as_ref().map(|(path, message)| DiscoverFailure { path: path.clone(), message: message.clone() })
    }

    /// One entry per file. `summaries` (default true) adds each file's full scan summary, which
    /// costs a JS object per record type and per file; `stats` does without.
    #[napi]
    pub fn files(&self, summaries: Option<bool>) -> Vec<EstateFileInfo> {
        let summaries: Vec<Option<ScanSummary>> = if summaries.unwrap_or(true) {
            self.scans
                .par_iter()
                .zip(&self.pruned)
                .map(|(s, &p)| if p { None } else { s.as_ref().ok().map(summarize) })
                .collect()
        } else {
            self.scans.iter().map(|_| None).collect()
        };
        self.files
            .iter()
            .zip(&self.scans)
            .zip(&self.session_of_file)
            .zip(&self.pruned)
            .zip(summaries)
            .map(|((((f, s), &si), &pruned), summary)| EstateFileInfo {
                path: f.path.to_string_lossy().into_owned(),
                kind: if f.kind == FileKind::Session { "session" } else { "subagent" }.to_string(),
                project: f.project.clone(),
                session_id: self.sessions[si as usize].session_id.clone(),
                session_index: si,
                agent_id: f.agent_id.clone(),
                size: f.size as f64,
                mtime_ms: f.mtime_ms,
                error: s.as_ref().err().cloned(),
                pruned,
                records: s.as_ref().map_or(0.0, |s| s.records.len() as f64),
                first_line: s.as_ref().map_or("empty", |s| first_line_name(s.first_line)).to_string(),
                summary,
            })
            .collect()
    }

    /// Frees the scan's native memory now instead of whenever the GC collects this object
    /// (it cannot see that memory, so it would not hurry). Later calls see an empty estate.
    #[napi]
    pub fn release(&mut self) {
        self.scans = Vec::new();
        self.files = Vec::new();
        self.pruned = Vec::new();
        self.session_of_file = Vec::new();
        self.sessions = Vec::new();
        self.tool_targets = None;
    }

    #[napi]
    pub fn sessions(&self) -> Vec<SessionInfo> {
        self.sessions
            .iter()
            .map(|s| SessionInfo {
                project: s.project.clone(),
                session_id: s.session_id.clone(),
                main_file: s.main_file.map(|v| v as u32),
                files: s.files.iter().map(|&v| v as u32).collect(),
            })
            .collect()
    }

    /// `prompt_thresholds`: the prompt sizes (tokens) that split requests into `promptBand`s.
    #[napi]
    pub fn usage(&mut self, prompt_thresholds: Vec<f64>) -> UsageColumns {
        let empty = Scan::default();
        let scans: Vec<&Scan> = self.scans.iter().map(|s| s.as_ref().unwrap_or(&empty)).collect();
        let subagent: Vec<bool> = self.files.iter().map(|f| f.kind == FileKind::Subagent).collect();
        let thresholds: Vec<u64> = prompt_thresholds.iter().map(|&t| t.max(0.0) as u64).collect();
        let mut r = usage::aggregate(&scans, &self.session_of_file, &subagent, &thresholds);
        self.tool_targets = Some((std::mem::take(&mut r.tool_targets), r.tool_names.clone()));
        let col =
            |f: &dyn Fn(&usage::Tokens) -> u64| Float64Array::new(r.buckets.iter().map(|(_, t)| f(t) as f64).collect());
        UsageColumns {
            session: Uint32Array::new(r.buckets.iter().map(|(k, _)| k.session).collect()),
            slot_ms: Float64Array::new(
                r.buckets.iter().map(|(k, _)| if k.slot == i64::MIN { f64::NAN } else { k.slot as f64 }).collect(),
            ),
            model: Uint32Array::new(r.buckets.iter().map(|(k, _)| k.model).collect()),
            subagent: Uint8Array::new(r.buckets.iter().map(|(k, _)| k.subagent as u8).collect()),
            lane: Uint8Array::new(r.buckets.iter().map(|(k, _)| k.lane as u8).collect()),
            prompt_band: Uint8Array::new(r.buckets.iter().map(|(k, _)| k.prompt_band).collect()),
            speed: Uint32Array::new(r.buckets.iter().map(|(k, _)| k.speed).collect()),
            speeds: r.speeds.clone(),
            requests: col(&|t| t.requests),
            input_tokens: col(&|t| t.input),
            cache_creation_input_tokens: col(&|t| t.cache_creation),
            cache_write_5m_tokens: col(&|t| t.cache_5m),
            cache_write_1h_tokens: col(&|t| t.cache_1h),
            cache_read_input_tokens: col(&|t| t.cache_read),
            output_tokens: col(&|t| t.output),
            models: r.models.clone(),
            tool_bucket: Uint32Array::new(r.tools.iter().map(|t| t.0).collect()),
            tool_name: Uint32Array::new(r.tools.iter().map(|t| t.1).collect()),
            tool_calls: Float64Array::new(r.tools.iter().map(|t| t.2 as f64).collect()),
            tool_names: r.tool_names.clone(),
            assistant_entries: r.assistant_entries as f64,
            synthetic_entries: r.synthetic_entries as f64,
            sidechain_replays: r.sidechain_replays as f64,
            malformed_usage_entries: r.malformed_usage_entries as f64,
        }
    }
}

pub struct ScanEstateTask {
    paths: Vec<PathBuf>,
    mode: Mode,
    min_mtime_ms: Option<f64>,
    progress: Arc<scan::Progress>,
}

impl Task for ScanEstateTask {
    type Output = EstateScan;
    type JsValue = EstateScan;
    fn compute(&mut self) -> Result<EstateScan> {
        let files = match estate::discover(&self.paths) {
            Ok(f) => f,
            Err(e) => {
                return Ok(EstateScan {
                    failure: Some((e.path.to_string_lossy().into_owned(), e.message)),
                    files: vec![],
                    scans: vec![],
                    pruned: vec![],
                    session_of_file: vec![],
                    sessions: vec![],
                    tool_targets: None,
                })
            }
        };
        let pruned: Vec<bool> = files.iter().map(|f| self.min_mtime_ms.is_some_and(|m| f.mtime_ms < m)).collect();
        let paths: Vec<PathBuf> =
            files.iter().zip(&pruned).filter(|(_, p)| !**p).map(|(f, _)| f.path.clone()).collect();
        let mut scanned = scan::scan_paths(&paths, self.mode, &self.progress).into_iter();
        let scans: Vec<std::result::Result<Scan, String>> = pruned
            .iter()
            .map(|&p| match p {
                true => Ok(Scan::default()),
                false => scanned.next().expect("one scan per kept file").map_err(|e| io_message(&e)),
            })
            .collect();
        let refs: Vec<Option<&Scan>> = scans.iter().map(|s| s.as_ref().ok()).collect();
        let (sessions, session_of_file) = estate::sessions(&files, &refs);
        Ok(EstateScan { failure: None, files, scans, pruned, session_of_file, sessions, tool_targets: None })
    }
    fn resolve(&mut self, _env: Env, output: EstateScan) -> Result<EstateScan> {
        Ok(output)
    }
}

#[napi(object)]
pub struct ScanEstateOptions {
    /// Skip (but still list) files last modified before this time, ms since the epoch.
    pub min_mtime_ms: Option<f64>,
}

/// Finds and scans every transcript under `paths` in parallel, off the JS thread.
#[napi(ts_return_type = "Promise<EstateScan>")]
pub fn scan_estate(
    paths: Vec<String>,
    mode: Option<String>,
    progress: Option<&ScanProgress>,
    options: Option<ScanEstateOptions>,
) -> Result<AsyncTask<ScanEstateTask>> {
    Ok(AsyncTask::new(ScanEstateTask {
        paths: paths.into_iter().map(PathBuf::from).collect(),
        mode: mode_of(mode)?,
        min_mtime_ms: options.and_then(|o| o.min_mtime_ms),
        progress: progress.map_or_else(|| Arc::new(scan::Progress::default()), |p| p.inner.clone()),
    }))
}

#[napi]
pub fn sha256(buffer: &[u8]) -> String {
    crate::hash::sha256_hex(buffer)
}

/// A transcript file found by walking, before any scan.
#[napi(object)]
pub struct DiscoveredFile {
    pub path: String,
    /// 'session' | 'subagent'
    pub kind: String,
    pub project: String,
    /// From the path; absent for an old-layout `agent-*.jsonl` (its parent is in its records).
    pub session_id: Option<String>,
    pub agent_id: Option<String>,
    pub size: f64,
    pub mtime_ms: f64,
}

/// Walks `paths` for transcripts without reading them: cheap enough to run before every
/// command that names a session. A missing root is an error naming it.
#[napi]
pub fn discover_files(paths: Vec<String>) -> Result<Vec<DiscoveredFile>> {
    let paths: Vec<PathBuf> = paths.into_iter().map(PathBuf::from).collect();
    let files = estate::discover(&paths)
        .map_err(|e| Error::new(Status::InvalidArg, format!("{}: {}", e.path.display(), e.message)))?;
    Ok(files
        .into_iter()
        .map(|f| DiscoveredFile {
            path: f.path.to_string_lossy().into_owned(),
            kind: if f.kind == FileKind::Session { "session" } else { "subagent" }.to_string(),
            project: f.project,
            session_id: f.session_id,
            agent_id: f.agent_id,
            size: f.size as f64,
            mtime_ms: f.mtime_ms,
        })
        .collect())
}

// ---- chain: active chain and leaf (show, timeline; shared with validate and topology) ----

#[napi(object)]
pub struct ChainOptions {
    /// Also group the records off the chain into branches.
    pub all_branches: Option<bool>,
    /// Use this record as the leaf instead of the client's choice.
    pub leaf: Option<u32>,
}

/// The leaf the client resumes from and the active chain from it, as record indexes.
#[napi(object)]
pub struct ActiveChain {
    /// Root to leaf, fragments and tool results spliced in where the client puts them.
    pub indexes: Uint32Array,
    /// Per chain record: 0 on the parent chain, 1 spliced assistant fragment, 2 spliced tool result.
    pub origins: Uint8Array,
    pub leaf: Option<u32>,
    /// 'last-prompt' | 'last-prompt-interior' | 'last-conversation-record' | 'none' | 'manual'
    pub rule: String,
    /// 'absent' | 'no-leaf-uuid' | 'unknown-uuid' | 'leaf' | 'interior-on-chain' | 'interior-off-chain'
    pub pointer: String,
    /// The last last-prompt record and the record its leafUuid names.
    pub pointer_record: Option<u32>,
    pub pointer_target: Option<u32>,
    /// The leaf of the last conversation record in file order.
    pub default_leaf: Option<u32>,
    /// When the pointer names a record on the chain: how many conversation branches fork at or
    /// below it (0: the chain below the pointer is a linear continuation).
    pub branches_below_pointer: Option<u32>,
    /// The walk from the leaf met a parent cycle.
    pub looped: bool,
    /// Records whose uuid a later record reuses (left out of the graph).
    pub duplicate_uuid_records: Uint32Array,
    /// Records whose parentUuid names no record: re-attached by timestamp, or left as roots.
    pub reattached_records: Uint32Array,
    pub dangling_records: Uint32Array,
    pub roots: Uint32Array,
    /// With allBranches: the records off the chain, per branch (branch id = its first record),
    /// with the chain record each branch forks from (0xFFFFFFFF: detached).
    pub branch_indexes: Option<Uint32Array>,
    pub branch_ids: Option<Uint32Array>,
    pub branch_forks: Option<Uint32Array>,
}

fn opt_index(i: u32) -> Option<u32> {
    (i != crate::graph::NONE).then_some(i)
}

/// The client's leaf and the active chain of a scanned transcript (full scan).
#[napi]
pub fn active_chain(index: &TranscriptIndex, options: Option<ChainOptions>) -> Result<ActiveChain> {
    use crate::graph::{Graph, Link};
    let g = Graph::new(&index.scan);
    let choice = g.client_leaf();
    let (leaf, rule) = match options.as_ref().and_then(|o| o.leaf) {
        Some(l) => {
            if l as usize >= index.scan.records.len() || !g.canonical(l) {
                return Err(Error::new(Status::InvalidArg, format!("record {l} is not a record with a uuid")));
            }
            (l, "manual")
        }
        None => (choice.leaf, choice.rule.name()),
    };
    let chain = g.active_chain(leaf);
    let links = |k: Link| Uint32Array::new((0..g.link.len() as u32).filter(|&i| g.link[i as usize] == k).collect());
    let all = g.branches(&chain);
    let target = choice.pointer_target;
    let branches_below_pointer = (target != crate::graph::NONE && chain.records.contains(&target))
        .then(|| g.branches_below(&chain, &all, target).len() as u32);
    let branches = options.as_ref().and_then(|o| o.all_branches).unwrap_or(false).then_some(all);
    Ok(ActiveChain {
        origins: Uint8Array::new(chain.origins.iter().map(|o| *o as u8).collect()),
        indexes: Uint32Array::new(chain.records.clone()),
        leaf: opt_index(leaf),
        rule: rule.to_string(),
        pointer: choice.pointer.name().to_string(),
        pointer_record: opt_index(choice.pointer_record),
        pointer_target: opt_index(choice.pointer_target),
        default_leaf: opt_index(choice.default_leaf),
        branches_below_pointer,
        looped: chain.looped,
        duplicate_uuid_records: Uint32Array::new(g.duplicates.clone()),
        reattached_records: links(Link::Reattached),
        dangling_records: links(Link::Dangling),
        roots: Uint32Array::new(g.roots.clone()),
        branch_indexes: branches.as_ref().map(|b| Uint32Array::new(b.records.clone())),
        branch_ids: branches.as_ref().map(|b| Uint32Array::new(b.branch.clone())),
        branch_forks: branches.as_ref().map(|b| Uint32Array::new(b.fork.clone())),
    })
}

// ---- end chain ----

// ---- search: text extraction and ranked search (find) ----

#[napi(object)]
pub struct FindOptions {
    /// Command-line terms; a quoted part, or an argument of several words, is also a phrase.
    pub terms: Vec<String>,
    /// Also search tool traffic (tool_use inputs and tool results).
    pub tools: Option<bool>,
    /// Also search thinking blocks.
    pub thinking: Option<bool>,
    pub limit: Option<u32>,
    /// Only sessions whose last searchable record is at or after this time (ms since the epoch).
    pub since_ms: Option<f64>,
    /// A substring of the project folder name.
    pub project: Option<String>,
    /// Folder holding the index; absent: scan everything and write nothing.
    pub index_dir: Option<String>,
}

#[napi(object)]
pub struct FindHit {
    pub score: f64,
    pub session_id: String,
    /// Set when the best match is in one of the session's subagent transcripts.
    pub agent_id: Option<String>,
    pub project: String,
    pub path: String,
    /// The record the snippet comes from: 1-based line, byte offset and length.
    pub line: u32,
    pub offset: f64,
    pub length: u32,
    pub timestamp: Option<String>,
    pub first_ms: Option<f64>,
    pub last_ms: Option<f64>,
    pub snippet: String,
    pub matched: Vec<String>,
    pub phrases_found: u32,
}

#[napi(object)]
pub struct FindScope {
    /// What the query ran over, after --since and --project.
    pub files: f64,
    pub sessions: f64,
    pub bytes: f64,
    /// Everything found under the roots.
    pub files_total: f64,
    pub sessions_total: f64,
    pub bytes_total: f64,
    pub matching_files: f64,
    pub matching_sessions: f64,
    pub terms: Vec<String>,
    pub phrases: Vec<Vec<String>>,
    /// Files (in scope) holding each term, in `terms` order.
    pub term_files: Vec<f64>,
    pub index_path: Option<String>,
    /// When the index now on disk was written.
    pub index_built_ms: Option<f64>,
    pub index_written: bool,
    pub index_error: Option<String>,
    pub files_reused: f64,
    /// Files read now: all of each, or only what was appended to it (`files_appended`).
    pub files_rescanned: f64,
    pub files_appended: f64,
    pub bytes_rescanned: f64,
    pub failed: Vec<DiscoverFailure>,
}

#[napi(object)]
pub struct FindResult {
    pub failure: Option<DiscoverFailure>,
    pub hits: Vec<FindHit>,
    pub scope: Option<FindScope>,
}

pub struct FindTask {
    roots: Vec<PathBuf>,
    options: FindOptions,
    progress: Arc<scan::Progress>,
}

fn ms_opt(v: i64) -> Option<f64> {
    (v != crate::search::segment::NO_TIME).then_some(v as f64)
}

impl Task for FindTask {
    type Output = FindResult;
    type JsValue = FindResult;
    fn compute(&mut self) -> Result<FindResult> {
        use crate::search;
        let files = match estate::discover(&self.roots) {
            Ok(f) => f,
            Err(e) => {
                let failure = DiscoverFailure { path: e.path.to_string_lossy().into_owned(), message: e.message };
                return Ok(FindResult { failure: Some(failure), hits: vec![], scope: None });
            }
        };
        let o = &self.options;
        let fields = search::Fields { tools: o.tools.unwrap_or(false), thinking: o.thinking.unwrap_or(false) };
        let sources: Vec<search::Source> = files
            .iter()
            .map(|f| search::Source {
                path: f.path.clone(),
                project: f.project.clone(),
                session_id: f.session_id.clone().unwrap_or_default(),
                agent_id: f.agent_id.clone(),
                size: f.size,
                mtime_ms: f.mtime_ms,
            })
            .collect();
        let index = o.index_dir.as_ref().map(|d| search::index_path(std::path::Path::new(d), &self.roots, fields));
        let corpus = search::open(&sources, fields, index.as_deref(), &self.progress);
        let query = search::Query::parse(&o.terms);
        let filter = search::Filter { since_ms: o.since_ms.map(|v| v as i64), project: o.project.clone() };
        let ans = search::search(&corpus, &query, &filter, fields, o.limit.unwrap_or(10) as usize);
        let segs = corpus.segments();
        let sessions_total =
            segs.iter().map(|s| (s.project, s.session_id)).collect::<std::collections::HashSet<_>>().len();
        let scope = FindScope {
            files: ans.docs as f64,
            sessions: ans.sessions as f64,
            bytes: ans.bytes as f64,
            files_total: files.len() as f64,
            sessions_total: sessions_total as f64,
            bytes_total: files.iter().map(|f| f.size as f64).sum(),
            matching_files: ans.matching_docs as f64,
            matching_sessions: ans.matching_sessions as f64,
            terms: query.terms.clone(),
            phrases: query.phrases.iter().map(|p| p.iter().map(|&k| query.terms[k].clone()).collect()).collect(),
            term_files: ans.df.iter().map(|&d| d as f64).collect(),
            index_path: index.as_ref().map(|p| p.to_string_lossy().into_owned()),
            index_built_ms: corpus.index_built_ms,
            index_written: corpus.index_written,
            index_error: corpus.index_error.clone(),
            files_reused: corpus.reused as f64,
            files_rescanned: corpus.rescanned as f64,
            files_appended: corpus.appended as f64,
            bytes_rescanned: corpus.rescanned_bytes as f64,
            failed: corpus
                .failed
                .iter()
                .map(|(path, message)| DiscoverFailure { path: path.clone(), message: message.clone() })
                .collect(),
        };
        let hits = ans
            .hits
            .into_iter()
            .map(|h| FindHit {
                score: h.score,
                session_id: h.session_id,
                agent_id: h.agent_id,
                project: h.project,
                path: h.path,
                line: h.line,
                offset: h.offset as f64,
                length: h.len,
                timestamp: h.timestamp,
                first_ms: ms_opt(h.first_ms),
                last_ms: ms_opt(h.last_ms),
                snippet: h.snippet,
                matched: h.matched,
                phrases_found: h.phrases_found as u32,
            })
            .collect();
        Ok(FindResult { failure: None, hits, scope: Some(scope) })
    }
    fn resolve(&mut self, _env: Env, output: FindResult) -> Result<FindResult> {
        Ok(output)
    }
}

/// Ranked search over the transcripts under `roots`, off the JS thread. Only the snippets of
/// the hits cross into JS as text.
#[napi(ts_return_type = "Promise<FindResult>")]
pub fn find_text(roots: Vec<String>, options: FindOptions, progress: Option<&ScanProgress>) -> AsyncTask<FindTask> {
    AsyncTask::new(FindTask {
        roots: roots.into_iter().map(PathBuf::from).collect(),
        options,
        progress: progress.map_or_else(|| Arc::new(scan::Progress::default()), |p| p.inner.clone()),
    })
}

// ---- end search ----

// ---- validate ----

#[napi(object)]
pub struct ValidationFinding {
    pub code: String,
    /// 'error' | 'warning'
    pub severity: String,
    /// 1-based lines involved (at most 20; the message gives full counts).
    pub lines: Vec<u32>,
    pub message: String,
}

#[napi(object)]
pub struct ValidationSession {
    pub session_id: String,
    pub records: u32,
}

/// What the validator found in one transcript, with the scan facts the caller needs to decide
/// whether the file is a Claude Code transcript at all.
#[napi(object)]
pub struct ValidationResult {
    pub bytes: f64,
    pub lines: f64,
    pub records: u32,
    /// 'empty' | 'object' | 'non-object' | 'invalid'
    pub first_line: String,
    pub types: Vec<TypeCount>,
    pub findings: Vec<ValidationFinding>,
    pub leaf_line: Option<u32>,
    pub leaf_rule: String,
    pub pointer: String,
    pub chain_records: u32,
    pub visible_records: u32,
    pub api_messages: u32,
    pub tool_uses: u32,
    pub compact_boundaries: u32,
    pub sessions: Vec<ValidationSession>,
}

#[napi(object)]
pub struct ValidateOptions {
    /// The session the file is named after: the active chain must end in it.
    pub file_session_id: Option<String>,
}

pub struct ValidateTask {
    path: PathBuf,
    file_session: Option<String>,
}

impl Task for ValidateTask {
    type Output = ValidationResult;
    type JsValue = ValidationResult;
    fn compute(&mut self) -> Result<ValidationResult> {
        let bytes = std::fs::read(&self.path)
            .map_err(|e| Error::new(Status::GenericFailure, format!("{}: {}", self.path.display(), io_message(&e))))?;
        Ok(validate_bytes(&bytes, self.file_session.as_deref()))
    }
    fn resolve(&mut self, _env: Env, output: ValidationResult) -> Result<ValidationResult> {
        Ok(output)
    }
}

/// Scans and validates one transcript held in memory.
fn validate_bytes(bytes: &[u8], file_session: Option<&str>) -> ValidationResult {
    let s = scan::scan_bytes_parallel(bytes, Mode::Full);
    let r = crate::validate::validate(&s, bytes, file_session);
    ValidationResult {
        bytes: s.bytes as f64,
        lines: s.counts.lines as f64,
        records: s.records.len() as u32,
        first_line: first_line_name(s.first_line).to_string(),
        types: s
            .type_counts()
            .into_iter()
            .map(|(name, count)| TypeCount { name: name.to_string(), count: count as f64 })
            .collect(),
        findings: r
            .findings
            .into_iter()
            .map(|f| ValidationFinding {
                code: f.code.to_string(),
                severity: f.severity.name().to_string(),
                lines: f.lines,
                message: f.message,
            })
            .collect(),
        leaf_line: r.leaf_line,
        leaf_rule: r.leaf_rule.to_string(),
        pointer: r.pointer.to_string(),
        chain_records: r.chain_records,
        visible_records: r.visible_records,
        api_messages: r.api_messages,
        tool_uses: r.tool_uses,
        compact_boundaries: r.compact_boundaries,
        sessions: r
            .sessions
            .into_iter()
            .map(|(session_id, records)| ValidationSession { session_id, records })
            .collect(),
    }
}

/// Validates a transcript held in a Buffer (a candidate before it is written).
#[napi]
pub fn validate_buffer(buffer: &[u8], options: Option<ValidateOptions>) -> ValidationResult {
    validate_bytes(buffer, options.and_then(|o| o.file_session_id).as_deref())
}

/// Whether the file at `path` holds exactly `bytes` (the read-back check of a written file).
#[napi]
pub fn file_equals(path: String, bytes: &[u8]) -> Result<bool> {
    crate::hash::file_equals(std::path::Path::new(&path), bytes)
        .map_err(|e| Error::new(Status::GenericFailure, format!("{path}: {}", io_message(&e))))
}

/// Validates one transcript file off the JS thread (see `crate::validate`).
#[napi(ts_return_type = "Promise<ValidationResult>")]
pub fn validate_file(path: String, options: Option<ValidateOptions>) -> AsyncTask<ValidateTask> {
    AsyncTask::new(ValidateTask { path: PathBuf::from(path), file_session: options.and_then(|o| o.file_session_id) })
}

// ---- end validate ----

// ---- store ----

use crate::store::{self, Encoding};

fn encoding_of(s: &str) -> Result<Encoding> {
    Encoding::parse(s)
        .ok_or_else(|| Error::new(Status::InvalidArg, format!("unknown compression '{s}' (expected 'zstd' or 'none')")))
}

/// Encodes one batch of whole JSONL lines as the bytes to append (a checksummed frame with its
/// extent marker, or the lines themselves for 'none').
#[napi]
pub fn store_encode_batch(lines: &[u8], compression: String) -> Result<Buffer> {
    let enc = encoding_of(&compression)?;
    store::encode_batch(lines, enc).map(Buffer::from).map_err(|e| Error::new(Status::InvalidArg, e))
}

pub struct StoreEncodeTask {
    lines: Vec<u8>,
    enc: Encoding,
}

impl Task for StoreEncodeTask {
    type Output = Vec<u8>;
    type JsValue = Buffer;
    fn compute(&mut self) -> Result<Vec<u8>> {
        store::encode_batch(&self.lines, self.enc).map_err(|e| Error::new(Status::InvalidArg, e))
    }
    fn resolve(&mut self, _env: Env, out: Vec<u8>) -> Result<Buffer> {
        Ok(out.into())
    }
}

/// `storeEncodeBatch` on the libuv pool, so compressing a large batch never blocks the event loop.
#[napi(ts_return_type = "Promise<Buffer>")]
pub fn store_encode_batch_async(lines: &[u8], compression: String) -> Result<AsyncTask<StoreEncodeTask>> {
    Ok(AsyncTask::new(StoreEncodeTask { lines: lines.to_vec(), enc: encoding_of(&compression)? }))
}

/// The header line of a store file, reading only its first frame (or line).
#[napi]
pub fn store_read_header(path: String, compression: String) -> Result<Buffer> {
    let enc = encoding_of(&compression)?;
    store::read_header(std::path::Path::new(&path), enc)
        .map(Buffer::from)
        .map_err(|e| Error::new(Status::GenericFailure, e))
}

#[napi(object)]
pub struct StoreLoaded {
    pub header: Buffer,
    /// Record lines after the header, each ending in a newline.
    pub data: Buffer,
    pub records: f64,
    pub file_len: f64,
    pub frames: f64,
    /// Where a torn tail began (the file was, or would be, cut back there).
    pub torn_at: Option<f64>,
    /// Whole records recovered from the torn frame (re-encoded when repaired).
    pub torn_kept: f64,
    pub repaired: bool,
}

pub struct StoreLoadTask {
    path: PathBuf,
    enc: Encoding,
    repair: bool,
}

impl Task for StoreLoadTask {
    type Output = (store::Scanned, bool);
    type JsValue = StoreLoaded;
    fn compute(&mut self) -> Result<Self::Output> {
        store::load(&self.path, self.enc, self.repair).map_err(|e| Error::new(Status::GenericFailure, e))
    }
    fn resolve(&mut self, _env: Env, (s, repaired): Self::Output) -> Result<StoreLoaded> {
        Ok(StoreLoaded {
            header: s.header.into(),
            data: s.data.into(),
            records: s.records as f64,
            file_len: s.file_len as f64,
            frames: s.frames as f64,
            torn_at: s.torn.as_ref().map(|t| t.at as f64),
            torn_kept: s.torn.as_ref().map_or(0.0, |t| t.kept_records as f64),
            repaired,
        })
    }
}

/// Reads and validates a whole store file on the libuv pool; with `repair`, a torn tail is cut
/// and its surviving records re-encoded (the caller must hold the session's writer lock).
#[napi(ts_return_type = "Promise<StoreLoaded>")]
pub fn store_load(path: String, compression: String, repair: bool) -> Result<AsyncTask<StoreLoadTask>> {
    Ok(AsyncTask::new(StoreLoadTask { path: PathBuf::from(path), enc: encoding_of(&compression)?, repair }))
}

/// An exclusive advisory lock (flock) on a store file, held until `release` or process exit
/// (so a killed writer never leaves a stale lock).
#[napi]
pub struct StoreLock {
    file: Option<std::fs::File>,
}

#[napi]
impl StoreLock {
    #[napi]
    pub fn release(&mut self) {
        if let Some(f) = self.file.take() {
            let _ = f.unlock();
        }
    }
}

/// Takes the writer lock of a store file without blocking; a lock held elsewhere (another
/// process or another store in this one) is an error naming the file.
#[napi]
pub fn store_lock(path: String) -> Result<StoreLock> {
    let f = std::fs::File::open(&path)
        .map_err(|e| Error::new(Status::GenericFailure, format!("{path}: {}", io_message(&e))))?;
    match f.try_lock() {
        Ok(()) => Ok(StoreLock { file: Some(f) }),
        Err(std::fs::TryLockError::WouldBlock) => Err(Error::new(
            Status::GenericFailure,
            format!("{path}: another writer holds this session (one writer per session)"),
        )),
        Err(std::fs::TryLockError::Error(e)) => {
            Err(Error::new(Status::GenericFailure, format!("{path}: cannot lock: {}", io_message(&e))))
        }
    }
}

// The estate archive: archive run, restore, read view.

use crate::archive;

#[napi(object)]
pub struct ArchiveFailure {
    pub path: String,
    pub message: String,
}

#[napi(object)]
pub struct ArchiveSummary {
    pub files: f64,
    pub unchanged: f64,
    pub appended: f64,
    pub added: f64,
    pub generations: f64,
    pub touched: f64,
    pub bytes_in: f64,
    pub bytes_stored: f64,
    pub failures: Vec<ArchiveFailure>,
    pub archived_files: f64,
    pub archived_bytes: f64,
    pub store_bytes: f64,
}

pub struct ArchiveTask {
    roots: Vec<PathBuf>,
    to: PathBuf,
    created_at: String,
    progress: Arc<scan::Progress>,
}

impl Task for ArchiveTask {
    type Output = archive::Summary;
    type JsValue = ArchiveSummary;
    fn compute(&mut self) -> Result<archive::Summary> {
        archive::archive(&self.roots, &self.to, &self.created_at, &self.progress)
            .map_err(|e| Error::new(Status::GenericFailure, e))
    }
    fn resolve(&mut self, _env: Env, s: archive::Summary) -> Result<ArchiveSummary> {
        Ok(ArchiveSummary {
            files: s.files as f64,
            unchanged: s.unchanged as f64,
            appended: s.appended as f64,
            added: s.added as f64,
            generations: s.generations as f64,
            touched: s.touched as f64,
            bytes_in: s.bytes_in as f64,
            bytes_stored: s.bytes_stored as f64,
            failures: s
                .failures
                .into_iter()
                .map(|(p, m)| ArchiveFailure { path: p.display().to_string(), message: m })
                .collect(),
            archived_files: s.archived_files as f64,
            archived_bytes: s.archived_bytes as f64,
            store_bytes: s.store_bytes as f64,
        })
    }
}

/// Archives every transcript under `roots` into the archive root `to`, off the JS thread.
/// Rejects (one-line message naming the path) only when the whole run cannot proceed.
#[napi(ts_return_type = "Promise<ArchiveSummary>")]
pub fn archive_estate(
    roots: Vec<String>,
    to: String,
    progress: &ScanProgress,
    created_at: String,
) -> AsyncTask<ArchiveTask> {
    AsyncTask::new(ArchiveTask {
        roots: roots.into_iter().map(PathBuf::from).collect(),
        to: PathBuf::from(to),
        created_at,
        progress: progress.inner.clone(),
    })
}

/// True when the folder is an archive root (its index, or an archive header in its layout).
#[napi]
pub fn archive_detect(path: String) -> bool {
    archive::is_archive(std::path::Path::new(&path))
}

#[napi(object)]
#[derive(Clone)]
pub struct ArchivedFile {
    /// `<project>/<path>`: where restore writes it under the target folder.
    pub key: String,
    pub project: String,
    pub path: String,
    /// The session it belongs to (None for an old-layout `agent-*.jsonl`).
    pub session_id: Option<String>,
    pub generation: u32,
    pub generations: u32,
    pub store_path: String,
    pub store_bytes: f64,
}

fn archived(root: &str) -> Result<Vec<archive::Stored>> {
    archive::list(std::path::Path::new(root)).map(archive::latest).map_err(|e| Error::new(Status::GenericFailure, e))
}

/// The latest generation of every archived transcript (reads header frames only).
#[napi]
pub fn archive_list(root: String) -> Result<Vec<ArchivedFile>> {
    Ok(archived(&root)?
        .into_iter()
        .map(|s| ArchivedFile {
            key: s.key.text(),
            session_id: s.key.owner().map(str::to_string),
            project: s.key.project.clone(),
            path: s.key.rel.clone(),
            generation: s.gen,
            generations: s.generations,
            store_path: s.path.display().to_string(),
            store_bytes: s.store_len as f64,
        })
        .collect())
}

#[napi(object)]
pub struct RestoreResult {
    pub key: String,
    pub target: String,
    /// Written now; false when the target already held exactly these bytes (or on error).
    pub written: bool,
    pub bytes: f64,
    pub error: Option<String>,
}

/// A listed file back as the archive's own record (restore and owners take the listing the
/// caller already holds instead of reading every header again).
fn stored_of(f: &ArchivedFile) -> archive::Stored {
    archive::Stored {
        key: archive::layout::Key { project: f.project.clone(), rel: f.path.clone() },
        gen: f.generation,
        path: PathBuf::from(&f.store_path),
        generations: f.generations,
        store_len: f.store_bytes as u64,
    }
}

pub struct RestoreTask {
    files: Vec<ArchivedFile>,
    to: PathBuf,
    keep_mtime: bool,
    progress: Arc<scan::Progress>,
}

impl Task for RestoreTask {
    type Output = Vec<RestoreResult>;
    type JsValue = Vec<RestoreResult>;
    fn compute(&mut self) -> Result<Vec<RestoreResult>> {
        let which: Vec<archive::Stored> = self.files.iter().map(stored_of).collect();
        let results = archive::view::restore(&which, &self.to, self.keep_mtime, &self.progress);
        Ok(which
            .iter()
            .zip(results)
            .map(|(s, r)| {
                // empty when the header's place was refused (nothing was written)
                let target = s.key.destination(&self.to).map(|d| d.path.display().to_string()).unwrap_or_default();
                let key = s.key.text();
                match r {
                    Ok(archive::view::Restored::Written { bytes }) => {
                        RestoreResult { key, target, written: true, bytes: bytes as f64, error: None }
                    }
                    Ok(archive::view::Restored::Identical { bytes }) => {
                        RestoreResult { key, target, written: false, bytes: bytes as f64, error: None }
                    }
                    Err(e) => RestoreResult { key, target, written: false, bytes: 0.0, error: Some(e) },
                }
            })
            .collect())
    }
    fn resolve(&mut self, _env: Env, out: Vec<RestoreResult>) -> Result<Vec<RestoreResult>> {
        Ok(out)
    }
}

/// Restores the given transcripts (as `archiveList` lists them) under `to`, byte-identical
/// (checked by SHA-256), never replacing a different file.
#[napi(ts_return_type = "Promise<RestoreResult[]>")]
pub fn archive_restore(
    files: Vec<ArchivedFile>,
    to: String,
    keep_mtime: bool,
    progress: &ScanProgress,
) -> AsyncTask<RestoreTask> {
    AsyncTask::new(RestoreTask { files, to: PathBuf::from(to), keep_mtime, progress: progress.inner.clone() })
}

#[napi(object)]
pub struct ArchiveOwner {
    pub key: String,
    /// The sessionId of the transcript's first record that has one.
    pub session_id: Option<String>,
    pub error: Option<String>,
}

pub struct OwnersTask {
    files: Vec<ArchivedFile>,
}

impl Task for OwnersTask {
    type Output = Vec<ArchiveOwner>;
    type JsValue = Vec<ArchiveOwner>;
    fn compute(&mut self) -> Result<Vec<ArchiveOwner>> {
        let which: Vec<archive::Stored> = self.files.iter().map(stored_of).collect();
        let bufs = archive::read::Buffers::default();
        Ok(which
            .par_iter()
            .map(|s| {
                let (session_id, error) = match archive::read::owner(&bufs, &s.path) {
                    Ok(id) => (id, None),
                    Err(e) => (None, Some(e)),
                };
                ArchiveOwner { key: s.key.text(), session_id, error }
            })
            .collect())
    }
    fn resolve(&mut self, _env: Env, out: Vec<ArchiveOwner>) -> Result<Vec<ArchiveOwner>> {
        Ok(out)
    }
}

/// Which session each of the given archived transcripts (as `archiveList` lists them) belongs
/// to by its records (for the old-layout `agent-*.jsonl` files, whose path does not say):
/// decodes each only as far as it must, in parallel.
#[napi(ts_return_type = "Promise<ArchiveOwner[]>")]
pub fn archive_owners(files: Vec<ArchivedFile>) -> AsyncTask<OwnersTask> {
    AsyncTask::new(OwnersTask { files })
}

#[napi(object)]
pub struct ArchiveViewSummary {
    pub files: f64,
    pub decoded: f64,
    pub bytes: f64,
}

/// Brings the read view of an archive up to date (synchronously: the estate's root rules are
/// synchronous); only transcripts whose store file changed are decoded, in parallel.
#[napi]
pub fn archive_view(root: String, view: String) -> Result<ArchiveViewSummary> {
    archive::view::refresh(std::path::Path::new(&root), std::path::Path::new(&view))
        .map(|s| ArchiveViewSummary { files: s.files as f64, decoded: s.decoded as f64, bytes: s.bytes as f64 })
        .map_err(|e| Error::new(Status::GenericFailure, e))
}

// ---- end store ----

// ---- compress: candidate assembly from source spans ----

/// A top-level member to set on a kept record: its key and its new value as JSON text.
#[napi(object)]
pub struct MemberSet {
    pub key: String,
    pub json: String,
}

/// One piece of a rewritten transcript: exactly one of `records` (source records copied
/// verbatim), `record` + `set` (one source record with members replaced or appended), or `line`
/// (a new JSON line).
#[napi(object)]
pub struct OutputPart {
    pub records: Option<Uint32Array>,
    pub record: Option<u32>,
    pub set: Option<Vec<MemberSet>>,
    pub line: Option<String>,
}

/// Builds a transcript from `source` (the bytes `index` was scanned from) and the parts, in
/// order, with the source's BOM and line terminator. Kept bytes are copied, never re-serialised.
#[napi]
pub fn assemble_transcript(source: &[u8], index: &TranscriptIndex, parts: Vec<OutputPart>) -> Result<Buffer> {
    use crate::compress::output::{assemble, Layout};
    if index.scan.bytes != source.len() as u64 {
        return Err(Error::new(Status::InvalidArg, "the source buffer is not the one the index was scanned from"));
    }
    let parts = output_parts(&parts)?;
    let layout = Layout::of(&index.scan);
    let out = if crate::mapped::intact_at(source.as_ptr()).is_some() {
        crate::compress::output::assemble_from(
            crate::compress::output::ReleasingMapped::new(source),
            &index.scan,
            &parts,
            &layout,
        )
    } else {
        assemble(source, &index.scan, &parts, &layout)
    };
    out.map(Buffer::from).map_err(|e| Error::new(Status::GenericFailure, e.to_string()))
}

/// The parts as the assembler takes them (exactly one of records, record+set, line each).
fn output_parts(parts: &[OutputPart]) -> Result<Vec<crate::compress::output::Part<'_>>> {
    use crate::compress::json_span::MemberEdit;
    use crate::compress::output::Part;
    let mut out = Vec::with_capacity(parts.len());
    for p in parts {
        out.push(match (&p.records, p.record, &p.set, &p.line) {
            (Some(rs), None, None, None) => Part::Records(rs.as_ref()),
            (None, Some(record), Some(set), None) => Part::Edited {
                record,
                edits: set.iter().map(|m| MemberEdit { key: &m.key, json: m.json.as_bytes() }).collect(),
            },
            (None, None, None, Some(line)) => Part::Line(line.as_bytes()),
            _ => {
                return Err(Error::new(
                    Status::InvalidArg,
                    "an output part needs exactly one of records, record+set, line",
                ))
            }
        });
    }
    Ok(out)
}

/// uuid and parentUuid of some records, in one call (instead of one `record()` object each).
#[napi(object)]
pub struct RecordLinks {
    pub uuids: Vec<Option<String>>,
    pub parents: Vec<Option<String>>,
}

#[napi]
pub fn record_links(index: &TranscriptIndex, records: Uint32Array) -> Result<RecordLinks> {
    let s = &index.scan;
    let mut uuids = Vec::with_capacity(records.len());
    let mut parents = Vec::with_capacity(records.len());
    for &i in records.iter() {
        let r = s
            .records
            .get(i as usize)
            .ok_or_else(|| Error::new(Status::InvalidArg, format!("record {i} does not exist")))?;
        uuids.push(r.uuid.map(|u| s.str(u).to_string()));
        parents.push(r.parent_uuid.map(|u| s.str(u).to_string()));
    }
    Ok(RecordLinks { uuids, parents })
}

// ---- end compress ----
// ---- topology ----

#[napi(object)]
pub struct PlanOptions {
    /// 'strict' | 'client' | 'auto' (default).
    pub leaf_policy: Option<String>,
    /// A uuid: resume from this record (reported as 'active-chain-manual-override').
    pub resume_leaf: Option<String>,
    /// Legacy compatibility mode: the physical tail is kept, no branch isolation.
    pub preserve_physical_tail: Option<bool>,
    /// Default 0.
    pub max_post_last_prompt_extension: Option<u32>,
    /// 'active-correlated' (default) | 'preserve-recent' | 'none'.
    pub checkpoint_policy: Option<String>,
    /// Snapshots kept as side records at most (default 80).
    pub max_file_history_snapshots: Option<u32>,
    /// Bytes of the kept suffix over input bytes (default 0.30).
    pub target_ratio: Option<f64>,
    /// Records the kept suffix holds at least (default 10).
    pub min_recent_records: Option<u32>,
    /// Start the kept suffix at this chain position, which must be one of the legal cuts.
    pub cut_position: Option<u32>,
}

#[napi(object)]
pub struct PlanWarning {
    pub code: String,
    pub lines: Vec<u32>,
    pub message: String,
}

#[napi(object)]
pub struct LineageRun {
    pub session_id: String,
    /// Chain positions start..end.
    pub start: u32,
    pub end: u32,
}

/// The topology plan of one transcript (see `crate::topology`). Indexes are record indexes of
/// the TranscriptIndex; chain positions index `chain`.
#[napi(object)]
pub struct TopologyPlan {
    pub status: String,
    /// One line; empty when valid.
    pub message: String,
    /// 1-based lines.
    pub offending_lines: Vec<u32>,
    /// Options that would recover from the stop.
    pub recovery: Vec<String>,
    pub warnings: Vec<PlanWarning>,
    pub leaf_policy: String,
    pub preserve_mode: String,
    pub leaf_reason: String,
    pub leaf: Option<u32>,
    pub leaf_uuid: Option<String>,
    pub strict_leaf: Option<u32>,
    pub client_leaf: Option<u32>,
    pub pointer: Option<u32>,
    pub pointer_state: String,
    pub extension: Uint32Array,
    pub chain: Uint32Array,
    /// Per chain record: 0 parent chain, 1 spliced fragment, 2 spliced tool result, 3 preserved segment.
    pub chain_origins: Uint8Array,
    pub relinked: Uint32Array,
    pub precompact: Uint32Array,
    pub prior_compact: Uint32Array,
    pub segment_live: bool,
    pub lineage_runs: Vec<LineageRun>,
    pub legal_cuts: Uint32Array,
    pub prompt_cuts: Uint8Array,
    pub cut_bytes: Float64Array,
    pub cut: Option<u32>,
    pub summary_indexes: Uint32Array,
    pub raw_keep_indexes: Uint32Array,
    pub side_keep_indexes: Uint32Array,
    pub control_projection_indexes: Uint32Array,
    pub excluded_branch_indexes: Uint32Array,
    pub excluded_unattributed_indexes: Uint32Array,
    pub metadata_indexes: Uint32Array,
    pub input_bytes: f64,
    /// Per record: its 1-based line.
    pub record_lines: Uint32Array,
    /// Per record: an index into `type_names` ('' for a record without a type).
    pub record_types: Uint16Array,
    pub type_names: Vec<String>,
}

fn topology_options(o: Option<PlanOptions>) -> Result<crate::topology::Options> {
    use crate::topology::{CheckpointPolicy, LeafPolicy, Options};
    let mut out = Options::default();
    let Some(o) = o else { return Ok(out) };
    let bad = |what: &str, v: &str, allowed: &str| {
        Error::new(Status::InvalidArg, format!("unknown {what} '{v}' (expected {allowed})"))
    };
    if let Some(v) = o.leaf_policy {
        out.leaf_policy = LeafPolicy::parse(&v).ok_or_else(|| bad("leaf policy", &v, "strict, client or auto"))?;
    }
    if let Some(v) = o.checkpoint_policy {
        out.checkpoint_policy = CheckpointPolicy::parse(&v)
            .ok_or_else(|| bad("checkpoint policy", &v, "active-correlated, preserve-recent or none"))?;
    }
    out.resume_leaf = o.resume_leaf;
    out.preserve_physical_tail = o.preserve_physical_tail.unwrap_or(false);
    out.max_extension = o.max_post_last_prompt_extension.unwrap_or(out.max_extension);
    out.max_checkpoints = o.max_file_history_snapshots.unwrap_or(out.max_checkpoints);
    if let Some(r) = o.target_ratio {
        if !(r > 0.0 && r <= 1.0) {
            return Err(Error::new(Status::InvalidArg, format!("target ratio {r} is not in (0, 1]")));
        }
        out.target_ratio = r;
    }
    out.min_recent_records = o.min_recent_records.unwrap_or(out.min_recent_records);
    out.cut_at = o.cut_position;
    Ok(out)
}

/// Plans a transcript: leaf, chain, strict status, cut and the six-way partition. `buffer` is
/// the bytes `index` was scanned from. Topology problems come back as a status, not a throw.
#[napi]
pub fn plan_transcript(index: &TranscriptIndex, buffer: &[u8], options: Option<PlanOptions>) -> Result<TopologyPlan> {
    use crate::topology::SetKind;
    let opts = topology_options(options)?;
    if buffer.len() as u64 != index.scan.bytes {
        return Err(Error::new(Status::InvalidArg, "the buffer is not the one the index was scanned from".to_string()));
    }
    let p = crate::topology::plan(&index.scan, buffer, &opts);
    if let (Some(c), crate::topology::Status::Valid, None) = (opts.cut_at, p.status, p.cut) {
        let legal: Vec<String> = p.legal_cuts.iter().take(20).map(|c| c.to_string()).collect();
        return Err(Error::new(
            Status::InvalidArg,
            format!("cut position {c} is not a legal cut (legal chain positions: {})", legal.join(", ")),
        ));
    }
    let s = &index.scan;
    let u32s = |v: &[u32]| Uint32Array::new(v.to_vec());
    let mut names: Vec<(String, u16)> = Vec::new();
    Ok(TopologyPlan {
        status: p.status.name().to_string(),
        message: p.message.clone(),
        offending_lines: p.lines.clone(),
        recovery: p.recovery.clone(),
        warnings: p
            .warnings
            .iter()
            .map(|w| PlanWarning { code: w.code.to_string(), lines: w.lines.clone(), message: w.message.clone() })
            .collect(),
        leaf_policy: p.leaf_policy.name().to_string(),
        preserve_mode: p.preserve_mode.name().to_string(),
        leaf_reason: p.leaf_reason.clone(),
        leaf: opt_index(p.leaf),
        leaf_uuid: opt_index(p.leaf).and_then(|l| s.tables.strings.opt(s.records[l as usize].uuid).map(str::to_string)),
        strict_leaf: opt_index(p.strict_leaf),
        client_leaf: opt_index(p.client_leaf),
        pointer: opt_index(p.pointer),
        pointer_state: p.pointer_state.name().to_string(),
        extension: u32s(&p.extension),
        chain: u32s(&p.chain),
        chain_origins: Uint8Array::new(p.origins.clone()),
        relinked: u32s(&p.relinked),
        precompact: u32s(&p.precompact),
        prior_compact: u32s(&p.prior_compact),
        segment_live: p.segment_live,
        lineage_runs: p
            .runs
            .iter()
            .map(|r| LineageRun { session_id: r.session.clone(), start: r.start, end: r.end })
            .collect(),
        legal_cuts: u32s(&p.legal_cuts),
        prompt_cuts: Uint8Array::new(p.prompt_cuts.iter().map(|&b| b as u8).collect()),
        cut_bytes: Float64Array::new(p.cut_bytes.iter().map(|&b| b as f64).collect()),
        cut: p.cut,
        summary_indexes: Uint32Array::new(p.set(SetKind::Summary)),
        raw_keep_indexes: Uint32Array::new(p.set(SetKind::RawKeep)),
        side_keep_indexes: Uint32Array::new(p.set(SetKind::SideKeep)),
        control_projection_indexes: Uint32Array::new(p.set(SetKind::ControlProjection)),
        excluded_branch_indexes: Uint32Array::new(p.set(SetKind::ExcludedBranch)),
        excluded_unattributed_indexes: Uint32Array::new(p.set(SetKind::ExcludedUnattributed)),
        metadata_indexes: u32s(&p.metadata),
        input_bytes: p.input_bytes as f64,
        record_lines: Uint32Array::new(s.records.iter().map(|r| r.line).collect()),
        record_types: Uint16Array::new(
            s.records.iter().map(|r| type_code(&mut names, r.kind.map_or("", |k| s.str(k)))).collect(),
        ),
        type_names: names.into_iter().map(|(n, _)| n).collect(),
    })
}

/// The code of a type name in first-seen order.
fn type_code(names: &mut Vec<(String, u16)>, t: &str) -> u16 {
    match names.iter().find(|(n, _)| n == t) {
        Some((_, c)) => *c,
        None => {
            let c = names.len().min(u16::MAX as usize) as u16;
            names.push((t.to_string(), c));
            c
        }
    }
}

// ---- end topology ----
// ---- estimate ----

/// The local token estimate of each record in `records` (all records when absent), read from
/// `buffer`, the bytes `index` was scanned from (see `crate::compress::estimate`).
#[napi]
pub fn estimate_record_tokens(
    buffer: &[u8],
    index: &TranscriptIndex,
    records: Option<Uint32Array>,
) -> Result<Float64Array> {
    crate::compress::estimate::record_tokens(&index.scan, buffer, records.as_deref())
        .map(Float64Array::new)
        .map_err(|m| Error::new(Status::InvalidArg, m))
}

/// The local token estimate of one text, with no record allowance.
#[napi]
pub fn estimate_text_tokens(text: String) -> f64 {
    crate::compress::estimate::text_tokens(&text)
}

#[napi(object)]
pub struct SummaryInputOptions {
    /// Strings inside tool inputs are cut to this many characters (400).
    pub string_chars: Option<u32>,
    /// Tool results are cut to this many characters, head and tail kept (1200).
    pub result_chars: Option<u32>,
    /// Results that report no failure (not `is_error`, no `Exit code`/`<tool_use_error>` start)
    /// are cut to this many instead (default: resultChars). 0 leaves their text out.
    pub success_result_chars: Option<u32>,
}

fn summary_limits(options: Option<SummaryInputOptions>) -> crate::compress::summary_inputs::Limits {
    let mut lim = crate::compress::summary_inputs::Limits::default();
    if let Some(o) = options {
        lim.string_chars = o.string_chars.map_or(lim.string_chars, |v| v as usize);
        lim.result_chars = o.result_chars.map_or(lim.result_chars, |v| v as usize);
        lim.success_result_chars = o.success_result_chars.map_or(lim.result_chars, |v| v as usize);
    } else {
        lim.success_result_chars = lim.result_chars;
    }
    lim
}

/// The summary inputs of records `records` (in that order) as one JSON array string (see
/// `crate::compress::summary_inputs::to_json`), read from `buffer`, the bytes `index` was
/// scanned from.
#[napi]
pub fn summary_records_json(
    buffer: &[u8],
    index: &TranscriptIndex,
    records: Uint32Array,
    options: Option<SummaryInputOptions>,
) -> Result<String> {
    use crate::compress::summary_inputs::items_json;
    let lim = summary_limits(options);
    items_json(&index.scan, buffer, &records, lim).map_err(|m| Error::new(Status::InvalidArg, m))
}

// ---- end estimate ----
// ---- source-pages (peak RSS): the source's pages released between passes; hashed while scanned ----

/// Gives the memory pages wholly inside `buffer` back to the OS (Linux; elsewhere a no-op):
/// they read as zeros until written again. Returns the bytes released.
#[napi]
pub fn release_pages(mut buffer: Buffer) -> f64 {
    crate::compress::pages::release(buffer.as_mut()) as f64
}

/// A scan and the SHA-256 of the same bytes.
#[napi(object, object_from_js = false)]
pub struct HashedScan {
    pub index: TranscriptIndex,
    pub sha256: String,
}

/// `scanBuffer` and `sha256` of one buffer at once: the hash runs on a thread of its own while
/// the scan runs, so a compression does not read its source twice in a row.
#[napi]
pub fn scan_buffer_hashed(buffer: &[u8], mode: Option<String>) -> Result<HashedScan> {
    let mode = mode_of(mode)?;
    let (scan, sha256) = std::thread::scope(|threads| {
        let hash = threads.spawn(|| crate::hash::sha256_hex(buffer));
        let scan = scan::scan_bytes_parallel(buffer, mode);
        (scan, hash.join())
    });
    let sha256 = sha256.map_err(|_| Error::new(Status::GenericFailure, "hashing the source failed"))?;
    Ok(HashedScan { index: TranscriptIndex { scan }, sha256 })
}

/// `assembleTranscript` with the source records read from the file at `path` (the file `index`
/// was scanned from) instead of a buffer: the kept records are read straight into the output.
#[napi]
pub fn assemble_transcript_from_file(path: String, index: &TranscriptIndex, parts: Vec<OutputPart>) -> Result<Buffer> {
    use crate::compress::output::{assemble_from, Layout};
    let file = std::fs::File::open(&path)
        .map_err(|e| Error::new(Status::GenericFailure, format!("{path}: {}", io_message(&e))))?;
    if file.metadata().map(|m| m.len()).ok() != Some(index.scan.bytes) {
        return Err(Error::new(
            Status::GenericFailure,
            format!("{path}: the file is not the one the index was scanned from"),
        ));
    }
    assemble_from(&file, &index.scan, &output_parts(&parts)?, &Layout::of(&index.scan))
        .map(Buffer::from)
        .map_err(|e| Error::new(Status::GenericFailure, format!("{path}: {e}")))
}

pub struct Sha256FileTask {
    path: PathBuf,
}

impl Task for Sha256FileTask {
    type Output = String;
    type JsValue = String;
    fn compute(&mut self) -> Result<String> {
        crate::hash::sha256_file_hex(&self.path)
            .map_err(|e| Error::new(Status::GenericFailure, format!("{}: {}", self.path.display(), io_message(&e))))
    }
    fn resolve(&mut self, _env: Env, output: String) -> Result<String> {
        Ok(output)
    }
}

/// `sha256File` off the JS thread: compress hashes its source while the summary is built.
#[napi(ts_return_type = "Promise<string>")]
pub fn sha256_file_async(path: String) -> AsyncTask<Sha256FileTask> {
    AsyncTask::new(Sha256FileTask { path: PathBuf::from(path) })
}

/// The file at `path` mapped read-only (Linux), as a Buffer over the mapping: no copy and no
/// fresh pages to fault in. `null` where files are not mapped (other systems, an empty file) or
/// the mapping failed: the caller then reads the file. The Buffer must never be written; check
/// `mappedIntact` before trusting what was read (a file truncated meanwhile reads as zeros).
#[napi(ts_return_type = "Buffer | null")]
pub fn map_file(env: &Env, path: String) -> Result<Option<Unknown<'_>>> {
    let Ok(file) = std::fs::File::open(&path) else { return Ok(None) };
    let Ok(Some(mapped)) = crate::mapped::MappedFile::open(&file) else { return Ok(None) };
    let (ptr, len) = (mapped.as_ptr(), mapped.len());
    // SAFETY: the bytes live as long as `mapped`, which the finaliser drops with the Buffer.
    let slice = unsafe { BufferSlice::from_external(env, ptr, len, mapped, |_, m| drop(m))? };
    Ok(Some(slice.to_unknown()))
}

/// False when `buffer` (from `mapFile`) lost pages because its file was truncated while mapped:
/// what was read from it may be zeros. True for any other buffer.
#[napi]
pub fn mapped_intact(buffer: &[u8]) -> bool {
    crate::mapped::intact_at(buffer.as_ptr()).unwrap_or(true)
}

/// Drops the pages of a `mapFile` buffer from the process (they read again from the file when
/// touched), all of them or those wholly inside bytes `[start, end)`. Returns the bytes
/// released; 0 for any other buffer.
#[napi]
pub fn release_mapped(buffer: &[u8], start: Option<f64>, end: Option<f64>) -> f64 {
    if crate::mapped::intact_at(buffer.as_ptr()).is_none() {
        return 0.0;
    }
    const PAGE: usize = 64 << 10; // a multiple of every page size
    let end = end.map_or(buffer.len(), |e| (e.max(0.0) as usize).min(buffer.len()));
    let start = start.map_or(0, |s| (s.max(0.0) as usize).div_ceil(PAGE) * PAGE);
    let end = if end == buffer.len() { end } else { end / PAGE * PAGE };
    if end <= start {
        return 0.0;
    }
    crate::mapped::release_range(buffer[start..].as_ptr(), end - start) as f64
}

// ---- end source-pages ----
// ---- summary-window: summary inputs read straight from the source file, one batch at a time ----

thread_local! {
    /// The last batch's bytes: one allocation reused across batches keeps its pages mapped.
    static SUMMARY_WINDOW: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// [`summary_records_json`] of `records`, their bytes read from the file at `path` (the file
/// `index` was scanned from) rather than from a buffer: returns null, reading nothing, when the
/// records span more than `max_window` bytes of the file.
#[napi]
pub fn summary_records_json_from_file(
    path: String,
    index: &TranscriptIndex,
    records: Uint32Array,
    max_window: f64,
    options: Option<SummaryInputOptions>,
) -> Result<Option<String>> {
    use crate::compress::summary_inputs::{items_json_at, window_of};
    let lim = summary_limits(options);
    crate::compress::check_indexes(&index.scan, &records).map_err(|m| Error::new(Status::InvalidArg, m))?;
    let (start, end) = window_of(&index.scan, &records);
    if (end - start) as f64 > max_window {
        return Ok(None);
    }
    let fail = |e: std::io::Error| Error::new(Status::GenericFailure, format!("{path}: {}", io_message(&e)));
    let file = std::fs::File::open(&path).map_err(fail)?;
    SUMMARY_WINDOW.with(|w| {
        let mut window = w.borrow_mut();
        window.clear();
        window.resize((end - start) as usize, 0);
        crate::compress::output::read_exact_at(&file, &mut window, start).map_err(fail)?;
        items_json_at(&index.scan, &window, start, &records, lim)
            .map(Some)
            .map_err(|m| Error::new(Status::InvalidArg, m))
    })
}

// ---- end summary-window ----
