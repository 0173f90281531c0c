//! What an archive run shares between its two writers (format 1's store files and format 2's
//! streams): the run's summary, each file's work and its pending publication, the store lock, the
//! unchanged test, opening a source, and a positioned write.

use super::index::Entry;
use super::key::Key;
use crate::durable;
use crate::estate::EstateFile;
use crate::failure::{Code, Failure};
use crate::scan::Progress;
use std::fs::{self, File, OpenOptions};
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;

#[derive(Clone, Debug, Default)]
pub struct Summary {
    pub files: u64,
    pub unchanged: u64,
    /// Files whose new bytes were appended to their stored generation.
    pub appended: u64,
    /// Files seen for the first time.
    pub added: u64,
    /// Files Claude Code rewrote: kept as a new generation.
    pub generations: u64,
    /// Only metadata changed (same bytes).
    pub touched: u64,
    /// Of `files`: config-folder files found (`archive --include-config`).
    pub config_files: u64,
    pub bytes_in: u64,
    pub bytes_stored: u64,
    pub failures: Vec<Failure>,
    /// Files not archived on purpose, each with its reason: a transcript (or a folder on its
    /// way) that is a symbolic link leading out of its estate root is never followed.
    pub skipped: Vec<Failure>,
    /// Files the walk found that are no transcript at all (first line not a JSON object, no
    /// record), left out, each with why.
    pub not_transcripts: Vec<Failure>,
    /// Streams found missing or damaged and stored again from the estate (format 2): one line
    /// each, naming the stream, what was wrong and where a damaged one was set aside.
    pub healed: Vec<String>,
    /// The whole archive after the run: transcripts, source bytes held, store bytes.
    pub archived_files: u64,
    /// Of `archived_files`: config-folder files.
    pub archived_config_files: u64,
    pub archived_bytes: u64,
    pub store_bytes: u64,
    /// The archive format the root is written in (1 or 2: see docs/store-format.md).
    pub format: u8,
}

pub(super) struct Work<'a> {
    pub(super) file: &'a EstateFile,
    pub(super) key: Key,
    pub(super) prior: Option<Entry>,
}

/// A new generation written to a temp file, to be linked into place once durable.
pub(super) struct Pending {
    pub(super) tmp: PathBuf,
    pub(super) target: PathBuf,
}

pub(super) fn publish(synced: &Result<(), Failure>, p: &Pending) -> Result<(), Failure> {
    if let Err(e) = synced {
        let _ = fs::remove_file(&p.tmp);
        return Err(e.clone());
    }
    durable::link_no_clobber(&p.tmp, &p.target)
}

pub(super) fn lock_store(path: &Path) -> Result<File, Failure> {
    let mut o = OpenOptions::new();
    o.read(true).write(true);
    // a link in a store file's place is never written through
    let f = durable::no_follow(&mut o).open(path).map_err(|e| Failure::io(path, &e))?;
    match f.try_lock() {
        Ok(()) => Ok(f),
        Err(fs::TryLockError::WouldBlock) => {
            Err(Failure::at(Code::Locked, path, "another writer holds this session (one writer per session)"))
        }
        Err(fs::TryLockError::Error(e)) => Err(Failure::io(path, &e)),
    }
}

/// Whether the walk's size and mtime differ from the last run's (the exact test, with inode
/// and nanoseconds, is made on the open file).
pub(super) fn looks_changed(w: &Work) -> bool {
    w.prior.as_ref().is_none_or(|e| e.size != w.file.size || (e.mtime_ns as f64 / 1e6 - w.file.mtime_ms).abs() > 1.0)
}

/// A source opened for this run, with its identity as the open file shows it.
pub(super) struct Opened {
    pub(super) file: File,
    pub(super) size: u64,
    pub(super) mtime_ns: i128,
    pub(super) dev: u64,
    pub(super) ino: u64,
}

/// Opens a file of the run; None when the index shows it unchanged (size, mtime, device and
/// inode as the last run saw them: not read), unless `force` (its store file must be checked
/// against it: lost or cut back). Keeps the progress bar's totals right.
pub(super) fn open_source(w: &Work, progress: &Progress, force: bool) -> Result<Option<Opened>, Failure> {
    let src = &w.file.path;
    let io = |e: std::io::Error| Failure::io(src, &e);
    let f = File::open(src).map_err(io)?;
    let meta = f.metadata().map_err(io)?;
    let (dev, ino, mtime_ns) = durable::ids(&meta);
    let size = meta.len();
    if let Some(e) = &w.prior {
        if !force && e.source == *src && e.size == size && e.mtime_ns == mtime_ns && e.dev == dev && e.ino == ino {
            if looks_changed(w) {
                progress.bytes_done.fetch_add(w.file.size, Ordering::Relaxed);
            }
            return Ok(None);
        }
    }
    // keep the bar's total right when the walk's guess was wrong
    match looks_changed(w) {
        true if size != w.file.size => {
            progress.bytes_total.fetch_add(size, Ordering::Relaxed);
            progress.bytes_total.fetch_sub(w.file.size, Ordering::Relaxed);
        }
        true => {}
        false => {
            progress.bytes_total.fetch_add(size, Ordering::Relaxed);
        }
    }
    Ok(Some(Opened { file: f, size, mtime_ns, dev, ino }))
}

#[cfg(unix)]
pub(super) fn write_at(f: &File, buf: &[u8], at: u64) -> std::io::Result<()> {
    std::os::unix::fs::FileExt::write_all_at(f, buf, at)
}

#[cfg(windows)]
pub(super) fn write_at(f: &File, mut buf: &[u8], mut at: u64) -> std::io::Result<()> {
    while !buf.is_empty() {
        let n = std::os::windows::fs::FileExt::seek_write(f, buf, at)?;
        buf = &buf[n..];
        at += n as u64;
    }
    Ok(())
}
