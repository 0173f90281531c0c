//! The durable-files layer of the core: every file the archive, restore and the store write goes
//! through it. Folders are created with their parents fsynced; a file is written to a temp name
//! beside its target (mode 0600), fsynced, then published (a no-clobber link or a rename) and its
//! folder fsynced; no write follows a symbolic link out of its root. Beside it: the atomic swap
//! of two paths the in-place replacement uses ([`exchange`]) and a store file's one-writer lock
//! ([`writer_lock`]).

pub mod exchange;
pub mod writer_lock;

use crate::failure::{Code, Failure};
use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Why reading or writing `path`, reached from `root` (whose real path is `real_root`), would
/// follow a symbolic link out of the root: None when every link on the way (the file's own name
/// included) leads inside it. Secrets a link points at (a file only root may read) are never
/// copied into an archive, and no write passes through a link out of its root.
pub fn outside_root(path: &Path, root: &Path, real_root: &Path) -> Option<String> {
    let rel = path.strip_prefix(root).ok()?;
    let mut p = root.to_path_buf();
    for part in rel.iter() {
        p.push(part);
        let m = fs::symlink_metadata(&p).ok()?;
        if !m.file_type().is_symlink() {
            continue;
        }
        return match fs::canonicalize(&p) {
            Ok(real) if real.starts_with(real_root) => continue,
            Ok(real) => Some(format!(
                "{}: a symbolic link leading out of {} (to {}); not followed",
                p.display(),
                root.display(),
                real.display()
            )),
            Err(_) => Some(format!("{}: a symbolic link that leads nowhere; not followed", p.display())),
        };
    }
    None
}

pub fn fsync_dir(dir: &Path) -> io::Result<()> {
    File::open(dir)?.sync_all()
}

/// Creates `dir` and any missing parents, fsyncing each new folder's parent.
pub fn make_dirs(dir: &Path) -> Result<(), Failure> {
    make_dirs_with(dir, true)
}

/// Creates `dir` and any missing parents; with `sync`, each new folder's parent is fsynced
/// (without, the caller syncs later).
pub fn make_dirs_with(dir: &Path, sync: bool) -> Result<(), Failure> {
    let mut missing = Vec::new();
    let mut d = dir;
    while fs::symlink_metadata(d).is_err() {
        missing.push(d.to_path_buf());
        match d.parent() {
            Some(p) => d = p,
            None => break,
        }
    }
    for m in missing.iter().rev() {
        match private_dir().create(m) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(Failure::io(m, &e)),
        }
        if let (true, Some(p)) = (sync, m.parent()) {
            fsync_dir(p).map_err(|e| Failure::io(p, &e))?;
        }
    }
    Ok(())
}

/// Folders made by a writer are private (0700): an archive or a restored project holds
/// transcripts, which may hold secrets.
fn private_dir() -> fs::DirBuilder {
    let mut b = fs::DirBuilder::new();
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut b, 0o700);
    b
}

static TEMP_SEQ: AtomicU64 = AtomicU64::new(0);

/// Opening never follows a symbolic link at the file's own name (creating exclusively already
/// refuses one; this says so to the kernel as well).
/// Files are created private (0600): no archive stream, index or restored transcript is ever
/// readable by more users than the owner, whatever the source's mode was.
pub(super) fn no_follow(o: &mut OpenOptions) -> &mut OpenOptions {
    #[cfg(target_os = "linux")]
    std::os::unix::fs::OpenOptionsExt::custom_flags(o, libc::O_NOFOLLOW);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(o, 0o600);
    o
}

/// A fresh temp file beside `target` (`.<name>.tmp-<pid>-<n>`, one leading dot only, so the
/// index's temp file still starts with the index's name), created exclusively.
pub fn temp_beside(target: &Path) -> Result<(PathBuf, File), Failure> {
    let dir = target.parent().unwrap_or(Path::new("."));
    let name = target.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let dotted = if name.starts_with('.') { name } else { format!(".{name}") };
    loop {
        let n = TEMP_SEQ.fetch_add(1, Ordering::Relaxed);
        let tmp = dir.join(format!("{dotted}.tmp-{}-{n}", std::process::id()));
        match no_follow(OpenOptions::new().read(true).write(true).create_new(true)).open(&tmp) {
            Ok(f) => return Ok((tmp, f)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(Failure::io(&tmp, &e)),
        }
    }
}

/// Makes written files durable. Many small files each fsynced cost a disk flush apiece (about
/// 3 ms here); on Linux one syncfs of the file system flushes them all at once. Elsewhere each
/// file and folder is fsynced.
pub fn sync_all(root: &Path, files: &[&Path], dirs: &[&Path]) -> Result<(), Failure> {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        let _ = (files, dirs);
        let d = File::open(root).map_err(|e| Failure::io(root, &e))?;
        // SAFETY: syncfs only reads the descriptor, which `d` keeps open for the call.
        if unsafe { libc::syncfs(d.as_raw_fd()) } != 0 {
            return Err(Failure::io(root, &io::Error::last_os_error()));
        }
        Ok(())
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = root;
        for f in files {
            File::options().write(true).open(f).and_then(|f| f.sync_all()).map_err(|e| Failure::io(f, &e))?;
        }
        for d in dirs {
            fsync_dir(d).map_err(|e| Failure::io(d, &e))?;
        }
        Ok(())
    }
}

/// Starts writing a file's dirty pages to disk without waiting (Linux: sync_file_range), so
/// the disk works while later files are still decoded and the closing `sync_all` waits for
/// less. Durability still comes from `sync_all`; elsewhere this does nothing.
pub fn start_writeback(f: &File) {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        // SAFETY: sync_file_range only reads the descriptor, which `f` keeps open for the call.
        unsafe { libc::sync_file_range(f.as_raw_fd(), 0, 0, libc::SYNC_FILE_RANGE_WRITE) };
    }
    #[cfg(not(target_os = "linux"))]
    let _ = f;
}

/// Links a written temp file to `target` without ever replacing a file there; the caller
/// makes the link durable (`sync_all`).
pub fn link_no_clobber(tmp: &Path, target: &Path) -> Result<(), Failure> {
    let linked = fs::hard_link(tmp, target);
    let _ = fs::remove_file(tmp);
    match linked {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
            Err(Failure::at(Code::Io, target, "already exists (not overwritten)"))
        }
        Err(e) => Err(Failure::io(target, &e)),
    }
}

/// Replaces `target` with `bytes` atomically (temp, fsync, rename, folder fsync).
pub fn replace(target: &Path, bytes: &[u8]) -> Result<(), Failure> {
    let (tmp, mut f) = temp_beside(target)?;
    let r = f.write_all(bytes).and_then(|_| f.sync_all()).and_then(|_| fs::rename(&tmp, target));
    if let Err(e) = r {
        let _ = fs::remove_file(&tmp);
        return Err(Failure::io(target, &e));
    }
    let dir = target.parent().unwrap_or(Path::new("."));
    fsync_dir(dir).map_err(|e| Failure::io(dir, &e))
}

/// Removes temp files a killed writer left in `dir` (names from `temp_beside` or the store's
/// `.session.jsonl.tmp-<pid>-…`): those whose process is gone, or older than an hour.
pub fn sweep_temps(dir: &Path) {
    let Ok(entries) = fs::read_dir(dir) else { return };
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let Some((_, tail)) = name.split_once(".tmp-") else { continue };
        if !name.starts_with('.') {
            continue;
        }
        let pid = tail.split('-').next().unwrap_or("");
        let proc_dir = Path::new("/proc");
        let dead = proc_dir.is_dir() && !pid.is_empty() && !proc_dir.join(pid).exists();
        let old = e
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.elapsed().ok())
            .is_some_and(|d| d.as_secs() > 3600);
        if dead || old {
            let _ = fs::remove_file(e.path());
        }
    }
}

#[cfg(unix)]
pub fn ids(m: &fs::Metadata) -> (u64, u64, i128) {
    use std::os::unix::fs::MetadataExt;
    (m.dev(), m.ino(), m.mtime() as i128 * 1_000_000_000 + m.mtime_nsec() as i128)
}
#[cfg(not(unix))]
pub fn ids(m: &fs::Metadata) -> (u64, u64, i128) {
    let ns = m
        .modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos() as i128);
    (0, 0, ns)
}

/// Sets a file's modification time from nanoseconds since the epoch.
pub fn set_mtime(f: &File, ns: i128) -> io::Result<()> {
    let t = if ns >= 0 {
        std::time::UNIX_EPOCH + std::time::Duration::from_nanos(ns as u64)
    } else {
        std::time::UNIX_EPOCH - std::time::Duration::from_nanos((-ns) as u64)
    };
    f.set_modified(t)
}

/// Whether anything (a link included, not followed) is at `path`.
pub fn exists_no_follow(path: &Path) -> bool {
    fs::symlink_metadata(path).is_ok()
}
