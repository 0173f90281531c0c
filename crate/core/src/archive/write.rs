//! An archive run: every transcript of the estate mirrored into the store root, incrementally.
//!
//! Per transcript: unchanged size, mtime and inode since the last run (the index) means skipped
//! without reading. Otherwise the stored bytes must still be the file's prefix (SHA-256): then
//! only the bytes after them are appended, as new frames, followed by a mark; if not (Claude
//! Code rewrote the file), the whole file becomes the next generation, a new store session.
//! Files run in parallel; a large file's windows are cut at newlines into chunks compressed in
//! parallel while one core hashes.

use super::config_files;
use super::events::{self, Mark};
use super::index::{self, Entry, Index};
use super::key::Key;
use super::layout::{self, INDEX};
use super::read;
pub use super::run::Summary;
use super::run::{lock_store, looks_changed, open_source, publish, write_at, Opened, Pending, Work};
use super::session_files;
use super::source::Source;
use crate::durable;
use crate::estate::{self, EstateFile, FileKind};
use crate::failure::{Code, Failure};
use crate::scan::json_text::JsonText;
use crate::scan::Progress;
use crate::store::{self, Encoding};
use rayon::prelude::*;
use sha2::{Digest, Sha256};
use std::cell::RefCell;
use std::collections::HashMap;
use std::fs::{self, File};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;

/// Source bytes per compressed frame (whole lines): big enough for a ratio close to one
/// stream's (it fills the archive profile's 8 MiB window), small enough to spread one large
/// file over every core.
pub const CHUNK: usize = if cfg!(test) { 16 << 10 } else { 8 << 20 };
const ARCHIVE: store::Profile = store::Profile::Archive;
/// Source bytes read and hashed at a time from one file. (Tests use small chunks and windows, so
/// small files cross their boundaries.)
const WINDOW: usize = if cfg!(test) { 64 << 10 } else { 32 << 20 };

enum Outcome {
    Unchanged,
    /// Same bytes, new metadata; with the store bytes of the mark that records a new mtime.
    Touched(Entry, u64),
    Appended(Entry, u64, u64),
    Added(Entry, u64, u64, Pending),
    Generation(Entry, u64, u64, Pending),
}

/// The key of a discovered transcript: where it sits in its project.
pub fn key_of(f: &EstateFile) -> Result<Key, Failure> {
    let name = f.path.file_name().and_then(|n| n.to_str()).ok_or_else(|| unfit("file name is not UTF-8"))?;
    let rel = match (f.kind, &f.session_id) {
        (FileKind::Subagent, Some(sid)) => format!("{sid}/subagents/{name}"),
        _ => name.to_string(),
    };
    if f.project.is_empty() {
        return Err(unfit("no project folder above this transcript"));
    }
    if f.project.contains('\u{FFFD}') || rel.contains('\u{FFFD}') {
        return Err(unfit("folder name is not UTF-8"));
    }
    let key = Key { project: f.project.clone(), rel };
    super::destination::check_key(&key).map_err(|r| unfit(r.of_source()))?;
    Ok(key)
}

/// Why a transcript cannot be archived under any key, before the caller names the file.
fn unfit(why: impl Into<String>) -> Failure {
    Failure::new(Code::Archive, why)
}

/// Locks the archive root for this run (released when the returned file drops).
fn lock_root(root: &Path) -> Result<File, Failure> {
    let f = File::open(root).map_err(|e| Failure::io(root, &e))?;
    match f.try_lock() {
        Ok(()) => Ok(f),
        Err(fs::TryLockError::WouldBlock) => {
            Err(Failure::at(Code::Locked, root, "another archive run is writing this archive"))
        }
        Err(fs::TryLockError::Error(e)) => Err(Failure::io(root, &e)),
    }
}

/// Archives the transcripts under `roots` into `root`, and the files the cleanup deletes from
/// each config folder in `config_dirs` (`archive --include-config`; `config_files`). Err only
/// for what stops the whole run (a missing estate root, an archive root that is not one, another
/// run holding it); a file that fails is listed in `failures` and everything else is still
/// archived.
pub fn archive(
    roots: &[PathBuf],
    config_dirs: &[PathBuf],
    root: &Path,
    created_at: &str,
    progress: &Progress,
) -> Result<Summary, Failure> {
    archive_as(roots, config_dirs, root, created_at, progress, None)
}

/// `archive`, writing a new root in `format` (None: 2). A root that holds an archive keeps its
/// own format (its index says, else its store files): a format-1 archive is continued in format
/// 1, not converted, so its store files stay as they are.
pub fn archive_as(
    roots: &[PathBuf],
    config_dirs: &[PathBuf],
    root: &Path,
    created_at: &str,
    progress: &Progress,
    format: Option<u8>,
) -> Result<Summary, Failure> {
    run_as(roots, config_dirs, root, created_at, progress, format).map_err(super::cannot_proceed)
}

fn run_as(
    roots: &[PathBuf],
    config_dirs: &[PathBuf],
    root: &Path,
    created_at: &str,
    progress: &Progress,
    format: Option<u8>,
) -> Result<Summary, Failure> {
    let files = estate::discover(roots)?;
    config_files::check_archive_root(config_dirs, root)?;
    if root.exists() && !root.is_dir() {
        return Err(Failure::at(Code::Archive, root, "not a folder"));
    }
    durable::make_dirs(root)?;
    let _lock = lock_root(root)?;
    durable::sweep_temps(root);
    // Refuse a folder that is not an archive before writing anything into it.
    read::check_root(root)?;
    let (found, mut idx) = index::load_with_format(root);
    let format = found.or_else(|| read::root_format(root)).or(format).unwrap_or(2);
    let mut summary = Summary::default();
    let real_roots: Vec<(PathBuf, PathBuf)> =
        roots.iter().filter_map(|r| fs::canonicalize(r).ok().map(|real| (r.clone(), real))).collect();
    let mut files = files;
    files.retain(|f| {
        let Some((root, real)) = real_roots.iter().find(|(r, _)| f.path.starts_with(r)) else { return true };
        match durable::outside_root(&f.path, root, real) {
            None => true,
            Some(why) => {
                summary.skipped.push(Failure::at(Code::Archive, &f.path, why));
                false
            }
        }
    });
    // the files each session keeps beside its transcript go with it (the cleanup deletes them too)
    let mut beside = Vec::new();
    for found in session_files::discover(&files) {
        match found {
            Ok(f) => beside.push(f),
            Err((path, e)) => summary.failures.push(Failure::at(Code::Io, &path, e)),
        }
    }
    for found in config_dirs.iter().flat_map(|d| config_files::discover(d)) {
        match found {
            Ok(f) => {
                summary.config_files += 1;
                beside.push(f);
            }
            Err(f) => summary.failures.push(f),
        }
    }
    summary.files = (files.len() + beside.len()) as u64;
    let mut seen: HashMap<Key, &Path> = HashMap::new();
    let mut work = Vec::new();
    for f in &files {
        let key = match key_of(f) {
            Ok(k) => k,
            Err(e) => {
                summary.failures.push(Failure::at(Code::Archive, &f.path, e));
                continue;
            }
        };
        if let Some(other) = seen.insert(key.clone(), &f.path) {
            let msg = format!(
                "same project and file as {} (archived once; archive the other root separately)",
                other.display()
            );
            summary.failures.push(Failure::at(Code::Archive, &f.path, msg));
            continue;
        }
        let prior = idx.get(&key).cloned();
        let w = Work { file: f, key, prior };
        // A file the walk found that is no transcript at all (a text file, an image named
        // `.jsonl`) is left out and named; only files about to be stored are read for this.
        if looks_changed(&w) {
            if let Ok(Some(why)) = estate::not_jsonl(&f.path) {
                summary.not_transcripts.push(Failure::at(Code::Archive, &f.path, why));
                continue;
            }
        }
        work.push(w);
    }
    for (f, key) in &beside {
        if let Err(r) = super::destination::check_key(key) {
            summary.failures.push(Failure::at(Code::Archive, &f.path, r.of_source()));
            continue;
        }
        // two roots holding the same file (CLAUDE_CONFIG_DIR naming several config folders)
        if let Some(other) = seen.insert(key.clone(), &f.path) {
            let what = if key.is_config() { "config file" } else { "project and file" };
            let msg = format!("same {what} as {} (archived once; archive the other root separately)", other.display());
            summary.failures.push(Failure::at(Code::Archive, &f.path, msg));
            continue;
        }
        let prior = idx.get(key).cloned();
        work.push(Work { file: f, key: key.clone(), prior });
    }
    summary.files -= summary.not_transcripts.len() as u64;
    summary.format = format;
    progress.files_total.fetch_add(work.len() as u64, Ordering::Relaxed);
    // the bar's total up front: every file whose size or mtime (as the walk saw them) changed
    progress
        .bytes_total
        .fetch_add(work.iter().filter(|w| looks_changed(w)).map(|w| w.file.size).sum(), Ordering::Relaxed);
    if format == 2 {
        super::write_stream::run(root, &work, created_at, progress, &mut idx, &mut summary)?;
        return Ok(summary);
    }
    let results: Vec<Result<Outcome, Failure>> = work
        .par_iter()
        .map(|w| {
            let r = archive_file(root, w, created_at, progress);
            progress.files_done.fetch_add(1, Ordering::Relaxed);
            r
        })
        .collect();
    // Everything written is made durable at once, then new generations are linked into place
    // (never before their bytes are on disk), then the links are made durable.
    let mut files: Vec<PathBuf> = Vec::new();
    let mut dirs: Vec<PathBuf> = Vec::new();
    for (w, r) in work.iter().zip(&results) {
        match r {
            Ok(Outcome::Added(.., p)) | Ok(Outcome::Generation(.., p)) => {
                files.push(p.tmp.clone());
                // the session folder, its project folder and the root may all be new
                dirs.extend(p.target.ancestors().skip(1).take(3).map(Path::to_path_buf));
            }
            Ok(Outcome::Appended(e, ..)) | Ok(Outcome::Touched(e, 1..)) => files.push(w.key.store_path(root, e.gen)),
            _ => {}
        }
    }
    let synced = if files.is_empty() { Ok(()) } else { durable::sync_all(root, &as_paths(&files), &[]) };
    let mut changed = false;
    for (w, r) in work.iter().zip(results) {
        let r = r.and_then(|o| match o {
            Outcome::Added(e, i, s, p) => publish(&synced, &p).map(|_| Outcome::Added(e, i, s, p)),
            Outcome::Generation(e, i, s, p) => publish(&synced, &p).map(|_| Outcome::Generation(e, i, s, p)),
            Outcome::Appended(e, i, s) => synced.clone().map(|_| Outcome::Appended(e, i, s)),
            Outcome::Touched(e, s) if s > 0 => synced.clone().map(|_| Outcome::Touched(e, s)),
            o => Ok(o),
        });
        let (entry, bytes) = match r {
            Ok(Outcome::Unchanged) => {
                summary.unchanged += 1;
                continue;
            }
            Ok(Outcome::Touched(e, s)) => {
                summary.touched += 1;
                (e, (0, s))
            }
            Ok(Outcome::Appended(e, i, s)) => {
                summary.appended += 1;
                (e, (i, s))
            }
            Ok(Outcome::Added(e, i, s, _)) => {
                summary.added += 1;
                (e, (i, s))
            }
            Ok(Outcome::Generation(e, i, s, _)) => {
                summary.generations += 1;
                (e, (i, s))
            }
            // these lines already name the file they concern (the transcript or its store file)
            Err(e) => {
                summary.failures.push(Failure::about(Code::Archive, &w.file.path, e.message));
                continue;
            }
        };
        changed = true;
        summary.bytes_in += bytes.0;
        summary.bytes_stored += bytes.1;
        idx.insert(w.key.clone(), entry);
    }
    if !dirs.is_empty() {
        durable::sync_all(root, &[], &as_paths(&dirs))?;
    }
    if changed || !root.join(INDEX).exists() {
        durable::replace(&root.join(INDEX), &index::render(&idx))?;
    }
    summary.archived_files = idx.len() as u64;
    summary.archived_config_files = idx.keys().filter(|k| k.is_config()).count() as u64;
    summary.archived_bytes = idx.values().map(|e| e.size).sum();
    summary.store_bytes = store_bytes(root, &idx);
    Ok(summary)
}

fn as_paths(v: &[PathBuf]) -> Vec<&Path> {
    v.iter().map(PathBuf::as_path).collect()
}

/// Store bytes of every generation the index knows (older generations included).
fn store_bytes(root: &Path, idx: &Index) -> u64 {
    idx.iter()
        .map(|(k, e)| {
            e.store_len
                + (0..e.gen).filter_map(|g| fs::metadata(k.store_path(root, g)).ok()).map(|m| m.len()).sum::<u64>()
        })
        .sum()
}

/// What the store holds for a key: its latest generation and the committed bytes' state.
struct Held {
    gen: u32,
    size: u64,
    sha256: String,
    store_len: u64,
    /// The source's mtime the last mark records.
    mtime_ns: i128,
    /// Events stored (the next event's seq).
    events: u64,
    /// Decoded bytes beyond the last mark (an unfinished run): the next append cuts them.
    needs_cut: bool,
}

fn latest_gen(root: &Path, key: &Key, from: u32) -> Option<u32> {
    let mut g = from;
    if !key.store_path(root, g).exists() {
        if g == 0 {
            return None;
        }
        // the index is ahead of the store (should not happen): search from the start
        g = 0;
        if !key.store_path(root, 0).exists() {
            return None;
        }
    }
    while key.store_path(root, g + 1).exists() {
        g += 1;
    }
    Some(g)
}

/// The held state from the index when the store file is as the index left it, else rebuilt by
/// reading the store file (after repairing a torn tail: the caller holds its lock).
fn held(root: &Path, w: &Work, lock: &mut Option<File>) -> Result<Option<Held>, Failure> {
    let Some(gen) = latest_gen(root, &w.key, w.prior.as_ref().map_or(0, |e| e.gen)) else { return Ok(None) };
    let path = w.key.store_path(root, gen);
    *lock = Some(lock_store(&path)?);
    let len = fs::metadata(&path).map_err(|e| Failure::io(&path, &e))?.len();
    if let Some(e) = &w.prior {
        if e.gen == gen && e.store_len == len {
            return Ok(Some(Held {
                gen,
                size: e.size,
                sha256: e.sha256.clone(),
                store_len: len,
                mtime_ns: e.mtime_ns,
                events: e.events,
                needs_cut: false,
            }));
        }
    }
    // the header must be this transcript's before a torn tail is repaired
    if read::placed_header(root, &mut crate::scan::Parser::default(), &path)? != (w.key.clone(), gen) {
        return Err(Failure::at(Code::Archive, &path, "header places this transcript elsewhere in the archive"));
    }
    store::load(&path, Encoding::Zstd, true)?;
    let mut count = read::Count::default();
    let d = read::decode(&path, &mut count, true)?;
    let m = d.mark.expect("decode returns a mark");
    let len = fs::metadata(&path).map_err(|e| Failure::io(&path, &e))?.len();
    Ok(Some(Held {
        gen,
        size: m.size,
        sha256: m.sha256,
        store_len: len,
        mtime_ns: m.mtime_ns,
        events: d.events,
        needs_cut: d.len != m.size,
    }))
}

fn archive_file(root: &Path, w: &Work, created_at: &str, progress: &Progress) -> Result<Outcome, Failure> {
    let src = &w.file.path;
    let Some(Opened { file: f, size, mtime_ns, dev, ino }) = open_source(w, progress, false)? else {
        return Ok(Outcome::Unchanged);
    };
    let entry = |gen: u32, sha256: String, store_len: u64, events: u64| Entry {
        gen,
        source: src.clone(),
        size,
        sha256,
        mtime_ns,
        dev,
        ino,
        store_len,
        events,
    };
    let mut lock = None;
    let mut source = Source::open(&f, src, size)?;
    let Some(h) = held(root, w, &mut lock)? else {
        let (sha, len, events, p) =
            write_generation(root, &w.key, 0, &mut source, size, mtime_ns, created_at, progress)?;
        return Ok(Outcome::Added(entry(0, sha, len, events), size, len, p));
    };
    // Is the stored content still the file's prefix?
    let mut hasher = Sha256::new();
    let same_prefix = size >= h.size && {
        hash_range(&mut source, 0, h.size, &mut hasher, progress)?;
        source.finish()?;
        crate::hash::hex(&hasher.clone().finalize()) == h.sha256
    };
    if !same_prefix {
        drop(lock);
        progress.bytes_total.fetch_add(h.size.min(size), Ordering::Relaxed); // the prefix was hashed too
        let gen = h.gen + 1;
        let (sha, len, events, p) =
            write_generation(root, &w.key, gen, &mut source, size, mtime_ns, created_at, progress)?;
        return Ok(Outcome::Generation(entry(gen, sha, len, events), size, len, p));
    }
    let touched = size == h.size && !h.needs_cut;
    if touched && h.mtime_ns == mtime_ns {
        return Ok(Outcome::Touched(entry(h.gen, h.sha256, h.store_len, h.events), 0));
    }
    // from here on something is appended: new bytes, or only a mark recording the new mtime
    // (restore gives back the latest mtime; readers take the last mark)
    let path = w.key.store_path(root, h.gen);
    let store = lock.as_ref().expect("held() locks the store file");
    let mut sink = Append { file: store, path: &path, start: h.store_len, at: h.store_len };
    let r = (|| {
        // every frame's checksum is checked before anything is appended to a file: appending
        // after damage would bury it
        let d = read::decode(&path, &mut read::Count::default(), false)?;
        if d.events != h.events || d.mark.as_ref().map(|m| m.size) != Some(h.size) {
            return Err(Failure::at(
                Code::Archive,
                &path,
                "corrupt archive: the store file disagrees with the archive index",
            ));
        }
        let mut seq = h.events;
        if h.needs_cut {
            sink.put(&store::encode_batch_with(&events::cut_event(seq, h.size), Encoding::Zstd, ARCHIVE)?)?;
            seq += 1;
        }
        encode_range(&mut source, h.size, size, seq, hasher, mtime_ns, &mut sink, progress)
    })();
    match r {
        Ok((sha, events)) if touched => Ok(Outcome::Touched(entry(h.gen, sha, sink.at, events), sink.at - sink.start)),
        Ok((sha, events)) => {
            Ok(Outcome::Appended(entry(h.gen, sha, sink.at, events), size - h.size, sink.at - sink.start))
        }
        Err(e) => {
            // back to the committed length: nothing half-written stays
            let _ = store.set_len(sink.start);
            Err(e)
        }
    }
}

pub(super) trait FrameSink {
    fn put(&mut self, frame: &[u8]) -> Result<(), Failure>;
}

struct Append<'a> {
    file: &'a File,
    path: &'a Path,
    start: u64,
    at: u64,
}

impl FrameSink for Append<'_> {
    fn put(&mut self, frame: &[u8]) -> Result<(), Failure> {
        write_at(self.file, frame, self.at).map_err(|e| Failure::io(self.path, &e))?;
        self.at += frame.len() as u64;
        Ok(())
    }
}

struct NewFile<'a> {
    file: &'a mut File,
    path: &'a Path,
    len: u64,
}

impl FrameSink for NewFile<'_> {
    fn put(&mut self, frame: &[u8]) -> Result<(), Failure> {
        self.file.write_all(frame).map_err(|e| Failure::io(self.path, &e))?;
        self.len += frame.len() as u64;
        Ok(())
    }
}

fn hash_range(source: &mut Source, from: u64, to: u64, h: &mut Sha256, progress: &Progress) -> Result<(), Failure> {
    let mut at = from;
    while at < to {
        let end = (at + WINDOW as u64).min(to);
        h.update(source.range(at, end)?);
        progress.bytes_done.fetch_add(end - at, Ordering::Relaxed);
        at = end;
    }
    Ok(())
}

/// The end of the window that starts at `at`: after its last newline, unless the window ends
/// the range (a line longer than a window grows it).
fn window_end(source: &mut Source, at: u64, to: u64) -> Result<u64, Failure> {
    let mut end = (at + WINDOW as u64).min(to);
    let mut searched = at;
    while end < to {
        let w = source.range(at, end)?;
        if let Some(i) = memchr::memrchr(b'\n', &w[(searched - at) as usize..]) {
            return Ok(searched + i as u64 + 1);
        }
        searched = end;
        end = (end + WINDOW as u64).min(to);
    }
    Ok(end)
}

thread_local! {
    /// Each worker's JSON check and event text buffer, reused across chunks (a fresh 4 MB
    /// buffer per chunk costs its page faults every time).
    static SCRATCH: RefCell<(JsonText, Vec<u8>)> = RefCell::new((JsonText::default(), Vec::new()));
}

/// Encodes bytes `[from, to)` of the source as event frames into `sink`, then the mark frame;
/// `hasher` holds the hash of `[0, from)`. Returns the SHA-256 of `[0, to)` and the seq after
/// the mark.
#[allow(clippy::too_many_arguments)]
pub(super) fn encode_range(
    source: &mut Source,
    from: u64,
    to: u64,
    mut seq: u64,
    mut hasher: Sha256,
    mtime_ns: i128,
    sink: &mut dyn FrameSink,
    progress: &Progress,
) -> Result<(String, u64), Failure> {
    let mut at = from;
    while at < to {
        let end = window_end(source, at, to)?;
        let buf = source.range(at, end)?;
        let chunks = cut_chunks(buf);
        // each chunk's first seq, counted ahead so chunks encode in parallel; the last chunk's
        // events are not counted (its encoding returns the seq after it), so a file of one chunk,
        // most files, is never counted at all
        let mut seqs = Vec::with_capacity(chunks.len());
        let mut next = seq;
        for c in &chunks {
            seqs.push(next);
            if seqs.len() < chunks.len() {
                let c = &buf[c.0..c.1];
                next += memchr::memchr_iter(b'\n', c).count() as u64 + u64::from(c.last() != Some(&b'\n'));
            }
        }
        let (_, frames) = rayon::join(
            || hasher.update(buf),
            || {
                chunks
                    .par_iter()
                    .zip(&seqs)
                    .map(|(c, &s)| {
                        let framed = SCRATCH.with(|cell| {
                            let (json, text) = &mut *cell.borrow_mut();
                            text.clear();
                            let after = events::encode(json, &buf[c.0..c.1], s, text);
                            store::encode_batch_with(text, Encoding::Zstd, ARCHIVE).map(|f| (f, after))
                        });
                        progress.bytes_done.fetch_add((c.1 - c.0) as u64, Ordering::Relaxed);
                        framed
                    })
                    .collect::<Vec<_>>()
            },
        );
        for (k, framed) in frames.into_iter().enumerate() {
            let (frame, after) = framed?;
            debug_assert!(k + 1 == seqs.len() || seqs[k + 1] == after, "chunk {k}: counted seqs disagree");
            sink.put(&frame)?;
            seq = after;
        }
        at = end;
    }
    // nothing read from a mapping the file was truncated under is committed
    source.finish()?;
    let sha = crate::hash::hex(&hasher.finalize());
    let mark = Mark { size: to, sha256: sha.clone(), mtime_ns };
    sink.put(&store::encode_batch_with(&events::mark_event(seq, &mark), Encoding::Zstd, ARCHIVE)?)?;
    Ok((sha, seq + 1))
}

/// `[start, end)` pieces of about CHUNK bytes, each ending after a newline where there is one.
pub fn cut_chunks(buf: &[u8]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut at = 0;
    while at < buf.len() {
        let mut end = (at + CHUNK).min(buf.len());
        if end < buf.len() {
            end = match memchr::memrchr(b'\n', &buf[at..end]) {
                Some(i) => at + i + 1,
                None => memchr::memchr(b'\n', &buf[end..]).map_or(buf.len(), |i| end + i + 1),
            };
        }
        out.push((at, end));
        at = end;
    }
    out
}

/// Writes the whole source as generation `gen` to a temp file in its session folder; the run
/// links it into place once it is durable. Returns (sha256, store length, events, the pending
/// link).
#[allow(clippy::too_many_arguments)]
fn write_generation(
    root: &Path,
    key: &Key,
    gen: u32,
    source: &mut Source,
    size: u64,
    mtime_ns: i128,
    created_at: &str,
    progress: &Progress,
) -> Result<(String, u64, u64, Pending), Failure> {
    let target = key.store_path(root, gen);
    if target.exists() {
        return Err(Failure::at(Code::Archive, &target, "already exists (not overwritten)"));
    }
    let dir = target.parent().expect("a session folder");
    durable::make_dirs_with(dir, false)?;
    durable::sweep_temps(dir);
    let (tmp, mut file) = durable::temp_beside(&target)?;
    let r = (|| {
        let mut sink = NewFile { file: &mut file, path: &tmp, len: 0 };
        sink.put(&store::encode_batch_with(&layout::header_line(key, gen, created_at), Encoding::Zstd, ARCHIVE)?)?;
        let (sha, events) = encode_range(source, 0, size, 0, Sha256::new(), mtime_ns, &mut sink, progress)?;
        Ok((sha, sink.len, events))
    })();
    match r {
        Ok((sha, len, events)) => Ok((sha, len, events, Pending { tmp, target })),
        Err(e) => {
            let _ = fs::remove_file(&tmp);
            Err(e)
        }
    }
}
