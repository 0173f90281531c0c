//! Archive format 2: one compressed stream per session. A session's transcript, its subagents
//! and every other file it keeps (tool results, `*.meta.json`, the files beside the transcript)
//! share one store file, so zstd compresses each file against the others (a subagent repeats
//! much of its session). A file that belongs to no session (an old-layout `agent-*.jsonl`, or
//! anything else a key names without a session) is a stream of its own.
//!
//! The file is a run of segments, one per archive run that changed something in the stream:
//! - a directory: a zstd skippable frame (magic `0x184D2A5D`) holding the tag `CJA2`, the
//!   XXH3-64 of the text that follows, and that text: the stream's project and name, the data
//!   frames' stored and decoded lengths, and one line per piece (a file's path, generation, the
//!   offset in that generation where the piece starts, its length, the SHA-256 of the
//!   generation's bytes up to the piece's end, the source mtime);
//! - the data frames: standard checksummed zstd frames whose decoded bytes are the pieces'
//!   bytes, in order, verbatim (so `zstd -dc` of the file prints them).
//!
//! A piece that starts at 0 with a generation one above the last starts that file again (Claude
//! Code rewrote it); one that starts at the generation's end appends; an empty one records a new
//! mtime. The directory says how long its segment is, so a file that ends inside its last
//! segment was cut short while written (torn: that segment is not part of the archive and the
//! next run cuts it off); anything else that does not check is corruption.

use super::index::{esc, unesc};
use super::key::{escape_id, project_folder, Key};
use crate::failure::{Code, Failure};
use sha2::{Digest, Sha256};
use std::cell::RefCell;
use std::collections::HashMap;
use std::fs::File;
use std::path::{Path, PathBuf};

/// How a format-2 stream file's name ends: `<escaped stream id>.v2.zst`, directly in its
/// project folder (no folder per session: creating inodes is much of a cold run's system time).
pub const STREAM_SUFFIX: &str = ".v2.zst";
pub const DIR_MAGIC: u32 = 0x184D_2A5D;
const DIR_TAG: &[u8; 4] = b"CJA2";
const FIRST_LINE: &str = "claude-jsonl archive 2";
const ZSTD_MAGIC: [u8; 4] = [0x28, 0xB5, 0x2F, 0xFD];

/// Decoded bytes per data frame at most: large, so a session compresses almost as one stream
/// (most sessions are one frame), and a very large segment still spreads over the cores.
pub const FRAME: usize = if cfg!(test) { 16 << 10 } else { 32 << 20 };
/// zstd parameters of the data frames: level 3 (double-fast) with a 16 MiB window, which finds
/// the text a session repeats from far back, a 2^18-entry hash table, a 2^12 chain table and
/// matches of at least 6 bytes. On the benchmark estate this stores 1% less than level 3's own
/// tables at about 6% less CPU (crate/examples/session_streams.rs; benches/RESULTS.md). A
/// frame's tables shrink to fit a small frame (its size is pledged up front).
pub const LEVEL: i32 = 3;
pub const WINDOW_LOG: u32 = 24;
const HASH_LOG: u32 = 18;
const CHAIN_LOG: u32 = 12;
const MIN_MATCH: u32 = 6;
/// The largest join buffer a thread keeps between frames: a whole frame's, so that a large
/// session's frames are joined into pages already touched rather than fresh ones each time.
const JOINED_KEPT: usize = FRAME;

/// The stream a key is stored in: its session's (`name` the session id), or its own when the
/// key belongs to no session (`name` the key's path, `lone`).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Unit {
    pub project: String,
    pub name: String,
    pub lone: bool,
}

impl Unit {
    pub fn of(key: &Key) -> Unit {
        match super::owner::of(key) {
            Some(sid) => Unit { project: key.project.clone(), name: sid.to_string(), lone: false },
            None => Unit { project: key.project.clone(), name: key.rel.clone(), lone: true },
        }
    }

    /// The store session id (its folder name, escaped): `<session>-s2-<xxh3(P)>` or
    /// `<path>-f2-<xxh3(P)>` (format 1 uses `-g<N>-`, so the two never share a folder).
    pub fn id(&self) -> String {
        let h = xxhash_rust::xxh3::xxh3_64(self.project.as_bytes()) as u32;
        format!("{}-{}2-{h:08x}", self.name, if self.lone { 'f' } else { 's' })
    }

    pub fn path(&self, root: &Path) -> PathBuf {
        root.join(project_folder(&self.project)).join(format!("{}{STREAM_SUFFIX}", escape_id(&self.id())))
    }

    /// Whether `key` belongs in this stream.
    pub fn holds(&self, key: &Key) -> bool {
        Unit::of(key) == *self
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Piece {
    pub rel: String,
    pub gen: u32,
    pub from: u64,
    pub len: u64,
    /// SHA-256 of the generation's first `from + len` bytes.
    pub sha256: String,
    pub mtime_ns: i128,
}

impl Piece {
    pub fn size(&self) -> u64 {
        self.from + self.len
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FrameLen {
    pub stored: u64,
    pub size: u64,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Segment {
    pub unit: Unit,
    /// When the run that wrote it started (as the run gave it: an ISO 8601 UTC time); None in
    /// segments written before runs recorded it.
    pub archived_at: Option<String>,
    pub frames: Vec<FrameLen>,
    pub pieces: Vec<Piece>,
    /// Where the segment's data frames start in the file, and where the segment ends.
    pub data_at: u64,
    pub end: u64,
}

/// The directory frame of a segment written by the run that started at `archived_at`.
pub fn directory(unit: &Unit, archived_at: Option<&str>, frames: &[FrameLen], pieces: &[Piece]) -> Vec<u8> {
    let mut text = format!(
        "{FIRST_LINE}\t{}\t{}\t{}",
        esc(unit.project.as_bytes()),
        esc(unit.name.as_bytes()),
        if unit.lone { "file" } else { "session" }
    );
    if let Some(at) = archived_at {
        text.push_str(&format!("\t{}", esc(at.as_bytes())));
    }
    text.push_str("\nframes");
    for f in frames {
        text.push_str(&format!("\t{}:{}", f.stored, f.size));
    }
    text.push('\n');
    for p in pieces {
        text.push_str(&format!(
            "{}\t{}\t{}\t{}\t{}\t{}\n",
            esc(p.rel.as_bytes()),
            p.gen,
            p.from,
            p.len,
            p.sha256,
            p.mtime_ns
        ));
    }
    let mut out = Vec::with_capacity(20 + text.len());
    out.extend_from_slice(&DIR_MAGIC.to_le_bytes());
    out.extend_from_slice(&((12 + text.len()) as u32).to_le_bytes());
    out.extend_from_slice(DIR_TAG);
    out.extend_from_slice(&xxhash_rust::xxh3::xxh3_64(text.as_bytes()).to_le_bytes());
    out.extend_from_slice(text.as_bytes());
    out
}

type Directory = (Unit, Option<String>, Vec<FrameLen>, Vec<Piece>);

fn parse_directory(payload: &[u8]) -> Option<Directory> {
    if payload.len() < 12 || &payload[..4] != DIR_TAG {
        return None;
    }
    let sum = u64::from_le_bytes(payload[4..12].try_into().ok()?);
    let text = &payload[12..];
    if xxhash_rust::xxh3::xxh3_64(text) != sum {
        return None;
    }
    let text = std::str::from_utf8(text).ok()?;
    let mut lines = text.strip_suffix('\n')?.split('\n');
    let s = |v: &str| unesc(v).and_then(|b| String::from_utf8(b).ok());
    let head: Vec<&str> = lines.next()?.split('\t').collect();
    // the fifth field, the run's time, is absent in segments written before runs recorded it
    if !(4..=5).contains(&head.len()) || head[0] != FIRST_LINE {
        return None;
    }
    let archived_at = match head.get(4) {
        Some(v) => Some(s(v)?),
        None => None,
    };
    let lone = match head[3] {
        "file" => true,
        "session" => false,
        _ => return None,
    };
    let unit = Unit { project: s(head[1])?, name: s(head[2])?, lone };
    let mut fl = lines.next()?.split('\t');
    if fl.next()? != "frames" {
        return None;
    }
    let frames = fl
        .map(|f| {
            let (a, b) = f.split_once(':')?;
            Some(FrameLen { stored: a.parse().ok()?, size: b.parse().ok()? })
        })
        .collect::<Option<Vec<_>>>()?;
    let pieces = lines
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            if f.len() != 6 || f[4].len() != 64 {
                return None;
            }
            Some(Piece {
                rel: s(f[0])?,
                gen: f[1].parse().ok()?,
                from: f[2].parse().ok()?,
                len: f[3].parse().ok()?,
                sha256: f[4].to_string(),
                mtime_ns: f[5].parse().ok()?,
            })
        })
        .collect::<Option<Vec<_>>>()?;
    let decoded: u64 = frames.iter().map(|f| f.size).sum();
    (pieces.iter().map(|p| p.len).sum::<u64>() == decoded).then_some((unit, archived_at, frames, pieces))
}

/// The segments of a stream read through `read_at(offset, len)` (the file is `len` bytes):
/// directories only, data frames skipped. Returns the complete segments and, when the file ends
/// inside a segment, where that segment starts (torn). Err (no file name) for anything else
/// that does not check: a damaged directory, frames that are not zstd frames, a segment of
/// another stream.
pub fn segments(
    len: u64,
    mut read_at: impl FnMut(u64, usize) -> Result<Vec<u8>, Failure>,
) -> Result<(Vec<Segment>, Option<u64>), Failure> {
    let mut out: Vec<Segment> = Vec::new();
    let mut at = 0u64;
    while at < len {
        if len - at < 8 {
            return Ok((out, Some(at)));
        }
        let head = read_at(at, 8)?;
        let magic = u32::from_le_bytes(head[..4].try_into().expect("4 bytes"));
        let size = u32::from_le_bytes(head[4..8].try_into().expect("4 bytes")) as u64;
        if magic != DIR_MAGIC {
            return Err(Failure::new(Code::Archive, format!("corrupt archive: no segment directory at byte {at}")));
        }
        if at + 8 + size > len {
            return Ok((out, Some(at)));
        }
        let payload = read_at(at + 8, size as usize)?;
        let (unit, archived_at, frames, pieces) = parse_directory(&payload).ok_or_else(|| {
            Failure::new(Code::Archive, format!("corrupt archive: the segment directory at byte {at} is damaged"))
        })?;
        if out.first().is_some_and(|s| s.unit != unit) {
            return Err(Failure::new(
                Code::Archive,
                format!("corrupt archive: the segment at byte {at} belongs to another stream"),
            ));
        }
        let data_at = at + 8 + size;
        let end = data_at + frames.iter().map(|f| f.stored).sum::<u64>();
        if end > len {
            return Ok((out, Some(at)));
        }
        let mut f_at = data_at;
        for f in &frames {
            if f.stored < 4 || read_at(f_at, 4)? != ZSTD_MAGIC {
                return Err(Failure::new(Code::Archive, format!("corrupt archive: no zstd frame at byte {f_at}")));
            }
            f_at += f.stored;
        }
        out.push(Segment { unit, archived_at, frames, pieces, data_at, end });
        at = end;
    }
    Ok((out, None))
}

/// `segments` of a file on disk (reads only the directories).
pub fn read_segments(path: &Path) -> Result<(Vec<Segment>, Option<u64>), Failure> {
    let f = File::open(path).map_err(|e| Failure::io(path, &e))?;
    let len = f.metadata().map_err(|e| Failure::io(path, &e))?.len();
    segments(len, |at, n| {
        let mut buf = vec![0u8; n];
        read_exact_at(&f, &mut buf, at).map_err(|e| Failure::io(path, &e))?;
        Ok(buf)
    })
    .map_err(|e| if e.path.is_some() { e } else { e.in_file(path) })
}

/// The segments of a stream, checked to belong where it is (its first segment's project and
/// name place it at `path`).
pub fn placed_segments(root: &Path, path: &Path) -> Result<Vec<Segment>, Failure> {
    let (segs, _) = read_segments(path)?;
    match segs.first() {
        None => Err(Failure::at(Code::Archive, path, "corrupt archive: no segment of this stream is complete")),
        Some(s) if s.unit.path(root) != path => {
            Err(Failure::at(Code::Archive, path, "header places this stream elsewhere in the archive"))
        }
        Some(_) => Ok(segs),
    }
}

/// `segments` of a stream held in memory.
pub fn segments_of(bytes: &[u8]) -> Result<(Vec<Segment>, Option<u64>), Failure> {
    segments(bytes.len() as u64, |at, n| Ok(bytes[at as usize..at as usize + n].to_vec()))
}

#[cfg(unix)]
fn read_exact_at(f: &File, buf: &mut [u8], at: u64) -> std::io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(f, buf, at)
}
#[cfg(windows)]
fn read_exact_at(f: &File, mut buf: &mut [u8], mut at: u64) -> std::io::Result<()> {
    while !buf.is_empty() {
        let n = std::os::windows::fs::FileExt::seek_read(f, buf, at)?;
        if n == 0 {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
        buf = &mut buf[n..];
        at += n as u64;
    }
    Ok(())
}

/// The state of one file in a stream after its segments: its latest generation, the length
/// and SHA-256 of that generation's bytes, the mtime last recorded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Held {
    pub gen: u32,
    pub size: u64,
    pub sha256: String,
    pub mtime_ns: i128,
}

/// Every file a stream holds, with its latest state; checks that the pieces follow on (each
/// starts where its generation ended, or starts the next generation at 0) and that every file
/// belongs in this stream.
pub fn held(segs: &[Segment]) -> Result<Vec<(Key, Held)>, Failure> {
    let mut order: Vec<Key> = Vec::new();
    let mut by: HashMap<String, Held> = HashMap::new();
    for s in segs {
        for p in &s.pieces {
            let key = Key { project: s.unit.project.clone(), rel: p.rel.clone() };
            if !s.unit.holds(&key) {
                return Err(Failure::new(
                    Code::Archive,
                    format!("corrupt archive: {} does not belong in this stream", key.text()),
                ));
            }
            let next = Held { gen: p.gen, size: p.size(), sha256: p.sha256.clone(), mtime_ns: p.mtime_ns };
            match by.get_mut(&p.rel) {
                None if p.gen == 0 && p.from == 0 => {
                    order.push(key);
                    by.insert(p.rel.clone(), next);
                }
                Some(h) if (p.gen == h.gen && p.from == h.size) || (p.gen == h.gen + 1 && p.from == 0) => *h = next,
                _ => {
                    return Err(Failure::new(
                        Code::Archive,
                        format!(
                            "corrupt archive: a piece of {} (generation {}, from byte {}) does not follow on",
                            key.text(),
                            p.gen,
                            p.from
                        ),
                    ))
                }
            }
        }
    }
    Ok(order.into_iter().map(|k| by.remove(&k.rel).map(|h| (k, h)).expect("each key has its state")).collect())
}

thread_local! {
    /// Each thread's compression context and the buffer several slices are joined in.
    static CCTX: RefCell<(Option<zstd::zstd_safe::CCtx<'static>>, Vec<u8>)> = const { RefCell::new((None, Vec::new())) };
    static DCTX: RefCell<Option<zstd::bulk::Decompressor<'static>>> = const { RefCell::new(None) };
    /// Buffers of frames already written, given back for the next frames compressed on this
    /// thread: a frame compressed into fresh memory takes a page fault for every 4 KB it fills,
    /// and, freed, an unmapping that makes the other threads flush their TLBs (an archive of the
    /// bench estate spent about a tenth of its CPU on the two).
    static SPARE: RefCell<Vec<Vec<u8>>> = const { RefCell::new(Vec::new()) };
}

/// Buffers [`give_back`] keeps per thread.
const SPARE_KEPT: usize = 2;

/// A frame's buffer, once its bytes are written: the next frame compressed on this thread fills
/// it instead of fresh memory.
pub fn give_back(mut frame: Vec<u8>) {
    // (no larger than a whole frame's output can be)
    if frame.capacity() > zstd::zstd_safe::compress_bound(FRAME) {
        return;
    }
    frame.clear();
    SPARE.with(|cell| {
        let mut spare = cell.borrow_mut();
        if spare.len() < SPARE_KEPT {
            spare.push(frame);
        }
    });
}

/// Compresses the concatenation of `parts` (slices of the sources) into one zstd frame with
/// its content size and checksum. Several slices are first copied together into one buffer
/// (reused by the thread): zstd's streaming input would copy them into its window anyway, and
/// one contiguous input takes its faster match finder (no split window).
pub fn compress(parts: &[&[u8]]) -> Result<Vec<u8>, Failure> {
    use zstd::zstd_safe::{CCtx, CParameter};
    let e = |c: usize| Failure::new(Code::Internal, zstd::zstd_safe::get_error_name(c));
    let total: usize = parts.iter().map(|p| p.len()).sum();
    let bound = zstd::zstd_safe::compress_bound(total);
    let mut out = SPARE.with(|cell| cell.borrow_mut().pop()).unwrap_or_default();
    out.reserve(bound);
    CCTX.with(|cell| {
        let mut slot = cell.borrow_mut();
        let (cx, joined) = &mut *slot;
        let cx = match cx {
            Some(cx) => cx,
            None => {
                let mut c = CCtx::create();
                c.set_parameter(CParameter::CompressionLevel(LEVEL)).map_err(e)?;
                c.set_parameter(CParameter::WindowLog(WINDOW_LOG)).map_err(e)?;
                c.set_parameter(CParameter::HashLog(HASH_LOG)).map_err(e)?;
                c.set_parameter(CParameter::ChainLog(CHAIN_LOG)).map_err(e)?;
                c.set_parameter(CParameter::MinMatch(MIN_MATCH)).map_err(e)?;
                c.set_parameter(CParameter::ChecksumFlag(true)).map_err(e)?;
                c.set_parameter(CParameter::ContentSizeFlag(true)).map_err(e)?;
                cx.insert(c)
            }
        };
        let input: &[u8] = match parts {
            [one] => one,
            _ => {
                joined.clear();
                joined.reserve(total);
                for p in parts {
                    joined.extend_from_slice(p);
                }
                joined
            }
        };
        // one call with the whole input: zstd sizes its tables to it (a small frame gets small ones)
        let r = cx.compress2(&mut out, input).map(|_| ()).map_err(e);
        if joined.capacity() > JOINED_KEPT {
            *joined = Vec::new(); // a large one is not kept after the run
        }
        r
    })?;
    Ok(out)
}

/// Decodes one data frame into `out` (cleared first); it must decode to `size` bytes.
pub fn decompress(frame: &[u8], size: u64, at: u64, out: &mut Vec<u8>) -> Result<(), Failure> {
    let bad = |e: String| {
        Failure::new(Code::Archive, format!("corrupt archive: the frame at byte {at} does not decode ({e})"))
    };
    if size > (1 << 32) || zstd::zstd_safe::get_frame_content_size(frame).ok().flatten() != Some(size) {
        return Err(bad("its size is not the directory's".into()));
    }
    out.clear();
    out.reserve(size as usize);
    let n = DCTX.with(|cell| {
        let mut slot = cell.borrow_mut();
        if slot.is_none() {
            *slot = Some(zstd::bulk::Decompressor::new().map_err(|e| e.to_string())?);
        }
        slot.as_mut().expect("just set").decompress_to_buffer(frame, out).map_err(|e| e.to_string())
    });
    match n {
        Ok(n) if n as u64 == size => Ok(()),
        Ok(_) => Err(bad("short".into())),
        Err(e) => Err(bad(e)),
    }
}

/// Where the bytes of one wanted file go while a stream is decoded.
pub trait MemberSink {
    fn put(&mut self, bytes: &[u8]) -> Result<(), Failure>;
}

impl MemberSink for Vec<u8> {
    fn put(&mut self, bytes: &[u8]) -> Result<(), Failure> {
        self.extend_from_slice(bytes);
        Ok(())
    }
}

/// What decoding one file from a stream found: its latest piece (size, SHA-256, mtime).
#[derive(Clone, Debug)]
pub struct Decoded {
    pub size: u64,
    pub sha256: String,
    pub mtime_ns: i128,
}

/// Decodes the latest generation of each of `wanted` (paths in the project) from a stream held
/// in `bytes`, into its sink, checking the SHA-256 recorded at each of its pieces. Only the
/// frames that hold a wanted byte are decompressed. `name` prefixes errors (the store file).
pub fn decode(
    name: &str,
    bytes: &[u8],
    segs: &[Segment],
    wanted: &[&str],
    sinks: &mut [&mut dyn MemberSink],
) -> Result<Vec<Decoded>, Failure> {
    decode_as(name, bytes, segs, wanted, sinks, Check::Sha256, &mut Vec::new())
}

/// How much a decode checks beyond each frame's own checksum (zstd's, over its decoded bytes,
/// always checked) and each piece's length and place.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Check {
    /// Also the SHA-256 recorded at every piece, over the file up to there (restore: the bytes
    /// written back are the bytes archived, whatever wrote the stream).
    Sha256,
    /// Frames and pieces only (the readers: damage to a frame is caught by its checksum; the
    /// SHA-256 pass would cost as much again as the decompression).
    Frames,
}

/// `decode`, checking as `check` says, each frame decoded into `buf` (a buffer reused across
/// streams costs no fresh pages).
pub fn decode_as(
    name: &str,
    bytes: &[u8],
    segs: &[Segment],
    wanted: &[&str],
    sinks: &mut [&mut dyn MemberSink],
    check: Check,
    buf: &mut Vec<u8>,
) -> Result<Vec<Decoded>, Failure> {
    let named = |e: Failure| e.in_file(Path::new(name));
    let latest: HashMap<&str, u32> = {
        let mut m = HashMap::new();
        for s in segs {
            for p in &s.pieces {
                let g = m.entry(p.rel.as_str()).or_insert(p.gen);
                *g = (*g).max(p.gen);
            }
        }
        m
    };
    let slot: HashMap<&str, usize> = wanted.iter().enumerate().map(|(i, w)| (*w, i)).collect();
    let mut state: Vec<(u64, Sha256, Option<Decoded>)> = wanted.iter().map(|_| (0, Sha256::new(), None)).collect();
    for s in segs {
        // each wanted piece's range in the segment's decoded bytes
        let mut at = 0u64;
        let mut want: Vec<(u64, u64, usize, &Piece)> = Vec::new();
        for p in &s.pieces {
            if let Some(&i) = slot.get(p.rel.as_str()) {
                if latest.get(p.rel.as_str()) == Some(&p.gen) {
                    want.push((at, at + p.len, i, p));
                }
            }
            at += p.len;
        }
        if want.is_empty() {
            continue;
        }
        let mut f_at = s.data_at;
        let mut d_at = 0u64;
        let mut done = 0usize; // wanted pieces finished
        for f in &s.frames {
            let (fa, fb) = (d_at, d_at + f.size);
            let file_at = f_at;
            f_at += f.stored;
            d_at = fb;
            if !want[done..].iter().any(|w| w.0 < fb && w.1 > fa) {
                continue;
            }
            let frame = &bytes[file_at as usize..(file_at + f.stored) as usize];
            decompress(frame, f.size, file_at, buf).map_err(named)?;
            for w in &want[done..] {
                if w.0 >= fb {
                    break;
                }
                let (a, b) = (w.0.max(fa), w.1.min(fb));
                if a < b {
                    let piece = &buf[(a - fa) as usize..(b - fa) as usize];
                    let st = &mut state[w.2];
                    if check == Check::Sha256 {
                        st.1.update(piece);
                    }
                    sinks[w.2].put(piece)?;
                    st.0 += b - a;
                }
            }
            // check the pieces that end in this frame (or before it)
            while done < want.len() && want[done].1 <= fb {
                finish(&mut state[want[done].2], want[done].3, check).map_err(named)?;
                done += 1;
            }
        }
        while done < want.len() {
            finish(&mut state[want[done].2], want[done].3, check).map_err(named)?;
            done += 1;
        }
    }
    state
        .into_iter()
        .zip(wanted)
        .map(|((_, _, d), w)| {
            d.ok_or_else(|| named(Failure::new(Code::Archive, format!("corrupt archive: {w} is not in this stream"))))
        })
        .collect()
}

/// A wanted piece's end: the bytes so far must be its generation's first `size` bytes.
fn finish(st: &mut (u64, Sha256, Option<Decoded>), p: &Piece, check: Check) -> Result<(), Failure> {
    if p.from != st.2.as_ref().map_or(0, |d| d.size) || st.0 != p.size() {
        return Err(Failure::new(Code::Archive, format!("corrupt archive: a piece of {} does not follow on", p.rel)));
    }
    if check == Check::Sha256 && crate::hash::hex(&st.1.clone().finalize()) != p.sha256 {
        return Err(Failure::new(
            Code::Archive,
            format!("corrupt archive: the first {} bytes of {} do not match their recorded SHA-256", p.size(), p.rel),
        ));
    }
    st.2 = Some(Decoded { size: p.size(), sha256: p.sha256.clone(), mtime_ns: p.mtime_ns });
    Ok(())
}

/// Checks every data frame of `segs` decodes (its checksum included) without keeping the bytes:
/// appending after damage would bury it.
pub fn verify_frames(name: &str, bytes: &[u8], segs: &[Segment]) -> Result<(), Failure> {
    let mut buf = Vec::new();
    for s in segs {
        let mut at = s.data_at;
        for f in &s.frames {
            decompress(&bytes[at as usize..(at + f.stored) as usize], f.size, at, &mut buf)
                .map_err(|e| e.in_file(Path::new(name)))?;
            at += f.stored;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn piece(rel: &str, gen: u32, from: u64, data: &[u8], whole: &[u8]) -> Piece {
        Piece {
            rel: rel.into(),
            gen,
            from,
            len: data.len() as u64,
            sha256: crate::hash::sha256_hex(whole),
            mtime_ns: 5,
        }
    }

    fn segment(unit: &Unit, pieces: &[(Piece, &[u8])]) -> Vec<u8> {
        let parts: Vec<&[u8]> = pieces.iter().map(|p| p.1).collect();
        let total: usize = parts.iter().map(|p| p.len()).sum();
        let frame = compress(&parts).unwrap();
        let frames = [FrameLen { stored: frame.len() as u64, size: total as u64 }];
        let ps: Vec<Piece> = pieces.iter().map(|p| p.0.clone()).collect();
        let mut out = directory(unit, Some("2026-12-01T00:00:00.000Z"), if total > 0 { &frames } else { &[] }, &ps);
        if total > 0 {
            out.extend(frame);
        }
        out
    }

    #[test]
    fn a_stream_decodes_each_file_and_finds_torn_and_damaged_segments() {
        let key = Key { project: "-p".into(), rel: "u1.jsonl".into() };
        let unit = Unit::of(&key);
        assert_eq!(unit, Unit { project: "-p".into(), name: "u1".into(), lone: false });
        let (a1, a2, sub) = (b"{\"a\":1}\n".as_slice(), b"{\"a\":2}\n".as_slice(), b"\x00binary".as_slice());
        let mut bytes = segment(
            &unit,
            &[(piece("u1.jsonl", 0, 0, a1, a1), a1), (piece("u1/subagents/agent-x.jsonl", 0, 0, sub, sub), sub)],
        );
        let a12 = [a1, a2].concat();
        bytes.extend(segment(&unit, &[(piece("u1.jsonl", 0, a1.len() as u64, a2, &a12), a2)]));
        let rewritten = b"new\n".as_slice();
        bytes.extend(segment(&unit, &[(piece("u1/subagents/agent-x.jsonl", 1, 0, rewritten, rewritten), rewritten)]));
        let (segs, torn) = segments_of(&bytes).unwrap();
        assert_eq!((segs.len(), torn), (3, None));
        let h = held(&segs).unwrap();
        assert_eq!(h.len(), 2);
        assert_eq!((h[0].1.gen, h[0].1.size, h[1].1.gen), (0, a12.len() as u64, 1));
        let (mut x, mut y) = (Vec::new(), Vec::new());
        let d = decode("f", &bytes, &segs, &["u1.jsonl", "u1/subagents/agent-x.jsonl"], &mut [&mut x, &mut y]).unwrap();
        assert_eq!((x.as_slice(), y.as_slice()), (a12.as_slice(), rewritten));
        assert_eq!(d[0].size, a12.len() as u64);
        verify_frames("f", &bytes, &segs).unwrap();
        // cut anywhere inside the last segment: torn at its start, the rest still reads
        let last = segs[1].end;
        for cut in last + 1..bytes.len() as u64 {
            let (s, torn) = segments_of(&bytes[..cut as usize]).unwrap();
            assert_eq!((s.len(), torn), (2, Some(last)), "cut {cut}");
        }
        // a flipped byte anywhere is refused (directory checksum, frame checksum, or the SHA-256)
        for i in 0..bytes.len() {
            let mut b = bytes.clone();
            b[i] ^= 0x20;
            let r = segments_of(&b).and_then(|(s, torn)| {
                if torn.is_some() {
                    return Err(Failure::new(Code::Archive, "torn"));
                }
                held(&s)?;
                verify_frames("f", &b, &s)?;
                let (mut x, mut y) = (Vec::new(), Vec::new());
                decode("f", &b, &s, &["u1.jsonl", "u1/subagents/agent-x.jsonl"], &mut [&mut x, &mut y]).map(|_| ())
            });
            assert!(r.is_err(), "flip at {i} went unnoticed");
        }
    }

    #[test]
    fn a_directory_without_the_run_time_still_reads() {
        let unit = Unit { project: "-p".into(), name: "u1".into(), lone: false };
        let a = b"x\n".as_slice();
        let p = piece("u1.jsonl", 0, 0, a, a);
        let frame = compress(&[a]).unwrap();
        let frames = [FrameLen { stored: frame.len() as u64, size: 2 }];
        for at in [None, Some("2026-12-01T10:00:00.000Z")] {
            let mut bytes = directory(&unit, at, &frames, std::slice::from_ref(&p));
            bytes.extend(&frame);
            let (segs, _) = segments_of(&bytes).unwrap();
            assert_eq!(segs[0].archived_at.as_deref(), at);
        }
    }

    #[test]
    fn a_file_of_another_stream_is_refused() {
        let unit = Unit { project: "-p".into(), name: "u1".into(), lone: false };
        let other = b"x\n".as_slice();
        let bytes = segment(&unit, &[(piece("u2.jsonl", 0, 0, other, other), other)]);
        let (segs, _) = segments_of(&bytes).unwrap();
        assert!(held(&segs).unwrap_err().message.contains("does not belong"));
        let lone = Unit::of(&Key { project: "-p".into(), rel: "agent-a.jsonl".into() });
        assert!(lone.lone && lone.id().starts_with("agent-a.jsonl-f2-"));
    }
}
