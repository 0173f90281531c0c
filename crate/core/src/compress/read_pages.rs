//! The `Read.pages` compatibility repair: deleting the `pages` member from the `input` of
//! historical `Read` tool calls, for downstream readers that reject it. Only the exact member
//! bytes (with one separating comma) are removed; every other byte of the file is copied, so BOM,
//! newline style, key order, escapes and unknown fields stay as written.
//!
//! A call is repaired only when it is settled: a non-empty `file_path`, exactly one later
//! `tool_result` for its id, both records in the same non-empty session, and the result's
//! `sourceToolAssistantUUID` naming the calling record. A call with no result yet is pending and
//! left alone; any doubt about which bytes are the member (a duplicate key, overlapping spans)
//! stops the whole repair.

use super::json_span::{array_items, member_deletion, object_members, RawMember, SpanError};
use crate::scan::reparse::{as_str, get, parse_line};
use crate::scan::{self, Mode, Scan};
use crate::topology;
use rustc_hash::FxHashMap as HashMap;
use simd_json::OwnedValue as V;
use std::ops::Range;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// The records of the strict active chain (the last `last-prompt`'s lineage) only.
    Active,
    /// Every record in the file.
    All,
}

/// One member deletion.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Patch {
    pub line: u32,
    pub tool_use_id: String,
    pub file_path: String,
    /// Absolute byte range in the file.
    pub span: Range<u64>,
}

/// A `Read` call with `pages` that is left unchanged, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Left {
    pub line: u32,
    pub tool_use_id: String,
    /// `pending` (no result yet) or the precondition that failed.
    pub reason: &'static str,
    pub message: String,
}

#[derive(Debug, Default)]
pub struct Findings {
    pub patches: Vec<Patch>,
    pub pending: Vec<Left>,
    pub ineligible: Vec<Left>,
}

/// Why nothing can be repaired.
#[derive(Debug, PartialEq, Eq)]
pub enum Refusal {
    /// The strict active chain could not be selected (topology status, one-line message).
    Topology { status: &'static str, message: String },
    /// The bytes of a member cannot be located unambiguously.
    Ambiguous { line: u32, message: String },
    /// The repaired bytes broke an invariant the repair must keep (a bug if it ever happens).
    Invariant(String),
}

pub struct Outcome {
    pub findings: Findings,
    /// The repaired file; `None` when there is nothing to patch.
    pub output: Option<Vec<u8>>,
    pub records: usize,
}

/// Finds the patches for `bytes` (already scanned as `scan`).
pub fn find(scan: &Scan, bytes: &[u8], scope: Scope) -> Result<Findings, Refusal> {
    let in_scope: Option<Vec<bool>> = match scope {
        Scope::All => None,
        Scope::Active => {
            let plan = topology::plan(scan, bytes, &topology::Options::default());
            if plan.status != topology::Status::Valid {
                return Err(Refusal::Topology { status: plan.status.name(), message: plan.message });
            }
            let mut set = vec![false; scan.records.len()];
            for &i in plan.chain.iter().chain(&plan.precompact).chain(&plan.prior_compact) {
                set[i as usize] = true;
            }
            Some(set)
        }
    };
    // Every record holding a result for each tool id, in file order.
    let mut results: HashMap<&str, Vec<u32>> = HashMap::default();
    for (j, r) in scan.records.iter().enumerate() {
        for id in scan.tables.tool_results(r) {
            results.entry(scan.str(*id)).or_default().push(j as u32);
        }
    }
    let mut f = Findings::default();
    for (i, r) in scan.records.iter().enumerate() {
        if in_scope.as_ref().is_some_and(|s| !s[i])
            || r.kind.map(|k| scan.str(k)) != Some("assistant")
            || !scan.tables.tool_uses(r).iter().any(|u| scan.str(u.name) == "Read")
        {
            continue;
        }
        let Some(v) = parse_line(bytes, r) else { continue };
        let Some(V::Array(blocks)) = get(&v, "message").and_then(|m| get(m, "content")) else { continue };
        let mut raw_blocks: Option<Vec<Range<usize>>> = None;
        for (k, block) in blocks.iter().enumerate() {
            let input = get(block, "input");
            if as_str(get(block, "type")) != Some("tool_use")
                || as_str(get(block, "name")) != Some("Read")
                || get_opt(input, "pages").is_none()
            {
                continue;
            }
            let id = as_str(get(block, "id")).unwrap_or("").to_string();
            let left =
                |reason: &'static str, message: String| Left { line: r.line, tool_use_id: id.clone(), reason, message };
            if id.is_empty() {
                f.ineligible.push(left("no-tool-use-id", "the Read call has no id".into()));
                continue;
            }
            let file_path = as_str(get_opt(input, "file_path")).unwrap_or("");
            if file_path.is_empty() {
                f.ineligible.push(left("no-file-path", "the Read call has no non-empty file_path".into()));
                continue;
            }
            let found = results.get(id.as_str()).map(Vec::as_slice).unwrap_or(&[]);
            let Some(&j) = found.first() else {
                f.pending.push(left("pending", "no tool_result for this call yet".into()));
                continue;
            };
            if found.len() > 1 || j as usize <= i {
                f.ineligible.push(left(
                    "result-not-unique",
                    format!("{} tool_result records carry this id; exactly one later one is required", found.len()),
                ));
                continue;
            }
            let res = &scan.records[j as usize];
            let session = scan.tables.strings.opt(r.session_id).unwrap_or("");
            if session.is_empty() || scan.tables.strings.opt(res.session_id) != Some(session) {
                f.ineligible.push(left(
                    "session-mismatch",
                    format!("the call and its result (line {}) are not in one non-empty session", res.line),
                ));
                continue;
            }
            let uuid = scan.tables.strings.opt(r.uuid).unwrap_or("");
            let source =
                parse_line(bytes, res).and_then(|rv| as_str(get(&rv, "sourceToolAssistantUUID")).map(String::from));
            if uuid.is_empty() || source.as_deref() != Some(uuid) {
                f.ineligible.push(left(
                    "source-assistant-mismatch",
                    format!("the result's sourceToolAssistantUUID (line {}) does not name this record", res.line),
                ));
                continue;
            }
            // The member's bytes: message -> content[k] -> input -> pages, each key unique.
            let line = &bytes[r.offset as usize..r.offset as usize + r.len as usize];
            let ambiguous = |message: &str| Refusal::Ambiguous { line: r.line, message: message.to_string() };
            if raw_blocks.is_none() {
                let top = members(line, 0).map_err(|m| ambiguous(&m))?;
                let message = unique(line, &top, "message").map_err(|m| ambiguous(&m))?;
                let inner = members(line, message.value.start).map_err(|m| ambiguous(&m))?;
                let content = unique(line, &inner, "content").map_err(|m| ambiguous(&m))?;
                raw_blocks =
                    Some(array_items(line, content.value.start).ok_or_else(|| ambiguous("content is not an array"))?);
            }
            let raw = raw_blocks.as_ref().unwrap();
            let block_span = raw.get(k).ok_or_else(|| ambiguous("content blocks do not match the parsed record"))?;
            let block_members = members_no_duplicates(line, block_span.start).map_err(|m| ambiguous(&m))?;
            let input_member = unique(line, &block_members, "input").map_err(|m| ambiguous(&m))?;
            let input_members = members_no_duplicates(line, input_member.value.start).map_err(|m| ambiguous(&m))?;
            let Some(p) = input_members.iter().position(|m| &line[m.key.clone()] == b"pages") else {
                return Err(ambiguous("the input's pages key is spelled with escapes; its bytes cannot be matched"));
            };
            let del = member_deletion(&input_members, p);
            f.patches.push(Patch {
                line: r.line,
                tool_use_id: id.clone(),
                file_path: file_path.to_string(),
                span: r.offset + del.start as u64..r.offset + del.end as u64,
            });
        }
    }
    f.patches.sort_by_key(|p| p.span.start);
    if let Some(w) = f.patches.windows(2).find(|w| w[1].span.start < w[0].span.end) {
        return Err(Refusal::Ambiguous { line: w[1].line, message: "two member spans overlap".into() });
    }
    Ok(f)
}

/// Scans `bytes`, finds the patches, applies them and checks the result: the same records with
/// the same uuid/parent/session signature and tool id sequences, BOM and newline counts, and a
/// second scan of the output finding nothing left to patch.
pub fn repair(bytes: &[u8], scope: Scope) -> Result<Outcome, Refusal> {
    let before = scan::scan_bytes(bytes, Mode::Full);
    let findings = find(&before, bytes, scope)?;
    let records = before.records.len();
    if findings.patches.is_empty() {
        return Ok(Outcome { findings, output: None, records });
    }
    let removed: u64 = findings.patches.iter().map(|p| p.span.end - p.span.start).sum();
    let mut out = Vec::with_capacity(bytes.len() - removed as usize);
    let mut at = 0usize;
    for p in &findings.patches {
        out.extend_from_slice(&bytes[at..p.span.start as usize]);
        at = p.span.end as usize;
    }
    out.extend_from_slice(&bytes[at..]);
    let after = scan::scan_bytes(&out, Mode::Full);
    check_invariants(&before, &after).map_err(Refusal::Invariant)?;
    let again = find(&after, &out, scope).map_err(|e| Refusal::Invariant(format!("the second scan failed: {e:?}")))?;
    if !again.patches.is_empty() {
        return Err(Refusal::Invariant(format!("a second scan still finds {} patches", again.patches.len())));
    }
    Ok(Outcome { findings, output: Some(out), records })
}

/// The repair's promises, checked between the scans of the input and the output.
pub fn check_invariants(before: &Scan, after: &Scan) -> Result<(), String> {
    if before.bom != after.bom {
        return Err("the byte-order mark changed".into());
    }
    if before.counts.lines != after.counts.lines || before.counts.crlf_lines != after.counts.crlf_lines {
        return Err("the line count or newline style changed".into());
    }
    if before.records.len() != after.records.len() {
        return Err(format!("record count changed ({} -> {})", before.records.len(), after.records.len()));
    }
    for (a, b) in before.records.iter().zip(&after.records) {
        let s = |scan: &Scan, v| scan.tables.strings.opt(v).map(str::to_string);
        let same = s(before, a.kind) == s(after, b.kind)
            && s(before, a.uuid) == s(after, b.uuid)
            && s(before, a.parent_uuid) == s(after, b.parent_uuid)
            && s(before, a.session_id) == s(after, b.session_id)
            && a.line == b.line
            && ids(before, before.tables.tool_uses(a).iter().map(|u| u.id))
                == ids(after, after.tables.tool_uses(b).iter().map(|u| u.id))
            && ids(before, before.tables.tool_results(a).iter().copied())
                == ids(after, after.tables.tool_results(b).iter().copied());
        if !same {
            return Err(format!("the uuid/parent/session signature or tool ids of line {} changed", a.line));
        }
    }
    Ok(())
}

fn ids(scan: &Scan, it: impl Iterator<Item = crate::scan::record::Str>) -> Vec<&str> {
    it.map(|s| scan.str(s)).collect()
}

fn get_opt<'v>(v: Option<&'v V>, key: &str) -> Option<&'v V> {
    v.and_then(|v| get(v, key))
}

fn members(line: &[u8], at: usize) -> Result<Vec<RawMember>, String> {
    object_members(line, at).map_err(|e| match e {
        SpanError::NotAnObject => "a value on the path to pages is not a well-formed object".to_string(),
        SpanError::DuplicateKey => "duplicate key".to_string(),
    })
}

/// The members of an object in which no key occurs twice.
fn members_no_duplicates(line: &[u8], at: usize) -> Result<Vec<RawMember>, String> {
    let ms = members(line, at)?;
    let mut seen: Vec<&[u8]> = ms.iter().map(|m| &line[m.key.clone()]).collect();
    seen.sort_unstable();
    if let Some(w) = seen.windows(2).find(|w| w[0] == w[1]) {
        return Err(format!("the key {:?} occurs twice in one object", String::from_utf8_lossy(w[0])));
    }
    Ok(ms)
}

/// The one member named `key`; a duplicate is ambiguous.
fn unique<'m>(line: &[u8], ms: &'m [RawMember], key: &str) -> Result<&'m RawMember, String> {
    let mut it = ms.iter().filter(|m| &line[m.key.clone()] == key.as_bytes());
    let first = it.next().ok_or_else(|| format!("no raw {key:?} key"))?;
    if it.next().is_some() {
        return Err(format!("the key {key:?} occurs twice in one object"));
    }
    Ok(first)
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: &str = "s1";

    fn call(uuid: &str, parent: Option<&str>, id: &str, input: &str) -> String {
        let p = parent.map_or("null".to_string(), |p| format!("\"{p}\""));
        format!(
            r#"{{"parentUuid":{p},"type":"assistant","uuid":"{uuid}","sessionId":"{S}","message":{{"id":"m-{uuid}","role":"assistant","content":[{{"type":"tool_use","id":"{id}","name":"Read","input":{input}}}]}}}}"#
        )
    }
    fn result(uuid: &str, parent: &str, id: &str, source: &str) -> String {
        format!(
            r#"{{"parentUuid":"{parent}","type":"user","uuid":"{uuid}","sessionId":"{S}","sourceToolAssistantUUID":"{source}","message":{{"role":"user","content":[{{"type":"tool_result","tool_use_id":"{id}","content":"ok"}}]}}}}"#
        )
    }
    fn user(uuid: &str) -> String {
        format!(
            r#"{{"parentUuid":null,"type":"user","uuid":"{uuid}","sessionId":"{S}","message":{{"role":"user","content":"read it"}}}}"#
        )
    }
    fn pointer(leaf: &str) -> String {
        format!(r#"{{"type":"last-prompt","leafUuid":"{leaf}","sessionId":"{S}"}}"#)
    }
    fn file(lines: &[String], nl: &str) -> Vec<u8> {
        lines.iter().map(|l| format!("{l}{nl}")).collect::<String>().into_bytes()
    }

    #[test]
    fn deletes_exactly_the_pages_member_and_keeps_every_other_byte() {
        let lines = vec![
            user("u1"),
            call("a1", Some("u1"), "t1", r#"{"file_path":"/d/é.pdf", "pages" : "1-3","x\u00e9":1}"#),
            result("r1", "a1", "t1", "a1"),
            pointer("r1"),
        ];
        for nl in ["\n", "\r\n"] {
            let mut bytes = b"\xEF\xBB\xBF".to_vec();
            bytes.extend(file(&lines, nl));
            let out = repair(&bytes, Scope::Active).unwrap();
            assert_eq!(out.findings.patches.len(), 1);
            let got = out.output.unwrap();
            let want = String::from_utf8(bytes.clone()).unwrap().replace(r#""pages" : "1-3","#, "");
            assert_eq!(String::from_utf8(got).unwrap(), want);
        }
    }

    #[test]
    fn pending_and_unsettled_calls_are_left_alone() {
        let lines = vec![
            user("u1"),
            call("a1", Some("u1"), "t1", r#"{"file_path":"/d/a.pdf","pages":"1"}"#),
            result("r1", "a1", "t1", "someone-else"),
            call("a2", Some("r1"), "t2", r#"{"pages":"2","file_path":""}"#),
            result("r2", "a2", "t2", "a2"),
            call("a3", Some("r2"), "t3", r#"{"file_path":"/d/c.pdf","pages":"3"}"#),
            pointer("a3"),
        ];
        let out = repair(&file(&lines, "\n"), Scope::Active).unwrap();
        assert!(out.output.is_none());
        assert_eq!(out.findings.pending.iter().map(|l| l.tool_use_id.as_str()).collect::<Vec<_>>(), ["t3"]);
        let reasons: Vec<_> = out.findings.ineligible.iter().map(|l| l.reason).collect();
        assert_eq!(reasons, ["source-assistant-mismatch", "no-file-path"]);
    }

    #[test]
    fn active_scope_skips_a_rewound_branch_and_all_scope_takes_it() {
        let lines = vec![
            user("u1"),
            call("a1", Some("u1"), "t1", r#"{"file_path":"/d/a.pdf","pages":"1"}"#),
            result("r1", "a1", "t1", "a1"),
            // A rewound branch off u1, then the pointer back on the main branch.
            call("b1", Some("u1"), "t9", r#"{"file_path":"/d/b.pdf","pages":"9"}"#),
            result("rb", "b1", "t9", "b1"),
            pointer("r1"),
        ];
        let bytes = file(&lines, "\n");
        assert_eq!(repair(&bytes, Scope::Active).unwrap().findings.patches.len(), 1);
        assert_eq!(repair(&bytes, Scope::All).unwrap().findings.patches.len(), 2);
        // A duplicated uuid leaves no strict chain to choose; every record can still be repaired.
        let mut dup = lines.clone();
        dup.insert(5, user("u1"));
        let dup = file(&dup, "\n");
        let active = repair(&dup, Scope::Active).map(|o| o.findings.patches.len());
        assert!(matches!(active, Err(Refusal::Topology { .. })), "{active:?}");
        let all = repair(&dup, Scope::All);
        assert_eq!(all.as_ref().map(|o| o.findings.patches.len()).map_err(|e| format!("{e:?}")), Ok(2));
    }

    #[test]
    fn duplicate_keys_on_the_path_stop_the_repair() {
        for input in [r#"{"file_path":"/a","pages":"1","pages":"2"}"#, r#"{"file_path":"/a","pag\u0065s":"1"}"#] {
            let lines =
                vec![user("u1"), call("a1", Some("u1"), "t1", input), result("r1", "a1", "t1", "a1"), pointer("r1")];
            assert!(
                matches!(repair(&file(&lines, "\n"), Scope::All), Err(Refusal::Ambiguous { line: 2, .. })),
                "{input}"
            );
        }
    }

    #[test]
    fn other_tools_and_reads_without_pages_are_untouched() {
        let mut grep = call("a1", Some("u1"), "t1", r#"{"file_path":"/a","pages":"1"}"#);
        grep = grep.replace(r#""name":"Read""#, r#""name":"read""#);
        let lines = vec![
            user("u1"),
            grep,
            result("r1", "a1", "t1", "a1"),
            call("a2", Some("r1"), "t2", r#"{"file_path":"/a","offset":3}"#),
            result("r2", "a2", "t2", "a2"),
            pointer("r2"),
        ];
        let out = repair(&file(&lines, "\n"), Scope::All).unwrap();
        assert!(out.output.is_none() && out.findings.pending.is_empty() && out.findings.ineligible.is_empty());
    }
}
