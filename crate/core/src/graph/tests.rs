use super::*;
use crate::client::{LeafChoice, LeafRule, Origin, Pointer};
use crate::scan::{scan_bytes, Mode};

/// One record line: `u(uuid, parent, ts)` style helpers keep the graphs readable.
fn rec(kind: &str, uuid: &str, parent: Option<&str>, ts: u32, extra: &str) -> String {
    let p = parent.map_or("null".to_string(), |p| format!("\"{p}\""));
    format!(
        r#"{{"type":"{kind}","uuid":"{uuid}","parentUuid":{p},"timestamp":"2026-01-01T00:{:02}:{:02}.000Z"{extra}}}"#,
        ts / 60,
        ts % 60
    )
}
fn user(uuid: &str, parent: Option<&str>, ts: u32) -> String {
    rec("user", uuid, parent, ts, r#","message":{"role":"user","content":"hi"}"#)
}
fn asst(uuid: &str, parent: Option<&str>, ts: u32, msg: &str, tool: Option<&str>) -> String {
    let content = match tool {
        Some(t) => format!(r#"[{{"type":"tool_use","id":"{t}","name":"Bash","input":{{}}}}]"#),
        None => r#"[{"type":"text","text":"ok"}]"#.to_string(),
    };
    rec(
        "assistant",
        uuid,
        parent,
        ts,
        &format!(r#","message":{{"id":"{msg}","role":"assistant","content":{content}}}"#),
    )
}
fn result(uuid: &str, parent: Option<&str>, ts: u32, tool: &str) -> String {
    rec(
        "user",
        uuid,
        parent,
        ts,
        &format!(
            r#","message":{{"role":"user","content":[{{"type":"tool_result","tool_use_id":"{tool}","content":"x"}}]}}"#
        ),
    )
}
fn last_prompt(leaf: Option<&str>) -> String {
    match leaf {
        Some(l) => format!(r#"{{"type":"last-prompt","leafUuid":"{l}"}}"#),
        None => r#"{"type":"last-prompt","lastPrompt":"x"}"#.to_string(),
    }
}
fn scan(lines: &[String]) -> Scan {
    scan_bytes((lines.join("\n") + "\n").as_bytes(), Mode::Full)
}
fn uuids(s: &Scan, idx: &[u32]) -> Vec<String> {
    idx.iter().map(|&i| s.tables.strings.opt(s.records[i as usize].uuid).unwrap_or("-").to_string()).collect()
}
fn chain_of(s: &Scan) -> (LeafChoice, Vec<String>) {
    let g = Graph::new(s);
    let c = crate::client::leaf::choose(&g);
    let chain = crate::client::chain::active_chain(&g, c.leaf);
    (c, uuids(s, &chain.records))
}

/// U1 A1 U2 A2 (main, written first) and U2alt A2alt (second child of A1, written later).
fn branched(pointer: Option<Option<&str>>) -> Scan {
    let mut l = vec![
        user("U1", None, 1),
        asst("A1", Some("U1"), 2, "m1", None),
        user("U2", Some("A1"), 3),
        asst("A2", Some("U2"), 4, "m2", None),
        user("U2alt", Some("A1"), 5),
        asst("A2alt", Some("U2alt"), 6, "m3", None),
    ];
    if let Some(p) = pointer {
        l.push(last_prompt(p));
    }
    scan(&l)
}

#[test]
fn no_pointer_takes_last_conversation_record() {
    let s = branched(None);
    let (c, chain) = chain_of(&s);
    assert_eq!((c.rule, c.pointer), (LeafRule::LastConversationRecord, Pointer::Absent));
    assert_eq!(chain, ["U1", "A1", "U2alt", "A2alt"]);
}

#[test]
fn pointer_to_a_leaf_wins_even_when_older() {
    let s = branched(Some(Some("A2")));
    let (c, chain) = chain_of(&s);
    assert_eq!((c.rule, c.pointer), (LeafRule::LastPrompt, Pointer::Leaf));
    assert_eq!(chain, ["U1", "A1", "U2", "A2"]);
}

#[test]
fn the_last_last_prompt_wins() {
    let l = vec![
        user("U1", None, 1),
        asst("A1", Some("U1"), 2, "m1", None),
        user("U2", Some("A1"), 3),
        asst("A2", Some("U2"), 4, "m2", None),
        last_prompt(Some("A2alt")),
        user("U2alt", Some("A1"), 5),
        asst("A2alt", Some("U2alt"), 6, "m3", None),
        last_prompt(Some("A2")),
    ];
    let (c, chain) = chain_of(&scan(&l));
    assert_eq!(c.rule, LeafRule::LastPrompt);
    assert_eq!(chain, ["U1", "A1", "U2", "A2"]);
}

#[test]
fn pointer_without_leaf_or_unknown_falls_back() {
    let (c, chain) = chain_of(&branched(Some(None)));
    assert_eq!((c.rule, c.pointer), (LeafRule::LastConversationRecord, Pointer::NoLeafUuid));
    assert_eq!(chain.last().unwrap(), "A2alt");
    let (c, _) = chain_of(&branched(Some(Some("nope"))));
    assert_eq!(c.pointer, Pointer::Unknown);
}

#[test]
fn interior_pointers() {
    // Fork point and root: on the default chain, ignored.
    for p in ["A1", "U1"] {
        let (c, chain) = chain_of(&branched(Some(Some(p))));
        assert_eq!((c.rule, c.pointer), (LeafRule::LastConversationRecord, Pointer::InteriorOnChain), "{p}");
        assert_eq!(chain.last().unwrap(), "A2alt");
    }
    // Interior on the main branch only: truncates there.
    let mut l = vec![
        user("U1", None, 1),
        asst("A1", Some("U1"), 2, "m1", None),
        user("U2", Some("A1"), 3),
        asst("A2", Some("U2"), 4, "m2", None),
        user("U3", Some("A2"), 5),
        user("U2alt", Some("A1"), 6),
        asst("A2alt", Some("U2alt"), 7, "m3", None),
    ];
    l.push(last_prompt(Some("U2")));
    let (c, chain) = chain_of(&scan(&l));
    assert_eq!((c.rule, c.pointer), (LeafRule::LastPromptInterior, Pointer::InteriorOffChain));
    assert_eq!(chain, ["U1", "A1", "U2"]);
}

#[test]
fn stale_pointer_on_a_linear_session_is_ignored() {
    let l = vec![
        user("U1", None, 1),
        asst("A1", Some("U1"), 2, "m1", None),
        last_prompt(Some("A1")),
        user("U2", Some("A1"), 3),
        asst("A2", Some("U2"), 4, "m2", None),
    ];
    let (c, chain) = chain_of(&scan(&l));
    assert_eq!(c.pointer, Pointer::InteriorOnChain);
    assert_eq!(chain, ["U1", "A1", "U2", "A2"]);
}

#[test]
fn parallel_fragments_and_results_are_spliced_once() {
    // Two fragments of msg m2 (tool t1, tool t2); r1 hangs off the first fragment, off the chain.
    let l = vec![
        user("U1", None, 1),
        asst("F1", Some("U1"), 2, "m2", Some("t1")),
        asst("F2", Some("F1"), 3, "m2", Some("t2")),
        result("R1", Some("F1"), 4, "t1"),
        result("R2", Some("F2"), 5, "t2"),
        asst("A3", Some("R2"), 6, "m3", None),
    ];
    let s = scan(&l);
    let g = Graph::new(&s);
    let c = crate::client::leaf::choose(&g);
    let chain = crate::client::chain::active_chain(&g, c.leaf);
    assert_eq!(uuids(&s, &chain.records), ["U1", "F1", "F2", "R1", "R2", "A3"]);
    assert_eq!(chain.origins[3], Origin::ToolResult);
    assert_eq!(chain.origins[4], Origin::Chain);
    // Written the other way round: the second fragment and its result are off the chain.
    let l = vec![
        user("U1", None, 1),
        asst("F1", Some("U1"), 2, "m2", Some("t1")),
        asst("F2", Some("F1"), 3, "m2", Some("t2")),
        result("R2", Some("F2"), 4, "t2"),
        result("R1", Some("F1"), 5, "t1"),
        asst("A3", Some("R1"), 6, "m3", None),
    ];
    let s = scan(&l);
    let g = Graph::new(&s);
    let chain = crate::client::chain::active_chain(&g, crate::client::leaf::choose(&g).leaf);
    // The results in the order they were written, as the client sends them.
    assert_eq!(uuids(&s, &chain.records), ["U1", "F1", "F2", "R2", "R1", "A3"]);
    assert_eq!(chain.origins[2], Origin::Fragment);
}

#[test]
fn compaction_boundaries_are_followed_across() {
    let l = vec![
        user("U1", None, 1),
        asst("A1", Some("U1"), 2, "m1", None),
        rec(
            "system",
            "B",
            None,
            3,
            r#","subtype":"compact_boundary","logicalParentUuid":"A1","compactMetadata":{"preTokens":5}"#,
        ),
        rec("user", "S", Some("B"), 4, r#","isCompactSummary":true,"message":{"role":"user","content":"SUM"}"#),
        user("U2", Some("S"), 5),
        asst("A2", Some("U2"), 6, "m2", None),
    ];
    let (_, chain) = chain_of(&scan(&l));
    assert_eq!(chain, ["U1", "A1", "B", "S", "U2", "A2"]);
    // With the pre-compaction history gone, the chain starts at the boundary.
    let (_, chain) = chain_of(&scan(&l[2..]));
    assert_eq!(chain, ["B", "S", "U2", "A2"]);
}

#[test]
fn loops_and_duplicates_do_not_hang() {
    let l = vec![
        user("U1", Some("A2"), 1),
        asst("A1", Some("U1"), 2, "m1", None),
        user("U2", Some("A1"), 3),
        asst("A2", Some("U2"), 4, "m2", None),
    ];
    let s = scan(&l);
    let g = Graph::new(&s);
    assert!(g.roots.is_empty());
    let chain = crate::client::chain::active_chain(&g, crate::client::leaf::choose(&g).leaf);
    assert!(chain.looped);
    assert_eq!(uuids(&s, &chain.records), ["U1", "A1", "U2", "A2"]);
    // A reused uuid: the later record takes the earlier one's place.
    let l = vec![user("U1", None, 1), asst("A1", Some("U1"), 2, "m1", None), asst("A1", Some("U1"), 3, "m9", None)];
    let s = scan(&l);
    let g = Graph::new(&s);
    assert_eq!(g.duplicates, [1]);
    assert_eq!(crate::client::chain::active_chain(&g, crate::client::leaf::choose(&g).leaf).records, [0, 2]);
}

#[test]
fn dangling_parent_is_reattached_by_timestamp() {
    let l = vec![
        user("U1", Some("gone-before-slice"), 1),
        asst("A1", Some("U1"), 2, "m1", None),
        user("U2", Some("missing"), 3),
        asst("A2", Some("U2"), 4, "m2", None),
    ];
    let s = scan(&l);
    let g = Graph::new(&s);
    assert_eq!(g.link[0], Link::Dangling);
    assert_eq!(g.link[2], Link::Reattached);
    assert_eq!(g.roots, [0]);
    let (_, chain) = chain_of(&s);
    assert_eq!(chain, ["U1", "A1", "U2", "A2"]);
}

#[test]
fn branches_are_grouped_and_bookkeeping_is_not_a_branch() {
    let l = vec![
        user("U1", None, 1),
        asst("A1", Some("U1"), 2, "m1", None),
        user("U2", Some("A1"), 3),
        asst("A2", Some("U2"), 4, "m2", None),
        rec("progress", "P1", Some("A1"), 4, ""),
        user("U2alt", Some("A1"), 5),
        asst("A2alt", Some("U2alt"), 6, "m3", None),
        r#"{"type":"custom-title","customTitle":"t"}"#.to_string(),
    ];
    let s = scan(&l);
    let g = Graph::new(&s);
    let chain = crate::client::chain::active_chain(&g, crate::client::leaf::choose(&g).leaf);
    assert_eq!(uuids(&s, &chain.records), ["U1", "A1", "U2alt", "A2alt"]);
    let b = g.branches(&chain.records);
    assert_eq!(uuids(&s, &b.records), ["U2", "A2"]);
    assert_eq!(b.branch, [2, 2]);
    assert_eq!(b.fork, [1, 1]);
}

#[test]
fn branches_below_a_stale_pointer() {
    let l = vec![
        user("U1", None, 1),
        asst("A1", Some("U1"), 2, "m1", None),
        user("U2", Some("A1"), 3),
        asst("A2", Some("U2"), 4, "m2", None),
        user("U2alt", Some("A1"), 5),
        asst("A2alt", Some("U2alt"), 6, "m3", None),
        user("U3", Some("A2alt"), 7),
        asst("A3", Some("U3"), 8, "m4", None),
    ];
    let s = scan(&l);
    let g = Graph::new(&s);
    let chain = crate::client::chain::active_chain(&g, crate::client::leaf::choose(&g).leaf);
    let b = g.branches(&chain.records);
    // A pointer at U1 or A1 has the rewound branch (forking at A1) below it; at U2alt it has not.
    assert_eq!(g.branches_below(&chain.records, &b, 0), [2]);
    assert_eq!(g.branches_below(&chain.records, &b, 1), [2]);
    assert!(g.branches_below(&chain.records, &b, 4).is_empty());
    // Not on the chain: nothing to say.
    assert!(g.branches_below(&chain.records, &b, 3).is_empty());
}
