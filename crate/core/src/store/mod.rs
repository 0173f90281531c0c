//! The durable session store's file format: one logical JSONL log per session, whose
//! first line is an immutable header, stored either as plain JSONL (`Encoding::None`) or as a
//! standard concatenation of Zstandard frames (`Encoding::Zstd`): one checksummed frame holding
//! the header line, then one checksummed frame per persisted append batch.
//!
//! Every data frame is preceded by a 16-byte skippable frame (magic 0x184D2A5C, size 8, tag
//! `CJL1`, the data frame's byte length as u32 LE) that pins the frame's extent. `zstd -dc`
//! skips it, and it lets the reader tell a torn last frame (the file ends before the declared
//! length and the decoder wanted more) from a damaged one (anything else that does not decode
//! to exactly the declared length with a good checksum). Only the former is recoverable.

pub use crate::durable::writer_lock::WriterLock;

use crate::failure::{Code, Failure};
use crate::scan::json_text::JsonText;
use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::path::Path;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoding {
    Zstd,
    None,
}

impl Encoding {
    pub fn parse(s: &str) -> Option<Encoding> {
        match s {
            "zstd" => Some(Encoding::Zstd),
            "none" => Some(Encoding::None),
            _ => None,
        }
    }
}

pub const INTENT_MAGIC: u32 = 0x184D_2A5C;
pub const INTENT_TAG: &[u8; 4] = b"CJL1";
pub const INTENT_LEN: usize = 16;
/// zstd's default level; the store's API offers no level switch.
pub const LEVEL: i32 = 3;

/// How frames are compressed. Any profile's frames decode with the same decoder (the window
/// stays far below the decoder's default limit of 2^27), so a profile is no part of the format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Profile {
    /// The store API's small append batches: zstd's default level.
    Batch,
    /// The archive's large frames (up to `archive::write::CHUNK` of transcript text): level 1
    /// with an 8 MiB window and a 2^17 hash table. On transcripts this is about 30% faster than
    /// level 3 and compresses better than level 3 with its default 2 MiB window, because much of
    /// a transcript repeats text from more than 2 MiB before (measured: benches/RESULTS.md, History).
    Archive,
}

impl Profile {
    fn compressor(self) -> Result<zstd::bulk::Compressor<'static>, Failure> {
        use zstd::zstd_safe::CParameter;
        let e = zstd_context;
        let mut c = match self {
            Profile::Batch => zstd::bulk::Compressor::new(LEVEL).map_err(e)?,
            Profile::Archive => {
                let mut c = zstd::bulk::Compressor::new(1).map_err(e)?;
                c.set_parameter(CParameter::WindowLog(23)).map_err(e)?;
                c.set_parameter(CParameter::HashLog(17)).map_err(e)?;
                c
            }
        };
        c.include_checksum(true).map_err(e)?;
        c.include_contentsize(true).map_err(e)?;
        Ok(c)
    }
}

/// A zstd context that cannot be made or set up (out of memory): no fault of the input.
fn zstd_context(e: std::io::Error) -> Failure {
    Failure::new(Code::Internal, e.to_string())
}

/// A store file's problem as one phrase, before the caller names the file.
fn corrupt(problem: impl std::fmt::Display) -> Failure {
    Failure::new(Code::Store, format!("corrupt store: {problem}"))
}

thread_local! {
    /// One (de)compression context per thread and profile: creating one costs more than a
    /// small batch.
    static COMPRESSORS: std::cell::RefCell<[Option<zstd::bulk::Compressor<'static>>; 2]> = const { std::cell::RefCell::new([None, None]) };
    static DECOMPRESSOR: std::cell::RefCell<Option<zstd::bulk::Decompressor<'static>>> = const { std::cell::RefCell::new(None) };
}

/// Encodes one batch of whole JSONL lines (each ending in `\n`) as the bytes to append.
pub fn encode_batch(lines: &[u8], enc: Encoding) -> Result<Vec<u8>, Failure> {
    encode_batch_with(lines, enc, Profile::Batch)
}

/// `encode_batch` with the compression profile chosen.
pub fn encode_batch_with(lines: &[u8], enc: Encoding, profile: Profile) -> Result<Vec<u8>, Failure> {
    if lines.is_empty() || lines.last() != Some(&b'\n') {
        return Err(Failure::new(Code::InvalidArgument, "a batch must be whole lines ending in a newline"));
    }
    match enc {
        Encoding::None => Ok(lines.to_vec()),
        Encoding::Zstd => {
            // the frame is compressed straight after its marker (no second buffer, no copy)
            let mut out = Vec::with_capacity(INTENT_LEN + zstd::zstd_safe::compress_bound(lines.len()));
            out.extend_from_slice(&INTENT_MAGIC.to_le_bytes());
            out.extend_from_slice(&8u32.to_le_bytes());
            out.extend_from_slice(INTENT_TAG);
            out.extend_from_slice(&0u32.to_le_bytes());
            let mut cursor = std::io::Cursor::new(out);
            cursor.set_position(INTENT_LEN as u64);
            let n = COMPRESSORS.with(|cell| {
                let slot = &mut cell.borrow_mut()[profile as usize];
                if slot.is_none() {
                    *slot = Some(profile.compressor()?);
                }
                slot.as_mut().expect("just set").compress_to_buffer(lines, &mut cursor).map_err(zstd_context)
            })?;
            let mut out = cursor.into_inner();
            let len = u32::try_from(n).map_err(|_| Failure::new(Code::InvalidArgument, "a batch frame over 4 GiB"))?;
            out[12..16].copy_from_slice(&len.to_le_bytes());
            Ok(out)
        }
    }
}

/// A torn tail found by `scan`: the file is to be cut back to `at`, and `kept` (whole lines
/// decoded from the torn frame, also present in `Scanned::data`) re-encoded as one batch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Torn {
    pub at: u64,
    pub kept: Vec<u8>,
    pub kept_records: usize,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scanned {
    /// The header line, without its newline.
    pub header: Vec<u8>,
    /// Every record line after the header, each ending in `\n` (torn-frame survivors included).
    pub data: Vec<u8>,
    pub records: usize,
    pub file_len: u64,
    /// Batches (frames, or for `none` the header line counts as one) that are complete.
    pub frames: usize,
    pub torn: Option<Torn>,
}

/// Counts the lines of decoded batch text and checks each is a JSON object (by the grammar
/// the archive's writer uses to embed lines, so what it wrote always reads back).
fn check_lines(json: &mut JsonText, text: &[u8], what: &str) -> Result<usize, Failure> {
    let mut n = 0;
    for line in text.split_inclusive(|&b| b == b'\n') {
        let body = &line[..line.len() - 1];
        let object = body.iter().find(|c| !matches!(c, b' ' | b'\t' | b'\r')) == Some(&b'{');
        if !object || !json.check(body) {
            return Err(corrupt(format_args!("{what} is not a JSON object")));
        }
        n += 1;
    }
    Ok(n)
}

pub fn decode_frame(frame: &[u8], at: usize) -> Result<Vec<u8>, Failure> {
    let mut out = Vec::new();
    decode_frame_into(frame, at, &mut out)?;
    Ok(out)
}

/// Decodes one complete frame, appending its text to `out` (no intermediate copy: `load` hands
/// `out` to JS as it is).
pub fn decode_frame_into(frame: &[u8], at: usize, out: &mut Vec<u8>) -> Result<(), Failure> {
    let size = zstd::zstd_safe::get_frame_content_size(frame)
        .ok()
        .flatten()
        .ok_or_else(|| corrupt(format_args!("bad frame header at byte {at}")))?;
    if size > (1u64 << 32) {
        return Err(corrupt(format_args!("implausible frame size at byte {at}")));
    }
    let start = out.len();
    out.reserve_exact(size as usize);
    let mut cursor = std::io::Cursor::new(std::mem::take(out));
    cursor.set_position(start as u64);
    let r = DECOMPRESSOR.with(|cell| {
        let mut slot = cell.borrow_mut();
        if slot.is_none() {
            *slot = Some(zstd::bulk::Decompressor::new()?);
        }
        slot.as_mut().expect("just set").decompress_to_buffer(frame, &mut cursor)
    });
    *out = cursor.into_inner();
    let n = r.map_err(|e| {
        out.truncate(start);
        corrupt(format_args!("frame at byte {at} does not decode ({e})"))
    })?;
    if n as u64 != size || out.last() != Some(&b'\n') {
        out.truncate(start);
        return Err(corrupt(format_args!("frame at byte {at} does not hold whole lines")));
    }
    Ok(())
}

/// Decodes as much of a torn frame as there is; Err if the bytes themselves are bad or the
/// frame completes (then it is not torn, it is shorter than declared: damage).
fn decode_torn(part: &[u8], at: usize) -> Result<Vec<u8>, Failure> {
    use zstd::stream::raw::{Decoder, InBuffer, Operation, OutBuffer};
    let mut d = Decoder::new().map_err(zstd_context)?;
    let mut out = Vec::new();
    let mut chunk = vec![0u8; 1 << 16];
    let mut input = InBuffer::around(part);
    loop {
        let mut ob = OutBuffer::around(&mut chunk[..]);
        let hint = d
            .run(&mut input, &mut ob)
            .map_err(|e| corrupt(format_args!("frame at byte {at} does not decode ({e})")))?;
        let produced = ob.pos();
        out.extend_from_slice(&chunk[..produced]);
        if hint == 0 {
            return Err(corrupt(format_args!("frame at byte {at} is shorter than declared")));
        }
        if input.pos() == part.len() && produced < chunk.len() {
            break;
        }
    }
    Ok(out)
}

/// Reads a whole store file's bytes: validates every complete frame (or line) and finds a torn
/// tail. Errors are one phrase; the caller names the file.
pub fn scan(bytes: &[u8], enc: Encoding) -> Result<Scanned, Failure> {
    let mut json = JsonText::default();
    if bytes.is_empty() {
        return Err(corrupt("empty file (no header)"));
    }
    let mut s = Scanned {
        header: Vec::new(),
        data: Vec::new(),
        records: 0,
        file_len: bytes.len() as u64,
        frames: 0,
        torn: None,
    };
    match enc {
        Encoding::None => {
            let Some(nl) = memchr::memchr(b'\n', bytes) else {
                return Err(corrupt("no complete header line"));
            };
            check_lines(&mut json, &bytes[..=nl], "the header line")?;
            s.header = bytes[..nl].to_vec();
            s.frames = 1;
            let rest = &bytes[nl + 1..];
            let whole = memchr::memrchr(b'\n', rest).map_or(0, |i| i + 1);
            s.records = check_lines(&mut json, &rest[..whole], "a record line")?;
            s.data = rest[..whole].to_vec();
            if whole < rest.len() {
                s.torn = Some(Torn { at: (nl + 1 + whole) as u64, kept: Vec::new(), kept_records: 0 });
            }
        }
        Encoding::Zstd => {
            let mut pos = 0usize;
            while pos < bytes.len() {
                let rest = &bytes[pos..];
                if rest.len() < INTENT_LEN {
                    if s.frames == 0 || !is_intent_prefix(rest) {
                        return Err(corrupt(format_args!("damaged frame marker at byte {pos}")));
                    }
                    s.torn = Some(Torn { at: pos as u64, kept: Vec::new(), kept_records: 0 });
                    break;
                }
                let len =
                    parse_intent(rest).ok_or_else(|| corrupt(format_args!("damaged frame marker at byte {pos}")))?;
                let body = &rest[INTENT_LEN..];
                let fpos = pos + INTENT_LEN;
                if body.len() < len {
                    if s.frames == 0 {
                        return Err(corrupt("no complete header frame"));
                    }
                    let text = decode_torn(body, fpos)?;
                    let whole = memchr::memrchr(b'\n', &text).map_or(0, |i| i + 1);
                    let n = check_lines(&mut json, &text[..whole], "a line of the torn frame")?;
                    s.data.extend_from_slice(&text[..whole]);
                    s.records += n;
                    s.torn = Some(Torn { at: pos as u64, kept: text[..whole].to_vec(), kept_records: n });
                    break;
                }
                let frame = &body[..len];
                match zstd::zstd_safe::find_frame_compressed_size(frame) {
                    Ok(n) if n == len => {}
                    _ => {
                        return Err(corrupt(format_args!(
                            "frame at byte {fpos} is not one frame of the declared length"
                        )))
                    }
                }
                if s.frames == 0 {
                    let text = decode_frame(frame, fpos)?;
                    if memchr::memchr(b'\n', &text) != Some(text.len() - 1) {
                        return Err(corrupt("the header frame does not hold exactly one line"));
                    }
                    check_lines(&mut json, &text, "the header frame")?;
                    s.header = text[..text.len() - 1].to_vec();
                } else {
                    let from = s.data.len();
                    decode_frame_into(frame, fpos, &mut s.data)?;
                    s.records += memchr::memchr_iter(b'\n', &s.data[from..]).count();
                }
                s.frames += 1;
                pos = fpos + len;
            }
        }
    }
    Ok(s)
}

/// The `(offset, length)` of each complete frame body, and where a torn tail begins.
pub type FrameSpans = (Vec<(usize, usize)>, Option<usize>);

/// Where the complete frames of a zstd store file lie: `(offset, length)` of each frame body,
/// the header frame first, each checked to be one frame of its declared length (not decoded).
/// Also returns where a torn tail begins, if the file ends inside a frame.
pub fn frame_spans(bytes: &[u8]) -> Result<FrameSpans, Failure> {
    let mut spans = Vec::new();
    let mut pos = 0usize;
    while pos < bytes.len() {
        let rest = &bytes[pos..];
        if rest.len() < INTENT_LEN {
            if spans.is_empty() || !is_intent_prefix(rest) {
                return Err(corrupt(format_args!("damaged frame marker at byte {pos}")));
            }
            return Ok((spans, Some(pos)));
        }
        let len = parse_intent(rest).ok_or_else(|| corrupt(format_args!("damaged frame marker at byte {pos}")))?;
        let fpos = pos + INTENT_LEN;
        if bytes.len() - fpos < len {
            if spans.is_empty() {
                return Err(corrupt("no complete header frame"));
            }
            return Ok((spans, Some(pos)));
        }
        match zstd::zstd_safe::find_frame_compressed_size(&bytes[fpos..fpos + len]) {
            Ok(n) if n == len => {}
            _ => return Err(corrupt(format_args!("frame at byte {fpos} is not one frame of the declared length"))),
        }
        spans.push((fpos, len));
        pos = fpos + len;
    }
    if spans.is_empty() {
        return Err(corrupt("empty file (no header)"));
    }
    Ok((spans, None))
}

fn is_intent_prefix(rest: &[u8]) -> bool {
    let mut full = Vec::with_capacity(12);
    full.extend_from_slice(&INTENT_MAGIC.to_le_bytes());
    full.extend_from_slice(&8u32.to_le_bytes());
    full.extend_from_slice(INTENT_TAG);
    let n = rest.len().min(12);
    rest[..n] == full[..n]
}

fn parse_intent(b: &[u8]) -> Option<usize> {
    if u32::from_le_bytes(b[0..4].try_into().ok()?) != INTENT_MAGIC
        || u32::from_le_bytes(b[4..8].try_into().ok()?) != 8
        || &b[8..12] != INTENT_TAG
    {
        return None;
    }
    let len = u32::from_le_bytes(b[12..16].try_into().ok()?) as usize;
    (len > 0).then_some(len)
}

/// A store file that cannot be read: `path: problem`, a `store` failure (the file is the
/// store's, whatever the operating system said).
fn unreadable(path: &Path, e: &std::io::Error) -> Failure {
    Failure::at(Code::Store, path, crate::io_message(e))
}

/// Reads only the header line: the first frame (zstd) or the first line (none).
pub fn read_header(path: &Path, enc: Encoding) -> Result<Vec<u8>, Failure> {
    let mut f = File::open(path).map_err(|e| unreadable(path, &e))?;
    let bad = |problem: &str| corrupt(problem).in_file(path);
    let mut json = JsonText::default();
    match enc {
        Encoding::Zstd => {
            let mut intent = [0u8; INTENT_LEN];
            f.read_exact(&mut intent).map_err(|_| bad("no complete header frame"))?;
            let len = parse_intent(&intent).ok_or_else(|| bad("damaged frame marker at byte 0"))?;
            if len > 64 << 20 {
                return Err(bad("implausible header frame length"));
            }
            let mut frame = vec![0u8; len];
            f.read_exact(&mut frame).map_err(|_| bad("no complete header frame"))?;
            match zstd::zstd_safe::find_frame_compressed_size(&frame) {
                Ok(n) if n == len => {}
                _ => return Err(bad("the header frame is not one frame of the declared length")),
            }
            let text = decode_frame(&frame, INTENT_LEN).map_err(|e| e.in_file(path))?;
            if memchr::memchr(b'\n', &text) != Some(text.len() - 1) {
                return Err(bad("the header frame does not hold exactly one line"));
            }
            check_lines(&mut json, &text, "the header frame").map_err(|e| e.in_file(path))?;
            Ok(text[..text.len() - 1].to_vec())
        }
        Encoding::None => {
            let mut buf = Vec::new();
            let mut chunk = vec![0u8; 64 << 10];
            loop {
                let n = f.read(&mut chunk).map_err(|e| unreadable(path, &e))?;
                if n == 0 {
                    return Err(bad("no complete header line"));
                }
                let from = buf.len();
                buf.extend_from_slice(&chunk[..n]);
                if let Some(i) = memchr::memchr(b'\n', &buf[from..]) {
                    let end = from + i;
                    check_lines(&mut json, &buf[..=end], "the header line").map_err(|e| e.in_file(path))?;
                    buf.truncate(end);
                    return Ok(buf);
                }
            }
        }
    }
}

/// Reads a store file; with `repair`, a torn tail is cut back to its start (fsync) and the
/// surviving whole records re-encoded as one batch (fsync). Errors name the file.
pub fn load(path: &Path, enc: Encoding, repair: bool) -> Result<(Scanned, bool), Failure> {
    let bytes = std::fs::read(path).map_err(|e| unreadable(path, &e))?;
    let s = scan(&bytes, enc).map_err(|e| e.in_file(path))?;
    let mut repaired = false;
    if repair {
        if let Some(t) = &s.torn {
            let io = |e: std::io::Error| {
                Failure::at(Code::Store, path, format_args!("repair failed: {}", crate::io_message(&e)))
            };
            let mut f = OpenOptions::new().write(true).open(path).map_err(io)?;
            f.set_len(t.at).map_err(io)?;
            f.sync_all().map_err(io)?;
            if !t.kept.is_empty() {
                let enc_bytes = encode_batch(&t.kept, enc).map_err(|e| e.recoded(Code::Store).in_file(path))?;
                use std::io::Seek;
                f.seek(std::io::SeekFrom::Start(t.at)).map_err(io)?;
                if let Err(e) = f.write_all(&enc_bytes).and_then(|_| f.sync_all()) {
                    let _ = f.set_len(t.at);
                    let _ = f.sync_all();
                    return Err(io(e));
                }
            }
            repaired = true;
        }
    }
    Ok((s, repaired))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header() -> Vec<u8> {
        b"{\"type\":\"session\",\"version\":0,\"id\":\"s1\",\"createdAt\":\"2026-11-30T00:00:00Z\"}\n".to_vec()
    }
    fn batch(from: usize, n: usize) -> Vec<u8> {
        (from..from + n)
            .map(|i| format!("{{\"seq\":{i},\"type\":\"user/text\",\"data\":{{\"text\":\"hello {i} world\"}}}}\n"))
            .collect::<String>()
            .into_bytes()
    }
    /// A small store: header frame + three batches; returns bytes, the records text, and the end
    /// offset of each frame.
    fn build(enc: Encoding) -> (Vec<u8>, Vec<u8>, Vec<usize>) {
        let mut file = encode_batch(&header(), enc).unwrap();
        let mut ends = vec![file.len()];
        let mut text = Vec::new();
        for (from, n) in [(0, 2), (2, 3), (5, 1)] {
            let b = batch(from, n);
            file.extend(encode_batch(&b, enc).unwrap());
            text.extend(b);
            ends.push(file.len());
        }
        (file, text, ends)
    }

    #[test]
    fn round_trip_both_encodings() {
        for enc in [Encoding::Zstd, Encoding::None] {
            let (file, text, _) = build(enc);
            let s = scan(&file, enc).unwrap();
            assert_eq!(s.header, header()[..header().len() - 1]);
            assert_eq!(s.data, text);
            assert_eq!(s.records, 6);
            assert_eq!(s.torn, None);
        }
    }

    #[test]
    fn zstd_store_is_standard_zstd() {
        let (file, text, _) = build(Encoding::Zstd);
        let mut all = header();
        all.extend(text);
        assert_eq!(zstd::stream::decode_all(&file[..]).unwrap(), all);
    }

    #[test]
    fn truncation_at_every_offset_keeps_committed_records() {
        for enc in [Encoding::Zstd, Encoding::None] {
            let (file, text, ends) = build(enc);
            let lines: Vec<&[u8]> = text.split_inclusive(|&b| b == b'\n').collect();
            for cut in 1..file.len() {
                let got = scan(&file[..cut], enc);
                if cut < ends[0] {
                    assert!(got.is_err(), "{enc:?} cut {cut}: no header must be refused");
                    continue;
                }
                let s = got.unwrap_or_else(|e| panic!("{enc:?} cut {cut}: {e}"));
                // every record of a complete batch is there, and only original records, in order
                let complete = ends.iter().filter(|&&e| e <= cut).count() - 1;
                let committed: usize = [2, 3, 1][..complete].iter().sum();
                assert!(s.records >= committed, "{enc:?} cut {cut}");
                assert_eq!(s.data, lines[..s.records].concat(), "{enc:?} cut {cut}");
                let clean = match enc {
                    Encoding::Zstd => ends.contains(&cut),
                    Encoding::None => file[cut - 1] == b'\n',
                };
                assert_eq!(s.torn.is_some(), !clean, "{enc:?} cut {cut}");
                // repair, then the store reads clean with the same records
                if let Some(t) = &s.torn {
                    let mut fixed = file[..t.at as usize].to_vec();
                    if !t.kept.is_empty() {
                        fixed.extend(encode_batch(&t.kept, enc).unwrap());
                    }
                    let again = scan(&fixed, enc).unwrap();
                    assert_eq!(again.torn, None);
                    assert_eq!(again.data, s.data);
                }
            }
        }
    }

    #[test]
    fn byte_flip_at_every_offset_is_refused_or_harmless() {
        let enc = Encoding::Zstd;
        let (file, text, _) = build(enc);
        let mut refused = 0;
        for at in 0..file.len() {
            for mask in [0x01u8, 0x80, 0xff] {
                let mut bad = file.clone();
                bad[at] ^= mask;
                match scan(&bad, enc) {
                    Err(e) => {
                        assert!(e.message.starts_with("corrupt store") && e.code == Code::Store, "{e}");
                        refused += 1;
                    }
                    // a flip zstd ignores (e.g. a window-size bit) must change nothing
                    Ok(s) => {
                        assert_eq!(
                            (s.data.as_slice(), s.records, s.torn),
                            (text.as_slice(), 6, None),
                            "flip {mask:#x} at {at}"
                        )
                    }
                }
            }
        }
        assert!(refused > file.len() * 2, "{refused}");
    }

    #[test]
    fn none_mode_flip_is_refused_or_cuts_only_the_last_line() {
        let enc = Encoding::None;
        let (file, text, _) = build(enc);
        for at in 0..file.len() - 1 {
            let mut bad = file.clone();
            bad[at] ^= 0x80;
            if let Ok(s) = scan(&bad, enc) {
                panic!("flip at {at} accepted: {} records", s.records);
            }
        }
        // the last newline lost: that record is an incomplete line and is cut
        let s = scan(&file[..file.len() - 1], enc).unwrap();
        assert_eq!(s.records, 5);
        assert!(text.starts_with(&s.data));
    }

    #[test]
    fn file_repair_truncates_and_reencodes() {
        let dir = std::env::temp_dir().join(format!("cj-store-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("session.jsonl.zstd");
        let (file, text, ends) = build(Encoding::Zstd);
        let cut = ends[2] + (ends[3] - ends[2]) * 3 / 4;
        std::fs::write(&path, &file[..cut]).unwrap();
        let (s, repaired) = load(&path, Encoding::Zstd, true).unwrap();
        assert!(repaired);
        let (again, r2) = load(&path, Encoding::Zstd, true).unwrap();
        assert!(!r2);
        assert_eq!(again.data, s.data);
        assert!(text.starts_with(&s.data));
        assert_eq!(read_header(&path, Encoding::Zstd).unwrap(), header()[..header().len() - 1]);
        std::fs::write(&path, b"garbage").unwrap();
        let e = load(&path, Encoding::Zstd, false).unwrap_err();
        assert!(e.message.starts_with(&path.display().to_string()), "{e}");
        assert_eq!((e.code, e.path), (Code::Store, Some(path.display().to_string())));
        let missing = load(&dir.join("missing"), Encoding::Zstd, false).unwrap_err();
        assert_eq!(missing.code, Code::Store, "an unreadable store file is a store failure");
        assert_eq!(encode_batch(b"no newline", Encoding::Zstd).unwrap_err().code, Code::InvalidArgument);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
