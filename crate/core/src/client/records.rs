//! The record types Claude Code writes, the key that identifies one API request, and what marks a
//! compaction.

use crate::scan::record::{Record, Str};
use crate::scan::Scan;

/// A compaction boundary: the `system` record of subtype `compact_boundary` the client writes
/// where it compacted (the chain before it is replaced by the summary that follows).
pub fn is_compact_boundary(s: &Scan, r: &Record) -> bool {
    r.kind.is_some_and(|v| s.str(v) == "system") && r.subtype.is_some_and(|v| s.str(v) == "compact_boundary")
}

/// Record `type` values Claude Code writes (the format reference); any other type is passed
/// through untouched and listed as unknown by the doctor.
pub const KNOWN_TYPES: &[&str] = &[
    "assistant",
    "user",
    "progress",
    "system",
    "summary",
    "queue-operation",
    "last-prompt",
    "custom-title",
    "agent-name",
    "agent-color",
    "file-history-snapshot",
    "pr-link",
    "saved_hook_context",
    "ai-title",
    "bridge-session",
    "attachment",
    "permission-mode",
    "mode",
    "atis-latch",
    "continued-in",
    "tag",
];

pub fn is_known_type(kind: &str) -> bool {
    KNOWN_TYPES.contains(&kind)
}

/// A file is a Claude Code transcript when at least one record has a Claude Code type.
pub fn is_claude_code<'a>(mut types: impl Iterator<Item = &'a str>) -> bool {
    types.any(is_known_type)
}

/// The key of the API request an assistant entry belongs to: its `requestId`, else its
/// `message.id`. The client writes one entry per streamed content block, each repeating the
/// request's usage, so entries sharing this key are one request (counted once).
pub fn request_key(r: &Record) -> Option<Str> {
    r.request_id.or(r.message_id)
}

/// A subagent's transcript: every conversation record names the agent (`agentId`), which a
/// session's own records never do (its records may not be marked `isSidechain` in newer
/// layouts). The client does not resume it as a session.
pub fn subagent_only(g: &crate::graph::Graph) -> bool {
    let scan = g.scan();
    let mut conversation = (0..scan.records.len() as u32).filter(|&i| g.is_conversation(i)).peekable();
    conversation.peek().is_some() && conversation.all(|i| scan.records[i as usize].agent_id.is_some())
}
