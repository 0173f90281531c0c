//! The files Claude Code's cleanup deletes from its config folder outside `projects/`
//! (`archive --include-config`): per session `file-history/<session>/` (the file backups
//! `/rewind` restores), `todos/<session>-agent-*.json`, `tasks/<session>/`, `session-env/<session>/`
//! and `debug/<session>.txt`; shared `plans/`, `shell-snapshots/` and `paste-cache/` (the text of
//! large pastes the prompt history points at). Every regular file below those folders is kept,
//! whatever its name, as bytes (the event form stores any bytes exactly).
//!
//! Left out on purpose: `image-cache/` (the client empties it for every session but the running
//! one at each sweep, whatever its age, so a restored copy would not last; the images are in the
//! transcripts), `statsig/` and `telemetry/` (the client's own caches and unsent reports), and
//! everything the cleanup does not delete, above all credentials and settings
//! (`.credentials.json`, `settings.json`, `.claude.json`, `history.jsonl`).
//!
//! A config file's archive key has the reserved project [`AREA`] and its path in the config
//! folder (`file-history/<session>/<backup>`); restore writes it back under the target config
//! folder, only into the folders above ([`check_rel`]), so an archive from someone else cannot
//! place `settings.json`, hooks or credentials there.

use super::key::Key;
use super::session_files::{self, is_session_id};
use crate::estate::EstateFile;
use crate::failure::{Code, Failure};
use std::fs;
use std::path::Path;

pub use super::key::AREA;

/// The config folders the cleanup empties whose files are archived: every file below each.
pub const FOLDERS: [&str; 8] =
    ["file-history", "todos", "tasks", "session-env", "debug", "plans", "shell-snapshots", "paste-cache"];

/// Folders that hold one sub-folder per session (`<folder>/<session>/…`).
const PER_SESSION_FOLDERS: [&str; 3] = ["file-history", "tasks", "session-env"];

/// The session a config file belongs to when its name says so (None for plans, shell snapshots,
/// the paste cache and names the client does not give).
pub fn owner(rel: &str) -> Option<&str> {
    let (folder, rest) = rel.split_once('/')?;
    let sid = match folder {
        f if PER_SESSION_FOLDERS.contains(&f) => rest.split_once('/')?.0,
        "todos" => rest.get(..36).filter(|_| rest[36..].starts_with("-agent-"))?,
        "debug" => rest.strip_suffix(".txt")?,
        _ => return None,
    };
    is_session_id(sid).then_some(sid)
}

/// Why a config file's path may not be written into a config folder (None: it may), by the
/// path alone: it must lie in one of [`FOLDERS`], below it (never the folder itself, nor a file
/// of the config folder's own like `settings.json`).
pub fn check_rel(rel: &str) -> Option<String> {
    match rel.split_once('/') {
        Some((folder, rest)) if FOLDERS.contains(&folder) && !rest.is_empty() => None,
        _ => Some(format!(
            "is not a file in one of the config folders the archive keeps ({}); nothing else is written into a config folder",
            FOLDERS.join(", ")
        )),
    }
}

/// Refuses an archive root inside one of the folders archived from a config folder (each run
/// would archive the archive).
pub fn check_archive_root(config_dirs: &[std::path::PathBuf], root: &Path) -> Result<(), Failure> {
    let real = |p: &Path| fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    let root = real(root);
    for dir in config_dirs {
        if let Some(folder) = FOLDERS.iter().map(|f| real(&dir.join(f))).find(|f| root.starts_with(f)) {
            return Err(Failure::at(
                Code::Archive,
                &root,
                format!("the archive root is inside {}, which it archives", folder.display()),
            ));
        }
    }
    Ok(())
}

/// Every archived file of the config folder `config`, sorted by path (a folder that cannot be
/// read, or a file name that is not UTF-8, is a failure; a missing folder holds nothing).
pub fn discover(config: &Path) -> Vec<Result<(EstateFile, Key), Failure>> {
    let mut out = Vec::new();
    for folder in FOLDERS {
        let dir = config.join(folder);
        if !fs::symlink_metadata(&dir).is_ok_and(|m| m.is_dir()) {
            continue;
        }
        let mut found = Vec::new();
        if let Err((path, e)) = session_files::walk(&dir, folder, &mut found) {
            out.push(Err(Failure::at(Code::Io, &path, e)));
        }
        for (path, rel, meta) in found {
            if rel.contains('\u{FFFD}') {
                out.push(Err(Failure::at(Code::Archive, &path, "file name is not UTF-8; not archived")));
                continue;
            }
            let sid = owner(&rel).unwrap_or_default().to_string();
            let file = session_files::estate_file(path, &meta, AREA, &sid);
            out.push(Ok((file, Key { project: AREA.into(), rel })));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const SID: &str = "0b7c8a8e-1111-4222-8333-444455556666";

    #[test]
    fn owners_by_folder() {
        assert_eq!(owner(&format!("file-history/{SID}/abc@v1")), Some(SID));
        assert_eq!(owner(&format!("tasks/{SID}/1.json")), Some(SID));
        assert_eq!(owner(&format!("session-env/{SID}/hook-1.sh")), Some(SID));
        assert_eq!(owner(&format!("todos/{SID}-agent-{SID}.json")), Some(SID));
        assert_eq!(owner(&format!("debug/{SID}.txt")), Some(SID));
        assert_eq!(owner("plans/witty-twirling-oasis.md"), None);
        assert_eq!(owner("todos/notes.json"), None);
        assert_eq!(owner(&format!("file-history/{SID}")), None);
        assert_eq!(owner("debug/latest.txt"), None);
    }

    #[test]
    fn only_files_inside_the_kept_folders_pass() {
        assert_eq!(check_rel(&format!("file-history/{SID}/abc@v1")), None);
        assert_eq!(check_rel("plans/a.md"), None);
        for rel in ["settings.json", ".credentials.json", "plans", "plans/", "hooks/x.sh", "projects/p/s.jsonl", ""] {
            assert!(check_rel(rel).is_some(), "{rel:?}");
        }
    }

    #[test]
    fn finds_every_file_of_the_kept_folders_and_nothing_else() {
        let root = std::env::temp_dir().join(format!("cj-config-files-{}", std::process::id()));
        let _ = fs::remove_dir_all(&root);
        let put = |rel: &str| {
            let p = root.join(rel);
            fs::create_dir_all(p.parent().unwrap()).unwrap();
            fs::write(p, rel).unwrap();
        };
        for rel in [
            format!("file-history/{SID}/abc@v1"),
            format!("todos/{SID}-agent-{SID}.json"),
            "plans/a.md".into(),
            "paste-cache/unknown/deeper.bin".into(),
            ".credentials.json".into(),
            "settings.json".into(),
            "history.jsonl".into(),
            "image-cache/x/1.png".into(),
            "statsig/cache".into(),
            "projects/-p/s.jsonl".into(),
        ] {
            put(&rel);
        }
        #[cfg(unix)]
        std::os::unix::fs::symlink(root.join("settings.json"), root.join("debug-link")).unwrap();
        let found: Vec<(String, Option<String>)> = discover(&root)
            .into_iter()
            .map(|f| f.unwrap())
            .map(|(f, k)| {
                assert_eq!(k.project, AREA);
                (k.rel, f.session_id.filter(|s| !s.is_empty()))
            })
            .collect();
        assert_eq!(
            found,
            [
                (format!("file-history/{SID}/abc@v1"), Some(SID.to_string())),
                (format!("todos/{SID}-agent-{SID}.json"), Some(SID.to_string())),
                ("plans/a.md".to_string(), None),
                ("paste-cache/unknown/deeper.bin".to_string(), None),
            ]
        );
        fs::remove_dir_all(&root).unwrap();
    }
}
