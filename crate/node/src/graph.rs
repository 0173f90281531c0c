//! The uuid/parent graph of one transcript: the leaf the client resumes from and the active
//! chain from it.

use super::fail;
use super::scan::TranscriptIndex;
use claude_jsonl_core::client;
use claude_jsonl_core::failure::Code;
use claude_jsonl_core::graph::{self, Graph, Link};
use napi::bindgen_prelude::*;
use napi_derive::napi;

/// How the leaf was chosen (`manual`: the caller named it).
#[napi(string_enum = "kebab-case")]
pub enum LeafRule {
    LastPrompt,
    LastPromptInterior,
    LastConversationRecord,
    None,
    Manual,
}

impl From<client::LeafRule> for LeafRule {
    fn from(r: client::LeafRule) -> LeafRule {
        match r {
            client::LeafRule::LastPrompt => LeafRule::LastPrompt,
            client::LeafRule::LastPromptInterior => LeafRule::LastPromptInterior,
            client::LeafRule::LastConversationRecord => LeafRule::LastConversationRecord,
            client::LeafRule::None => LeafRule::None,
        }
    }
}

/// What became of the last `last-prompt` pointer.
#[napi(string_enum = "kebab-case")]
pub enum PointerState {
    Absent,
    NoLeafUuid,
    UnknownUuid,
    Leaf,
    InteriorOnChain,
    InteriorOffChain,
}

impl From<client::Pointer> for PointerState {
    fn from(p: client::Pointer) -> PointerState {
        match p {
            client::Pointer::Absent => PointerState::Absent,
            client::Pointer::NoLeafUuid => PointerState::NoLeafUuid,
            client::Pointer::Unknown => PointerState::UnknownUuid,
            client::Pointer::Leaf => PointerState::Leaf,
            client::Pointer::InteriorOnChain => PointerState::InteriorOnChain,
            client::Pointer::InteriorOffChain => PointerState::InteriorOffChain,
        }
    }
}

/// A record index, or None for the graph's "no record".
pub(crate) fn opt_index(i: u32) -> Option<u32> {
    (i != graph::NONE).then_some(i)
}

#[napi(object)]
pub struct ChainOptions {
    /// Also group the records off the chain into branches.
    pub all_branches: Option<bool>,
    /// Use this record as the leaf instead of the client's choice (rule 'manual').
    pub leaf: Option<u32>,
}

/// The leaf the client resumes from and the active chain from it, as record indexes.
#[napi(object)]
pub struct ActiveChain {
    /// Root to leaf, fragments and tool results spliced in where the client puts them.
    pub indexes: Uint32Array,
    /// Per chain record: 0 on the parent chain, 1 spliced assistant fragment, 2 spliced tool result.
    pub origins: Uint8Array,
    pub leaf: Option<u32>,
    pub rule: LeafRule,
    pub pointer: PointerState,
    /// The last last-prompt record and the record its leafUuid names.
    pub pointer_record: Option<u32>,
    pub pointer_target: Option<u32>,
    /// The leaf of the last conversation record in file order.
    pub default_leaf: Option<u32>,
    /// When the pointer names a record on the chain: how many conversation branches fork at or
    /// below it (0: the chain below the pointer is a linear continuation).
    pub branches_below_pointer: Option<u32>,
    /// The walk from the leaf met a parent cycle.
    pub looped: bool,
    /// Records whose uuid a later record reuses (left out of the graph).
    pub duplicate_uuid_records: Uint32Array,
    /// Records whose parentUuid names no record: re-attached by timestamp, or left as roots.
    pub reattached_records: Uint32Array,
    pub dangling_records: Uint32Array,
    pub roots: Uint32Array,
    /// With allBranches: the records off the chain, per branch (branch id = its first record),
    /// with the chain record each branch forks from (0xFFFFFFFF: detached).
    pub branch_indexes: Option<Uint32Array>,
    pub branch_ids: Option<Uint32Array>,
    pub branch_forks: Option<Uint32Array>,
}

/// The client's leaf and the active chain of a scanned transcript (full scan).
#[napi]
pub fn active_chain(index: &TranscriptIndex, options: Option<ChainOptions>) -> Result<ActiveChain> {
    let g = Graph::new(&index.scan);
    let choice = claude_jsonl_core::client::leaf::choose(&g);
    let (leaf, rule) = match options.as_ref().and_then(|o| o.leaf) {
        Some(l) => {
            if l as usize >= index.scan.records.len() || !g.canonical(l) {
                return Err(fail(Code::InvalidArgument, format!("record {l} is not a record with a uuid")));
            }
            (l, LeafRule::Manual)
        }
        None => (choice.leaf, choice.rule.into()),
    };
    let chain = claude_jsonl_core::client::chain::active_chain(&g, leaf);
    let links = |k: Link| Uint32Array::new((0..g.link.len() as u32).filter(|&i| g.link[i as usize] == k).collect());
    let target = choice.pointer_target;
    let pointer_on_chain = target != graph::NONE && chain.records.contains(&target);
    let all_branches = options.as_ref().and_then(|o| o.all_branches).unwrap_or(false);
    // A walk over every record off the chain: only when something asks for the branches.
    let all = (pointer_on_chain || all_branches).then(|| g.branches(&chain.records));
    let branches_below_pointer =
        all.as_ref().filter(|_| pointer_on_chain).map(|a| g.branches_below(&chain.records, a, target).len() as u32);
    let branches = all.filter(|_| all_branches);
    Ok(ActiveChain {
        origins: Uint8Array::new(chain.origins.iter().map(|o| *o as u8).collect()),
        indexes: Uint32Array::new(chain.records.clone()),
        leaf: opt_index(leaf),
        rule,
        pointer: choice.pointer.into(),
        pointer_record: opt_index(choice.pointer_record),
        pointer_target: opt_index(choice.pointer_target),
        default_leaf: opt_index(choice.default_leaf),
        branches_below_pointer,
        looped: chain.looped,
        duplicate_uuid_records: Uint32Array::new(g.duplicates.clone()),
        reattached_records: links(Link::Reattached),
        dangling_records: links(Link::Dangling),
        roots: Uint32Array::new(g.roots.clone()),
        branch_indexes: branches.as_ref().map(|b| Uint32Array::new(b.records.clone())),
        branch_ids: branches.as_ref().map(|b| Uint32Array::new(b.branch.clone())),
        branch_forks: branches.as_ref().map(|b| Uint32Array::new(b.fork.clone())),
    })
}
