//! Tool results whose call is off the active chain.
//!
//! A `tool_result` record hangs from the assistant record that holds its `tool_use` (the client
//! writes it so). When its `parentUuid` names another record (one before the call, or a parent
//! that was never written and that the client re-attached by timestamp elsewhere), the call's
//! record is a leaf of its own, off the chain: the client (2.1.332, measured) then sends neither
//! the call nor the result (it drops a result whose call is not in the message before it), so
//! the turn is lost from the conversation although both records are in the file.
//!
//! The repair relinks the result record to the record holding its call, only where that is
//! unambiguous and restores nothing but that call: every result id of the record names a call
//! that exactly one record holds (the same record for all), the call's message is off the chain
//! and hangs (through its own fragments only) from the record the result hangs from, and every
//! call of that message is answered once it is back. Otherwise the record is reported and
//! left. Only the `parentUuid` value's bytes change; the report names every relink.
//!
//! Left to the client, as measured: a result whose call no record holds (its record was lost;
//! the client drops the block, a message left empty becomes `(no content)`), and a call at the
//! end of the chain with no result (the client sends it with an error result of its own).

use super::links::{parent_span, relink_edit, source_line, Edit};
use super::{Kind, Left, Mend};
use crate::client::chain::{is_boundary, load, message_fragments, Chain};
use crate::graph::{Graph, NONE};
use crate::scan::{record, Scan};
use rustc_hash::{FxHashMap, FxHashSet};

/// What the tool relinks change: the edits, the result records they relink (the dangling-parent
/// relink leaves those alone) and the records they bring back into the conversation.
#[derive(Default)]
pub struct ToolRelinks {
    pub edits: Vec<Edit>,
    pub claimed: FxHashSet<u32>,
    pub restored: Vec<u32>,
}

fn is_kind(s: &Scan, i: u32, k: &str) -> bool {
    s.records[i as usize].kind.is_some_and(|v| s.str(v) == k)
}

/// The user records of `sent` (the chain after its last compact boundary) holding a
/// `tool_result` whose `tool_use` no record of `chain` holds, each with those ids.
fn orphans<'a>(s: &'a Scan, chain: &[u32], sent: &[u32]) -> Vec<(u32, Vec<&'a str>)> {
    let on_chain: FxHashSet<&str> = chain
        .iter()
        .filter(|&&i| is_kind(s, i, "assistant"))
        .flat_map(|&i| s.tables.tool_uses(&s.records[i as usize]).iter().map(|u| s.str(u.id)))
        .collect();
    sent.iter()
        .filter(|&&i| is_kind(s, i, "user") && !s.records[i as usize].has(record::F_SIDECHAIN))
        .filter_map(|&i| {
            let ids: Vec<&str> = s
                .tables
                .tool_results(&s.records[i as usize])
                .iter()
                .map(|&id| s.str(id))
                .filter(|id| !on_chain.contains(id))
                .collect();
            (!ids.is_empty()).then_some((i, ids))
        })
        .collect()
}

/// Reports the results `ids` of the record at `line` as left, one entry each (as the validator
/// has one finding for each), with why.
fn leave(left: &mut Vec<Left>, line: u32, ids: &[&str], why: impl Fn(&str) -> String) {
    for id in ids {
        left.push(Left { kind: Kind::OrphanToolResult, line, message: format!("tool_result for {id}: {}", why(id)) });
    }
}

fn after_boundary<'c>(g: &Graph, records: &'c [u32]) -> &'c [u32] {
    let start = records.iter().rposition(|&r| is_boundary(g, r)).map_or(0, |k| k + 1);
    &records[start..]
}

/// How many records of `chain` (the active chain of `g`, after its last compact boundary) hold
/// a tool result whose call is not on the chain.
pub fn orphan_results_on_chain(g: &Graph, chain: &Chain) -> u32 {
    orphans(g.scan(), &chain.records, after_boundary(g, &chain.records)).len() as u32
}

/// Relinks the result records of `chain`, the active chain of `g` over `bytes`, whose call is
/// off the chain (module doc); `line_map` gives the source line of each line of `bytes`.
pub fn relink_results(
    g: &Graph,
    chain: &Chain,
    bytes: &[u8],
    line_map: &[u32],
    mends: &mut Vec<Mend>,
    left: &mut Vec<Left>,
) -> ToolRelinks {
    let mut out = ToolRelinks::default();
    let scan = g.scan();
    let loaded = load(g, bytes, chain).records;
    let found = orphans(scan, &loaded, after_boundary(g, &loaded));
    if found.is_empty() {
        return out;
    }
    let source_line = |i: u32| source_line(scan, line_map, i);
    let on_chain: FxHashSet<u32> = loaded.iter().copied().collect();
    // Which records hold each call the orphans answer (the main conversation's, canonical).
    let wanted: FxHashSet<&str> = found.iter().flat_map(|(_, ids)| ids.iter().copied()).collect();
    let mut holders: FxHashMap<&str, Vec<u32>> = FxHashMap::default();
    for (i, r) in scan.records.iter().enumerate() {
        let i = i as u32;
        if !g.canonical(i) || r.has(record::F_SIDECHAIN) || !is_kind(scan, i, "assistant") {
            continue;
        }
        for u in scan.tables.tool_uses(r) {
            let id = scan.str(u.id);
            if wanted.contains(id) {
                holders.entry(id).or_default().push(i);
            }
        }
    }
    // First each orphan's candidate call record, then per call message whether every call is
    // answered once the results are back.
    // (result, call record, the call's message fragments, the result's parentUuid value)
    let mut plans: Vec<(u32, u32, Vec<u32>, std::ops::Range<usize>)> = Vec::new();
    for (res, ids) in &found {
        let (res, line) = (*res, source_line(*res));
        let all = scan.tables.tool_results(&scan.records[res as usize]).len();
        if ids.len() != all {
            let why = "its record also holds results for calls on the chain, which relinking would move; left as it is";
            leave(left, line, ids, |_| why.into());
            continue;
        }
        let mut call = NONE;
        let mut problems: FxHashMap<&str, String> = FxHashMap::default();
        for &id in ids {
            match holders.get(id).map(|v| v.as_slice()).unwrap_or(&[]) {
                [] => problems.insert(id, "its call is in no record of the file (the record was lost): the client drops the block on resume and nothing here can bring the call back; left as it is".into()),
                [one] if call == NONE || call == *one => {
                    call = *one;
                    None
                }
                [_] => problems.insert(id, "the calls its record answers are held by different records: ambiguous, left as it is".into()),
                many => problems.insert(id, format!("its call is held by {} records: ambiguous, left as it is", many.len())),
            };
        }
        if !problems.is_empty() {
            leave(left, line, ids, |id| {
                problems
                    .get(id)
                    .cloned()
                    .unwrap_or_else(|| "left with the other results of its record; left as it is".into())
            });
            continue;
        }
        if on_chain.contains(&call) {
            continue;
        }
        // The call's message must hang, through its own fragments only, from the record the
        // result hangs from: relinking then brings back that message and nothing else.
        let fragments = message_fragments(g, call);
        let target = g.parent[res as usize];
        let mut at = call;
        let mut joins = false;
        for _ in 0..=fragments.len() {
            if !fragments.contains(&at) || on_chain.contains(&at) {
                break;
            }
            at = g.parent[at as usize];
            if at == target {
                joins = true;
                break;
            }
        }
        if !joins {
            let from =
                if target == NONE { "nothing (a root)".to_string() } else { format!("line {}", source_line(target)) };
            let why = format!(
                "its record hangs from {from}; its call at line {} does not hang from there: relinking would bring other records into the conversation; left as it is",
                source_line(call)
            );
            leave(left, line, ids, |_| why.clone());
            continue;
        }
        let Some(span) = parent_span(scan, bytes, res) else {
            leave(left, line, ids, |_| {
                "its record's parentUuid bytes cannot be located unambiguously; left as it is".into()
            });
            continue;
        };
        plans.push((res, call, fragments, span));
    }
    // Every call of a message brought back must be answered: by a relinked result, or by a
    // result that already hangs from one of its fragments (so the relinks of one message stand
    // or fall together).
    let mut relinked_ids: FxHashMap<u32, FxHashSet<&str>> = FxHashMap::default();
    for (res, _, fragments, _) in &plans {
        let ids = scan.tables.tool_results(&scan.records[*res as usize]).iter().map(|&id| scan.str(id));
        relinked_ids.entry(fragments[0]).or_default().extend(ids);
    }
    for (res, call, fragments, span) in plans {
        let calls: Vec<&str> = fragments
            .iter()
            .flat_map(|&f| scan.tables.tool_uses(&scan.records[f as usize]).iter().map(|u| scan.str(u.id)))
            .collect();
        let mut answered = relinked_ids[&fragments[0]].clone();
        let mut answers: Vec<u32> = Vec::new();
        for &f in &fragments {
            for &c in g.children(f) {
                if is_kind(scan, c, "user") && !scan.tables.tool_results(&scan.records[c as usize]).is_empty() {
                    answered.extend(scan.tables.tool_results(&scan.records[c as usize]).iter().map(|&id| scan.str(id)));
                    answers.push(c);
                }
            }
        }
        let line = source_line(res);
        let missing: Vec<&str> = calls.iter().copied().filter(|c| !answered.contains(c)).collect();
        if !missing.is_empty() {
            let why = format!(
                "its call's message (line {}) also holds {} that no result answers: relinking would leave them unanswered; left as it is",
                source_line(call),
                missing.join(", ")
            );
            let ids: Vec<&str> =
                scan.tables.tool_results(&scan.records[res as usize]).iter().map(|&id| scan.str(id)).collect();
            leave(left, line, &ids, |_| why.clone());
            continue;
        }
        let to = scan.str(scan.records[call as usize].uuid.expect("a canonical record has a uuid"));
        let ids: Vec<&str> =
            scan.tables.tool_results(&scan.records[res as usize]).iter().map(|&id| scan.str(id)).collect();
        let from = g.parent[res as usize];
        let from = if from == NONE { "no record".to_string() } else { format!("line {}", source_line(from)) };
        let message = format!(
            "tool_result for {} hangs from {from}, leaving its call off the chain (the client sends neither): relinked to {to} (line {}), the record holding the call",
            ids.join(", "),
            source_line(call)
        );
        let json = crate::json_string::json_string(to).into_bytes();
        let (mend, edit) = relink_edit(Kind::OrphanToolResult, line, bytes, span, json, message);
        mends.push(mend);
        out.edits.push(edit);
        out.claimed.insert(res);
        out.restored.extend(fragments.iter().copied().chain(answers));
    }
    out
}
