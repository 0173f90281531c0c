use super::*;
use crate::scan::{scan_bytes, Mode};

const S: &str = "11111111-1111-4111-8111-111111111111";

fn rec(kind: &str, uuid: &str, parent: Option<&str>, ts: u32, extra: &str) -> String {
    let p = parent.map_or("null".to_string(), |p| format!("\"{p}\""));
    format!(
        r#"{{"parentUuid":{p},"isSidechain":false,"type":"{kind}","uuid":"{uuid}","timestamp":"2026-01-01T00:{:02}:{:02}.000Z","sessionId":"{S}"{extra}}}"#,
        ts / 60,
        ts % 60
    )
}
fn user(uuid: &str, parent: Option<&str>, ts: u32, text: &str) -> String {
    rec("user", uuid, parent, ts, &format!(r#","message":{{"role":"user","content":"{text}"}}"#))
}
fn asst(uuid: &str, parent: Option<&str>, ts: u32, msg: &str, blocks: &str) -> String {
    rec(
        "assistant",
        uuid,
        parent,
        ts,
        &format!(r#","message":{{"id":"{msg}","role":"assistant","content":[{blocks}]}}"#),
    )
}
fn tool_use(id: &str) -> String {
    format!(r#"{{"type":"tool_use","id":"{id}","name":"Bash","input":{{}}}}"#)
}
fn text(t: &str) -> String {
    format!(r#"{{"type":"text","text":"{t}"}}"#)
}
const THINK: &str = r#"{"type":"thinking","thinking":"hmm","signature":"sig"}"#;
fn results(uuid: &str, parent: &str, ts: u32, ids: &[&str]) -> String {
    let blocks: Vec<String> =
        ids.iter().map(|id| format!(r#"{{"type":"tool_result","tool_use_id":"{id}","content":"x"}}"#)).collect();
    rec("user", uuid, Some(parent), ts, &format!(r#","message":{{"role":"user","content":[{}]}}"#, blocks.join(",")))
}
fn last_prompt(leaf: &str) -> String {
    format!(r#"{{"type":"last-prompt","lastPrompt":"x","leafUuid":"{leaf}","sessionId":"{S}"}}"#)
}
fn boundary(uuid: &str, parent: Option<&str>, logical: Option<&str>, ts: u32, meta: &str) -> String {
    let l = logical.map_or(String::new(), |l| format!(r#","logicalParentUuid":"{l}""#));
    rec(
        "system",
        uuid,
        parent,
        ts,
        &format!(
            r#"{l},"subtype":"compact_boundary","content":"Conversation compacted","compactMetadata":{{"trigger":"manual","preTokens":100{meta}}}"#
        ),
    )
}
fn summary(uuid: &str, parent: &str, ts: u32) -> String {
    rec("user", uuid, Some(parent), ts, r#","isCompactSummary":true,"message":{"role":"user","content":"SUMMARY"}"#)
}

/// A valid linear session: a prompt, a thinking + parallel tool calls response split over two
/// fragments, both results in two user records, a final answer and a pointer to it.
fn valid_lines() -> Vec<String> {
    vec![
        user("u1", None, 1, "hi"),
        asst("a1", Some("u1"), 2, "m1", THINK),
        asst("a2", Some("a1"), 3, "m1", &tool_use("t1")),
        asst("a3", Some("a2"), 4, "m1", &tool_use("t2")),
        results("r1", "a2", 5, &["t1"]),
        results("r2", "a3", 6, &["t2"]),
        asst("a4", Some("r2"), 7, "m2", &text("done")),
        last_prompt("a4"),
    ]
}

fn run(lines: &[String]) -> Report {
    let bytes = (lines.join("\n") + "\n").into_bytes();
    let scan = scan_bytes(&bytes, Mode::Full);
    validate(&scan, &bytes, Some(S))
}

fn errors(r: &Report) -> Vec<(&'static str, Vec<u32>)> {
    r.findings.iter().filter(|f| f.severity == Severity::Error).map(|f| (f.code.name(), f.lines.clone())).collect()
}

#[test]
fn valid_file_has_no_error() {
    let r = run(&valid_lines());
    assert_eq!(errors(&r), vec![]);
    assert_eq!(r.api_messages, 4);
    assert_eq!(r.tool_uses, 2);
    assert_eq!(r.leaf_line, Some(7));
}

#[test]
fn bad_lines_and_torn_tail() {
    let mut l = valid_lines();
    l.insert(1, "{not json".into());
    l.insert(2, "[1,2]".into());
    let mut bytes = (l.join("\n") + "\n").into_bytes();
    bytes.extend_from_slice(br#"{"type":"user","uu"#);
    let scan = scan_bytes(&bytes, Mode::Full);
    let r = validate(&scan, &bytes, None);
    assert_eq!(errors(&r), vec![("bad-json", vec![2]), ("non-object", vec![3]), ("torn-tail", vec![11])]);
}

#[test]
fn duplicate_uuid() {
    let mut l = valid_lines();
    l.insert(7, user("u1", Some("a4"), 8, "again"));
    let r = run(&l);
    assert!(errors(&r).contains(&("duplicate-uuid", vec![1, 8])), "{:?}", errors(&r));
}

#[test]
fn dangling_parent() {
    let mut l = valid_lines();
    l[6] = asst("a4", Some("nope"), 7, "m2", &text("done"));
    let r = run(&l);
    assert_eq!(errors(&r), vec![("dangling-parent", vec![6, 7])]);
}

#[test]
fn orphan_tool_result() {
    let mut l = valid_lines();
    l[5] = results("r2", "a3", 6, &["t2", "t9"]);
    let r = run(&l);
    assert_eq!(errors(&r), vec![("orphan-tool-result", vec![6])]);
}

#[test]
fn tool_use_without_result() {
    let mut l = valid_lines();
    l[5] = user("r2", Some("r1"), 6, "never mind");
    let r = run(&l);
    assert_eq!(errors(&r), vec![("tool-use-without-result", vec![4])]);
}

#[test]
fn two_results_for_one_tool_use() {
    let mut l = valid_lines();
    l[5] = results("r2", "a3", 6, &["t2", "t2"]);
    let r = run(&l);
    assert_eq!(errors(&r), vec![("duplicate-tool-result", vec![4, 6])]);
}

#[test]
fn duplicate_tool_use_id_across_messages() {
    let mut l = valid_lines();
    l[6] = asst("a4", Some("r2"), 7, "m2", &tool_use("t1"));
    l.push(results("r3", "a4", 8, &["t1"]));
    l.push(asst("a5", Some("r3"), 9, "m3", &text("ok")));
    l.push(last_prompt("a5"));
    let r = run(&l);
    assert_eq!(errors(&r), vec![("duplicate-tool-use-id", vec![3, 7])]);
}

#[test]
fn pending_tool_use_at_the_leaf_is_a_warning() {
    let l: Vec<String> = valid_lines().into_iter().take(4).collect();
    let r = run(&l);
    assert_eq!(errors(&r), vec![]);
    assert!(r.findings.iter().any(|f| f.code == "tool-use-pending" && f.lines == vec![3, 4]));
}

#[test]
fn empty_text_block() {
    let mut l = valid_lines();
    l[6] = asst("a4", Some("r2"), 7, "m2", &format!("{},{}", text("done"), text("  ")));
    let r = run(&l);
    assert_eq!(errors(&r), vec![("empty-text-block", vec![7])]);
}

#[test]
fn thinking_not_first() {
    let mut l = valid_lines();
    l[1] = asst("a1", Some("u1"), 2, "m1", &text("first"));
    l.insert(2, asst("a1b", Some("a1"), 2, "m1", THINK));
    l[3] = asst("a2", Some("a1b"), 3, "m1", &tool_use("t1"));
    let r = run(&l);
    assert_eq!(errors(&r), vec![("thinking-not-first", vec![2, 3])]);
}

#[test]
fn compaction_valid_then_stacked_pairs() {
    let mut l = valid_lines();
    l.pop();
    l.push(boundary("b1", None, Some("a4"), 8, ""));
    l.push(summary("s1", "b1", 9));
    l.push(asst("a5", Some("s1"), 10, "m5", &text("after")));
    let mut ok = l.clone();
    ok.push(last_prompt("a5"));
    let r = run(&ok);
    assert_eq!(errors(&r), vec![]);
    assert_eq!(r.compact_boundaries, 1);
    assert_eq!(r.api_messages, 2, "only what follows the boundary is sent");

    // A second pair stacked on the first by parentUuid: two live pairs on the loaded chain.
    l.push(boundary("b2", Some("a5"), Some("a5"), 11, ""));
    l.push(summary("s2", "b2", 12));
    l.push(asst("a6", Some("s2"), 13, "m6", &text("later")));
    l.push(last_prompt("a6"));
    let r = run(&l);
    assert_eq!(errors(&r), vec![("multiple-current-compact-pairs", vec![8, 11])]);
}

#[test]
fn compact_pair_off_the_chain_and_metadata() {
    let mut l = valid_lines();
    l.pop();
    // A pair written last, on a branch the pointer does not follow.
    l.push(boundary("b1", None, None, 8, ""));
    l.push(summary("s1", "b1", 9));
    l.push(last_prompt("a4"));
    let r = run(&l);
    let e = errors(&r);
    assert!(e.contains(&("compact-pair-unreachable", vec![8])), "{e:?}");

    let mut l = valid_lines();
    l.pop();
    l.push(boundary(
        "b1",
        None,
        Some("a4"),
        8,
        r#","summaryUuid":"zzz","preservedSegment":{"headUuid":"u1","anchorUuid":"s1","tailUuid":"nope"}"#,
    ));
    l.push(summary("s1", "b1", 9));
    l.push(last_prompt("s1"));
    let r = run(&l);
    let codes: Vec<&str> = errors(&r).iter().map(|e| e.0).collect();
    assert_eq!(codes, vec!["compact-metadata-mismatch", "compact-segment-broken"]);
}

#[test]
fn boundary_without_summary_and_summary_without_boundary() {
    let mut l = valid_lines();
    l.pop();
    l.push(boundary("b1", None, Some("a4"), 8, ""));
    l.push(asst("a5", Some("b1"), 9, "m5", &text("x")));
    l.push(rec("user", "s9", Some("a5"), 10, r#","isCompactSummary":true,"message":{"role":"user","content":"S"}"#));
    l.push(asst("a6", Some("s9"), 11, "m6", &text("y")));
    let r = run(&l);
    let codes: Vec<&str> = errors(&r).iter().map(|e| e.0).collect();
    assert_eq!(codes, vec!["compact-boundary-without-summary", "compact-summary-without-boundary"]);
}

#[test]
fn internal_field_is_found_as_a_key_not_as_text() {
    let mut l = valid_lines();
    l[6] = asst("a4", Some("r2"), 7, "m2", &text(r#"the \"summaryIndexes\" set"#));
    assert_eq!(errors(&run(&l)), vec![]);
    l[6] = rec(
        "assistant",
        "a4",
        Some("r2"),
        7,
        r#","message":{"id":"m2","role":"assistant","content":[{"type":"text","text":"ok"}]},"plan":{"rawKeepIndexes":[1,2]}"#,
    );
    assert_eq!(errors(&run(&l)), vec![("internal-field", vec![7])]);
}

#[test]
fn sessions_one_way_lineage_and_return() {
    let other = "22222222-2222-4222-8222-222222222222";
    let mut l = valid_lines();
    l[0] = l[0].replace(S, other);
    let r = run(&l);
    assert_eq!(errors(&r), vec![]);
    assert!(r.findings.iter().any(|f| f.code == "session-lineage"));
    l[5] = l[5].replace(S, other);
    let r = run(&l);
    assert!(errors(&r).iter().any(|e| e.0 == "session-lineage-returns"), "{:?}", errors(&r));
    // The file named after another session.
    let bytes = (valid_lines().join("\n") + "\n").into_bytes();
    let scan = scan_bytes(&bytes, Mode::Full);
    let r = validate(&scan, &bytes, Some(other));
    assert_eq!(errors(&r), vec![], "the client goes by the file name: not an error");
    assert!(r.findings.iter().any(|f| f.code == "file-session-differs"));
}

#[test]
fn unknown_pointer_and_no_conversation() {
    let mut l = valid_lines();
    l[7] = last_prompt("ghost");
    assert_eq!(errors(&run(&l)), vec![("pointer-unknown", vec![8])]);
    let r = run(&[r#"{"type":"custom-title","customTitle":"x"}"#.to_string()]);
    assert_eq!(errors(&r), vec![("no-conversation", vec![])]);
}

#[test]
fn live_preserved_segment_is_relinked_as_the_client_does() {
    // Client 2.1.332 /compact: U2…A3 preserved verbatim, later records chain
    // onto the tail; the boundary and summary hang off the old history by logicalParentUuid.
    let seg = r#","preservedSegment":{"headUuid":"u2","anchorUuid":"s1","tailUuid":"a3"},"preservedMessages":{"uuids":["u2","a2","r1","a3"]}"#;
    let l = vec![
        user("u1", None, 1, "old"),
        asst("a1", Some("u1"), 2, "m1", &text("old answer")),
        user("u2", Some("a1"), 3, "kept"),
        asst("a2", Some("u2"), 4, "m2", &tool_use("t1")),
        results("r1", "a2", 5, &["t1"]),
        asst("a3", Some("r1"), 6, "m3", &text("kept answer")),
        boundary("b1", None, Some("a3"), 7, seg),
        summary("s1", "b1", 8),
        user("u4", Some("a3"), 9, "next"),
        asst("a4", Some("u4"), 10, "m4", &text("ok")),
    ];
    let r = run(&l);
    assert_eq!(errors(&r), vec![]);
    assert!(r.findings.is_empty(), "{:?}", r.findings);
    // summary+U2 · A2 · R1 · A3 · U4 · A4
    assert_eq!(r.api_messages, 6);
    assert_eq!(r.visible_records, 7);
    // A broken segment (the walk from the tail does not reach the head) is not applied.
    let broken = l.iter().map(|x| x.replace(r#""headUuid":"u2""#, r#""headUuid":"u4""#)).collect::<Vec<_>>();
    let codes: Vec<&str> = errors(&run(&broken)).iter().map(|e| e.0).collect();
    assert_eq!(codes, vec!["compact-pair-unreachable"]);
}

#[test]
fn current_summary_must_have_text_and_preserved_uuids_must_exist() {
    let mut l = valid_lines();
    l.pop();
    l.push(boundary("b1", None, Some("a4"), 8, r#","preservedMessages":{"uuids":["a4","gone"]}"#));
    l.push(rec("user", "s1", Some("b1"), 9, r#","isCompactSummary":true,"message":{"role":"user","content":"  "}"#));
    l.push(asst("a5", Some("s1"), 10, "m5", &text("after")));
    let codes: Vec<&str> = errors(&run(&l)).iter().map(|e| e.0).collect();
    // The blank summary is also an empty text block of the first API message.
    assert_eq!(codes, vec!["compact-summary-empty", "compact-preserved-missing", "empty-text-block"]);
}

#[test]
fn a_subagent_transcript_is_named_as_such() {
    let l: Vec<String> =
        valid_lines().iter().map(|x| x.replace(r#""isSidechain":false"#, r#""isSidechain":true"#)).collect();
    let r = run(&l);
    assert_eq!(errors(&r), vec![("no-conversation", vec![])]);
    assert!(r.findings[0].message.contains("subagent"));
}

#[test]
fn malformed_parent() {
    let mut l = valid_lines();
    l[6] = l[6].replace(r#""parentUuid":"r2""#, r#""parentUuid":42"#);
    let codes: Vec<&str> = errors(&run(&l)).iter().map(|e| e.0).collect();
    assert_eq!(codes, vec!["malformed-parent"]);
    l[6] = l[6].replace(r#""parentUuid":42"#, r#""parentUuid":"""#);
    let codes: Vec<&str> = errors(&run(&l)).iter().map(|e| e.0).collect();
    assert!(codes.contains(&"malformed-parent"), "{codes:?}");
}

#[test]
fn parent_cycles_on_and_off_the_chain() {
    let mut l = valid_lines();
    // The root points at the leaf (the client loads the whole history in order, no hang).
    l[0] = user("u1", Some("a4"), 1, "hi");
    let r = run(&l);
    let cyc: Vec<_> = errors(&r).into_iter().filter(|e| e.0 == "parent-cycle").collect();
    assert_eq!(cyc.len(), 1, "{:?}", errors(&r));
    assert_eq!(cyc[0].1, vec![1, 2, 3, 4, 6, 7], "the cycle's members");
    // Two records pointing at each other, away from the chain.
    let mut l = valid_lines();
    l.insert(7, user("x1", Some("x2"), 20, "a"));
    l.insert(8, user("x2", Some("x1"), 21, "b"));
    let r = run(&l);
    assert_eq!(errors(&r), vec![("parent-cycle", vec![8, 9])]);
}

#[test]
fn empty_message() {
    let mut l = valid_lines();
    l[6] = asst("a4", Some("r2"), 7, "m2", "");
    assert_eq!(errors(&run(&l)), vec![("empty-message", vec![7])]);
}

#[test]
fn a_subagent_transcript_without_sidechain_flags_is_named_as_such() {
    let l: Vec<String> = valid_lines()
        .iter()
        .map(|x| x.replace(r#""isSidechain":false"#, r#""isSidechain":false,"agentId":"a1b2c3""#))
        .collect();
    let r = run(&l);
    assert_eq!(errors(&r), vec![("no-conversation", vec![])]);
    assert!(r.findings[0].message.contains("agentId"));
}

#[test]
fn tool_results_out_of_the_order_of_their_calls_are_an_error() {
    // Both results in one user record, second call's result first.
    let mut l = valid_lines();
    l[4] = results("r1", "a3", 5, &["t2", "t1"]);
    l.remove(5);
    l[5] = asst("a4", Some("r1"), 7, "m2", &text("done"));
    let r = run(&l);
    assert_eq!(errors(&r), vec![("tool-result-order", vec![5])]);
    // In order: valid.
    l[4] = results("r1", "a3", 5, &["t1", "t2"]);
    assert_eq!(errors(&run(&l)), vec![]);
}

#[test]
fn blocks_from_the_scan_equal_blocks_parsed_again() {
    use crate::client::blocks::{parsed, scanned as from_scan_tables, Content};
    let mut l = valid_lines();
    l.push(user("b1", Some("a4"), 40, "   "));
    l.push(rec(
        "user",
        "b2",
        Some("b1"),
        41,
        r#","message":{"role":"user","content":[{"type":"tool_result","content":"no id"},{"type":"tool_result","tool_use_id":"t9","content":"x"}]}"#,
    ));
    l.push(asst(
        "b3",
        Some("b2"),
        42,
        "m9",
        &format!("{THINK},{},{},{}", tool_use("t8"), text("ok"), r#"{"type":"image"}"#),
    ));
    let bytes = l.join("\n") + "\n";
    let s = scan_bytes(bytes.as_bytes(), Mode::Full);
    let key =
        |c: &Content| c.blocks.iter().map(|b| (b.kind.clone(), b.id.clone(), b.blank, b.line)).collect::<Vec<_>>();
    let mut scanned = 0;
    for r in &s.records {
        let parsed = parsed(bytes.as_bytes(), r).unwrap();
        if let Some(from_scan) = from_scan_tables(&s, r) {
            assert_eq!(key(&from_scan), key(&parsed), "line {}", r.line);
            scanned += 1;
        }
    }
    assert!(scanned >= s.records.len() - 1, "only a result without its id needs a parse");
    assert!(from_scan_tables(&s, &s.records[s.records.len() - 2]).is_none());
}

/// `docs/finding-codes.md` is generated from the codes (`node scripts/finding-codes.mjs` sets
/// `CLAUDE_JSONL_WRITE_FINDING_CODES=1` and runs this test, which then writes the file).
#[test]
fn finding_codes_table_is_current() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/finding-codes.md");
    let table = codes::markdown_table();
    if std::env::var_os("CLAUDE_JSONL_WRITE_FINDING_CODES").is_some() {
        std::fs::write(&path, &table).unwrap();
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(committed == table, "docs/finding-codes.md is stale: run `node scripts/finding-codes.mjs`");
    let mut names: Vec<&str> = Code::ALL.iter().map(|c| c.name()).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), Code::ALL.len(), "every code has its own name");
}

#[test]
fn a_chain_ending_on_a_blank_reply_resumes_from_the_record_before() {
    let mut l = valid_lines();
    l.pop();
    l.push(user("u5", Some("a4"), 8, "next"));
    l.push(asst("a5", Some("u5"), 9, "m5", &text(r"\n\n")));
    l.push(last_prompt("a5"));
    let r = run(&l);
    assert_eq!(errors(&r), vec![]);
    assert_eq!(r.leaf_line, Some(8));
    let f = r.findings.iter().find(|f| f.code == Code::SilentTail).expect("a silent-tail warning");
    assert_eq!((f.severity, f.lines.clone()), (Severity::Warning, vec![8, 9]));
    assert_eq!(r.api_messages, 5);
}

#[test]
fn results_written_as_records_of_their_own_in_another_order_than_the_calls_are_valid() {
    // Parallel calls finish in any order: the client writes each result as it comes, and sends
    // them in that order (seen on real files and with the real client).
    let mut l = valid_lines();
    l.swap(4, 5);
    l[6] = asst("a4", Some("r1"), 7, "m2", &text("done"));
    let r = run(&l);
    assert_eq!(errors(&r), vec![]);
}
