//! Which text of a record is searchable: human text (a user record whose `message.content` is a
//! string, or the text blocks of a user record that is neither meta, a compaction summary, nor
//! a tool result) and assistant text blocks; tool traffic (tool_use inputs, tool results) and
//! thinking only when asked for. Every other record type passes through unread.

use crate::scan::tape::{as_str as string, entries, field, items};
use simd_json::{Node, StaticNode};

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Fields {
    pub tools: bool,
    pub thinking: bool,
}

impl Fields {
    /// A small number naming the field set (index files are kept per set).
    pub fn bits(self) -> u8 {
        self.tools as u8 | (self.thinking as u8) << 1
    }
}

/// Every string value under `tape[at]` (keys excluded; ids, types and image data skipped).
fn strings_in<'i>(tape: &[Node<'i>], at: usize, out: &mut Vec<&'i str>) {
    match tape.get(at) {
        Some(Node::String(s)) => out.push(s),
        Some(Node::Array { .. }) => {
            for v in items(tape, at) {
                strings_in(tape, v, out);
            }
        }
        Some(Node::Object { .. }) => {
            for (k, v) in entries(tape, at) {
                if !matches!(k, "type" | "id" | "tool_use_id" | "data" | "media_type") {
                    strings_in(tape, v, out);
                }
            }
        }
        _ => {}
    }
}

/// A record's `timestamp` and `sessionId`, when present.
#[derive(Clone, Copy, Debug, Default)]
pub struct Stamp<'i> {
    pub timestamp: Option<&'i str>,
    pub session_id: Option<&'i str>,
}

/// What a record contributes: its searchable strings (pushed to `out`), and its stamp.
pub fn record_text<'i>(tape: &[Node<'i>], fields: Fields, out: &mut Vec<&'i str>) -> Stamp<'i> {
    let mut stamp = Stamp::default();
    if !matches!(tape.first(), Some(Node::Object { .. })) {
        return stamp;
    }
    let (mut kind, mut meta, mut message) = (None, false, None);
    for (k, v) in entries(tape, 0) {
        match k {
            "type" => kind = string(tape, v),
            "isMeta" | "isCompactSummary" => meta |= matches!(tape.get(v), Some(Node::Static(StaticNode::Bool(true)))),
            "message" => message = Some(v),
            "timestamp" => stamp.timestamp = string(tape, v),
            "sessionId" => stamp.session_id = string(tape, v),
            _ => {}
        }
    }
    let Some(message) = message else { return stamp };
    let Some(content) = field(tape, message, "content") else { return stamp };
    match kind {
        Some("user") if !meta => match tape.get(content) {
            Some(Node::String(s)) => out.push(s),
            Some(Node::Array { .. }) => {
                let is_tool_result = items(tape, content)
                    .any(|b| field(tape, b, "type").and_then(|t| string(tape, t)) == Some("tool_result"));
                if is_tool_result {
                    if fields.tools {
                        strings_in(tape, content, out);
                    }
                } else {
                    for b in items(tape, content) {
                        if field(tape, b, "type").and_then(|t| string(tape, t)) == Some("text") {
                            if let Some(s) = field(tape, b, "text").and_then(|t| string(tape, t)) {
                                out.push(s);
                            }
                        }
                    }
                }
            }
            _ => {}
        },
        Some("assistant") => {
            for b in items(tape, content) {
                match field(tape, b, "type").and_then(|t| string(tape, t)) {
                    Some("text") => out.extend(field(tape, b, "text").and_then(|t| string(tape, t))),
                    Some("thinking") if fields.thinking => {
                        out.extend(field(tape, b, "thinking").and_then(|t| string(tape, t)))
                    }
                    Some("tool_use" | "server_tool_use") if fields.tools => {
                        if let Some(input) = field(tape, b, "input") {
                            strings_in(tape, input, out);
                        }
                    }
                    _ => {}
                }
            }
        }
        _ => {}
    }
    stamp
}

/// Whether a raw line can hold searchable text for `fields`, decided without parsing. Every
/// searchable string sits under an unescaped `"text"`, `"content"` or `"thinking"` key, and a
/// tool result always carries the unescaped token `"tool_result"` (an unescaped quote cannot
/// occur inside a JSON string, so quoted text fools neither test). Without `--tools` a line
/// holding that token is skipped unparsed: tool results are most of an estate's bytes. The
/// token could also be a value inside a tool_use input; Claude Code writes one content block
/// per assistant record, so such a record holds no text block to lose.
pub fn may_hold_text(line: &[u8], fields: Fields, finders: &Finders) -> bool {
    if fields.tools {
        return true;
    }
    if finders.tool_result.find(line).is_some() {
        return false;
    }
    finders.text.find(line).is_some()
        || finders.content.find(line).is_some()
        || (fields.thinking && finders.thinking.find(line).is_some())
}

/// The lines of a unit (whole lines) that may hold searchable text for `fields`, each with its
/// 1-based line number in the unit and its offset; `lines` counts every line passed so far.
pub struct TextLines<'a> {
    owned: &'a [u8],
    pos: usize,
    pub lines: u32,
    fields: Fields,
    finders: &'a Finders,
}

impl<'a> TextLines<'a> {
    pub fn new(owned: &'a [u8], fields: Fields, finders: &'a Finders) -> Self {
        TextLines { owned, pos: 0, lines: 0, fields, finders }
    }
}

impl<'a> Iterator for TextLines<'a> {
    type Item = (u32, usize, &'a [u8]);
    fn next(&mut self) -> Option<Self::Item> {
        while self.pos < self.owned.len() {
            let at = self.pos;
            let end = memchr::memchr(b'\n', &self.owned[at..]).map_or(self.owned.len(), |p| at + p);
            self.lines += 1;
            self.pos = end + 1;
            let mut line = &self.owned[at..end];
            if let [rest @ .., b'\r'] = line {
                line = rest;
            }
            if line.len() >= 2 && may_hold_text(line, self.fields, self.finders) {
                return Some((self.lines, at, line));
            }
        }
        None
    }
}

pub struct Finders {
    tool_result: memchr::memmem::Finder<'static>,
    text: memchr::memmem::Finder<'static>,
    content: memchr::memmem::Finder<'static>,
    thinking: memchr::memmem::Finder<'static>,
}

impl Default for Finders {
    fn default() -> Self {
        Finders {
            tool_result: memchr::memmem::Finder::new(b"\"tool_result\""),
            text: memchr::memmem::Finder::new(b"\"text\""),
            content: memchr::memmem::Finder::new(b"\"content\""),
            thinking: memchr::memmem::Finder::new(b"\"thinking\""),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(line: &str, fields: Fields) -> Vec<String> {
        let mut bytes = line.as_bytes().to_vec();
        let tape = simd_json::to_tape(&mut bytes).unwrap();
        let mut out = Vec::new();
        record_text(&tape.0, fields, &mut out);
        out.into_iter().map(String::from).collect()
    }

    const ALL: Fields = Fields { tools: true, thinking: true };

    #[test]
    fn human_text_string_and_blocks() {
        let s = r#"{"type":"user","message":{"role":"user","content":"fix the parser"},"timestamp":"2026-01-01T00:00:00Z"}"#;
        assert_eq!(texts(s, Fields::default()), ["fix the parser"]);
        let b = r#"{"type":"user","message":{"content":[{"type":"text","text":"hello"},{"type":"image","source":{"data":"AAAA"}}]}}"#;
        assert_eq!(texts(b, Fields::default()), ["hello"]);
    }

    #[test]
    fn meta_and_compaction_summaries_are_not_human_text() {
        let meta = r#"{"type":"user","isMeta":true,"message":{"content":"<command>injected</command>"}}"#;
        assert!(texts(meta, ALL).is_empty());
        let summary =
            r#"{"type":"user","isCompactSummary":true,"message":{"content":"This session is being continued"}}"#;
        assert!(texts(summary, ALL).is_empty());
    }

    #[test]
    fn tool_results_only_with_tools() {
        let r = r#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"grep output"}]},{"type":"text","text":"and a note"}]}}"#;
        assert!(texts(r, Fields::default()).is_empty());
        assert_eq!(texts(r, ALL), ["grep output", "and a note"]);
        assert!(!may_hold_text(r.as_bytes(), Fields::default(), &Finders::default()));
    }

    #[test]
    fn assistant_text_thinking_and_tool_inputs() {
        let a = r#"{"type":"assistant","message":{"content":[{"type":"thinking","thinking":"hmm"},{"type":"text","text":"done"},{"type":"tool_use","id":"t","name":"Bash","input":{"command":"ls -la","description":"list"}}]}}"#;
        assert_eq!(texts(a, Fields::default()), ["done"]);
        assert_eq!(texts(a, Fields { thinking: true, tools: false }), ["hmm", "done"]);
        assert_eq!(texts(a, ALL), ["hmm", "done", "ls -la", "list"]);
    }

    #[test]
    fn other_record_types_pass_through() {
        for line in [
            r#"{"type":"summary","summary":"text","leafUuid":"x"}"#,
            r#"{"type":"future-thing","message":{"content":"not a conversation record"}}"#,
            r#"{"type":"progress","data":{"type":"bash_progress","output":"x"}}"#,
        ] {
            assert!(texts(line, ALL).is_empty(), "{line}");
        }
    }

    #[test]
    fn prefilter_keeps_every_line_with_text() {
        let f = Finders::default();
        assert!(may_hold_text(br#"{"type":"user","message":{"content":"hi"}}"#, Fields::default(), &f));
        assert!(may_hold_text(
            br#"{"type": "assistant","message":{"content":[{"type": "text", "text": "x"}]}}"#,
            Fields::default(),
            &f
        ));
        assert!(!may_hold_text(br#"{"type":"file-history-snapshot","snapshot":{}}"#, Fields::default(), &f));
        // Quoted inside a string, the token is escaped and does not fool the filter.
        assert!(may_hold_text(
            br#"{"type":"user","message":{"content":"see \"tool_result\""}}"#,
            Fields::default(),
            &f
        ));
    }
}
