//! Compression: a candidate assembled from source spans, token estimates, summary inputs, and
//! giving a large source's pages back between passes.

use super::scan::TranscriptIndex;
use super::{fail, js_error};
use claude_jsonl_core::compress::json_span::MemberEdit;
use claude_jsonl_core::compress::output::{self, Layout, Part};
use claude_jsonl_core::compress::summary_inputs::{self, Limits};
use claude_jsonl_core::failure::{Code, Failure};
use napi::bindgen_prelude::*;
use napi_derive::napi;
use std::path::PathBuf;

/// A top-level member to set on a kept record: its key and its new value as JSON text.
#[napi(object)]
pub struct MemberSet {
    pub key: String,
    pub json: String,
}

/// One piece of a rewritten transcript: exactly one of `records` (source records copied
/// verbatim), `record` + `set` (one source record with members replaced or appended), or `line`
/// (a new JSON line).
#[napi(object)]
pub struct OutputPart {
    pub records: Option<Uint32Array>,
    pub record: Option<u32>,
    pub set: Option<Vec<MemberSet>>,
    pub line: Option<String>,
}

/// The parts as the assembler takes them (exactly one of records, record+set, line each).
fn output_parts(parts: &[OutputPart]) -> Result<Vec<Part<'_>>> {
    parts
        .iter()
        .map(|p| match (&p.records, p.record, &p.set, &p.line) {
            (Some(rs), None, None, None) => Ok(Part::Records(rs.as_ref())),
            (None, Some(record), Some(set), None) => Ok(Part::Edited {
                record,
                edits: set.iter().map(|m| MemberEdit { key: &m.key, json: m.json.as_bytes() }).collect(),
            }),
            (None, None, None, Some(line)) => Ok(Part::Line(line.as_bytes())),
            _ => Err(fail(Code::InvalidArgument, "an output part needs exactly one of records, record+set, line")),
        })
        .collect()
}

/// Builds a transcript from `source` (the bytes `index` was scanned from) and the parts, in
/// order, with the source's BOM and line terminator. Kept bytes are copied, never re-serialised.
#[napi]
pub fn assemble_transcript(source: &[u8], index: &TranscriptIndex, parts: Vec<OutputPart>) -> Result<Buffer> {
    if index.scan.bytes != source.len() as u64 {
        return Err(fail(Code::InvalidArgument, "the source buffer is not the one the index was scanned from"));
    }
    let parts = output_parts(&parts)?;
    let layout = Layout::of(&index.scan);
    let out = if claude_jsonl_core::mapped::intact_at(source.as_ptr()).is_some() {
        output::assemble_from(output::ReleasingMapped::new(source), &index.scan, &parts, &layout)
    } else {
        output::assemble(source, &index.scan, &parts, &layout)
    };
    out.map(Buffer::from).map_err(|e| js_error(e.into()))
}

/// `assembleTranscript` with the source records read from the file at `path` (the file `index`
/// was scanned from) instead of a buffer: the kept records are read straight into the output.
#[napi]
pub fn assemble_transcript_from_file(path: String, index: &TranscriptIndex, parts: Vec<OutputPart>) -> Result<Buffer> {
    let path = PathBuf::from(path);
    let file = std::fs::File::open(&path).map_err(|e| js_error(Failure::io(&path, &e)))?;
    if file.metadata().map(|m| m.len()).ok() != Some(index.scan.bytes) {
        return Err(js_error(Failure::at(Code::Changed, &path, "the file is not the one the index was scanned from")));
    }
    output::assemble_from(&file, &index.scan, &output_parts(&parts)?, &Layout::of(&index.scan))
        .map(Buffer::from)
        .map_err(|e| js_error(Failure::from(e).in_file(&path)))
}

/// uuid and parentUuid of some records, in one call (instead of one `record()` object each).
#[napi(object)]
pub struct RecordLinks {
    pub uuids: Vec<Option<String>>,
    pub parents: Vec<Option<String>>,
}

#[napi]
pub fn record_links(index: &TranscriptIndex, records: Uint32Array) -> Result<RecordLinks> {
    let s = &index.scan;
    let mut uuids = Vec::with_capacity(records.len());
    let mut parents = Vec::with_capacity(records.len());
    for &i in records.iter() {
        let r = s
            .records
            .get(i as usize)
            .ok_or_else(|| fail(Code::InvalidArgument, format!("record {i} does not exist")))?;
        uuids.push(r.uuid.map(|u| s.str(u).to_string()));
        parents.push(r.parent_uuid.map(|u| s.str(u).to_string()));
    }
    Ok(RecordLinks { uuids, parents })
}

/// Local token estimate per record (ASCII 1/4, Han/Kana/Hangul 1.3, non-BMP/symbols/marks 1.5,
/// other 0.8 per character; 12 per user/assistant/attachment record; 1600 per image block) over
/// the complete message payload. `buffer` must be the bytes `index` was scanned from; `records`
/// are record indexes (default: all). Other record types estimate to 0.
#[napi]
pub fn estimate_record_tokens(
    buffer: &[u8],
    index: &TranscriptIndex,
    records: Option<Uint32Array>,
) -> Result<Float64Array> {
    claude_jsonl_core::estimate::record_tokens(&index.scan, buffer, records.as_deref())
        .map(Float64Array::new)
        .map_err(js_error)
}

/// The local token estimate of one text, with no record allowance.
#[napi]
pub fn estimate_text_tokens(text: String) -> f64 {
    claude_jsonl_core::estimate::text_tokens(&text)
}

#[napi(object)]
pub struct SummaryInputOptions {
    /// Strings inside tool inputs are cut to this many characters (400).
    pub string_chars: Option<u32>,
    /// Tool results are cut to this many characters, head and tail kept (1200).
    pub result_chars: Option<u32>,
    /// Results that report no failure (not `is_error`, no `Exit code`/`<tool_use_error>` start)
    /// are cut to this many instead (default: resultChars). 0 leaves their text out.
    pub success_result_chars: Option<u32>,
}

/// The core's limits from the options given (the core's defaults for those left out).
fn limits(o: Option<SummaryInputOptions>) -> Limits {
    let o = o.unwrap_or(SummaryInputOptions { string_chars: None, result_chars: None, success_result_chars: None });
    let n = |v: Option<u32>| v.map(|v| v as usize);
    Limits::with(n(o.string_chars), n(o.result_chars), n(o.success_result_chars))
}

/// What a summary can use from records `records` (in that order), as a JSON array of
/// SummaryRecord (absent values and false flags left out); `buffer` is the bytes `index` was
/// scanned from. One string and one JSON.parse cost far less than Node-API objects.
#[napi]
pub fn summary_records_json(
    buffer: &[u8],
    index: &TranscriptIndex,
    records: Uint32Array,
    options: Option<SummaryInputOptions>,
) -> Result<String> {
    summary_inputs::items_json(&index.scan, buffer, &records, limits(options)).map_err(js_error)
}

/// `summaryRecordsJson` of `records`, their bytes read from the file at `path` (the file
/// `index` was scanned from) rather than from a buffer; null, reading nothing, when the records
/// span more than `max_window` bytes of the file.
#[napi]
pub fn summary_records_json_from_file(
    path: String,
    index: &TranscriptIndex,
    records: Uint32Array,
    max_window: f64,
    options: Option<SummaryInputOptions>,
) -> Result<Option<String>> {
    summary_inputs::items_json_from_file(
        std::path::Path::new(&path),
        &index.scan,
        &records,
        max_window,
        limits(options),
    )
    .map_err(js_error)
}

/// Gives the memory pages wholly inside `buffer` back to the OS (Linux; elsewhere a no-op):
/// they read as zeros until written again. Returns the bytes released. Only for a buffer that
/// owns its memory (a large file read, not a slice of a shared pool).
#[napi]
pub fn release_pages(mut buffer: Buffer) -> f64 {
    claude_jsonl_core::compress::pages::release(buffer.as_mut()) as f64
}
