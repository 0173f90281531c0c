use super::*;
use crate::scan::Progress;
use std::fs;
use std::path::{Path, PathBuf};

fn user(text: &str) -> String {
    format!(
        r#"{{"type":"user","message":{{"role":"user","content":{}}},"timestamp":"2026-03-01T10:00:00.000Z"}}"#,
        json(text)
    )
}
fn assistant(text: &str) -> String {
    format!(
        r#"{{"type":"assistant","message":{{"content":[{{"type":"text","text":{}}}]}},"timestamp":"2026-03-02T10:00:00.000Z"}}"#,
        json(text)
    )
}
fn tool_result(text: &str) -> String {
    format!(
        r#"{{"type":"user","message":{{"content":[{{"type":"tool_result","tool_use_id":"t","content":{}}}]}},"timestamp":"2026-03-03T10:00:00.000Z"}}"#,
        json(text)
    )
}
fn json(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}

struct Tmp(PathBuf);
impl Drop for Tmp {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

fn estate(name: &str, files: &[(&str, Vec<String>)]) -> (Tmp, Vec<Source>) {
    let root = std::env::temp_dir().join(format!("cj-search-{name}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&root);
    fs::create_dir_all(&root).unwrap();
    let sources = files.iter().map(|(id, lines)| {
        let path = root.join(format!("{id}.jsonl"));
        fs::write(&path, lines.join("\n") + "\n").unwrap();
        source(&path, id)
    });
    let sources = sources.collect();
    (Tmp(root), sources)
}

fn source(path: &Path, id: &str) -> Source {
    let m = fs::metadata(path).unwrap();
    let mtime_ms = m.modified().unwrap().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs_f64() * 1000.0;
    Source {
        path: path.into(),
        project: "-home-u-app".into(),
        session_id: id.into(),
        agent_id: None,
        size: m.len(),
        mtime_ms,
        stored: None,
    }
}

fn ids(a: &Answer) -> Vec<&str> {
    a.hits.iter().map(|h| h.session_id.as_str()).collect()
}

#[test]
fn bm25_math() {
    // Rarer terms weigh more; repeated terms saturate; longer documents are discounted.
    assert!(idf(100, 1) > idf(100, 50));
    assert!(idf(100, 100) > 0.0);
    assert!((idf(10, 0) - (1.0f64 + 10.5 / 0.5).ln()).abs() < 1e-12);
    let once = bm25_term(1.0, 1, 100, 100.0);
    assert!((once - 1.0).abs() < 1e-12, "tf 1 at average length scores idf: {once}");
    assert!(bm25_term(1.0, 10, 100, 100.0) < 10.0 * once);
    assert!(bm25_term(1.0, 10, 100, 100.0) < K1 + 1.0);
    assert!(bm25_term(1.0, 1, 1000, 100.0) < once);
}

#[test]
fn query_parsing_terms_and_phrases() {
    let q = Query::parse(&["Parser".into(), "\"lone surrogate\" fix".into()]);
    assert_eq!(q.terms, ["parser", "lone", "surrogate", "fix"]);
    assert_eq!(q.phrases, [vec![1, 2]]);
    let q = Query::parse(&["tape extraction".into()]);
    assert_eq!(q.phrases, [vec![0, 1]]);
}

#[test]
fn ranks_partial_matches_and_rarer_terms_first() {
    let filler: Vec<String> = (0..5).map(|i| assistant(&format!("ordinary reply number {i} about nothing"))).collect();
    let mut both = vec![user("the zebra parser crashed on a quasar"), assistant("fixed the zebra parser")];
    both.extend(filler.clone());
    let mut one = vec![user("the parser is fine")];
    one.extend(filler.clone());
    let mut none = vec![user("unrelated")];
    none.extend(filler);
    let (_t, src) = estate("rank", &[("both", both), ("one", one), ("none", none)]);
    let c = open(&src, Fields::default(), None, &Progress::default());
    let a = search(
        &c,
        &Query::parse(&["zebra".into(), "parser".into(), "unicorn".into()]),
        &Filter::default(),
        Fields::default(),
        10,
    );
    // No AND cliff: "unicorn" occurs nowhere and the others still rank; "one" has 1 of 3 terms.
    assert_eq!(ids(&a), ["both", "one"]);
    assert_eq!(a.hits[0].matched, ["zebra", "parser"]);
    assert_eq!(a.df, [1, 2, 0]);
    assert_eq!(a.docs, 3);
    let h = &a.hits[0];
    assert_eq!(h.line, 1);
    assert!(h.snippet.contains("zebra parser"), "{}", h.snippet);
    assert_eq!(h.timestamp.as_deref(), Some("2026-03-01T10:00:00.000Z"));
}

#[test]
fn tool_results_are_searched_only_with_tools() {
    let (_t, src) = estate(
        "tools",
        &[
            ("orig", vec![user("remember the pelican protocol")]),
            ("echo", vec![user("x"), tool_result("pelican protocol pelican protocol pelican protocol")]),
        ],
    );
    let q = Query::parse(&["pelican protocol".into()]);
    let plain = search(
        &open(&src, Fields::default(), None, &Progress::default()),
        &q,
        &Filter::default(),
        Fields::default(),
        10,
    );
    assert_eq!(ids(&plain), ["orig"]);
    let tools = Fields { tools: true, thinking: false };
    let all = search(&open(&src, tools, None, &Progress::default()), &q, &Filter::default(), tools, 10);
    assert_eq!(all.hits.len(), 2);
}

#[test]
fn index_is_reused_refreshed_and_rebuilt() {
    let (t, mut src) = estate("index", &[("a", vec![user("alpha words here")]), ("b", vec![user("beta words")])]);
    let idx = t.0.join("cache").join("find.idx");
    let f = Fields::default();
    let c = open(&src, f, Some(&idx), &Progress::default());
    assert_eq!((c.reused, c.rescanned, c.index_written), (0, 2, true));
    let c = open(&src, f, Some(&idx), &Progress::default());
    assert_eq!((c.reused, c.rescanned, c.index_written), (2, 0, false));
    // Append a line to b: only b is read again, and the new word is found.
    let mut lines = fs::read_to_string(&src[1].path).unwrap();
    lines.push_str(&assistant("gamma arrives"));
    lines.push('\n');
    fs::write(&src[1].path, &lines).unwrap();
    src[1] = source(&src[1].path, "b");
    let c = open(&src, f, Some(&idx), &Progress::default());
    assert_eq!((c.reused, c.rescanned, c.appended, c.index_written), (1, 1, 1, true));
    assert_eq!(c.rescanned_bytes, assistant("gamma arrives").len() as u64 + 1);
    let a = search(&c, &Query::parse(&["gamma".into()]), &Filter::default(), f, 10);
    assert_eq!((ids(&a), a.hits[0].line), (vec!["b"], 2));
    // Merged with what was there: frequencies add up, and the best record moves when the new
    // one holds the term more often.
    let mut more = fs::read_to_string(&src[1].path).unwrap();
    more.push_str(&(user("words words words") + "\n"));
    fs::write(&src[1].path, &more).unwrap();
    src[1] = source(&src[1].path, "b");
    let c = open(&src, f, Some(&idx), &Progress::default());
    assert_eq!(c.appended, 1);
    let b = c.segments()[1].lookup(b"words").unwrap();
    assert_eq!((b.tf, b.best, b.line), (4, 3, 3));
    assert_eq!(c.segments()[1].lines, 3);
    let fresh = open(&src, f, None, &Progress::default());
    assert_eq!(fresh.segments()[1].bytes()[4..], c.segments()[1].bytes()[4..], "appending equals a rebuild");
    // A line still being written is read as an append; once it is finished, the old end is
    // no longer a line end, so the whole file is read again.
    let mut torn = fs::read_to_string(&src[1].path).unwrap();
    torn.push_str("{\"type\":\"us");
    fs::write(&src[1].path, &torn).unwrap();
    src[1] = source(&src[1].path, "b");
    let c = open(&src, f, Some(&idx), &Progress::default());
    assert_eq!((c.rescanned, c.appended), (1, 1));
    torn.push_str("er\",\"message\":{\"content\":\"epsilon\"}}\n");
    fs::write(&src[1].path, &torn).unwrap();
    src[1] = source(&src[1].path, "b");
    let c = open(&src, f, Some(&idx), &Progress::default());
    assert_eq!((c.rescanned, c.appended), (1, 0));
    assert_eq!(search(&c, &Query::parse(&["epsilon".into()]), &Filter::default(), f, 10).hits[0].line, 4);
    // Rewrite b shorter: rebuilt, and the old words are gone.
    fs::write(&src[1].path, user("delta") + "\n").unwrap();
    src[1] = source(&src[1].path, "b");
    let c = open(&src, f, Some(&idx), &Progress::default());
    assert_eq!(c.rescanned, 1);
    assert!(search(&c, &Query::parse(&["gamma".into(), "beta".into()]), &Filter::default(), f, 10).hits.is_empty());
    // A damaged index is rebuilt, not trusted.
    let mut bytes = fs::read(&idx).unwrap();
    bytes.truncate(bytes.len() - 3);
    fs::write(&idx, bytes).unwrap();
    let c = open(&src, f, Some(&idx), &Progress::default());
    assert_eq!((c.reused, c.rescanned), (0, 2));
}

#[test]
fn units_split_big_files_without_losing_lines() {
    // Over three scan units: line numbers and offsets still point at the right record.
    let mut lines: Vec<String> =
        (0..6000).map(|i| assistant(&format!("filler line {i} with some padding text to make it long"))).collect();
    lines[4321] = user("the needle sits here");
    let (_t, src) = estate("units", &[("big", lines)]);
    assert!(src[0].size > 3 * 256 * 1024);
    let c = open(&src, Fields::default(), None, &Progress::default());
    let a = search(&c, &Query::parse(&["needle".into()]), &Filter::default(), Fields::default(), 10);
    assert_eq!(a.hits[0].line, 4322);
    assert_eq!(a.hits[0].snippet, "the needle sits here");
    let seg = &c.segments()[0];
    assert_eq!(seg.lines, 6000);
    assert_eq!(seg.lookup(b"filler").unwrap().tf, 5999);
}

#[test]
fn filters_by_project_and_since() {
    let (_t, mut src) = estate("filter", &[("a", vec![user("kiwi")]), ("b", vec![user("kiwi")])]);
    src[1].project = "-home-u-other-repo".into();
    let c = open(&src, Fields::default(), None, &Progress::default());
    let q = Query::parse(&["kiwi".into()]);
    let f = Filter { project: Some("other/repo".into()), ..Default::default() };
    assert_eq!(ids(&search(&c, &q, &f, Fields::default(), 10)), ["b"]);
    let late = Filter {
        since_ms: Some(crate::scan::timestamp::parse_ms(b"2026-03-02T00:00:00Z").unwrap()),
        ..Default::default()
    };
    let a = search(&c, &q, &late, Fields::default(), 10);
    assert_eq!((a.docs, a.hits.len()), (0, 0));
}

#[test]
fn snippet_centres_on_the_densest_matches() {
    let text = format!("{} apple {} banana cherry {}", "x ".repeat(200), "y ".repeat(200), "z ".repeat(200));
    let q = Query::parse(&["banana".into(), "cherry".into(), "apple".into()]);
    let (_, s, _) = snippet_of(&text, &q, &[1.0, 1.0, 1.0]);
    assert!(s.contains("banana cherry") && s.starts_with('…') && s.ends_with('…'), "{s}");
    assert!(!s.contains("apple"));
}
