//! The client's rules for JS: the record types Claude Code writes, the request key of each
//! record, and the API messages the client builds on resume (structure only: roles, records,
//! tool ids; the text stays in the file).

use super::scan::TranscriptIndex;
use claude_jsonl_core::client::{messages, records};
use claude_jsonl_core::failure::Code;
use napi::bindgen_prelude::{Int32Array, Uint32Array, Uint8Array};
use napi_derive::napi;

/// Record types Claude Code writes (any other type is passed through and reported as unknown).
#[napi]
pub fn known_record_types() -> Vec<String> {
    records::KNOWN_TYPES.iter().map(|t| t.to_string()).collect()
}

/// Per record: the key of the API request it belongs to (requestId, else message.id), or null.
#[napi]
pub fn request_keys(index: &TranscriptIndex) -> Vec<Option<String>> {
    let s = &index.scan;
    s.records.iter().map(|r| s.tables.strings.opt(records::request_key(r)).map(str::to_string)).collect()
}

/// Per record: the record whose usage counts for the API request it belongs to (the entry with
/// the largest output, as `stats` counts), or -1 for a record that is no counted assistant entry
/// (no usage, `<synthetic>`, a sidechain replay).
#[napi]
pub fn counted_entries(index: &TranscriptIndex) -> Int32Array {
    let v: Vec<i32> = claude_jsonl_core::read::usage::counted_entries(&index.scan)
        .into_iter()
        .map(|r| if r == u32::MAX { -1 } else { r as i32 })
        .collect();
    Int32Array::new(v)
}

/// Per record: the first record of the API message it belongs to (assistant fragments sharing
/// message.id are one message; any other record is its own).
#[napi]
pub fn message_groups(index: &TranscriptIndex) -> Vec<u32> {
    claude_jsonl_core::client::chain::message_groups(&index.scan)
}

/// One API message the client sends, with the records it is built from.
#[napi(object)]
pub struct ClientMessage {
    /// 'user' | 'assistant'
    pub role: String,
    /// The records it is built from, in order.
    pub records: Vec<u32>,
    pub tool_use_ids: Vec<String>,
    pub tool_result_ids: Vec<String>,
}

/// What the client sends the model when it resumes a transcript: the leaf it resumes from, the
/// messages, and the records it drops.
#[napi(object)]
pub struct ClientView {
    pub leaf: Option<u32>,
    pub messages: Vec<ClientMessage>,
    /// Records the client sends nothing for: 'blank-text' | 'thinking-only'.
    pub dropped_records: Vec<u32>,
    pub dropped_reasons: Vec<String>,
}

/// The API messages the client builds when it resumes the transcript (`buffer` holds the bytes
/// `index` was scanned from; full scan).
#[napi]
pub fn client_view(index: &TranscriptIndex, buffer: &[u8]) -> ClientView {
    let v = messages::api_view(&index.scan, buffer);
    ClientView {
        leaf: (v.leaf != claude_jsonl_core::graph::NONE).then_some(v.leaf),
        messages: v
            .view
            .messages
            .iter()
            .map(|m| ClientMessage {
                role: if m.assistant { "assistant" } else { "user" }.into(),
                records: m.records.clone(),
                tool_use_ids: m.tool_use_ids().map(str::to_string).collect(),
                tool_result_ids: m.tool_result_ids().map(str::to_string).collect(),
            })
            .collect(),
        dropped_records: v.view.dropped.iter().map(|d| d.0).collect(),
        dropped_reasons: v.view.dropped.iter().map(|d| d.1.name().to_string()).collect(),
    }
}

/// The turns `show` splits a chain of records into (core: read::turns), decided from the scan.
#[napi(object)]
pub struct ChainTurns {
    /// Per record of the chain: its turn (0-based; turns without content count too).
    pub turns: Uint32Array,
    /// Per bad line given: the turn its item lands in.
    pub bad_turns: Uint32Array,
    /// Per turn: 1 when it holds something to show.
    pub content: Uint8Array,
    /// With `last`: the first position of the chain in the last `last` turns with content (the
    /// chain's length when none is kept); 0 without.
    pub from: u32,
    /// Tool calls (ids and names), tool results and requests shown before `from` that the records
    /// from `from` on refer to again.
    pub prior_tool_ids: Vec<String>,
    pub prior_tool_names: Vec<String>,
    pub prior_result_ids: Vec<String>,
    pub prior_request_keys: Vec<String>,
}

/// The turns of a chain (`records`, record indexes in chain order; full scan). `badLines`: the
/// 1-based lines, ascending, shown as lines that are not records.
#[napi]
pub fn chain_turns(
    index: &TranscriptIndex,
    records: Uint32Array,
    bad_lines: Uint32Array,
    last: Option<u32>,
) -> napi::Result<ChainTurns> {
    let s = &index.scan;
    if records.iter().any(|&i| i as usize >= s.records.len()) {
        return Err(super::fail(Code::InvalidArgument, "a chain record is not a record of the index"));
    }
    let counted = claude_jsonl_core::read::usage::counted_entries(s);
    let t = claude_jsonl_core::read::turns::turns(s, &records, &bad_lines, &counted, last);
    let (ids, names) = t.prior_tools.into_iter().unzip();
    Ok(ChainTurns {
        turns: Uint32Array::new(t.turn),
        bad_turns: Uint32Array::new(t.bad),
        content: Uint8Array::new(t.content.into_iter().map(u8::from).collect()),
        from: t.from,
        prior_tool_ids: ids,
        prior_tool_names: names,
        prior_result_ids: t.prior_results,
        prior_request_keys: t.prior_requests,
    })
}
