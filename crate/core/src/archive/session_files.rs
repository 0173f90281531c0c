//! The files a session keeps beside its transcript in the projects folder, which Claude Code's
//! cleanup deletes together with the transcript: the whole `<project>/<session>/` folder (large
//! tool outputs in `tool-results/`, subagent transcripts and their `*.meta.json` in
//! `subagents/`, and whatever else the client puts there) and the `<session>.ccr-tip.json` and
//! `<session>.precompact.json` files next to the transcript. The archive keeps them as it keeps
//! transcripts (the event form stores any bytes exactly), keyed by their path in the project.

use super::key::Key;
use crate::estate::{EstateFile, FileKind};
use std::collections::{BTreeSet, HashSet};
use std::fs;
use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

/// Files next to `<session>.jsonl` that belong to that session (and go with it in the cleanup).
const BESIDE: [&str; 2] = [".ccr-tip.json", ".precompact.json"];

/// A session id as Claude Code names its files: a lowercase 8-4-4-4-12 hex uuid.
pub fn is_session_id(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 36
        && b.iter().enumerate().all(|(i, &c)| match i {
            8 | 13 | 18 | 23 => c == b'-',
            _ => c.is_ascii_digit() || (b'a'..=b'f').contains(&c),
        })
}

/// The session a per-session file's key belongs to: the first part of its path (`<session>/…`)
/// or the stem of a file beside the transcript (`<session>.ccr-tip.json`).
pub fn owner_of_beside(rel: &str) -> Option<&str> {
    BESIDE.iter().find_map(|s| rel.strip_suffix(s)).filter(|sid| is_session_id(sid))
}

/// The project folder and session of each discovered transcript, when the path shows them.
fn sessions(transcripts: &[EstateFile]) -> BTreeSet<(PathBuf, String)> {
    let mut out = BTreeSet::new();
    for f in transcripts {
        let (dir, sid) = match (f.kind, &f.session_id) {
            (FileKind::Session, Some(sid)) => (f.path.parent(), sid),
            (FileKind::Subagent, Some(sid)) => (f.path.parent().and_then(Path::parent).and_then(Path::parent), sid),
            _ => continue,
        };
        if let (Some(dir), true) = (dir, is_session_id(sid)) {
            out.insert((dir.to_path_buf(), sid.clone()));
        }
    }
    out
}

pub(super) fn estate_file(path: PathBuf, meta: &fs::Metadata, project: &str, sid: &str) -> EstateFile {
    let mtime_ms = meta
        .modified()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map_or(0.0, |d| crate::estate::ms_of_time(d.as_secs() as i128, d.subsec_nanos()));
    EstateFile {
        path,
        kind: FileKind::Session,
        project: project.to_string(),
        session_id: Some(sid.to_string()),
        agent_id: None,
        size: meta.len(),
        mtime_ms,
    }
}

/// Every regular file below `dir` (symbolic links are not followed: the client writes none).
pub(super) fn walk(
    dir: &Path,
    rel: &str,
    out: &mut Vec<(PathBuf, String, fs::Metadata)>,
) -> Result<(), (PathBuf, String)> {
    let entries = fs::read_dir(dir).map_err(|e| (dir.to_path_buf(), crate::io_message(&e)))?;
    let mut names: Vec<(String, PathBuf, fs::Metadata)> = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| (dir.to_path_buf(), crate::io_message(&e)))?;
        let path = entry.path();
        let Ok(meta) = fs::symlink_metadata(&path) else { continue };
        let name = entry.file_name().to_string_lossy().into_owned();
        names.push((name, path, meta));
    }
    names.sort_by(|a, b| a.0.cmp(&b.0));
    for (name, path, meta) in names {
        let rel = format!("{rel}/{name}");
        if meta.is_dir() {
            walk(&path, &rel, out)?;
        } else if meta.is_file() {
            out.push((path, rel, meta));
        }
    }
    Ok(())
}

/// One per-session file found, or a folder that could not be read.
pub type Found = Result<(EstateFile, Key), (PathBuf, String)>;

/// The per-session files of the sessions among `transcripts` that are not transcripts
/// themselves (those are archived as found by the estate walk), sorted by path.
pub fn discover(transcripts: &[EstateFile]) -> Vec<Found> {
    let known: HashSet<&Path> = transcripts.iter().map(|f| f.path.as_path()).collect();
    let mut out = Vec::new();
    for (dir, sid) in sessions(transcripts) {
        let project = dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let mut found = Vec::new();
        for suffix in BESIDE {
            let path = dir.join(format!("{sid}{suffix}"));
            if let Ok(meta) = fs::symlink_metadata(&path) {
                if meta.is_file() {
                    found.push((path, format!("{sid}{suffix}"), meta));
                }
            }
        }
        let folder = dir.join(&sid);
        if fs::symlink_metadata(&folder).is_ok_and(|m| m.is_dir()) {
            if let Err(e) = walk(&folder, &sid, &mut found) {
                out.push(Err(e));
            }
        }
        for (path, rel, meta) in found {
            if known.contains(path.as_path()) {
                continue;
            }
            let key = Key { project: project.clone(), rel };
            out.push(Ok((estate_file(path, &meta, &project, &sid), key)));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_session_folder_and_the_files_beside_the_transcript() {
        let root = std::env::temp_dir().join(format!("cj-session-files-{}", std::process::id()));
        let _ = fs::remove_dir_all(&root);
        let proj = root.join("-home-u-repo");
        let sid = "0b7c8a8e-1111-4222-8333-444455556666";
        let other = "0b7c8a8e-1111-4222-8333-777777777777";
        for d in ["tool-results", "subagents", "deep/er"] {
            fs::create_dir_all(proj.join(sid).join(d)).unwrap();
        }
        fs::write(proj.join(format!("{sid}.jsonl")), "{}\n").unwrap();
        fs::write(proj.join(format!("{sid}.ccr-tip.json")), "{}").unwrap();
        fs::write(proj.join(sid).join("tool-results").join("toolu_01.txt"), "out").unwrap();
        fs::write(proj.join(sid).join("subagents").join("agent-a1.jsonl"), "{}\n").unwrap();
        fs::write(proj.join(sid).join("subagents").join("agent-a1.meta.json"), "{}").unwrap();
        fs::write(proj.join(sid).join("deep").join("er").join("x.bin"), [0u8, 1, 2]).unwrap();
        // a folder whose transcript is not archived, and a project file of no session: left out
        fs::create_dir_all(proj.join(other).join("tool-results")).unwrap();
        fs::write(proj.join(other).join("tool-results").join("t.txt"), "x").unwrap();
        fs::create_dir_all(proj.join("memory")).unwrap();
        fs::write(proj.join("memory").join("MEMORY.md"), "m").unwrap();
        let transcripts = crate::estate::discover(std::slice::from_ref(&root)).unwrap();
        let found: Vec<String> = discover(&transcripts).into_iter().map(|f| f.unwrap().1.text()).collect();
        assert_eq!(
            found,
            [
                format!("-home-u-repo/{sid}.ccr-tip.json"),
                format!("-home-u-repo/{sid}/deep/er/x.bin"),
                format!("-home-u-repo/{sid}/subagents/agent-a1.meta.json"),
                format!("-home-u-repo/{sid}/tool-results/toolu_01.txt"),
            ]
        );
        fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn session_ids_and_owners() {
        assert!(is_session_id("0b7c8a8e-1111-4222-8333-444455556666"));
        assert!(!is_session_id("0B7C8A8E-1111-4222-8333-444455556666"));
        assert!(!is_session_id("agent-a1"));
        assert_eq!(
            owner_of_beside("0b7c8a8e-1111-4222-8333-444455556666.precompact.json"),
            Some("0b7c8a8e-1111-4222-8333-444455556666")
        );
        assert_eq!(owner_of_beside("notes.precompact.json"), None);
    }
}
