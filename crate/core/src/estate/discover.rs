use rayon::prelude::*;
use std::collections::HashSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::UNIX_EPOCH;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileKind {
    Session,
    Subagent,
}

#[derive(Clone, Debug)]
pub struct EstateFile {
    pub path: PathBuf,
    pub kind: FileKind,
    /// The encoded-cwd folder name (never decoded: the encoding is lossy).
    pub project: String,
    /// Known from the path: the file stem of a session, the folder of a `subagents/` file.
    /// None for an old-layout `agent-*.jsonl`, whose parent is read from its records.
    pub session_id: Option<String>,
    pub agent_id: Option<String>,
    pub size: u64,
    pub mtime_ms: f64,
}

impl EstateFile {
    pub fn stem(&self) -> String {
        self.path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default()
    }
}

#[derive(Debug, Clone)]
pub struct DiscoverError {
    pub path: PathBuf,
    pub message: String,
}

impl From<DiscoverError> for crate::failure::Failure {
    /// A root that cannot be walked is an `io` failure about it.
    fn from(e: DiscoverError) -> crate::failure::Failure {
        crate::failure::Failure::at(crate::failure::Code::Io, &e.path, e.message)
    }
}

fn name_of(p: Option<&Path>) -> String {
    p.and_then(|p| p.file_name()).map(|s| s.to_string_lossy().into_owned()).unwrap_or_default()
}

fn classify(path: PathBuf, meta: &fs::Metadata) -> EstateFile {
    let mtime_ms = meta
        .modified()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map_or(0.0, |d| ms_of_time(d.as_secs() as i128, d.subsec_nanos()));
    classify_at(path, meta.len(), mtime_ms)
}

/// A file time in milliseconds as Node's `fs.Stats.mtimeMs` computes it (seconds × 1000 plus
/// nanoseconds / 10^6, in that order), so a time the core reports equals the one `fs.stat` gives
/// for the same file, to the last bit.
pub fn ms_of_time(secs: i128, nanos: u32) -> f64 {
    secs as f64 * 1000.0 + nanos as f64 / 1e6
}

/// [`ms_of_time`] of a time in nanoseconds since the epoch.
pub fn ms_of_ns(ns: i128) -> f64 {
    ms_of_time(ns.div_euclid(1_000_000_000), ns.rem_euclid(1_000_000_000) as u32)
}

/// What a transcript at `path` is, from its path alone (a session, or a subagent of one), with
/// its size and mtime as given (an archived file's are the recorded ones).
pub fn classify_at(path: PathBuf, size: u64, mtime_ms: f64) -> EstateFile {
    let name = name_of(Some(&path));
    let stem = name.strip_suffix(".jsonl").unwrap_or(&name).to_string();
    let parent = path.parent();
    let (kind, project, session_id, agent_id) = match stem.strip_prefix("agent-") {
        Some(agent) if name_of(parent) == "subagents" => {
            let session_dir = parent.and_then(Path::parent);
            (
                FileKind::Subagent,
                name_of(session_dir.and_then(Path::parent)),
                Some(name_of(session_dir)),
                Some(agent.to_string()),
            )
        }
        Some(agent) => (FileKind::Subagent, name_of(parent), None, Some(agent.to_string())),
        None => (FileKind::Session, name_of(parent), Some(stem.clone()), None),
    };
    EstateFile { path, kind, project, session_id, agent_id, size, mtime_ms }
}

fn io_error(path: &Path, e: std::io::Error) -> DiscoverError {
    DiscoverError { path: path.to_path_buf(), message: crate::io_message(&e) }
}

#[cfg(unix)]
fn dir_key(m: &fs::Metadata) -> (u64, u64) {
    use std::os::unix::fs::MetadataExt;
    (m.dev(), m.ino())
}
#[cfg(not(unix))]
fn dir_key(_m: &fs::Metadata) -> (u64, u64) {
    (0, 0)
}

/// How one walk of the folders goes.
struct Walk {
    /// The folders already walked: one met again (through a link, or a link back up the tree) is
    /// not walked twice.
    seen: Mutex<HashSet<(u64, u64)>>,
    /// Walk the folders of a folder side by side.
    parallel: bool,
    /// Some folder was met a second time. Side by side, which of its paths was walked depends on
    /// which walk got there first, so the caller walks once more, one folder after another.
    met_again: std::sync::atomic::AtomicBool,
}

/// The transcripts under `dir`.
fn walk(dir: &Path, w: &Walk) -> Result<Vec<EstateFile>, DiscoverError> {
    let entries = fs::read_dir(dir).map_err(|e| io_error(dir, e))?;
    let mut out = Vec::new();
    let mut subdirs = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| io_error(dir, e))?;
        let path = entry.path();
        // Only folders, links and `.jsonl` files need a stat: an estate holds about one
        // `.meta.json` per subagent file, and skipping their stats shortens the walk that comes
        // before the first file is read.
        let plain_file = entry.file_type().is_ok_and(|t| t.is_file());
        if plain_file && path.extension().is_none_or(|e| e != "jsonl") {
            continue;
        }
        // Follows symlinks; a dangling link is skipped rather than fatal.
        let Ok(meta) = fs::metadata(&path) else {
            continue;
        };
        if meta.is_dir() {
            let new = w.seen.lock().unwrap_or_else(|e| e.into_inner()).insert(dir_key(&meta));
            if new || !cfg!(unix) {
                subdirs.push(path);
            } else {
                w.met_again.store(true, std::sync::atomic::Ordering::Relaxed);
            }
        } else if meta.is_file() && path.extension().is_some_and(|e| e == "jsonl") {
            out.push(classify(path, &meta));
        }
    }
    // Folders are walked side by side: an estate has hundreds (one per project, one per session
    // with subagents), every entry costs a stat, and the scan cannot start before the walk ends.
    // The first failure in path order fails the walk, as it would one folder after another.
    let nested: Vec<Result<Vec<EstateFile>, DiscoverError>> = match w.parallel {
        true => subdirs.par_iter().map(|d| walk(d, w)).collect(),
        false => subdirs.iter().map(|d| walk(d, w)).collect(),
    };
    for files in nested {
        out.extend(files?);
    }
    Ok(out)
}

/// Finds transcript files under the given paths. A folder is walked recursively for `*.jsonl`;
/// a file is taken as given. Results are sorted by path and free of duplicates.
pub fn discover(paths: &[PathBuf]) -> Result<Vec<EstateFile>, DiscoverError> {
    match discover_with(paths, true)? {
        (out, false) => Ok(out),
        // (a folder reachable by two paths: the one a sequential walk meets first is the one kept)
        (_, true) => discover_with(paths, false).map(|(out, _)| out),
    }
}

/// [`discover`], the folders walked side by side or not; also whether a folder was met again.
fn discover_with(paths: &[PathBuf], parallel: bool) -> Result<(Vec<EstateFile>, bool), DiscoverError> {
    let mut out = Vec::new();
    let w = Walk { seen: Mutex::new(HashSet::new()), parallel, met_again: Default::default() };
    for p in paths {
        let meta = fs::metadata(p).map_err(|e| io_error(p, e))?;
        if meta.is_dir() {
            w.seen.lock().unwrap_or_else(|e| e.into_inner()).insert(dir_key(&meta));
            out.extend(walk(p, &w)?);
        } else if let Some(what) = crate::special_file(&meta) {
            return Err(DiscoverError { path: p.clone(), message: what.into() });
        } else {
            out.push(classify(p.clone(), &meta));
        }
    }
    out.sort_by(|a, b| a.path.cmp(&b.path));
    out.dedup_by(|a, b| a.path == b.path);
    Ok((out, w.met_again.load(std::sync::atomic::Ordering::Relaxed)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_times_in_ms_round_as_node_does() {
        // seen on a real file: the nanoseconds divided whole by 10^6 give ...461.521, Node's
        // fs.statSync(...).mtimeMs gives ...461.5208
        let ns: i128 = 1_796_220_804_461_520_800;
        assert_eq!(ms_of_ns(ns), 1_796_220_804_461.520_8);
        assert_ne!(ns as f64 / 1e6, ms_of_ns(ns));
        assert_eq!(ms_of_time(1, 500_000), 1000.5);
    }

    #[test]
    fn finds_sessions_and_both_subagent_layouts() {
        let root = std::env::temp_dir().join(format!("cj-discover-{}", std::process::id()));
        let proj = root.join("-home-u-repo");
        let sid = "0b7c8a8e-1111-4222-8333-444455556666";
        fs::create_dir_all(proj.join(sid).join("subagents")).unwrap();
        fs::write(proj.join(format!("{sid}.jsonl")), "{}\n").unwrap();
        fs::write(proj.join(sid).join("subagents").join("agent-a1.jsonl"), "{}\n").unwrap();
        fs::write(proj.join(sid).join("subagents").join("agent-a1.meta.json"), "{}").unwrap();
        fs::write(proj.join("agent-old.jsonl"), "{}\n").unwrap();
        fs::write(proj.join("notes.txt"), "x").unwrap();
        let files = discover(std::slice::from_ref(&root)).unwrap();
        assert_eq!(files.len(), 3);
        let session = files.iter().find(|f| f.kind == FileKind::Session).unwrap();
        assert_eq!((session.project.as_str(), session.session_id.as_deref()), ("-home-u-repo", Some(sid)));
        let nested = files.iter().find(|f| f.agent_id.as_deref() == Some("a1")).unwrap();
        assert_eq!(
            (nested.kind, nested.project.as_str(), nested.session_id.as_deref()),
            (FileKind::Subagent, "-home-u-repo", Some(sid))
        );
        let old = files.iter().find(|f| f.agent_id.as_deref() == Some("old")).unwrap();
        assert_eq!((old.kind, old.session_id.as_deref()), (FileKind::Subagent, None));
        let err = discover(&[root.join("missing")]).unwrap_err();
        assert_eq!(err.message, "no such file or directory");
        fs::remove_dir_all(&root).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn a_folder_reachable_by_two_paths_is_listed_as_one_walk_after_another_lists_it() {
        let base = std::env::temp_dir().join(format!("cj-discover-twice-{}", std::process::id()));
        let _ = fs::remove_dir_all(&base);
        // one folder outside the root, linked from two projects' folders: side by side, which
        // link is met first is a race
        let real = base.join("elsewhere");
        fs::create_dir_all(&real).unwrap();
        fs::write(real.join("s1.jsonl"), "{}\n").unwrap();
        let root = base.join("projects");
        for p in ["-p1", "-p2"] {
            fs::create_dir_all(root.join(p)).unwrap();
            std::os::unix::fs::symlink(&real, root.join(p).join("linked")).unwrap();
        }
        let paths = |files: &[EstateFile]| files.iter().map(|f| f.path.clone()).collect::<Vec<_>>();
        // the walk side by side notices, and discover then walks one folder after another
        let (_, again) = discover_with(std::slice::from_ref(&root), true).unwrap();
        assert!(again, "a folder met twice is noticed");
        let (want, _) = discover_with(std::slice::from_ref(&root), false).unwrap();
        assert_eq!(want.len(), 1, "{:?}", paths(&want));
        assert_eq!(paths(&discover(std::slice::from_ref(&root)).unwrap()), paths(&want));
        // a plain estate is walked once, side by side
        let plain = base.join("plain");
        fs::create_dir_all(plain.join("-p3")).unwrap();
        fs::write(plain.join("-p3").join("s2.jsonl"), "{}\n").unwrap();
        assert!(!discover_with(std::slice::from_ref(&plain), true).unwrap().1);
        fs::remove_dir_all(&base).unwrap();
    }
}
