//! The validator: what Claude Code would make of a transcript, file or buffer.

use super::graph::{LeafRule, PointerState};
use super::scan::{type_counts, FirstLine, TypeCount};
use super::{job, Job};
use claude_jsonl_core::failure::{Code, Failure};
use claude_jsonl_core::mapped::MappedFile;
use claude_jsonl_core::scan::{self, Mode};
use claude_jsonl_core::validate;
use napi::bindgen_prelude::*;
use napi_derive::napi;
use std::path::PathBuf;

#[napi(string_enum = "lowercase")]
pub enum Severity {
    Error,
    Warning,
}

impl From<validate::Severity> for Severity {
    fn from(s: validate::Severity) -> Severity {
        match s {
            validate::Severity::Error => Severity::Error,
            validate::Severity::Warning => Severity::Warning,
        }
    }
}

#[napi(object)]
pub struct ValidationFinding {
    pub code: String,
    pub severity: Severity,
    /// 1-based lines involved (at most 20; the message gives full counts).
    pub lines: Vec<u32>,
    pub message: String,
}

#[napi(object)]
pub struct ValidationSession {
    pub session_id: String,
    pub records: u32,
}

/// What the validator found in one transcript, with the scan facts the caller needs to decide
/// whether the file is a Claude Code transcript at all.
#[napi(object)]
pub struct ValidationResult {
    pub bytes: f64,
    pub lines: f64,
    pub records: u32,
    pub first_line: FirstLine,
    pub types: Vec<TypeCount>,
    pub findings: Vec<ValidationFinding>,
    pub leaf_line: Option<u32>,
    pub leaf_rule: LeafRule,
    pub pointer: PointerState,
    pub chain_records: u32,
    pub visible_records: u32,
    pub api_messages: u32,
    pub tool_uses: u32,
    pub compact_boundaries: u32,
    pub sessions: Vec<ValidationSession>,
}

#[napi(object)]
pub struct ValidateOptions {
    /// The session the file is named after: the active chain must end in it.
    pub file_session_id: Option<String>,
}

/// Scans and validates one transcript held in memory.
fn validate_bytes(bytes: &[u8], file_session: Option<&str>) -> ValidationResult {
    let s = scan::scan_bytes_parallel(bytes, Mode::Full);
    let r = validate::validate(&s, bytes, file_session);
    ValidationResult {
        bytes: s.bytes as f64,
        lines: s.counts.lines as f64,
        records: s.records.len() as u32,
        first_line: s.first_line.into(),
        types: type_counts(&s),
        findings: r
            .findings
            .into_iter()
            .map(|f| ValidationFinding {
                code: f.code.to_string(),
                severity: f.severity.into(),
                lines: f.lines,
                message: f.message,
            })
            .collect(),
        leaf_line: r.leaf_line,
        leaf_rule: r.leaf_rule.into(),
        pointer: r.pointer.into(),
        chain_records: r.chain_records,
        visible_records: r.visible_records,
        api_messages: r.api_messages,
        tool_uses: r.tool_uses,
        compact_boundaries: r.compact_boundaries,
        sessions: r
            .sessions
            .into_iter()
            .map(|(session_id, records)| ValidationSession { session_id, records })
            .collect(),
    }
}

/// Validates a transcript held in a Buffer (a candidate before it is written).
#[napi]
pub fn validate_buffer(buffer: &[u8], options: Option<ValidateOptions>) -> ValidationResult {
    validate_bytes(buffer, options.and_then(|o| o.file_session_id).as_deref())
}

/// Validates one transcript file off the JS thread (see `claude_jsonl_core::validate`).
#[napi(ts_return_type = "Promise<ValidationResult>")]
pub fn validate_file(path: String, options: Option<ValidateOptions>) -> AsyncTask<Job<ValidationResult>> {
    let file_session = options.and_then(|o| o.file_session_id);
    job(move || {
        let path = PathBuf::from(path);
        // The file mapped read-only rather than copied: validating a transcript of any size costs
        // its index and graph, not its bytes, in the process's own memory. A file that cannot be
        // mapped (an empty one, another system) is read.
        // A FIFO or a device is refused before it is opened: opening or reading one can block.
        let meta = std::fs::metadata(&path).map_err(|e| Failure::io(&path, &e))?;
        if let Some(what) = claude_jsonl_core::special_file(&meta) {
            return Err(Failure::at(Code::Io, &path, what));
        }
        let file = std::fs::File::open(&path).map_err(|e| Failure::io(&path, &e))?;
        let mapped = MappedFile::open(&file).ok().flatten();
        let owned;
        let bytes: &[u8] = match &mapped {
            Some(m) => m.bytes(),
            None => {
                owned = std::fs::read(&path).map_err(|e| Failure::io(&path, &e))?;
                &owned
            }
        };
        let result = validate_bytes(bytes, file_session.as_deref());
        // A file truncated while mapped reads as zeros from there on: its verdict is not its own.
        if mapped.as_ref().is_some_and(|m| !m.intact()) {
            return Err(Failure::at(Code::Changed, &path, "the file changed while it was read".to_string()));
        }
        Ok(result)
    })
}
