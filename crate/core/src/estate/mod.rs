//! The estate: which transcript files exist under a projects root (or given paths), what each
//! one is (a session or a subagent of one), and the sessions they form.

mod discover;
mod not_jsonl;
mod scanned;

pub use discover::{classify_at, discover, DiscoverError, EstateFile, FileKind};
pub use not_jsonl::not_jsonl;
pub use scanned::{scan_estate, EstateScan};

use crate::scan::Scan;
use std::collections::HashMap;

/// One session: its main transcript (if present) and every subagent file attributed to it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Session {
    pub project: String,
    pub session_id: String,
    pub main_file: Option<usize>,
    pub files: Vec<usize>,
}

/// Groups files into sessions. A subagent file names its parent through its folder
/// (`<session>/subagents/agent-*.jsonl`) or, in the older flat layout, through the parent
/// `sessionId` every one of its records repeats. `scans[i]` may be None for unscanned files.
pub fn sessions(files: &[EstateFile], scans: &[Option<&Scan>]) -> (Vec<Session>, Vec<u32>) {
    let mut index: HashMap<(String, String), u32> = HashMap::new();
    let mut out: Vec<Session> = Vec::new();
    let mut of_file = Vec::with_capacity(files.len());
    for (i, f) in files.iter().enumerate() {
        let from_records = || {
            scans
                .get(i)
                .copied()
                .flatten()
                .and_then(|s| s.records.iter().find_map(|r| r.session_id).map(|id| s.str(id).to_string()))
        };
        let session_id = f.session_id.clone().or_else(from_records).unwrap_or_else(|| f.stem());
        let key = (f.project.clone(), session_id.clone());
        let at = *index.entry(key).or_insert_with(|| {
            out.push(Session { project: f.project.clone(), session_id, main_file: None, files: Vec::new() });
            (out.len() - 1) as u32
        });
        let s = &mut out[at as usize];
        s.files.push(i);
        if f.kind == FileKind::Session && s.main_file.is_none() {
            s.main_file = Some(i);
        }
        of_file.push(at);
    }
    (out, of_file)
}
