//! The archive's event form: how raw transcript bytes become store events and back, exactly.
//!
//! Transcript bytes are cut at each `\n`; every piece becomes one event line:
//! - `{"seq":N,"type":"line","data":RAW}` when the piece (without its `\n`) is a JSON value:
//!   RAW is embedded verbatim, so the stored line is still JSON and restoring is a slice;
//! - `{"seq":N,"type":"bytes","base64":"…"}` otherwise (a BOM, a line that is not JSON, a blank
//!   line, a last line without its newline): the exact bytes, newline included when present.
//!
//! After each run's bytes comes `{"seq":N,"type":"mark","size":S,"sha256":"…","mtimeNs":"…"}`:
//! the source's first S bytes hash to that digest. Bytes after the last mark belong to a run
//! that did not finish and are not part of the archive; the next run first appends
//! `{"seq":N,"type":"cut","size":S}`, which drops decoded bytes back to S.

use crate::failure::{Code, Failure};
use crate::scan::json_text::JsonText;

const LINE_HEAD: &[u8] = b",\"type\":\"line\",\"data\":";
const BYTES_HEAD: &[u8] = b",\"type\":\"bytes\",\"base64\":\"";
const MARK_HEAD: &[u8] = b",\"type\":\"mark\",\"size\":";
const CUT_HEAD: &[u8] = b",\"type\":\"cut\",\"size\":";
const SEQ_HEAD: &[u8] = b"{\"seq\":";

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mark {
    pub size: u64,
    pub sha256: String,
    pub mtime_ns: i128,
}

fn push_seq(out: &mut Vec<u8>, seq: u64) {
    out.extend_from_slice(SEQ_HEAD);
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    let mut n = seq;
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend_from_slice(&digits[at..]);
}

/// Appends the events for `bytes` (any bytes: they need not start or end at a line boundary)
/// to `out`, numbering from `seq`; returns the next seq.
pub fn encode(json: &mut JsonText, bytes: &[u8], mut seq: u64, out: &mut Vec<u8>) -> u64 {
    out.reserve(bytes.len() + bytes.len() / 16 + 64);
    let mut pos = 0;
    while pos < bytes.len() {
        let (body, end) = match memchr::memchr(b'\n', &bytes[pos..]) {
            Some(i) => (&bytes[pos..pos + i], pos + i + 1),
            None => (&bytes[pos..], bytes.len()),
        };
        let terminated = end > pos + body.len();
        push_seq(out, seq);
        if terminated && json.check(body) {
            out.extend_from_slice(LINE_HEAD);
            out.extend_from_slice(body);
            out.extend_from_slice(b"}\n");
        } else {
            out.extend_from_slice(BYTES_HEAD);
            base64_encode(&bytes[pos..end], out);
            out.extend_from_slice(b"\"}\n");
        }
        seq += 1;
        pos = end;
    }
    seq
}

pub fn mark_event(seq: u64, m: &Mark) -> Vec<u8> {
    let mut out = Vec::with_capacity(160);
    push_seq(&mut out, seq);
    out.extend_from_slice(MARK_HEAD);
    out.extend_from_slice(
        format!("{},\"sha256\":\"{}\",\"mtimeNs\":\"{}\"}}\n", m.size, m.sha256, m.mtime_ns).as_bytes(),
    );
    out
}

pub fn cut_event(seq: u64, size: u64) -> Vec<u8> {
    let mut out = Vec::with_capacity(64);
    push_seq(&mut out, seq);
    out.extend_from_slice(CUT_HEAD);
    out.extend_from_slice(format!("{size}}}\n").as_bytes());
    out
}

/// One decoded event.
pub enum Event<'a> {
    /// Raw bytes of the transcript: a verbatim slice plus whether a `\n` follows it.
    Line(&'a [u8]),
    Bytes(Vec<u8>),
    Mark(Mark),
    Cut(u64),
}

/// The seq an event line carries and the rest of the line after it.
fn split_seq(line: &[u8]) -> Option<(u64, &[u8])> {
    let rest = line.strip_prefix(SEQ_HEAD)?;
    let digits = rest.iter().take_while(|c| c.is_ascii_digit()).count();
    let seq = std::str::from_utf8(&rest[..digits]).ok()?.parse().ok()?;
    Some((seq, &rest[digits..]))
}

/// The seq an event line carries, if it is an event line at all.
pub fn seq_of(line: &[u8]) -> Option<u64> {
    split_seq(line).map(|(seq, _)| seq)
}

/// Decodes one event line (without its `\n`); `want` is the seq it must carry.
pub fn decode(line: &[u8], want: u64) -> Result<Event<'_>, Failure> {
    let bad = || Failure::new(Code::Archive, format!("corrupt archive: record {} is not an archive event", want + 1));
    let (seq, rest) = split_seq(line).ok_or_else(bad)?;
    if seq != want {
        return Err(Failure::new(Code::Archive, format!("corrupt archive: record {} has seq {seq}", want + 1)));
    }
    if let Some(raw) = rest.strip_prefix(LINE_HEAD) {
        return raw.strip_suffix(b"}").map(Event::Line).ok_or_else(bad);
    }
    if let Some(b) = rest.strip_prefix(BYTES_HEAD) {
        let b = b.strip_suffix(b"\"}").ok_or_else(bad)?;
        return base64_decode(b).map(Event::Bytes).ok_or_else(bad);
    }
    if let Some(m) = rest.strip_prefix(MARK_HEAD) {
        let text = std::str::from_utf8(m).map_err(|_| bad())?;
        let (size, rest) = text.split_once(",\"sha256\":\"").ok_or_else(bad)?;
        let (sha, rest) = rest.split_once("\",\"mtimeNs\":\"").ok_or_else(bad)?;
        let mtime = rest.strip_suffix("\"}").ok_or_else(bad)?;
        return Ok(Event::Mark(Mark {
            size: size.parse().map_err(|_| bad())?,
            sha256: sha.to_string(),
            mtime_ns: mtime.parse().map_err(|_| bad())?,
        }));
    }
    if let Some(c) = rest.strip_prefix(CUT_HEAD) {
        let n = std::str::from_utf8(c).ok().and_then(|s| s.strip_suffix('}')).and_then(|s| s.parse().ok());
        return n.map(Event::Cut).ok_or_else(bad);
    }
    Err(bad())
}

const B64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

pub fn base64_encode(bytes: &[u8], out: &mut Vec<u8>) {
    for c in bytes.chunks(3) {
        let n = (c[0] as u32) << 16 | (*c.get(1).unwrap_or(&0) as u32) << 8 | *c.get(2).unwrap_or(&0) as u32;
        out.push(B64[(n >> 18) as usize & 63]);
        out.push(B64[(n >> 12) as usize & 63]);
        out.push(if c.len() > 1 { B64[(n >> 6) as usize & 63] } else { b'=' });
        out.push(if c.len() > 2 { B64[n as usize & 63] } else { b'=' });
    }
}

pub fn base64_decode(text: &[u8]) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(4) {
        return None;
    }
    let val = |c: u8| B64.iter().position(|&b| b == c).map(|v| v as u32);
    let mut out = Vec::with_capacity(text.len() / 4 * 3);
    for (i, q) in text.chunks(4).enumerate() {
        let last = i == text.len() / 4 - 1;
        let pad = q.iter().rev().take_while(|&&c| c == b'=').count();
        if pad > 2 || (pad > 0 && !last) {
            return None;
        }
        let mut n = 0u32;
        for &c in &q[..4 - pad] {
            n = n << 6 | val(c)?;
        }
        n <<= 6 * pad as u32;
        let b = [(n >> 16) as u8, (n >> 8) as u8, n as u8];
        out.extend_from_slice(&b[..3 - pad]);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Decodes a sequence of event lines back to bytes (marks and cuts applied).
    fn replay(text: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        for (i, line) in text.split(|&b| b == b'\n').filter(|l| !l.is_empty()).enumerate() {
            match decode(line, i as u64).unwrap() {
                Event::Line(raw) => {
                    out.extend_from_slice(raw);
                    out.push(b'\n');
                }
                Event::Bytes(b) => out.extend(b),
                Event::Mark(m) => assert_eq!(m.size, out.len() as u64),
                Event::Cut(n) => out.truncate(n as usize),
            }
        }
        out
    }

    #[test]
    fn every_awkward_input_round_trips_and_stays_json() {
        let cases: Vec<&[u8]> = vec![
            b"",
            b"{\"a\":1}\n",
            b"\xEF\xBB\xBF{\"a\":1}\n{\"b\":2}\r\n",
            b"{\"a\":1}\n{\"torn\":",
            b"not json\n\n   \n{\"x\":\"\\ud83d\"}\n",
            b"[1,2]\n\"s\"\n42\nnull\n\xff\xfe bad utf8\n",
            b"\n\n",
            b"{\"a\":1}\r",
            b"x",
        ];
        let mut json = JsonText::default();
        let mut parser = crate::scan::Parser::default();
        for c in cases {
            let mut out = Vec::new();
            let next = encode(&mut json, c, 0, &mut out);
            assert_eq!(next as usize, out.iter().filter(|&&b| b == b'\n').count());
            for line in out.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
                assert!(parser.parse_with(line, |_| ()).is_some(), "{}", String::from_utf8_lossy(line));
            }
            assert_eq!(replay(&out), c, "{}", String::from_utf8_lossy(c));
        }
    }

    #[test]
    fn pieces_split_anywhere_concatenate_back() {
        let src: &[u8] = b"{\"a\":1}\nbad\n{\"b\":[1,2,3]}\r\n\xEF\xBB\xBF\n{\"c\":";
        let mut json = JsonText::default();
        for cut in 0..=src.len() {
            let mut out = Vec::new();
            let seq = encode(&mut json, &src[..cut], 0, &mut out);
            out.extend(mark_event(seq, &Mark { size: cut as u64, sha256: "x".into(), mtime_ns: 1 }));
            encode(&mut json, &src[cut..], seq + 1, &mut out);
            assert_eq!(replay(&out), src, "cut {cut}");
        }
    }

    #[test]
    fn marks_and_cuts_decode() {
        let m = Mark { size: 12, sha256: "ab".repeat(32), mtime_ns: 1_732_000_000_123_456_789 };
        let line = mark_event(3, &m);
        match decode(&line[..line.len() - 1], 3).unwrap() {
            Event::Mark(got) => assert_eq!(got, m),
            _ => panic!(),
        }
        let cut = cut_event(4, 7);
        assert!(matches!(decode(&cut[..cut.len() - 1], 4).unwrap(), Event::Cut(7)));
        assert!(decode(&cut[..cut.len() - 1], 5).is_err());
        assert!(decode(b"{\"seq\":0,\"type\":\"other\"}", 0).is_err());
    }

    #[test]
    fn base64_round_trip() {
        for n in 0..40usize {
            let b: Vec<u8> = (0..n).map(|i| (i * 37 + 11) as u8).collect();
            let mut e = Vec::new();
            base64_encode(&b, &mut e);
            assert_eq!(base64_decode(&e).unwrap(), b);
        }
        assert!(base64_decode(b"A===").is_none());
    }
}
