//! The estate: discovering transcript files, scanning them all into sessions, and the usage
//! columns `stats` reads.

use super::scan::{mode_of, progress_of, FirstLine, ScanProgress, ScanSummary};
use super::{job, js_error, Job};
use claude_jsonl_core::archive::estate_scan::{scan_estate_and_archives, ArchiveRoot};
use claude_jsonl_core::estate::{self, DiscoverError, EstateFile};
use claude_jsonl_core::read::usage;
use claude_jsonl_core::scan::{Mode, Scan};
use napi::bindgen_prelude::*;
use napi_derive::napi;
use rayon::prelude::*;
use std::path::PathBuf;

#[napi(string_enum = "lowercase")]
pub enum FileKind {
    Session,
    Subagent,
}

impl From<estate::FileKind> for FileKind {
    fn from(k: estate::FileKind) -> FileKind {
        match k {
            estate::FileKind::Session => FileKind::Session,
            estate::FileKind::Subagent => FileKind::Subagent,
        }
    }
}

#[napi(object)]
pub struct DiscoverFailure {
    pub path: String,
    pub message: String,
}

impl From<DiscoverError> for DiscoverFailure {
    fn from(e: DiscoverError) -> DiscoverFailure {
        DiscoverFailure { path: e.path.to_string_lossy().into_owned(), message: e.message }
    }
}

/// One transcript file of an estate scan: where it is, whose it is, and what the scan found in it.
#[napi(object)]
pub struct EstateFileInfo {
    pub path: String,
    pub kind: FileKind,
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
    /// How the first non-blank line read.
    pub first_line: FirstLine,
    /// Present unless `files(false)` was asked for, or the file was pruned or unreadable.
    pub summary: Option<ScanSummary>,
}

/// The files of an estate scan in sum (`fileTotals`).
#[napi(object)]
pub struct EstateFileTotals {
    pub files: u32,
    pub subagent_files: u32,
    pub bytes: f64,
    /// Not scanned: last modified before `minMtimeMs`.
    pub pruned: u32,
    /// The entries (without summary) of the files that could not be read, or that are not empty
    /// and of which the scan kept no record.
    pub unread: Vec<EstateFileInfo>,
}

/// One session of an estate scan: its main transcript and its subagent files, as positions in
/// the scan's file list.
#[napi(object)]
pub struct SessionInfo {
    pub project: String,
    pub session_id: String,
    pub main_file: Option<u32>,
    pub files: Vec<u32>,
}

impl From<&estate::Session> for SessionInfo {
    fn from(s: &estate::Session) -> SessionInfo {
        SessionInfo {
            project: s.project.clone(),
            session_id: s.session_id.clone(),
            main_file: s.main_file.map(|v| v as u32),
            files: s.files.iter().map(|&v| v as u32).collect(),
        }
    }
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
    /// Assistant entries per bucket (the requests' fragments and repeats; replays not included).
    pub entries: Float64Array,
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

impl From<usage::UsageReport> for UsageColumns {
    fn from(r: usage::UsageReport) -> UsageColumns {
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
            requests: col(&|t| t.requests),
            input_tokens: col(&|t| t.input),
            cache_creation_input_tokens: col(&|t| t.cache_creation),
            cache_write_5m_tokens: col(&|t| t.cache_5m),
            cache_write_1h_tokens: col(&|t| t.cache_1h),
            cache_read_input_tokens: col(&|t| t.cache_read),
            output_tokens: col(&|t| t.output),
            entries: col(&|t| t.entries),
            tool_bucket: Uint32Array::new(r.tools.iter().map(|t| t.0).collect()),
            tool_name: Uint32Array::new(r.tools.iter().map(|t| t.1).collect()),
            tool_calls: Float64Array::new(r.tools.iter().map(|t| t.2 as f64).collect()),
            assistant_entries: r.assistant_entries as f64,
            synthetic_entries: r.synthetic_entries as f64,
            sidechain_replays: r.sidechain_replays as f64,
            malformed_usage_entries: r.malformed_usage_entries as f64,
            speeds: r.speeds,
            models: r.models,
            tool_names: r.tool_names,
        }
    }
}

/// The estate's counted API requests (deduplicated as `usage` dedupes them), one column per
/// field, in order of time (requests without a timestamp last).
#[napi(object)]
pub struct RequestColumns {
    /// Index of the file in `files()` holding the counted entry, its 1-based line, and the
    /// session index (in `sessions()`) of that file.
    pub file: Uint32Array,
    pub line: Uint32Array,
    pub session: Uint32Array,
    /// The entry's `timestamp`, ms since the epoch; NaN when absent or unreadable.
    pub time_ms: Float64Array,
    pub timestamp: Vec<Option<String>>,
    pub model: Vec<String>,
    pub request_id: Vec<Option<String>>,
    pub message_id: Vec<Option<String>>,
    /// `usage.speed` as written, when present.
    pub speed: Vec<Option<String>>,
    /// `usage.service_tier` as written, when present.
    pub service_tier: Vec<Option<String>>,
    /// 0 none, 1 vertex, 2 other (as in `UsageColumns.lane`).
    pub lane: Uint8Array,
    /// How many of the prompt thresholds given the request's prompt exceeds.
    pub prompt_band: Uint8Array,
    pub input_tokens: Float64Array,
    pub output_tokens: Float64Array,
    pub cache_creation_input_tokens: Float64Array,
    #[napi(js_name = "cacheWrite5mTokens")]
    pub cache_write_5m_tokens: Float64Array,
    #[napi(js_name = "cacheWrite1hTokens")]
    pub cache_write_1h_tokens: Float64Array,
    /// 1 when the entry's usage had the TTL split (`cache_creation.ephemeral_*`).
    pub has_cache_split: Uint8Array,
    pub cache_read_input_tokens: Float64Array,
}

/// An estate scan held in Rust: file list, sessions, and (on request) usage.
#[napi]
pub struct EstateScan {
    failure: Option<DiscoverError>,
    /// Shared with the work of `datasetRows`, which reads it off the JS thread while this thread
    /// goes on reading it too.
    estate: std::sync::Arc<estate::EstateScan>,
    /// Tool calls by target from the last `usage` call, for `toolTargets`.
    pub(crate) tool_targets: Option<ToolTargets>,
}

/// The last `usage` call's tool calls by target: counted then, or to count when first asked
/// (with the prompt thresholds and the detail of that call, which set its buckets).
pub(crate) enum ToolTargets {
    Counted(claude_jsonl_core::read::tool_targets::TargetCounts, Vec<String>),
    Pending(Vec<u64>, usage::Detail),
}

#[napi]
impl EstateScan {
    /// A path given to the scan that does not exist or cannot be listed.
    #[napi(getter)]
    pub fn failure(&self) -> Option<DiscoverFailure> {
        self.failure.clone().map(DiscoverFailure::from)
    }

    /// One entry per file. `summaries` (default true) adds each file's full scan summary, which
    /// costs a JS object per record type and per file; `stats` does without.
    #[napi]
    pub fn files(&self, summaries: Option<bool>) -> Vec<EstateFileInfo> {
        let e = &self.estate;
        let summaries: Vec<Option<ScanSummary>> = if summaries.unwrap_or(true) {
            e.scans
                .par_iter()
                .zip(&e.pruned)
                .map(|(s, &p)| if p { None } else { s.as_ref().ok().map(ScanSummary::from) })
                .collect()
        } else {
            e.scans.iter().map(|_| None).collect()
        };
        summaries.into_iter().enumerate().map(|(i, summary)| self.file_info(i, summary)).collect()
    }

    /// The entries (without summary) of the files at `indices`, in that order.
    #[napi]
    pub fn files_at(&self, indices: Vec<u32>) -> Vec<EstateFileInfo> {
        let n = self.estate.files.len();
        indices.into_iter().filter(|&i| (i as usize) < n).map(|i| self.file_info(i as usize, None)).collect()
    }

    /// Every file's size in bytes, in file order.
    #[napi]
    pub fn file_sizes(&self) -> Float64Array {
        Float64Array::new(self.estate.files.iter().map(|f| f.size as f64).collect())
    }

    /// What `files(false)` would say in sum, without a JS object per file (a few milliseconds
    /// of `stats` on a large estate): the counts, and the entries of the files the scan kept no
    /// record of or could not read, the only ones in which a problem can be found.
    #[napi]
    pub fn file_totals(&self) -> EstateFileTotals {
        let e = &self.estate;
        let unread = (0..e.files.len())
            .filter(|&i| match &e.scans[i] {
                Err(_) => true,
                Ok(s) => !e.pruned[i] && e.files[i].size > 0 && s.records.is_empty(),
            })
            .map(|i| self.file_info(i, None))
            .collect();
        EstateFileTotals {
            files: e.files.len() as u32,
            subagent_files: e.files.iter().filter(|f| f.kind == estate::FileKind::Subagent).count() as u32,
            bytes: e.files.iter().map(|f| f.size as f64).sum(),
            pruned: e.pruned.iter().filter(|&&p| p).count() as u32,
            unread,
        }
    }

    /// Frees the scan's native memory now instead of whenever the GC collects this object
    /// (it cannot see that memory, so it would not hurry). Later calls see an empty estate.
    #[napi]
    pub fn release(&mut self) {
        self.estate = Default::default();
        self.tool_targets = None;
    }

    #[napi]
    pub fn sessions(&self) -> Vec<SessionInfo> {
        self.estate.sessions.iter().map(SessionInfo::from).collect()
    }

    /// `prompt_thresholds`: the prompt sizes (tokens) that split requests into `promptBand`s.
    /// `targets` (default true) also counts tool calls by target now, for `toolTargets`; with
    /// false, a later `toolTargets` call counts them then (the report is the same either way).
    /// `by_day` (default false): buckets by UTC day only, all sessions in one (`session` is
    /// 4294967295, `slotMs` a day's start): enough for totals, in a fraction of the buckets.
    #[napi]
    pub fn usage(&mut self, prompt_thresholds: Vec<f64>, targets: Option<bool>, by_day: Option<bool>) -> UsageColumns {
        let thresholds = thresholds_of(&prompt_thresholds);
        let detail = if by_day == Some(true) { usage::Detail::Days } else { usage::Detail::Slots };
        let mut r = self.aggregate(&thresholds, targets.unwrap_or(true), detail);
        self.tool_targets = Some(match targets.unwrap_or(true) {
            true => ToolTargets::Counted(std::mem::take(&mut r.tool_targets), r.tool_names.clone()),
            false => ToolTargets::Pending(thresholds, detail),
        });
        r.into()
    }

    /// The counted requests (the ones `usage` sums), with what each one's entry says.
    /// `prompt_thresholds` as for `usage`.
    #[napi]
    pub fn requests(&self, prompt_thresholds: Vec<f64>) -> RequestColumns {
        let (scans, thresholds) = (self.scans(), thresholds_of(&prompt_thresholds));
        let (reqs, _) = usage::counted_requests(&scans, &thresholds);
        request_columns(&self.estate, &scans, &reqs)
    }

    /// What the dataset's `sessions` table needs of each of the files at `files` (indices, each a
    /// session's own transcript), read by a scan with the `sessionFacts` option: its
    /// head-and-tail facts and whether it begins with a compact pair this tool made; null for a
    /// file that could not be read, that is no session's own, or when the scan was not asked.
    #[napi]
    pub fn session_facts_at(&self, files: Vec<u32>) -> Vec<Option<crate::dataset::DatasetSessionFacts>> {
        let got = &self.estate.main_facts;
        files
            .iter()
            .map(|&i| {
                got.get(i as usize)?.as_ref().map(|(facts, ours)| crate::dataset::DatasetSessionFacts {
                    facts: facts.clone().into(),
                    compressed_by_us: *ours,
                })
            })
            .collect()
    }

    /// The `requests` and `tool_calls` rows of the dataset (`export`), written by `machine`:
    /// the counted requests (as `requests`) and the counted tool calls (the calls `usage` counts per
    /// tool, each with its tool, target and error), from one grouping, by UTC day, without the
    /// requests' cost columns (the caller prices them). `prompt_thresholds` as for `usage`.
    /// Made off the JS thread, which an export needs meanwhile (its lock and the dataset's info
    /// are written then, and the sessions' rows read from this scan): the work shares the scan's
    /// estate, and drops its share on a thread of its own once the rows are made (freeing a large
    /// estate's scans, when `release()` came first, takes milliseconds the export would wait for).
    #[napi(ts_return_type = "Promise<DatasetRows>")]
    pub fn dataset_rows(
        &self,
        machine: String,
        prompt_thresholds: Vec<f64>,
    ) -> AsyncTask<Job<crate::dataset::DatasetRows>> {
        use claude_jsonl_core::dataset::estate;
        let e = self.estate.clone();
        let thresholds = thresholds_of(&prompt_thresholds);
        job(move || {
            let scans = scans_of(&e);
            let (reqs, calls) = usage::counted_requests_and_tool_calls(&scans, &thresholds);
            let (requests, calls) = estate::table_rows(&e, &scans, &reqs, &calls, &machine);
            drop(scans);
            std::thread::spawn(move || drop(e));
            Ok(crate::dataset::DatasetRows::new(vec![requests.rows, calls], requests.pricing))
        })
    }
}

fn thresholds_of(prompt_thresholds: &[f64]) -> Vec<u64> {
    prompt_thresholds.iter().map(|&t| t.max(0.0) as u64).collect()
}

impl EstateScan {
    /// File `i`'s entry, with its scan summary when given.
    fn file_info(&self, i: usize, summary: Option<ScanSummary>) -> EstateFileInfo {
        let e = &self.estate;
        let (f, s, si) = (&e.files[i], &e.scans[i], e.session_of_file[i]);
        EstateFileInfo {
            path: f.path.to_string_lossy().into_owned(),
            kind: f.kind.into(),
            project: f.project.clone(),
            session_id: e.sessions[si as usize].session_id.clone(),
            session_index: si,
            agent_id: f.agent_id.clone(),
            size: f.size as f64,
            mtime_ms: f.mtime_ms,
            error: s.as_ref().err().cloned(),
            pruned: e.pruned[i],
            records: s.as_ref().map_or(0.0, |s| s.records.len() as f64),
            first_line: s.as_ref().map_or(claude_jsonl_core::scan::FirstLine::Empty, |s| s.first_line).into(),
            summary,
        }
    }

    /// The usage report over every file, by [`usage::aggregate`].
    pub(crate) fn aggregate(&self, thresholds: &[u64], targets: bool, detail: usage::Detail) -> usage::UsageReport {
        let e = &self.estate;
        let subagent: Vec<bool> = e.files.iter().map(|f| f.kind == estate::FileKind::Subagent).collect();
        let targets = if targets { usage::Targets::Count } else { usage::Targets::Skip };
        usage::aggregate(&self.scans(), &e.session_of_file, &subagent, thresholds, targets, detail)
    }

    /// Each file's scan (an empty one for a file that could not be read), in file order.
    fn scans(&self) -> Vec<&Scan> {
        scans_of(&self.estate)
    }
}

/// Each file's scan of `e` (an empty one for a file that could not be read), in file order.
fn scans_of(e: &estate::EstateScan) -> Vec<&Scan> {
    static EMPTY: std::sync::OnceLock<Scan> = std::sync::OnceLock::new();
    let empty = EMPTY.get_or_init(Scan::default);
    e.scans.iter().map(|s| s.as_ref().unwrap_or(empty)).collect()
}

fn request_columns(e: &estate::EstateScan, scans: &[&Scan], reqs: &[usage::CountedRequest]) -> RequestColumns {
    let rec = |c: &usage::CountedRequest| {
        let s = scans[c.file as usize];
        (s, &s.records[c.record as usize])
    };
    let text =
        |c: &usage::CountedRequest,
         f: &dyn Fn(&claude_jsonl_core::scan::record::Record) -> Option<claude_jsonl_core::scan::record::Str>| {
            let (s, r) = rec(c);
            s.tables.strings.opt(f(r)).map(str::to_string)
        };
    let u = |c: &usage::CountedRequest| rec(c).1.usage.unwrap_or_default();
    let tokens = |f: &dyn Fn(&claude_jsonl_core::scan::Usage) -> u64| {
        Float64Array::new(reqs.iter().map(|c| f(&u(c)) as f64).collect())
    };
    RequestColumns {
        file: Uint32Array::new(reqs.iter().map(|c| c.file).collect()),
        line: Uint32Array::new(reqs.iter().map(|c| rec(c).1.line).collect()),
        session: Uint32Array::new(reqs.iter().map(|c| e.session_of_file[c.file as usize]).collect()),
        time_ms: Float64Array::new(reqs.iter().map(|c| rec(c).1.timestamp_ms.map_or(f64::NAN, |t| t as f64)).collect()),
        timestamp: reqs.iter().map(|c| text(c, &|r| r.timestamp)).collect(),
        model: reqs.iter().map(|c| text(c, &|r| r.model).unwrap_or_default()).collect(),
        request_id: reqs.iter().map(|c| text(c, &|r| r.request_id)).collect(),
        message_id: reqs.iter().map(|c| text(c, &|r| r.message_id)).collect(),
        speed: reqs.iter().map(|c| text(c, &|r| r.usage.and_then(|u| u.speed))).collect(),
        service_tier: reqs.iter().map(|c| text(c, &|r| r.usage.and_then(|u| u.service_tier))).collect(),
        lane: Uint8Array::new(reqs.iter().map(|c| c.lane as u8).collect()),
        prompt_band: Uint8Array::new(reqs.iter().map(|c| c.prompt_band).collect()),
        input_tokens: tokens(&|u| u.input),
        output_tokens: tokens(&|u| u.output),
        cache_creation_input_tokens: tokens(&|u| u.cache_creation),
        cache_write_5m_tokens: tokens(&|u| usage::cache_writes(u).0),
        cache_write_1h_tokens: tokens(&|u| usage::cache_writes(u).1),
        has_cache_split: Uint8Array::new(
            reqs.iter().map(|c| (u(c).cache_5m.is_some() || u(c).cache_1h.is_some()) as u8).collect(),
        ),
        cache_read_input_tokens: tokens(&|u| u.cache_read),
    }
}

#[napi(object)]
pub struct ScanEstateOptions {
    /// Skip (but still list) files last modified before this time, ms since the epoch.
    pub min_mtime_ms: Option<f64>,
    /// With mode `usage`: also keep the tool results written as errors, for `datasetRows()`.
    pub tool_errors: Option<bool>,
    /// Also read what the dataset's `sessions` table needs of each session's own transcript
    /// (`sessionFactsAt()`), from the bytes the scan reads anyway.
    pub session_facts: Option<bool>,
    /// Archive roots read too, from their streams in memory (nothing is written): each with the
    /// archived files to read (from `archiveList`, or `archiveStreamAt` for an earlier state).
    pub archives: Option<Vec<ArchiveSource>>,
}

/// An archive root and the archived files of it an estate scan reads.
#[napi(object)]
pub struct ArchiveSource {
    pub root: String,
    pub files: Vec<crate::archive::ArchivedFile>,
}

/// The archive roots a call reads, as the core takes them.
pub fn archive_roots(archives: Option<Vec<ArchiveSource>>) -> Vec<ArchiveRoot> {
    archives
        .unwrap_or_default()
        .into_iter()
        .map(|a| ArchiveRoot { root: PathBuf::from(a.root), files: a.files.iter().map(Into::into).collect() })
        .collect()
}

/// Finds and scans every transcript under `paths` in parallel, off the JS thread.
#[napi(ts_return_type = "Promise<EstateScan>")]
pub fn scan_estate(
    paths: Vec<String>,
    #[napi(ts_arg_type = "ScanMode")] mode: Option<String>,
    progress: Option<&ScanProgress>,
    options: Option<ScanEstateOptions>,
) -> Result<AsyncTask<Job<EstateScan>>> {
    let mut mode = mode_of(mode)?;
    let tool_errors = options.as_ref().and_then(|o| o.tool_errors).unwrap_or(false);
    let main_facts = options
        .as_ref()
        .and_then(|o| o.session_facts)
        .unwrap_or(false)
        .then_some(claude_jsonl_core::dataset::SESSION_FACTS);
    if mode == Mode::Usage && tool_errors {
        mode = Mode::UsageAndToolErrors;
    }
    let (min_mtime_ms, archives) = options.map_or((None, None), |o| (o.min_mtime_ms, o.archives));
    let archives = archive_roots(archives);
    let progress = progress_of(progress);
    Ok(job(move || {
        let paths: Vec<PathBuf> = paths.into_iter().map(PathBuf::from).collect();
        Ok(match scan_estate_and_archives(&paths, &archives, mode, min_mtime_ms, main_facts, &progress) {
            Ok(estate) => EstateScan { failure: None, estate: std::sync::Arc::new(estate), tool_targets: None },
            Err(e) => EstateScan { failure: Some(e), estate: Default::default(), tool_targets: None },
        })
    }))
}

/// A transcript file found by walking, before any scan.
#[napi(object)]
pub struct DiscoveredFile {
    pub path: String,
    pub kind: FileKind,
    pub project: String,
    /// From the path; absent for an old-layout `agent-*.jsonl` (its parent is in its records).
    pub session_id: Option<String>,
    pub agent_id: Option<String>,
    pub size: f64,
    pub mtime_ms: f64,
}

impl From<EstateFile> for DiscoveredFile {
    fn from(f: EstateFile) -> DiscoveredFile {
        DiscoveredFile {
            path: f.path.to_string_lossy().into_owned(),
            kind: f.kind.into(),
            project: f.project,
            session_id: f.session_id,
            agent_id: f.agent_id,
            size: f.size as f64,
            mtime_ms: f.mtime_ms,
        }
    }
}

/// Walks `paths` for transcripts without reading them: cheap enough to run before every
/// command that names a session. A missing root is an error naming it.
#[napi]
pub fn discover_files(paths: Vec<String>) -> Result<Vec<DiscoveredFile>> {
    let paths: Vec<PathBuf> = paths.into_iter().map(PathBuf::from).collect();
    let files = estate::discover(&paths).map_err(|e| js_error(e.into()))?;
    Ok(files.into_iter().map(DiscoveredFile::from).collect())
}

/// The session an old-layout `agent-*.jsonl` belongs to (the first `sessionId` its records
/// carry), read from the file's first 64 KiB; null when it names none there or is unreadable.
#[napi]
pub fn subagent_parent_session(path: String) -> Option<String> {
    estate::parent_session_from_head(std::path::Path::new(&path))
}
