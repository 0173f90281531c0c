//! The API messages as the client builds them: tool pairing, tool ids, blank text, thinking order.

use super::codes::Code;
use super::Ctx;
use crate::client::blocks::{Blank, Block};
use crate::client::messages::{api_messages, Message};
use rustc_hash::{FxHashMap, FxHashSet};

/// Builds the visible chain records into API messages the way the client does (the records
/// and blocks it drops left out), then checks tool pairing, tool id uniqueness, blank text and
/// thinking order. Returns (messages, tool uses).
pub(super) fn check_api(cx: &mut Ctx, visible: &[u32]) -> (u32, u32) {
    let msgs: Vec<Message> = api_messages(cx.scan, cx.bytes, visible).messages;
    let mut tool_ids: FxHashMap<String, Vec<u32>> = FxHashMap::default();
    let mut tool_uses = 0u32;
    for m in &msgs {
        if m.blocks.is_empty() {
            let who = if m.assistant { "an assistant" } else { "a user" };
            let l = m.lines.clone();
            cx.push(Code::EmptyMessage, l, format!("line {}: {who} message with no content block", m.lines[0]));
        }
        for b in &m.blocks {
            if b.blank != Blank::No {
                let who = if m.assistant { "assistant" } else { "user" };
                cx.push(
                    Code::EmptyTextBlock,
                    vec![b.line],
                    format!("line {}: empty or whitespace-only text block in a {who} message", b.line),
                );
            }
        }
        if !m.assistant {
            continue;
        }
        let thinking = |b: &Block| b.kind == "thinking" || b.kind == "redacted_thinking";
        if m.blocks.iter().any(thinking) && !m.blocks.first().is_some_and(thinking) {
            let first_thinking = m.blocks.iter().find(|b| thinking(b)).map_or(0, |b| b.line);
            let mut lines = vec![m.lines[0], first_thinking];
            lines.dedup();
            cx.push(
                Code::ThinkingNotFirst,
                lines,
                format!(
                    "line {}: an assistant message with thinking does not start with it (first block: {})",
                    m.lines[0], m.blocks[0].kind
                ),
            );
        }
        for b in m.blocks.iter().filter(|b| b.kind == "tool_use" || b.kind == "server_tool_use") {
            tool_uses += 1;
            let id = b.id.clone().unwrap_or_default();
            if id.is_empty() {
                cx.push(Code::EmptyToolUseId, vec![b.line], format!("line {}: tool_use without an id", b.line));
                continue;
            }
            tool_ids.entry(id).or_default().push(b.line);
        }
    }
    let mut dups: Vec<(String, Vec<u32>)> = tool_ids.into_iter().filter(|(_, l)| l.len() > 1).collect();
    dups.sort_by_key(|(_, l)| l[0]);
    // Pairing below skips duplicated ids: their results cannot be told apart, and the graph
    // splices every result of the id after each use; one finding says it all.
    let dup_ids: FxHashSet<String> = dups.iter().map(|(id, _)| id.clone()).collect();
    for (id, lines) in dups {
        let n = lines.len();
        cx.push(Code::DuplicateToolUseId, lines, format!("tool_use id {id} is used {n} times in the conversation"));
    }
    // Pairing: client-side tool uses (server_tool_use is answered inside the same message).
    for (k, m) in msgs.iter().enumerate() {
        let uses: Vec<&Block> = if m.assistant {
            m.blocks
                .iter()
                .filter(|b| {
                    b.kind == "tool_use" && b.id.as_deref().is_some_and(|x| !x.is_empty() && !dup_ids.contains(x))
                })
                .collect()
        } else {
            Vec::new()
        };
        let next = msgs.get(k + 1);
        if m.assistant && !uses.is_empty() {
            match next {
                None => {
                    let lines: Vec<u32> = uses.iter().map(|b| b.line).collect();
                    cx.push(Code::ToolUsePending,
                        lines,
                        format!("the conversation ends on {} tool call(s) without results (an interrupted turn; the client adds an error result on resume)", uses.len()),
                    );
                }
                Some(n) => {
                    let results: Vec<&Block> = if n.assistant {
                        Vec::new()
                    } else {
                        n.blocks.iter().filter(|b| b.kind == "tool_result").collect()
                    };
                    // Within one record, results in the order of the calls (out of that order,
                    // an error). Results written as records of their own are sent in the order
                    // they were written: parallel calls finish in any order, and the client
                    // writes and sends their results so (the API answers such requests).
                    let position = |id: &str| uses.iter().position(|u| u.id.as_deref() == Some(id));
                    let mut lines: Vec<u32> = results.iter().map(|r| r.line).collect();
                    lines.dedup();
                    for line in lines {
                        let order: Vec<usize> = results
                            .iter()
                            .filter(|r| r.line == line)
                            .filter_map(|r| r.id.as_deref().and_then(position))
                            .collect();
                        if order.windows(2).any(|w| w[0] > w[1]) {
                            cx.push(
                                Code::ToolResultOrder,
                                vec![line],
                                format!("line {line}: the tool_results are not in the order of their tool_use calls"),
                            );
                        }
                    }
                    for u in &uses {
                        let id = u.id.as_deref().unwrap_or("");
                        let answers: Vec<u32> =
                            results.iter().filter(|r| r.id.as_deref() == Some(id)).map(|r| r.line).collect();
                        match answers.len() {
                            0 => cx.push(
                                Code::ToolUseWithoutResult,
                                vec![u.line],
                                format!("line {}: tool_use {id} has no tool_result in the next user message", u.line),
                            ),
                            1 => {}
                            n => {
                                let mut lines = vec![u.line];
                                lines.extend(&answers);
                                cx.push(
                                    Code::DuplicateToolResult,
                                    lines,
                                    format!("line {}: tool_use {id} has {n} tool_results", u.line),
                                )
                            }
                        }
                    }
                }
            }
        }
        if !m.assistant {
            let prev_uses: FxHashSet<&str> = match k.checked_sub(1).map(|p| &msgs[p]) {
                Some(p) if p.assistant => {
                    p.blocks.iter().filter(|b| b.kind == "tool_use").filter_map(|b| b.id.as_deref()).collect()
                }
                _ => FxHashSet::default(),
            };
            for r in m.blocks.iter().filter(|b| b.kind == "tool_result") {
                let id = r.id.as_deref().unwrap_or("");
                if !prev_uses.contains(id) && !dup_ids.contains(id) {
                    cx.push(
                        Code::OrphanToolResult,
                        vec![r.line],
                        format!(
                            "line {}: tool_result for {} answers no tool_use of the preceding assistant message",
                            r.line,
                            if id.is_empty() { "(no id)" } else { id }
                        ),
                    );
                }
            }
        }
    }
    (msgs.len() as u32, tool_uses)
}
