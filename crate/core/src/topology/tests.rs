use super::*;
use crate::scan::{scan_bytes, Mode};

thread_local! {
    static CLOCK: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
}

/// One record line of session `s1` unless `extra` sets another; timestamps rise with each call.
fn rec(kind: &str, uuid: &str, parent: Option<&str>, extra: &str) -> String {
    let p = parent.map_or("null".to_string(), |p| format!("\"{p}\""));
    let session = if extra.contains("\"sessionId\"") { String::new() } else { r#","sessionId":"s1""#.to_string() };
    let t = CLOCK.with(|c| {
        c.set(c.get() + 1);
        c.get()
    });
    format!(
        r#"{{"parentUuid":{p},"type":"{kind}","uuid":"{uuid}","timestamp":"2026-01-01T{:02}:{:02}:{:02}.000Z"{session}{extra}}}"#,
        t / 3600 % 24,
        t / 60 % 60,
        t % 60
    )
}
fn user(uuid: &str, parent: Option<&str>) -> String {
    rec("user", uuid, parent, &format!(r#","message":{{"role":"user","content":"prompt {uuid}"}}"#))
}
fn meta(uuid: &str, parent: Option<&str>) -> String {
    rec("user", uuid, parent, r#","isMeta":true,"message":{"role":"user","content":"<local-command-caveat>"}"#)
}
fn asst(uuid: &str, parent: Option<&str>, msg: &str, tool: Option<&str>) -> String {
    let content = match tool {
        Some(t) => format!(r#"[{{"type":"tool_use","id":"{t}","name":"Bash","input":{{}}}}]"#),
        None => r#"[{"type":"text","text":"ok"}]"#.to_string(),
    };
    rec("assistant", uuid, parent, &format!(r#","message":{{"id":"{msg}","role":"assistant","content":{content}}}"#))
}
fn result(uuid: &str, parent: Option<&str>, tool: &str) -> String {
    rec(
        "user",
        uuid,
        parent,
        &format!(
            r#","message":{{"role":"user","content":[{{"type":"tool_result","tool_use_id":"{tool}","content":"x"}}]}}"#
        ),
    )
}
fn pointer(leaf: &str) -> String {
    format!(r#"{{"type":"last-prompt","lastPrompt":"x","leafUuid":"{leaf}","sessionId":"s1"}}"#)
}

struct Fixture {
    scan: Scan,
    bytes: Vec<u8>,
}

fn fx(lines: &[String]) -> Fixture {
    let bytes = (lines.join("\n") + "\n").into_bytes();
    Fixture { scan: scan_bytes(&bytes, Mode::Full), bytes }
}

impl Fixture {
    fn plan(&self, o: Options) -> Plan {
        let p = plan(&self.scan, &self.bytes, &o);
        // The partition covers every record exactly once, whatever the status.
        assert_eq!(p.sets.len(), self.scan.records.len());
        p
    }
    fn uuids(&self, idx: &[u32]) -> Vec<&str> {
        idx.iter().map(|&i| uuid_of(&self.scan, i)).collect()
    }
    fn leaf(&self, p: &Plan) -> &str {
        uuid_of(&self.scan, p.leaf)
    }
}

fn policy(l: LeafPolicy) -> Options {
    Options { leaf_policy: l, min_recent_records: 0, ..Options::default() }
}

/// U1 A1 U2 A2(tool t1) R2 A3, pointer naming A3.
fn linear(ptr: Option<&str>) -> Fixture {
    let mut l = vec![
        user("u1", None),
        asst("a1", Some("u1"), "m1", None),
        user("u2", Some("a1")),
        asst("a2", Some("u2"), "m2", Some("t1")),
        result("r2", Some("a2"), "t1"),
        asst("a3", Some("r2"), "m3", None),
    ];
    if let Some(p) = ptr {
        l.push(pointer(p));
    }
    fx(&l)
}

#[test]
fn linear_with_pointer_at_leaf_is_valid() {
    let f = linear(Some("a3"));
    for pol in [LeafPolicy::Strict, LeafPolicy::Client, LeafPolicy::Auto] {
        let p = f.plan(policy(pol));
        assert_eq!(p.status, Status::Valid, "{pol:?}: {}", p.message);
        assert_eq!(p.preserve_mode, PreserveMode::ActiveChain);
        assert_eq!(f.leaf(&p), "a3");
        assert_eq!(f.uuids(&p.chain), ["u1", "a1", "u2", "a2", "r2", "a3"]);
        assert_eq!(p.set(SetKind::ControlProjection), vec![6]);
    }
}

#[test]
fn absent_pointer_strict_stops_auto_takes_client_leaf() {
    let f = linear(None);
    let p = f.plan(policy(LeafPolicy::Strict));
    assert_eq!(p.status, Status::Absent);
    assert!(p.recovery.iter().any(|r| r.starts_with("--leaf-policy client")));
    let p = f.plan(policy(LeafPolicy::Auto));
    assert_eq!(p.status, Status::Valid);
    assert_eq!(p.preserve_mode, PreserveMode::ClientLeaf);
    assert_eq!(f.leaf(&p), "a3");
    assert!(p.leaf_reason.contains("no last-prompt"), "{}", p.leaf_reason);
}

#[test]
fn pointer_without_leaf_uuid_is_malformed_under_strict_and_old_format_under_auto() {
    let mut l: Vec<String> = (0..1).map(|_| user("u1", None)).collect();
    l.push(asst("a1", Some("u1"), "m1", None));
    l.push(r#"{"type":"last-prompt","lastPrompt":"x","sessionId":"s1"}"#.into());
    let f = fx(&l);
    assert_eq!(f.plan(policy(LeafPolicy::Strict)).status, Status::Malformed);
    let p = f.plan(policy(LeafPolicy::Auto));
    assert_eq!((p.status, p.preserve_mode), (Status::Valid, PreserveMode::ClientLeaf));
    // A leafUuid that is there but not a string is malformed in every policy but client.
    l[2] = r#"{"type":"last-prompt","leafUuid":7,"sessionId":"s1"}"#.into();
    let f = fx(&l);
    let p = f.plan(policy(LeafPolicy::Auto));
    assert_eq!(p.status, Status::Malformed);
    assert_eq!(p.lines, vec![3]);
    assert!(p.message.contains("not a string"));
    assert_eq!(f.plan(policy(LeafPolicy::Client)).status, Status::Valid);
}

#[test]
fn older_pointer_is_never_used_instead_of_a_malformed_latest() {
    let f = fx(&[
        user("u1", None),
        asst("a1", Some("u1"), "m1", None),
        pointer("a1"),
        r#"{"type":"last-prompt","leafUuid":""}"#.into(),
    ]);
    let p = f.plan(policy(LeafPolicy::Strict));
    assert_eq!((p.status, p.lines.clone()), (Status::Malformed, vec![4]));
}

#[test]
fn unknown_pointer_is_dangling_and_names_the_client_leaf() {
    let f = linear(Some("nope"));
    for pol in [LeafPolicy::Strict, LeafPolicy::Auto] {
        let p = f.plan(policy(pol));
        assert_eq!(p.status, Status::Dangling);
        assert_eq!(p.lines, vec![7]);
        assert!(p.recovery.iter().any(|r| r.contains("--leaf-policy client (leaf line 6)")), "{:?}", p.recovery);
    }
}

#[test]
fn stale_pointer_with_linear_continuation() {
    // The pointer names U2; A2, R2, A3 follow it after the pointer line.
    let f = fx(&[
        user("u1", None),
        asst("a1", Some("u1"), "m1", None),
        user("u2", Some("a1")),
        pointer("u2"),
        asst("a2", Some("u2"), "m2", Some("t1")),
        result("r2", Some("a2"), "t1"),
        asst("a3", Some("r2"), "m3", None),
    ]);
    let p = f.plan(policy(LeafPolicy::Strict));
    assert_eq!(p.status, Status::ExtensionUnsafe, "{}", p.message);
    assert!(p.lines.contains(&4) && p.lines.contains(&3));
    let p = f.plan(policy(LeafPolicy::Auto));
    assert_eq!(p.status, Status::Valid, "{}", p.message);
    assert_eq!(p.preserve_mode, PreserveMode::ClientLeaf);
    assert_eq!(f.leaf(&p), "a3");
    assert!(p.leaf_reason.contains("stale"), "{}", p.leaf_reason);
}

#[test]
fn stale_pointer_with_a_branch_below_stops_naming_both_leaves() {
    let f = fx(&[
        user("u1", None),
        asst("a1", Some("u1"), "m1", None),
        pointer("a1"),
        user("u2", Some("a1")),
        asst("a2", Some("u2"), "m2", None),
        user("u2b", Some("a1")),
        asst("a2b", Some("u2b"), "m2b", None),
    ]);
    let p = f.plan(policy(LeafPolicy::Auto));
    assert_eq!(p.status, Status::ExtensionBranch, "{}", p.message);
    assert!(p.message.contains("strict leaf line 2") && p.message.contains("client leaf line 7"), "{}", p.message);
    assert!(p.recovery.iter().any(|r| r.starts_with("--resume-leaf a1")), "{:?}", p.recovery);
    assert!(p.recovery.iter().any(|r| r.starts_with("--leaf-policy client")));
    let p = f.plan(policy(LeafPolicy::Client));
    assert_eq!((p.status, f.leaf(&p)), (Status::Valid, "a2b"));
    assert_eq!(p.set(SetKind::ExcludedBranch).len(), 2);
}

#[test]
fn interior_pointer_on_one_branch_truncates_with_a_warning() {
    // main: U2 A2 A3 (pointer -> U2, A2 written after the pointer); alt: U2b A2b written last.
    let f = fx(&[
        user("u1", None),
        asst("a1", Some("u1"), "m1", None),
        user("u2", Some("a1")),
        pointer("u2"),
        asst("a2", Some("u2"), "m2", None),
        user("u2b", Some("a1")),
        asst("a2b", Some("u2b"), "m2b", None),
    ]);
    let p = f.plan(policy(LeafPolicy::Auto));
    assert_eq!(p.status, Status::Valid, "{}", p.message);
    assert_eq!(f.leaf(&p), "u2");
    assert!(p.warnings.iter().any(|w| w.code == "pointer-truncates"));
    assert_eq!(f.uuids(&p.chain), ["u1", "a1", "u2"]);
}

#[test]
fn interior_pointer_on_a_tool_call_resumes_from_its_result() {
    // main: U2 A2(tool) R2 A3; alt: U2b A2b written last; the pointer names A2. The client
    // resumes from R2 (the call's result) and truncates there; the plan follows it.
    let f = fx(&[
        user("u1", None),
        asst("a1", Some("u1"), "m1", None),
        user("u2", Some("a1")),
        asst("a2", Some("u2"), "m2", Some("t1")),
        result("r2", Some("a2"), "t1"),
        asst("a3", Some("r2"), "m3", None),
        user("u2b", Some("a1")),
        asst("a2b", Some("u2b"), "m2b", None),
        pointer("a2"),
    ]);
    let p = f.plan(policy(LeafPolicy::Auto));
    assert_eq!(p.status, Status::Valid, "{}", p.message);
    assert_eq!(f.leaf(&p), "r2");
    assert_eq!(f.uuids(&p.chain), ["u1", "a1", "u2", "a2", "r2"]);
    assert!(p.warnings.iter().any(|w| w.code == "pointer-truncates" && w.lines == [9, 4, 5]), "{:?}", p.warnings);
    assert!(p.leaf_reason.contains("resumes from its result"), "{}", p.leaf_reason);
}

#[test]
fn extension_accepts_only_a_bounded_tool_result_closure() {
    let f = fx(&[
        user("u1", None),
        asst("a1", Some("u1"), "m1", Some("t1")),
        pointer("a1"),
        result("r1", Some("a1"), "t1"),
    ]);
    let p = f.plan(policy(LeafPolicy::Strict));
    assert_eq!(p.status, Status::ExtensionLimit, "{}", p.message);
    assert_eq!(p.recovery[0], "--max-post-last-prompt-extension 1");
    let p = f.plan(Options { max_extension: 1, ..policy(LeafPolicy::Strict) });
    assert_eq!(p.status, Status::Valid, "{}", p.message);
    assert_eq!((f.leaf(&p), f.uuids(&p.extension)), ("r1", vec!["r1"]));
    // A result of another session is unsafe.
    let f = fx(&[
        user("u1", None),
        asst("a1", Some("u1"), "m1", Some("t1")),
        pointer("a1"),
        rec(
            "user",
            "r1",
            Some("a1"),
            r#","sessionId":"s2","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"x"}]}"#,
        ),
    ]);
    let p = f.plan(Options { max_extension: 5, ..policy(LeafPolicy::Strict) });
    assert_eq!(p.status, Status::ExtensionUnsafe, "{}", p.message);
}

#[test]
fn duplicate_uuid_anywhere_blocks() {
    let f = fx(&[
        user("u1", None),
        asst("a1", Some("u1"), "m1", None),
        user("x", Some("a1")),
        user("x", Some("u1")),
        pointer("a1"),
    ]);
    let p = f.plan(policy(LeafPolicy::Auto));
    assert_eq!(p.status, Status::DuplicateUuid);
    assert_eq!(p.lines, vec![3, 4]);
}

#[test]
fn malformed_parent_on_the_chain_blocks_but_not_on_an_excluded_branch() {
    let root =
        r#"{"parentUuid":5,"type":"user","uuid":"u1","sessionId":"s1","message":{"role":"user","content":"hi"}}"#;
    let f = fx(&[root.into(), asst("a1", Some("u1"), "m1", None), pointer("a1")]);
    let p = f.plan(policy(LeafPolicy::Auto));
    assert_eq!((p.status, p.lines.clone()), (Status::MalformedParent, vec![1]));
    let f = fx(&[user("u0", None), asst("a0", Some("u0"), "m0", None), root.into(), pointer("a0")]);
    assert_eq!(f.plan(policy(LeafPolicy::Auto)).status, Status::Valid);
}

#[test]
fn dangling_parents() {
    // A first record whose parent is not in the file: accepted outside strict.
    let f = fx(&[user("u1", Some("gone")), asst("a1", Some("u1"), "m1", None), pointer("a1")]);
    let p = f.plan(policy(LeafPolicy::Auto));
    assert_eq!(p.status, Status::Valid);
    assert!(p.warnings.iter().any(|w| w.code == "dangling-root"));
    assert_eq!(f.plan(policy(LeafPolicy::Strict)).status, Status::Dangling);
    // A mid-chain parent the client re-attaches by timestamp: dangling everywhere.
    let f = fx(&[
        user("u1", None),
        asst("a1", Some("u1"), "m1", None),
        user("u2", Some("gone")),
        asst("a2", Some("u2"), "m2", None),
        pointer("a2"),
    ]);
    let p = f.plan(policy(LeafPolicy::Client));
    assert_eq!((p.status, p.lines.clone()), (Status::Dangling, vec![3, 2]));
    // The same damage on an excluded branch does not block.
    let f = fx(&[
        user("u1", None),
        asst("a1", Some("u1"), "m1", None),
        user("z", Some("gone")),
        asst("z2", Some("z"), "mz", None),
        user("u2", Some("a1")),
        asst("a2", Some("u2"), "m2", None),
        pointer("a2"),
    ]);
    let p = f.plan(policy(LeafPolicy::Strict));
    assert_eq!(p.status, Status::Valid, "{}", p.message);
    assert_eq!(f.uuids(&p.set(SetKind::ExcludedBranch)), ["z", "z2"]);
}

#[test]
fn loop_on_the_chain_blocks() {
    let f = fx(&[
        user("u1", Some("a2")),
        asst("a1", Some("u1"), "m1", None),
        user("u2", Some("a1")),
        asst("a2", Some("u2"), "m2", None),
        pointer("a2"),
    ]);
    let p = f.plan(policy(LeafPolicy::Auto));
    assert_eq!(p.status, Status::Loop, "{}", p.message);
    assert_eq!(p.lines, vec![1, 2, 3, 4]);
}

#[test]
fn physical_inversion_blocks_except_attachment_to_attachment() {
    // The child's timestamp is earlier than its parent's: blocking in every policy.
    let (a1, u1) = (asst("a1", Some("u1"), "m1", None), user("u1", None));
    let f = fx(&[a1, u1, pointer("a1")]);
    let p = f.plan(policy(LeafPolicy::Auto));
    assert_eq!((p.status, p.lines.clone()), (Status::NonMonotonic, vec![1, 2]));
    // The client's own write order (child a line early, later timestamp): accepted outside strict.
    let (u1, a1) = (user("u1", None), asst("a1", Some("u1"), "m1", Some("t1")));
    let r1 = result("r1", Some("a1"), "t1");
    let f = fx(&[u1, r1, a1, pointer("r1")]);
    let p = f.plan(policy(LeafPolicy::Auto));
    assert_eq!(p.status, Status::Valid, "{}", p.message);
    assert!(p.warnings.iter().any(|w| w.code == "write-order-inversion" && w.lines == [2]));
    assert_eq!(f.plan(policy(LeafPolicy::Strict)).status, Status::NonMonotonic);
    let att = |u: &str, p: Option<&str>| rec("attachment", u, p, r#","attachment":{"type":"x"}"#);
    let f = fx(&[
        user("u1", None),
        att("t2", Some("t1")),
        att("t1", Some("u1")),
        asst("a1", Some("t2"), "m1", None),
        pointer("a1"),
    ]);
    assert_eq!(f.plan(policy(LeafPolicy::Auto)).status, Status::Valid);
}

#[test]
fn session_lineage() {
    let s = |id: &str| format!(r#","sessionId":"{id}","message":{{"role":"user","content":"p"}}"#);
    let sa = |id: &str| {
        format!(
            r#","sessionId":"{id}","message":{{"id":"m-{id}","role":"assistant","content":[{{"type":"text","text":"ok"}}]}}"#
        )
    };
    let ptr = |id: &str| format!(r#"{{"type":"last-prompt","leafUuid":"b2","sessionId":"{id}"}}"#);
    let one_way = |last: &str| {
        fx(&[
            rec("user", "a1", None, &s("A")),
            rec("assistant", "a2", Some("a1"), &sa("A")),
            rec("user", "b1", Some("a2"), &s(last)),
            rec("assistant", "b2", Some("b1"), &sa(last)),
            ptr(last),
        ])
    };
    let f = one_way("B");
    let p = f.plan(Options { target_ratio: 1.0, ..policy(LeafPolicy::Strict) });
    assert_eq!(p.status, Status::Valid, "{}", p.message);
    assert_eq!(p.runs.len(), 2);
    assert!(p.legal_cuts.iter().all(|&c| c >= 2), "earlier runs are forced into the summary: {:?}", p.legal_cuts);
    assert_eq!(f.uuids(&p.set(SetKind::Summary)), ["a1", "a2"]);
    let f = one_way("A");
    // A then A again is one run; make it return: A, B, A.
    let f2 = fx(&[
        rec("user", "a1", None, &s("A")),
        rec("assistant", "a2", Some("a1"), &sa("B")),
        rec("user", "b1", Some("a2"), &s("A")),
        rec("assistant", "b2", Some("b1"), &sa("A")),
        ptr("A"),
    ]);
    assert_eq!(f2.plan(policy(LeafPolicy::Strict)).status, Status::SessionMismatch);
    assert_eq!(f.plan(policy(LeafPolicy::Strict)).status, Status::Valid);
    // The pointer's session must be the final run's.
    let f3 = fx(&[
        rec("user", "a1", None, &s("A")),
        rec("assistant", "a2", Some("a1"), &sa("A")),
        rec("user", "b1", Some("a2"), &s("B")),
        rec("assistant", "b2", Some("b1"), &sa("B")),
        ptr("A"),
    ]);
    assert_eq!(f3.plan(policy(LeafPolicy::Strict)).status, Status::SessionMismatch);
}

#[test]
fn manual_override_and_physical_tail() {
    let f = fx(&[
        user("u1", None),
        asst("a1", Some("u1"), "m1", None),
        user("u2", Some("a1")),
        asst("a2", Some("u2"), "m2", None),
        user("u2b", Some("a1")),
        asst("a2b", Some("u2b"), "m2b", None),
        pointer("a2b"),
    ]);
    let p = f.plan(Options { resume_leaf: Some("a2".into()), ..policy(LeafPolicy::Auto) });
    assert_eq!((p.status, p.preserve_mode, f.leaf(&p)), (Status::Valid, PreserveMode::ManualOverride, "a2"));
    let p = f.plan(Options { resume_leaf: Some("zz".into()), ..policy(LeafPolicy::Auto) });
    assert_eq!(p.status, Status::Dangling);
    // Physical tail: the cut is physical, branch records after it are kept raw.
    let p = f.plan(Options { preserve_physical_tail: true, target_ratio: 1.0, ..policy(LeafPolicy::Auto) });
    assert_eq!(p.preserve_mode, PreserveMode::PhysicalTail);
    let cut = p.cut.expect("a cut") as usize;
    let first = p.chain[cut];
    assert!(p.set(SetKind::RawKeep).iter().all(|&i| i >= first));
}

#[test]
fn cut_never_splits_a_turn_or_a_merged_user_message() {
    // Parallel tool calls: two fragments of m2, results parented to their own fragment.
    let f = fx(&[
        user("u1", None),
        asst("a1", Some("u1"), "m1", None),
        meta("c1", Some("a1")),
        user("u2", Some("c1")),
        asst("f1", Some("u2"), "m2", Some("t1")),
        asst("f2", Some("f1"), "m2", Some("t2")),
        result("r1", Some("f1"), "t1"),
        result("r2", Some("f2"), "t2"),
        asst("a3", Some("r2"), "m3", None),
        user("u4", Some("a3")),
        asst("a4", Some("u4"), "m4", None),
        pointer("a4"),
    ]);
    let p = f.plan(policy(LeafPolicy::Auto));
    assert_eq!(p.status, Status::Valid, "{}", p.message);
    assert_eq!(f.uuids(&p.chain), ["u1", "a1", "c1", "u2", "f1", "f2", "r1", "r2", "a3", "u4", "a4"]);
    let starts: Vec<&str> = p.legal_cuts.iter().map(|&c| uuid_of(&f.scan, p.chain[c as usize])).collect();
    // Not u2 (merged with the meta record before it), not f2 (a second fragment), not r1/r2
    // (results of a kept call), not a3's results.
    assert_eq!(starts, ["a1", "c1", "f1", "a3", "u4", "a4"]);
    assert!(!p.legal_cuts.contains(&0), "something is always summarised");
    let prompts: Vec<bool> = p.prompt_cuts.clone();
    assert_eq!(prompts, [false, true, false, false, true, false]);
    // With a tiny ratio the cut still lands on a prompt when one fits.
    let p = f.plan(Options { target_ratio: 0.25, ..policy(LeafPolicy::Auto) });
    assert_eq!(p.cut.map(|c| uuid_of(&f.scan, p.chain[c as usize])), Some("u4"));
    // min_recent_records pushes it earlier when that fits the target ...
    let p = f.plan(Options { target_ratio: 0.95, min_recent_records: 8, ..policy(LeafPolicy::Auto) });
    assert_eq!(p.cut.map(|c| uuid_of(&f.scan, p.chain[c as usize])), Some("c1"));
    assert_eq!(p.set(SetKind::Summary).len(), 2);
    // ... and the target wins when it does not.
    let p = f.plan(Options { target_ratio: 0.25, min_recent_records: 8, ..policy(LeafPolicy::Auto) });
    assert_eq!(p.cut.map(|c| uuid_of(&f.scan, p.chain[c as usize])), Some("u4"));
}

fn compacted(segment: bool) -> Fixture {
    let seg = if segment {
        r#","compactMetadata":{"trigger":"manual","preTokens":5,"preservedSegment":{"headUuid":"u2","anchorUuid":"s","tailUuid":"a2"}}"#
    } else {
        r#","compactMetadata":{"trigger":"manual","preTokens":5}"#
    };
    fx(&[
        user("u1", None),
        asst("a1", Some("u1"), "m1", None),
        user("u2", Some("a1")),
        asst("a2", Some("u2"), "m2", None),
        rec("system", "b", None, &format!(r#","subtype":"compact_boundary","logicalParentUuid":"a2"{seg}"#)),
        rec("user", "s", Some("b"), r#","isCompactSummary":true,"message":{"role":"user","content":"SUMMARY"}"#),
        user("u3", Some(if segment { "a2" } else { "s" })),
        asst("a3", Some("u3"), "m3", None),
        pointer("a3"),
    ])
}

#[test]
fn chain_starts_at_the_last_compact_boundary() {
    let f = compacted(false);
    let p = f.plan(policy(LeafPolicy::Auto));
    assert_eq!(p.status, Status::Valid, "{}", p.message);
    assert_eq!(f.uuids(&p.chain), ["b", "s", "u3", "a3"]);
    assert_eq!(f.uuids(&p.prior_compact), ["b", "s"]);
    assert_eq!(f.uuids(&p.precompact), ["u1", "a1", "u2", "a2"]);
    assert!(p.legal_cuts.iter().all(|&c| c >= 2));
    assert_eq!(f.uuids(&p.set(SetKind::ExcludedBranch)), ["u1", "a1", "u2", "a2"]);
}

#[test]
fn live_preserved_segment_is_spliced() {
    let f = compacted(true);
    let p = f.plan(policy(LeafPolicy::Auto));
    assert_eq!(p.status, Status::Valid, "{}", p.message);
    assert!(p.segment_live);
    assert_eq!(f.uuids(&p.chain), ["b", "s", "u2", "a2", "u3", "a3"]);
    assert_eq!(f.uuids(&p.precompact), ["u1", "a1"]);
    assert_eq!(f.uuids(&p.relinked), ["u2"]);
}

#[test]
fn control_projection_and_checkpoints() {
    let mut l = vec![
        r#"{"type":"custom-title","customTitle":"old","sessionId":"s1"}"#.to_string(),
        user("u1", None),
        r#"{"type":"file-history-snapshot","messageId":"u1","snapshot":{}}"#.to_string(),
        asst("a1", Some("u1"), "m1", None),
        user("u2", Some("a1")),
        r#"{"type":"file-history-snapshot","messageId":"u2","snapshot":{}}"#.to_string(),
        asst("a2", Some("u2"), "m2", None),
        r#"{"type":"custom-title","customTitle":"new","sessionId":"s1"}"#.to_string(),
        r#"{"type":"permission-mode","permissionMode":"plan","sessionId":"s1"}"#.to_string(),
        r#"{"type":"queue-operation","operation":"enqueue"}"#.to_string(),
        pointer("a1"),
    ];
    l.push(pointer("a2"));
    let f = fx(&l);
    let p = f.plan(Options { target_ratio: 0.5, ..policy(LeafPolicy::Auto) });
    assert_eq!(p.status, Status::Valid, "{}", p.message);
    assert_eq!(p.cut.map(|c| uuid_of(&f.scan, p.chain[c as usize])), Some("u2"));
    assert_eq!(p.set(SetKind::ControlProjection), vec![7, 8, 11]);
    assert_eq!(p.set(SetKind::SideKeep), vec![5]);
    assert_eq!(p.set(SetKind::ExcludedUnattributed), vec![0, 2, 9, 10]);
    let p =
        f.plan(Options { target_ratio: 0.5, checkpoint_policy: CheckpointPolicy::None, ..policy(LeafPolicy::Auto) });
    assert!(p.set(SetKind::SideKeep).is_empty());
}

#[test]
fn rewind_recorded_by_the_pointer_stops_under_auto() {
    // U2 A2 were written, then the user rewound to A1 and the pointer (written last) names A1.
    let f = fx(&[
        user("u1", None),
        asst("a1", Some("u1"), "m1", None),
        user("u2", Some("a1")),
        asst("a2", Some("u2"), "m2", None),
        pointer("a1"),
    ]);
    let p = f.plan(policy(LeafPolicy::Auto));
    assert_eq!(p.status, Status::ExtensionBranch, "{}", p.message);
    assert!(p.message.contains("rewind") && p.message.contains("client leaf line 4"), "{}", p.message);
    let p = f.plan(policy(LeafPolicy::Strict));
    assert_eq!((p.status, f.leaf(&p)), (Status::Valid, "a1"));
    assert_eq!(f.uuids(&p.set(SetKind::ExcludedBranch)), ["u2", "a2"]);
}

#[test]
fn a_spliced_result_with_a_missing_parent_is_dangling() {
    let f = fx(&[
        user("u1", None),
        asst("f1", Some("u1"), "m1", Some("t1")),
        asst("f2", Some("f1"), "m1", Some("t2")),
        result("r1", Some("gone"), "t1"),
        result("r2", Some("f2"), "t2"),
        asst("a2", Some("r2"), "m2", None),
        pointer("a2"),
    ]);
    let p = f.plan(policy(LeafPolicy::Auto));
    assert_eq!((p.status, p.lines.clone()), (Status::Dangling, vec![4, 3]), "{}", p.message);
}

#[test]
fn a_subagent_transcript_has_no_leaf() {
    let f = linear(Some("a3"));
    let text = String::from_utf8(f.bytes.clone())
        .unwrap()
        .replace(r#""sessionId":"s1""#, r#""sessionId":"s1","agentId":"a7""#);
    let f = fx(&text.lines().map(str::to_string).collect::<Vec<_>>());
    let p = f.plan(policy(LeafPolicy::Client));
    assert_eq!(p.status, Status::Absent);
    assert!(p.message.contains("subagent"));
    assert!(p.set(SetKind::Summary).is_empty() && p.set(SetKind::RawKeep).is_empty());
}

#[test]
fn byte_identical_copies_are_one_record_outside_strict() {
    let (u1, a1, u2) = (user("u1", None), asst("a1", Some("u1"), "m1", None), user("u2", Some("a1")));
    let a2 = asst("a2", Some("u2"), "m2", None);
    // A resume re-appends U2 A2 byte for byte, then the conversation goes on from A2.
    let f = fx(&[
        u1,
        a1,
        u2.clone(),
        a2.clone(),
        u2,
        a2,
        user("u3", Some("a2")),
        asst("a3", Some("u3"), "m3", None),
        pointer("a3"),
    ]);
    let p = f.plan(policy(LeafPolicy::Auto));
    assert_eq!(p.status, Status::Valid, "{}", p.message);
    assert!(p.warnings.iter().any(|w| w.code == "repeated-records" && w.lines == [3, 4, 5, 6]));
    assert_eq!(p.chain, vec![0, 1, 4, 5, 6, 7]);
    assert_eq!(p.set(SetKind::ExcludedBranch), vec![2, 3]);
    let p = f.plan(policy(LeafPolicy::Strict));
    assert_eq!(p.status, Status::DuplicateUuid);
    assert_eq!(p.recovery, ["--leaf-policy auto"]);
}

#[test]
fn a_segment_on_an_earlier_boundary_is_ignored_and_a_boundary_may_start_the_file() {
    // T9: the segment sits on a boundary that a later boundary supersedes.
    let seg = r#","subtype":"compact_boundary","logicalParentUuid":"a2","compactMetadata":{"preservedSegment":{"headUuid":"u2","anchorUuid":"s","tailUuid":"a2"}}"#;
    let f = fx(&[
        user("u1", None),
        asst("a1", Some("u1"), "m1", None),
        user("u2", Some("a1")),
        asst("a2", Some("u2"), "m2", None),
        rec("system", "b", None, seg),
        rec("user", "s", Some("b"), r#","isCompactSummary":true,"message":{"role":"user","content":"S1"}"#),
        user("u3", Some("a2")),
        asst("a3", Some("u3"), "m3", None),
        rec("system", "b2", None, r#","subtype":"compact_boundary","logicalParentUuid":"a3""#),
        rec("user", "s2", Some("b2"), r#","isCompactSummary":true,"message":{"role":"user","content":"S2"}"#),
        user("u4", Some("s2")),
        asst("a4", Some("u4"), "m4", None),
        pointer("a4"),
    ]);
    let p = f.plan(policy(LeafPolicy::Auto));
    assert_eq!(p.status, Status::Valid, "{}", p.message);
    assert!(!p.segment_live);
    assert_eq!(f.uuids(&p.chain), ["b2", "s2", "u4", "a4"]);
    // T10: a file that starts with a boundary whose logical parent is in an earlier file.
    let f = fx(&[
        rec("system", "b", None, r#","subtype":"compact_boundary","logicalParentUuid":"elsewhere""#),
        rec("user", "s", Some("b"), r#","isCompactSummary":true,"message":{"role":"user","content":"S"}"#),
        user("u1", Some("s")),
        asst("a1", Some("u1"), "m1", None),
        pointer("a1"),
    ]);
    for pol in [LeafPolicy::Strict, LeafPolicy::Auto] {
        let p = f.plan(Options { target_ratio: 1.0, ..policy(pol) });
        assert_eq!(p.status, Status::Valid, "{}", p.message);
        assert_eq!(f.uuids(&p.prior_compact), ["b", "s"]);
        assert_eq!(f.uuids(&p.set(SetKind::Summary)), ["b", "s"]);
    }
}

#[test]
fn a_tool_call_across_the_session_transition_stops() {
    let f = fx(&[
        user("u1", None),
        asst("a1", Some("u1"), "m1", Some("t1")),
        rec(
            "user",
            "r1",
            Some("a1"),
            r#","sessionId":"s2","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"x"}]}"#,
        ),
        rec(
            "assistant",
            "a2",
            Some("r1"),
            r#","sessionId":"s2","message":{"id":"m2","role":"assistant","content":[{"type":"text","text":"ok"}]}"#,
        ),
        r#"{"type":"last-prompt","leafUuid":"a2","sessionId":"s2"}"#.to_string(),
    ]);
    let p = f.plan(policy(LeafPolicy::Auto));
    assert_eq!((p.status, p.lines.clone()), (Status::SessionMismatch, vec![2, 3, 3]), "{}", p.message);
}

#[test]
fn unparsed_lines_and_a_torn_tail_are_warnings() {
    let mut text = linear(Some("a3")).bytes;
    text.extend_from_slice(b"{\"type\":\"user\",\"uuid\":\"cut");
    let f = Fixture { scan: scan_bytes(&text, Mode::Full), bytes: text };
    let p = f.plan(policy(LeafPolicy::Auto));
    assert_eq!(p.status, Status::Valid);
    assert!(p.warnings.iter().any(|w| w.code == "torn-tail" && w.lines == [8]));
    let f = fx(&[user("u1", None), "not json".into(), asst("a1", Some("u1"), "m1", None), pointer("a1")]);
    let p = f.plan(policy(LeafPolicy::Auto));
    assert_eq!(p.status, Status::Valid);
    assert!(p.warnings.iter().any(|w| w.code == "unparsed-lines" && w.lines == [2]));
    assert_eq!(p.sets.len(), 3, "lines that are not JSON objects are no record");
}

#[test]
fn tool_defects_in_the_summarised_part_are_listed_not_blocking() {
    // An orphan result (line 3) and a call without its result (line 5) early on the chain, then
    // a long clean tail: the summary replaces them; the plan says so, and stays valid.
    let mut l = vec![
        user("u1", None),
        asst("a1", Some("u1"), "m1", None),
        result("r1", Some("a1"), "ghost"),
        asst("a2", Some("r1"), "m2", None),
        asst("a3", Some("a2"), "m3", Some("lost")),
        user("u4", Some("a3")),
    ];
    let mut parent = "u4".to_string();
    for k in 0..12 {
        let (a, u) = (format!("a{}", 10 + k), format!("u{}", 10 + k));
        l.push(asst(&a, Some(&parent), &format!("m{}", 10 + k), None));
        l.push(user(&u, Some(&a)));
        parent = u;
    }
    l.push(asst("z", Some(&parent), "mz", None));
    l.push(pointer("z"));
    let f = fx(&l);
    let mut o = policy(LeafPolicy::Auto);
    o.min_recent_records = 4;
    let p = f.plan(o);
    assert_eq!(p.status, Status::Valid, "{}", p.message);
    assert!(p.cut.is_some_and(|c| c > 6));
    let listed: Vec<(&str, Vec<u32>)> = p
        .warnings
        .iter()
        .filter(|w| w.message.starts_with("in the summarised part"))
        .map(|w| (w.code, w.lines.clone()))
        .collect();
    assert_eq!(listed, vec![("orphan-tool-result", vec![3]), ("tool-use-without-result", vec![5])]);
}

/// `linear` with a blank reply A4 below A3's prompt U4, last; `ptr` names a record.
fn blank_tail(ptr: Option<&str>) -> Fixture {
    let mut l = vec![
        user("u1", None),
        asst("a1", Some("u1"), "m1", None),
        user("u2", Some("a1")),
        asst("a2", Some("u2"), "m2", None),
        user("u4", Some("a2")),
        rec(
            "assistant",
            "a4",
            Some("u4"),
            r#","message":{"id":"m4","role":"assistant","content":[{"type":"text","text":"\n\n"}]}"#,
        ),
    ];
    if let Some(p) = ptr {
        l.push(pointer(p));
    }
    fx(&l)
}

#[test]
fn a_blank_last_reply_is_left_out_under_auto_and_client_kept_under_strict() {
    for ptr in [None, Some("a4")] {
        let f = blank_tail(ptr);
        for pol in [LeafPolicy::Auto, LeafPolicy::Client] {
            let p = f.plan(policy(pol));
            assert_eq!(p.status, Status::Valid, "{ptr:?} {pol:?}: {}", p.message);
            assert_eq!(f.leaf(&p), "u4", "{ptr:?} {pol:?}");
            assert_eq!(p.preserve_mode, PreserveMode::ClientLeaf);
            assert_eq!(f.uuids(&p.chain), ["u1", "a1", "u2", "a2", "u4"]);
            assert_eq!(p.set(SetKind::ExcludedBranch), vec![5], "{ptr:?} {pol:?}");
            assert!(
                p.leaf_reason.contains("say nothing (blank text or thinking only, up to line 6)"),
                "{}",
                p.leaf_reason
            );
            assert!(p.warnings.iter().any(|w| w.code == "silent-tail" && w.lines == [5, 6]), "{:?}", p.warnings);
        }
    }
    // Strict: the pointer's leaf, kept byte for byte (the client drops it again on resume).
    let f = blank_tail(Some("a4"));
    let p = f.plan(policy(LeafPolicy::Strict));
    assert_eq!((p.status, f.leaf(&p)), (Status::Valid, "a4"));
    assert!(!p.warnings.iter().any(|w| w.code == "silent-tail"));
    // A pointer on the prompt before the blank reply, written after it: the client's leaf too.
    let p = blank_tail(Some("u4")).plan(policy(LeafPolicy::Auto));
    assert_eq!((p.status, p.preserve_mode), (Status::Valid, PreserveMode::ActiveChain), "{}", p.message);
}

/// A user prompt or an assistant text of `n` characters.
fn user_text(uuid: &str, parent: Option<&str>, n: usize) -> String {
    let t = "u".repeat(n);
    rec("user", uuid, parent, &format!(r#","message":{{"role":"user","content":"{t}"}}"#))
}
fn asst_text(uuid: &str, parent: Option<&str>, n: usize) -> String {
    let t = "a".repeat(n);
    rec(
        "assistant",
        uuid,
        parent,
        &format!(r#","message":{{"id":"m-{uuid}","role":"assistant","content":[{{"type":"text","text":"{t}"}}]}}"#),
    )
}

/// `k` prompt/answer pairs of `n` characters each, chained after `parent`, named `{p}u{i}`/`{p}a{i}`.
fn turns(p: &str, parent: Option<&str>, k: usize, n: usize) -> (Vec<String>, String) {
    let mut out = Vec::new();
    let mut last = parent.map(str::to_string);
    for i in 0..k {
        let (u, a) = (format!("{p}u{i}"), format!("{p}a{i}"));
        out.push(user_text(&u, last.as_deref(), n));
        out.push(asst_text(&a, Some(&u), n));
        last = Some(a);
    }
    (out, last.unwrap())
}

/// The chosen cut's share of the visible chain's tokens, and of the file's bytes.
fn shares(p: &Plan) -> (f64, f64) {
    let j = p.legal_cuts.iter().position(|&c| Some(c) == p.cut).expect("a cut");
    (p.cut_tokens[j] / p.visible_tokens, p.cut_bytes[j] as f64 / p.input_bytes as f64)
}

#[test]
fn the_cut_is_measured_on_the_compacted_chain_not_the_history_before_it() {
    // 40 long turns before the boundary, 10 short ones after it: the client sends only the latter.
    let (mut l, old_leaf) = turns("old", None, 40, 2000);
    l.push(rec("system", "b", None, &format!(r#","subtype":"compact_boundary","logicalParentUuid":"{old_leaf}","compactMetadata":{{"trigger":"auto","preTokens":5}}"#)));
    l.push(rec("user", "s", Some("b"), r#","isCompactSummary":true,"message":{"role":"user","content":"SUMMARY"}"#));
    let (after, leaf) = turns("new", Some("s"), 10, 400);
    l.extend(after);
    l.push(pointer(&leaf));
    let f = fx(&l);
    let p = f.plan(policy(LeafPolicy::Auto));
    assert_eq!(p.status, Status::Valid, "{}", p.message);
    assert_eq!(p.chain.len(), 22);
    // The denominator is the chain from the boundary: its tokens alone.
    assert_eq!(p.chain_tokens.len(), p.chain.len());
    assert!((p.visible_tokens - p.chain_tokens.iter().sum::<f64>()).abs() < 1e-9);
    let all: f64 = crate::estimate::record_tokens(&f.scan, &f.bytes, None).unwrap().iter().sum();
    assert!(p.visible_tokens * 5.0 < all, "history before the boundary is not counted: {} of {all}", p.visible_tokens);
    // Measured on bytes, the whole chain (a few % of the file) would have been kept.
    let (tokens, bytes) = shares(&p);
    assert!(tokens <= 0.3 && tokens > 0.1, "keeps {tokens} of the visible tokens");
    assert!(bytes < 0.05);
    assert!(p.cut.unwrap() > p.legal_cuts[0]);
}

#[test]
fn a_long_excluded_branch_does_not_count_toward_the_target() {
    // u0 a0, then a long rewound branch, then the branch the pointer names.
    let (mut l, root) = turns("r", None, 1, 400);
    let (rewound, _) = turns("x", Some(&root), 30, 3000);
    l.extend(rewound);
    let (live, leaf) = turns("y", Some(&root), 10, 400);
    l.extend(live);
    l.push(pointer(&leaf));
    let f = fx(&l);
    let p = f.plan(policy(LeafPolicy::Auto));
    assert_eq!(p.status, Status::Valid, "{}", p.message);
    assert_eq!(p.chain.len(), 22);
    assert_eq!(p.set(SetKind::ExcludedBranch).len(), 60);
    let (tokens, bytes) = shares(&p);
    assert!(tokens <= 0.3 && tokens > 0.1, "keeps {tokens} of the visible tokens");
    assert!(bytes < 0.05, "the rewound branch is most of the file");
}

#[test]
fn a_small_chain_in_a_large_file_is_still_cut_to_the_target() {
    // Ten short turns beside one huge record the client never sends (a snapshot).
    let (mut l, leaf) = turns("t", None, 10, 400);
    l.insert(
        3,
        format!(
            r#"{{"type":"file-history-snapshot","messageId":"none","snapshot":{{"blob":"{}"}}}}"#,
            "z".repeat(200_000)
        ),
    );
    l.push(pointer(&leaf));
    let f = fx(&l);
    let p = f.plan(policy(LeafPolicy::Auto));
    assert_eq!(p.status, Status::Valid, "{}", p.message);
    let (tokens, bytes) = shares(&p);
    assert!(tokens <= 0.3 && tokens > 0.1, "keeps {tokens} of the visible tokens");
    // On the file's bytes the whole chain fits in 30%: the old measure would have kept it all.
    assert!((p.cut_bytes[0] as f64) < 0.1 * p.input_bytes as f64);
    assert!(bytes < 0.03);
}

#[test]
fn the_kept_token_ceiling_caps_the_suffix_and_the_target_beats_min_recent_records() {
    let (mut l, leaf) = turns("t", None, 20, 4000);
    l.push(pointer(&leaf));
    let f = fx(&l);
    let p = f.plan(Options { max_kept_tokens: Some(3000.0), ..policy(LeafPolicy::Auto) });
    let j = p.legal_cuts.iter().position(|&c| Some(c) == p.cut).unwrap();
    assert!(p.cut_tokens[j] <= 3000.0, "{}", p.cut_tokens[j]);
    assert!(p.cut_tokens[j] > 1500.0, "the largest suffix within the ceiling");
    // Ten records would hold ~5000 tokens: over the ceiling, so fewer are kept.
    let p = f.plan(Options { max_kept_tokens: Some(3000.0), min_recent_records: 10, ..policy(LeafPolicy::Auto) });
    let j = p.legal_cuts.iter().position(|&c| Some(c) == p.cut).unwrap();
    assert!(p.cut_tokens[j] <= 3000.0);
    assert!((p.chain.len() as u32 - p.cut.unwrap()) < 10);
    // When ten records fit, ten are kept.
    let p = f.plan(Options { target_ratio: 0.9, min_recent_records: 10, ..policy(LeafPolicy::Auto) });
    assert!(p.chain.len() as u32 - p.cut.unwrap() >= 10);
}
