//! The estate archive: archive runs, listing, restore, owners and the read view.

use super::estate::DiscoveredFile;
use super::scan::ScanProgress;
use super::{job, js_error, Job};
use claude_jsonl_core::archive;
use napi::bindgen_prelude::*;
use napi_derive::napi;
use rayon::prelude::*;
use std::path::{Path, PathBuf};

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
    /// Files the walk found that are no transcript at all (first line not a JSON object, no
    /// record): left out, each with why.
    pub not_transcripts: Vec<ArchiveFailure>,
    /// Streams found missing or damaged and stored again from the estate: one line each.
    pub healed: Vec<String>,
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
            healed: s.healed.clone(),
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
            not_transcripts: s
                .not_transcripts
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
        archive::write::archive_as(&roots, &config, &to, &created_at, &progress, format).map(ArchiveSummary::from)
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
    /// As of an earlier run: only the stream's first `segments` segments are read (absent: the
    /// latest state).
    pub segments: Option<u32>,
}

impl From<archive::Stored> for ArchivedFile {
    fn from(s: archive::Stored) -> ArchivedFile {
        ArchivedFile {
            key: s.key.text(),
            session_id: archive::owner::of(&s.key).map(str::to_string),
            config: s.key.is_config(),
            project: s.key.project.clone(),
            path: s.key.rel.clone(),
            generation: s.gen,
            generations: s.generations,
            store_path: s.path.display().to_string(),
            store_bytes: s.store_len as f64,
            segments: s.segments,
        }
    }
}

/// A listed file back as the archive's own record (restore and owners take the listing the
/// caller already holds instead of reading every header again).
impl From<&ArchivedFile> for archive::Stored {
    fn from(f: &ArchivedFile) -> archive::Stored {
        archive::Stored {
            key: archive::key::Key { project: f.project.clone(), rel: f.path.clone() },
            gen: f.generation,
            path: PathBuf::from(&f.store_path),
            generations: f.generations,
            store_len: f.store_bytes as u64,
            size: None,
            segments: f.segments,
        }
    }
}

/// The latest generation of every archived transcript (reads header frames only).
#[napi]
pub fn archive_list(root: String) -> Result<Vec<ArchivedFile>> {
    let root = PathBuf::from(root);
    let stored = archive::list(&root).map(archive::latest).map_err(js_error)?;
    Ok(stored.into_iter().map(ArchivedFile::from).collect())
}

/// A store file of the archive that cannot be read (the rest of the archive can).
#[napi(object)]
pub struct DamagedStoreFile {
    pub store_path: String,
    /// The project and session its name places it at, when the name says.
    pub project: Option<String>,
    pub session_id: Option<String>,
    /// One line naming the file and what is wrong with it.
    pub error: String,
}

/// A file the archive index records that no store file holds (or holds only in an earlier
/// state): its stream was lost or cut back.
#[napi(object)]
pub struct LackingFile {
    pub key: String,
    pub project: String,
    pub path: String,
    pub session_id: Option<String>,
    pub config: bool,
    /// True when an earlier state of it is held (and restored); false when nothing is.
    pub partly_held: bool,
    pub error: String,
}

/// The whole archive: the latest generation of every readable file, the damaged store files,
/// and what the index has that the store files lack.
#[napi(object)]
pub struct ArchiveListing {
    pub files: Vec<ArchivedFile>,
    pub damaged: Vec<DamagedStoreFile>,
    pub lacking: Vec<LackingFile>,
}

impl From<archive::read::Listing> for ArchiveListing {
    fn from(l: archive::read::Listing) -> ArchiveListing {
        ArchiveListing {
            files: archive::latest(l.stored).into_iter().map(ArchivedFile::from).collect(),
            damaged: l
                .damaged
                .into_iter()
                .map(|d| DamagedStoreFile {
                    store_path: d.path.display().to_string(),
                    project: d.project,
                    session_id: d.session,
                    error: d.error.message,
                })
                .collect(),
            lacking: l
                .lacking
                .into_iter()
                .map(|x| LackingFile {
                    key: x.key.text(),
                    session_id: archive::owner::of(&x.key).map(str::to_string),
                    config: x.key.is_config(),
                    project: x.key.project.clone(),
                    path: x.key.rel.clone(),
                    partly_held: x.holds.is_some(),
                    error: x.error,
                })
                .collect(),
        }
    }
}

/// Every readable file of an archive at its latest generation, with each damaged store file and
/// each file the index has but the store files lack named apart (reads directories only).
#[napi]
pub fn archive_list_all(root: String) -> Result<ArchiveListing> {
    let root = PathBuf::from(root);
    archive::read::list_all(&root).map(ArchiveListing::from).map_err(js_error)
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
        let results = archive::restore::restore(&which, &to, keep_mtime, &progress);
        Ok(which
            .iter()
            .zip(results)
            .map(|(s, r)| {
                // empty when the header's place was refused (nothing was written)
                let target = to.place(&s.key).map(|d| d.path.display().to_string()).unwrap_or_default();
                let key = s.key.text();
                match r {
                    Ok(archive::restore::Restored::Written { bytes }) => {
                        RestoreResult { key, target, written: true, bytes: bytes as f64, error: None }
                    }
                    Ok(archive::restore::Restored::Identical { bytes }) => {
                        RestoreResult { key, target, written: false, bytes: bytes as f64, error: None }
                    }
                    Err(e) => RestoreResult { key, target, written: false, bytes: 0.0, error: Some(e.message) },
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
                let (session_id, error) = match archive::estate_scan::owner_of(&bufs, s) {
                    Ok(id) => (id, None),
                    Err(e) => (None, Some(e.message)),
                };
                ArchiveOwner { key: s.key.text(), session_id, error }
            })
            .collect())
    })
}

/// One generation of an archived file.
#[napi(object)]
pub struct ArchivedGeneration {
    /// 1 for the first archived.
    pub generation: u32,
    /// The segment that started it, and how many of the stream's segments to read to restore it
    /// at its last state (`archiveStreamAt`).
    pub from_segment: u32,
    pub until_segment: u32,
    pub bytes: f64,
    pub sha256: String,
    /// The source's mtime at its last state, in ms since the epoch.
    pub mtime_ms: f64,
    /// A compressed candidate of ours (our compact pair in it); absent for files that are not
    /// transcripts.
    pub compressed: Option<bool>,
}

#[napi(object)]
pub struct ArchivedFileHistory {
    pub key: String,
    pub project: String,
    pub path: String,
    pub session_id: Option<String>,
    pub generations: Vec<ArchivedGeneration>,
    /// Its source is gone from the estate (absent when the archive index does not know it).
    pub deleted: Option<bool>,
}

#[napi(object)]
pub struct ArchivedSegment {
    /// When the run that wrote it started (ISO 8601), absent in streams written before runs
    /// recorded it.
    pub archived_at: Option<String>,
    /// The newest source mtime among its pieces, in ms (a lower bound of its time).
    pub newest_mtime_ms: f64,
}

#[napi(object)]
pub struct StreamHistory {
    pub store_path: String,
    pub segments: Vec<ArchivedSegment>,
    pub files: Vec<ArchivedFileHistory>,
    /// Why the stream could not be read (its other fields are then empty).
    pub error: Option<String>,
}

/// Every generation of every file of the given format-2 streams, in parallel; with `scan`, each
/// transcript generation is decoded (SHA-256 checked) to tell a compressed candidate of ours.
#[napi(ts_return_type = "Promise<StreamHistory[]>")]
pub fn archive_history(root: String, store_paths: Vec<String>, scan: bool) -> AsyncTask<Job<Vec<StreamHistory>>> {
    job(move || {
        let root = PathBuf::from(root);
        Ok(store_paths
            .par_iter()
            .map(|p| match archive::history::history(&root, Path::new(p), scan) {
                Ok(h) => StreamHistory {
                    store_path: p.clone(),
                    segments: h
                        .segments
                        .into_iter()
                        .map(|s| ArchivedSegment {
                            archived_at: s.archived_at,
                            newest_mtime_ms: (s.newest_mtime_ns / 1_000_000) as f64,
                        })
                        .collect(),
                    files: h
                        .files
                        .into_iter()
                        .map(|f| ArchivedFileHistory {
                            key: f.key.text(),
                            session_id: archive::owner::of(&f.key).map(str::to_string),
                            project: f.key.project.clone(),
                            path: f.key.rel.clone(),
                            deleted: f.deleted,
                            generations: f
                                .generations
                                .into_iter()
                                .map(|g| ArchivedGeneration {
                                    generation: g.gen + 1,
                                    from_segment: g.from_segment,
                                    until_segment: g.until_segment,
                                    bytes: g.size as f64,
                                    sha256: g.sha256,
                                    mtime_ms: (g.mtime_ns / 1_000_000) as f64,
                                    compressed: g.compressed,
                                })
                                .collect(),
                        })
                        .collect(),
                    error: None,
                },
                Err(e) => {
                    StreamHistory { store_path: p.clone(), segments: vec![], files: vec![], error: Some(e.message) }
                }
            })
            .collect())
    })
}

/// The files of one format-2 stream as its first `segments` segments hold them (the archive as
/// that run left the session), ready for `archiveRestore`.
#[napi]
pub fn archive_stream_at(root: String, store_path: String, segments: u32) -> Result<Vec<ArchivedFile>> {
    let root = PathBuf::from(root);
    archive::history::stream_at(&root, Path::new(&store_path), segments)
        .map(|v| v.into_iter().map(ArchivedFile::from).collect())
        .map_err(js_error)
}

/// One archived transcript as a walk lists a file, or why its stream could not be read.
#[napi(object)]
pub struct ArchiveDiscovered {
    pub file: Option<DiscoveredFile>,
    pub error: Option<String>,
}

/// The archived transcripts `files` (as `archiveListAll` or `archiveStreamAt` list them) as
/// `discoverFiles` lists files, placed at `<root>/<project>/<path>` where no file is (reads only
/// the streams' directories); one result per file, in order.
#[napi]
pub fn archive_discover(root: String, files: Vec<ArchivedFile>) -> Result<Vec<ArchiveDiscovered>> {
    let root = PathBuf::from(root);
    let stored: Vec<archive::Stored> = files.iter().map(Into::into).collect();
    let found = archive::estate_scan::discover_stored(&root, &stored).map_err(js_error)?;
    Ok(found
        .into_iter()
        .map(|r| match r {
            Ok(f) => ArchiveDiscovered { file: Some(f.into()), error: None },
            Err(e) => ArchiveDiscovered { file: None, error: Some(e.message) },
        })
        .collect())
}

/// One archived file's bytes (the state it names: latest, or as of an earlier run), SHA-256
/// checked, in memory: for a reader that needs one transcript's text again after a scan.
#[napi]
pub fn archive_read_file(file: ArchivedFile) -> Result<Buffer> {
    let stored: archive::Stored = (&file).into();
    archive::estate_scan::read_stored(&stored).map(Buffer::from).map_err(js_error)
}
