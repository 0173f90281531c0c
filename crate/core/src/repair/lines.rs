//! The line repairs: damage to the file as lines, mended from the raw bytes.
//!
//! A line that parses as a JSON object is a record and is copied byte for byte (its lone
//! surrogate escapes rewritten, the only edit). A line that does not parse is cut into pieces at
//! top-level object boundaries (strings and nesting followed, as the member scanner does):
//! whole records, stray bytes between them (NUL padding, other non-JSON bytes) and partial
//! records (a write cut short, then the next record written onto the same line). Records are
//! written one to a line, bytes unchanged; stray bytes and partial records are cut, and the cut
//! bytes go into the report (and stay in the backup). A line this cannot cut safely refuses the
//! whole repair.

use super::{Kind, Mend};
use crate::client::records::is_known_type;
use crate::compress::json_span::value_end;
use crate::scan::{json_text, surrogate};
use simd_json::OwnedValue as V;

/// What one top-level piece of a damaged line is.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Piece {
    /// A whole JSON object (a record).
    Record(std::ops::Range<usize>),
    /// Bytes outside any object: NUL padding, spaces, anything else.
    Stray(std::ops::Range<usize>),
    /// An object that never closes or does not parse: a write cut short.
    Partial(std::ops::Range<usize>),
}

/// How a piece of bytes parses.
enum Parsed {
    /// A JSON object; `known` when its `type` is one Claude Code writes.
    Object {
        known: bool,
    },
    NotObject,
    Invalid,
}

fn parse(piece: &[u8]) -> Parsed {
    let read = |buf: &mut Vec<u8>| simd_json::to_owned_value(buf).ok();
    let mut buf = piece.to_vec();
    let v = read(&mut buf).or_else(|| {
        let lone = surrogate::find_lone_surrogates(piece);
        if lone.is_empty() {
            return None;
        }
        let mut buf = piece.to_vec();
        surrogate::repair(&mut buf, &lone);
        read(&mut buf)
    });
    match v {
        Some(V::Object(o)) => {
            let known = matches!(o.get("type"), Some(V::String(t)) if is_known_type(t));
            Parsed::Object { known }
        }
        Some(_) => Parsed::NotObject,
        None => Parsed::Invalid,
    }
}

/// The end of the whole object starting at `at`, when it closes and parses.
fn whole_object(line: &[u8], at: usize, need_known: bool) -> Option<usize> {
    let end = value_end(line, at)?;
    match parse(&line[at..end]) {
        Parsed::Object { known } if known || !need_known => Some(end),
        _ => None,
    }
}

fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r')
}

/// Whether `line[at..]` is nothing but records Claude Code writes (space between them): where a
/// partial record's bytes end and the next record begins.
fn records_only(line: &[u8], mut at: usize) -> bool {
    let mut any = false;
    while at < line.len() {
        if is_space(line[at]) {
            at += 1;
            continue;
        }
        match whole_object(line, at, true) {
            Some(end) if line[at] == b'{' => {
                any = true;
                at = end;
            }
            _ => return false,
        }
    }
    any
}

/// Cuts a line that does not parse into pieces (module doc).
fn pieces(line: &[u8]) -> Vec<Piece> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < line.len() {
        if line[i] == b'{' {
            if let Some(end) = whole_object(line, i, false) {
                out.push(Piece::Record(i..end));
                i = end;
                continue;
            }
            // A record cut short: it runs up to the first later `{` from which the rest of the
            // line is whole records only (so a nested object of the partial is never taken for a
            // record of its own).
            let next = (i + 1..line.len()).find(|&q| line[q] == b'{' && records_only(line, q)).unwrap_or(line.len());
            out.push(Piece::Partial(i..next));
            i = next;
            continue;
        }
        let next = memchr::memchr(b'{', &line[i..]).map_or(line.len(), |p| i + p);
        out.push(Piece::Stray(i..next));
        i = next;
    }
    out
}

/// Why a line cannot be mended safely.
pub struct Unmendable {
    pub line: u32,
    pub message: String,
}

/// The line repairs of `bytes`: the mended bytes and what was done, or the first line that
/// cannot be mended safely.
/// `lines` gets, for each line of the mended bytes, the line of `bytes` it comes from.
pub fn mend_lines(bytes: &[u8], mends: &mut Vec<Mend>, lines: &mut Vec<u32>) -> Result<Vec<u8>, Unmendable> {
    let mut out = Vec::with_capacity(bytes.len() + 64);
    let mut pos = 0usize;
    if bytes.starts_with(b"\xEF\xBB\xBF") {
        out.extend_from_slice(&bytes[..3]);
        pos = 3;
    }
    let mut line_no = 0u32;
    while pos < bytes.len() {
        line_no += 1;
        let (end, next) = match memchr::memchr(b'\n', &bytes[pos..]) {
            Some(p) => (pos + p, pos + p + 1),
            None => (bytes.len(), bytes.len()),
        };
        let terminated = next > end;
        let mut content_end = end;
        if terminated && end > pos && bytes[end - 1] == b'\r' {
            content_end -= 1;
        }
        let line = &bytes[pos..content_end];
        let eol = &bytes[content_end..next];
        if line.iter().all(|&b| is_space(b)) {
            out.extend_from_slice(&bytes[pos..next]);
            lines.push(line_no);
            pos = next;
            continue;
        }
        match parse(line) {
            Parsed::Object { .. } => {
                let start = out.len();
                out.extend_from_slice(line);
                fix_surrogates(&mut out[start..], pos, line_no, mends);
                out.extend_from_slice(eol);
                lines.push(line_no);
            }
            Parsed::NotObject => return Err(Unmendable {
                line: line_no,
                message:
                    "valid JSON that is not an object: what the client makes of it is not known, so it is not removed"
                        .into(),
            }),
            Parsed::Invalid if json_text::unreadable_kind(line).is_some() => {
                let kind = json_text::unreadable_kind(line).unwrap();
                return Err(Unmendable {
                    line: line_no,
                    message: format!(
                        "the line {}: the client reads it, so it is not cut and the records after it are not relinked around it",
                        kind.phrase()
                    ),
                });
            }
            Parsed::Invalid => {
                let ps = pieces(line);
                let records: Vec<&std::ops::Range<usize>> =
                    ps.iter().filter_map(|p| if let Piece::Record(r) = p { Some(r) } else { None }).collect();
                if ps.iter().all(|p| matches!(p, Piece::Partial(_))) && lossy_parses(line) {
                    return Err(Unmendable {
                        line: line_no,
                        message: "a record with bytes that are not UTF-8: the client reads it (with replacement characters), so it is not cut".into(),
                    });
                }
                let sep: &[u8] = if eol == b"\r\n" { b"\r\n" } else { b"\n" };
                for (k, r) in records.iter().enumerate() {
                    if k > 0 {
                        out.extend_from_slice(sep);
                    }
                    let start = out.len();
                    out.extend_from_slice(&line[(*r).clone()]);
                    fix_surrogates(&mut out[start..], pos + r.start, line_no, mends);
                    lines.push(line_no);
                }
                if records.len() > 1 {
                    mends.push(Mend {
                        kind: Kind::RecordsOnOneLine,
                        line: line_no,
                        start: pos as u64,
                        end: content_end as u64,
                        removed: Vec::new(),
                        message: format!("{} records on one line, written one to a line", records.len()),
                    });
                }
                for p in &ps {
                    let (kind, r, message) = match p {
                        Piece::Record(_) => continue,
                        Piece::Stray(r) => (Kind::NonJsonBytes, r, stray_message(&line[r.clone()])),
                        Piece::Partial(r) => (
                            Kind::TornLine,
                            r,
                            if terminated || !records.is_empty() {
                                format!("a record cut short ({} bytes) before the next record: cut", r.len())
                            } else {
                                format!("the last line is a record cut short ({} bytes): cut", r.len())
                            },
                        ),
                    };
                    mends.push(Mend {
                        kind,
                        line: line_no,
                        start: (pos + r.start) as u64,
                        end: (pos + r.end) as u64,
                        removed: line[r.clone()].to_vec(),
                        message,
                    });
                }
                if !records.is_empty() {
                    out.extend_from_slice(eol);
                }
            }
        }
        pos = next;
    }
    Ok(out)
}

fn stray_message(b: &[u8]) -> String {
    let nul = b.iter().filter(|&&c| c == 0).count();
    if nul == b.len() {
        format!("{nul} NUL bytes outside any record: removed")
    } else if b.iter().all(|&c| is_space(c)) {
        format!("{} blank bytes between records on one line: replaced by a line break", b.len())
    } else {
        format!("{} bytes that are not JSON outside any record: removed", b.len())
    }
}

/// A line the client can still read: not UTF-8, but a JSON object once decoded lossily (as the
/// client reads the file).
fn lossy_parses(line: &[u8]) -> bool {
    std::str::from_utf8(line).is_err()
        && matches!(parse(String::from_utf8_lossy(line).as_bytes()), Parsed::Object { .. })
}

/// Rewrites the lone surrogate escapes of the record just copied into `rec` to `\ufffd`, as the
/// scanner reads them. `at` is the record's offset in the source.
fn fix_surrogates(rec: &mut [u8], at: usize, line: u32, mends: &mut Vec<Mend>) {
    let lone = surrogate::find_lone_surrogates(rec);
    if lone.is_empty() {
        return;
    }
    for &p in &lone {
        mends.push(Mend {
            kind: Kind::LoneSurrogates,
            line,
            start: (at + p) as u64,
            end: (at + p + 6) as u64,
            removed: rec[p..p + 6].to_vec(),
            message: format!("lone surrogate escape {} rewritten to \\ufffd", String::from_utf8_lossy(&rec[p..p + 6])),
        });
    }
    surrogate::repair(rec, &lone);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(line: &str) -> Vec<Piece> {
        pieces(line.as_bytes())
    }

    #[test]
    fn cuts_a_line_at_record_boundaries() {
        let a = r#"{"type":"user","uuid":"a","x":"}{"}"#;
        let b = r#"{"type":"summary","summary":"s","leafUuid":"a"}"#;
        let line = format!("{a}{b}");
        assert_eq!(kinds(&line), vec![Piece::Record(0..a.len()), Piece::Record(a.len()..line.len())]);
    }

    #[test]
    fn nul_padding_and_partial_records() {
        let b = r#"{"type":"user","uuid":"b"}"#;
        let line = format!("\0\0\0{b}");
        assert_eq!(kinds(&line), vec![Piece::Stray(0..3), Piece::Record(3..line.len())]);
        // A partial whose nested object closes is not taken for a record.
        let partial = r#"{"type":"user","message":{"role":"user","content":"hi"}"#;
        let line = format!("{partial}{b}");
        assert_eq!(kinds(&line), vec![Piece::Partial(0..partial.len()), Piece::Record(partial.len()..line.len())]);
        let torn = r#"{"type":"assistant","message":{"content":[{"type":"te"#;
        assert_eq!(kinds(torn), vec![Piece::Partial(0..torn.len())]);
    }
}
