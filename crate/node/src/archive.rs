//! The estate archive: archive runs, listing, restore, owners and the read view.

use super::scan::ScanProgress;
use super::{job, js_error, Job};
use claude_jsonl_core::archive;
use claude_jsonl_core::failure::{Code, Failure};
use napi::bindgen_prelude::*;
use napi_derive::napi;
use rayon::prelude::*;
use std::path::{Path, PathBuf};

/// An archive error (the core's one line, which names the file it concerns) about the archive
/// or estate at `root`.
fn archive_failure(root: &Path) -> impl Fn(String) -> Failure + '_ {
    move |m| Failure::about(Code::Archive, root, m)
}

/// A transcript or session file the run could not archive.
#[napi(object)]
pub struct ArchiveFailure {
    /// The file in the estate.
    pub path: String,
    /// One line to show as it is: it names the file it concerns (the estate file, or the
    /// archive's store file for it).
    pub message: String,
}

#[napi(object)]
pub struct ArchiveSummary {
    /// Transcripts found in the estate now.
    pub files: f64,
    pub unchanged: f64,
    /// Grown since the last run: only the new bytes were stored.
    pub appended: f64,
    /// Seen for the first time.
    pub added: f64,
    /// Rewritten by Claude Code: kept as a new generation beside the old one.
    pub generations: f64,
    /// Only the metadata changed (same bytes).
    pub touched: f64,
    /// Of `files`: files of the config folder outside `projects/` (with `configDirs`).
    pub config_files: f64,
    pub bytes_in: f64,
    pub bytes_stored: f64,
    /// Transcripts that could not be archived (everything else was).
    pub failures: Vec<ArchiveFailure>,
    /// Files not archived on purpose, each with its reason (a transcript link leading out of its
    /// estate root is never followed).
    pub skipped: Vec<ArchiveFailure>,
    pub archived_files: f64,
    /// Of `archived_files`: config-folder files.
    pub archived_config_files: f64,
    pub archived_bytes: f64,
    pub store_bytes: f64,
    /// The archive format the root is written in (1 or 2).
    pub format: u32,
}

impl From<archive::Summary> for ArchiveSummary {
    fn from(s: archive::Summary) -> ArchiveSummary {
        ArchiveSummary {
            files: s.files as f64,
            unchanged: s.unchanged as f64,
            appended: s.appended as f64,
            added: s.added as f64,
            generations: s.generations as f64,
            touched: s.touched as f64,
            config_files: s.config_files as f64,
            bytes_in: s.bytes_in as f64,
            bytes_stored: s.bytes_stored as f64,
            failures: s
                .failures
                .into_iter()
                .map(|f| ArchiveFailure { path: f.path.unwrap_or_default(), message: f.message })
                .collect(),
            skipped: s
                .skipped
                .into_iter()
                .map(|f| ArchiveFailure { path: f.path.unwrap_or_default(), message: f.message })
                .collect(),
            archived_files: s.archived_files as f64,
            archived_config_files: s.archived_config_files as f64,
            archived_bytes: s.archived_bytes as f64,
            store_bytes: s.store_bytes as f64,
            format: u32::from(s.format),
        }
    }
}

/// Archives every transcript under `roots` into the archive root `to`, off the JS thread, and
/// the files Claude Code's cleanup deletes from each config folder in `configDirs` (outside
/// `projects/`), in `format` for a new root (default 2; an existing root keeps its own).
/// Rejects (one-line message naming the path) only when the whole run cannot proceed.
#[napi(ts_return_type = "Promise<ArchiveSummary>")]
pub fn archive_estate(
    roots: Vec<String>,
    to: String,
    progress: &ScanProgress,
    created_at: String,
    config_dirs: Option<Vec<String>>,
    format: Option<u32>,
) -> AsyncTask<Job<ArchiveSummary>> {
    let progress = progress.inner.clone();
    job(move || {
        let roots: Vec<PathBuf> = roots.into_iter().map(PathBuf::from).collect();
        let config: Vec<PathBuf> = config_dirs.unwrap_or_default().into_iter().map(PathBuf::from).collect();
        let to = PathBuf::from(to);
        let format = format.map(|f| f.clamp(1, 2) as u8);
        archive::write::archive_as(&roots, &config, &to, &created_at, &progress, format)
            .map(ArchiveSummary::from)
            .map_err(archive_failure(&to))
    })
}

/// True when the folder is an archive root (its index, or an archive header in its layout).
#[napi]
pub fn archive_detect(path: String) -> bool {
    archive::is_archive(Path::new(&path))
}

/// One transcript kept in an archive: where it came from, which generation is current, and the
/// store file that holds it.
#[napi(object)]
#[derive(Clone)]
pub struct ArchivedFile {
    /// `<project>/<path>`: where restore writes it under the target folder.
    pub key: String,
    pub project: String,
    pub path: String,
    /// The session it belongs to (None for an old-layout `agent-*.jsonl`, and for a config
    /// file not named after a session).
    pub session_id: Option<String>,
    /// A file of the config folder outside `projects/` (`archive --include-config`): `path` is
    /// its path in the config folder, `project` is `_config`, and restore writes it into the
    /// config folder.
    pub config: bool,
    pub generation: u32,
    pub generations: u32,
    pub store_path: String,
    pub store_bytes: f64,
}

impl From<archive::Stored> for ArchivedFile {
    fn from(s: archive::Stored) -> ArchivedFile {
        ArchivedFile {
            key: s.key.text(),
            session_id: s.key.owner().map(str::to_string),
            config: s.key.is_config(),
            project: s.key.project.clone(),
            path: s.key.rel.clone(),
            generation: s.gen,
            generations: s.generations,
            store_path: s.path.display().to_string(),
            store_bytes: s.store_len as f64,
        }
    }
}

/// A listed file back as the archive's own record (restore and owners take the listing the
/// caller already holds instead of reading every header again).
impl From<&ArchivedFile> for archive::Stored {
    fn from(f: &ArchivedFile) -> archive::Stored {
        archive::Stored {
            key: archive::layout::Key { project: f.project.clone(), rel: f.path.clone() },
            gen: f.generation,
            path: PathBuf::from(&f.store_path),
            generations: f.generations,
            store_len: f.store_bytes as u64,
        }
    }
}

/// The latest generation of every archived transcript (reads header frames only).
#[napi]
pub fn archive_list(root: String) -> Result<Vec<ArchivedFile>> {
    let root = PathBuf::from(root);
    let stored = archive::list(&root).map(archive::latest).map_err(|m| js_error(archive_failure(&root)(m)))?;
    Ok(stored.into_iter().map(ArchivedFile::from).collect())
}

#[napi(object)]
pub struct RestoreResult {
    pub key: String,
    pub target: String,
    /// Written now; false when the target already held exactly these bytes (or on error).
    pub written: bool,
    pub bytes: f64,
    pub error: Option<String>,
}

/// Restores the given transcripts (as `archiveList` lists them) under `to`, byte-identical
/// (checked by SHA-256), never replacing a different file; config-folder files go under
/// `configTo` (refused without it).
#[napi(ts_return_type = "Promise<RestoreResult[]>")]
pub fn archive_restore(
    files: Vec<ArchivedFile>,
    to: String,
    keep_mtime: bool,
    progress: &ScanProgress,
    config_to: Option<String>,
) -> AsyncTask<Job<Vec<RestoreResult>>> {
    let progress = progress.inner.clone();
    job(move || {
        let to = archive::destination::Targets { projects: PathBuf::from(to), config: config_to.map(PathBuf::from) };
        let which: Vec<archive::Stored> = files.iter().map(archive::Stored::from).collect();
        let results = archive::view::restore(&which, &to, keep_mtime, &progress);
        Ok(which
            .iter()
            .zip(results)
            .map(|(s, r)| {
                // empty when the header's place was refused (nothing was written)
                let target = to.place(&s.key).map(|d| d.path.display().to_string()).unwrap_or_default();
                let key = s.key.text();
                match r {
                    Ok(archive::view::Restored::Written { bytes }) => {
                        RestoreResult { key, target, written: true, bytes: bytes as f64, error: None }
                    }
                    Ok(archive::view::Restored::Identical { bytes }) => {
                        RestoreResult { key, target, written: false, bytes: bytes as f64, error: None }
                    }
                    Err(e) => RestoreResult { key, target, written: false, bytes: 0.0, error: Some(e) },
                }
            })
            .collect())
    })
}

#[napi(object)]
pub struct ArchiveOwner {
    pub key: String,
    /// The sessionId of the transcript's first record that has one.
    pub session_id: Option<String>,
    pub error: Option<String>,
}

/// Which session each of the given archived transcripts (as `archiveList` lists them) belongs
/// to by its records (for the old-layout `agent-*.jsonl` files, whose path does not say):
/// decodes each only as far as it must, in parallel.
#[napi(ts_return_type = "Promise<ArchiveOwner[]>")]
pub fn archive_owners(files: Vec<ArchivedFile>) -> AsyncTask<Job<Vec<ArchiveOwner>>> {
    job(move || {
        let which: Vec<archive::Stored> = files.iter().map(archive::Stored::from).collect();
        let bufs = archive::read::Buffers::default();
        Ok(which
            .par_iter()
            .map(|s| {
                let (session_id, error) = match archive::read::owner_of(&bufs, s) {
                    Ok(id) => (id, None),
                    Err(e) => (None, Some(e)),
                };
                ArchiveOwner { key: s.key.text(), session_id, error }
            })
            .collect())
    })
}

#[napi(object)]
pub struct ArchiveViewSummary {
    pub files: f64,
    pub decoded: f64,
    pub bytes: f64,
}

/// Brings the read view of an archive up to date (synchronously: the estate's root rules are
/// synchronous); only transcripts whose store file changed are decoded, in parallel.
#[napi]
pub fn archive_view(root: String, view: String) -> Result<ArchiveViewSummary> {
    let root = PathBuf::from(root);
    archive::view::refresh(&root, Path::new(&view))
        .map(|s| ArchiveViewSummary { files: s.files as f64, decoded: s.decoded as f64, bytes: s.bytes as f64 })
        .map_err(|m| js_error(archive_failure(&root)(m)))
}
