//! The turns `show` and `timeline` split a chain of records into, decided from the scan's
//! per-record facts alone: a reader that shows the last turns reads only their records.
//!
//! A turn starts at a compaction boundary or at a prompt: a user record with text that is no
//! tool result, meta injection or compaction summary. Consecutive prompt records (command
//! records, caveats, then the prompt) are one message to the API, so they share a turn until
//! something answers it. A turn holds something to show when it has an item (a prompt, meta
//! text, a reply, a tool call or result not shown before, a compaction, a line that is not a
//! record) or a request row not counted before; turns without are not numbered.

use crate::client::records::{is_compact_boundary, request_key};
use crate::scan::record::{F_COMPACT_SUMMARY, F_META, F_SHOWS_REPLY, F_SHOWS_TEXT};
use crate::scan::tape::as_str;
use crate::scan::Scan;
use rustc_hash::FxHashSet as HashSet;
use simd_json::{Node, StaticNode};

/// JavaScript's `trim` whitespace (show prints with it): Rust's `char::is_whitespace` also
/// counts U+0085 and not U+FEFF.
fn js_blank(s: &str) -> bool {
    s.chars().all(|c| {
        matches!(
            c,
            '\u{9}'..='\u{d}'
                | ' '
                | '\u{a0}'
                | '\u{1680}'
                | '\u{2000}'..='\u{200a}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{202f}'
                | '\u{205f}'
                | '\u{3000}'
                | '\u{feff}'
        )
    })
}

/// The show flags of a string `message.content`.
pub fn string_flags(s: &str) -> u16 {
    let mut f = 0;
    if !s.is_empty() {
        f |= F_SHOWS_TEXT;
    }
    if !js_blank(s) {
        f |= F_SHOWS_REPLY;
    }
    f
}

/// The show flags of one content block of type `kind`: `text_at` is where its `text` value is
/// on the tape, `thinking` its `thinking` when a string.
pub fn block_flags(kind: &str, tape: &[Node], text_at: Option<usize>, thinking: Option<&str>) -> u16 {
    match kind {
        "text" => match text_at.and_then(|at| tape.get(at).map(|n| (at, n))) {
            Some((_, Node::String(s))) => string_flags(s),
            None | Some((_, Node::Static(StaticNode::Null))) => 0,
            // Show prints a text that is not a string as JavaScript's String() does: an empty
            // array, or one holding null or "", prints nothing.
            Some((_, Node::Array { len: 0, .. })) => 0,
            Some((at, Node::Array { len: 1, .. })) => match tape.get(at + 1) {
                Some(Node::Static(StaticNode::Null)) | Some(Node::Array { len: 0, .. }) => 0,
                _ if as_str(tape, at + 1) == Some("") => 0,
                _ => F_SHOWS_TEXT,
            },
            Some(_) => F_SHOWS_TEXT,
        },
        "image" | "document" => F_SHOWS_TEXT,
        "thinking" if thinking.is_some_and(|t| !t.is_empty()) => F_SHOWS_REPLY,
        _ => 0,
    }
}

/// Where each record of a chain and each line that is not a record falls among the turns.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Turns {
    /// Per position of the chain: its turn (0-based; turns without content count too).
    pub turn: Vec<u32>,
    /// Per bad line given: the turn its item lands in.
    pub bad: Vec<u32>,
    /// Per turn: it holds something to show.
    pub content: Vec<bool>,
    /// With `last`: the first position of the chain in the last `last` turns with content (the
    /// chain's length when none is kept); 0 without.
    pub from: u32,
    /// Tool calls (id, name), tool results (ids) and requests (keys) already shown before `from`
    /// that records from `from` on refer to again: shown again, they would be duplicates.
    pub prior_tools: Vec<(String, String)>,
    pub prior_results: Vec<String>,
    pub prior_requests: Vec<String>,
}

#[derive(Default)]
struct Open {
    /// It was opened by a prompt.
    prompt: bool,
    /// Something after the prompt answered it.
    answered: bool,
}

/// The request a record's row is keyed by: its key, else its line.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Req<'s> {
    Key(&'s str),
    Line(u32),
}

/// What one record adds: tool calls (id, name), tool result ids, its request.
struct Refs<'s> {
    tools: Vec<(&'s str, &'s str)>,
    results: Vec<&'s str>,
    request: Option<Req<'s>>,
}

fn refs<'s>(s: &'s Scan, i: u32, counted: &[u32]) -> Refs<'s> {
    let r = &s.records[i as usize];
    let t = &s.tables;
    let kind = r.kind.map(|k| s.str(k));
    let mut out = Refs { tools: Vec::new(), results: Vec::new(), request: None };
    if kind == Some("assistant") {
        // The scan keeps server tool calls among the tool uses; show lists `tool_use` blocks.
        let mut uses = t.tool_uses(r).iter();
        for k in t.kinds(r).iter().map(|&k| s.str(k)) {
            if k == "tool_use" || k == "server_tool_use" {
                if let Some(u) = uses.next() {
                    if k == "tool_use" {
                        out.tools.push((s.str(u.id), s.str(u.name)));
                    }
                }
            }
        }
        if counted.get(i as usize).is_some_and(|&c| c != u32::MAX) {
            out.request = Some(request_key(r).map_or(Req::Line(r.line), |k| Req::Key(s.str(k))));
        }
    } else if kind == Some("user") {
        out.results = t.tool_results(r).iter().map(|&x| s.str(x)).collect();
        // A result without a string id is keyed by the empty id.
        let blocks = t.kinds(r).iter().filter(|&&k| s.str(k) == "tool_result").count();
        if blocks > out.results.len() {
            out.results.push("");
        }
    }
    out
}

/// The turns of `chain` (record indexes of `s`, a full scan, in chain order). `bad_lines` are
/// the 1-based lines (ascending) shown as lines that are not records, each in the turn of the
/// chain record before the first one below it, or in the last turn; `counted` is
/// [`crate::read::usage::counted_entries`]. With `last`, also where the last `last` turns with
/// content start and what they need to know of the turns before.
pub fn turns(s: &Scan, chain: &[u32], bad_lines: &[u32], counted: &[u32], last: Option<u32>) -> Turns {
    let mut out = Turns { turn: Vec::with_capacity(chain.len()), ..Turns::default() };
    let mut open: Vec<Open> = Vec::new();
    let mut tools_seen = HashSet::default();
    let mut results_seen = HashSet::default();
    let mut requests_seen = HashSet::default();
    let mut bad = bad_lines.iter().peekable();
    fn current(out: &mut Turns, open: &mut Vec<Open>) -> usize {
        if open.is_empty() {
            start(out, open, false);
        }
        open.len() - 1
    }
    fn start(out: &mut Turns, open: &mut Vec<Open>, prompt: bool) -> usize {
        open.push(Open { prompt, answered: false });
        out.content.push(false);
        open.len() - 1
    }
    for &i in chain {
        let r = &s.records[i as usize];
        while bad.next_if(|&&l| l < r.line).is_some() {
            let t = current(&mut out, &mut open);
            out.bad.push(t as u32);
            out.content[t] = true;
        }
        let mut t = current(&mut out, &mut open);
        let kind = r.kind.map(|k| s.str(k));
        // What the record adds to its turn: an item or row (content), one that answers a prompt.
        let (mut shows, mut answers) = (false, false);
        if is_compact_boundary(s, r) {
            t = start(&mut out, &mut open, false);
            (shows, answers) = (true, true);
        } else if kind == Some("user") {
            let x = refs(s, i, counted);
            if r.has(F_COMPACT_SUMMARY) {
                (shows, answers) = (true, true);
            } else if r.has(F_META) {
                shows = true;
            } else if !x.results.is_empty() {
                for id in x.results {
                    if results_seen.insert(id) {
                        (shows, answers) = (true, true);
                    }
                }
            } else if r.has(F_SHOWS_TEXT) {
                if !open[t].prompt || open[t].answered {
                    t = start(&mut out, &mut open, true);
                }
                shows = true;
            }
        } else if kind == Some("assistant") {
            let x = refs(s, i, counted);
            shows = r.has(F_SHOWS_REPLY);
            for (id, _) in x.tools {
                shows |= tools_seen.insert(id);
            }
            if let Some(q) = x.request {
                shows |= requests_seen.insert(q);
            }
            answers = shows;
        }
        out.content[t] |= shows;
        open[t].answered |= answers;
        out.turn.push(t as u32);
    }
    if bad.peek().is_some() {
        let t = current(&mut out, &mut open);
        for _ in bad {
            out.bad.push(t as u32);
            out.content[t] = true;
        }
    }
    if let Some(n) = last {
        let kept: Vec<usize> = (0..out.content.len()).filter(|&k| out.content[k]).collect();
        let n = n as usize;
        let first = match n {
            0 => out.content.len(),
            _ if n >= kept.len() => 0,
            _ => kept[kept.len() - n],
        };
        out.from = out.turn.iter().position(|&t| t as usize >= first).unwrap_or(chain.len()) as u32;
        if out.from > 0 {
            prior(s, chain, counted, &mut out);
        }
    }
    out
}

/// Fills `prior_*`: what records before `from` showed that records from `from` on refer to.
fn prior(s: &Scan, chain: &[u32], counted: &[u32], out: &mut Turns) {
    let from = out.from as usize;
    let (mut tools, mut results, mut requests) = (HashSet::default(), HashSet::default(), HashSet::default());
    for &i in &chain[from..] {
        let x = refs(s, i, counted);
        tools.extend(x.tools.iter().map(|t| t.0));
        // A result names its call's tool.
        tools.extend(x.results.iter().copied());
        results.extend(x.results);
        requests.extend(x.request);
    }
    let (mut tools_seen, mut results_seen, mut requests_seen) =
        (HashSet::default(), HashSet::default(), HashSet::default());
    for &i in &chain[..from] {
        let x = refs(s, i, counted);
        for (id, name) in x.tools {
            if tools_seen.insert(id) && tools.contains(id) {
                out.prior_tools.push((id.to_string(), name.to_string()));
            }
        }
        for id in x.results {
            if results_seen.insert(id) && results.contains(id) {
                out.prior_results.push(id.to_string());
            }
        }
        if let Some(q) = x.request {
            if requests_seen.insert(q) && requests.contains(&q) {
                if let Req::Key(k) = q {
                    out.prior_requests.push(k.to_string());
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::read::usage::counted_entries;
    use crate::scan::{scan_bytes, Mode};

    fn user(content: &str, extra: &str) -> String {
        format!(r#"{{"type":"user"{extra},"message":{{"role":"user","content":{content}}}}}"#)
    }
    fn reply(content: &str, req: &str) -> String {
        format!(
            r#"{{"type":"assistant","requestId":"{req}","message":{{"id":"m_{req}","model":"x","content":{content},"usage":{{"input_tokens":1,"output_tokens":2}}}}}}"#
        )
    }

    fn turns_of(lines: &[String], bad: &[u32], last: Option<u32>) -> Turns {
        let text = lines.join("\n") + "\n";
        let s = scan_bytes(text.as_bytes(), Mode::Full);
        let chain: Vec<u32> = (0..s.records.len() as u32).collect();
        turns(&s, &chain, bad, &counted_entries(&s), last)
    }

    #[test]
    fn prompts_open_turns_and_what_answers_them_closes_the_merge() {
        let lines = [
            user(r#""<command-name>/x</command-name>""#, ""),
            user(r#"[{"type":"image","source":{}}]"#, ""),
            user(r#""meta""#, r#","isMeta":true"#),
            reply(r#"[{"type":"tool_use","id":"t1","name":"Bash","input":{}}]"#, "r1"),
            user(r#"[{"type":"tool_result","tool_use_id":"t1","content":"x"}]"#, ""),
            user(r#""  ""#, ""),
            r#"{"type":"system","subtype":"compact_boundary"}"#.to_string(),
            user(r#""summary""#, r#","isCompactSummary":true"#),
            user(r#"[{"type":"text","text":""}]"#, ""),
            reply(r#"[{"type":"text","text":"\ufeff"}]"#, "r2"),
            user(r#""next""#, ""),
        ];
        let t = turns_of(&lines, &[], None);
        // Turn 0 is opened for nothing (the first record is a prompt) and has no content.
        assert_eq!(t.turn, [1, 1, 1, 1, 1, 2, 3, 3, 3, 3, 4]);
        assert_eq!(t.content, [false, true, true, true, true]);
    }

    #[test]
    fn last_starts_at_the_last_turns_and_names_what_they_meet_again() {
        let lines = [
            user(r#""one""#, ""),
            reply(r#"[{"type":"tool_use","id":"t1","name":"Bash","input":{}}]"#, "r1"),
            user(r#""two""#, ""),
            reply(r#"[{"type":"tool_use","id":"t1","name":"Bash","input":{}}]"#, "r1"),
            user(r#"[{"type":"tool_result","tool_use_id":"t1","content":"x"}]"#, ""),
        ];
        // Line 3 is a bad line: it lands in the turn of line 2's record.
        let t = turns_of(
            &[lines[0].clone(), lines[1].clone(), "oops".into(), lines[2].clone(), lines[3].clone(), lines[4].clone()],
            &[3],
            Some(1),
        );
        assert_eq!(t.turn, [1, 1, 2, 2, 2]);
        assert_eq!(t.bad, [1]);
        assert_eq!(t.from, 2);
        assert_eq!(t.prior_tools, [("t1".to_string(), "Bash".to_string())]);
        assert_eq!(t.prior_requests, ["r1"]);
        assert!(t.prior_results.is_empty());
        // The second turn's call and request were shown before, but its prompt is content.
        assert_eq!(t.content, [false, true, true]);
        assert_eq!(turns_of(&lines, &[], Some(0)).from, 5);
        assert_eq!(turns_of(&lines, &[], Some(2)).from, 0);
    }
}
