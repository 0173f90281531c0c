//! The durable-files layer of the core: every file the archive, restore and the store write goes
//! through it. Folders are created with their parents fsynced; a file is written to a temp name
//! beside its target (mode 0600), fsynced, then published (a no-clobber link or a rename) and its
//! folder fsynced; no write follows a symbolic link out of its root. Beside it: the atomic swap
//! of two paths the in-place replacement uses ([`exchange`]) and a store file's one-writer lock
//! ([`writer_lock`]).

pub mod exchange;
pub mod writer_lock;

use crate::failure::{Code, Failure};
use rayon::prelude::*;
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
/// index's temp file still starts with the index's name), created exclusively and private.
pub fn temp_beside(target: &Path) -> Result<(PathBuf, File), Failure> {
    temp_beside_with_mode(target, 0o600)
}

/// [`temp_beside`], created with permission bits `mode` (the umask applies).
pub fn temp_beside_with_mode(target: &Path, mode: u32) -> Result<(PathBuf, File), Failure> {
    let dir = target.parent().unwrap_or(Path::new("."));
    let name = target.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let dotted = if name.starts_with('.') { name } else { format!(".{name}") };
    loop {
        let n = TEMP_SEQ.fetch_add(1, Ordering::Relaxed);
        let tmp = dir.join(format!("{dotted}.tmp-{}-{n}", std::process::id()));
        let mut o = OpenOptions::new();
        no_follow(o.read(true).write(true).create_new(true));
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut o, mode);
        #[cfg(not(unix))]
        let _ = mode;
        match o.open(&tmp) {
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

/// One file of [`publish_batch`]: its path (below the batch's root), its bytes and its mode.
pub struct BatchFile {
    pub target: PathBuf,
    pub bytes: Vec<u8>,
    /// Permission bits the file is created with (the umask applies, as to any new file).
    pub mode: u32,
}

/// Publishes many files below `root`, each whole or not at all, with two flushes of the file
/// system for the lot instead of two disk flushes per file: every file is written to a temp
/// name beside its target (missing folders made with `dir_mode`), then all are made durable
/// ([`sync_all`]), then renamed over their targets, then the renames and new folders are made
/// durable. No file is visible at its name before its bytes are on disk; a killed batch leaves
/// only temp files (names starting with `.`), which readers skip and [`sweep_temps`] removes.
/// Nothing is written through a symbolic link out of `root`, nor over one at a file's name.
pub fn publish_batch(root: &Path, files: &[BatchFile], dir_mode: u32) -> Result<(), Failure> {
    // A refusal to follow a link is a usage error, as for a named link.
    let link = |m: String| Failure::new(Code::Usage, m);
    let real_root = fs::canonicalize(root).map_err(|e| Failure::io(root, &e))?;
    let refuse_links = |target: &Path| -> Result<(), Failure> {
        if !target.starts_with(root) {
            return Err(link(format!("{}: lies outside {}; nothing written", target.display(), root.display())));
        }
        if let Some(why) = outside_root(target, root, &real_root) {
            return Err(link(format!("{why}; nothing written")));
        }
        if fs::symlink_metadata(target).is_ok_and(|m| m.file_type().is_symlink()) {
            return Err(link(format!("{}: is a symbolic link; not followed, not replaced", target.display())));
        }
        Ok(())
    };
    // The folders first: those below one top folder one after another (entries made in one
    // folder wait for its lock anyway), the top folders' side by side.
    let mut by_top: Vec<(&Path, Vec<&BatchFile>)> = Vec::new();
    for f in files {
        let top = f.target.strip_prefix(root).ok().and_then(|r| r.components().next()).map(|c| c.as_os_str());
        let top = top.map_or(root, |t| Path::new(t));
        match by_top.iter_mut().find(|(t, _)| *t == top) {
            Some((_, group)) => group.push(f),
            None => by_top.push((top, vec![f])),
        }
    }
    let made: Vec<Result<Vec<PathBuf>, Failure>> = by_top
        .par_iter()
        .map(|(_, group)| {
            let mut dirs: Vec<PathBuf> = Vec::new();
            for f in group {
                refuse_links(&f.target)?;
                let dir = f.target.parent().unwrap_or(root);
                if !dirs.iter().any(|d| d == dir) {
                    make_public_dirs(dir, root, dir_mode, &mut dirs)?;
                    dirs.push(dir.to_path_buf());
                }
            }
            Ok(dirs)
        })
        .collect();
    let mut dirs: Vec<PathBuf> = Vec::new();
    for m in made {
        dirs.extend(m?);
    }
    dirs.sort();
    dirs.dedup();
    // Then the files, on the pool: most lie in folders of their own, so the kernel makes them
    // side by side (an export publishes hundreds, and nothing else runs meanwhile).
    let written: Vec<Result<PathBuf, Failure>> = files
        .par_iter()
        .map(|f| {
            // Checked after the folders were made: a link put in their place meanwhile is refused.
            refuse_links(&f.target)?;
            write_temp_beside(f)
        })
        .collect();
    let mut temps: Vec<PathBuf> = written.iter().filter_map(|w| w.as_ref().ok().cloned()).collect();
    let all_written = match written.into_iter().find_map(Result::err) {
        Some(e) => Err(e),
        None => {
            let temp_refs: Vec<&Path> = temps.iter().map(PathBuf::as_path).collect();
            sync_all(root, &temp_refs, &[])
        }
    };
    let renamed = match all_written {
        Err(e) => Err(e),
        Ok(()) => {
            let outcomes: Vec<Result<(), Failure>> = files
                .par_iter()
                .zip(&temps)
                .map(|(f, tmp)| {
                    refuse_links(&f.target)?;
                    fs::rename(tmp, &f.target).map_err(|e| Failure::io(&f.target, &e))
                })
                .collect();
            // The temp files renamed are gone; the others are removed below.
            temps = std::mem::take(&mut temps)
                .into_iter()
                .zip(&outcomes)
                .filter(|(_, o)| o.is_err())
                .map(|(t, _)| t)
                .collect();
            outcomes.into_iter().find_map(Result::err).map_or(Ok(()), Err)
        }
    };
    for tmp in &temps {
        let _ = fs::remove_file(tmp);
    }
    renamed?;
    let mut all_dirs: Vec<&Path> = dirs.iter().map(PathBuf::as_path).collect();
    all_dirs.push(root);
    sync_all(root, &[], &all_dirs)
}

/// Writes `f`'s bytes to a fresh temp file beside its target ([`temp_beside_with_mode`]),
/// starting its write-back; returns the temp file's path.
fn write_temp_beside(f: &BatchFile) -> Result<PathBuf, Failure> {
    let (tmp, mut file) = temp_beside_with_mode(&f.target, f.mode)?;
    if let Err(e) = file.write_all(&f.bytes) {
        let _ = fs::remove_file(&tmp);
        return Err(Failure::io(&tmp, &e));
    }
    // The disk starts on this file while the others are written.
    start_writeback(&file);
    Ok(tmp)
}

/// Creates `dir` and its missing parents below `root` with `mode` (the umask applies), adding
/// each new folder's parent to `made` for the caller's closing sync.
fn make_public_dirs(dir: &Path, root: &Path, mode: u32, made: &mut Vec<PathBuf>) -> Result<(), Failure> {
    let mut missing = Vec::new();
    let mut d = dir;
    while d != root && fs::symlink_metadata(d).is_err() {
        missing.push(d.to_path_buf());
        match d.parent() {
            Some(p) => d = p,
            None => break,
        }
    }
    let mut b = fs::DirBuilder::new();
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut b, mode);
    #[cfg(not(unix))]
    let _ = mode;
    for m in missing.iter().rev() {
        match b.create(m) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(Failure::io(m, &e)),
        }
        if let Some(p) = m.parent() {
            if !made.iter().any(|x| x == p) {
                made.push(p.to_path_buf());
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let root = std::env::temp_dir().join(format!("cj-durable-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&root);
        fs::create_dir_all(&root).unwrap();
        root
    }

    fn file(root: &Path, rel: &str, bytes: &[u8], mode: u32) -> BatchFile {
        BatchFile { target: root.join(rel), bytes: bytes.to_vec(), mode }
    }

    /// Every name below `root`, temp files included.
    fn names(root: &Path) -> Vec<String> {
        let mut out = Vec::new();
        for e in fs::read_dir(root).unwrap().flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if e.file_type().unwrap().is_dir() {
                out.extend(names(&e.path()).into_iter().map(|n| format!("{name}/{n}")));
            } else {
                out.push(name);
            }
        }
        out.sort();
        out
    }

    #[test]
    fn a_batch_publishes_every_file_whole_in_new_folders_and_replaces_old_ones() {
        let root = scratch("batch");
        fs::create_dir_all(root.join("t/day=1")).unwrap();
        fs::write(root.join("t/day=1/part-a"), b"old").unwrap();
        let files = [
            file(&root, "t/day=1/part-a", b"new", 0o644),
            file(&root, "t/day=2/part-a", b"two", 0o644),
            file(&root, "u/day=2/part-a", b"secret", 0o600),
        ];
        publish_batch(&root, &files, 0o777).unwrap();
        assert_eq!(names(&root), ["t/day=1/part-a", "t/day=2/part-a", "u/day=2/part-a"]);
        assert_eq!(fs::read(root.join("t/day=1/part-a")).unwrap(), b"new");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = |p: &str| fs::metadata(root.join(p)).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode("u/day=2/part-a"), 0o600);
            assert_eq!(mode("t/day=2/part-a") & 0o600, 0o600);
        }
        fs::remove_dir_all(&root).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn a_batch_writes_nothing_through_a_link_out_of_its_root_nor_over_a_link() {
        let root = scratch("batch-link");
        let outside = scratch("batch-outside");
        std::os::unix::fs::symlink(&outside, root.join("t")).unwrap();
        let e = publish_batch(&root, &[file(&root, "t/day=1/part-a", b"x", 0o644)], 0o777).unwrap_err();
        assert!(matches!(e.code, Code::Usage) && e.message.contains("symbolic link"), "{}", e.message);
        assert!(names(&outside).is_empty());
        fs::remove_file(root.join("t")).unwrap();
        fs::create_dir_all(root.join("t")).unwrap();
        std::os::unix::fs::symlink(outside.join("f"), root.join("t/part-a")).unwrap();
        let files = [file(&root, "t/part-b", b"b", 0o644), file(&root, "t/part-a", b"a", 0o644)];
        assert!(publish_batch(&root, &files, 0o777).is_err());
        // Refused before anything was renamed: no temp file left, no file made.
        assert_eq!(names(&root), ["t/part-a"]);
        assert!(names(&outside).is_empty());
        fs::remove_dir_all(&root).unwrap();
        fs::remove_dir_all(&outside).unwrap();
    }
}
