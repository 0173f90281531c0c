//! Dangling parents on the active chain: a `parentUuid` naming a record that was never written.
//!
//! The client re-attaches such a record to the conversation record with the newest timestamp
//! before its own (or keeps it a root when there is none). The repair writes that link into the
//! file, so strict readers see the chain the client resumes, but only where it is unambiguous:
//! the record the client picks by timestamp must also be the nearest earlier conversation record
//! in file order (none for a root, which gets `parentUuid: null`). Otherwise the record is
//! reported and left. Only the `parentUuid` value's bytes change; the report names every relink.

use super::{Kind, Left, Mend};
use crate::client::Origin;
use crate::compress::json_span::find_member;
use crate::graph::{Graph, Link, NONE};
use crate::scan::Scan;

fn json_string(s: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(s.len() + 2);
    out.push(b'"');
    for c in s.chars() {
        match c {
            '"' => out.extend_from_slice(b"\\\""),
            '\\' => out.extend_from_slice(b"\\\\"),
            c if (c as u32) < 0x20 => out.extend_from_slice(format!("\\u{:04x}", c as u32).as_bytes()),
            c => {
                let mut b = [0u8; 4];
                out.extend_from_slice(c.encode_utf8(&mut b).as_bytes());
            }
        }
    }
    out.push(b'"');
    out
}

/// How many records of the active chain have a `parentUuid` naming no record (what `doctor`
/// counts before it asks for the repair itself).
pub fn dangling_on_chain(scan: &Scan) -> u32 {
    let g = Graph::new(scan);
    let chain = crate::client::chain::active_chain(&g, crate::client::leaf::choose(&g).leaf);
    let dangling = |i: u32| {
        scan.records[i as usize].parent_uuid.is_some_and(|u| g.index_of(scan.str(u)).is_none())
            && matches!(g.link[i as usize], Link::Reattached | Link::Dangling)
    };
    chain.records.iter().zip(&chain.origins).filter(|(&i, &o)| o == Origin::Chain && dangling(i)).count() as u32
}

/// Relinks the dangling parents of the active chain of `bytes` (scanned as `scan`); `line_map`
/// gives the source line of each line of `bytes`. Returns the relinked bytes.
pub fn relink(scan: &Scan, bytes: &[u8], line_map: &[u32], mends: &mut Vec<Mend>, left: &mut Vec<Left>) -> Vec<u8> {
    let g = Graph::new(scan);
    let chain = crate::client::chain::active_chain(&g, crate::client::leaf::choose(&g).leaf);
    let source_line = |i: u32| {
        let l = scan.records[i as usize].line;
        line_map.get(l as usize - 1).copied().unwrap_or(l)
    };
    let mut edits: Vec<(std::ops::Range<usize>, Vec<u8>)> = Vec::new();
    for (&i, &origin) in chain.records.iter().zip(&chain.origins) {
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
        let start = r.offset as usize;
        let rec = &bytes[start..start + r.len as usize];
        let Ok(Some(m)) = find_member(rec, "parentUuid") else {
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
                json_string(to),
                format!(
                    "parentUuid {parent} names no record: relinked to {to} (line {}), the record the client re-attaches it to and the nearest earlier one",
                    source_line(client)
                ),
            )
        };
        let span = start + m.value.start..start + m.value.end;
        mends.push(Mend {
            kind: Kind::DanglingParent,
            line,
            start: span.start as u64,
            end: span.end as u64,
            removed: bytes[span.clone()].to_vec(),
            message,
        });
        edits.push((span, json));
    }
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
