//! Topology: the leaf a compression starts from, the chain, its strict status, the legal cuts
//! and the six-way partition of one transcript.

use super::graph::{opt_index, PointerState};
use super::scan::TranscriptIndex;
use super::{fail, js_error};
use claude_jsonl_core::failure::Code;
use claude_jsonl_core::topology::{self, options, SetKind};
use napi::bindgen_prelude::*;
use napi_derive::napi;

/// Which leaf a compression starts from (see `claude_jsonl_core::topology`).
#[napi(string_enum = "lowercase")]
pub enum LeafPolicy {
    Strict,
    Client,
    Auto,
}

impl From<LeafPolicy> for topology::LeafPolicy {
    fn from(p: LeafPolicy) -> topology::LeafPolicy {
        match p {
            LeafPolicy::Strict => topology::LeafPolicy::Strict,
            LeafPolicy::Client => topology::LeafPolicy::Client,
            LeafPolicy::Auto => topology::LeafPolicy::Auto,
        }
    }
}

impl From<topology::LeafPolicy> for LeafPolicy {
    fn from(p: topology::LeafPolicy) -> LeafPolicy {
        match p {
            topology::LeafPolicy::Strict => LeafPolicy::Strict,
            topology::LeafPolicy::Client => LeafPolicy::Client,
            topology::LeafPolicy::Auto => LeafPolicy::Auto,
        }
    }
}

/// Which file-history snapshots a compression keeps.
#[napi(string_enum = "kebab-case")]
pub enum CheckpointPolicy {
    ActiveCorrelated,
    PreserveRecent,
    None,
}

impl From<CheckpointPolicy> for topology::CheckpointPolicy {
    fn from(p: CheckpointPolicy) -> topology::CheckpointPolicy {
        match p {
            CheckpointPolicy::ActiveCorrelated => topology::CheckpointPolicy::ActiveCorrelated,
            CheckpointPolicy::PreserveRecent => topology::CheckpointPolicy::PreserveRecent,
            CheckpointPolicy::None => topology::CheckpointPolicy::None,
        }
    }
}

/// Whether the transcript's uuid/parent graph is one the planner can cut (`valid`), and if not,
/// why: no chain, unreadable lines or parent links, duplicate uuids, a parent that is not there, a
/// loop, a child written before its parent, sessions mixed along the chain, or a continuation past
/// the resume pointer that cannot be followed (too long, branching, or unsafe).
#[napi(string_enum = "kebab-case")]
pub enum TopologyStatus {
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

impl From<topology::Status> for TopologyStatus {
    fn from(s: topology::Status) -> TopologyStatus {
        use topology::Status as S;
        match s {
            S::Valid => TopologyStatus::Valid,
            S::Absent => TopologyStatus::Absent,
            S::Malformed => TopologyStatus::Malformed,
            S::MalformedParent => TopologyStatus::MalformedParent,
            S::DuplicateUuid => TopologyStatus::DuplicateUuid,
            S::Dangling => TopologyStatus::Dangling,
            S::Loop => TopologyStatus::Loop,
            S::NonMonotonic => TopologyStatus::NonMonotonic,
            S::SessionMismatch => TopologyStatus::SessionMismatch,
            S::ExtensionLimit => TopologyStatus::ExtensionLimit,
            S::ExtensionBranch => TopologyStatus::ExtensionBranch,
            S::ExtensionUnsafe => TopologyStatus::ExtensionUnsafe,
        }
    }
}

/// How the chain to compress was selected.
#[napi(string_enum)]
pub enum PreserveMode {
    #[napi(value = "active-chain")]
    ActiveChain,
    #[napi(value = "active-chain-manual-override")]
    ManualOverride,
    #[napi(value = "active-chain-client-leaf")]
    ClientLeaf,
    #[napi(value = "physical-tail")]
    PhysicalTail,
}

impl From<topology::PreserveMode> for PreserveMode {
    fn from(m: topology::PreserveMode) -> PreserveMode {
        match m {
            topology::PreserveMode::ActiveChain => PreserveMode::ActiveChain,
            topology::PreserveMode::ManualOverride => PreserveMode::ManualOverride,
            topology::PreserveMode::ClientLeaf => PreserveMode::ClientLeaf,
            topology::PreserveMode::PhysicalTail => PreserveMode::PhysicalTail,
        }
    }
}

/// How to plan: the leaf, the chain's limits, the snapshots kept and the cut.
#[napi(object)]
pub struct PlanOptions {
    /// Default 'auto': the pointer's leaf when it names one; the client's leaf when the pointer
    /// is absent or stale over a linear continuation; otherwise a stop.
    pub leaf_policy: Option<LeafPolicy>,
    /// Resume from this record (uuid): reported as 'active-chain-manual-override'.
    pub resume_leaf: Option<String>,
    /// Legacy compatibility mode: keep the physical tail; no branch isolation.
    pub preserve_physical_tail: Option<bool>,
    /// Tool-result-only records accepted after the pointer (default 0).
    pub max_post_last_prompt_extension: Option<u32>,
    /// Default 'active-correlated'; 'preserve-recent' only with preservePhysicalTail.
    pub checkpoint_policy: Option<CheckpointPolicy>,
    /// Snapshots kept at most (default 80).
    pub max_file_history_snapshots: Option<u32>,
    /// Estimated message tokens of the kept raw suffix over those of the model-visible chain
    /// (what the client sends), in (0, 1] (default 0.30; planning only).
    pub target_ratio: Option<f64>,
    /// The kept raw suffix's ceiling in estimated message tokens (planning only; default none).
    pub max_kept_tokens: Option<f64>,
    /// Records the kept suffix holds at least, when the chain allows (default 10).
    pub min_recent_records: Option<u32>,
    /// Start the kept suffix exactly at this chain position (one of `topology.legalCuts`), e.g.
    /// to narrow the cut for a token ceiling; overrides targetRatio and minRecentRecords. Not
    /// legal: a usage error.
    pub cut_position: Option<u32>,
}

fn topology_options(o: Option<PlanOptions>) -> Result<topology::Options> {
    let mut out = topology::Options::default();
    let Some(o) = o else { return Ok(out) };
    if let Some(v) = o.leaf_policy {
        out.leaf_policy = v.into();
    }
    if let Some(v) = o.checkpoint_policy {
        out.checkpoint_policy = v.into();
    }
    out.resume_leaf = o.resume_leaf;
    out.preserve_physical_tail = o.preserve_physical_tail.unwrap_or(false);
    out.max_extension = o.max_post_last_prompt_extension.unwrap_or(out.max_extension);
    out.max_checkpoints = o.max_file_history_snapshots.unwrap_or(out.max_checkpoints);
    if let Some(r) = o.target_ratio {
        out.target_ratio = options::check_target_ratio(r).map_err(js_error)?;
    }
    out.max_kept_tokens = o.max_kept_tokens;
    out.min_recent_records = o.min_recent_records.unwrap_or(out.min_recent_records);
    out.cut_at = o.cut_position;
    Ok(out)
}

/// The planning options as a person typed them (policy names not yet known to be valid).
#[napi(object)]
pub struct SpelledPlanOptions {
    pub leaf_policy: Option<String>,
    pub checkpoint_policy: Option<String>,
    pub preserve_physical_tail: Option<bool>,
    pub target_ratio: Option<f64>,
}

/// Checks planning options before any file is read: an unknown policy, preserve-recent without
/// the physical tail, or a target ratio outside (0, 1] throws a `usage` failure.
#[napi]
pub fn check_plan_options(options: SpelledPlanOptions) -> Result<()> {
    options::check(&options::Spelled {
        leaf_policy: options.leaf_policy.as_deref(),
        checkpoint_policy: options.checkpoint_policy.as_deref(),
        preserve_physical_tail: options.preserve_physical_tail.unwrap_or(false),
        target_ratio: options.target_ratio,
    })
    .map_err(js_error)
}

#[napi(object)]
pub struct PlanWarning {
    pub code: String,
    pub lines: Vec<u32>,
    pub message: String,
}

#[napi(object)]
pub struct LineageRun {
    pub session_id: String,
    /// Chain positions start..end.
    pub start: u32,
    pub end: u32,
}

/// The topology plan of one transcript (see `claude_jsonl_core::topology`). Indexes are record indexes of
/// the TranscriptIndex; chain positions index `chain`.
#[napi(object)]
pub struct TopologyPlan {
    pub status: TopologyStatus,
    /// One line; empty when valid.
    pub message: String,
    /// 1-based lines.
    pub offending_lines: Vec<u32>,
    /// Options that would recover from the stop.
    pub recovery: Vec<String>,
    pub warnings: Vec<PlanWarning>,
    pub leaf_policy: LeafPolicy,
    pub preserve_mode: PreserveMode,
    pub leaf_reason: String,
    pub leaf: Option<u32>,
    pub leaf_uuid: Option<String>,
    pub strict_leaf: Option<u32>,
    pub client_leaf: Option<u32>,
    pub pointer: Option<u32>,
    pub pointer_state: PointerState,
    pub extension: Uint32Array,
    pub chain: Uint32Array,
    /// Per chain record: 0 parent chain, 1 spliced fragment, 2 spliced tool result, 3 preserved segment.
    pub chain_origins: Uint8Array,
    pub relinked: Uint32Array,
    pub precompact: Uint32Array,
    pub prior_compact: Uint32Array,
    pub segment_live: bool,
    pub lineage_runs: Vec<LineageRun>,
    pub legal_cuts: Uint32Array,
    pub prompt_cuts: Uint8Array,
    pub cut_bytes: Float64Array,
    /// Per legal cut: estimated message tokens of the suffix.
    pub cut_tokens: Float64Array,
    /// Per chain position: the record's estimated message tokens.
    pub chain_tokens: Float64Array,
    /// Estimated message tokens of the model-visible chain (the cut's denominator).
    pub visible_tokens: f64,
    pub cut: Option<u32>,
    pub summary_indexes: Uint32Array,
    pub raw_keep_indexes: Uint32Array,
    pub side_keep_indexes: Uint32Array,
    pub control_projection_indexes: Uint32Array,
    pub excluded_branch_indexes: Uint32Array,
    pub excluded_unattributed_indexes: Uint32Array,
    pub metadata_indexes: Uint32Array,
    pub input_bytes: f64,
    /// Per record: its 1-based line.
    pub record_lines: Uint32Array,
    /// Per record: an index into `type_names` ('' for a record without a type).
    pub record_types: Uint16Array,
    pub type_names: Vec<String>,
}

/// Plans a transcript: leaf, chain, strict status, cut and the six-way partition. `buffer` is
/// the bytes `index` was scanned from. Topology problems come back as a status, not a throw.
#[napi]
pub fn plan_transcript(index: &TranscriptIndex, buffer: &[u8], options: Option<PlanOptions>) -> Result<TopologyPlan> {
    let opts = topology_options(options)?;
    if buffer.len() as u64 != index.scan.bytes {
        return Err(fail(Code::InvalidArgument, "the buffer is not the one the index was scanned from"));
    }
    let p = topology::plan(&index.scan, buffer, &opts);
    if let (Some(c), topology::Status::Valid, None) = (opts.cut_at, p.status, p.cut) {
        let legal: Vec<String> = p.legal_cuts.iter().take(20).map(|c| c.to_string()).collect();
        return Err(fail(
            Code::IllegalCut,
            format!("cut position {c} is not a legal cut (legal chain positions: {})", legal.join(", ")),
        ));
    }
    let s = &index.scan;
    let u32s = |v: &[u32]| Uint32Array::new(v.to_vec());
    let mut names: Vec<(String, u16)> = Vec::new();
    Ok(TopologyPlan {
        status: p.status.into(),
        message: p.message.clone(),
        offending_lines: p.lines.clone(),
        recovery: p.recovery.clone(),
        warnings: p
            .warnings
            .iter()
            .map(|w| PlanWarning { code: w.code.to_string(), lines: w.lines.clone(), message: w.message.clone() })
            .collect(),
        leaf_policy: p.leaf_policy.into(),
        preserve_mode: p.preserve_mode.into(),
        leaf_reason: p.leaf_reason.clone(),
        leaf: opt_index(p.leaf),
        leaf_uuid: opt_index(p.leaf).and_then(|l| s.tables.strings.opt(s.records[l as usize].uuid).map(str::to_string)),
        strict_leaf: opt_index(p.strict_leaf),
        client_leaf: opt_index(p.client_leaf),
        pointer: opt_index(p.pointer),
        pointer_state: p.pointer_state.into(),
        extension: u32s(&p.extension),
        chain: u32s(&p.chain),
        chain_origins: Uint8Array::new(p.origins.clone()),
        relinked: u32s(&p.relinked),
        precompact: u32s(&p.precompact),
        prior_compact: u32s(&p.prior_compact),
        segment_live: p.segment_live,
        lineage_runs: p
            .runs
            .iter()
            .map(|r| LineageRun { session_id: r.session.clone(), start: r.start, end: r.end })
            .collect(),
        legal_cuts: u32s(&p.legal_cuts),
        prompt_cuts: Uint8Array::new(p.prompt_cuts.iter().map(|&b| b as u8).collect()),
        cut_bytes: Float64Array::new(p.cut_bytes.iter().map(|&b| b as f64).collect()),
        cut_tokens: Float64Array::new(p.cut_tokens.clone()),
        chain_tokens: Float64Array::new(p.chain_tokens.clone()),
        visible_tokens: p.visible_tokens,
        cut: p.cut,
        summary_indexes: Uint32Array::new(p.set(SetKind::Summary)),
        raw_keep_indexes: Uint32Array::new(p.set(SetKind::RawKeep)),
        side_keep_indexes: Uint32Array::new(p.set(SetKind::SideKeep)),
        control_projection_indexes: Uint32Array::new(p.set(SetKind::ControlProjection)),
        excluded_branch_indexes: Uint32Array::new(p.set(SetKind::ExcludedBranch)),
        excluded_unattributed_indexes: Uint32Array::new(p.set(SetKind::ExcludedUnattributed)),
        metadata_indexes: u32s(&p.metadata),
        input_bytes: p.input_bytes as f64,
        record_lines: Uint32Array::new(s.records.iter().map(|r| r.line).collect()),
        record_types: Uint16Array::new(
            s.records.iter().map(|r| type_code(&mut names, r.kind.map_or("", |k| s.str(k)))).collect(),
        ),
        type_names: names.into_iter().map(|(n, _)| n).collect(),
    })
}

/// The code of a type name in first-seen order.
fn type_code(names: &mut Vec<(String, u16)>, t: &str) -> u16 {
    match names.iter().find(|(n, _)| n == t) {
        Some((_, c)) => *c,
        None => {
            let c = names.len().min(u16::MAX as usize) as u16;
            names.push((t.to_string(), c));
            c
        }
    }
}
