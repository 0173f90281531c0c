//! What a transcript's head and tail say of its session (`claude_jsonl_core::read::transcript_facts`):
//! for `sessions`, `teleport-id`, `serve` and the dataset's `sessions` table.

use super::js_error;
use claude_jsonl_core::failure::Failure;
use claude_jsonl_core::read::transcript_facts::{self, TranscriptFacts};
use napi::bindgen_prelude::*;
use napi_derive::napi;
use std::path::Path;

/// Files up to this size are read whole (their message count is exact).
#[napi]
pub const TRANSCRIPT_WHOLE_BYTES: u32 = transcript_facts::WHOLE_BYTES as u32;

/// The facts of one transcript, read from its head and tail.
#[napi(object)]
pub struct TranscriptFactsInfo {
    pub session_id: Option<String>,
    pub cwd: Option<String>,
    pub entrypoint: Option<String>,
    pub version: Option<String>,
    /// The title shown: one line of at most 80 characters.
    pub title: Option<String>,
    #[napi(ts_type = "'custom-title' | 'ai-title' | 'summary' | 'first-prompt' | null")]
    pub title_source: Option<String>,
    pub custom_title: Option<String>,
    pub ai_title: Option<String>,
    pub summary: Option<String>,
    pub first_prompt: Option<String>,
    /// The timestamp of the last record that has a valid one, in the bytes read.
    pub last_timestamp: Option<String>,
    /// user + assistant records: exact when `complete`, else those of the bytes read; 0 when
    /// records were not counted.
    pub messages: f64,
    /// True when the whole file was read.
    pub complete: bool,
    pub bytes_read: f64,
    /// Why the file is no transcript (its head holds no record and line 1 is no JSON object).
    pub problem: Option<String>,
}

impl From<TranscriptFacts> for TranscriptFactsInfo {
    fn from(f: TranscriptFacts) -> Self {
        TranscriptFactsInfo {
            session_id: f.session_id,
            cwd: f.cwd,
            entrypoint: f.entrypoint,
            version: f.version,
            title: f.title,
            title_source: f.title_source.map(|s| s.name().to_string()),
            custom_title: f.custom_title,
            ai_title: f.ai_title,
            summary: f.summary,
            first_prompt: f.first_prompt,
            last_timestamp: f.last_timestamp,
            messages: f.messages as f64,
            complete: f.complete,
            bytes_read: f.bytes_read as f64,
            problem: f.problem.map(str::to_string),
        }
    }
}

/// The facts of the transcript at `path` (`size` bytes when it was listed), read on this thread:
/// a few hundred kilobytes, faster here than a trip through the thread pool. With `counts` false
/// the records are not counted (`messages` 0, `problem` null). Throws when it cannot be read.
#[napi]
pub fn transcript_facts(path: String, size: f64, counts: bool) -> Result<TranscriptFactsInfo> {
    let p = Path::new(&path);
    transcript_facts::facts_of_file(p, size as u64, counts)
        .map(TranscriptFactsInfo::from)
        .map_err(|e| js_error(Failure::io(p, &e)))
}

/// The facts of a transcript held in memory (an archived one, decoded).
#[napi]
pub fn transcript_facts_of(bytes: &[u8], counts: bool) -> TranscriptFactsInfo {
    transcript_facts::facts_of_bytes(bytes, counts).into()
}
