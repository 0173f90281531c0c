//! Literal substring search (`find --exact`): options in, hits and scope out.

use super::estate::DiscoverFailure;
use super::scan::{progress_of, ScanProgress};
use super::{job, Job};
use claude_jsonl_core::failure::{Code, Failure};
use claude_jsonl_core::search::{self, find};
use napi::bindgen_prelude::*;
use napi_derive::napi;
use std::path::PathBuf;

#[napi(object)]
pub struct FindExactOptions {
    /// The text to look for, matched literally in the decoded transcript text.
    pub text: String,
    /// Match case exactly (default: case-insensitive, one character for one).
    pub case_sensitive: Option<bool>,
    /// Also search tool traffic (tool_use inputs and tool results).
    pub tools: Option<bool>,
    /// Also search thinking blocks.
    pub thinking: Option<bool>,
    pub limit: Option<u32>,
    /// Only sessions whose last searchable record is at or after this time (ms since the epoch).
    pub since_ms: Option<f64>,
    /// A substring of the project folder name.
    pub project: Option<String>,
    /// Archive roots searched too, read from their streams in memory (nothing written there).
    pub archives: Option<Vec<super::estate::ArchiveSource>>,
}

#[napi(object)]
pub struct FindExactHit {
    /// Occurrences in the session's files in scope, and the records and files holding them.
    pub matches: f64,
    pub records: f64,
    pub files: u32,
    pub session_id: String,
    /// Set when the snippet's file is one of the session's subagent transcripts.
    pub agent_id: Option<String>,
    pub project: String,
    pub path: String,
    /// The record of that file's first match: 1-based line, byte offset and length.
    pub line: u32,
    pub offset: f64,
    pub length: u32,
    pub timestamp: Option<String>,
    pub first_ms: Option<f64>,
    pub last_ms: Option<f64>,
    pub snippet: String,
}

#[napi(object)]
pub struct FindExactScope {
    /// What was searched, after --since and --project.
    pub files: f64,
    pub sessions: f64,
    pub bytes: f64,
    /// Everything found under the roots.
    pub files_total: f64,
    pub sessions_total: f64,
    pub bytes_total: f64,
    pub matching_files: f64,
    pub matching_sessions: f64,
    /// Occurrences over every file in scope.
    pub matches: f64,
    pub failed: Vec<DiscoverFailure>,
}

#[napi(object)]
pub struct FindExactResult {
    pub failure: Option<DiscoverFailure>,
    pub hits: Vec<FindExactHit>,
    pub scope: Option<FindExactScope>,
}

impl From<find::ExactFound> for FindExactResult {
    fn from(f: find::ExactFound) -> FindExactResult {
        let ans = f.answer;
        let scope = FindExactScope {
            files: ans.docs as f64,
            sessions: ans.sessions as f64,
            bytes: ans.bytes as f64,
            files_total: f.files_total as f64,
            sessions_total: ans.sessions_total as f64,
            bytes_total: f.bytes_total as f64,
            matching_files: ans.matching_docs as f64,
            matching_sessions: ans.matching_sessions as f64,
            matches: ans.matches as f64,
            failed: ans.failed.into_iter().map(|(path, message)| DiscoverFailure { path, message }).collect(),
        };
        let hits = ans
            .hits
            .into_iter()
            .map(|h| FindExactHit {
                matches: h.matches as f64,
                records: h.records as f64,
                files: h.files as u32,
                session_id: h.session_id,
                agent_id: h.agent_id,
                project: h.project,
                path: h.path,
                line: h.first.line,
                offset: h.first.offset as f64,
                length: h.first.len,
                timestamp: h.first.timestamp,
                first_ms: ms_opt(h.first_ms),
                last_ms: ms_opt(h.last_ms),
                snippet: h.first.snippet,
            })
            .collect();
        FindExactResult { failure: None, hits, scope: Some(scope) }
    }
}

fn ms_opt(v: i64) -> Option<f64> {
    (v != search::segment::NO_TIME).then_some(v as f64)
}

/// Literal search over the transcripts under `roots`, off the JS thread (core: `search::find::find_exact`).
#[napi(ts_return_type = "Promise<FindExactResult>")]
pub fn find_exact(
    roots: Vec<String>,
    options: FindExactOptions,
    progress: Option<&ScanProgress>,
) -> AsyncTask<Job<FindExactResult>> {
    let progress = progress_of(progress);
    let mut o = options;
    let archives = super::estate::archive_roots(o.archives.take());
    let request = find::ExactRequest {
        text: o.text,
        case_sensitive: o.case_sensitive.unwrap_or(false),
        fields: search::Fields { tools: o.tools.unwrap_or(false), thinking: o.thinking.unwrap_or(false) },
        filter: search::Filter { since_ms: o.since_ms.map(|v| v as i64), project: o.project },
        limit: o.limit.unwrap_or(10) as usize,
    };
    job(move || {
        let roots: Vec<PathBuf> = roots.into_iter().map(PathBuf::from).collect();
        match find::find_exact(&roots, &archives, &request, &progress) {
            Ok(found) => Ok(found.into()),
            Err(find::ExactError::Discover(e)) => {
                Ok(FindExactResult { failure: Some(e.into()), hits: vec![], scope: None })
            }
            Err(find::ExactError::EmptyText) => {
                Err(Failure::new(Code::InvalidArgument, "find --exact needs a non-empty text"))
            }
        }
    })
}
