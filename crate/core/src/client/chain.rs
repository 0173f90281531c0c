//! The active chain the client loads from a leaf.
//!
//! The parent walk from the leaf gives the spine. Parallel tool calls are written as several
//! assistant records sharing one `message.id`, each holding one block, with each tool result
//! parented to the record holding its `tool_use`: some fragments and results are therefore off
//! the spine. The client splices them back in: the fragments of one message together (file
//! order), then their results (file order too, whatever the order of the calls). A live preserved segment of the
//! file's last compaction (the client's own `/compact` keeps the last records verbatim and
//! chains later records onto the segment's tail) is relinked after its summary.

use crate::graph::{Graph, NONE};
use crate::scan::record;
use crate::scan::reparse::{as_str, get, parse_line};
use rustc_hash::{FxHashMap, FxHashSet};

/// Why a record is in the active chain.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    /// On the parent chain from the leaf.
    Chain = 0,
    /// An assistant fragment sharing `message.id` with a chain record, off the chain.
    Fragment = 1,
    /// A tool result answering a chain `tool_use`, off the chain.
    ToolResult = 2,
    /// Spliced in from a live `preservedSegment` (not on the parent walk from the leaf).
    Preserved = 3,
}

#[derive(Clone, Debug, Default)]
pub struct Chain {
    /// Root to leaf, with fragments and results spliced where the client puts them.
    pub records: Vec<u32>,
    pub origins: Vec<Origin>,
    /// The walk from the leaf met a record twice (a parent cycle) and stopped there.
    pub looped: bool,
}

fn is_kind(g: &Graph, i: u32, k: &str) -> bool {
    let s = g.scan();
    s.records[i as usize].kind.is_some_and(|v| s.str(v) == k)
}

/// The nearest assistant record at or above `i` (through tool results, progress records and
/// the like), bounded and loop-safe.
fn owning_assistant(g: &Graph, i: u32) -> u32 {
    let mut at = g.parent[i as usize];
    for _ in 0..64 {
        if at == NONE {
            return NONE;
        }
        if is_kind(g, at, "assistant") {
            return at;
        }
        at = g.parent[at as usize];
    }
    NONE
}

/// The active chain from `leaf`, root first, across compaction boundaries, fragments and
/// results spliced in (module doc).
pub fn active_chain(g: &Graph, leaf: u32) -> Chain {
    if leaf == NONE {
        return Chain::default();
    }
    let s = g.scan();
    let (mut base, looped) = g.ancestors(leaf);
    base.reverse();
    let on_base: FxHashSet<u32> = base.iter().copied().collect();
    let mut groups: FxHashMap<&str, Vec<u32>> = FxHashMap::default();
    let mut results: FxHashMap<&str, Vec<u32>> = FxHashMap::default();
    for (i, r) in s.records.iter().enumerate() {
        let i = i as u32;
        if r.has(record::F_SIDECHAIN) || !g.canonical(i) {
            continue;
        }
        if is_kind(g, i, "assistant") {
            if let Some(m) = r.message_id {
                groups.entry(s.str(m)).or_default().push(i);
            }
        } else if is_kind(g, i, "user") {
            for id in s.tables.tool_results(r) {
                results.entry(s.str(*id)).or_default().push(i);
            }
        }
    }
    let mut chain = Chain { looped, ..Chain::default() };
    let mut emitted: FxHashSet<u32> = FxHashSet::default();
    let emit = |chain: &mut Chain, emitted: &mut FxHashSet<u32>, i: u32, spliced: Origin| {
        if emitted.insert(i) {
            chain.records.push(i);
            chain.origins.push(if on_base.contains(&i) { Origin::Chain } else { spliced });
        }
    };
    for &i in &base {
        let r = &s.records[i as usize];
        let group = match r.message_id {
            Some(m) if is_kind(g, i, "assistant") && !r.has(record::F_SIDECHAIN) => groups.get(s.str(m)),
            _ => None,
        };
        let Some(group) = group else {
            emit(&mut chain, &mut emitted, i, Origin::Chain);
            continue;
        };
        if emitted.contains(&i) {
            continue;
        }
        for &f in group {
            emit(&mut chain, &mut emitted, f, Origin::Fragment);
        }
        let members: FxHashSet<u32> = group.iter().copied().collect();
        let mut answers: Vec<u32> = Vec::new();
        for &f in group {
            for tu in s.tables.tool_uses(&s.records[f as usize]) {
                for &res in results.get(s.str(tu.id)).map(|v| v.as_slice()).unwrap_or(&[]) {
                    let owner = owning_assistant(g, res);
                    if on_base.contains(&res) || (owner != NONE && members.contains(&owner)) {
                        answers.push(res);
                    }
                }
            }
        }
        // The client sends the results in the order they were written, not in call order.
        answers.sort_unstable();
        for res in answers {
            emit(&mut chain, &mut emitted, res, Origin::ToolResult);
        }
    }
    chain
}

/// The records of the API message assistant record `i` belongs to: every assistant record of
/// the file sharing its `message.id`, in file order (just `i` without an id, or for any other
/// record).
pub fn message_fragments(g: &Graph, i: u32) -> Vec<u32> {
    let s = g.scan();
    let Some(m) = s.records[i as usize].message_id.filter(|_| is_kind(g, i, "assistant")).map(|m| s.str(m)) else {
        return vec![i];
    };
    (0..s.records.len() as u32)
        .filter(|&k| {
            g.canonical(k)
                && is_kind(g, k, "assistant")
                && s.records[k as usize].message_id.is_some_and(|x| s.str(x) == m)
        })
        .collect()
}

/// Per record: the first record of the API message it belongs to. Assistant records sharing
/// `message.id` are one message (the fragments of a streamed response); every other record,
/// and an assistant record without an id, is its own.
pub fn message_groups(s: &crate::scan::Scan) -> Vec<u32> {
    let mut first: FxHashMap<&str, u32> = FxHashMap::default();
    (0..s.records.len() as u32)
        .map(|i| {
            let r = &s.records[i as usize];
            match r.message_id.filter(|_| r.kind.is_some_and(|k| s.str(k) == "assistant")) {
                Some(m) => *first.entry(s.str(m)).or_insert(i),
                None => i,
            }
        })
        .collect()
}

pub fn is_boundary(g: &Graph, i: u32) -> bool {
    let s = g.scan();
    super::records::is_compact_boundary(s, &s.records[i as usize])
}

pub fn is_summary(g: &Graph, i: u32) -> bool {
    is_kind(g, i, "user") && g.scan().records[i as usize].has(record::F_COMPACT_SUMMARY)
}

/// The file's last compact boundary (main conversation, not superseded by a reused uuid).
pub fn last_boundary(g: &Graph) -> Option<u32> {
    let s = g.scan();
    (0..s.records.len() as u32)
        .rev()
        .find(|&i| g.canonical(i) && is_boundary(g, i) && !s.records[i as usize].has(record::F_SIDECHAIN))
}

/// The summary children of boundary `b`.
pub fn summaries_of(g: &Graph, b: u32) -> Vec<u32> {
    g.children(b).iter().copied().filter(|&c| is_summary(g, c)).collect()
}

/// Boundary `b`'s `compactMetadata.preservedSegment`, when the client applies it: its anchor
/// is `b`'s summary `sm` and a parent walk from its tail reaches its head. Returns (head, tail).
pub fn preserved_segment(g: &Graph, bytes: &[u8], b: u32, sm: u32) -> Option<(u32, u32)> {
    let v = parse_line(bytes, &g.scan().records[b as usize])?;
    let seg = get(&v, "compactMetadata").and_then(|m| get(m, "preservedSegment"))?;
    let at = |k: &str| as_str(get(seg, k)).and_then(|u| g.index_of(u));
    let (head, anchor, tail) = (at("headUuid")?, at("anchorUuid")?, at("tailUuid")?);
    (anchor == sm && g.ancestors(tail).0.contains(&head)).then_some((head, tail))
}

/// The chain as the client loads it, a live preserved segment applied.
#[derive(Clone, Debug, Default)]
pub struct Loaded {
    pub records: Vec<u32>,
    pub origins: Vec<Origin>,
    /// Records of the active chain the relinking leaves out (the history before the segment).
    pub dropped: Vec<u32>,
    /// Records the client links to another parent than their `parentUuid` (the segment's
    /// head, the summary's other children): a rewriter keeping them must relink them.
    pub relinked: Vec<u32>,
    /// A preserved segment was applied.
    pub segment_live: bool,
}

/// Applies the file's last compaction's preserved segment to `chain`, as the client does:
/// - records written after the compaction chain onto the tail, so the walk from the leaf
///   reaches the head through the old history: that history is dropped and the loaded chain is
///   boundary, summary, head … leaf;
/// - records hanging off the summary instead are moved after the tail: boundary, summary,
///   head … tail, then the summary's continuation.
pub fn load(g: &Graph, bytes: &[u8], chain: &Chain) -> Loaded {
    let mut out = Loaded { records: chain.records.clone(), origins: chain.origins.clone(), ..Loaded::default() };
    let live = last_boundary(g)
        .and_then(|b| summaries_of(g, b).first().map(|&sm| (b, sm)))
        .and_then(|(b, sm)| preserved_segment(g, bytes, b, sm).map(|(head, tail)| (b, sm, head, tail)));
    let Some((b, sm, head, tail)) = live else { return out };
    if let Some(k) = out.records.iter().position(|&r| r == head) {
        out.dropped = out.records[..k].to_vec();
        out.records = [b, sm].into_iter().chain(out.records[k..].iter().copied()).collect();
        out.origins = [Origin::Chain, Origin::Chain].into_iter().chain(out.origins[k..].iter().copied()).collect();
        out.relinked.push(head);
        out.segment_live = true;
    } else if let Some(k) = out.records.iter().position(|&r| r == sm) {
        let (mut seg, _) = g.ancestors(tail);
        if let Some(h) = seg.iter().position(|&r| r == head) {
            seg.truncate(h + 1);
        }
        seg.reverse();
        let rest = out.records.split_off(k + 1);
        let rest_origins = out.origins.split_off(k + 1);
        if let Some(&first) = rest.first() {
            out.relinked.push(first);
        }
        out.relinked.push(head);
        out.origins.extend(std::iter::repeat_n(Origin::Preserved, seg.len()));
        out.records.extend(seg);
        out.records.extend(rest);
        out.origins.extend(rest_origins);
        out.segment_live = true;
    }
    out
}
