//! Node-API conversion for choosing records before they cross into JavaScript (core: read::select).

use super::{job, Job};
use claude_jsonl_core::failure::Failure;
use claude_jsonl_core::read::select::{self, Selection};
use napi::bindgen_prelude::*;
use napi_derive::napi;
use std::path::PathBuf;

#[napi(object)]
pub struct RecordSelectionOptions {
    /// Record types to keep; all when absent.
    pub types: Option<Vec<String>>,
    /// Keep records at or after this time (ms since the epoch); untimed records are then dropped.
    pub since_ms: Option<f64>,
    /// Keep records at or before this time (ms since the epoch).
    pub until_ms: Option<f64>,
    /// Keep only the active chain the client would resume.
    pub active_chain: Option<bool>,
}

/// Spans of the chosen records in file order, and every non-blank line that is not a record.
#[napi(object)]
pub struct RecordSelection {
    /// Byte offsets (f64: exact to 2^53), lengths without the line terminator, 1-based lines.
    pub offsets: Float64Array,
    pub lengths: Uint32Array,
    pub lines: Uint32Array,
    pub problem_offsets: Float64Array,
    pub problem_lengths: Uint32Array,
    pub problem_lines: Uint32Array,
    /// `not-json` or `not-an-object`, one per problem line.
    pub problem_kinds: Vec<String>,
    /// The file's size when it was read.
    pub bytes: f64,
}

impl From<(select::Selected, u64)> for RecordSelection {
    fn from((s, bytes): (select::Selected, u64)) -> RecordSelection {
        RecordSelection {
            offsets: Float64Array::new(s.records.iter().map(|r| r.offset as f64).collect()),
            lengths: Uint32Array::new(s.records.iter().map(|r| r.len).collect()),
            lines: Uint32Array::new(s.records.iter().map(|r| r.line).collect()),
            problem_offsets: Float64Array::new(s.problems.iter().map(|(p, _)| p.offset as f64).collect()),
            problem_lengths: Uint32Array::new(s.problems.iter().map(|(p, _)| p.len).collect()),
            problem_lines: Uint32Array::new(s.problems.iter().map(|(p, _)| p.line).collect()),
            problem_kinds: s.problems.iter().map(|(_, k)| k.name().to_string()).collect(),
            bytes: bytes as f64,
        }
    }
}

/// The records of a transcript that `options` keeps, as byte spans; nothing of their text crosses.
#[napi(ts_return_type = "Promise<RecordSelection>")]
pub fn select_records(path: String, options: Option<RecordSelectionOptions>) -> AsyncTask<Job<RecordSelection>> {
    let o =
        options.unwrap_or(RecordSelectionOptions { types: None, since_ms: None, until_ms: None, active_chain: None });
    let selection = Selection {
        types: o.types,
        since_ms: o.since_ms.map(|v| v as i64),
        until_ms: o.until_ms.map(|v| v as i64),
        active_chain: o.active_chain.unwrap_or(false),
    };
    job(move || {
        let path = PathBuf::from(path);
        let bytes = std::fs::read(&path).map_err(|e| Failure::io(&path, &e))?;
        Ok((select::select(&bytes, &selection), bytes.len() as u64).into())
    })
}
