//! Reading an archive: its generations from the layout and header frames, and a generation's
//! transcript bytes decoded (frames in parallel), checked against the SHA-256 of every mark.

use super::destination::{Destination, Targets};
pub use super::events::Mark;
use super::events::{self, Event};
use super::index;
use super::layout::{self, Key, INDEX, TRANSCRIPT};
use super::stream::{self, Unit, STREAM_SUFFIX};
use crate::durable;
use crate::scan::{tape, Parser};
use crate::store;
use rayon::prelude::*;
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::fs;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

#[derive(Clone, Debug)]
pub struct Stored {
    pub key: Key,
    pub gen: u32,
    pub path: PathBuf,
    /// How many generations the key has (this one is the latest when listed by `latest`).
    pub generations: u32,
    pub store_len: u64,
    /// The bytes of this generation the store holds, when the listing knows (format 2).
    pub size: Option<u64>,
    /// A format-2 file as of an earlier run: only the stream's first `segments` segments are
    /// read (None: all of them, the latest state).
    pub segments: Option<u32>,
}

/// A store file (or something in its place) that cannot be read: its path and why. The rest of
/// the archive still reads.
#[derive(Clone, Debug)]
pub struct Damaged {
    pub path: PathBuf,
    /// The project and session (or lone file) its name places it at, when the name says.
    pub project: Option<String>,
    pub session: Option<String>,
    pub error: String,
}

/// A file the archive index records that the store files do not hold (or hold only an earlier
/// state of): a stream lost or cut back.
#[derive(Clone, Debug)]
pub struct Lacking {
    pub key: Key,
    /// What the store holds of it instead (None: nothing).
    pub holds: Option<(u32, Option<u64>)>,
    pub error: String,
}

/// Everything an archive holds: the readable files, the store files that are damaged, and what
/// the index has that the store files lack.
#[derive(Clone, Debug, Default)]
pub struct Listing {
    pub stored: Vec<Stored>,
    pub damaged: Vec<Damaged>,
    pub lacking: Vec<Lacking>,
}

/// How a damaged stream an archive run set aside is named: `<stream file>.damaged-<N>`, kept
/// byte for byte beside the stream stored again; readers skip it.
pub const DAMAGED_SUFFIX: &str = ".damaged-";

fn is_set_aside(p: &Path) -> bool {
    let name = p.file_name().unwrap_or_default().to_string_lossy();
    name.split_once(DAMAGED_SUFFIX).is_some_and(|(stem, n)| {
        stem.ends_with(STREAM_SUFFIX) && !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit())
    })
}

fn project_dir_name(name: &str) -> bool {
    name == "_no-cwd" || (name.len() >= 4 && name.starts_with("--") && name.ends_with("--"))
}

/// True when `dir` is an archive root: it holds the archive index, or its first project
/// folder's first session holds an archive header.
pub fn is_archive(dir: &Path) -> bool {
    if !dir.is_dir() {
        return false;
    }
    if dir.join(INDEX).is_file() {
        return true;
    }
    let first = |d: &Path, stream_file: bool| -> Option<PathBuf> {
        let mut names: Vec<PathBuf> = fs::read_dir(d).ok()?.flatten().map(|e| e.path()).collect();
        names.sort();
        names.into_iter().find(|p| p.is_dir() || (stream_file && is_stream_file(p)))
    };
    let Some(project) = first(dir, false) else { return false };
    if !project_dir_name(&project.file_name().unwrap_or_default().to_string_lossy()) {
        return false;
    }
    let Some(session) = first(&project, true) else { return false };
    if is_stream_file(&session) {
        return stream::read_segments(&session).is_ok_and(|(s, _)| !s.is_empty());
    }
    store::read_header(&session.join(TRANSCRIPT), store::Encoding::Zstd)
        .ok()
        .and_then(|h| layout::parse_header(&mut Parser::default(), &h))
        .is_some()
}

/// The project folders of an archive root; anything else in it (but the index) is an error
/// naming it.
pub fn check_root(root: &Path) -> Result<Vec<PathBuf>, String> {
    let mut projects = Vec::new();
    for e in fs::read_dir(root).map_err(|e| durable::msg(root, &e))? {
        let e = e.map_err(|e| durable::msg(root, &e))?;
        let name = e.file_name().to_string_lossy().into_owned();
        let p = e.path();
        if name.starts_with(INDEX) {
            continue;
        }
        if !p.is_dir() || !project_dir_name(&name) {
            return Err(format!(
                "{}: not part of an archive (a foreign file or folder in the store root)",
                p.display()
            ));
        }
        projects.push(p);
    }
    Ok(projects)
}

/// Every generation in the archive, checked against the layout; anything else in the root is
/// an error naming it, and so is the first damaged store file (`list_all` reads past them).
pub fn list(root: &Path) -> Result<Vec<Stored>, String> {
    let all = list_all(root)?;
    match all.damaged.into_iter().next() {
        Some(d) => Err(d.error),
        None => Ok(all.stored),
    }
}

/// Every generation in the archive, with each store file that cannot be read named apart (a
/// damaged stream does not hide the others), and what the index records that no store file
/// holds. Err only when the root itself is not an archive. Directories are read on every core
/// (a restore lists thousands).
pub fn list_all(root: &Path) -> Result<Listing, String> {
    let mut projects = check_root(root)?;
    projects.sort();
    let mut sessions = Vec::new();
    for pdir in projects {
        let mut in_project: Vec<PathBuf> =
            fs::read_dir(&pdir).map_err(|e| durable::msg(&pdir, &e))?.flatten().map(|e| e.path()).collect();
        in_project.sort();
        sessions.extend(in_project.into_iter().filter(|p| !is_set_aside(p)));
    }
    let found: Vec<Result<Vec<Stored>, String>> =
        sessions.par_iter().map_init(Parser::default, |parser, sdir| stored(root, parser, sdir)).collect();
    let mut out = Listing::default();
    for (sdir, f) in sessions.iter().zip(found) {
        match f {
            Ok(s) => out.stored.extend(s),
            Err(error) => out.damaged.push(damaged_at(sdir, error)),
        }
    }
    out.lacking = lacking(root, &out);
    Ok(out)
}

/// A damaged store file with the project and session its name gives.
fn damaged_at(path: &Path, error: String) -> Damaged {
    let project = path
        .parent()
        .and_then(|p| p.file_name())
        .map(|n| n.to_string_lossy().into_owned())
        .and_then(|n| n.strip_prefix("--").and_then(|n| n.strip_suffix("--")).map(str::to_string));
    let name = path.file_name().unwrap_or_default().to_string_lossy().into_owned();
    let id = layout::unescape_id(name.strip_suffix(STREAM_SUFFIX).unwrap_or(&name));
    // `<session>-s2-<hash>` (format 2) or `<stem>-g<N>-<hash>` (format 1)
    let session = id.and_then(|id| {
        let (stem, _) = id.rsplit_once('-')?;
        let (stem, tag) = stem.rsplit_once('-')?;
        match tag {
            "s2" | "f2" => Some(stem.to_string()),
            t if t.starts_with('g') => Some(stem.to_string()),
            _ => None,
        }
    });
    Damaged { path: path.to_path_buf(), project, session, error }
}

/// What the index records that the readable store files do not hold: a file in no store file
/// (its stream lost), or held at an earlier generation or length than the index's (the
/// stream cut back to an earlier run). Files of a damaged store file are not repeated here.
fn lacking(root: &Path, listing: &Listing) -> Vec<Lacking> {
    let (format, idx) = index::load_with_format(root);
    if idx.is_empty() {
        return Vec::new();
    }
    let mut have: BTreeMap<&Key, &Stored> = BTreeMap::new();
    for s in &listing.stored {
        match have.get(&s.key) {
            Some(h) if h.gen >= s.gen => {}
            _ => {
                have.insert(&s.key, s);
            }
        }
    }
    let damaged: std::collections::HashSet<&Path> = listing.damaged.iter().map(|d| d.path.as_path()).collect();
    let mut out = Vec::new();
    for (key, e) in &idx {
        let recorded = format!("generation {}, {} bytes", e.gen + 1, e.size);
        match have.get(key) {
            Some(s) => {
                let behind = s.gen < e.gen || (s.gen == e.gen && s.size.is_some_and(|n| n < e.size));
                if behind {
                    let holds = match s.size {
                        Some(n) => format!("generation {}, {n} bytes", s.gen + 1),
                        None => format!("generation {}", s.gen + 1),
                    };
                    out.push(Lacking {
                        key: key.clone(),
                        holds: Some((s.gen, s.size)),
                        error: format!(
                            "{}: {}: the archive index records {recorded} but the store file holds only {holds} (a later run's data is missing; restored as it holds it)",
                            s.path.display(),
                            key.text()
                        ),
                    });
                }
            }
            None => {
                let stream = Unit::of(key).path(root);
                let in_damaged = damaged.contains(stream.as_path())
                    || (0..=e.gen).any(|g| key.store_path(root, g).parent().is_some_and(|d| damaged.contains(d)));
                if in_damaged {
                    continue;
                }
                let place = match format {
                    Some(1) => key.store_path(root, e.gen).display().to_string(),
                    _ => stream.display().to_string(),
                };
                out.push(Lacking {
                    key: key.clone(),
                    holds: None,
                    error: format!(
                        "{place}: {}: the archive index records {recorded} but no store file holds it (its stream is missing; `claude-jsonl archive` stores it again while its source is in the estate)",
                        key.text()
                    ),
                });
            }
        }
    }
    out
}

/// The format an archive root is written in, from its store files (None: it holds none).
pub fn root_format(root: &Path) -> Option<u8> {
    for pdir in check_root(root).unwrap_or_default() {
        for s in fs::read_dir(&pdir).into_iter().flatten().flatten() {
            if is_stream_file(&s.path()) {
                return Some(2);
            }
            if s.path().join(TRANSCRIPT).exists() {
                return Some(1);
            }
        }
    }
    None
}

/// A format-2 stream file's name: an escaped stream id and the suffix.
fn is_stream_file(p: &Path) -> bool {
    let name = p.file_name().unwrap_or_default().to_string_lossy();
    name.strip_suffix(STREAM_SUFFIX).is_some_and(|id| layout::unescape_id(id).is_some()) && p.is_file()
}

/// A temp file a writer is filling (or a killed one left): not part of the archive.
fn is_temp(p: &Path) -> bool {
    let name = p.file_name().unwrap_or_default().to_string_lossy();
    name.starts_with('.') && name.contains(".tmp-")
}

/// What a session folder holds: one generation (format 1), every file of a stream (format 2),
/// or nothing (its first publish never happened).
fn stored(root: &Path, parser: &mut Parser, sdir: &Path) -> Result<Vec<Stored>, String> {
    // a link in a store file's place is never followed (it may lead anywhere)
    if fs::symlink_metadata(sdir).is_ok_and(|m| m.file_type().is_symlink()) {
        return Err(format!(
            "{}: corrupt archive: a symbolic link where the archive keeps a store file (not followed)",
            sdir.display()
        ));
    }
    if is_stream_file(sdir) {
        let len = fs::metadata(sdir).map_err(|e| durable::msg(sdir, &e))?.len();
        return stream_files(root, sdir, len);
    }
    if is_temp(sdir) && sdir.is_file() {
        return Ok(Vec::new()); // a stream being written, not yet linked into place
    }
    let name = sdir.file_name().unwrap_or_default().to_string_lossy().into_owned();
    if !sdir.is_dir() || layout::unescape_id(&name).is_none() {
        return Err(format!("{}: not a session folder this archive writes", sdir.display()));
    }
    let path = sdir.join(TRANSCRIPT);
    let Ok(meta) = fs::metadata(&path) else {
        return Ok(Vec::new()); // a first publish that never happened: nothing committed
    };
    let (key, gen) = placed_header(root, parser, &path)?;
    Ok(vec![Stored { key, gen, path, generations: 0, store_len: meta.len(), size: None, segments: None }])
}

/// The files of a format-2 stream, each at its latest generation, from the directories alone;
/// refused unless the stream's own record places it at `path`.
fn stream_files(root: &Path, path: &Path, len: u64) -> Result<Vec<Stored>, String> {
    let segs = super::history::placed_segments(root, path)?;
    let held = stream::held(&segs).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(held
        .into_iter()
        .map(|(key, h)| Stored {
            key,
            gen: h.gen,
            path: path.to_path_buf(),
            generations: h.gen + 1,
            store_len: len,
            size: Some(h.size),
            segments: None,
        })
        .collect())
}

/// The key and generation in a store file's header, refused unless they place it at `path`
/// (a file under another transcript's path is never read as, or repaired as, that one).
pub fn placed_header(root: &Path, parser: &mut Parser, path: &Path) -> Result<(Key, u32), String> {
    let header = store::read_header(path, store::Encoding::Zstd)?;
    let (key, gen) = layout::parse_header(parser, &header)
        .ok_or_else(|| format!("{}: not an archived transcript (its header is not an archive's)", path.display()))?;
    if key.store_path(root, gen) != path {
        return Err(format!("{}: header places this transcript elsewhere in the archive", path.display()));
    }
    Ok((key, gen))
}

impl Stored {
    /// Whether this file is held in a format-2 stream (shared with its session's other files).
    pub fn in_stream(&self) -> bool {
        self.path.file_name().is_some_and(|n| n.to_string_lossy().ends_with(STREAM_SUFFIX))
    }

    /// Where this transcript goes under `within`; a header that would place it elsewhere is
    /// refused naming this store file and the field.
    pub fn destination(&self, within: &Path) -> Result<Destination, String> {
        self.placed(&Targets { projects: within.to_path_buf(), config: None })
    }

    /// Where this file goes among a restore's targets (a config-folder file into the config
    /// folder), refused as `destination` refuses.
    pub fn placed(&self, targets: &Targets) -> Result<Destination, String> {
        super::destination::check_key(&self.key).map_err(|r| format!("{}: {r}", self.path.display()))?;
        targets.place(&self.key)
    }
}

/// The latest generation of every key, in key order.
pub fn latest(all: Vec<Stored>) -> Vec<Stored> {
    let mut by: BTreeMap<Key, Stored> = BTreeMap::new();
    let mut counts: BTreeMap<Key, u32> = BTreeMap::new();
    for s in all {
        *counts.entry(s.key.clone()).or_default() += 1;
        match by.get(&s.key) {
            Some(have) if have.gen >= s.gen => {}
            _ => {
                by.insert(s.key.clone(), s);
            }
        }
    }
    by.into_values()
        .map(|mut s| {
            // a stream lists each file once, with its generations already counted
            if !s.in_stream() {
                s.generations = counts[&s.key];
            }
            s
        })
        .collect()
}

/// Where decoded transcript bytes go (from whichever thread consumes the frames).
pub trait Sink: Send {
    fn put(&mut self, bytes: &[u8]) -> Result<(), String>;
    /// Drops everything after the first `len` bytes.
    fn cut(&mut self, len: u64) -> Result<(), String>;
}

/// Counts bytes only (recovery needs lengths, not contents).
#[derive(Default)]
pub struct Count(pub u64);

impl Sink for Count {
    fn put(&mut self, bytes: &[u8]) -> Result<(), String> {
        self.0 += bytes.len() as u64;
        Ok(())
    }
    fn cut(&mut self, len: u64) -> Result<(), String> {
        self.0 = len;
        Ok(())
    }
}

/// Writes to a file (a temp file the caller publishes). Each put is a whole frame's bytes, so
/// they go straight to the file without a buffer of their own.
pub struct FileSink<'a> {
    pub file: &'a mut fs::File,
    pub path: &'a Path,
}

impl Sink for FileSink<'_> {
    fn put(&mut self, bytes: &[u8]) -> Result<(), String> {
        self.file.write_all(bytes).map_err(|e| durable::msg(self.path, &e))
    }
    fn cut(&mut self, len: u64) -> Result<(), String> {
        let io = |e: std::io::Error| durable::msg(self.path, &e);
        self.file.set_len(len).map_err(io)?;
        self.file.seek(SeekFrom::Start(len)).map_err(io)?;
        Ok(())
    }
}

/// Buffers reused across the store files one restore or view refresh decodes: fresh memory
/// costs its page faults on every file (expensive on a VM), reused memory does not. Dropped
/// with the run, so nothing stays allocated afterwards.
#[derive(Default)]
pub struct Buffers(Mutex<Vec<Vec<u8>>>);

impl Buffers {
    pub(super) fn take(&self) -> Vec<u8> {
        let mut v = self.0.lock().map(|mut p| p.pop()).ok().flatten().unwrap_or_default();
        v.clear();
        v
    }
    pub(super) fn give(&self, v: Vec<u8>) {
        if let Ok(mut p) = self.0.lock() {
            p.push(v);
        }
    }
}

/// What a decode found.
#[derive(Clone, Debug, Default)]
pub struct Decoded {
    /// The last mark: the committed bytes' length, SHA-256 and the source's mtime.
    pub mark: Option<Mark>,
    /// Decoded bytes in all (more than the mark's size when a run did not finish).
    pub len: u64,
    /// The file ends inside a frame (a write cut short).
    pub torn_at: Option<u64>,
    pub events: u64,
}

/// A store file smaller than this is decoded frame after frame on the calling thread (restore
/// and the view already run one file per core); a larger one decodes its next frames on every
/// core while the current ones are hashed and written.
const PIPELINE_FROM: usize = 2 << 20;

/// Bytes hashed then written at a time: small enough to stay in the core's cache between the
/// two (a whole 8 MB frame does not), large enough for few write calls.
const PIECE: usize = 256 << 10;

/// One frame decoded: its transcript bytes compacted to the front of `buf` (a line event's data
/// moved down over its wrapping, in place), with the marks and cuts between them in order.
struct Frame {
    buf: Vec<u8>,
    first_seq: u64,
    events: u64,
    parts: Vec<Part>,
    /// The first line that is not the event expected there: its index in the frame and where
    /// it is in `buf` (compaction never reaches it), decoded again for the error message.
    fail: Option<(u64, usize, usize)>,
}

enum Step {
    Line(usize, usize),
    Done,
    Part(Part),
}

enum Part {
    Data(usize, usize),
    Mark(Mark),
    Cut(u64),
}

fn decode_frame(bufs: &Buffers, frame: &[u8], at: usize) -> Result<Frame, String> {
    let mut buf = bufs.take();
    if let Err(e) = store::decode_frame_into(frame, at, &mut buf) {
        bufs.give(buf);
        return Err(e);
    }
    let n = buf.len();
    let mut out = Frame { buf: Vec::new(), first_seq: 0, events: 0, parts: Vec::new(), fail: None };
    let (mut r, mut w, mut data_from) = (0usize, 0usize, 0usize);
    while r < n {
        let end = memchr::memchr(b'\n', &buf[r..n]).map_or(n, |k| r + k);
        if end == r {
            r = end + 1;
            continue;
        }
        if out.events == 0 {
            out.first_seq = events::seq_of(&buf[r..end]).unwrap_or(0);
        }
        let base = buf.as_ptr() as usize;
        // a line event's data is moved down after the borrow of `buf` ends
        let step = match events::decode(&buf[r..end], out.first_seq + out.events) {
            Ok(Event::Line(raw)) => Step::Line(raw.as_ptr() as usize - base, raw.len()),
            Ok(Event::Bytes(b)) => {
                // base64 is longer than its bytes: they fit where the line was
                buf[w..w + b.len()].copy_from_slice(&b);
                w += b.len();
                Step::Done
            }
            Ok(Event::Mark(m)) => Step::Part(Part::Mark(m)),
            Ok(Event::Cut(c)) => Step::Part(Part::Cut(c)),
            Err(_) => {
                out.fail = Some((out.events, r, end));
                break;
            }
        };
        match step {
            Step::Line(from, len) => {
                buf.copy_within(from..from + len, w);
                w += len;
                buf[w] = b'\n';
                w += 1;
            }
            Step::Done => {}
            Step::Part(part) => {
                if w > data_from {
                    out.parts.push(Part::Data(data_from, w));
                }
                data_from = w;
                out.parts.push(part);
            }
        }
        out.events += 1;
        r = end + 1;
    }
    if w > data_from {
        out.parts.push(Part::Data(data_from, w));
    }
    out.buf = buf;
    Ok(out)
}

/// The state of one decode while its frames are consumed in order.
struct Replay<'a> {
    name: String,
    sink: &'a mut dyn Sink,
    verify: bool,
    hasher: Sha256,
    at_mark: Sha256,
    out: Decoded,
}

impl Replay<'_> {
    fn consume(&mut self, frame: &Frame) -> Result<(), String> {
        let name = &self.name;
        let seq = self.out.events;
        let again = |i: u64, a: usize, b: usize| {
            let e = events::decode(&frame.buf[a..b], seq + i).err();
            format!("{name}: {}", e.unwrap_or_else(|| format!("corrupt archive: record {} is damaged", seq + i + 1)))
        };
        match frame.fail {
            Some((0, a, b)) => return Err(again(0, a, b)),
            _ if frame.events > 0 && frame.first_seq != seq => {
                return Err(format!("{name}: corrupt archive: record {} has seq {}", seq + 1, frame.first_seq));
            }
            _ => {}
        }
        for part in &frame.parts {
            match part {
                Part::Data(a, b) => {
                    // hashed and written a piece at a time, so the write copies from the cache
                    for piece in frame.buf[*a..*b].chunks(PIECE) {
                        if self.verify {
                            self.hasher.update(piece);
                        }
                        self.sink.put(piece)?;
                    }
                    self.out.len += (b - a) as u64;
                }
                Part::Mark(m) => {
                    if m.size != self.out.len {
                        return Err(format!(
                            "{name}: corrupt archive: a mark records {} bytes where {} were stored",
                            m.size, self.out.len
                        ));
                    }
                    if self.verify {
                        let got = crate::hash::hex(&self.hasher.clone().finalize());
                        if got != m.sha256 {
                            return Err(format!(
                                "{name}: corrupt archive: the first {} bytes do not match their recorded SHA-256",
                                m.size
                            ));
                        }
                        self.at_mark = self.hasher.clone();
                    }
                    self.out.mark = Some(m.clone());
                }
                Part::Cut(n) => {
                    if Some(*n) != self.out.mark.as_ref().map(|m| m.size) {
                        return Err(format!("{name}: corrupt archive: a cut to {n} bytes is not at the last mark"));
                    }
                    self.hasher = self.at_mark.clone();
                    self.sink.cut(*n)?;
                    self.out.len = *n;
                }
            }
        }
        if let Some((i, a, b)) = frame.fail {
            return Err(again(i, a, b));
        }
        self.out.events += frame.events;
        Ok(())
    }
}

/// Decodes one generation's file into `sink`, checking every mark's size and SHA-256 (each
/// mark's hash is of all bytes before it). Bytes after the last mark are written too; the
/// caller cuts them (`Decoded::mark`). Errors name the file.
pub fn decode(path: &Path, sink: &mut dyn Sink, verify: bool) -> Result<Decoded, String> {
    decode_with(&Buffers::default(), path, sink, verify)
}

/// `decode` with buffers reused from earlier files.
pub fn decode_with(bufs: &Buffers, path: &Path, sink: &mut dyn Sink, verify: bool) -> Result<Decoded, String> {
    let mut bytes = bufs.take();
    let r = fs::File::open(path)
        .and_then(|mut f| {
            let len = f.metadata()?.len();
            bytes.reserve(len as usize);
            f.read_to_end(&mut bytes)
        })
        .map_err(|e| durable::msg(path, &e))
        .and_then(|_| decode_bytes(bufs, path, &bytes, sink, verify, bytes.len() >= PIPELINE_FROM));
    bufs.give(bytes);
    r
}

/// Decodes a store file's bytes: frame after frame on this thread, or (`pipeline`) a batch of
/// frames on every core while the previous batch is consumed.
pub(super) fn decode_bytes(
    bufs: &Buffers,
    path: &Path,
    bytes: &[u8],
    sink: &mut dyn Sink,
    verify: bool,
    pipeline: bool,
) -> Result<Decoded, String> {
    let name = path.display().to_string();
    let (spans, torn) = store::frame_spans(bytes).map_err(|e| format!("{name}: {e}"))?;
    let mut replay = Replay {
        name,
        sink,
        verify,
        hasher: Sha256::new(),
        at_mark: Sha256::new(),
        out: Decoded { torn_at: torn.map(|t| t as u64), ..Decoded::default() },
    };
    let one = |&(at, len): &(usize, usize)| decode_frame(bufs, &bytes[at..at + len], at);
    let named = |r: Result<Frame, String>, name: &str| r.map_err(|e| format!("{name}: {e}"));
    let give = |frames: Vec<Result<Frame, String>>| frames.into_iter().flatten().for_each(|f| bufs.give(f.buf));
    if !pipeline {
        for span in &spans[1..] {
            let frame = named(one(span), &replay.name)?;
            let r = replay.consume(&frame);
            bufs.give(frame.buf);
            r?;
        }
    } else {
        // batches of one frame per core: the next batch decodes while this one is consumed
        let batches: Vec<&[(usize, usize)]> = spans[1..].chunks(rayon::current_num_threads().max(1)).collect();
        let decode_batch = |b: &[(usize, usize)]| b.par_iter().map(one).collect::<Vec<_>>();
        let mut ready = batches.first().map(|b| decode_batch(b)).unwrap_or_default();
        for k in 0..batches.len() {
            let (next, done) = rayon::join(
                || batches.get(k + 1).map(|b| decode_batch(b)).unwrap_or_default(),
                || -> Result<(), String> {
                    for f in std::mem::take(&mut ready) {
                        let frame = named(f, &replay.name)?;
                        let r = replay.consume(&frame);
                        bufs.give(frame.buf);
                        r?;
                    }
                    Ok(())
                },
            );
            if let Err(e) = done {
                give(next);
                return Err(e);
            }
            ready = next;
        }
    }
    if replay.out.mark.is_none() {
        return Err(format!("{}: corrupt archive: no run of this transcript completed (no mark)", replay.name));
    }
    Ok(replay.out)
}

/// Decodes one generation into a new file in its destination's folder (a temp file, created
/// once the folder is known to be inside the destination's target), cut to the last mark and
/// given `mtime_ns` when set; returns the temp file's path and the mark. With `durable`, the
/// file's writeback starts at once (the caller's sync then waits for less). The caller makes
/// it durable (or not: a cache) and publishes it.
pub fn decode_to_temp(
    bufs: &Buffers,
    store_path: &Path,
    dest: &Destination,
    keep_mtime: bool,
    durable: bool,
) -> Result<(PathBuf, Mark), String> {
    dest.prepare()?;
    let (tmp, mut file) = durable::temp_beside(&dest.path)?;
    let r = (|| {
        let d = decode_with(bufs, store_path, &mut FileSink { file: &mut file, path: &tmp }, true)?;
        let mark = d.mark.expect("decode returns a mark");
        let io = |e: std::io::Error| durable::msg(&tmp, &e);
        if d.len != mark.size {
            file.set_len(mark.size).map_err(io)?;
        }
        if keep_mtime {
            durable::set_mtime(&file, mark.mtime_ns).map_err(io)?;
        }
        if durable {
            durable::start_writeback(&file);
        }
        Ok(mark)
    })();
    match r {
        Ok(m) => Ok((tmp, m)),
        Err(e) => {
            let _ = fs::remove_file(&tmp);
            Err(e)
        }
    }
}

/// The session an old-layout subagent transcript (`<project>/agent-*.jsonl`) belongs to, decided
/// as the estate reader decides it: the `sessionId` of its first record that has one, among the
/// committed bytes (one found after a mark counts once a later mark covers it). Decodes frames
/// only until then.
pub fn owner(bufs: &Buffers, path: &Path) -> Result<Option<String>, String> {
    let name = path.display();
    let mut bytes = bufs.take();
    let r = (|| {
        fs::File::open(path).and_then(|mut f| f.read_to_end(&mut bytes)).map_err(|e| durable::msg(path, &e))?;
        let (spans, _) = store::frame_spans(&bytes).map_err(|e| format!("{name}: {e}"))?;
        let mut parser = Parser::default();
        let (mut len, mut found) = (0u64, None::<(u64, String)>);
        for &(at, n) in &spans[1..] {
            let frame = decode_frame(bufs, &bytes[at..at + n], at).map_err(|e| format!("{name}: {e}"))?;
            let mut done = None;
            for part in &frame.parts {
                match part {
                    Part::Data(a, b) => {
                        if found.is_none() {
                            found = first_session_id(&mut parser, &frame.buf[*a..*b], len);
                        }
                        len += (b - a) as u64;
                    }
                    Part::Mark(m) => match &found {
                        Some((o, sid)) if m.size > *o => {
                            done = Some(sid.clone());
                            break;
                        }
                        _ => {}
                    },
                    Part::Cut(c) => {
                        if found.as_ref().is_some_and(|(o, _)| o >= c) {
                            found = None;
                        }
                        len = *c;
                    }
                }
            }
            let fail = frame.fail.is_some();
            bufs.give(frame.buf);
            if done.is_some() {
                return Ok(done);
            }
            if fail {
                return Err(format!("{name}: corrupt archive: a record is not an archive event"));
            }
        }
        Ok(None)
    })();
    bufs.give(bytes);
    r
}

/// The first line of `data` (which starts at byte `offset` of the transcript) that is a JSON
/// object with a string `sessionId`: where it starts, and the id.
fn first_session_id(parser: &mut Parser, data: &[u8], offset: u64) -> Option<(u64, String)> {
    let mut at = 0;
    for line in data.split_inclusive(|&b| b == b'\n') {
        let start = at;
        at += line.len();
        let mut body = line.strip_suffix(b"\n").unwrap_or(line);
        body = body.strip_suffix(b"\r").unwrap_or(body);
        if offset + start as u64 == 0 {
            body = body.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(body);
        }
        if body.is_empty() || body[0] != b'{' || memchr::memmem::find(body, b"\"sessionId\"").is_none() {
            continue;
        }
        let sid = parser
            .parse_with(body, |t| tape::field(t, 0, "sessionId").and_then(|i| tape::as_str(t, i)).map(str::to_string))
            .and_then(|(v, _)| v);
        if let Some(sid) = sid {
            return Some((offset + start as u64, sid));
        }
    }
    None
}

/// Writes one wanted file of a stream to its temp file.
struct TempSink<'a> {
    file: &'a mut fs::File,
    path: &'a Path,
}

impl stream::MemberSink for TempSink<'_> {
    fn put(&mut self, bytes: &[u8]) -> Result<(), String> {
        self.file.write_all(bytes).map_err(|e| durable::msg(self.path, &e))
    }
}

/// A format-2 stream's bytes and its complete segments, as of an earlier run when `segments` is
/// set (only the segments written up to it). Errors name the stream.
pub(super) fn stream_as_of(path: &Path, segments: Option<u32>) -> Result<(Vec<u8>, Vec<stream::Segment>), String> {
    let bytes = fs::read(path).map_err(|e| durable::msg(path, &e))?;
    let (mut segs, _) = stream::segments_of(&bytes).map_err(|e| format!("{}: {e}", path.display()))?;
    if let Some(n) = segments {
        segs.truncate(n as usize);
    }
    Ok((bytes, segs))
}

/// Decodes the given files of one format-2 stream (each at its latest generation) into new
/// files in their destinations' folders, reading the stream once and decompressing only the
/// frames they need; as `decode_to_temp` otherwise. A stream that fails to decode fails every
/// file asked of it and leaves no temp file.
pub fn stream_to_temps(
    path: &Path,
    files: &[(&Stored, &Destination)],
    keep_mtime: bool,
    durable: bool,
) -> Vec<Result<(PathBuf, Mark), String>> {
    let all = |e: String| files.iter().map(|_| Err(e.clone())).collect();
    let name = path.display().to_string();
    let (bytes, segs) = match stream_as_of(path, files.first().and_then(|(s, _)| s.segments)) {
        Ok(r) => r,
        Err(e) => return all(e),
    };
    let mut out: Vec<Result<(PathBuf, Mark), String>> = Vec::with_capacity(files.len());
    let mut temps: Vec<(usize, PathBuf, fs::File)> = Vec::new();
    for (i, (_, dest)) in files.iter().enumerate() {
        match dest.prepare().and_then(|()| durable::temp_beside(&dest.path)) {
            Ok((tmp, f)) => {
                temps.push((i, tmp, f));
                out.push(Err(String::new()));
            }
            Err(e) => out.push(Err(e)),
        }
    }
    let wanted: Vec<&str> = temps.iter().map(|(i, ..)| files[*i].0.key.rel.as_str()).collect();
    let r = {
        let mut sinks: Vec<TempSink> = temps.iter_mut().map(|(_, p, f)| TempSink { file: f, path: p }).collect();
        let mut dyns: Vec<&mut dyn stream::MemberSink> =
            sinks.iter_mut().map(|s| s as &mut dyn stream::MemberSink).collect();
        stream::decode(&name, &bytes, &segs, &wanted, &mut dyns)
    };
    let decoded = match r {
        Ok(d) => d,
        Err(e) => {
            for (i, tmp, _) in temps {
                let _ = fs::remove_file(&tmp);
                out[i] = Err(e.clone());
            }
            return out;
        }
    };
    for ((i, tmp, file), d) in temps.into_iter().zip(decoded) {
        let io = |e: std::io::Error| durable::msg(&tmp, &e);
        let r = (|| {
            if keep_mtime {
                durable::set_mtime(&file, d.mtime_ns).map_err(io)?;
            }
            if durable {
                durable::start_writeback(&file);
            }
            Ok(Mark { size: d.size, sha256: d.sha256, mtime_ns: d.mtime_ns })
        })();
        out[i] = match r {
            Ok(m) => Ok((tmp, m)),
            Err(e) => {
                let _ = fs::remove_file(&tmp);
                Err(e)
            }
        };
    }
    out
}

/// The session a stored file belongs to by its records (`owner`), in either format.
pub fn owner_of(bufs: &Buffers, s: &Stored) -> Result<Option<String>, String> {
    if !s.in_stream() {
        return owner(bufs, &s.path);
    }
    let data = super::estate_scan::read_stored(s)?;
    Ok(first_session_id(&mut Parser::default(), &data, 0).map(|(_, sid)| sid))
}
