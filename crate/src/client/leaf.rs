//! The record the client resumes from.
//!
//! The last `last-prompt` record's `leafUuid` decides when it names a leaf. When it names an
//! interior record that lies off the default chain (inside one branch), the client resumes
//! there and the history is truncated; on an assistant record that opened tool calls it
//! resumes from the call's result instead (see [`resume_point`]). Otherwise (no pointer, no
//! `leafUuid`, an unknown uuid, a record with descendants on the default chain) the leaf of the
//! last conversation record in file order decides: file position, not timestamps.

use crate::graph::{Graph, NONE};
use crate::scan::record;

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
}

fn is_kind(g: &Graph, i: u32, k: &str) -> bool {
    let s = g.scan();
    s.records[i as usize].kind.is_some_and(|v| s.str(v) == k)
}

/// The leaf the real client resumes from (module doc).
pub fn choose(g: &Graph) -> LeafChoice {
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
