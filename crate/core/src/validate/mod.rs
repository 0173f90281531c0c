//! The transcript validator: is this file a coherent Claude Code transcript that resumes as one
//! well-formed API conversation?
//!
//! It works over the record index ([`Scan`]) and the record graph ([`Graph`]); the leaf, the
//! active chain and the API messages are the client's (`crate::client`). Only the lines a check
//! needs are parsed again, by their byte spans: the API-visible records of the chain, the
//! compact boundaries and summaries, and lines that contain the name of an internal planning
//! field. The checks are grouped by concern: [`lines`] (the file as lines), [`links`] (uuids
//! and parents), [`sessions`] (the pointer and the sessions), [`compaction`] (compact pairs)
//! and [`api`] (the API messages).
//!
//! Every finding has a stable [`Code`] (with its severity), the 1-based lines involved and one
//! line of text. Errors make a file invalid; warnings are what the real client accepts or
//! repairs and a reader should know about.
//!
//! Where a strict reading and the real client differ, this is what was decided:
//! - the leaf is the client's: a stale pointer (its record has descendants on the default chain)
//!   is ignored as the client ignores it, and reported (`pointer-stale`, a warning);
//! - the API rules apply to what the model is sent: the records after the current compact
//!   boundary, with a live `preservedSegment` relinked as the client does, the records and
//!   blocks the client drops left out;
//! - a tool call left unanswered at the very end is an interrupted turn, a warning;
//! - a compact boundary's `logicalParentUuid` may name a record of an earlier file, a warning;
//! - kept strict although the client repairs them silently: dangling parents (the client
//!   re-attaches by timestamp), duplicate uuids (the later record wins), orphan results (the
//!   client removes them), sessionId returns or a chain ending in another session than the
//!   file's (the client ignores sessionIds), a last-prompt naming no record (the client falls
//!   back as if there were none).

mod api;
pub mod codes;
mod compaction;
mod lines;
mod links;
mod sessions;
#[cfg(test)]
mod tests;

pub use codes::Code;

use crate::graph::{Graph, NONE};
use crate::scan::{record, Scan};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Severity {
    Error,
    Warning,
}

impl Severity {
    pub fn name(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        }
    }
}

#[derive(Clone, Debug)]
pub struct Finding {
    pub code: Code,
    pub severity: Severity,
    pub lines: Vec<u32>,
    pub message: String,
}

#[derive(Debug, Default)]
pub struct Report {
    pub findings: Vec<Finding>,
    /// The leaf the client resumes from (line), how it was chosen, and what became of the pointer.
    pub leaf_line: Option<u32>,
    pub leaf_rule: crate::client::LeafRule,
    pub pointer: crate::client::Pointer,
    /// Records on the active chain (spliced fragments and results included).
    pub chain_records: u32,
    /// Of those, the records after the current compact boundary (what the model sees).
    pub visible_records: u32,
    /// API messages after merging (assistant fragments by message.id, consecutive user records).
    pub api_messages: u32,
    pub tool_uses: u32,
    pub compact_boundaries: u32,
    /// sessionId values with their record counts, in first-seen order.
    pub sessions: Vec<(String, u32)>,
}

/// Fields the compressor keeps for its own planning (the six-way partition of a plan and its
/// compatibility alias). They must never reach a transcript.
pub const INTERNAL_FIELDS: &[&str] = &[
    "summaryIndexes",
    "rawKeepIndexes",
    "sideKeepIndexes",
    "controlProjectionIndexes",
    "excludedBranchIndexes",
    "excludedUnattributedIndexes",
    "omittedIndexes",
];

/// Lines listed per finding at most (the message gives the full count).
const MAX_LINES: usize = 20;

fn kind_is(s: &Scan, r: &record::Record, k: &str) -> bool {
    r.kind.is_some_and(|v| s.str(v) == k)
}

fn is_boundary(s: &Scan, r: &record::Record) -> bool {
    crate::client::records::is_compact_boundary(s, r)
}

fn is_summary(s: &Scan, r: &record::Record) -> bool {
    kind_is(s, r, "user") && r.has(record::F_COMPACT_SUMMARY)
}

fn join(lines: &[u32]) -> String {
    lines.iter().map(|l| l.to_string()).collect::<Vec<_>>().join(", ")
}

struct Ctx<'a> {
    scan: &'a Scan,
    bytes: &'a [u8],
    out: Vec<Finding>,
}

impl Ctx<'_> {
    fn push(&mut self, code: Code, mut lines: Vec<u32>, message: String) {
        lines.sort_unstable();
        lines.dedup();
        lines.truncate(MAX_LINES);
        self.out.push(Finding { code, severity: code.severity(), lines, message });
    }
    fn line(&self, i: u32) -> u32 {
        self.scan.records[i as usize].line
    }
    fn uuid(&self, i: u32) -> &str {
        self.scan.tables.strings.opt(self.scan.records[i as usize].uuid).unwrap_or("")
    }
}

/// Validates one scanned transcript. `bytes` are the file's bytes (record spans index into
/// them); `file_session` is the session the file is named after, when it is named after one.
pub fn validate(scan: &Scan, bytes: &[u8], file_session: Option<&str>) -> Report {
    let mut cx = Ctx { scan, bytes, out: Vec::new() };
    let mut report = Report::default();
    lines::check_lines(&mut cx);
    lines::check_internal_fields(&mut cx);
    let g = Graph::new(scan);
    links::check_uuids(&mut cx, &g);
    let has_conversation = (0..scan.records.len() as u32).any(|i| g.is_conversation(i));
    if has_conversation && crate::client::records::subagent_only(&g) {
        cx.push(
            Code::NoConversation,
            vec![],
            "every conversation record carries an agentId: a subagent transcript, which the client does not resume as a session".into(),
        );
    } else if !has_conversation {
        let why = if scan.records.iter().any(|r| r.has(record::F_SIDECHAIN)) {
            "only sidechain records: a subagent transcript, which the client does not resume as a session"
        } else {
            "no user or assistant record: the client finds no conversation to resume"
        };
        cx.push(Code::NoConversation, vec![], why.into());
    }
    let choice = crate::client::leaf::choose(&g);
    report.leaf_rule = choice.rule;
    report.pointer = choice.pointer;
    report.leaf_line = (choice.leaf != NONE).then(|| cx.line(choice.leaf));
    sessions::check_pointer(&mut cx, &choice);
    let chain = crate::client::chain::active_chain(&g, choice.leaf);
    report.chain_records = chain.records.len() as u32;
    links::check_cycles(&mut cx, &g, chain.looped);
    report.sessions = sessions::check_sessions(&mut cx, &chain, choice.leaf, choice.pointer_record, file_session);
    let visible = compaction::check_compaction(&mut cx, &g, &chain, &mut report);
    report.visible_records = visible.len() as u32;
    let (messages, tool_uses) = api::check_api(&mut cx, &visible);
    report.api_messages = messages;
    report.tool_uses = tool_uses;
    report.findings = cx.out;
    report
}

/// The API checks alone (tool pairing, tool ids, blank text, thinking order) over `records`, a
/// stretch of a loaded chain in order: what the compressor reports about the part of the chain
/// it summarises.
pub fn api_findings(scan: &Scan, bytes: &[u8], records: &[u32]) -> Vec<Finding> {
    let mut cx = Ctx { scan, bytes, out: Vec::new() };
    api::check_api(&mut cx, records);
    cx.out
}
