//! Strict topology and the six-way partition: which leaf a compression starts from,
//! the chain the model sees from it, whether that chain is sound enough to rewrite, where the
//! recent raw suffix may start, and which set every record of the file belongs to.
//!
//! Pure over a [`Scan`] and the file's bytes (a few lines are parsed again by their spans:
//! pointer, compact metadata, snapshot ids, roots' parents). Errors are data: a [`Plan`] always
//! comes back, with a [`Status`], the offending lines and the option that recovers.
//!
//! Where the strict rules and the real client (2.1.332, `docs/claude-code-client.md`; each
//! departure is listed in `docs/compress/departures.md`) disagree, this is what was decided:
//! - leaf: `--leaf-policy auto` (default) takes the pointer's leaf when it names one; an absent
//!   pointer, one without `leafUuid`, or a stale one with only a linear continuation below it
//!   gives the client's leaf (reported); any other disagreement stops and names both leaves;
//! - the model-visible chain starts at the last compact boundary on the chain (nothing before it is sent); records
//!   reachable only through `logicalParentUuid` are "precompact" (excluded, never current);
//!   a live `preservedSegment` is spliced in after the summary, as the client does;
//! - a record whose `parentUuid` names nothing and that the client cannot re-attach (the first
//!   record of a file that starts mid-session) is accepted as the chain's root outside `strict`
//!   (the client loads exactly the same history), with a warning; a dangling parent the client
//!   re-attaches by timestamp is `dangling` in every policy;
//! - a stale pointer under `strict` is an extension status (its continuation is not a tool
//!   result closure within `--max-post-last-prompt-extension`), not a silent exclusion;
//! - lines that are not JSON objects are not records: they are counted and warned about; the
//!   partition covers every record index.

mod chain;
mod cut;
mod leaf;
pub mod options;
#[cfg(test)]
mod tests;

use crate::client::{Origin, Pointer};
use crate::graph::{Graph, NONE};
use crate::scan::{record, Scan};

pub use cut::SetKind;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    Valid,
    Absent,
    Malformed,
    MalformedParent,
    DuplicateUuid,
    Dangling,
    Loop,
    NonMonotonic,
    SessionMismatch,
    ExtensionLimit,
    ExtensionBranch,
    ExtensionUnsafe,
}

impl Status {
    pub fn name(self) -> &'static str {
        match self {
            Status::Valid => "valid",
            Status::Absent => "absent",
            Status::Malformed => "malformed",
            Status::MalformedParent => "malformed-parent",
            Status::DuplicateUuid => "duplicate-uuid",
            Status::Dangling => "dangling",
            Status::Loop => "loop",
            Status::NonMonotonic => "non-monotonic",
            Status::SessionMismatch => "session-mismatch",
            Status::ExtensionLimit => "extension-limit",
            Status::ExtensionBranch => "extension-branch",
            Status::ExtensionUnsafe => "extension-unsafe",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LeafPolicy {
    Strict,
    Client,
    Auto,
}

impl LeafPolicy {
    pub fn parse(s: &str) -> Option<LeafPolicy> {
        match s {
            "strict" => Some(LeafPolicy::Strict),
            "client" => Some(LeafPolicy::Client),
            "auto" => Some(LeafPolicy::Auto),
            _ => None,
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            LeafPolicy::Strict => "strict",
            LeafPolicy::Client => "client",
            LeafPolicy::Auto => "auto",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CheckpointPolicy {
    ActiveCorrelated,
    PreserveRecent,
    None,
}

impl CheckpointPolicy {
    pub fn parse(s: &str) -> Option<CheckpointPolicy> {
        match s {
            "active-correlated" => Some(CheckpointPolicy::ActiveCorrelated),
            "preserve-recent" => Some(CheckpointPolicy::PreserveRecent),
            "none" => Some(CheckpointPolicy::None),
            _ => None,
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            CheckpointPolicy::ActiveCorrelated => "active-correlated",
            CheckpointPolicy::PreserveRecent => "preserve-recent",
            CheckpointPolicy::None => "none",
        }
    }
}

/// How the chain to compress was selected (`preserveMode` in the report).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PreserveMode {
    /// The authoritative pointer's leaf (strict active chain).
    ActiveChain,
    /// `--resume-leaf UUID`.
    ManualOverride,
    /// The leaf the real client resumes from, where the pointer does not name it.
    ClientLeaf,
    /// `--preserve-physical-tail`: legacy compatibility, no branch isolation.
    PhysicalTail,
}

impl PreserveMode {
    pub fn name(self) -> &'static str {
        match self {
            PreserveMode::ActiveChain => "active-chain",
            PreserveMode::ManualOverride => "active-chain-manual-override",
            PreserveMode::ClientLeaf => "active-chain-client-leaf",
            PreserveMode::PhysicalTail => "physical-tail",
        }
    }
}

#[derive(Clone, Debug)]
pub struct Options {
    pub leaf_policy: LeafPolicy,
    /// `--resume-leaf UUID`.
    pub resume_leaf: Option<String>,
    pub preserve_physical_tail: bool,
    /// `--max-post-last-prompt-extension N`.
    pub max_extension: u32,
    pub checkpoint_policy: CheckpointPolicy,
    /// Snapshots kept as side records at most (the latest ones).
    pub max_checkpoints: u32,
    /// Estimated message tokens of the kept raw suffix over those of the model-visible chain
    /// (planning only).
    pub target_ratio: f64,
    /// The kept raw suffix holds at most this many estimated message tokens (planning only;
    /// None: no ceiling beyond the ratio).
    pub max_kept_tokens: Option<f64>,
    pub min_recent_records: u32,
    /// Start the kept suffix at this chain position (one of the legal cuts) instead of choosing.
    pub cut_at: Option<u32>,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            leaf_policy: LeafPolicy::Auto,
            resume_leaf: None,
            preserve_physical_tail: false,
            max_extension: 0,
            checkpoint_policy: CheckpointPolicy::ActiveCorrelated,
            max_checkpoints: 80,
            target_ratio: 0.30,
            max_kept_tokens: None,
            min_recent_records: 10,
            cut_at: None,
        }
    }
}

/// Something the plan accepted but a reader should know (code, 1-based lines, one line of text).
#[derive(Clone, Debug)]
pub struct Warning {
    pub code: &'static str,
    pub lines: Vec<u32>,
    pub message: String,
}

/// A blocking outcome: the status, the offending lines, one line of text, the options that apply.
#[derive(Clone, Debug)]
pub struct Stop {
    pub status: Status,
    pub lines: Vec<u32>,
    pub message: String,
    pub recovery: Vec<String>,
}

/// One contiguous sessionId run along the chain: chain positions `start..end`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Run {
    pub session: String,
    pub start: u32,
    pub end: u32,
}

/// Per chain record: why it is there.
pub const ORIGIN_CHAIN: u8 = Origin::Chain as u8;
pub const ORIGIN_FRAGMENT: u8 = Origin::Fragment as u8;
pub const ORIGIN_RESULT: u8 = Origin::ToolResult as u8;
/// Spliced in from a live `preservedSegment` (not on the parent walk from the leaf).
pub const ORIGIN_PRESERVED: u8 = Origin::Preserved as u8;

#[derive(Clone, Debug)]
pub struct Plan {
    pub status: Status,
    /// Empty when valid.
    pub message: String,
    pub lines: Vec<u32>,
    pub recovery: Vec<String>,
    pub warnings: Vec<Warning>,
    pub leaf_policy: LeafPolicy,
    pub preserve_mode: PreserveMode,
    /// Why this leaf (one line).
    pub leaf_reason: String,
    /// Record indexes, or [`NONE`].
    pub leaf: u32,
    /// The leaf under the strict rules (pointer target, extended by an accepted closure).
    pub strict_leaf: u32,
    /// The leaf the real client resumes from.
    pub client_leaf: u32,
    /// The physically last `last-prompt` record.
    pub pointer: u32,
    pub pointer_state: Pointer,
    /// Records accepted after the pointer by `--max-post-last-prompt-extension`.
    pub extension: Vec<u32>,
    /// The model-visible chain, root first: from the last compact boundary on the chain (when
    /// there is one) to the leaf, fragments, results and a live preserved segment spliced in.
    pub chain: Vec<u32>,
    pub origins: Vec<u8>,
    /// Chain records the client links to another parent than their `parentUuid` (a preserved
    /// segment's head, the summary's other children): a rewriter keeping them must relink.
    pub relinked: Vec<u32>,
    /// Records before the chain's start reachable from the leaf only through
    /// `logicalParentUuid`: earlier history, never current.
    pub precompact: Vec<u32>,
    /// The compact boundary and summary at the chain's start, when it starts with them.
    pub prior_compact: Vec<u32>,
    pub segment_live: bool,
    pub runs: Vec<Run>,
    /// Chain positions where the kept suffix may start, ascending.
    pub legal_cuts: Vec<u32>,
    /// Per legal cut: the suffix starts with a human prompt.
    pub prompt_cuts: Vec<bool>,
    /// Bytes of the chain suffix from each legal cut (line terminators included).
    pub cut_bytes: Vec<u64>,
    /// Per chain position: the record's estimated message tokens (what the client sends of it).
    pub chain_tokens: Vec<f64>,
    /// Estimated message tokens of the whole model-visible chain: the cut's denominator.
    pub visible_tokens: f64,
    /// Estimated message tokens of the chain suffix from each legal cut.
    pub cut_tokens: Vec<f64>,
    /// Chain position of the first kept record, or None when no legal cut exists.
    pub cut: Option<u32>,
    /// Per record: its set.
    pub sets: Vec<SetKind>,
    /// Record indexes of the last metadata value per session-scoped type (control projection).
    pub metadata: Vec<u32>,
    pub input_bytes: u64,
}

impl Plan {
    pub fn set(&self, k: SetKind) -> Vec<u32> {
        (0..self.sets.len() as u32).filter(|&i| self.sets[i as usize] == k).collect()
    }
    fn stop(&mut self, s: Stop) {
        if self.status == Status::Valid {
            self.status = s.status;
            self.lines = s.lines;
            self.message = s.message;
            self.recovery = s.recovery;
        }
    }
}

pub(crate) fn kind_is(s: &Scan, i: u32, k: &str) -> bool {
    s.records[i as usize].kind.is_some_and(|v| s.str(v) == k)
}

/// The record's 1-based line; 0 for [`NONE`].
pub(crate) fn line(s: &Scan, i: u32) -> u32 {
    if i == NONE {
        0
    } else {
        s.records[i as usize].line
    }
}

pub(crate) fn uuid_of(s: &Scan, i: u32) -> &str {
    s.tables.strings.opt(s.records[i as usize].uuid).unwrap_or("")
}

pub(crate) fn is_boundary(s: &Scan, i: u32) -> bool {
    crate::client::records::is_compact_boundary(s, &s.records[i as usize])
}

pub(crate) fn is_summary(s: &Scan, i: u32) -> bool {
    kind_is(s, i, "user") && s.records[i as usize].has(record::F_COMPACT_SUMMARY)
}

/// Plans one transcript: `bytes` are the bytes `scan` was made from.
pub fn plan(scan: &Scan, bytes: &[u8], opts: &Options) -> Plan {
    let g = Graph::new(scan);
    let choice = crate::client::leaf::choose(&g);
    let mut p = Plan {
        status: Status::Valid,
        message: String::new(),
        lines: Vec::new(),
        recovery: Vec::new(),
        warnings: Vec::new(),
        leaf_policy: opts.leaf_policy,
        preserve_mode: PreserveMode::ActiveChain,
        leaf_reason: String::new(),
        leaf: NONE,
        strict_leaf: NONE,
        client_leaf: choice.leaf,
        pointer: choice.pointer_record,
        pointer_state: choice.pointer,
        extension: Vec::new(),
        chain: Vec::new(),
        origins: Vec::new(),
        relinked: Vec::new(),
        precompact: Vec::new(),
        prior_compact: Vec::new(),
        segment_live: false,
        runs: Vec::new(),
        legal_cuts: Vec::new(),
        prompt_cuts: Vec::new(),
        cut_bytes: Vec::new(),
        chain_tokens: Vec::new(),
        visible_tokens: 0.0,
        cut_tokens: Vec::new(),
        cut: None,
        sets: Vec::new(),
        metadata: Vec::new(),
        input_bytes: scan.bytes,
    };
    let bad = scan.counts.bad_json_lines + scan.counts.non_object_lines;
    if bad > 0 {
        let lines: Vec<u32> = scan.bad_lines.iter().map(|b| b.line).collect();
        p.warnings.push(Warning {
            code: "unparsed-lines",
            message: format!(
                "{bad} line(s) are not JSON objects: they are no record and are left out (the client skips them)"
            ),
            lines,
        });
    }
    if scan.torn_tail {
        let last = scan.counts.lines as u32;
        p.warnings.push(Warning {
            code: "torn-tail",
            lines: vec![last],
            message: format!("the last line ({last}) is cut short (a write was interrupted): no record, left out"),
        });
    }
    chain::duplicate_uuids(&mut p, scan, &g, bytes, opts);
    leaf::choose(&mut p, &g, bytes, &choice, opts);
    if p.leaf != NONE {
        chain::build(&mut p, &g, bytes);
        if p.preserve_mode != PreserveMode::PhysicalTail {
            chain::check(&mut p, &g, bytes, opts);
        }
        cut::legal_cuts(&mut p, &g, bytes);
        cut::choose(&mut p, opts);
        summarised_defects(&mut p, scan, bytes);
    }
    cut::partition(&mut p, &g, bytes, opts);
    p
}

/// Tool defects on the chain inside the part the summary replaces (an orphan tool result, a
/// call without its result): they never reach the output, so they do not block, but the plan
/// lists them, each under the validator's code, so that they do not vanish without a word.
fn summarised_defects(p: &mut Plan, scan: &Scan, bytes: &[u8]) {
    use crate::validate::Code;
    const TOOL_DEFECTS: &[Code] = &[
        Code::OrphanToolResult,
        Code::ToolUseWithoutResult,
        Code::DuplicateToolResult,
        Code::ToolResultOrder,
        Code::DuplicateToolUseId,
        Code::EmptyToolUseId,
    ];
    let Some(cut) = p.cut else { return };
    let summarised = &p.chain[..cut as usize];
    for f in crate::validate::api_findings(scan, bytes, summarised) {
        if TOOL_DEFECTS.contains(&f.code) {
            p.warnings.push(Warning {
                code: f.code.name(),
                lines: f.lines,
                message: format!("in the summarised part (replaced by the summary, not blocking): {}", f.message),
            });
        }
    }
}
