//! The client's rules on small transcripts, one per observation (each shape was resumed with
//! the real client 2.1.332; the comments say what it sent).

use super::messages::{api_messages, Dropped};
use crate::client::{LeafRule, Pointer};
use crate::graph::Graph;
use crate::scan::{scan_bytes, Mode, Scan};

fn rec(kind: &str, uuid: &str, parent: Option<&str>, extra: &str) -> String {
    let p = parent.map_or("null".to_string(), |p| format!("\"{p}\""));
    format!(r#"{{"parentUuid":{p},"isSidechain":false,"type":"{kind}","uuid":"{uuid}","sessionId":"s"{extra}}}"#)
}
fn user(uuid: &str, parent: Option<&str>, content: &str) -> String {
    rec("user", uuid, parent, &format!(r#","message":{{"role":"user","content":{content}}}"#))
}
fn asst(uuid: &str, parent: &str, msg: &str, blocks: &str) -> String {
    rec(
        "assistant",
        uuid,
        Some(parent),
        &format!(r#","message":{{"id":"{msg}","role":"assistant","content":[{blocks}]}}"#),
    )
}
fn text(t: &str) -> String {
    format!(r#"{{"type":"text","text":"{t}"}}"#)
}
fn call(id: &str) -> String {
    format!(r#"{{"type":"tool_use","id":"{id}","name":"Bash","input":{{}}}}"#)
}
fn think(t: &str) -> String {
    format!(r#"{{"type":"thinking","thinking":"{t}","signature":"c2ln"}}"#)
}
fn result(uuid: &str, parent: &str, id: &str) -> String {
    user(uuid, Some(parent), &format!(r#"[{{"type":"tool_result","tool_use_id":"{id}","content":"out"}}]"#))
}
fn pointer(leaf: &str) -> String {
    format!(r#"{{"type":"last-prompt","leafUuid":"{leaf}","sessionId":"s"}}"#)
}

fn scan(lines: &[String]) -> (Scan, Vec<u8>) {
    let bytes = (lines.join("\n") + "\n").into_bytes();
    (scan_bytes(&bytes, Mode::Full), bytes)
}

fn uuid_of(s: &Scan, i: u32) -> &str {
    s.tables.strings.opt(s.records[i as usize].uuid).unwrap_or("")
}

/// U1 A1, then `main` below A1, then the alt branch U2alt A2alt (written last) and `extra`.
fn branched(main: Vec<String>, extra: Vec<String>) -> Vec<String> {
    let mut l = vec![user("u1", None, r#""U1""#), asst("a1", "u1", "m1", &text("A1"))];
    l.extend(main);
    l.push(user("u2alt", Some("a1"), r#""U2-alt""#));
    l.push(asst("a2alt", "u2alt", "m9", &text("A2-alt")));
    l.extend(extra);
    l
}

fn leaf(lines: &[String]) -> (String, LeafRule, Pointer) {
    let (s, _) = scan(lines);
    let g = Graph::new(&s);
    let c = crate::client::leaf::choose(&g);
    (uuid_of(&s, c.leaf).to_string(), c.rule, c.pointer)
}

#[test]
fn interior_pointer_on_a_tool_call_resumes_from_its_result() {
    // The client resumed from the result and sent U1 A1 U2 A2 R2 + "No response requested.".
    let main = vec![
        user("u2", Some("a1"), r#""U2""#),
        asst("a2", "u2", "m2", &call("t1")),
        result("r2", "a2", "t1"),
        asst("a3", "r2", "m3", &text("A3")),
    ];
    let l = branched(main, vec![pointer("a2")]);
    assert_eq!(leaf(&l), ("r2".into(), LeafRule::LastPromptInterior, Pointer::InteriorOffChain));
}

#[test]
fn interior_pointer_on_parallel_calls_resumes_from_the_last_result_below_the_message() {
    // One record with two calls, both results children of it: the last one in file order.
    let two = format!("{},{}", call("ta"), call("tb"));
    let main = |first: &str, second: &str| {
        vec![
            user("u2", Some("a1"), r#""U2""#),
            asst("a2", "u2", "m2", &two),
            result(first, "a2", if first == "ra" { "ta" } else { "tb" }),
            result(second, "a2", if second == "ra" { "ta" } else { "tb" }),
            asst("a3", second, "m3", &text("A3")),
        ]
    };
    assert_eq!(leaf(&branched(main("ra", "rb"), vec![pointer("a2")])).0, "rb");
    assert_eq!(leaf(&branched(main("rb", "ra"), vec![pointer("a2")])).0, "ra");
    // The second result parented to the first: the client resumed from the first (the child).
    let chained = vec![
        user("u2", Some("a1"), r#""U2""#),
        asst("a2", "u2", "m2", &two),
        result("ra", "a2", "ta"),
        result("rb", "ra", "tb"),
        asst("a3", "rb", "m3", &text("A3")),
    ];
    assert_eq!(leaf(&branched(chained, vec![pointer("a2")])).0, "ra");
    // Fragments of one message.id (thinking, then one call per record): from any fragment, the
    // result of the last fragment.
    let frags = vec![
        user("u2", Some("a1"), r#""U2""#),
        asst("a2t", "u2", "mp", &think("t")),
        asst("a2a", "a2t", "mp", &call("ta")),
        asst("a2b", "a2a", "mp", &call("tb")),
        result("ra", "a2a", "ta"),
        result("rb", "a2b", "tb"),
        asst("a3", "rb", "m3", &text("A3")),
    ];
    for p in ["a2t", "a2a", "a2b"] {
        assert_eq!(leaf(&branched(frags.clone(), vec![pointer(p)])).0, "rb", "pointer on {p}");
    }
}

#[test]
fn interior_pointer_on_a_call_without_result_or_on_a_text_answer_stays() {
    // No result below the call: the client resumed from the call (and closed it as interrupted).
    let missing = vec![
        user("u2", Some("a1"), r#""U2""#),
        asst("a2", "u2", "m2", &call("lost")),
        user("u3", Some("a2"), r#""U3""#),
        asst("a3", "u3", "m3", &text("A3")),
    ];
    assert_eq!(leaf(&branched(missing, vec![pointer("a2")])).0, "a2");
    let answer = vec![
        user("u2", Some("a1"), r#""U2""#),
        asst("a2", "u2", "m2", &text("A2")),
        user("u3", Some("a2"), r#""U3""#),
        asst("a3", "u3", "m3", &text("A3")),
    ];
    assert_eq!(leaf(&branched(answer, vec![pointer("a2")])).0, "a2");
    // On the only chain the pointer is ignored, tool call or not.
    let linear = vec![
        user("u1", None, r#""U1""#),
        asst("a2", "u1", "m2", &call("t1")),
        result("r2", "a2", "t1"),
        asst("a3", "r2", "m3", &text("A3")),
        pointer("a2"),
    ];
    assert_eq!(leaf(&linear), ("a3".into(), LeafRule::LastConversationRecord, Pointer::InteriorOnChain));
}

/// The API messages of the whole chain: (role, block kinds) per message, and the dropped records.
#[allow(clippy::type_complexity)]
fn view(lines: &[String]) -> (Vec<(char, Vec<String>)>, Vec<(String, Dropped)>) {
    let (s, bytes) = scan(lines);
    let g = Graph::new(&s);
    let chain = crate::client::chain::active_chain(&g, crate::client::leaf::choose(&g).leaf);
    let v = api_messages(&s, &bytes, &chain.records);
    let msgs = v
        .messages
        .iter()
        .map(|m| {
            let kinds = m.blocks.iter().map(|b| format!("{}{}", b.kind, if b.blank.droppable() { "~" } else { "" }));
            (if m.assistant { 'A' } else { 'U' }, kinds.collect())
        })
        .collect();
    (msgs, v.dropped.iter().map(|&(i, d)| (uuid_of(&s, i).to_string(), d)).collect())
}

fn around(middle: Vec<String>) -> Vec<String> {
    let mut l =
        vec![user("u1", None, r#""U1""#), asst("a1", "u1", "m1", &text("A1")), user("u2", Some("a1"), r#""U2""#)];
    l.extend(middle);
    l.push(user("u3", Some("a2"), r#""U3""#));
    l.push(asst("a3", "u3", "m3", &text("A3")));
    l
}

fn t(k: &str) -> String {
    k.to_string()
}

#[test]
fn blank_assistant_records_are_dropped_and_the_users_around_them_merge() {
    for blocks in [
        text("\\n\\n"),
        text(""),
        format!("{},{}", text("\\n"), text("")),
        format!("{},{}", think("x"), text("\\n\\n")),
    ] {
        let (msgs, dropped) = view(&around(vec![asst("a2", "u2", "m2", &blocks)]));
        assert_eq!(
            msgs,
            vec![
                ('U', vec![t("text")]),
                ('A', vec![t("text")]),
                ('U', vec![t("text"), t("text")]),
                ('A', vec![t("text")])
            ],
            "{blocks}"
        );
        assert_eq!(dropped, vec![("a2".to_string(), Dropped::BlankText)]);
    }
}

#[test]
fn empty_text_beside_other_blocks_is_dropped_whitespace_is_kept() {
    let (msgs, _) =
        view(&around(vec![asst("a2", "u2", "m2", &format!("{},{},{}", text(""), text("A2"), text("  \\n")))]));
    assert_eq!(msgs[3], ('A', vec![t("text"), t("text~")]));
    // A whitespace fragment of a tool call's message is its own record: dropped.
    let l = vec![
        user("u1", None, r#""U1""#),
        asst("a2a", "u1", "mf", &text("\\n\\n")),
        asst("a2b", "a2a", "mf", &call("t1")),
        result("r2", "a2b", "t1"),
        asst("a3", "r2", "m3", &text("A3")),
    ];
    assert_eq!(
        view(&l).0,
        vec![('U', vec![t("text")]), ('A', vec![t("tool_use")]), ('U', vec![t("tool_result")]), ('A', vec![t("text")])]
    );
}

#[test]
fn thinking_only_messages_are_dropped_unless_their_message_has_more() {
    let (msgs, dropped) = view(&around(vec![asst("a2", "u2", "m2", &think("hmm"))]));
    assert_eq!(msgs.len(), 4);
    assert_eq!(dropped, vec![("a2".to_string(), Dropped::ThinkingOnly)]);
    let (msgs, dropped) =
        view(&around(vec![asst("a2t", "u2", "m2", &think("")), asst("a2", "a2t", "m2", &text("A2"))]));
    assert_eq!(msgs[3], ('A', vec![t("thinking"), t("text")]));
    assert!(dropped.is_empty());
    // Empty thinking beside text is sent.
    let (msgs, _) = view(&around(vec![asst("a2", "u2", "m2", &format!("{},{}", think(""), text("A2")))]));
    assert_eq!(msgs[3], ('A', vec![t("thinking"), t("text")]));
}

#[test]
fn user_blank_text_is_dropped_except_a_lone_string() {
    let a = |c: &str| {
        let l = vec![
            user("u1", None, r#""U1""#),
            asst("a1", "u1", "m1", &text("A1")),
            user("u2", Some("a1"), c),
            asst("a2", "u2", "m2", &text("A2")),
        ];
        view(&l).0[2].clone()
    };
    // A lone string is sent as it is, blank or not.
    assert_eq!(a(r#""  \n""#), ('U', vec![t("text~")]));
    assert_eq!(a(r#""""#), ('U', vec![t("text~")]));
    // Blocks: blank texts go, wherever they are; nothing left is "(no content)".
    assert_eq!(a(&format!("[{},{},{}]", text(""), text("U2"), text("\\n\\n"))), ('U', vec![t("text")]));
    assert_eq!(a(&format!("[{}]", text("\\n"))), ('U', vec![t("text")]));
    // Merged records: the blank one goes.
    let l = vec![
        user("u1", None, r#""U1""#),
        asst("a1", "u1", "m1", &text("A1")),
        user("u2", Some("a1"), r#""""#),
        user("u2b", Some("u2"), r#""U2b""#),
        asst("a2", "u2b", "m2", &text("A2")),
    ];
    assert_eq!(view(&l).0[2], ('U', vec![t("text")]));
}

#[test]
fn message_groups_join_the_fragments_of_one_message_id() {
    let l = vec![
        user("u1", None, r#""U1""#),
        asst("a1", "u1", "mp", &think("t")),
        asst("a2", "a1", "mp", &call("ta")),
        result("r1", "a2", "ta"),
        asst("a3", "r1", "mq", &text("A3")),
    ];
    let (s, _) = scan(&l);
    assert_eq!(super::chain::message_groups(&s), vec![0, 1, 1, 3, 4]);
}

/// U1 A1 U2, then `tail` below U2.
fn prompt_then(tail: Vec<String>) -> Vec<String> {
    let mut l =
        vec![user("u1", None, r#""U1""#), asst("a1", "u1", "m1", &text("A1")), user("u2", Some("a1"), r#""U2""#)];
    l.extend(tail);
    l
}

/// (the leaf, the record the pointer rules named).
fn leaf_and_named(lines: &[String]) -> (String, String) {
    let (s, _) = scan(lines);
    let g = Graph::new(&s);
    let c = crate::client::leaf::choose(&g);
    (uuid_of(&s, c.leaf).to_string(), uuid_of(&s, c.named_leaf).to_string())
}

const NL: &str = r"\n\n";

#[test]
fn a_blank_last_reply_is_dropped_and_the_client_resumes_from_the_record_before() {
    // Each resumed from U2 (its "No response requested." hangs off U2): the blank reply last,
    // with a pointer on it, with a pointer on U2, three in a row, three fragments of one id,
    // thinking + blank, thinking only, an empty text, the client's "(no content)".
    let b = |u: &str, p: &str, m: &str| asst(u, p, m, &text(NL));
    let cases = [
        vec![b("ab", "u2", "mb")],
        vec![b("ab", "u2", "mb"), pointer("ab")],
        vec![b("ab", "u2", "mb"), pointer("u2")],
        vec![b("ab1", "u2", "mb1"), b("ab2", "ab1", "mb2"), b("ab", "ab2", "mb3")],
        vec![b("ab1", "u2", "mb"), b("ab2", "ab1", "mb"), b("ab", "ab2", "mb")],
        vec![asst("ab", "u2", "mb", &format!("{},{}", think("x"), text(NL)))],
        vec![asst("ab", "u2", "mb", &think("x"))],
        vec![asst("ab", "u2", "mb", &text(""))],
        vec![asst("ab", "u2", "mb", &text("(no content)"))],
        vec![asst("at", "u2", "mb", &think("x")), b("ab", "at", "mb")],
        vec![b("at", "u2", "mb"), asst("ab", "at", "mb", &think("x"))],
    ];
    for (k, tail) in cases.into_iter().enumerate() {
        assert_eq!(leaf_and_named(&prompt_then(tail)), ("u2".into(), "ab".into()), "case {k}");
    }
}

#[test]
fn the_step_back_passes_system_records_and_stops_at_an_attachment_a_result_or_a_call() {
    let b = |u: &str, p: &str| asst(u, p, "mb", &text(NL));
    // A system record between U2 and the blank reply: resumed from U2.
    let sys = rec("system", "sy", Some("u2"), r#","subtype":"informational","content":"note""#);
    assert_eq!(leaf_and_named(&prompt_then(vec![sys, b("ab", "sy")])).0, "u2");
    // An attachment between: resumed from the attachment.
    let att = rec("attachment", "t1", Some("u2"), r#","attachment":{"type":"date_change","newDate":"2026-01-02"}"#);
    assert_eq!(leaf_and_named(&prompt_then(vec![att, b("ab", "t1")])).0, "t1");
    // After a tool result: resumed from the result.
    let tail = vec![asst("ac", "u2", "mc", &call("t1")), result("rc", "ac", "t1"), b("ab", "rc")];
    assert_eq!(leaf_and_named(&prompt_then(tail)).0, "rc");
    // A system record below the blank reply is not a leaf either: resumed from U2.
    let below = rec("system", "sy", Some("ab"), r#","subtype":"turn_duration","durationMs":5"#);
    assert_eq!(leaf_and_named(&prompt_then(vec![b("ab", "u2"), below])).0, "u2");
}

#[test]
fn a_blank_reply_stays_when_its_message_says_something_or_a_prompt_follows() {
    // A text fragment then a blank fragment of the same message.id: the client kept the blank
    // fragment as its leaf ("continue" hung off it) and sent only the text.
    let tail = vec![asst("a2", "u2", "my", &text("A2")), asst("ab", "a2", "my", &text(NL))];
    assert_eq!(leaf_and_named(&prompt_then(tail.clone())), ("ab".into(), "ab".into()));
    let (v, dropped) = view(&prompt_then(tail));
    assert_eq!(v.last().unwrap(), &('A', vec![t("text")]));
    assert_eq!(dropped, [("ab".to_string(), Dropped::BlankText)]);
    // A call fragment then a blank fragment of its message: the blank one stays too.
    let tail = vec![asst("ac", "u2", "mc", &call("t1")), asst("ab", "ac", "mc", &text(NL))];
    assert_eq!(leaf_and_named(&prompt_then(tail)).0, "ab");
    // Blank text beside a call in one record: an ordinary reply.
    assert_eq!(
        leaf_and_named(&prompt_then(vec![asst("ab", "u2", "mb", &format!("{},{}", text(NL), call("t1")))])).0,
        "ab"
    );
    // A blank reply after a reply of another message.id: resumed from that reply.
    let tail = vec![asst("a2", "u2", "m2", &text("A2")), asst("ab", "a2", "mb", &text(NL))];
    assert_eq!(leaf_and_named(&prompt_then(tail)).0, "a2");
    // A prompt below the blank reply: the prompt is the leaf, the blank reply merely dropped.
    let tail = vec![asst("ab", "u2", "mb", &text(NL)), user("u3", Some("ab"), r#""U3""#)];
    assert_eq!(leaf_and_named(&prompt_then(tail)), ("u3".into(), "u3".into()));
}

#[test]
fn a_blank_text_before_thinking_is_an_ordinary_reply() {
    // [text "\n\n", thinking]: sent as it is, the whitespace text included.
    let tail = vec![
        asst("ax", "u2", "mx", &format!("{},{}", text(NL), think("x"))),
        user("u3", Some("ax"), r#""U3""#),
        asst("a3", "u3", "m3", &text("A3")),
    ];
    let (v, dropped) = view(&prompt_then(tail));
    assert!(dropped.is_empty());
    assert_eq!(v[3], ('A', vec![t("text~"), t("thinking")]));
}

/// Each sent block says where it sits in its record, so a reader can take it from the line:
/// the n-th typed item of `message.content` (items that are not typed objects are not counted),
/// the record's string content, or the client's `(no content)` placeholder.
#[test]
fn blocks_carry_their_place_in_the_record() {
    use super::blocks::At;
    let lines = vec![
        user("u1", None, r#""U1""#),
        // Empty text is dropped from an assistant record: the call is typed item 2.
        asst("a1", "u1", "m1", &format!(r#"{},"junk",{{"no":"type"}},{},{}"#, text("A1"), text(""), call("t1"))),
        user("r1", Some("a1"), r#"[{"type":"tool_result","tool_use_id":"t1","content":"out"}]"#),
        user("u2", Some("r1"), r#""U2""#),
        // No blank text: read from the scan's tables, which count typed items the same way.
        asst("a2", "u2", "m2", &format!(r#"7,{{"text":"x"}},{}"#, text("A2"))),
        user("u3", Some("a2"), &format!("[{}]", text("  "))),
        asst("a3", "u3", "m3", &text("A3")),
    ];
    // The parsed path (blank text makes the scan's tables unable to tell) and the scanned one.
    let (s, bytes) = scan(&lines);
    let g = Graph::new(&s);
    let v =
        api_messages(&s, &bytes, &crate::client::chain::active_chain(&g, crate::client::leaf::choose(&g).leaf).records);
    let places: Vec<(bool, Vec<(u32, At)>)> =
        v.messages.iter().map(|m| (m.string, m.blocks.iter().map(|b| (b.line, b.at)).collect())).collect();
    assert_eq!(
        places,
        vec![
            (true, vec![(1, At::String)]),
            (false, vec![(2, At::Item(0)), (2, At::Item(2))]),
            // A tool result and a string record merged: the string is a text block of it.
            (false, vec![(3, At::Item(0)), (4, At::String)]),
            (false, vec![(5, At::Item(0))]),
            (false, vec![(6, At::NoContent)]),
            (false, vec![(7, At::Item(0))]),
        ]
    );
}
