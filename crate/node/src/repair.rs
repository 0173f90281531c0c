//! The transcript repair (`claude_jsonl_core::repair`): what was mended, what was left, or why
//! nothing is repaired, and the repaired bytes.

use claude_jsonl_core::repair::{self, Refusal};
use napi::bindgen_prelude::*;
use napi_derive::napi;

#[napi(object)]
pub struct RepairMend {
    /// The repair's name (`records-on-one-line`, `torn-line`, `non-json-bytes`,
    /// `lone-surrogates`, `dangling-parent`, `orphan-tool-result`).
    pub kind: String,
    /// 1-based source line.
    pub line: u32,
    /// Byte range edited (for a relink: in the bytes after the line repairs).
    pub start: f64,
    pub end: f64,
    /// The bytes cut or replaced.
    pub removed: Buffer,
    pub message: String,
}

#[napi(object)]
pub struct RepairLeft {
    pub kind: String,
    pub line: u32,
    pub message: String,
}

#[napi(object)]
pub struct RepairRefusal {
    /// `not-transcript`, `unmendable` or `worse`.
    pub kind: String,
    pub line: Option<u32>,
    pub message: String,
}

#[napi(object)]
pub struct TranscriptRepair {
    pub mends: Vec<RepairMend>,
    pub left: Vec<RepairLeft>,
    pub refusal: Option<RepairRefusal>,
    /// The repaired bytes; absent when nothing is mended or the repair is refused.
    pub output: Option<Buffer>,
    pub records: u32,
}

/// Finds the damage in one transcript held in memory and mends what can be mended safely.
#[napi]
pub fn repair_transcript(buffer: &[u8]) -> TranscriptRepair {
    let p = repair::plan(buffer);
    let refusal = p.refusal.map(|r| {
        let message = r.message();
        let (kind, line) = match r {
            Refusal::NotTranscript => ("not-transcript", None),
            Refusal::Unmendable { line, .. } => ("unmendable", Some(line)),
            Refusal::Worse { .. } => ("worse", None),
        };
        RepairRefusal { kind: kind.into(), line, message }
    });
    TranscriptRepair {
        mends: p
            .mends
            .into_iter()
            .map(|m| RepairMend {
                kind: m.kind.name().into(),
                line: m.line,
                start: m.start as f64,
                end: m.end as f64,
                removed: Buffer::from(m.removed),
                message: m.message,
            })
            .collect(),
        left: p
            .left
            .into_iter()
            .map(|l| RepairLeft { kind: l.kind.name().into(), line: l.line, message: l.message })
            .collect(),
        refusal,
        output: p.output.map(Buffer::from),
        records: p.records,
    }
}
