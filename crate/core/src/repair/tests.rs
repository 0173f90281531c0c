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

fn call(uuid: &str, parent: &str, ts: &str, id: &str) -> String {
    format!(
        r#"{{"parentUuid":"{parent}","type":"assistant","uuid":"{uuid}","sessionId":"s","timestamp":"{ts}","message":{{"id":"m-{uuid}","role":"assistant","content":[{{"type":"tool_use","id":"{id}","name":"Read","input":{{"file_path":"/x"}}}}]}}}}"#
    )
}

fn result(uuid: &str, parent: &str, ts: &str, id: &str) -> String {
    format!(
        r#"{{"parentUuid":"{parent}","type":"user","uuid":"{uuid}","sessionId":"s","timestamp":"{ts}","message":{{"role":"user","content":[{{"type":"tool_result","tool_use_id":"{id}","content":"file text"}}]}}}}"#
    )
}

/// u1 a1 u2, a tool call c1 and its result r1, then a2.
fn with_tool_call() -> Vec<String> {
    vec![
        rec("user", "u1", None, "2026-01-01T00:00:01Z", "hello"),
        rec("assistant", "a1", Some("u1"), "2026-01-01T00:00:02Z", "hi"),
        rec("user", "u2", Some("a1"), "2026-01-01T00:00:03Z", "read it"),
        call("c1", "u2", "2026-01-01T00:00:04Z", "toolu_1"),
        result("r1", "c1", "2026-01-01T00:00:05Z", "toolu_1"),
        rec("assistant", "a2", Some("r1"), "2026-01-01T00:00:06Z", "done"),
    ]
}

#[test]
fn relinks_a_result_whose_call_is_off_the_chain() {
    let good = with_tool_call();
    // The result hangs from the call's parent: the call is a leaf of its own, off the chain.
    let mut t = good.clone();
    t[4] = t[4].replace(r#""parentUuid":"c1""#, r#""parentUuid":"u2""#);
    assert_eq!(chain_damage(&scan_bytes(&join(&t), Mode::Full)).orphan_results, 1);
    let p = plan(&join(&t));
    assert_eq!(p.refusal, None);
    assert_eq!(p.mends.iter().map(|m| m.kind).collect::<Vec<_>>(), [Kind::OrphanToolResult]);
    assert_eq!(p.mends[0].line, 5);
    assert_eq!(p.mends[0].removed, br#""u2""#);
    assert_eq!(p.output.as_deref(), Some(&join(&good)[..]));
    // Its parent was never written and its time is before the call's: the client re-attaches it
    // to u2 (the dangling-parent relink alone would leave it as ambiguous); relinked to the call.
    let mut t = good.clone();
    t[4] = t[4].replace(r#""parentUuid":"c1""#, r#""parentUuid":"gone""#).replace("00:00:05", "00:00:03.5");
    let p = plan(&join(&t));
    assert_eq!(p.mends.iter().map(|m| m.kind).collect::<Vec<_>>(), [Kind::OrphanToolResult]);
    assert!(p.left.is_empty(), "{:?}", p.left);
    let want = join(&good).to_vec();
    let out = String::from_utf8(p.output.unwrap()).unwrap();
    assert_eq!(out.replace("00:00:03.5", "00:00:05"), String::from_utf8(want).unwrap());
}

#[test]
fn leaves_a_result_whose_call_no_record_holds_and_a_call_at_the_end() {
    // The call's record is gone: the client drops the block (nothing can bring the call back).
    let mut t = with_tool_call();
    t.remove(3);
    t[3] = t[3].replace(r#""parentUuid":"c1""#, r#""parentUuid":"u2""#);
    let p = plan(&join(&t));
    assert!(p.output.is_none() && p.refusal.is_none());
    assert_eq!(p.left.len(), 1);
    assert_eq!(p.left[0].kind, Kind::OrphanToolResult);
    assert!(p.left[0].message.contains("in no record of the file"), "{}", p.left[0].message);
    // The file ends on the call: the client answers it as interrupted; nothing to repair.
    let t = with_tool_call()[..4].to_vec();
    let p = plan(&join(&t));
    assert!(p.mends.is_empty() && p.left.is_empty() && p.output.is_none());
}

#[test]
fn leaves_a_relink_that_would_bring_back_more_than_the_call() {
    // The call's message holds a second call no result answers: left.
    let mut t = with_tool_call();
    t[3] = t[3].replace(
        r#"{"file_path":"/x"}}]"#,
        r#"{"file_path":"/x"}},{"type":"tool_use","id":"toolu_2","name":"Read","input":{}}]"#,
    );
    t[4] = t[4].replace(r#""parentUuid":"c1""#, r#""parentUuid":"u2""#);
    let p = plan(&join(&t));
    assert!(p.output.is_none());
    assert!(p.left.iter().any(|l| l.kind == Kind::OrphanToolResult && l.message.contains("toolu_2")), "{:?}", p.left);
    // The call hangs from a1, the result from u2: relinking would bring u2's sibling branch in.
    let mut t = with_tool_call();
    t[3] = t[3].replace(r#""parentUuid":"u2""#, r#""parentUuid":"a1""#);
    t[4] = t[4].replace(r#""parentUuid":"c1""#, r#""parentUuid":"u2""#);
    let p = plan(&join(&t));
    assert!(p.output.is_none());
    assert!(p.left.iter().any(|l| l.message.contains("does not hang from there")), "{:?}", p.left);
}

#[test]
fn relinks_the_last_result_of_parallel_calls_and_brings_back_the_whole_message() {
    // Two calls streamed as two fragments of one message (c1b hangs from c1a), each result
    // hanging from its call's fragment, the conversation going on from the second result.
    let frag =
        |uuid: &str, parent: &str, ts: &str, id: &str| call(uuid, parent, ts, id).replace(&format!("m-{uuid}"), "m-c1");
    let good = vec![
        rec("user", "u1", None, "2026-01-01T00:00:01Z", "hello"),
        frag("c1a", "u1", "2026-01-01T00:00:02Z", "toolu_1"),
        frag("c1b", "c1a", "2026-01-01T00:00:03Z", "toolu_2"),
        result("r1", "c1a", "2026-01-01T00:00:04Z", "toolu_1"),
        result("r2", "c1b", "2026-01-01T00:00:05Z", "toolu_2"),
        rec("assistant", "a2", Some("r2"), "2026-01-01T00:00:06Z", "done"),
    ];
    let mut t = good.clone();
    t[4] = t[4].replace(r#""parentUuid":"c1b""#, r#""parentUuid":"u1""#);
    let p = plan(&join(&t));
    assert_eq!(p.refusal, None);
    assert_eq!(p.mends.iter().map(|m| (m.kind, m.line)).collect::<Vec<_>>(), [(Kind::OrphanToolResult, 5)]);
    assert_eq!(p.output.as_deref(), Some(&join(&good)[..]));
    // Without the first call's result, relinking would leave toolu_1 unanswered: left.
    let mut t = good.clone();
    t[4] = t[4].replace(r#""parentUuid":"c1b""#, r#""parentUuid":"u1""#);
    t.remove(3);
    let p = plan(&join(&t));
    assert!(p.output.is_none());
    assert!(p.left.iter().any(|l| l.message.contains("toolu_1")), "{:?}", p.left);
}
