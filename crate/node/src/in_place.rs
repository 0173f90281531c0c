//! In-place replacement helpers: the atomic path swap and the `Read.pages` repair.

use claude_jsonl_core::compress::read_pages::{self, Refusal, Scope};
use claude_jsonl_core::durable::exchange;
use claude_jsonl_core::io_message;
use napi::bindgen_prelude::*;
use napi_derive::napi;

/// Swaps the files two paths name in one step. Resolves false when the platform or file system
/// cannot (the caller falls back); throws on any other failure (a missing path, permissions).
#[napi]
pub fn exchange_paths(a: String, b: String) -> Result<bool> {
    exchange::exchange(std::path::Path::new(&a), std::path::Path::new(&b))
        .map_err(|e| Error::new(Status::GenericFailure, format!("{a}: {}", io_message(&e))))
}

#[napi(object)]
pub struct ReadPagesPatch {
    pub line: u32,
    pub tool_use_id: String,
    pub file_path: String,
    /// Absolute byte offsets of the deleted member (with its separating comma).
    pub start: f64,
    pub end: f64,
}

#[napi(object)]
pub struct ReadPagesLeft {
    pub line: u32,
    pub tool_use_id: String,
    pub reason: String,
    pub message: String,
}

#[napi(object)]
pub struct ReadPagesRefusal {
    /// `topology` (the strict chain cannot be chosen), `ambiguous` or `invariant`.
    pub kind: String,
    /// The topology status for `topology`.
    pub status: Option<String>,
    pub line: Option<u32>,
    pub message: String,
}

#[napi(object)]
pub struct ReadPagesRepair {
    pub patches: Vec<ReadPagesPatch>,
    pub pending: Vec<ReadPagesLeft>,
    pub ineligible: Vec<ReadPagesLeft>,
    /// The repaired bytes; absent when nothing is patched or the repair is refused.
    pub output: Option<Buffer>,
    pub records: u32,
    pub refusal: Option<ReadPagesRefusal>,
}

fn left(v: Vec<read_pages::Left>) -> Vec<ReadPagesLeft> {
    v.into_iter()
        .map(|l| ReadPagesLeft {
            line: l.line,
            tool_use_id: l.tool_use_id,
            reason: l.reason.to_string(),
            message: l.message,
        })
        .collect()
}

/// Plans, applies and self-checks the `Read.pages` repair of one transcript held in memory.
#[napi]
pub fn repair_read_pages(buffer: &[u8], scope: String) -> Result<ReadPagesRepair> {
    let scope = match scope.as_str() {
        "active" => Scope::Active,
        "all" => Scope::All,
        other => return Err(Error::new(Status::InvalidArg, format!("unknown scope {other:?} (active or all)"))),
    };
    Ok(match read_pages::repair(buffer, scope) {
        Ok(o) => ReadPagesRepair {
            patches: o
                .findings
                .patches
                .into_iter()
                .map(|p| ReadPagesPatch {
                    line: p.line,
                    tool_use_id: p.tool_use_id,
                    file_path: p.file_path,
                    start: p.span.start as f64,
                    end: p.span.end as f64,
                })
                .collect(),
            pending: left(o.findings.pending),
            ineligible: left(o.findings.ineligible),
            output: o.output.map(Buffer::from),
            records: o.records as u32,
            refusal: None,
        },
        Err(r) => {
            let refusal = match r {
                Refusal::Topology { status, message } => {
                    ReadPagesRefusal { kind: "topology".into(), status: Some(status.into()), line: None, message }
                }
                Refusal::Ambiguous { line, message } => {
                    ReadPagesRefusal { kind: "ambiguous".into(), status: None, line: Some(line), message }
                }
                Refusal::Invariant(message) => {
                    ReadPagesRefusal { kind: "invariant".into(), status: None, line: None, message }
                }
            };
            ReadPagesRepair {
                patches: vec![],
                pending: vec![],
                ineligible: vec![],
                output: None,
                records: 0,
                refusal: Some(refusal),
            }
        }
    })
}
