//! Reading an archive the way the estate readers read a projects folder, with no copy on disk:
//! each stream is read once, its frames decoded into memory one after another, and each
//! transcript's bytes scanned in chunks of whole lines as they arrive (a chunk's scan appended
//! to the file's, as the parallel scanner joins the chunks of one file). Memory is one stream's
//! stored bytes, one frame and one chunk per thread: bounded by the largest session, whatever
//! the archive's size. Every frame's checksum is checked as it is decoded (the SHA-256 of every
//! piece is `restore`'s check: it would cost the readers as much again as the decompression); a
//! stream that does not decode is an error for its files only.

use super::key::Key;
use super::read::{self, Stored};
use super::stream::{self, MemberSink};
use crate::estate::{self, classify_at, DiscoverError, EstateFile, EstateScan};
use crate::failure::{Code, Failure};
use crate::scan::{scan_bytes, scan_chunk, Mode, Parser, Progress, Scan};
use rayon::prelude::*;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::Ordering;

/// An archive root read as an estate: the archived files to read (the latest generation of
/// each, or the state of an earlier run), which the caller chose.
#[derive(Debug, Clone)]
pub struct ArchiveRoot {
    pub root: PathBuf,
    pub files: Vec<Stored>,
}

/// `estate::scan_estate` over the folders `paths` and the archives `archives` together: an
/// archived transcript is read from its stream in memory (nothing written) and listed at
/// `<archive>/<project>/<path in the project>`, the place it has in the archive's layout as a
/// projects folder (no file is there: a reader that needs its bytes again asks the archive,
/// `read_stored`). Only transcripts (`*.jsonl`, not config-folder files) are read. An archive
/// with a header that would place a file outside its layout is refused whole, naming it. The
/// [`estate::MainFacts`] asked for are of the folders' transcripts (an archived one has none).
pub fn scan_estate_and_archives(
    paths: &[PathBuf],
    archives: &[ArchiveRoot],
    mode: Mode,
    min_mtime_ms: Option<f64>,
    main_facts: Option<estate::MainFacts>,
    progress: &Progress,
) -> Result<EstateScan, DiscoverError> {
    let mut e = match paths.is_empty() {
        true => EstateScan::default(),
        false => estate::scan_estate_with(paths, mode, min_mtime_ms, main_facts, progress)?,
    };
    if archives.is_empty() {
        return Ok(e);
    }
    for a in archives {
        // a crafted header refuses the whole archive, as it does for the read view
        let kept: Vec<Stored> = a.files.iter().filter(|s| !s.key.is_config()).cloned().collect();
        super::restore::refuse_hostile_keys(&kept)
            .map_err(|f| DiscoverError { path: a.root.clone(), message: f.message })?;
        let which: Vec<Stored> = kept.into_iter().filter(|s| s.key.rel.ends_with(".jsonl")).collect();
        for (s, f) in which.iter().zip(scan_stored(&which, mode, min_mtime_ms, progress)) {
            let path = a.root.join(&s.key.project).join(&s.key.rel);
            e.files.push(classify_at(path, f.size, f.mtime_ms));
            e.scans.push(f.scan.map_err(|f| f.message));
            e.pruned.push(f.pruned);
            if main_facts.is_some() {
                e.main_facts.push(None);
            }
        }
    }
    let refs: Vec<Option<&Scan>> = e.scans.iter().map(|s| s.as_ref().ok()).collect();
    let (sessions, session_of_file) = estate::sessions(&e.files, &refs);
    e.sessions = sessions;
    e.session_of_file = session_of_file;
    Ok(e)
}

/// A chunk is scanned once this many decoded bytes wait (cut after their last newline).
const CHUNK_BYTES: usize = if cfg!(test) { 1000 } else { 4 << 20 };

/// One archived transcript as the estate scan sees it: its key, the recorded size and source
/// mtime of the state read, whether it was pruned (older than the cut-off: listed, not read),
/// and its scan or why it could not be read.
#[derive(Debug)]
pub struct ScannedFile {
    pub key: Key,
    pub size: u64,
    pub mtime_ms: f64,
    pub pruned: bool,
    pub scan: Result<Scan, Failure>,
}

/// Scans the files `which` lists (each stream read once for all of its files, the streams in
/// parallel, largest first). A file whose recorded mtime is before `min_mtime_ms` is listed but
/// not decoded. One result per file, in order.
pub fn scan_stored(which: &[Stored], mode: Mode, min_mtime_ms: Option<f64>, progress: &Progress) -> Vec<ScannedFile> {
    progress.files_total.fetch_add(which.len() as u64, Ordering::Relaxed);
    let groups = super::restore::by_store_file(which);
    progress.bytes_total.fetch_add(groups.iter().map(|g| which[g[0]].store_len).sum(), Ordering::Relaxed);
    let bufs = read::Buffers::default();
    let done: Vec<Vec<ScannedFile>> = groups
        .par_iter()
        .with_max_len(1)
        .map(|g| {
            let files: Vec<&Stored> = g.iter().map(|&i| &which[i]).collect();
            let r = match files[0].in_stream() {
                true => scan_stream(&bufs, &files, mode, min_mtime_ms),
                false => files.iter().map(|s| scan_store_file(s, mode, min_mtime_ms)).collect(),
            };
            progress.bytes_done.fetch_add(files[0].store_len, Ordering::Relaxed);
            progress.files_done.fetch_add(g.len() as u64, Ordering::Relaxed);
            r
        })
        .collect();
    let mut out: Vec<Option<ScannedFile>> = which.iter().map(|_| None).collect();
    for (g, rs) in groups.iter().zip(done) {
        for (&i, r) in g.iter().zip(rs) {
            out[i] = Some(r);
        }
    }
    out.into_iter().map(|f| f.expect("one result per file")).collect()
}

fn ms_of(ns: i128) -> f64 {
    crate::estate::ms_of_ns(ns)
}

/// The files of one format-2 stream (all asking for the same state of it).
fn scan_stream(bufs: &read::Buffers, files: &[&Stored], mode: Mode, min_mtime_ms: Option<f64>) -> Vec<ScannedFile> {
    let path = &files[0].path;
    let failed = |e: Failure| {
        files
            .iter()
            .map(|s| ScannedFile { key: s.key.clone(), size: 0, mtime_ms: 0.0, pruned: false, scan: Err(e.clone()) })
            .collect()
    };
    let name = path.display().to_string();
    let (bytes, segs) = match read::stream_as_of(path, files[0].segments) {
        Ok(r) => r,
        Err(e) => return failed(e),
    };
    let held: HashMap<String, stream::Held> = match stream::held(&segs) {
        Ok(h) => h.into_iter().map(|(k, h)| (k.rel, h)).collect(),
        Err(e) => return failed(e.in_file(path)),
    };
    let mut out: Vec<ScannedFile> = files
        .iter()
        .map(|s| {
            let h = held.get(&s.key.rel);
            let mtime_ms = h.map_or(0.0, |h| ms_of(h.mtime_ns));
            ScannedFile {
                key: s.key.clone(),
                size: h.map_or(0, |h| h.size),
                mtime_ms,
                pruned: min_mtime_ms.is_some_and(|m| mtime_ms < m),
                scan: Ok(Scan::default()),
            }
        })
        .collect();
    for f in out.iter_mut().filter(|f| f.pruned) {
        f.scan = Ok(Scan::default());
    }
    let todo: Vec<usize> = (0..files.len()).filter(|&i| !out[i].pruned).collect();
    if todo.is_empty() {
        return out;
    }
    let wanted: Vec<&str> = todo.iter().map(|&i| files[i].key.rel.as_str()).collect();
    let mut sinks: Vec<ScanSink> = todo.iter().map(|_| ScanSink::new(mode)).collect();
    let mut buf = bufs.take();
    let r = {
        let mut dyns: Vec<&mut dyn MemberSink> = sinks.iter_mut().map(|s| s as &mut dyn MemberSink).collect();
        stream::decode_as(&name, &bytes, &segs, &wanted, &mut dyns, stream::Check::Frames, &mut buf)
    };
    bufs.give(buf);
    drop(bytes);
    match r {
        Ok(_) => {
            for (&i, sink) in todo.iter().zip(sinks) {
                out[i].scan = Ok(sink.finish());
            }
        }
        Err(e) => {
            for &i in &todo {
                out[i].scan = Err(e.clone());
            }
        }
    }
    out
}

/// A format-1 store file: decoded whole into memory (a run cut short is undone by a cut, which
/// a scan already taken could not follow), then scanned.
fn scan_store_file(s: &Stored, mode: Mode, min_mtime_ms: Option<f64>) -> ScannedFile {
    let mut sink = VecSink(Vec::new());
    let r = read::decode(&s.path, &mut sink, true).and_then(|d| {
        d.mark
            .ok_or_else(|| Failure::at(Code::Archive, &s.path, "corrupt archive: no run of this transcript completed"))
    });
    match r {
        Err(e) => ScannedFile { key: s.key.clone(), size: 0, mtime_ms: 0.0, pruned: false, scan: Err(e) },
        Ok(mark) => {
            sink.0.truncate(mark.size as usize);
            let mtime_ms = ms_of(mark.mtime_ns);
            let pruned = min_mtime_ms.is_some_and(|m| mtime_ms < m);
            let scan = if pruned { Scan::default() } else { scan_bytes(&sink.0, mode) };
            ScannedFile { key: s.key.clone(), size: mark.size, mtime_ms, pruned, scan: Ok(scan) }
        }
    }
}

struct VecSink(Vec<u8>);

impl read::Sink for VecSink {
    fn put(&mut self, bytes: &[u8]) -> Result<(), Failure> {
        self.0.extend_from_slice(bytes);
        Ok(())
    }
    fn cut(&mut self, len: u64) -> Result<(), Failure> {
        self.0.truncate(len as usize);
        Ok(())
    }
}

/// Scans a file's bytes as the decoder hands them over: whole lines in chunks of about
/// `CHUNK_BYTES` straight from the decoded frame, only a line cut by the frame's end copied.
struct ScanSink {
    mode: Mode,
    parser: Parser,
    pending: Vec<u8>,
    /// The file offset of `pending`'s first byte.
    base: u64,
    scan: Option<Scan>,
}

impl ScanSink {
    fn new(mode: Mode) -> ScanSink {
        ScanSink { mode, parser: Parser::default(), pending: Vec::new(), base: 0, scan: None }
    }

    /// Scans the next bytes of the file (whole lines, or the file's last bytes at its end).
    fn scan_part(&mut self, buf: &[u8], file_end: bool) {
        let part = scan_chunk(&mut self.parser, buf, self.base, self.scan.is_none(), file_end, self.mode);
        match &mut self.scan {
            Some(s) => s.append(part),
            None => self.scan = Some(part),
        }
        self.base += buf.len() as u64;
    }

    fn finish(mut self) -> Scan {
        if !self.pending.is_empty() || self.scan.is_none() {
            let pending = std::mem::take(&mut self.pending);
            self.scan_part(&pending, true);
        }
        self.scan.unwrap_or_default()
    }
}

impl MemberSink for ScanSink {
    fn put(&mut self, mut bytes: &[u8]) -> Result<(), Failure> {
        // a line begun in an earlier put: completed from this one and scanned on its own
        if !self.pending.is_empty() {
            let Some(nl) = memchr::memchr(b'\n', bytes) else {
                self.pending.extend_from_slice(bytes);
                return Ok(());
            };
            self.pending.extend_from_slice(&bytes[..=nl]);
            let end = self.pending.len();
            let pending = std::mem::take(&mut self.pending);
            self.scan_part(&pending[..end], false);
            self.pending = pending;
            self.pending.clear();
            bytes = &bytes[nl + 1..];
        }
        // whole lines straight from the decoded frame, in chunks; the cut line kept
        while !bytes.is_empty() {
            let window = &bytes[..bytes.len().min(CHUNK_BYTES)];
            let cut = match memchr::memrchr(b'\n', window) {
                Some(nl) => nl + 1,
                None => match memchr::memchr(b'\n', bytes) {
                    Some(nl) => nl + 1,
                    None => {
                        self.pending.extend_from_slice(bytes);
                        return Ok(());
                    }
                },
            };
            self.scan_part(&bytes[..cut], false);
            bytes = &bytes[cut..];
        }
        Ok(())
    }
}

/// The archived transcripts `which` lists, each as the estate walk lists a file: placed at
/// `<root>/<project>/<path>`, with the recorded size and source mtime of the state named (a
/// format-2 stream's directories only are read; a format-1 store file is decoded). A stream
/// whose directories do not read is an error for its files only. An archive with a header that
/// would place a file outside its layout is refused whole, naming it.
pub fn discover_stored(root: &std::path::Path, which: &[Stored]) -> Result<Vec<Result<EstateFile, Failure>>, Failure> {
    super::restore::refuse_hostile_keys(which)?;
    let groups = super::restore::by_store_file(which);
    let mut out: Vec<Option<Result<EstateFile, Failure>>> = which.iter().map(|_| None).collect();
    let place =
        |s: &Stored, size: u64, mtime_ms: f64| classify_at(root.join(&s.key.project).join(&s.key.rel), size, mtime_ms);
    let done: Vec<Vec<Result<EstateFile, Failure>>> = groups
        .par_iter()
        .map(|g| {
            let files: Vec<&Stored> = g.iter().map(|&i| &which[i]).collect();
            if !files[0].in_stream() {
                return files
                    .iter()
                    .map(|s| {
                        let mut sink = VecSink(Vec::new());
                        let d = read::decode(&s.path, &mut sink, false)?;
                        let mark = d.mark.ok_or_else(|| {
                            Failure::at(Code::Archive, &s.path, "corrupt archive: no run of this transcript completed")
                        })?;
                        Ok(place(s, mark.size, ms_of(mark.mtime_ns)))
                    })
                    .collect();
            }
            let path = &files[0].path;
            let held = stream::read_segments(path).and_then(|(mut segs, _)| {
                if let Some(n) = files[0].segments {
                    segs.truncate(n as usize);
                }
                stream::held(&segs).map_err(|e| e.in_file(path))
            });
            match held {
                Err(e) => files.iter().map(|_| Err(e.clone())).collect(),
                Ok(h) => {
                    let by: HashMap<String, stream::Held> = h.into_iter().map(|(k, h)| (k.rel, h)).collect();
                    files
                        .iter()
                        .map(|s| match by.get(&s.key.rel) {
                            Some(h) => Ok(place(s, h.size, ms_of(h.mtime_ns))),
                            None => {
                                let what = format!("corrupt archive: {} is not in it", s.key.text());
                                Err(Failure::at(Code::Archive, path, what))
                            }
                        })
                        .collect()
                }
            }
        })
        .collect();
    for (g, rs) in groups.iter().zip(done) {
        for (&i, r) in g.iter().zip(rs) {
            out[i] = Some(r);
        }
    }
    Ok(out.into_iter().map(|f| f.expect("one result per file")).collect())
}

/// The bytes of the archived files `which`, all of one store file in one state, decoded into
/// memory together: a stream is read once and each frame decompressed once for all of them,
/// every frame's checksum checked (as `scan_stored`: the SHA-256 of each piece is `restore`'s
/// check). For a reader that reads whole transcripts (search): memory is the one session.
pub fn read_stored_group(which: &[&Stored]) -> Result<Vec<Vec<u8>>, Failure> {
    if !which[0].in_stream() {
        return which.iter().map(|s| read_stored(s)).collect();
    }
    let path = &which[0].path;
    let name = path.display().to_string();
    let (bytes, segs) = read::stream_as_of(path, which[0].segments)?;
    let wanted: Vec<&str> = which.iter().map(|s| s.key.rel.as_str()).collect();
    let mut data: Vec<Vec<u8>> = which.iter().map(|_| Vec::new()).collect();
    let mut buf = Vec::new();
    {
        let mut sinks: Vec<&mut dyn MemberSink> = data.iter_mut().map(|d| d as &mut dyn MemberSink).collect();
        stream::decode_as(&name, &bytes, &segs, &wanted, &mut sinks, stream::Check::Frames, &mut buf)?;
    }
    Ok(data)
}

/// The session a stored file belongs to by its records (`read::owner`), in either format: a
/// stream's file is read whole, as `read_stored` reads it.
pub fn owner_of(bufs: &read::Buffers, s: &Stored) -> Result<Option<String>, Failure> {
    if !s.in_stream() {
        return read::owner(bufs, &s.path);
    }
    let data = read_stored(s)?;
    Ok(read::first_session_id(&mut Parser::default(), &data, 0).map(|(_, sid)| sid))
}

/// One archived file's bytes in memory (the state `s` names), SHA-256 checked: for a reader
/// that needs a transcript's text after the scan (one file, not the archive).
pub fn read_stored(s: &Stored) -> Result<Vec<u8>, Failure> {
    stored_bytes(s).map_err(super::cannot_proceed)
}

fn stored_bytes(s: &Stored) -> Result<Vec<u8>, Failure> {
    if !s.in_stream() {
        let mut sink = VecSink(Vec::new());
        let d = read::decode(&s.path, &mut sink, true)?;
        let mark = d.mark.ok_or_else(|| Failure::at(Code::Archive, &s.path, "corrupt archive: no run completed"))?;
        sink.0.truncate(mark.size as usize);
        return Ok(sink.0);
    }
    let name = s.path.display().to_string();
    let (bytes, segs) = read::stream_as_of(&s.path, s.segments)?;
    let mut data = Vec::new();
    stream::decode(&name, &bytes, &segs, &[s.key.rel.as_str()], &mut [&mut data])?;
    Ok(data)
}
