//! Choosing which records of a transcript a reader wants, before any of them becomes a string in
//! JavaScript: by record type, by time, or the active chain the client resumes. The result is the
//! byte span and line of each chosen record, in file order, plus every non-blank line that is not
//! a JSON object, so a reader can report those as problems.
//!
//! Type and time filters need only two top-level members of each line, so lines are checked with
//! the JSON grammar pass (which also reports the outermost object's members) across the cores,
//! without building any value; only the active chain needs the full scan and graph.

use crate::graph::{Graph, NONE};
use crate::scan::json_text::{string_value, JsonText};
use crate::scan::{scan_bytes_parallel, timestamp, Mode};
use rayon::prelude::*;

/// What to keep. Every condition given must hold.
#[derive(Debug, Default, Clone)]
pub struct Selection {
    /// Record types (`type`) to keep; None keeps every type.
    pub types: Option<Vec<String>>,
    /// Keep records at or after this time (ms since the epoch). Records without a timestamp are
    /// dropped when a time bound is given: their time is unknown.
    pub since_ms: Option<i64>,
    /// Keep records at or before this time (ms since the epoch).
    pub until_ms: Option<i64>,
    /// Keep only the records of the active chain (the conversation the client would resume).
    pub active_chain: bool,
}

/// Why a non-blank line is not a record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineProblem {
    NotJson,
    NotAnObject,
}

impl LineProblem {
    pub fn name(self) -> &'static str {
        match self {
            LineProblem::NotJson => "not-json",
            LineProblem::NotAnObject => "not-an-object",
        }
    }
}

/// A span of the file: byte offset, length without the line terminator, 1-based line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    pub offset: u64,
    pub len: u32,
    pub line: u32,
}

#[derive(Debug, Default)]
pub struct Selected {
    pub records: Vec<Span>,
    /// Every non-blank line that is not a JSON object, whether or not a selection would keep it.
    pub problems: Vec<(Span, LineProblem)>,
}

/// Lines are shared out to the cores in pieces of about this size (cut at a newline).
const PIECE_BYTES: usize = 1 << 20;

/// The records of the transcript `buf` that `sel` keeps, and the lines that are not records.
pub fn select(buf: &[u8], sel: &Selection) -> Selected {
    // The lines of the active chain, ascending, from the full scan and graph.
    let chain: Option<Vec<u32>> = sel.active_chain.then(|| {
        let scan = scan_bytes_parallel(buf, Mode::Full);
        let g = Graph::new(&scan);
        let leaf = crate::client::leaf::choose(&g).leaf;
        let mut lines: Vec<u32> = if leaf == NONE {
            Vec::new()
        } else {
            crate::client::chain::active_chain(&g, leaf)
                .records
                .iter()
                .map(|&i| scan.records[i as usize].line)
                .collect()
        };
        lines.sort_unstable();
        lines
    });
    let start = if buf.starts_with(b"\xef\xbb\xbf") { 3 } else { 0 };
    let mut cuts = vec![start];
    let mut at = start + PIECE_BYTES;
    while at < buf.len() {
        match memchr::memchr(b'\n', &buf[at..]) {
            Some(k) => {
                cuts.push(at + k + 1);
                at += k + 1 + PIECE_BYTES;
            }
            None => break,
        }
    }
    cuts.push(buf.len());
    cuts.dedup();
    let pieces: Vec<Piece> = cuts.par_windows(2).map(|w| select_piece(buf, w[0], w[1], sel)).collect();
    let mut out = Selected::default();
    let mut lines_before = 0u32;
    for p in pieces {
        out.records.extend(p.records.into_iter().map(|s| Span { line: s.line + lines_before, ..s }));
        out.problems.extend(p.problems.into_iter().map(|(s, k)| (Span { line: s.line + lines_before, ..s }, k)));
        lines_before += p.lines;
    }
    if let Some(chain) = chain {
        out.records.retain(|r| chain.binary_search(&r.line).is_ok());
    }
    out
}

struct Piece {
    /// Line numbers are 1-based within the piece.
    records: Vec<Span>,
    problems: Vec<(Span, LineProblem)>,
    lines: u32,
}

fn select_piece(buf: &[u8], from: usize, to: usize, sel: &Selection) -> Piece {
    let mut piece = Piece { records: Vec::new(), problems: Vec::new(), lines: 0 };
    let mut json = JsonText::default();
    let timed = sel.since_ms.is_some() || sel.until_ms.is_some();
    let mut pos = from;
    while pos < to {
        let end = memchr::memchr(b'\n', &buf[pos..to]).map_or(to, |k| pos + k);
        piece.lines += 1;
        let raw = &buf[pos..end];
        let text = raw.strip_suffix(b"\r").unwrap_or(raw);
        let span = Span { offset: pos as u64, len: text.len() as u32, line: piece.lines };
        pos = end + 1;
        if text.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let (mut kind, mut time) = (None, None);
        let ok = json.check_members(text, |key, value| match key {
            b"type" => kind = Some(value),
            b"timestamp" => time = Some(value),
            _ => {}
        });
        if !ok {
            piece.problems.push((span, LineProblem::NotJson));
            continue;
        }
        if !text.trim_ascii_start().starts_with(b"{") {
            piece.problems.push((span, LineProblem::NotAnObject));
            continue;
        }
        if let Some(types) = &sel.types {
            let Some(kind) = kind.and_then(|v| string_value(text, v)).map(unescaped) else { continue };
            if !types.iter().any(|t| t.as_bytes() == &kind[..]) {
                continue;
            }
        }
        if timed {
            let Some(ms) = time.and_then(|v| string_value(text, v)).and_then(|t| timestamp::parse_ms(&unescaped(t)))
            else {
                continue;
            };
            if sel.since_ms.is_some_and(|s| ms < s) || sel.until_ms.is_some_and(|u| ms > u) {
                continue;
            }
        }
        piece.records.push(span);
    }
    piece
}

/// The text of a JSON string's raw contents (between the quotes): as is when it has no escape,
/// else with the escapes decoded (a lone surrogate becomes U+FFFD).
fn unescaped(raw: &[u8]) -> std::borrow::Cow<'_, [u8]> {
    if !raw.contains(&b'\\') {
        return std::borrow::Cow::Borrowed(raw);
    }
    let mut out = Vec::with_capacity(raw.len());
    let mut i = 0;
    let hex = |b: &[u8]| std::str::from_utf8(b).ok().and_then(|h| u32::from_str_radix(h, 16).ok());
    while i < raw.len() {
        if raw[i] != b'\\' {
            out.push(raw[i]);
            i += 1;
            continue;
        }
        let c = raw.get(i + 1).copied().unwrap_or(b'\\');
        i += 2;
        let ch = match c {
            b'n' => '\n',
            b't' => '\t',
            b'r' => '\r',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'u' => {
                let hi = raw.get(i..i + 4).and_then(hex).unwrap_or(0xfffd);
                i += 4;
                let lo_follows = raw.get(i..i + 2) == Some(b"\\u");
                let lo = if (0xd800..0xdc00).contains(&hi) && lo_follows {
                    raw.get(i + 2..i + 6).and_then(hex)
                } else {
                    None
                };
                match lo {
                    Some(lo) if (0xdc00..0xe000).contains(&lo) => {
                        i += 6;
                        char::from_u32(0x10000 + ((hi - 0xd800) << 10) + (lo - 0xdc00)).unwrap_or('\u{fffd}')
                    }
                    _ => char::from_u32(hi).unwrap_or('\u{fffd}'),
                }
            }
            other => other as char,
        };
        let mut tmp = [0u8; 4];
        out.extend_from_slice(ch.encode_utf8(&mut tmp).as_bytes());
    }
    std::borrow::Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(text: &str, sel: &Selection) -> Selected {
        select(text.as_bytes(), sel)
    }

    fn lines(s: &Selected) -> Vec<u32> {
        s.records.iter().map(|r| r.line).collect()
    }

    const FILE: &str = concat!(
        r#"{"type":"user","uuid":"u1","parentUuid":null,"timestamp":"2026-01-01T00:00:00Z","message":{"role":"user","content":"hi"}}"#,
        "\n",
        "not json\n",
        "\n",
        r#"{"type":"assistant","uuid":"a1","parentUuid":"u1","timestamp":"2026-01-02T00:00:00Z","message":{"id":"m","role":"assistant","content":[{"type":"text","text":"x"}]}}"#,
        "\r\n",
        "[1,2]\n",
        r#"{"type":"assistant","uuid":"a2","parentUuid":"u1","timestamp":"2026-01-03T00:00:00Z","message":{"id":"n","role":"assistant","content":[{"type":"text","text":"y"}]}}"#,
        "\n",
        r#"{"type":"last-prompt","leafUuid":"a1"}"#,
        "\n",
        r#"{"type":"user","torn"#,
    );

    #[test]
    fn types_times_and_chain_select_in_file_order() {
        assert_eq!(lines(&run(FILE, &Selection::default())), vec![1, 4, 6, 7]);
        let types = Selection { types: Some(vec!["assistant".into()]), ..Default::default() };
        assert_eq!(lines(&run(FILE, &types)), vec![4, 6]);
        let since = Selection { since_ms: Some(1_767_312_000_000), ..Default::default() }; // 2026-01-02
        assert_eq!(lines(&run(FILE, &since)), vec![4, 6], "untimed records drop under a time bound");
        let until = Selection { until_ms: Some(1_767_312_000_000), ..Default::default() };
        assert_eq!(lines(&run(FILE, &until)), vec![1, 4]);
        // The pointer names a1: the client resumes u1 -> a1, not the later sibling a2.
        let chain = Selection { active_chain: true, ..Default::default() };
        assert_eq!(lines(&run(FILE, &chain)), vec![1, 4]);
    }

    #[test]
    fn spans_cover_exactly_the_record_text() {
        let s = run(FILE, &Selection::default());
        for r in &s.records {
            let text = &FILE.as_bytes()[r.offset as usize..r.offset as usize + r.len as usize];
            assert!(text.starts_with(b"{") && text.ends_with(b"}"), "{:?}", std::str::from_utf8(text));
        }
    }

    #[test]
    fn every_non_record_line_is_a_problem_with_its_reason() {
        let s = run(FILE, &Selection { types: Some(vec!["user".into()]), ..Default::default() });
        let got: Vec<(u32, &str)> = s.problems.iter().map(|(sp, k)| (sp.line, k.name())).collect();
        assert_eq!(got, vec![(2, "not-json"), (5, "not-an-object"), (8, "not-json")]);
        let (torn, _) = s.problems[2];
        assert_eq!(&FILE.as_bytes()[torn.offset as usize..][..torn.len as usize], br#"{"type":"user","torn"#);
    }

    #[test]
    fn a_bom_and_leading_garbage_are_handled() {
        let text = "\u{feff}{\"type\":\"mode\",\"mode\":\"normal\"}\n";
        let s = run(text, &Selection::default());
        assert_eq!(lines(&s), vec![1]);
        assert!(s.problems.is_empty());
        let s = run("oops\n{\"type\":\"mode\",\"mode\":\"x\"}\n", &Selection::default());
        assert_eq!(lines(&s), vec![2]);
        assert_eq!(s.problems.iter().map(|(sp, _)| sp.line).collect::<Vec<_>>(), vec![1]);
    }
}
