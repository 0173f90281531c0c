use super::*;

fn rec(kind: &str, uuid: &str, parent: Option<&str>, ts: &str, text: &str) -> String {
    let parent = parent.map_or("null".to_string(), |p| format!("\"{p}\""));
    let role = if kind == "assistant" { "assistant" } else { "user" };
    let content =
        if kind == "assistant" { format!(r#"[{{"type":"text","text":"{text}"}}]"#) } else { format!(r#""{text}""#) };
    let mid = if kind == "assistant" { format!(r#""id":"m-{uuid}","#) } else { String::new() };
    format!(
        r#"{{"parentUuid":{parent},"type":"{kind}","uuid":"{uuid}","sessionId":"s","timestamp":"{ts}","message":{{{mid}"role":"{role}","content":{content}}}}}"#
    )
}

fn transcript() -> Vec<String> {
    vec![
        rec("user", "u1", None, "2026-01-01T00:00:01Z", "hello"),
        rec("assistant", "a1", Some("u1"), "2026-01-01T00:00:02Z", "hi"),
        rec("user", "u2", Some("a1"), "2026-01-01T00:00:03Z", "more"),
        rec("assistant", "a2", Some("u2"), "2026-01-01T00:00:04Z", "sure"),
    ]
}

fn join(lines: &[String]) -> Vec<u8> {
    let mut s = lines.join("\n");
    s.push('\n');
    s.into_bytes()
}

#[test]
fn splits_two_records_on_one_line_bytes_unchanged() {
    let good = transcript();
    let summary = r#"{"type":"summary","summary":"S","leafUuid":"a2"}"#.to_string();
    let mut lines = good.clone();
    lines.push(summary.clone());
    let original = join(&lines);
    let mut damaged = good.clone();
    let last = damaged.pop().unwrap();
    damaged.push(format!("{last}{summary}"));
    let p = plan(&join(&damaged));
    assert_eq!(p.refusal, None);
    assert_eq!(p.output.as_deref(), Some(&original[..]));
    assert_eq!(p.mends.len(), 1);
    assert_eq!(p.mends[0].kind, Kind::RecordsOnOneLine);
}

#[test]
fn cuts_a_torn_tail_and_nul_padding() {
    let good = join(&transcript());
    let mut damaged = good.clone();
    damaged.extend_from_slice(br#"{"type":"user","uuid":"u3","mess"#);
    let p = plan(&damaged);
    assert_eq!(p.output.as_deref(), Some(&good[..]));
    assert_eq!(p.mends[0].kind, Kind::TornLine);
    assert_eq!(p.mends[0].removed, br#"{"type":"user","uuid":"u3","mess"#);

    let t = transcript();
    let mut padded = format!("{}\n{}\n", t[0], t[1]).into_bytes();
    padded.extend_from_slice(&[0u8; 40]);
    padded.extend_from_slice(format!("{}\n{}\n", t[2], t[3]).as_bytes());
    let p = plan(&padded);
    assert_eq!(p.output.as_deref(), Some(&good[..]));
    assert_eq!(p.mends.iter().map(|m| m.kind).collect::<Vec<_>>(), [Kind::NonJsonBytes]);
}

#[test]
fn a_partial_record_before_the_next_one_is_cut_and_the_next_revived() {
    let t = transcript();
    let good = join(&t);
    let damaged = format!("{}\n{}\n{}{}\n{}\n", t[0], t[1], &t[2][..30], t[2], t[3]);
    let p = plan(damaged.as_bytes());
    assert_eq!(p.refusal, None);
    assert_eq!(p.output.as_deref(), Some(&good[..]));
}

#[test]
fn lone_surrogates_are_rewritten_as_the_scanner_reads_them() {
    let mut t = transcript();
    t[1] = t[1].replace("\"hi\"", "\"hi \\ud83d\"");
    let p = plan(&join(&t));
    assert_eq!(p.mends.iter().map(|m| m.kind).collect::<Vec<_>>(), [Kind::LoneSurrogates]);
    let out = String::from_utf8(p.output.unwrap()).unwrap();
    assert!(out.contains("\"hi \\ufffd\""));
}

#[test]
fn relinks_a_dangling_parent_only_where_unambiguous() {
    let mut t = transcript();
    t[2] = t[2].replace("\"parentUuid\":\"a1\"", "\"parentUuid\":\"gone\"");
    let p = plan(&join(&t));
    assert_eq!(p.output.as_deref(), Some(&join(&transcript())[..]));
    assert_eq!(p.mends[0].kind, Kind::DanglingParent);
    // Timestamps that disagree with file order: the client's pick is not the nearest record.
    let mut t = transcript();
    t[2] = t[2].replace("\"parentUuid\":\"a1\"", "\"parentUuid\":\"gone\"").replace("00:00:03", "00:00:01.5");
    let p = plan(&join(&t));
    assert!(p.output.is_none());
    assert_eq!(p.left.len(), 1);
}

#[test]
fn refuses_what_is_not_a_transcript_or_cannot_be_mended() {
    assert_eq!(plan(b"{\"a\":1}\n{\"b\":2}{\"c\":3}\n").refusal, Some(Refusal::NotTranscript));
    let t = transcript();
    let p = plan(format!("{}\n[1,2]\n{}\n", t[0], t[1]).as_bytes());
    assert!(matches!(p.refusal, Some(Refusal::Unmendable { line: 2, .. })));
    assert!(p.output.is_none());
    // Valid JSON this parser cannot hold (the client reads it) is no torn line to cut.
    for odd in [r#"{"type":"user","n":1e400}"#.to_string(), format!("{}{}", "[".repeat(2000), "]".repeat(2000))] {
        let p = plan(format!("{}\n{odd}\n{}\n", t[0], t[1]).as_bytes());
        assert!(matches!(p.refusal, Some(Refusal::Unmendable { line: 2, .. })), "{:?}", p.refusal);
        assert!(p.output.is_none());
    }
}

#[test]
fn a_clean_file_needs_nothing() {
    let p = plan(&join(&transcript()));
    assert!(p.mends.is_empty() && p.output.is_none() && p.refusal.is_none());
}

#[test]
fn refuses_a_repair_that_switches_the_branch_the_client_resumes() {
    // The damaged file resumes the main chain (no readable pointer: the last record decides).
    // The mended line holds a last-prompt naming a rewound branch's leaf: the repaired file would
    // resume that branch and drop the main chain's last turn: refused.
    let t = transcript();
    let alt = rec("user", "b0", Some("a1"), "2026-01-01T00:00:02.5Z", "alt");
    let pointer = r#"{"type":"last-prompt","leafUuid":"b0","sessionId":"s"}"#;
    let summary = r#"{"type":"summary","summary":"S","leafUuid":"a2"}"#;
    let damaged = format!("{}\n{}\n{}\n{}\n{}\n{}{}\n", t[0], t[1], alt, t[2], t[3], pointer, summary);
    let p = plan(damaged.as_bytes());
    assert!(matches!(p.refusal, Some(Refusal::Worse { .. })), "{:?}", p.refusal);
    assert!(p.output.is_none() && p.mends.is_empty());
}
