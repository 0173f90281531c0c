use super::*;
use std::fs;
use std::path::{Path, PathBuf};

struct Tmp(PathBuf);
impl Drop for Tmp {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

/// Files named `session[/agent]` holding raw JSONL lines, as sources of project `-home-u-app`.
fn estate(name: &str, files: &[(&str, &[&str])]) -> (Tmp, Vec<Source>) {
    let root = std::env::temp_dir().join(format!("cj-exact-{name}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&root);
    fs::create_dir_all(&root).unwrap();
    let mut sources = Vec::new();
    for (i, (id, lines)) in files.iter().enumerate() {
        let (session, agent) = match id.split_once('/') {
            Some((s, a)) => (s, Some(a.to_string())),
            None => (*id, None),
        };
        let path = root.join(format!("{i}.jsonl"));
        fs::write(&path, lines.join("\n") + "\n").unwrap();
        sources.push(source(&path, session, agent));
    }
    (Tmp(root), sources)
}

fn source(path: &Path, id: &str, agent_id: Option<String>) -> Source {
    let m = fs::metadata(path).unwrap();
    Source {
        path: path.into(),
        project: "-home-u-app".into(),
        session_id: id.into(),
        agent_id,
        size: m.len(),
        mtime_ms: 0.0,
        stored: None,
    }
}

const TEXT: Fields = Fields { tools: false, thinking: false };
const ALL: Fields = Fields { tools: true, thinking: true };

fn run(sources: &[Source], text: &str, case_sensitive: bool, fields: Fields) -> ExactAnswer {
    let needle = Needle::new(text, case_sensitive).unwrap();
    search_exact(sources, &needle, fields, &Filter::default(), 10, &Progress::default())
}

fn count(text: &str, needle: &str, case_sensitive: bool) -> u64 {
    Needle::new(needle, case_sensitive).unwrap().count(text, &mut Vec::new()).0
}

const USER: &str = r#"{"type":"user","message":{"role":"user","content":"rename parseRecordSpan to read_span_at in crate/src/scan/units.rs (see #42!)"},"timestamp":"2026-03-01T10:00:00.000Z"}"#;
const ESCAPED: &str = r#"{"type":"assistant","message":{"content":[{"type":"text","text":"He said \"caf\u00e9\" then\nnext line: C:\\temp\\x"}]},"timestamp":"2026-03-02T10:00:00.000Z"}"#;
const TOOL: &str = r#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t","content":"grep found RecordSpan in tool output"}]},"timestamp":"2026-03-03T10:00:00.000Z"}"#;
const THINK: &str = r#"{"type":"assistant","message":{"content":[{"type":"thinking","thinking":"maybe RecordSpan::new","signature":"s"}]},"timestamp":"2026-03-04T10:00:00.000Z"}"#;

#[test]
fn finds_identifier_middles_punctuation_and_path_fragments() {
    let (_t, src) = estate("frag", &[("s1", &[USER])]);
    for needle in ["RecordSp", "cordspan", "_span_a", "#42!", "(see", "src/scan/uni", "/units.rs"] {
        let a = run(&src, needle, false, TEXT);
        assert_eq!(a.hits.len(), 1, "{needle}");
        assert_eq!(a.hits[0].matches, 1, "{needle}");
        assert!(a.hits[0].first.snippet.to_lowercase().contains(&needle.to_lowercase()), "{needle}");
    }
    assert!(run(&src, "scan/units.rs (see #43", false, TEXT).hits.is_empty());
}

#[test]
fn matches_the_decoded_text_not_the_escapes() {
    let (_t, src) = estate("esc", &[("s1", &[ESCAPED])]);
    for needle in ["said \"café\"", "café", "then\nnext", "C:\\temp\\x"] {
        assert_eq!(run(&src, needle, true, TEXT).matches, 1, "{needle:?}");
    }
    // The raw escapes are not text.
    for needle in ["\\\"caf", "u00e9", "then\\nnext", "\\\\temp"] {
        assert_eq!(run(&src, needle, true, TEXT).matches, 0, "{needle:?}");
    }
    // Keys and record structure are not text either.
    assert_eq!(run(&src, "timestamp", false, TEXT).matches, 0);
}

#[test]
fn case_insensitive_by_default_and_sensitive_on_request() {
    let (_t, src) = estate("case", &[("s1", &[USER, ESCAPED])]);
    assert_eq!(run(&src, "PARSERECORDSPAN", false, TEXT).matches, 1);
    assert_eq!(run(&src, "PARSERECORDSPAN", true, TEXT).matches, 0);
    assert_eq!(run(&src, "parseRecordSpan", true, TEXT).matches, 1);
    assert_eq!(run(&src, "CAFÉ", false, TEXT).matches, 1);
    assert_eq!(run(&src, "CAFÉ", true, TEXT).matches, 0);
}

#[test]
fn unicode_folding_is_one_character_for_one() {
    assert_eq!(count("Ärger über ÜBER", "über", false), 2);
    assert_eq!(count("ΣΟΦΟΣ σοφος", "σοφοσ", false), 2);
    assert_eq!(count("Привет мир", "ПРИВЕТ", false), 1);
    // Several characters, or ASCII, as a lowercase: the character only matches itself.
    assert_eq!(count("Straße", "STRASSE", false), 0);
    assert_eq!(count("\u{212A}elvin", "kelvin", false), 0);
    assert_eq!(count("\u{212A}elvin", "\u{212A}ELVIN", false), 1);
    // Characters without case, and the first match's offset in the original text.
    assert_eq!(count("日本語のテキスト", "のテキ", false), 1);
    let n = Needle::new("ÜBER", false).unwrap();
    let text = "ẞẞ über";
    let (c, at) = n.count(text, &mut Vec::new());
    assert_eq!((c, &text[at.unwrap()..]), (1, "über"));
}

#[test]
fn counts_non_overlapping_occurrences() {
    assert_eq!(count("aaaa", "aa", false), 2);
    assert_eq!(count("a.b.c.d", ".", true), 3);
    assert_eq!(count("x", "xy", true), 0);
}

#[test]
fn same_scope_as_ranked_search() {
    let (_t, src) = estate("scope", &[("s1", &[USER, TOOL, THINK])]);
    let text_only = run(&src, "recordspan", false, TEXT);
    assert_eq!(text_only.matches, 1, "tool output and thinking are not searched by default");
    assert_eq!(run(&src, "recordspan", false, Fields { tools: true, thinking: false }).matches, 2);
    assert_eq!(run(&src, "recordspan", false, Fields { tools: false, thinking: true }).matches, 2);
    assert_eq!(run(&src, "recordspan", false, ALL).matches, 3);
}

#[test]
fn one_hit_per_session_with_its_count_and_first_match() {
    let more = r#"{"type":"assistant","message":{"content":[{"type":"text","text":"RecordSpan, RecordSpan"}]},"timestamp":"2026-03-05T10:00:00.000Z"}"#;
    let (_t, src) = estate(
        "sessions",
        &[
            ("s1", &[r#"{"type":"summary","summary":"x"}"#, USER]),
            ("s1/agent-a", &[more, more]),
            ("s2", &[more]),
            ("s3", &[ESCAPED]),
        ],
    );
    let a = run(&src, "recordspan", false, TEXT);
    assert_eq!((a.docs, a.sessions, a.matching_docs, a.matching_sessions, a.matches), (4, 3, 3, 2, 7));
    let h = &a.hits[0];
    assert_eq!((h.session_id.as_str(), h.matches, h.records, h.files), ("s1", 5, 3, 2));
    // The subagent's file has the most matches, so it stands for the session.
    assert_eq!((h.agent_id.as_deref(), h.first.line), (Some("agent-a"), 1));
    assert_eq!(a.hits[1].session_id, "s2");
    // The first match's record is read back by its span.
    let s1 = &run(&src[..1], "recordspan", false, TEXT).hits[0].first;
    assert_eq!(s1.line, 2);
    let bytes = fs::read(&src[0].path).unwrap();
    assert_eq!(&bytes[s1.offset as usize..(s1.offset + s1.len as u64) as usize], USER.as_bytes());
    assert_eq!(s1.timestamp.as_deref(), Some("2026-03-01T10:00:00.000Z"));
}

#[test]
fn filters_and_limit() {
    let (_t, src) = estate("filter", &[("s1", &[USER]), ("s2", &[ESCAPED])]);
    let needle = Needle::new("e", false).unwrap();
    let all = search_exact(&src, &needle, TEXT, &Filter::default(), 10, &Progress::default());
    assert_eq!(all.hits.len(), 2);
    let one = search_exact(&src, &needle, TEXT, &Filter::default(), 1, &Progress::default());
    assert_eq!((one.hits.len(), one.matching_sessions), (1, 2));
    let since = Filter { since_ms: timestamp::parse_ms(b"2026-03-02T00:00:00Z"), project: None };
    let late = search_exact(&src, &needle, TEXT, &since, 10, &Progress::default());
    assert_eq!((late.sessions, late.sessions_total), (1, 2));
    assert_eq!(late.hits[0].session_id, "s2");
    let other = Filter { since_ms: None, project: Some("other".into()) };
    assert_eq!(search_exact(&src, &needle, TEXT, &other, 10, &Progress::default()).docs, 0);
    assert!(Needle::new("", false).is_none());
}

#[test]
fn a_long_file_across_units_keeps_line_numbers() {
    let filler = r#"{"type":"assistant","message":{"content":[{"type":"text","text":"nothing to see here, padding the unit out"}]}}"#;
    let mut lines: Vec<&str> = vec![filler; 12_000];
    lines.push(USER);
    let (_t, src) = estate("units", &[("s1", &lines)]);
    assert!(src[0].size > 2 * 256 * 1024);
    let a = run(&src, "read_span_at", true, TEXT);
    assert_eq!((a.matches, a.hits[0].first.line), (1, 12_001));
}

#[test]
fn the_line_prefilter_never_rejects_a_line_that_matches() {
    let lines = [
        USER,
        ESCAPED,
        r#"{"type":"user","message":{"content":"\u0041BC \ud83d\ude00 smile \ud83d lone \/path\/x \t tab"}}"#,
        r#"{"type":"assistant","message":{"content":[{"type":"text","text":"Stra\u00dfe \u00c9T\u00c9 \\n literal"}]}}"#,
    ];
    let needles = [
        "abc",
        "ABC",
        "😀",
        "😀 smile",
        "\u{FFFD} lone",
        "/path/x",
        "\t tab",
        "café",
        "CAFÉ",
        "\"café\"",
        "été",
        "ÉTÉ",
        "straße",
        "\\n literal",
        "then\nnext",
        "C:\\temp",
        "rename",
        "zzz",
        "u00e9",
    ];
    let (mut buf, mut parser, mut scratch) = (Vec::new(), Parser::default(), Vec::new());
    let mut rejected = 0;
    for line in lines {
        for text in needles {
            for case_sensitive in [false, true] {
                let n = Needle::new(text, case_sensitive).unwrap();
                let found = with_record_text(&mut parser, line.as_bytes(), ALL, |texts, _| {
                    texts.iter().map(|t| n.count(t, &mut scratch).0).sum::<u64>()
                })
                .unwrap();
                let may = n.line_may_match(line.as_bytes(), &mut buf);
                assert!(may || found == 0, "{text:?} (case-sensitive {case_sensitive}) in {line}");
                rejected += !may as u32;
            }
        }
    }
    assert!(rejected > 100, "the prefilter rejects most pairs ({rejected})");
}

#[test]
fn skipped_lines_still_give_activity_and_an_old_subagent_its_session() {
    let agent = r#"{"type":"user","sessionId":"parent-1","message":{"content":"no needle here"},"timestamp":"2026-03-09T10:00:00.000Z"}"#;
    let (_t, mut src) = estate("oldagent", &[("x", &[agent, USER])]);
    src[0].session_id = String::new();
    src[0].agent_id = Some("old".into());
    let a = run(&src, "read_span_at", true, TEXT);
    assert_eq!(a.hits[0].session_id, "parent-1");
    let (first, last) = (a.hits[0].first_ms, a.hits[0].last_ms);
    assert_eq!(first, timestamp::parse_ms(b"2026-03-01T10:00:00.000Z").unwrap());
    assert_eq!(last, timestamp::parse_ms(b"2026-03-09T10:00:00.000Z").unwrap());
}
