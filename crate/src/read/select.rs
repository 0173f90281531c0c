//! Choosing which records of a transcript a reader wants, before any of them becomes a string in
//! JavaScript: by record type, by time, or the active chain the client resumes. The result is the
//! byte span and line of each chosen record, in file order, plus every line that is not a record
//! (not JSON, or JSON but not an object), so a reader can report those as problems.

use crate::graph::{Graph, NONE};
use crate::scan::json_text::JsonText;
use crate::scan::Scan;

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
    /// A JSON object the scanner cannot read (a number beyond a double's range, for instance).
    UnreadableObject,
}

impl LineProblem {
    pub fn name(self) -> &'static str {
        match self {
            LineProblem::NotJson => "not-json",
            LineProblem::NotAnObject => "not-an-object",
            LineProblem::UnreadableObject => "unreadable-object",
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
    /// Every non-blank line that is not a record, whether or not a selection would keep it.
    pub problems: Vec<(Span, LineProblem)>,
}

/// The records of `scan` (a full scan of `buf`) that `sel` keeps, and the lines that are not records.
pub fn select(scan: &Scan, buf: &[u8], sel: &Selection) -> Selected {
    let strings = &scan.tables.strings;
    let on_chain: Option<Vec<bool>> = sel.active_chain.then(|| {
        let g = Graph::new(scan);
        let leaf = g.client_leaf().leaf;
        let mut keep = vec![false; scan.records.len()];
        if leaf != NONE {
            for &i in &g.active_chain(leaf).records {
                keep[i as usize] = true;
            }
        }
        keep
    });
    let timed = sel.since_ms.is_some() || sel.until_ms.is_some();
    let mut out = Selected::default();
    for (i, r) in scan.records.iter().enumerate() {
        if let Some(types) = &sel.types {
            let kind = r.kind.map(|k| strings.get(k)).unwrap_or("");
            if !types.iter().any(|t| t == kind) {
                continue;
            }
        }
        if timed {
            let Some(ms) = r.timestamp_ms else { continue };
            if sel.since_ms.is_some_and(|s| ms < s) || sel.until_ms.is_some_and(|u| ms > u) {
                continue;
            }
        }
        if on_chain.as_ref().is_some_and(|keep| !keep[i]) {
            continue;
        }
        out.records.push(Span { offset: r.offset, len: r.len, line: r.line });
    }
    out.problems = non_records(scan, buf);
    out
}

/// The non-blank lines between records (and before the first and after the last): the lines the
/// scan did not make records of.
fn non_records(scan: &Scan, buf: &[u8]) -> Vec<(Span, LineProblem)> {
    let mut problems = Vec::new();
    let mut json = JsonText::default();
    let mut at = if scan.bom { 3 } else { 0 };
    let mut line = 1u32;
    let mut check_gap = |from: usize, to: usize, first_line: u32, problems: &mut Vec<(Span, LineProblem)>| {
        let mut pos = from;
        let mut n = first_line;
        while pos < to {
            let end = memchr::memchr(b'\n', &buf[pos..to]).map_or(to, |k| pos + k);
            let text = &buf[pos..end];
            let text = text.strip_suffix(b"\r").unwrap_or(text);
            if !text.iter().all(u8::is_ascii_whitespace) {
                let kind = if !json.check(text) {
                    LineProblem::NotJson
                } else if text.trim_ascii_start().starts_with(b"{") {
                    LineProblem::UnreadableObject
                } else {
                    LineProblem::NotAnObject
                };
                problems.push((Span { offset: pos as u64, len: text.len() as u32, line: n }, kind));
            }
            pos = end + 1;
            n += 1;
        }
    };
    for r in &scan.records {
        let start = r.offset as usize;
        if start > at {
            check_gap(at, start, line, &mut problems);
        }
        // Past the record's line and its terminator.
        at =
            memchr::memchr(b'\n', &buf[start + r.len as usize..]).map_or(buf.len(), |k| start + r.len as usize + k + 1);
        line = r.line + 1;
    }
    if at < buf.len() {
        check_gap(at, buf.len(), line, &mut problems);
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scan::{scan_bytes, Mode};

    fn run(text: &str, sel: &Selection) -> Selected {
        let scan = scan_bytes(text.as_bytes(), Mode::Full);
        select(&scan, text.as_bytes(), sel)
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
