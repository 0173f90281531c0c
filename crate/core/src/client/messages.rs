//! Which records and blocks the client drops, and how the rest become API messages.
//!
//! Observed (client 2.1.332, each rule checked by resuming a transcript built for it):
//! - only `user` and `assistant` records of the main conversation are sent; sidechain records
//!   and the client's own API-error records are not;
//! - an assistant record that says nothing (thinking blocks, then text blocks that are empty,
//!   whitespace-only or the client's own placeholders, and nothing after them) is dropped whole:
//!   a streamed `"\n\n"` fragment is not sent, and the user records around it then merge; a
//!   thinking block after such a text makes it an ordinary reply, sent as it is;
//! - in the assistant records that stay, text blocks with empty text are dropped;
//!   whitespace-only text beside other blocks is sent as it is;
//! - assistant records sharing `message.id` that follow each other are one message (different
//!   ids never merge); a message of thinking blocks only is dropped;
//! - consecutive user records are one message; a lone record with string content is sent as it
//!   is (even blank), any other user message loses its empty and whitespace-only text blocks
//!   and becomes the text `(no content)` when nothing is left.
//!
//! Thinking blocks are sent whatever their text (empty thinking included). Attachments, which
//! the client renders as reminder texts inside user messages (a user message of their own
//! between two replies), are not modelled here: the messages are the records' own blocks.

use super::blocks::{content, At, Blank, Block, Content};
use crate::scan::{record, Scan};
use rayon::prelude::*;

/// What the client writes when a user message has no block left.
pub const NO_CONTENT: &str = "(no content)";

/// One API message.
#[derive(Clone, Debug)]
pub struct Message {
    pub assistant: bool,
    pub blocks: Vec<Block>,
    /// The records it is built from, in order.
    pub records: Vec<u32>,
    pub lines: Vec<u32>,
    /// Sent as the string content of its one record (a lone user record whose content is a
    /// string), not as blocks.
    pub string: bool,
}

impl Message {
    pub fn tool_use_ids(&self) -> impl Iterator<Item = &str> {
        self.blocks.iter().filter(|b| b.kind == "tool_use").filter_map(|b| b.id.as_deref())
    }
    pub fn tool_result_ids(&self) -> impl Iterator<Item = &str> {
        self.blocks.iter().filter(|b| b.kind == "tool_result").filter_map(|b| b.id.as_deref())
    }
}

/// Why the client sends nothing for a record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dropped {
    /// An assistant record of blank text (and thinking) only.
    BlankText,
    /// An assistant message of thinking blocks only.
    ThinkingOnly,
}

impl Dropped {
    /// The reason's name as the JS API reports it.
    pub fn name(self) -> &'static str {
        match self {
            Dropped::BlankText => "blank-text",
            Dropped::ThinkingOnly => "thinking-only",
        }
    }
}

#[derive(Clone, Debug, Default)]
pub struct View {
    pub messages: Vec<Message>,
    /// Records the client drops whole, with the reason.
    pub dropped: Vec<(u32, Dropped)>,
}

fn is_kind(s: &Scan, r: &record::Record, k: &str) -> bool {
    r.kind.is_some_and(|v| s.str(v) == k)
}

/// A record the client sends (or merges into a neighbour).
pub fn is_sent(s: &Scan, r: &record::Record) -> bool {
    (is_kind(s, r, "assistant") || is_kind(s, r, "user")) && !r.has(record::F_SIDECHAIN) && !r.has(record::F_API_ERROR)
}

/// The API messages the client builds from `records` (the loaded chain after the current
/// compact boundary, in order); `bytes` are the file's bytes.
pub fn api_messages(s: &Scan, bytes: &[u8], records: &[u32]) -> View {
    // Each record's blocks, parsed in parallel (most of a validation's time is this parse).
    let parsed: Vec<Option<Content>> = records
        .par_iter()
        .map(|&i| {
            let r = &s.records[i as usize];
            if is_sent(s, r) {
                content(s, bytes, r)
            } else {
                None
            }
        })
        .collect();
    let mut view = View::default();
    // (message, message.id of an assistant message, string content of a lone user record)
    let mut msgs: Vec<(Message, Option<&str>, bool)> = Vec::new();
    for (&i, c) in records.iter().zip(parsed) {
        let Some(mut c) = c else { continue };
        let r = &s.records[i as usize];
        let assistant = is_kind(s, r, "assistant");
        if assistant {
            // A reply that says nothing is not sent, even when another fragment of its
            // message.id keeps it among the loaded records (see `blocks::ReplyShape`).
            if r.has(record::F_SILENT_REPLY) {
                view.dropped.push((i, Dropped::BlankText));
                continue;
            }
            c.blocks.retain(|b| !(b.is_text() && b.blank == Blank::Empty));
        }
        let mid = if assistant { r.message_id.map(|m| s.str(m)) } else { None };
        // A thinking-only message is dropped once it is complete (a later fragment of the same
        // id may still bring text); the messages on either side may then merge.
        if msgs.last().is_some_and(|(m, id, _)| !(m.assistant && assistant && mid.is_some() && *id == mid)) {
            drop_thinking_only(&mut msgs, &mut view);
        }
        let merge = match msgs.last() {
            Some((m, id, _)) if m.assistant && assistant => mid.is_some() && *id == mid,
            Some((m, _, _)) => !m.assistant && !assistant,
            None => false,
        };
        if merge {
            let (m, _, string) = msgs.last_mut().unwrap();
            m.blocks.extend(c.blocks);
            m.records.push(i);
            m.lines.push(r.line);
            *string = false;
        } else {
            let m = Message { assistant, blocks: c.blocks, records: vec![i], lines: vec![r.line], string: false };
            msgs.push((m, mid, !assistant && c.string));
        }
    }
    drop_thinking_only(&mut msgs, &mut view);
    for (m, _, string) in &mut msgs {
        if m.assistant || *string {
            continue;
        }
        let before = m.blocks.len();
        m.blocks.retain(|b| !(b.is_text() && b.blank.droppable()));
        if m.blocks.is_empty() && before > 0 {
            m.blocks.push(Block {
                kind: "text".into(),
                id: None,
                blank: Blank::No,
                line: m.lines[0],
                at: At::NoContent,
            });
        }
    }
    view.messages = msgs.into_iter().map(|(m, _, string)| Message { string, ..m }).collect();
    view
}

/// Drops the last message when it is an assistant message of thinking blocks only.
fn drop_thinking_only(msgs: &mut Vec<(Message, Option<&str>, bool)>, view: &mut View) {
    let thinking_only = |m: &Message| m.assistant && !m.blocks.is_empty() && m.blocks.iter().all(Block::is_thinking);
    if !msgs.last().is_some_and(|(m, _, _)| thinking_only(m)) {
        return;
    }
    let (m, _, _) = msgs.pop().unwrap();
    view.dropped.extend(m.records.iter().map(|&i| (i, Dropped::ThinkingOnly)));
}

/// What the client sends for a transcript on resume: its leaf, the loaded chain (preserved
/// segment relinked), the records after the last compact boundary on it, and the messages.
#[derive(Clone, Debug, Default)]
pub struct ApiView {
    pub leaf: u32,
    /// The loaded records after the current compact boundary (the boundary excluded), in order.
    pub records: Vec<u32>,
    pub view: View,
}

pub fn api_view(s: &Scan, bytes: &[u8]) -> ApiView {
    let g = crate::graph::Graph::new(s);
    let leaf = crate::client::leaf::choose(&g).leaf;
    let loaded = super::chain::load(&g, bytes, &crate::client::chain::active_chain(&g, leaf)).records;
    let start = loaded.iter().rposition(|&r| super::chain::is_boundary(&g, r)).map_or(0, |k| k + 1);
    let records = loaded[start..].to_vec();
    let view = api_messages(s, bytes, &records);
    ApiView { leaf, records, view }
}
