//! The record the client resumes from.
//!
//! The last `last-prompt` record's `leafUuid` decides when it names a leaf. When it names an
//! interior record that lies off the default chain (inside one branch), the client resumes
//! there and the history is truncated; on an assistant record that opened tool calls it
//! resumes from the call's result instead (see [`resume_point`]). Otherwise (no pointer, no
//! `leafUuid`, an unknown uuid, a record with descendants on the default chain) the leaf of the
//! last conversation record in file order decides: file position, not timestamps.
//!
//! The record so named is not always where the client goes on: when the chain ends on replies
//! that say nothing (a streamed `"\n\n"` text, thinking only), the client drops them as it
//! loads the file and resumes from the last record left (see [`past_silent_replies`]).

use crate::graph::{Graph, NONE};
use crate::scan::record;
use rustc_hash::FxHashMap;

/// What chose the leaf.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LeafRule {
    /// The last `last-prompt` record's `leafUuid` names a leaf.
    LastPrompt,
    /// The pointer names a record inside one branch only, off the default chain: the client
    /// resumes from it (or from its tool result) and the history is truncated there.
    LastPromptInterior,
    /// The leaf of the last conversation record in file order.
    LastConversationRecord,
    /// No conversation record at all.
    #[default]
    None,
}

/// What became of the last `last-prompt` pointer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Pointer {
    /// No `last-prompt` record.
    #[default]
    Absent,
    /// The last `last-prompt` has no `leafUuid`.
    NoLeafUuid,
    /// `leafUuid` names no record of the file.
    Unknown,
    /// `leafUuid` names a leaf: used.
    Leaf,
    /// `leafUuid` names a record with descendants on the default chain (stale, written mid-turn,
    /// or the fork point or root of a branched file): ignored.
    InteriorOnChain,
    /// `leafUuid` names an interior record off the default chain: used, truncating.
    InteriorOffChain,
}

impl LeafRule {
    pub fn name(self) -> &'static str {
        match self {
            LeafRule::LastPrompt => "last-prompt",
            LeafRule::LastPromptInterior => "last-prompt-interior",
            LeafRule::LastConversationRecord => "last-conversation-record",
            LeafRule::None => "none",
        }
    }
}

impl Pointer {
    pub fn name(self) -> &'static str {
        match self {
            Pointer::Absent => "absent",
            Pointer::NoLeafUuid => "no-leaf-uuid",
            Pointer::Unknown => "unknown-uuid",
            Pointer::Leaf => "leaf",
            Pointer::InteriorOnChain => "interior-on-chain",
            Pointer::InteriorOffChain => "interior-off-chain",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LeafChoice {
    /// The leaf record, or [`NONE`] when the file has no conversation record.
    pub leaf: u32,
    pub rule: LeafRule,
    pub pointer: Pointer,
    /// The last `last-prompt` record, or [`NONE`].
    pub pointer_record: u32,
    /// The record its `leafUuid` names, or [`NONE`].
    pub pointer_target: u32,
    /// The leaf of the last conversation record in file order (the fallback), or [`NONE`].
    pub default_leaf: u32,
    /// The record the rules above name, before the client drops the silent replies the chain
    /// ends on: `leaf` itself unless it stepped back from them (see [`past_silent_replies`]).
    pub named_leaf: u32,
}

impl LeafChoice {
    /// The client drops the records from `leaf` (exclusive) to `named_leaf`: the chain ended on
    /// replies that say nothing.
    pub fn stepped_back(&self) -> bool {
        self.leaf != self.named_leaf
    }
}

fn is_kind(g: &Graph, i: u32, k: &str) -> bool {
    let s = g.scan();
    s.records[i as usize].kind.is_some_and(|v| s.str(v) == k)
}

/// The leaf the real client resumes from (module doc).
pub fn choose(g: &Graph) -> LeafChoice {
    let mut c = name(g);
    c.named_leaf = c.leaf;
    c.leaf = past_silent_replies(g, c.leaf);
    c
}

/// The leaf the pointer rules name.
fn name(g: &Graph) -> LeafChoice {
    let s = g.scan();
    let default_leaf =
        (0..s.records.len() as u32).rev().find(|&i| g.canonical(i) && g.is_conversation(i)).unwrap_or(NONE);
    let pointer_record = (0..s.records.len() as u32).rev().find(|&i| is_kind(g, i, "last-prompt")).unwrap_or(NONE);
    let fallback = |pointer: Pointer, target: u32| LeafChoice {
        leaf: default_leaf,
        rule: if default_leaf == NONE { LeafRule::None } else { LeafRule::LastConversationRecord },
        pointer,
        pointer_record,
        pointer_target: target,
        default_leaf,
        named_leaf: NONE,
    };
    if pointer_record == NONE {
        return fallback(Pointer::Absent, NONE);
    }
    let Some(leaf_uuid) = s.records[pointer_record as usize].leaf_uuid else {
        return fallback(Pointer::NoLeafUuid, NONE);
    };
    let Some(target) = g.index_of(s.str(leaf_uuid)) else {
        return fallback(Pointer::Unknown, NONE);
    };
    if !g.has_conversation_descendant(target) {
        return LeafChoice {
            leaf: target,
            rule: LeafRule::LastPrompt,
            pointer: Pointer::Leaf,
            pointer_record,
            pointer_target: target,
            default_leaf,
            named_leaf: NONE,
        };
    }
    let on_default = default_leaf != NONE && g.ancestors(default_leaf).0.contains(&target);
    if on_default {
        return fallback(Pointer::InteriorOnChain, target);
    }
    LeafChoice {
        leaf: resume_point(g, target),
        rule: LeafRule::LastPromptInterior,
        pointer: Pointer::InteriorOffChain,
        pointer_record,
        pointer_target: target,
        default_leaf,
        named_leaf: NONE,
    }
}

/// Where the client resumes when an interior pointer names `target`. An assistant record is
/// one fragment of its API message: the client goes down through the later fragments of the
/// same `message.id` (thinking, text, each parallel `tool_use` in a record of its own) and,
/// when the last fragment's calls were answered, resumes from its tool-result child (the last
/// one in file order when several results hang off it, whatever their timestamps). A call with
/// no result child resumes from the fragment itself, which the client then closes with an
/// "interrupted" result. Any other record is the resume point itself.
pub fn resume_point(g: &Graph, target: u32) -> u32 {
    let s = g.scan();
    if !is_kind(g, target, "assistant") {
        return target;
    }
    let conversation = |c: &u32| g.canonical(*c) && !s.records[*c as usize].has(record::F_SIDECHAIN);
    let mut at = target;
    if let Some(mid) = s.records[target as usize].message_id.map(|m| s.str(m)) {
        let mut steps = 0;
        while let Some(&next) =
            g.children(at).iter().filter(|c| conversation(c)).rev().find(|&&c| {
                is_kind(g, c, "assistant") && s.records[c as usize].message_id.is_some_and(|m| s.str(m) == mid)
            })
        {
            at = next;
            steps += 1;
            if steps > 4096 {
                break; // a cycle of fragments: stop where we are
            }
        }
    }
    g.children(at)
        .iter()
        .copied()
        .filter(|c| conversation(c))
        .rfind(|&c| is_kind(g, c, "user") && !s.tables.tool_results(&s.records[c as usize]).is_empty())
        .unwrap_or(at)
}

/// Where the client goes on from a chain that ends at `leaf` (observed on resume). As it loads
/// the chain it drops assistant records that say nothing:
/// - a silent reply (thinking, then texts that are blank or its own placeholders), unless a
///   record of the chain sharing its `message.id` says something (a text beside it, a call);
/// - a reply of thinking only, unless a record sharing its `message.id` holds another block
///   that stays.
///
/// Its new records then hang off the last record of the chain left, passing over the dropped
/// replies, several in a row, and the system records among them (not part of its messages):
/// the prompt before them, a tool result, an attachment, or a call (which it then answers as
/// interrupted). Records after the leaf in the file (a prompt below a blank reply) are not
/// concerned: the leaf is not a silent reply then. Returns `leaf` when nothing is dropped
/// there, or when the whole chain would be.
pub fn past_silent_replies(g: &Graph, leaf: u32) -> u32 {
    if leaf == NONE || !droppable_shape(g, leaf) {
        return leaf;
    }
    let s = g.scan();
    let chain = crate::client::chain::active_chain(g, leaf).records;
    let mut groups: FxHashMap<&str, Vec<u32>> = FxHashMap::default();
    for &i in &chain {
        let r = &s.records[i as usize];
        if let Some(m) = r.message_id.filter(|_| is_kind(g, i, "assistant")) {
            groups.entry(s.str(m)).or_default().push(i);
        }
    }
    let dropped = |i: u32| {
        if !droppable_shape(g, i) {
            return false;
        }
        let r = &s.records[i as usize];
        let alone = [i];
        let group = r.message_id.and_then(|m| groups.get(s.str(m))).map_or(&alone[..], |v| v.as_slice());
        let flags = |m: u32| s.records[m as usize].flags;
        if group.iter().any(|&m| flags(m) & record::F_SAYS_SOMETHING != 0) {
            return false;
        }
        if r.has(record::F_SILENT_REPLY) {
            return true;
        }
        // Thinking only: kept by a fragment of another kind that stays (a silent reply does not
        // stay, and nothing in the group says something).
        !group.iter().any(|&m| {
            let f = flags(m);
            f & (record::F_THINKING_ONLY | record::F_SILENT_REPLY) == 0
                && !s.tables.kinds(&s.records[m as usize]).is_empty()
        })
    };
    let message = |i: u32| ["user", "assistant", "attachment"].iter().any(|k| is_kind(g, i, k));
    chain.iter().rev().copied().find(|&i| message(i) && !(is_kind(g, i, "assistant") && dropped(i))).unwrap_or(leaf)
}

/// What [`past_silent_replies`] did, in one phrase: `named` and `leaf` are the lines of
/// [`LeafChoice::named_leaf`] and [`LeafChoice::leaf`].
pub fn describe_step_back(named: u32, leaf: u32) -> String {
    format!("the chain ends on replies that say nothing (blank text or thinking only, up to line {named}): the client drops them as it loads the file and goes on from line {leaf}")
}

/// An assistant record of the main conversation whose content the client may drop on load.
fn droppable_shape(g: &Graph, i: u32) -> bool {
    let r = &g.scan().records[i as usize];
    is_kind(g, i, "assistant")
        && !r.has(record::F_SIDECHAIN)
        && r.flags & (record::F_SILENT_REPLY | record::F_THINKING_ONLY) != 0
}
