//! The rows of the `messages` table (written only when asked for): what a person typed and what
//! the model answered, one row per record that says something. Which text of a record counts is
//! the search index's rule ([`crate::search::extract::record_text`], without tool traffic or
//! thinking), so `find` and the dataset agree on what was said.

use crate::scan::tape::{as_str, field};
use crate::scan::{timestamp, Parser};
use crate::search::extract::{record_text, Fields};

/// One record's text.
#[derive(Clone, Debug, PartialEq)]
pub struct MessageText {
    pub uuid: String,
    /// The record's `timestamp` in ms since the epoch, when it has a readable one.
    pub timestamp_ms: Option<i64>,
    /// `user` or `assistant`.
    pub role: String,
    /// The record's texts, joined by a blank line.
    pub text: String,
}

/// The messages of one transcript's bytes, in file order. Lines that are not JSON objects,
/// records without a uuid and records that say nothing are left out.
pub fn messages(bytes: &[u8]) -> Vec<MessageText> {
    let mut parser = Parser::default();
    let mut out = Vec::new();
    for line in bytes.split(|&b| b == b'\n') {
        if line.is_empty() {
            continue;
        }
        parser.parse_with(line, |tape| {
            let mut texts = Vec::new();
            let stamp = record_text(tape, Fields::default(), &mut texts);
            let texts: Vec<&str> = texts.into_iter().filter(|t| !t.trim().is_empty()).collect();
            if texts.is_empty() {
                return;
            }
            let get = |name: &str| field(tape, 0, name).and_then(|v| as_str(tape, v));
            let (Some(uuid), Some(role)) = (get("uuid"), get("type")) else { return };
            out.push(MessageText {
                uuid: uuid.to_string(),
                timestamp_ms: stamp.timestamp.and_then(|t| timestamp::parse_ms(t.as_bytes())),
                role: role.to_string(),
                text: texts.join("\n\n"),
            });
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prompts_and_replies_without_tool_traffic_or_meta() {
        let src = [
            r#"{"type":"user","uuid":"u1","timestamp":"2026-03-01T10:00:00.000Z","message":{"role":"user","content":"fix the bug"}}"#,
            r#"{"type":"assistant","uuid":"a1","timestamp":"2026-03-01T10:00:01.000Z","message":{"role":"assistant","content":[{"type":"thinking","thinking":"hm"}]}}"#,
            r#"{"type":"assistant","uuid":"a2","timestamp":"2026-03-01T10:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"Done."}]}}"#,
            r#"{"type":"assistant","uuid":"a3","message":{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"Bash","input":{"command":"ls"}}]}}"#,
            r#"{"type":"user","uuid":"u2","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"secret output"}]}}"#,
            r#"{"type":"user","uuid":"u3","isMeta":true,"message":{"role":"user","content":"<command-name>"}}"#,
            "not json",
            r#"{"type":"summary","summary":"x","leafUuid":"a2"}"#,
        ]
        .join("\n");
        let m = messages(src.as_bytes());
        assert_eq!(
            m.iter().map(|m| (m.uuid.as_str(), m.role.as_str(), m.text.as_str())).collect::<Vec<_>>(),
            [("u1", "user", "fix the bug"), ("a2", "assistant", "Done.")]
        );
        assert_eq!(m[0].timestamp_ms, Some(1_772_359_200_000));
    }
}
