//! A generation's transcript bytes decoded (frames in parallel, buffers pooled), checked against
//! the SHA-256 of every mark; a stream's members decoded to temp files; a file's owner session.

use super::catalog::*;
use crate::archive::destination::Destination;
use crate::archive::events::{self, Event};
use crate::archive::stream;
use crate::durable;
use crate::failure::{Code, Failure};
use crate::scan::{tape, Parser};
use crate::store;
use rayon::prelude::*;
use sha2::{Digest, Sha256};
use std::fs;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Where decoded transcript bytes go (from whichever thread consumes the frames).
pub trait Sink: Send {
    fn put(&mut self, bytes: &[u8]) -> Result<(), Failure>;
    /// Drops everything after the first `len` bytes.
    fn cut(&mut self, len: u64) -> Result<(), Failure>;
}

/// Counts bytes only (recovery needs lengths, not contents).
#[derive(Default)]
pub struct Count(pub u64);

impl Sink for Count {
    fn put(&mut self, bytes: &[u8]) -> Result<(), Failure> {
        self.0 += bytes.len() as u64;
        Ok(())
    }
    fn cut(&mut self, len: u64) -> Result<(), Failure> {
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
    fn put(&mut self, bytes: &[u8]) -> Result<(), Failure> {
        self.file.write_all(bytes).map_err(|e| Failure::io(self.path, &e))
    }
    fn cut(&mut self, len: u64) -> Result<(), Failure> {
        let io = |e: std::io::Error| Failure::io(self.path, &e);
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
    pub(in crate::archive) fn take(&self) -> Vec<u8> {
        let mut v = self.0.lock().map(|mut p| p.pop()).ok().flatten().unwrap_or_default();
        v.clear();
        v
    }
    pub(in crate::archive) fn give(&self, v: Vec<u8>) {
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

fn decode_frame(bufs: &Buffers, frame: &[u8], at: usize) -> Result<Frame, Failure> {
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

/// `name: corrupt archive: what`, about the store file `name`.
fn corrupt_in(name: &str, what: impl std::fmt::Display) -> Failure {
    Failure::at(Code::Archive, Path::new(name), format_args!("corrupt archive: {what}"))
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
    fn consume(&mut self, frame: &Frame) -> Result<(), Failure> {
        let name = &self.name;
        let seq = self.out.events;
        let again = |i: u64, a: usize, b: usize| {
            let e = events::decode(&frame.buf[a..b], seq + i).err();
            let e = e.unwrap_or_else(|| {
                Failure::new(Code::Archive, format!("corrupt archive: record {} is damaged", seq + i + 1))
            });
            e.in_file(Path::new(name))
        };
        match frame.fail {
            Some((0, a, b)) => return Err(again(0, a, b)),
            _ if frame.events > 0 && frame.first_seq != seq => {
                return Err(corrupt_in(name, format_args!("record {} has seq {}", seq + 1, frame.first_seq)));
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
                        let what = format_args!("a mark records {} bytes where {} were stored", m.size, self.out.len);
                        return Err(corrupt_in(name, what));
                    }
                    if self.verify {
                        let got = crate::hash::hex(&self.hasher.clone().finalize());
                        if got != m.sha256 {
                            let what = format_args!("the first {} bytes do not match their recorded SHA-256", m.size);
                            return Err(corrupt_in(name, what));
                        }
                        self.at_mark = self.hasher.clone();
                    }
                    self.out.mark = Some(m.clone());
                }
                Part::Cut(n) => {
                    if Some(*n) != self.out.mark.as_ref().map(|m| m.size) {
                        return Err(corrupt_in(name, format_args!("a cut to {n} bytes is not at the last mark")));
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
pub fn decode(path: &Path, sink: &mut dyn Sink, verify: bool) -> Result<Decoded, Failure> {
    decode_with(&Buffers::default(), path, sink, verify)
}

/// `decode` with buffers reused from earlier files.
pub fn decode_with(bufs: &Buffers, path: &Path, sink: &mut dyn Sink, verify: bool) -> Result<Decoded, Failure> {
    let mut bytes = bufs.take();
    let r = fs::File::open(path)
        .and_then(|mut f| {
            let len = f.metadata()?.len();
            bytes.reserve(len as usize);
            f.read_to_end(&mut bytes)
        })
        .map_err(|e| Failure::io(path, &e))
        .and_then(|_| decode_bytes(bufs, path, &bytes, sink, verify, bytes.len() >= PIPELINE_FROM));
    bufs.give(bytes);
    r
}

/// Decodes a store file's bytes: frame after frame on this thread, or (`pipeline`) a batch of
/// frames on every core while the previous batch is consumed.
pub(in crate::archive) fn decode_bytes(
    bufs: &Buffers,
    path: &Path,
    bytes: &[u8],
    sink: &mut dyn Sink,
    verify: bool,
    pipeline: bool,
) -> Result<Decoded, Failure> {
    let name = path.display().to_string();
    let (spans, torn) = store::frame_spans(bytes).map_err(|e| e.in_file(path))?;
    let mut replay = Replay {
        name,
        sink,
        verify,
        hasher: Sha256::new(),
        at_mark: Sha256::new(),
        out: Decoded { torn_at: torn.map(|t| t as u64), ..Decoded::default() },
    };
    let one = |&(at, len): &(usize, usize)| decode_frame(bufs, &bytes[at..at + len], at);
    let named = |r: Result<Frame, Failure>, name: &str| r.map_err(|e| e.in_file(Path::new(name)));
    let give = |frames: Vec<Result<Frame, Failure>>| frames.into_iter().flatten().for_each(|f| bufs.give(f.buf));
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
                || -> Result<(), Failure> {
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
        return Err(corrupt_in(&replay.name, "no run of this transcript completed (no mark)"));
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
) -> Result<(PathBuf, Mark), Failure> {
    dest.prepare()?;
    let (tmp, mut file) = durable::temp_beside(&dest.path)?;
    let r = (|| {
        let d = decode_with(bufs, store_path, &mut FileSink { file: &mut file, path: &tmp }, true)?;
        let mark = d.mark.expect("decode returns a mark");
        let io = |e: std::io::Error| Failure::io(&tmp, &e);
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
pub fn owner(bufs: &Buffers, path: &Path) -> Result<Option<String>, Failure> {
    let mut bytes = bufs.take();
    let r = (|| {
        fs::File::open(path).and_then(|mut f| f.read_to_end(&mut bytes)).map_err(|e| Failure::io(path, &e))?;
        let (spans, _) = store::frame_spans(&bytes).map_err(|e| e.in_file(path))?;
        let mut parser = Parser::default();
        let (mut len, mut found) = (0u64, None::<(u64, String)>);
        for &(at, n) in &spans[1..] {
            let frame = decode_frame(bufs, &bytes[at..at + n], at).map_err(|e| e.in_file(path))?;
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
                return Err(Failure::at(Code::Archive, path, "corrupt archive: a record is not an archive event"));
            }
        }
        Ok(None)
    })();
    bufs.give(bytes);
    r
}

/// The first line of `data` (which starts at byte `offset` of the transcript) that is a JSON
/// object with a string `sessionId`: where it starts, and the id.
pub(in crate::archive) fn first_session_id(parser: &mut Parser, data: &[u8], offset: u64) -> Option<(u64, String)> {
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
    fn put(&mut self, bytes: &[u8]) -> Result<(), Failure> {
        self.file.write_all(bytes).map_err(|e| Failure::io(self.path, &e))
    }
}

/// A format-2 stream's bytes and its complete segments, as of an earlier run when `segments` is
/// set (only the segments written up to it). Errors name the stream.
pub(in crate::archive) fn stream_as_of(
    path: &Path,
    segments: Option<u32>,
) -> Result<(Vec<u8>, Vec<stream::Segment>), Failure> {
    let bytes = fs::read(path).map_err(|e| Failure::io(path, &e))?;
    let (mut segs, _) = stream::segments_of(&bytes).map_err(|e| e.in_file(path))?;
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
) -> Vec<Result<(PathBuf, Mark), Failure>> {
    let all = |e: Failure| files.iter().map(|_| Err(e.clone())).collect();
    let name = path.display().to_string();
    let (bytes, segs) = match stream_as_of(path, files.first().and_then(|(s, _)| s.segments)) {
        Ok(r) => r,
        Err(e) => return all(e),
    };
    let mut out: Vec<Result<(PathBuf, Mark), Failure>> = Vec::with_capacity(files.len());
    let mut temps: Vec<(usize, PathBuf, fs::File)> = Vec::new();
    for (i, (_, dest)) in files.iter().enumerate() {
        match dest.prepare().and_then(|()| durable::temp_beside(&dest.path)) {
            Ok((tmp, f)) => {
                temps.push((i, tmp, f));
                // replaced by the decode's outcome below
                out.push(Err(Failure::new(Code::Internal, "not decoded")));
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
        let io = |e: std::io::Error| Failure::io(&tmp, &e);
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
