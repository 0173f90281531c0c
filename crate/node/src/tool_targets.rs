//! `EstateScan.toolTargets`: per tool, its calls and top targets, aggregated natively so that
//! only the small table crosses into JS.

use super::estate::{EstateScan, ToolTargets};
use super::fail;
use claude_jsonl_core::failure::Code;
use claude_jsonl_core::read::tool_targets::{top_targets, TargetKind};
use napi::bindgen_prelude::*;
use napi_derive::napi;

/// What a tool's targets are.
#[napi(string_enum = "lowercase")]
pub enum ToolTargetKind {
    File,
    Command,
    Host,
    Query,
    #[napi(value = "subagent type")]
    SubagentType,
    Pattern,
    Skill,
}

impl From<TargetKind> for ToolTargetKind {
    fn from(k: TargetKind) -> ToolTargetKind {
        match k {
            TargetKind::File => ToolTargetKind::File,
            TargetKind::Command => ToolTargetKind::Command,
            TargetKind::Host => ToolTargetKind::Host,
            TargetKind::Query => ToolTargetKind::Query,
            TargetKind::SubagentType => ToolTargetKind::SubagentType,
            TargetKind::Pattern => ToolTargetKind::Pattern,
            TargetKind::Skill => ToolTargetKind::Skill,
        }
    }
}

/// One tool that has a target: the kind, and the `input` fields that name it, in order.
#[napi(object)]
pub struct ToolTargetRule {
    pub tool: String,
    pub kind: ToolTargetKind,
    pub fields: Vec<String>,
}

/// The core's table of which tools have a target and where it is in their input: `stats
/// --tools` counts by it, `show` names a call's target by it.
#[napi]
pub fn tool_target_rules() -> Vec<ToolTargetRule> {
    claude_jsonl_core::read::tool_targets::RULES
        .iter()
        .map(|&(tool, kind, fields)| ToolTargetRule {
            tool: tool.into(),
            kind: kind.into(),
            fields: fields.iter().map(|f| f.to_string()).collect(),
        })
        .collect()
}

#[napi(object)]
pub struct ToolTargetCount {
    pub target: String,
    pub calls: f64,
}

#[napi(object)]
pub struct ToolTargetsInfo {
    pub tool: String,
    /// Absent for tools without targets.
    pub kind: Option<ToolTargetKind>,
    pub calls: f64,
    pub calls_without_target: f64,
    pub distinct_targets: f64,
    pub top: Vec<ToolTargetCount>,
}

#[napi]
impl EstateScan {
    /// Tool calls of the buckets of the last `usage()` call that `included` marks (one byte per
    /// bucket, nonzero = counted; empty = all), with each tool's `limit` most frequent targets.
    #[napi]
    pub fn tool_targets(&mut self, included: Uint8Array, limit: u32) -> Result<Vec<ToolTargetsInfo>> {
        if let Some(ToolTargets::Pending(thresholds, detail)) = &self.tool_targets {
            let mut r = self.aggregate(thresholds, true, *detail);
            self.tool_targets = Some(ToolTargets::Counted(std::mem::take(&mut r.tool_targets), r.tool_names));
        }
        let Some(ToolTargets::Counted(counts, names)) = &self.tool_targets else {
            return Err(fail(Code::InvalidArgument, "toolTargets needs a usage() call first"));
        };
        Ok(top_targets(counts, names, &included, limit as usize)
            .into_iter()
            .map(|t| ToolTargetsInfo {
                kind: t.kind.map(ToolTargetKind::from),
                tool: t.tool,
                calls: t.calls as f64,
                calls_without_target: t.calls_without_target as f64,
                distinct_targets: t.distinct_targets as f64,
                top: t.top.into_iter().map(|(target, calls)| ToolTargetCount { target, calls: calls as f64 }).collect(),
            })
            .collect())
    }
}
