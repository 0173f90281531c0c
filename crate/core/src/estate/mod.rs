//! The estate: which transcript files exist under a projects root (or given paths), what each
//! one is (a session or a subagent of one), and the sessions they form.

mod discover;
mod not_jsonl;
mod scanned;

pub use discover::{classify_at, discover, ms_of_ns, ms_of_time, DiscoverError, EstateFile, FileKind};
pub use not_jsonl::{not_jsonl, not_jsonl_in};
pub use scanned::{scan_estate, scan_estate_with, EstateScan, FileFacts, MainFacts};

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

/// The session an old-layout `agent-*.jsonl` belongs to: the first `sessionId` its records carry
/// (every one of them repeats the parent's).
pub fn parent_session(scan: &Scan) -> Option<&str> {
    scan.records.iter().find_map(|r| r.session_id).map(|id| scan.str(id))
}

/// [`parent_session`] of the file at `path`, read from its first 64 KiB (whole lines only): the
/// subagents of a session are counted without reading each one whole. None when it is unreadable
/// or names no session there.
pub fn parent_session_from_head(path: &std::path::Path) -> Option<String> {
    use std::io::Read;
    let mut head = Vec::with_capacity(64 * 1024);
    std::fs::File::open(path).ok()?.take(64 * 1024).read_to_end(&mut head).ok()?;
    let end = if head.len() < 64 * 1024 { head.len() } else { memchr::memrchr(b'\n', &head).map_or(0, |p| p + 1) };
    let scan = crate::scan::scan_bytes(&head[..end], crate::scan::Mode::Full);
    parent_session(&scan).map(str::to_string)
}

/// Groups files into sessions. A subagent file names its parent through its folder
/// (`<session>/subagents/agent-*.jsonl`) or, in the older flat layout, through the parent
/// `sessionId` every one of its records repeats. `scans[i]` may be None for unscanned files.
pub fn sessions(files: &[EstateFile], scans: &[Option<&Scan>]) -> (Vec<Session>, Vec<u32>) {
    let mut index: HashMap<(String, String), u32> = HashMap::new();
    let mut out: Vec<Session> = Vec::new();
    let mut of_file = Vec::with_capacity(files.len());
    for (i, f) in files.iter().enumerate() {
        let from_records = || scans.get(i).copied().flatten().and_then(parent_session).map(str::to_string);
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
