//! Scanning one transcript: the record index held in Rust, its summary, single records, and
//! the progress counters a running scan updates.

use super::{fail, job, Job};
use claude_jsonl_core::failure::{Code, Failure};
use claude_jsonl_core::read::facts;
use claude_jsonl_core::scan::{self, record, Mode, Scan};
use napi::bindgen_prelude::*;
use napi_derive::napi;
use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::sync::Arc;

/// What a scan keeps: every record, or only what token usage needs.
#[napi(string_enum = "lowercase")]
pub enum ScanMode {
    Full,
    Usage,
}

impl From<ScanMode> for Mode {
    fn from(m: ScanMode) -> Mode {
        match m {
            ScanMode::Full => Mode::Full,
            ScanMode::Usage => Mode::Usage,
        }
    }
}

/// The scan mode a caller named. It crosses as a plain string (typed `ScanMode`) so that a
/// wrong one is reported in the words the API documents rather than napi's generic ones.
pub(crate) fn mode_of(mode: Option<String>) -> Result<Mode> {
    match mode.as_deref() {
        None | Some("full") => Ok(Mode::Full),
        Some("usage") => Ok(Mode::Usage),
        Some(other) => {
            Err(fail(Code::InvalidArgument, format!("unknown scan mode '{other}' (expected 'full' or 'usage')")))
        }
    }
}

/// How the first non-blank line of a file read.
#[napi(string_enum = "kebab-case")]
pub enum FirstLine {
    Empty,
    Object,
    NonObject,
    Invalid,
}

impl From<scan::FirstLine> for FirstLine {
    fn from(f: scan::FirstLine) -> FirstLine {
        match f {
            scan::FirstLine::Empty => FirstLine::Empty,
            scan::FirstLine::Object => FirstLine::Object,
            scan::FirstLine::NonObject => FirstLine::NonObject,
            scan::FirstLine::Invalid => FirstLine::Invalid,
        }
    }
}

impl From<FirstLine> for scan::FirstLine {
    fn from(f: FirstLine) -> scan::FirstLine {
        match f {
            FirstLine::Empty => scan::FirstLine::Empty,
            FirstLine::Object => scan::FirstLine::Object,
            FirstLine::NonObject => scan::FirstLine::NonObject,
            FirstLine::Invalid => scan::FirstLine::Invalid,
        }
    }
}

/// Why a file that yielded no record is not a transcript, from how its first line read (none
/// for an empty file or an object).
#[napi]
pub fn not_jsonl_reason(first_line: FirstLine) -> Option<String> {
    scan::FirstLine::from(first_line).not_jsonl_reason().map(String::from)
}

/// Why the file at `path` is no transcript at all (its first line is not a JSON object and no
/// line is a record), or none when it may be one. Reads one block, the whole file only when
/// that block shows no object first. An unreadable file gives none: the reader that opens it
/// reports why.
#[napi]
pub fn not_a_transcript(path: String) -> Option<String> {
    claude_jsonl_core::estate::not_jsonl(std::path::Path::new(&path)).ok().flatten().map(String::from)
}

#[napi(string_enum = "kebab-case")]
pub enum BadLineKind {
    InvalidJson,
    NonObject,
    /// Valid JSON nested deeper than the parser reads.
    TooDeep,
    /// Valid JSON holding a number beyond a double's range (`1e400`).
    NumberOutOfRange,
}

#[napi(object)]
pub struct TypeCount {
    pub name: String,
    pub count: f64,
}

/// Records per type, in the scan's order.
pub(crate) fn type_counts(s: &Scan) -> Vec<TypeCount> {
    s.type_counts().into_iter().map(|(name, count)| TypeCount { name: name.to_string(), count: count as f64 }).collect()
}

#[napi(object)]
pub struct BadLineInfo {
    pub line: u32,
    pub offset: f64,
    pub kind: BadLineKind,
    /// What the line is, in words (`corrupt line (not valid JSON)`, `JSON nested too deep…`).
    pub problem: String,
}

impl From<&scan::BadLine> for BadLineInfo {
    fn from(b: &scan::BadLine) -> BadLineInfo {
        BadLineInfo {
            line: b.line,
            offset: b.offset as f64,
            problem: b.kind.what(),
            kind: match b.kind {
                scan::BadKind::InvalidJson => BadLineKind::InvalidJson,
                scan::BadKind::NonObject => BadLineKind::NonObject,
                scan::BadKind::TooDeep => BadLineKind::TooDeep,
                scan::BadKind::NumberOutOfRange => BadLineKind::NumberOutOfRange,
            },
        }
    }
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

impl From<facts::RequestFacts> for RequestFactsInfo {
    fn from(f: facts::RequestFacts) -> RequestFactsInfo {
        RequestFactsInfo {
            assistant_entries: f.assistant_entries as f64,
            synthetic_entries: f.synthetic_entries as f64,
            entries_with_request_id: f.entries_with_request_id as f64,
            sidechain_entries: f.sidechain_entries as f64,
            distinct_requests: f.distinct_requests as f64,
            duplicates_collapsed: f.duplicates_collapsed as f64,
            null_stop_groups: f.null_stop_groups as f64,
        }
    }
}

/// The lines of a file that are not records, as `show` marks them: a part of [`ScanSummary`]
/// without the facts that walk every record.
#[napi(object)]
pub struct LineProblems {
    pub lines: f64,
    pub bad_json_lines: f64,
    pub non_object_lines: f64,
    pub torn_tail: bool,
    /// The first few, as in [`ScanSummary`].
    pub bad_lines: Vec<BadLineInfo>,
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
    /// Of `badJsonLines`, those that are valid JSON this reader cannot hold (nested deeper than
    /// 1024 levels, a number beyond a double's range): the client reads them.
    pub unreadable_json_lines: f64,
    pub non_object_lines: f64,
    pub lone_surrogate_lines: f64,
    pub bom: bool,
    pub unterminated_tail: bool,
    pub torn_tail: bool,
    pub first_line: FirstLine,
    pub types: Vec<TypeCount>,
    pub bad_lines: Vec<BadLineInfo>,
    pub requests: RequestFactsInfo,
    pub last_version: Option<String>,
    pub first_timestamp_ms: Option<f64>,
    pub last_timestamp_ms: Option<f64>,
    pub session_id: Option<String>,
    pub cwd: Option<String>,
    /// Records of the active chain whose `parentUuid` names no record (see `repair`).
    pub dangling_on_chain: u32,
    /// Records of the active chain holding a `tool_result` whose `tool_use` is not on the chain
    /// (see `repair`).
    pub orphan_results_on_chain: u32,
}

impl From<&Scan> for ScanSummary {
    fn from(s: &Scan) -> ScanSummary {
        let f = facts::file_facts(s);
        let damage = claude_jsonl_core::repair::chain_damage(s);
        ScanSummary {
            bytes: s.bytes as f64,
            lines: s.counts.lines as f64,
            records: s.records.len() as f64,
            blank_lines: s.counts.blank_lines as f64,
            crlf_lines: s.counts.crlf_lines as f64,
            bad_json_lines: s.counts.bad_json_lines as f64,
            unreadable_json_lines: s.counts.unreadable_json_lines as f64,
            non_object_lines: s.counts.non_object_lines as f64,
            lone_surrogate_lines: s.counts.lone_surrogate_lines as f64,
            bom: s.bom,
            unterminated_tail: s.unterminated_tail,
            torn_tail: s.torn_tail,
            first_line: s.first_line.into(),
            types: type_counts(s),
            bad_lines: s.bad_lines.iter().map(BadLineInfo::from).collect(),
            requests: f.requests.into(),
            last_version: f.last_version,
            first_timestamp_ms: f.first_timestamp_ms.map(|v| v as f64),
            last_timestamp_ms: f.last_timestamp_ms.map(|v| v as f64),
            session_id: f.session_id,
            cwd: f.cwd,
            dangling_on_chain: damage.dangling_parents,
            orphan_results_on_chain: damage.orphan_results,
        }
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
    pub(crate) scan: Scan,
}

#[napi]
impl TranscriptIndex {
    /// The number of records (non-blank lines) in the index.
    #[napi(getter)]
    pub fn length(&self) -> u32 {
        self.scan.records.len() as u32
    }

    /// Counts over the whole transcript: records per type, problems, request facts.
    #[napi]
    pub fn summary(&self) -> ScanSummary {
        ScanSummary::from(&self.scan)
    }

    /// The lines that are not records (counts and the first few), without the rest of the summary.
    #[napi]
    pub fn line_problems(&self) -> LineProblems {
        let s = &self.scan;
        LineProblems {
            lines: s.counts.lines as f64,
            bad_json_lines: s.counts.bad_json_lines as f64,
            non_object_lines: s.counts.non_object_lines as f64,
            torn_tail: s.torn_tail,
            bad_lines: s.bad_lines.iter().map(BadLineInfo::from).collect(),
        }
    }

    /// One record's fields, by its 0-based position in the index; undefined past the end.
    #[napi]
    pub fn record(&self, index: u32) -> Option<RecordInfo> {
        self.scan.records.get(index as usize).map(|r| record_info(&self.scan, r))
    }

    /// The fields of the records from `start` (default 0) up to, not including, `end` (default
    /// all); both are clamped to the index.
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

    /// Byte lengths of the records' lines, without the line terminator.
    #[napi]
    pub fn lengths(&self) -> Uint32Array {
        Uint32Array::new(self.scan.records.iter().map(|r| r.len).collect())
    }
}

/// Scans a transcript held in a Buffer, without copying it into JS strings.
#[napi]
pub fn scan_buffer(buffer: &[u8], #[napi(ts_arg_type = "ScanMode")] mode: Option<String>) -> Result<TranscriptIndex> {
    Ok(TranscriptIndex { scan: scan::scan_bytes_parallel(buffer, mode_of(mode)?) })
}

/// Scans one transcript file on the libuv pool, split across cores when large.
#[napi(ts_return_type = "Promise<TranscriptIndex>")]
pub fn scan_file(
    path: String,
    #[napi(ts_arg_type = "ScanMode")] mode: Option<String>,
) -> Result<AsyncTask<Job<TranscriptIndex>>> {
    let mode = mode_of(mode)?;
    Ok(job(move || {
        let path = PathBuf::from(path);
        scan::scan_file(&path, mode).map(|scan| TranscriptIndex { scan }).map_err(|e| Failure::io(&path, &e))
    }))
}

/// How far a running scan has got, in bytes and files.
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
    pub(crate) inner: Arc<scan::Progress>,
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

    /// Asks the work using these counters to stop: what has not started is skipped (an
    /// AbortSignal's abort calls this; the caller then rejects with the signal's reason).
    #[napi]
    pub fn cancel(&self) {
        self.inner.cancelled.store(true, Ordering::Relaxed);
    }
}

/// The counters a job updates: the caller's, or fresh ones nobody reads.
pub(crate) fn progress_of(p: Option<&ScanProgress>) -> Arc<scan::Progress> {
    p.map_or_else(|| Arc::new(scan::Progress::default()), |p| p.inner.clone())
}
