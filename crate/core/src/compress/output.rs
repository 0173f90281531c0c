//! Builds a rewritten transcript from byte spans of the source: kept records are copied as they
//! are, a few get one member replaced (a byte-span edit), and new lines (the compact pair) are
//! inserted where the caller puts them. Nothing kept is re-serialised.

use super::json_span::{edit_members, MemberEdit, SpanError};
use crate::failure::{Code, Failure};
use crate::scan::Scan;

/// One piece of the output, in order.
pub enum Part<'a> {
    /// Source records copied verbatim, in the order given.
    Records(&'a [u32]),
    /// A source record with some top-level members replaced or added.
    Edited { record: u32, edits: Vec<MemberEdit<'a>> },
    /// A new line (one JSON object, without the line terminator).
    Line(&'a [u8]),
}

#[derive(Debug, PartialEq, Eq)]
pub enum AssembleError {
    /// A record index past the end of the scan.
    NoSuchRecord(u32),
    /// A byte-span edit was refused on this source line (1-based).
    Edit { line: u32, error: SpanError },
    /// The source's bytes of this line could not be read (a file that changed or went away).
    Read { line: u32, error: Failure },
}

impl std::fmt::Display for AssembleError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AssembleError::NoSuchRecord(i) => write!(f, "record {i} does not exist"),
            AssembleError::Edit { line, error: SpanError::DuplicateKey } => {
                write!(f, "line {line}: a key to rewrite occurs twice in the record")
            }
            AssembleError::Edit { line, error: SpanError::NotAnObject } => {
                write!(f, "line {line}: the record could not be edited as one JSON object")
            }
            AssembleError::Read { line, error } => write!(f, "line {line}: cannot read the source ({error})"),
        }
    }
}

impl From<AssembleError> for Failure {
    /// Every way assembling fails means the source is not the one the index was scanned from
    /// (a record it lacks, a line that no longer edits, bytes that changed or went away).
    fn from(e: AssembleError) -> Failure {
        Failure::new(Code::Changed, e.to_string())
    }
}

/// Line terminator and BOM of the output: the source's, so a CRLF file stays CRLF.
pub struct Layout {
    pub bom: bool,
    pub crlf: bool,
}

impl Layout {
    /// CRLF when most terminated source lines end in CRLF.
    pub fn of(scan: &Scan) -> Layout {
        Layout { bom: scan.bom, crlf: scan.counts.crlf_lines * 2 > scan.counts.lines }
    }
}

/// Where the source records' bytes come from: the file's bytes in memory, or the file itself
/// (so a compression need not hold the kept records twice, once read and once copied).
pub trait SourceBytes {
    /// Appends the bytes of the span `offset..offset + len` of the source to `out`.
    fn append(&mut self, offset: u64, len: u32, out: &mut Vec<u8>) -> Result<(), Failure>;
}

impl SourceBytes for &[u8] {
    fn append(&mut self, offset: u64, len: u32, out: &mut Vec<u8>) -> Result<(), Failure> {
        let span = self.get(offset as usize..offset as usize + len as usize).ok_or_else(|| {
            Failure::new(
                Code::InvalidArgument,
                "the span lies beyond the end of the buffer: it is not the buffer the index was made from",
            )
        })?;
        out.extend_from_slice(span);
        Ok(())
    }
}

/// A source mapped from its file (`crate::mapped`), whose pages are dropped from the process
/// behind the copy as it goes: they were read once and the candidate now holds them (peak RSS).
pub struct ReleasingMapped<'a> {
    pub bytes: &'a [u8],
    released_to: usize,
}

impl<'a> ReleasingMapped<'a> {
    /// Released in steps of this many bytes (a multiple of every page size).
    const STEP: usize = 4 << 20;

    pub fn new(bytes: &'a [u8]) -> Self {
        ReleasingMapped { bytes, released_to: 0 }
    }
}

impl SourceBytes for ReleasingMapped<'_> {
    fn append(&mut self, offset: u64, len: u32, out: &mut Vec<u8>) -> Result<(), Failure> {
        (&self.bytes[..]).append(offset, len, out)?;
        let done = offset as usize / Self::STEP * Self::STEP;
        if done > self.released_to {
            // SAFETY of the call is the mapping's: the range starts on a step boundary inside it.
            crate::mapped::release_range(self.bytes[self.released_to..].as_ptr(), done - self.released_to);
            self.released_to = done;
        }
        Ok(())
    }
}

impl SourceBytes for &std::fs::File {
    fn append(&mut self, offset: u64, len: u32, out: &mut Vec<u8>) -> Result<(), Failure> {
        let at = out.len();
        out.resize(at + len as usize, 0);
        read_exact_at(self, &mut out[at..], offset).map_err(|e| {
            out.truncate(at);
            if e.kind() == std::io::ErrorKind::UnexpectedEof {
                Failure::new(Code::Changed, "the file is shorter than when it was scanned")
            } else {
                Failure::new(Code::Io, e.to_string())
            }
        })
    }
}

#[cfg(unix)]
pub(crate) fn read_exact_at(f: &std::fs::File, buf: &mut [u8], offset: u64) -> std::io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(f, buf, offset)
}

#[cfg(windows)]
pub(crate) fn read_exact_at(f: &std::fs::File, mut buf: &mut [u8], mut offset: u64) -> std::io::Result<()> {
    while !buf.is_empty() {
        match std::os::windows::fs::FileExt::seek_read(f, buf, offset)? {
            0 => return Err(std::io::ErrorKind::UnexpectedEof.into()),
            n => {
                buf = &mut buf[n..];
                offset += n as u64;
            }
        }
    }
    Ok(())
}

/// Concatenates the parts into one transcript; every line ends with the layout's terminator.
pub fn assemble(src: &[u8], scan: &Scan, parts: &[Part], layout: &Layout) -> Result<Vec<u8>, AssembleError> {
    assemble_from(src, scan, parts, layout)
}

/// [`assemble`] with the source records' bytes taken from `src` (memory or the file).
pub fn assemble_from(
    mut src: impl SourceBytes,
    scan: &Scan,
    parts: &[Part],
    layout: &Layout,
) -> Result<Vec<u8>, AssembleError> {
    let newline: &[u8] = if layout.crlf { b"\r\n" } else { b"\n" };
    let record = |i: u32| scan.records.get(i as usize).ok_or(AssembleError::NoSuchRecord(i));
    let mut size = if layout.bom { 3 } else { 0 };
    for p in parts {
        size += match p {
            Part::Records(rs) => {
                rs.iter().map(|&i| record(i).map(|r| r.len as usize + newline.len())).sum::<Result<usize, _>>()?
            }
            Part::Edited { record: i, .. } => record(*i)?.len as usize + 128,
            Part::Line(l) => l.len() + newline.len(),
        };
    }
    let mut append = |i: u32, out: &mut Vec<u8>| -> Result<(), AssembleError> {
        let r = record(i)?;
        src.append(r.offset, r.len, out).map_err(|error| AssembleError::Read { line: r.line, error })
    };
    let mut out = Vec::with_capacity(size);
    if layout.bom {
        out.extend_from_slice(b"\xEF\xBB\xBF");
    }
    let mut scratch = Vec::new();
    for p in parts {
        match p {
            Part::Records(rs) => {
                for &i in rs.iter() {
                    append(i, &mut out)?;
                    out.extend_from_slice(newline);
                }
            }
            Part::Edited { record: i, edits } => {
                let line = record(*i)?.line;
                scratch.clear();
                append(*i, &mut scratch)?;
                let edited = edit_members(&scratch, edits).map_err(|error| AssembleError::Edit { line, error })?;
                out.extend_from_slice(&edited);
                out.extend_from_slice(newline);
            }
            Part::Line(l) => {
                out.extend_from_slice(l);
                out.extend_from_slice(newline);
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scan::{scan_bytes, Mode};

    #[test]
    fn copies_spans_edits_one_record_and_keeps_crlf_and_bom() {
        let src = "\u{feff}{\"uuid\":\"a\",\"parentUuid\":null}\r\n{\"uuid\":\"b\",\"parentUuid\":\"a\",\"x\":\"\\ud83d\"}\r\n{\"uuid\":\"c\",\"parentUuid\":\"b\"}\r\n";
        let scan = scan_bytes(src.as_bytes(), Mode::Full);
        let layout = Layout::of(&scan);
        assert!(layout.bom && layout.crlf);
        let parts = [
            Part::Line(br#"{"new":1}"#),
            Part::Edited { record: 1, edits: vec![MemberEdit { key: "parentUuid", json: br#""S""# }] },
            Part::Records(&[2]),
        ];
        let out = assemble(src.as_bytes(), &scan, &parts, &layout).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "\u{feff}{\"new\":1}\r\n{\"uuid\":\"b\",\"parentUuid\":\"S\",\"x\":\"\\ud83d\"}\r\n{\"uuid\":\"c\",\"parentUuid\":\"b\"}\r\n"
        );
        assert_eq!(
            assemble(src.as_bytes(), &scan, &[Part::Records(&[9])], &layout),
            Err(AssembleError::NoSuchRecord(9))
        );
    }

    #[test]
    fn reads_the_same_spans_from_the_file_and_refuses_a_shorter_file() {
        let src = "{\"uuid\":\"a\",\"parentUuid\":null}\n{\"uuid\":\"b\",\"parentUuid\":\"a\"}\n{\"uuid\":\"c\",\"parentUuid\":\"b\"}\n";
        let scan = scan_bytes(src.as_bytes(), Mode::Full);
        let layout = Layout::of(&scan);
        let parts = [
            Part::Records(&[0]),
            Part::Line(br#"{"new":1}"#),
            Part::Edited { record: 2, edits: vec![MemberEdit { key: "parentUuid", json: br#""S""# }] },
            Part::Records(&[1]),
        ];
        let path = std::env::temp_dir().join(format!("cj-output-test-{}.jsonl", std::process::id()));
        std::fs::write(&path, src).unwrap();
        let file = std::fs::File::open(&path).unwrap();
        let from_file = assemble_from(&file, &scan, &parts, &layout);
        assert_eq!(from_file, assemble(src.as_bytes(), &scan, &parts, &layout));
        std::fs::write(&path, &src[..40]).unwrap();
        let short = assemble_from(&file, &scan, &parts, &layout);
        std::fs::remove_file(&path).unwrap();
        assert!(matches!(short, Err(AssembleError::Read { line: 3, .. })), "{short:?}");
    }
}
