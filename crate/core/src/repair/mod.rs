//! Mending a damaged transcript so that the client resumes all of it.
//!
//! Each repair is named ([`Kind`]) and edits byte spans only; every other record is copied byte
//! for byte:
//! - [`lines`]: several records on one line (written one to a line), a record cut short (at the
//!   end of the file, or before the next record on its line: cut), bytes outside any record
//!   (NUL padding and the like: removed), lone UTF-16 surrogate escapes (rewritten to `\ufffd`,
//!   as the scanner reads them);
//! - [`links`]: a `parentUuid` on the active chain that names no record, relinked where the
//!   client's own re-attachment and the nearest earlier record agree (otherwise reported, left);
//! - [`tools`]: a `tool_result` on the active chain whose `tool_use` is held by a record off the
//!   chain, relinked to that record where unambiguous (otherwise reported, left).
//!
//! Never worse: the repaired file must resume every record the damaged one resumes, in the same
//! order, and add only records the damage hid (records that did not parse, or the calls a tool
//! relink brings back with their results); when the damaged file's last `last-prompt` names
//! a leaf, the repaired file resumes from that same leaf (records after it are never made the
//! active branch). A repair that fails this is refused with the reason.

pub mod lines;
pub mod links;
pub mod tools;

use crate::client::messages::api_view;
use crate::client::records::is_claude_code;
use crate::client::LeafRule;
use crate::graph::{Graph, NONE};
use crate::scan::{scan_bytes, Mode, Scan};
use rustc_hash::FxHashSet;

/// Damage on the active chain that `doctor` counts before it asks [`plan`] itself.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ChainDamage {
    /// Records whose `parentUuid` names no record.
    pub dangling_parents: u32,
    /// Records holding a `tool_result` whose `tool_use` is not on the chain.
    pub orphan_results: u32,
}

/// The damage of the active chain of `scan` (one graph for both counts).
pub fn chain_damage(scan: &Scan) -> ChainDamage {
    let g = Graph::new(scan);
    let chain = crate::client::chain::active_chain(&g, crate::client::leaf::choose(&g).leaf);
    ChainDamage {
        dangling_parents: links::dangling_on_chain(&g, &chain),
        orphan_results: tools::orphan_results_on_chain(&g, &chain),
    }
}

/// A named repair.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// Two or more records on one line: written one to a line, bytes unchanged.
    RecordsOnOneLine,
    /// A record cut short (a write interrupted): cut, its bytes kept in the report.
    TornLine,
    /// Bytes outside any record (NUL padding, other non-JSON bytes): removed.
    NonJsonBytes,
    /// A lone UTF-16 surrogate escape: rewritten to `\ufffd`.
    LoneSurrogates,
    /// A `parentUuid` on the active chain naming no record: relinked.
    DanglingParent,
    /// A `tool_result` on the active chain whose `tool_use` is off it: relinked to the call.
    OrphanToolResult,
}

impl Kind {
    pub const ALL: &'static [Kind] = &[
        Kind::RecordsOnOneLine,
        Kind::TornLine,
        Kind::NonJsonBytes,
        Kind::LoneSurrogates,
        Kind::DanglingParent,
        Kind::OrphanToolResult,
    ];

    /// The stable name reports and `doctor` findings carry.
    pub fn name(self) -> &'static str {
        match self {
            Kind::RecordsOnOneLine => "records-on-one-line",
            Kind::TornLine => "torn-line",
            Kind::NonJsonBytes => "non-json-bytes",
            Kind::LoneSurrogates => "lone-surrogates",
            Kind::DanglingParent => "dangling-parent",
            Kind::OrphanToolResult => "orphan-tool-result",
        }
    }
}

/// One edit made, by the source line it mends and the source bytes it replaces.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mend {
    pub kind: Kind,
    /// 1-based line of the source.
    pub line: u32,
    /// The byte range the edit covers: in the source for the line repairs; for a relink, in the
    /// bytes after the line repairs (the source's own when no line was mended).
    pub start: u64,
    pub end: u64,
    /// The bytes cut or replaced (empty for a split).
    pub removed: Vec<u8>,
    pub message: String,
}

/// Damage found and left as it is, with why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Left {
    pub kind: Kind,
    pub line: u32,
    pub message: String,
}

/// Why nothing is repaired.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// No record has a type Claude Code writes.
    NotTranscript,
    /// A line that cannot be mended safely.
    Unmendable { line: u32, message: String },
    /// The repair would change what the client resumes beyond restoring what the damage hid.
    Worse { message: String },
}

impl Refusal {
    pub fn message(&self) -> String {
        match self {
            Refusal::NotTranscript => "not a Claude Code transcript (no record has a type Claude Code writes)".into(),
            Refusal::Unmendable { line, message } => format!("line {line}: {message}"),
            Refusal::Worse { message } => message.clone(),
        }
    }
}

/// What `plan` found and did.
#[derive(Debug, Default)]
pub struct Plan {
    pub mends: Vec<Mend>,
    pub left: Vec<Left>,
    pub refusal: Option<Refusal>,
    /// The repaired bytes; None when nothing is mended or the repair is refused.
    pub output: Option<Vec<u8>>,
    /// Records of the repaired file (of the source when nothing is mended).
    pub records: u32,
}

/// Finds the damage in `bytes` and mends what can be mended (module doc).
pub fn plan(bytes: &[u8]) -> Plan {
    let before = scan_bytes(bytes, Mode::Full);
    let mut p = Plan { records: before.records.len() as u32, ..Plan::default() };
    let types = before.records.iter().filter_map(|r| r.kind).map(|k| before.str(k));
    if !is_claude_code(types) {
        p.refusal = Some(Refusal::NotTranscript);
        return p;
    }
    let mut line_map = Vec::new();
    let mended = match lines::mend_lines(bytes, &mut p.mends, &mut line_map) {
        Ok(b) => b,
        Err(u) => {
            p.mends.clear();
            p.refusal = Some(Refusal::Unmendable { line: u.line, message: u.message });
            return p;
        }
    };
    let mid = scan_bytes(&mended, Mode::Full);
    // Both relinks read the same bytes (their offsets are in them); a result record the tool
    // relink takes is not also relinked as a dangling parent.
    let g = Graph::new(&mid);
    let chain = crate::client::chain::active_chain(&g, crate::client::leaf::choose(&g).leaf);
    let tools = tools::relink_results(&g, &chain, &mended, &line_map, &mut p.mends, &mut p.left);
    let mut edits = tools.edits;
    edits.extend(links::relink(&g, &chain, &mended, &line_map, &tools.claimed, &mut p.mends, &mut p.left));
    if p.mends.is_empty() {
        return p;
    }
    let out = links::apply(&mended, edits);
    let restored: FxHashSet<&str> = tools.restored.iter().map(|&i| uuid_of(&mid, i)).collect();
    let after = scan_bytes(&out, Mode::Full);
    if let Err(message) = never_worse(&before, bytes, &after, &out, &restored) {
        p.mends.clear();
        p.refusal = Some(Refusal::Worse { message });
        return p;
    }
    p.records = after.records.len() as u32;
    p.output = Some(out);
    p
}

fn uuid_of(s: &Scan, i: u32) -> &str {
    s.tables.strings.opt(s.records[i as usize].uuid).unwrap_or("")
}

/// The never-worse rule (module doc) between the damaged and the repaired file; `restored` are
/// the uuids of the records a tool relink brings back.
pub fn never_worse(
    before: &Scan,
    before_bytes: &[u8],
    after: &Scan,
    after_bytes: &[u8],
    restored: &FxHashSet<&str>,
) -> Result<(), String> {
    let vb = api_view(before, before_bytes);
    let va = api_view(after, after_bytes);
    let known: FxHashSet<&str> = before.records.iter().filter_map(|r| r.uuid).map(|u| before.str(u)).collect();
    let b: Vec<&str> = vb.records.iter().map(|&i| uuid_of(before, i)).collect();
    let a: Vec<&str> = va.records.iter().map(|&i| uuid_of(after, i)).collect();
    // Each stretch of the repaired chain the damaged one does not resume must hold a record the
    // damage hid (one that did not parse): the stretch is the hidden part of the chain, restored
    // with the records it passes through (a parent the hidden record hung from). Or it is made
    // of records a tool relink brings back only: a call and its results.
    let mut k = 0;
    // (first record, holds a hidden record, every record restored by a tool relink)
    let mut stretch: Option<(&str, bool, bool)> = None;
    let close = |stretch: &mut Option<(&str, bool, bool)>| {
        match stretch.take() {
        Some((first, false, false)) => Err(format!(
            "the repair would make the client resume record {first}, which the damaged file has but does not resume, with nothing the damage hid beside it; nothing written"
        )),
        _ => Ok(()),
    }
    };
    for &u in &a {
        if k < b.len() && b[k] == u {
            close(&mut stretch)?;
            k += 1;
        } else {
            let s = stretch.get_or_insert((u, false, true));
            s.1 |= !known.contains(u);
            s.2 &= restored.contains(u);
        }
    }
    close(&mut stretch)?;
    if k < b.len() {
        return Err(format!("the repair would drop record {} from what the client resumes; nothing written", b[k]));
    }
    let gb = Graph::new(before);
    let choice = crate::client::leaf::choose(&gb);
    if choice.rule == LeafRule::LastPrompt && choice.leaf != NONE && va.leaf != NONE {
        let (was, now) = (uuid_of(before, choice.leaf), uuid_of(after, va.leaf));
        if was != now {
            return Err(format!(
                "the last last-prompt names leaf {was}, but the repaired file would resume from {now}: records after the pointer are not made the active branch; nothing written"
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
