//! Scanning a whole estate: discover its files, scan the ones that can hold anything new (in
//! parallel), and group them into sessions.

use super::{discover, sessions, DiscoverError, EstateFile, Session};
use crate::scan::{self, Mode, Progress, Scan};
use std::path::PathBuf;

/// Every transcript under the roots, scanned, with the session each belongs to.
#[derive(Debug, Default)]
pub struct EstateScan {
    pub files: Vec<EstateFile>,
    /// One per file: its scan, or the one-phrase reason it could not be read. A pruned file has
    /// an empty scan.
    pub scans: Vec<Result<Scan, String>>,
    /// One per file: not scanned, because it was last modified before the cut-off.
    pub pruned: Vec<bool>,
    /// One per file: its index in `sessions`.
    pub session_of_file: Vec<u32>,
    pub sessions: Vec<Session>,
}

/// Scans the estate under `paths`. A file last modified before `min_mtime_ms` is listed but not
/// read: it cannot hold records newer than that. A root that does not exist or cannot be
/// listed fails the whole scan.
pub fn scan_estate(
    paths: &[PathBuf],
    mode: Mode,
    min_mtime_ms: Option<f64>,
    progress: &Progress,
) -> Result<EstateScan, DiscoverError> {
    let files = discover(paths)?;
    let pruned: Vec<bool> = files.iter().map(|f| min_mtime_ms.is_some_and(|m| f.mtime_ms < m)).collect();
    // (the walk has just stat'ed each file: its size is taken from there)
    let kept: Vec<(&std::path::Path, u64)> =
        files.iter().zip(&pruned).filter(|(_, p)| !**p).map(|(f, _)| (f.path.as_path(), f.size)).collect();
    let mut scanned = scan::scan_sized(&kept, mode, progress).into_iter();
    let scans: Vec<Result<Scan, String>> = pruned
        .iter()
        .map(|&p| match p {
            true => Ok(Scan::default()),
            false => scanned.next().expect("one scan per kept file").map_err(|e| crate::io_message(&e)),
        })
        .collect();
    let refs: Vec<Option<&Scan>> = scans.iter().map(|s| s.as_ref().ok()).collect();
    let (sessions, session_of_file) = sessions(&files, &refs);
    Ok(EstateScan { files, scans, pruned, session_of_file, sessions })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn estate(name: &str) -> (PathBuf, PathBuf) {
        let root = std::env::temp_dir().join(format!("cj-estate-scan-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&root);
        let project = root.join("-w-proj");
        fs::create_dir_all(project.join("s1/subagents")).unwrap();
        let line = |sid: &str| format!("{{\"type\":\"user\",\"uuid\":\"u\",\"sessionId\":\"{sid}\"}}\n");
        fs::write(project.join("s1.jsonl"), line("s1")).unwrap();
        fs::write(project.join("s1/subagents/agent-a1.jsonl"), line("s1")).unwrap();
        // old flat layout: the parent session is only in the records
        fs::write(project.join("agent-b2.jsonl"), line("s2")).unwrap();
        (root, project)
    }

    #[test]
    fn groups_files_into_sessions_by_path_or_records() {
        let (root, _) = estate("group");
        let e = scan_estate(std::slice::from_ref(&root), Mode::Full, None, &Progress::default()).unwrap();
        assert_eq!(e.files.len(), 3);
        assert!(e.pruned.iter().all(|p| !p));
        let mut ids: Vec<&str> = e.sessions.iter().map(|s| s.session_id.as_str()).collect();
        ids.sort();
        assert_eq!(ids, ["s1", "s2"]);
        let s1 = e.sessions.iter().find(|s| s.session_id == "s1").unwrap();
        assert_eq!(s1.files.len(), 2);
        assert!(s1.main_file.is_some());
        for (i, f) in e.files.iter().enumerate() {
            assert_eq!(e.scans[i].as_ref().unwrap().records.len(), 1, "{}", f.path.display());
        }
        fs::remove_dir_all(root).unwrap();
    }

    #[test]
    fn files_older_than_the_cut_off_are_listed_but_not_scanned() {
        let (root, _) = estate("prune");
        let e = scan_estate(std::slice::from_ref(&root), Mode::Full, Some(f64::MAX), &Progress::default()).unwrap();
        assert_eq!(e.files.len(), 3);
        assert!(e.pruned.iter().all(|p| *p));
        assert!(e.scans.iter().all(|s| s.as_ref().unwrap().records.is_empty()));
        // unscanned, the flat-layout subagent falls back to its file stem as session
        assert!(e.sessions.iter().any(|s| s.session_id == "agent-b2"));
        fs::remove_dir_all(root).unwrap();
    }

    #[test]
    fn a_missing_root_fails_the_scan_naming_it() {
        let missing = std::env::temp_dir().join("cj-estate-scan-missing-root");
        let e = scan_estate(std::slice::from_ref(&missing), Mode::Full, None, &Progress::default()).unwrap_err();
        assert_eq!(e.path, missing);
    }
}
