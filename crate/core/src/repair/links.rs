//! Dangling parents on the active chain: a `parentUuid` naming a record that was never written.
//!
//! The client re-attaches such a record to the conversation record with the newest timestamp
//! before its own (or keeps it a root when there is none). The repair writes that link into the
//! file, so strict readers see the chain the client resumes, but only where it is unambiguous:
//! the record the client picks by timestamp must also be the nearest earlier conversation record
//! in file order (none for a root, which gets `parentUuid: null`). Otherwise the record is
//! reported and left. Only the `parentUuid` value's bytes change; the report names every relink.

use super::{Kind, Left, Mend};
use crate::client::chain::Chain;
use crate::client::Origin;
use crate::compress::json_span::find_member;
use crate::graph::{Graph, Link, NONE};
use crate::scan::Scan;
use rustc_hash::FxHashSet;

/// One byte-span edit: the range of the bytes replaced and what replaces them.
pub type Edit = (std::ops::Range<usize>, Vec<u8>);

/// The byte range of record `i`'s `parentUuid` value in `bytes`, when it can be located
/// unambiguously (the one value a relink rewrites).
pub fn parent_span(scan: &Scan, bytes: &[u8], i: u32) -> Option<std::ops::Range<usize>> {
    let r = &scan.records[i as usize];
    let start = r.offset as usize;
    let m = find_member(&bytes[start..start + r.len as usize], "parentUuid").ok()??;
    Some(start + m.value.start..start + m.value.end)
}

/// A relink of the value at `span` of `bytes` to `json`: the mend that reports it (the old value
/// kept) and the edit that makes it.
pub fn relink_edit(
    kind: Kind,
    line: u32,
    bytes: &[u8],
    span: std::ops::Range<usize>,
    json: Vec<u8>,
    message: String,
) -> (Mend, Edit) {
    let mend = Mend {
        kind,
        line,
        start: span.start as u64,
        end: span.end as u64,
        removed: bytes[span.clone()].to_vec(),
        message,
    };
    (mend, (span, json))
}

/// The source line of record `i` (`line_map`: the source line of each line of the scanned bytes).
pub fn source_line(scan: &Scan, line_map: &[u32], i: u32) -> u32 {
    let l = scan.records[i as usize].line;
    line_map.get(l as usize - 1).copied().unwrap_or(l)
}

/// How many records of `chain` (the active chain of `g`) have a `parentUuid` naming no record.
pub fn dangling_on_chain(g: &Graph, chain: &Chain) -> u32 {
    let scan = g.scan();
    let dangling = |i: u32| {
        scan.records[i as usize].parent_uuid.is_some_and(|u| g.index_of(scan.str(u)).is_none())
            && matches!(g.link[i as usize], Link::Reattached | Link::Dangling)
    };
    chain.records.iter().zip(&chain.origins).filter(|(&i, &o)| o == Origin::Chain && dangling(i)).count() as u32
}

/// The relinks of the dangling parents of `chain`, the active chain of `g` over `bytes`, the
/// records in `skip` left alone (another repair relinks them); `line_map` gives the source line
/// of each line of `bytes`.
pub fn relink(
    g: &Graph,
    chain: &Chain,
    bytes: &[u8],
    line_map: &[u32],
    skip: &FxHashSet<u32>,
    mends: &mut Vec<Mend>,
    left: &mut Vec<Left>,
) -> Vec<Edit> {
    let scan = g.scan();
    let source_line = |i: u32| source_line(scan, line_map, i);
    let mut edits: Vec<Edit> = Vec::new();
    for (&i, &origin) in chain.records.iter().zip(&chain.origins) {
        if skip.contains(&i) {
            continue;
        }
        let r = &scan.records[i as usize];
        let Some(parent) = r.parent_uuid.map(|u| scan.str(u)) else { continue };
        if origin != Origin::Chain
            || g.index_of(parent).is_some()
            || !matches!(g.link[i as usize], Link::Reattached | Link::Dangling)
        {
            continue;
        }
        let client = g.parent[i as usize];
        let nearest = (0..i).rev().find(|&j| g.canonical(j) && g.is_conversation(j)).unwrap_or(NONE);
        let line = source_line(i);
        if client != nearest {
            let what = |k: u32| if k == NONE { "none".to_string() } else { format!("line {}", source_line(k)) };
            left.push(Left {
                kind: Kind::DanglingParent,
                line,
                message: format!(
                    "parentUuid {parent} names no record; the client re-attaches it by timestamp to {}, the nearest earlier conversation record is {}: ambiguous, left as it is",
                    what(client),
                    what(nearest)
                ),
            });
            continue;
        }
        let Some(span) = parent_span(scan, bytes, i) else {
            left.push(Left {
                kind: Kind::DanglingParent,
                line,
                message: format!(
                    "parentUuid {parent} names no record, and its bytes cannot be located unambiguously: left as it is"
                ),
            });
            continue;
        };
        let (json, message) = if client == NONE {
            (b"null".to_vec(), format!("parentUuid {parent} names no record and no conversation record is earlier: made a root (parentUuid null), as the client treats it"))
        } else {
            let to = scan.str(scan.records[client as usize].uuid.expect("a canonical record has a uuid"));
            (
                crate::json_string::json_string(to).into_bytes(),
                format!(
                    "parentUuid {parent} names no record: relinked to {to} (line {}), the record the client re-attaches it to and the nearest earlier one",
                    source_line(client)
                ),
            )
        };
        let (mend, edit) = relink_edit(Kind::DanglingParent, line, bytes, span, json, message);
        mends.push(mend);
        edits.push(edit);
    }
    edits
}

/// `bytes` with `edits` (disjoint ranges) applied.
pub fn apply(bytes: &[u8], mut edits: Vec<Edit>) -> Vec<u8> {
    edits.sort_by_key(|(r, _)| r.start);
    let mut out = Vec::with_capacity(bytes.len() + edits.len() * 8);
    let mut at = 0;
    for (r, json) in edits {
        out.extend_from_slice(&bytes[at..r.start]);
        out.extend_from_slice(&json);
        at = r.end;
    }
    out.extend_from_slice(&bytes[at..]);
    out
}
