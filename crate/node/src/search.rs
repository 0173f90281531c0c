//! Ranked full-text search over an estate (`find`).

use super::estate::DiscoverFailure;
use super::scan::{progress_of, ScanProgress};
use super::{job, Job};
use claude_jsonl_core::search::{self, find};
use napi::bindgen_prelude::*;
use napi_derive::napi;
use std::path::PathBuf;

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
    /// Archive roots searched too, read from their streams in memory (nothing written there).
    pub archives: Option<Vec<super::estate::ArchiveSource>>,
}

impl From<FindOptions> for find::Request {
    fn from(o: FindOptions) -> find::Request {
        find::Request {
            terms: o.terms,
            fields: search::Fields { tools: o.tools.unwrap_or(false), thinking: o.thinking.unwrap_or(false) },
            limit: o.limit.unwrap_or(10) as usize,
            filter: search::Filter { since_ms: o.since_ms.map(|v| v as i64), project: o.project },
            index_dir: o.index_dir.map(PathBuf::from),
        }
    }
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

fn ms_opt(v: i64) -> Option<f64> {
    (v != search::segment::NO_TIME).then_some(v as f64)
}

impl From<search::Hit> for FindHit {
    fn from(h: search::Hit) -> FindHit {
        FindHit {
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
        }
    }
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

impl From<find::Scope> for FindScope {
    fn from(s: find::Scope) -> FindScope {
        FindScope {
            files: s.files as f64,
            sessions: s.sessions as f64,
            bytes: s.bytes as f64,
            files_total: s.files_total as f64,
            sessions_total: s.sessions_total as f64,
            bytes_total: s.bytes_total as f64,
            matching_files: s.matching_files as f64,
            matching_sessions: s.matching_sessions as f64,
            terms: s.terms,
            phrases: s.phrases,
            term_files: s.term_files.iter().map(|&d| d as f64).collect(),
            index_path: s.index_path.map(|p| p.to_string_lossy().into_owned()),
            index_built_ms: s.index_built_ms,
            index_written: s.index_written,
            index_error: s.index_error,
            files_reused: s.files_reused as f64,
            files_rescanned: s.files_rescanned as f64,
            files_appended: s.files_appended as f64,
            bytes_rescanned: s.bytes_rescanned as f64,
            failed: s.failed.into_iter().map(|(path, message)| DiscoverFailure { path, message }).collect(),
        }
    }
}

#[napi(object)]
pub struct FindResult {
    pub failure: Option<DiscoverFailure>,
    pub hits: Vec<FindHit>,
    pub scope: Option<FindScope>,
}

/// Ranked search over the transcripts under `roots`, off the JS thread. Only the snippets of
/// the hits cross into JS as text.
#[napi(ts_return_type = "Promise<FindResult>")]
pub fn find_text(
    roots: Vec<String>,
    options: FindOptions,
    progress: Option<&ScanProgress>,
) -> AsyncTask<Job<FindResult>> {
    let progress = progress_of(progress);
    let mut options = options;
    let archives = super::estate::archive_roots(options.archives.take());
    job(move || {
        let roots: Vec<PathBuf> = roots.into_iter().map(PathBuf::from).collect();
        Ok(match find::find_in(&roots, &archives, &options.into(), &progress) {
            Ok(found) => FindResult {
                failure: None,
                hits: found.hits.into_iter().map(FindHit::from).collect(),
                scope: Some(found.scope.into()),
            },
            Err(e) => FindResult { failure: Some(e.into()), hits: vec![], scope: None },
        })
    })
}
