//! The model-visible chain from the chosen leaf and the strict checks on it.

use super::{
    is_boundary, is_summary, kind_is, line, uuid_of, LeafPolicy, Options, Plan, PreserveMode, Run, Status, Stop,
    Warning,
};
use crate::client::Origin;
use crate::graph::{Graph, Link, NONE};
use crate::scan::reparse::{get, parse_line};
use crate::scan::{record, Scan};
use rustc_hash::{FxHashMap, FxHashSet};

/// Duplicate uuids anywhere make the uuid index ambiguous: blocking (under `strict`), whatever branch
/// they are on. Outside strict, byte-identical copies of one record (a resume that re-appends
/// lines; the client de-duplicates them) are not ambiguous: a warning, the last
/// copy is the record, the earlier ones are excluded.
pub(super) fn duplicate_uuids(p: &mut Plan, s: &Scan, g: &Graph, bytes: &[u8], opts: &Options) {
    if g.duplicates.is_empty() {
        return;
    }
    let dup: FxHashSet<&str> = g.duplicates.iter().map(|&i| uuid_of(s, i)).collect();
    let copies: Vec<u32> = (0..s.records.len() as u32).filter(|&i| dup.contains(uuid_of(s, i))).collect();
    let lines: Vec<u32> = copies.iter().map(|&i| line(s, i)).collect();
    let span = |i: u32| {
        let r = &s.records[i as usize];
        bytes.get(r.offset as usize..r.offset as usize + r.len as usize)
    };
    let identical = copies.iter().all(|&i| span(i) == g.index_of(uuid_of(s, i)).and_then(span));
    if identical && opts.leaf_policy != LeafPolicy::Strict {
        p.warnings.push(Warning {
            code: "repeated-records",
            message: format!(
                "{} record(s) are written more than once, byte for byte (lines {}): the last copy is used, as the client does",
                dup.len(),
                join(&lines, 12)
            ),
            lines,
        });
        return;
    }
    let first = uuid_of(s, g.duplicates[0]);
    let what = if identical { ", byte-identical copies (accepted outside --leaf-policy strict)" } else { "" };
    p.stop(Stop {
        status: Status::DuplicateUuid,
        message: format!(
            "{} uuid(s) are used by more than one record (first: {first}; lines {}){what}: the uuid index is ambiguous",
            dup.len(),
            join(&lines, 12)
        ),
        lines,
        recovery: if identical { vec!["--leaf-policy auto".into()] } else { vec![] },
    });
}

pub(super) fn join(lines: &[u32], max: usize) -> String {
    let mut out: Vec<String> = lines.iter().take(max).map(|l| l.to_string()).collect();
    if lines.len() > max {
        out.push(format!("… {} more", lines.len() - max));
    }
    out.join(", ")
}

/// Fills the chain: the active chain from the leaf (fragments and results spliced), a live
/// preserved segment applied as the client applies it, then cut to start at the last compact
/// boundary on it. Also the sessionId runs along it.
pub(super) fn build(p: &mut Plan, g: &Graph, bytes: &[u8]) {
    let s = g.scan();
    let loaded = crate::client::chain::load(g, bytes, &crate::client::chain::active_chain(g, p.leaf));
    let mut chain = loaded.records;
    let mut origins: Vec<u8> = loaded.origins.iter().map(|o| *o as u8).collect();
    let mut dropped = loaded.dropped;
    p.relinked = loaded.relinked;
    p.segment_live = loaded.segment_live;
    let start = chain.iter().rposition(|&r| is_boundary(s, r)).unwrap_or(0);
    dropped.extend_from_slice(&chain[..start]);
    dropped.sort_unstable();
    p.precompact = dropped;
    p.chain = chain.split_off(start);
    p.origins = origins.split_off(start);
    if let Some(&first) = p.chain.first() {
        if is_boundary(s, first) {
            p.prior_compact.push(first);
            if let Some(&second) = p.chain.get(1).filter(|&&x| is_summary(s, x)) {
                p.prior_compact.push(second);
            }
        } else if is_summary(s, first) {
            p.prior_compact.push(first);
        }
    }
    // sessionId runs along the parent chain (spliced records follow their owners).
    for (k, &i) in p.chain.iter().enumerate() {
        if p.origins[k] == Origin::Fragment as u8 || p.origins[k] == Origin::ToolResult as u8 {
            if let Some(run) = p.runs.last_mut() {
                run.end = k as u32 + 1;
            }
            continue;
        }
        let Some(v) = s.records[i as usize].session_id.map(|v| s.str(v)) else {
            if let Some(run) = p.runs.last_mut() {
                run.end = k as u32 + 1;
            }
            continue;
        };
        match p.runs.last_mut() {
            Some(run) if run.session == v => run.end = k as u32 + 1,
            _ => p.runs.push(Run { session: v.to_string(), start: k as u32, end: k as u32 + 1 }),
        }
    }
}

/// The strict structural statuses, on the chain only: damage elsewhere does not block.
pub(super) fn check(p: &mut Plan, g: &Graph, bytes: &[u8], opts: &Options) {
    let s = g.scan();
    let on: FxHashSet<u32> = p.chain.iter().copied().collect();
    let relinked: FxHashSet<u32> = p.relinked.iter().copied().collect();
    let spliced = |k: usize| p.origins[k] == Origin::Fragment as u8 || p.origins[k] == Origin::ToolResult as u8;
    let recover = vec!["--preserve-physical-tail (compatibility mode: no branch isolation)".to_string()];
    // malformed-parent: an empty string, or a parentUuid that is neither a string nor null.
    for (k, &i) in p.chain.iter().enumerate() {
        let r = &s.records[i as usize];
        let bad = match r.parent_uuid {
            Some(v) => s.str(v).is_empty().then_some("an empty string"),
            None if r.has(record::F_HAS_PARENT_KEY) && !spliced(k) => parse_line(bytes, r)
                .and_then(|v| {
                    get(&v, "parentUuid")
                        .map(|x| !matches!(x, simd_json::OwnedValue::Static(simd_json::StaticNode::Null)))
                })
                .unwrap_or(false)
                .then_some("neither a uuid string nor null"),
            None => None,
        };
        if let Some(what) = bad {
            let l = r.line;
            p.stop(Stop {
                status: Status::MalformedParent,
                lines: vec![l],
                message: format!("line {l}: parentUuid is {what}, on the active chain"),
                recovery: recover.clone(),
            });
            return;
        }
    }
    // dangling: a parent the client re-attaches by timestamp (a guess), or a root whose parent
    // is missing (accepted outside strict: nothing earlier exists to attach to).
    // Spliced fragments and results count too: the client re-attaches a result by timestamp
    // before splicing it, a guess a rewrite must not bake in.
    for (k, &i) in p.chain.iter().enumerate() {
        let l = line(s, i);
        let parent = s.tables.strings.opt(s.records[i as usize].parent_uuid).unwrap_or("");
        match g.link[i as usize] {
            Link::Reattached => {
                let to = line(s, g.parent[i as usize]);
                p.stop(Stop {
                    status: Status::Dangling,
                    lines: vec![l, to],
                    message: format!("line {l}: parentUuid {parent} names no record; the client would re-attach it by timestamp to line {to}"),
                    recovery: recover.clone(),
                });
                return;
            }
            Link::Dangling if opts.leaf_policy == LeafPolicy::Strict || k > 0 => {
                p.stop(Stop {
                    status: Status::Dangling,
                    lines: vec![l],
                    message: format!("line {l}: parentUuid {parent} names no record of this file (the active chain starts mid-history)"),
                    recovery: recover.clone(),
                });
                return;
            }
            Link::Dangling => p.warnings.push(Warning {
                code: "dangling-root",
                lines: vec![l],
                message: format!("line {l}: the chain's first record names a parent that is not in the file (a file that starts mid-session); the client loads the same history"),
            }),
            _ => {}
        }
    }
    // loop: the walk from the leaf met a record twice inside the current chain.
    let (anc, looped) = g.ancestors(p.leaf);
    if looped {
        let repeat = g.parent[*anc.last().unwrap() as usize];
        if on.contains(&repeat) {
            let from = anc.iter().position(|&x| x == repeat).unwrap_or(0);
            let mut lines: Vec<u32> = anc[from..].iter().map(|&x| line(s, x)).collect();
            lines.sort_unstable();
            p.stop(Stop {
                status: Status::Loop,
                message: format!(
                    "{} records form a parentUuid cycle on the active chain (lines {})",
                    lines.len(),
                    join(&lines, 12)
                ),
                lines,
                recovery: recover.clone(),
            });
            return;
        }
    }
    // non-monotonic: a child physically before its parent, except same-session
    // attachment -> attachment. Outside strict, the client's own write-order inversions are
    // accepted too: the client writes a tool result or attachment a line before the record it
    // hangs off, with a later timestamp (seen in real 2.1.1xx files); it loads them by uuid.
    let mut inverted: Vec<u32> = Vec::new();
    for (k, &i) in p.chain.iter().enumerate() {
        let par = g.parent[i as usize];
        if spliced(k) || relinked.contains(&i) || g.link[i as usize] != Link::Parent || !on.contains(&par) || i > par {
            continue;
        }
        let (r, pr) = (&s.records[i as usize], &s.records[par as usize]);
        let same_session = r.session_id.map(|v| s.str(v)) == pr.session_id.map(|v| s.str(v));
        if same_session && kind_is(s, i, "attachment") && kind_is(s, par, "attachment") {
            continue;
        }
        let written_later = matches!((r.timestamp_ms, pr.timestamp_ms), (Some(c), Some(q)) if c >= q);
        if same_session && written_later && opts.leaf_policy != LeafPolicy::Strict {
            inverted.push(r.line);
            continue;
        }
        let (l, pl) = (line(s, i), line(s, par));
        p.stop(Stop {
            status: Status::NonMonotonic,
            lines: vec![l, pl],
            message: format!("line {l} comes before its parent (line {pl}) on the active chain"),
            recovery: recover.clone(),
        });
        return;
    }
    if !inverted.is_empty() {
        p.warnings.push(Warning {
            code: "write-order-inversion",
            message: format!(
                "{} chain record(s) are written a line before their parent, with a later timestamp (the client's own write order; accepted outside strict)",
                inverted.len()
            ),
            lines: inverted,
        });
    }
    // session lineage: one-way runs only; the final run is the pointer's session.
    let mut seen: FxHashMap<&str, u32> = FxHashMap::default();
    for run in &p.runs {
        if let Some(&first) = seen.get(run.session.as_str()) {
            let l = line(s, p.chain[run.start as usize]);
            p.stop(Stop {
                status: Status::SessionMismatch,
                lines: vec![first, l],
                message: format!("line {l}: the active chain returns to session {} after leaving it (only one-way lineages are accepted)", run.session),
                recovery: recover.clone(),
            });
            return;
        }
        seen.insert(&run.session, line(s, p.chain[run.start as usize]));
    }
    // The client ignores records' sessionIds (the file name decides): under `client` the pointer is projected anew.
    if p.preserve_mode == PreserveMode::ActiveChain && opts.leaf_policy != LeafPolicy::Client && p.pointer != NONE {
        let pr = &s.records[p.pointer as usize];
        if let (Some(ps), Some(fin)) = (pr.session_id.map(|v| s.str(v)), p.runs.last()) {
            if ps != fin.session {
                p.stop(Stop {
                    status: Status::SessionMismatch,
                    lines: vec![pr.line, line(s, p.leaf)],
                    message: format!(
                        "line {}: the last last-prompt is session {ps}, the active chain ends in session {}",
                        pr.line, fin.session
                    ),
                    recovery: vec![format!("--resume-leaf {}", uuid_of(s, p.leaf))],
                });
            }
        }
    }
}
