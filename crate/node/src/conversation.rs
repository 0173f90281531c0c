//! Node-API conversion for the conversation the client sends on resume, as byte spans (core:
//! client::messages::api_view): which records each API message is built from and where each of
//! its blocks sits in them, so that JS reads the blocks from the file itself. No text crosses.

use super::scan::BadLineInfo;
use super::{job, Job};
use claude_jsonl_core::client::blocks::At;
use claude_jsonl_core::client::messages::{self, NO_CONTENT};
use claude_jsonl_core::failure::Failure;
use claude_jsonl_core::graph::NONE;
use claude_jsonl_core::scan::{scan_bytes_parallel, Mode};
use napi::bindgen_prelude::*;
use napi_derive::napi;
use std::path::PathBuf;

/// One API message: its records (a range of the view's record table) and its blocks.
#[napi(object)]
pub struct ConversationMessageSpans {
    /// 'user' | 'assistant'
    pub role: String,
    /// Its records are `recordStart .. recordStart + recordCount` of the view's record table.
    pub record_start: u32,
    pub record_count: u32,
    /// Sent as its one record's string `message.content`, not as blocks.
    pub string_content: bool,
    /// Per block: which of the message's records holds it (0-based within the message).
    pub block_records: Uint32Array,
    /// Per block: the n-th item of the record's `message.content` that is an object with a string
    /// `type`; -1: a text block of the record's string content; -2: the `noContentText` block.
    pub block_items: Int32Array,
}

/// The conversation as byte spans of the file it was read from.
#[napi(object)]
pub struct ConversationSpans {
    /// The record the client resumes from, when the file has a conversation record.
    pub leaf_line: Option<u32>,
    pub leaf_offset: Option<f64>,
    pub leaf_uuid: Option<String>,
    pub messages: Vec<ConversationMessageSpans>,
    /// The records the messages are built from, in message order: 1-based line, byte offset
    /// (f64: exact to 2^53), length without the line terminator, uuid.
    pub record_lines: Uint32Array,
    pub record_offsets: Float64Array,
    pub record_lengths: Uint32Array,
    pub record_uuids: Vec<Option<String>>,
    /// Records on the chain the client sends nothing for (lines), and why: 'blank-text' | 'thinking-only'.
    pub dropped_lines: Uint32Array,
    pub dropped_reasons: Vec<String>,
    /// Non-blank lines that are not JSON objects: all of them counted, the first few listed.
    pub bad_line_count: f64,
    pub bad_lines: Vec<BadLineInfo>,
    /// The last line is an unterminated fragment that does not parse (a write cut short).
    pub torn_tail: bool,
    /// The text the client sends for a user message left with no block.
    pub no_content_text: String,
    /// The file's size when it was read.
    pub bytes: f64,
}

/// The API messages the client builds when it resumes the transcript at `path`, as spans.
#[napi(ts_return_type = "Promise<ConversationSpans>")]
pub fn conversation_spans(path: String) -> AsyncTask<Job<ConversationSpans>> {
    job(move || {
        let path = PathBuf::from(path);
        let bytes = std::fs::read(&path).map_err(|e| Failure::io(&path, &e))?;
        let s = scan_bytes_parallel(&bytes, Mode::Full);
        let v = messages::api_view(&s, &bytes);
        let str_of = |x| s.tables.strings.opt(x).map(str::to_string);
        let mut records: Vec<u32> = Vec::new();
        let messages = v
            .view
            .messages
            .iter()
            .map(|m| {
                let start = records.len() as u32;
                records.extend(&m.records);
                ConversationMessageSpans {
                    role: if m.assistant { "assistant" } else { "user" }.into(),
                    record_start: start,
                    record_count: m.records.len() as u32,
                    string_content: m.string,
                    block_records: Uint32Array::new(
                        m.blocks
                            .iter()
                            .map(|b| m.lines.iter().position(|&l| l == b.line).unwrap_or(0) as u32)
                            .collect(),
                    ),
                    block_items: Int32Array::new(
                        m.blocks
                            .iter()
                            .map(|b| match b.at {
                                At::Item(n) => n as i32,
                                At::String => -1,
                                At::NoContent => -2,
                            })
                            .collect(),
                    ),
                }
            })
            .collect();
        let rec = |i: u32| &s.records[i as usize];
        let leaf = (v.leaf != NONE).then(|| rec(v.leaf));
        Ok(ConversationSpans {
            leaf_line: leaf.map(|r| r.line),
            leaf_offset: leaf.map(|r| r.offset as f64),
            leaf_uuid: leaf.and_then(|r| str_of(r.uuid)),
            messages,
            record_lines: Uint32Array::new(records.iter().map(|&i| rec(i).line).collect()),
            record_offsets: Float64Array::new(records.iter().map(|&i| rec(i).offset as f64).collect()),
            record_lengths: Uint32Array::new(records.iter().map(|&i| rec(i).len).collect()),
            record_uuids: records.iter().map(|&i| str_of(rec(i).uuid)).collect(),
            dropped_lines: Uint32Array::new(v.view.dropped.iter().map(|d| rec(d.0).line).collect()),
            dropped_reasons: v.view.dropped.iter().map(|d| d.1.name().to_string()).collect(),
            bad_line_count: (s.counts.bad_json_lines + s.counts.non_object_lines) as f64,
            bad_lines: s.bad_lines.iter().map(BadLineInfo::from).collect(),
            torn_tail: s.torn_tail,
            no_content_text: NO_CONTENT.to_string(),
            bytes: bytes.len() as f64,
        })
    })
}
