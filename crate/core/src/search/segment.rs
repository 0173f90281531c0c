//! One document (a session transcript) as the search keeps it: its metadata and a sorted term
//! table (term, frequency, and the record where the term occurs most). A segment is a byte
//! string, the same in memory and in the index file, and is read in place without decoding.
//!
//! Layout (little endian): u32 total length; u16+bytes path, project, session id, agent id (empty for
//! a main transcript); u64 size;
//! f64 mtime ms; u64 hash of the file's last (up to) 4 KiB; i64 first and last timestamp ms
//! (i64::MIN: none); u64 tokens; u32 records with text; u32 lines; u32 term count; u32 blob
//! length; term entries of 32 bytes each (u32 term offset in blob, u32 term length, u32 tf,
//! u32 occurrences in the best record, u32 line, u64 record offset, u32 record length); the
//! blob of term bytes.

pub const NO_TIME: i64 = i64::MIN;
/// Bytes at the end of a file whose hash a segment keeps.
pub const TAIL_BYTES: u64 = 4096;
const ENTRY: usize = 32;

/// Where a term occurs most often in a document, and how often overall.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Posting {
    pub tf: u32,
    /// Occurrences in the record below (the record holding the most).
    pub best: u32,
    pub line: u32,
    pub offset: u64,
    pub len: u32,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct DocMeta {
    pub path: String,
    pub project: String,
    pub session_id: String,
    /// The subagent this file holds, empty for a session's main transcript.
    pub agent_id: String,
    pub size: u64,
    pub mtime_ms: f64,
    /// Hash of the file's last (up to) [`TAIL_BYTES`] bytes: an append is read alone only if
    /// they are unchanged.
    pub tail_hash: u64,
    pub first_ms: i64,
    pub last_ms: i64,
    pub tokens: u64,
    pub records: u32,
    pub lines: u32,
}

fn put_str(out: &mut Vec<u8>, s: &str) {
    let b = &s.as_bytes()[..s.len().min(u16::MAX as usize)];
    out.extend_from_slice(&(b.len() as u16).to_le_bytes());
    out.extend_from_slice(b);
}

/// Serializes a document; `terms` need not be sorted.
pub fn encode(meta: &DocMeta, mut terms: Vec<(&[u8], Posting)>) -> Vec<u8> {
    terms.sort_unstable_by(|a, b| a.0.cmp(b.0));
    let blob_len: usize = terms.iter().map(|t| t.0.len()).sum();
    let mut out = Vec::with_capacity(64 + meta.path.len() + terms.len() * ENTRY + blob_len);
    out.extend_from_slice(&[0; 4]);
    put_str(&mut out, &meta.path);
    put_str(&mut out, &meta.project);
    put_str(&mut out, &meta.session_id);
    put_str(&mut out, &meta.agent_id);
    out.extend_from_slice(&meta.size.to_le_bytes());
    out.extend_from_slice(&meta.mtime_ms.to_le_bytes());
    out.extend_from_slice(&meta.tail_hash.to_le_bytes());
    out.extend_from_slice(&meta.first_ms.to_le_bytes());
    out.extend_from_slice(&meta.last_ms.to_le_bytes());
    out.extend_from_slice(&meta.tokens.to_le_bytes());
    out.extend_from_slice(&meta.records.to_le_bytes());
    out.extend_from_slice(&meta.lines.to_le_bytes());
    out.extend_from_slice(&(terms.len() as u32).to_le_bytes());
    out.extend_from_slice(&(blob_len as u32).to_le_bytes());
    let mut at = 0u32;
    for (t, p) in &terms {
        out.extend_from_slice(&at.to_le_bytes());
        out.extend_from_slice(&(t.len() as u32).to_le_bytes());
        out.extend_from_slice(&p.tf.to_le_bytes());
        out.extend_from_slice(&p.best.to_le_bytes());
        out.extend_from_slice(&p.line.to_le_bytes());
        out.extend_from_slice(&p.offset.to_le_bytes());
        out.extend_from_slice(&p.len.to_le_bytes());
        at += t.len() as u32;
    }
    for (t, _) in &terms {
        out.extend_from_slice(t);
    }
    let total = out.len() as u32;
    out[..4].copy_from_slice(&total.to_le_bytes());
    out
}

/// A segment read in place.
#[derive(Clone, Copy)]
pub struct Segment<'a> {
    bytes: &'a [u8],
    pub path: &'a str,
    pub project: &'a str,
    pub session_id: &'a str,
    pub agent_id: &'a str,
    pub size: u64,
    pub mtime_ms: f64,
    pub tail_hash: u64,
    pub first_ms: i64,
    pub last_ms: i64,
    pub tokens: u64,
    pub records: u32,
    pub lines: u32,
    n_terms: usize,
    entries_at: usize,
    blob_at: usize,
}

struct Reader<'a> {
    b: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let s = self.b.get(self.at..self.at + n)?;
        self.at += n;
        Some(s)
    }
    fn u16(&mut self) -> Option<u16> {
        Some(u16::from_le_bytes(self.take(2)?.try_into().ok()?))
    }
    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }
    fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }
    fn str(&mut self) -> Option<&'a str> {
        let n = self.u16()? as usize;
        std::str::from_utf8(self.take(n)?).ok()
    }
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().expect("4 bytes"))
}

impl<'a> Segment<'a> {
    /// Reads the segment at the start of `bytes`; returns it and its length, or None when the
    /// bytes are not a whole, consistent segment (a damaged index is rebuilt, never trusted).
    pub fn parse(bytes: &'a [u8]) -> Option<(Segment<'a>, usize)> {
        let mut r = Reader { b: bytes, at: 0 };
        let total = r.u32()? as usize;
        let bytes = bytes.get(..total)?;
        r.b = bytes;
        let path = r.str()?;
        let project = r.str()?;
        let session_id = r.str()?;
        let agent_id = r.str()?;
        let size = r.u64()?;
        let mtime_ms = f64::from_bits(r.u64()?);
        let tail_hash = r.u64()?;
        let first_ms = r.u64()? as i64;
        let last_ms = r.u64()? as i64;
        let tokens = r.u64()?;
        let records = r.u32()?;
        let lines = r.u32()?;
        let n_terms = r.u32()? as usize;
        let blob_len = r.u32()? as usize;
        let entries_at = r.at;
        let blob_at = entries_at.checked_add(n_terms.checked_mul(ENTRY)?)?;
        if blob_at.checked_add(blob_len)? != total {
            return None;
        }
        let seg = Segment {
            bytes,
            path,
            project,
            session_id,
            agent_id,
            size,
            mtime_ms,
            tail_hash,
            first_ms,
            last_ms,
            tokens,
            records,
            lines,
            n_terms,
            entries_at,
            blob_at,
        };
        Some((seg, total))
    }

    pub fn bytes(&self) -> &'a [u8] {
        self.bytes
    }

    pub fn term_count(&self) -> usize {
        self.n_terms
    }

    /// The i-th term. A damaged entry pointing outside the blob reads as empty rather than
    /// out of bounds (the entries themselves were bounds-checked by `parse`).
    fn term(&self, i: usize) -> &'a [u8] {
        let e = self.entries_at + i * ENTRY;
        let (off, len) = (u32_at(self.bytes, e) as usize, u32_at(self.bytes, e + 4) as usize);
        self.bytes
            .get(self.blob_at.saturating_add(off)..self.blob_at.saturating_add(off).saturating_add(len))
            .unwrap_or(&[])
    }

    fn posting(&self, i: usize) -> Posting {
        let e = self.entries_at + i * ENTRY;
        let b = self.bytes;
        Posting {
            tf: u32_at(b, e + 8),
            best: u32_at(b, e + 12),
            line: u32_at(b, e + 16),
            offset: u64::from_le_bytes(b[e + 20..e + 28].try_into().expect("8 bytes")),
            len: u32_at(b, e + 28),
        }
    }

    /// The posting of `term` in this document (binary search over the sorted table).
    pub fn lookup(&self, term: &[u8]) -> Option<Posting> {
        let (mut lo, mut hi) = (0usize, self.n_terms);
        while lo < hi {
            let mid = (lo + hi) / 2;
            match self.term(mid).cmp(term) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return Some(self.posting(mid)),
            }
        }
        None
    }

    /// Every term with its posting, in term order.
    pub fn terms(&self) -> impl Iterator<Item = (&'a [u8], Posting)> + '_ {
        (0..self.n_terms).map(|i| (self.term(i), self.posting(i)))
    }

    pub fn meta(&self) -> DocMeta {
        DocMeta {
            path: self.path.into(),
            project: self.project.into(),
            session_id: self.session_id.into(),
            agent_id: self.agent_id.into(),
            size: self.size,
            mtime_ms: self.mtime_ms,
            tail_hash: self.tail_hash,
            first_ms: self.first_ms,
            last_ms: self.last_ms,
            tokens: self.tokens,
            records: self.records,
            lines: self.lines,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_lookup() {
        let meta = DocMeta {
            path: "/p/s.jsonl".into(),
            project: "-p".into(),
            session_id: "s".into(),
            agent_id: "a1".into(),
            size: 10,
            mtime_ms: 1.5,
            tail_hash: 99,
            first_ms: NO_TIME,
            last_ms: 7,
            tokens: 3,
            records: 1,
            lines: 2,
        };
        let p = |tf| Posting { tf, best: 1, line: 2, offset: 5, len: 9 };
        let bytes = encode(&meta, vec![(b"zeta".as_slice(), p(1)), (b"alpha".as_slice(), p(2))]);
        let (seg, len) = Segment::parse(&bytes).unwrap();
        assert_eq!(len, bytes.len());
        assert_eq!(seg.meta(), meta);
        assert_eq!(seg.lookup(b"alpha"), Some(p(2)));
        assert_eq!(seg.lookup(b"zeta"), Some(p(1)));
        assert_eq!(seg.lookup(b"beta"), None);
        assert_eq!(seg.terms().map(|(t, _)| t).collect::<Vec<_>>(), [b"alpha".as_slice(), b"zeta"]);
        assert!(Segment::parse(&bytes[..bytes.len() - 1]).is_none());
    }
}
