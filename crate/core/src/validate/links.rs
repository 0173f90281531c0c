//! uuids and parent links: unique uuids, resolvable parents, no parent cycle.

use super::codes::Code;
use super::{is_boundary, join, Ctx};
use crate::graph::{Graph, Link, NONE};
use crate::scan::record;
use crate::scan::reparse::{get, parse_line};
use rustc_hash::FxHashMap;
use simd_json::OwnedValue as V;

/// Unique uuids; every parentUuid names a record of the file; logicalParentUuid resolves
/// (a compact boundary may name a record of an earlier file).
pub(super) fn check_uuids(cx: &mut Ctx, g: &Graph) {
    let s = cx.scan;
    let mut by_uuid: FxHashMap<&str, Vec<u32>> = FxHashMap::default();
    for r in &s.records {
        if let Some(u) = r.uuid {
            by_uuid.entry(s.str(u)).or_default().push(r.line);
        }
    }
    let mut dups: Vec<(&str, Vec<u32>)> = by_uuid.into_iter().filter(|(_, l)| l.len() > 1).collect();
    dups.sort_by_key(|(_, l)| l[0]);
    for (u, lines) in dups {
        let n = lines.len();
        cx.push(
            Code::DuplicateUuid,
            lines,
            format!("uuid {u} is used by {n} records (the client keeps only the last)"),
        );
    }
    for (i, r) in s.records.iter().enumerate() {
        let i = i as u32;
        if r.has(record::F_HAS_PARENT_KEY) && r.parent_uuid.is_none() {
            // The index keeps only string parents: a root's line is read to tell null from junk.
            let v = parse_line(cx.bytes, r);
            if let Some(bad) = v
                .as_ref()
                .and_then(|v| get(v, "parentUuid"))
                .filter(|p| !matches!(p, V::Static(simd_json::StaticNode::Null)))
            {
                let what = match bad {
                    V::String(_) => "a string",
                    V::Array(_) => "an array",
                    V::Object(_) => "an object",
                    V::Static(_) => "a number or boolean",
                };
                cx.push(
                    Code::MalformedParent,
                    vec![r.line],
                    format!("line {}: parentUuid is {what}, not a uuid string or null", r.line),
                );
            }
        }
        if !g.canonical(i) {
            continue;
        }
        if let Some(p) = r.parent_uuid {
            let p = s.str(p);
            match g.link[i as usize] {
                _ if p.is_empty() => cx.push(
                    Code::MalformedParent,
                    vec![r.line],
                    format!("line {}: parentUuid is an empty string", r.line),
                ),
                Link::Reattached => {
                    let to = cx.line(g.parent[i as usize]);
                    cx.push(Code::DanglingParent,
                        vec![r.line, to],
                        format!("line {}: parentUuid {p} names no record of this file (the client re-attaches it by timestamp, to line {to})", r.line),
                    )
                }
                Link::Dangling if s.tables.strings.opt(r.uuid) == Some(p) => cx.push(
                    Code::DanglingParent,
                    vec![r.line],
                    format!("line {}: the record names itself as its parent", r.line),
                ),
                Link::Dangling => cx.push(
                    Code::DanglingParent,
                    vec![r.line],
                    format!(
                        "line {}: parentUuid {p} names no record of this file (the record is cut off from its history)",
                        r.line
                    ),
                ),
                _ => {}
            }
        } else if let Some(lp) = r.logical_parent_uuid {
            let lp = s.str(lp);
            if g.index_of(lp).is_none() {
                if is_boundary(s, r) {
                    cx.push(Code::LogicalParentOutsideFile,
                        vec![r.line],
                        format!("line {}: the compact boundary's logicalParentUuid {lp} is not in this file (history compacted in an earlier file)", r.line),
                    );
                } else {
                    cx.push(
                        Code::DanglingLogicalParent,
                        vec![r.line],
                        format!("line {}: logicalParentUuid {lp} names no record of this file", r.line),
                    );
                }
            }
        }
    }
}

/// Parent cycles anywhere in the file (the client stops its walk there: no hang, but the records
/// above the cycle are lost). Each cycle is reported once, with its records' lines.
pub(super) fn check_cycles(cx: &mut Ctx, g: &Graph, chain_looped: bool) {
    let n = cx.scan.records.len();
    let mut state = vec![0u8; n]; // 0 unseen, 1 on the current walk, 2 done
    for start in 0..n as u32 {
        let mut path = Vec::new();
        let mut at = start;
        while at != NONE && state[at as usize] == 0 {
            state[at as usize] = 1;
            path.push(at);
            at = g.parent[at as usize];
        }
        if at != NONE && state[at as usize] == 1 {
            let from = path.iter().position(|&x| x == at).unwrap_or(0);
            let lines: Vec<u32> = path[from..].iter().map(|&x| cx.line(x)).collect();
            let on_chain = if chain_looped { ", on the active chain" } else { "" };
            cx.push(
                Code::ParentCycle,
                lines.clone(),
                format!("{} records form a parentUuid cycle{on_chain} (lines {})", lines.len(), join(&lines)),
            );
        }
        for x in path {
            state[x as usize] = 2;
        }
    }
}
