//! Builds a rewritten transcript from byte spans of the source: kept records are copied as they
//! are, a few get one member replaced (a byte-span edit), and new lines (the compact pair) are
//! inserted where the caller puts them. Nothing kept is re-serialised.

use super::json_span::{edit_members, MemberEdit, SpanError};
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
        }
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

/// Concatenates the parts into one transcript; every line ends with the layout's terminator.
pub fn assemble(src: &[u8], scan: &Scan, parts: &[Part], layout: &Layout) -> Result<Vec<u8>, AssembleError> {
    let newline: &[u8] = if layout.crlf { b"\r\n" } else { b"\n" };
    let span = |i: u32| -> Result<&[u8], AssembleError> {
        let r = scan.records.get(i as usize).ok_or(AssembleError::NoSuchRecord(i))?;
        Ok(&src[r.offset as usize..r.offset as usize + r.len as usize])
    };
    let mut size = if layout.bom { 3 } else { 0 };
    for p in parts {
        size += match p {
            Part::Records(rs) => {
                rs.iter().map(|&i| span(i).map(|s| s.len() + newline.len())).sum::<Result<usize, _>>()?
            }
            Part::Edited { record, .. } => span(*record)?.len() + 128,
            Part::Line(l) => l.len() + newline.len(),
        };
    }
    let mut out = Vec::with_capacity(size);
    if layout.bom {
        out.extend_from_slice(b"\xEF\xBB\xBF");
    }
    for p in parts {
        match p {
            Part::Records(rs) => {
                for &i in rs.iter() {
                    out.extend_from_slice(span(i)?);
                    out.extend_from_slice(newline);
                }
            }
            Part::Edited { record, edits } => {
                let line = scan.records[*record as usize].line;
                let edited =
                    edit_members(span(*record)?, edits).map_err(|error| AssembleError::Edit { line, error })?;
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
}
