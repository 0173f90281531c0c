//! The transcript validator: is this file a coherent Claude Code transcript
//! that resumes as one well-formed API conversation?
//!
//! It works over the record index ([`Scan`]) and the record graph ([`Graph`]): the leaf and
//! active chain are the graph's (the real client's rules, fragments and tool results spliced
//! in). Only the lines a check needs are parsed again, by their byte spans, with simd-json:
//! the API-visible records of the chain, the compact boundaries and summaries, and lines that
//! contain the name of an internal planning field.
//!
//! Every finding has a stable code, a severity, the 1-based lines involved and one line of
//! text. Errors make a file invalid; warnings are what the real client accepts or repairs and
//! a reader should know about (see `docs/claude-code-client.md`).
//!
//! Where the strict rules and the real client (2.1.332) differ, this is what was decided:
//! - the leaf is the client's: a stale pointer (its record has descendants on the default chain)
//!   is ignored as the client ignores it, and reported (`pointer-stale`, a warning);
//! - the API rules apply to what the model is sent: the records after the current compact
//!   boundary, with a live `preservedSegment` relinked after the summary as the client does;
//! - a tool call left unanswered at the very end is an interrupted turn (the client answers it), a warning;
//! - a compact boundary's `logicalParentUuid` may name a record of an earlier file (never sent anyway), a warning;
//! - kept strict although the client repairs them silently: dangling parents (the client
//!   re-attaches by timestamp), duplicate uuids (the later record wins), orphan results (removed), sessionId
//!   returns or a chain ending in another session than the file's (the client ignores sessionIds),
//!   a last-prompt naming no record (the client falls back as if there were none).

use crate::graph::{Graph, Link, Pointer, NONE};
use crate::scan::{record, surrogate, BadKind, Scan};
use rayon::prelude::*;
use rustc_hash::{FxHashMap, FxHashSet};
use simd_json::OwnedValue as V;

#[cfg(test)]
mod tests;

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
    pub code: &'static str,
    pub severity: Severity,
    pub lines: Vec<u32>,
    pub message: String,
}

#[derive(Debug, Default)]
pub struct Report {
    pub findings: Vec<Finding>,
    /// The leaf the client resumes from (line), how it was chosen, and what became of the pointer.
    pub leaf_line: Option<u32>,
    pub leaf_rule: &'static str,
    pub pointer: &'static str,
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

/// Fields the compressor keeps for its own planning (the six-way partition's report names and their
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
    kind_is(s, r, "system") && r.subtype.is_some_and(|v| s.str(v) == "compact_boundary")
}

fn is_summary(s: &Scan, r: &record::Record) -> bool {
    kind_is(s, r, "user") && r.has(record::F_COMPACT_SUMMARY)
}

/// Parses one record line again from the file bytes (lone surrogates repaired as the scanner does).
pub fn parse_line(bytes: &[u8], r: &record::Record) -> Option<V> {
    let start = r.offset as usize;
    let line = bytes.get(start..start + r.len as usize)?;
    let mut buf = line.to_vec();
    if let Ok(v) = simd_json::to_owned_value(&mut buf) {
        return Some(v);
    }
    let lone = surrogate::find_lone_surrogates(line);
    if lone.is_empty() {
        return None;
    }
    let mut buf = line.to_vec();
    surrogate::repair(&mut buf, &lone);
    simd_json::to_owned_value(&mut buf).ok()
}

pub(crate) fn get<'v>(v: &'v V, key: &str) -> Option<&'v V> {
    match v {
        V::Object(o) => o.get(key),
        _ => None,
    }
}

pub(crate) fn as_str(v: Option<&V>) -> Option<&str> {
    match v {
        Some(V::String(s)) => Some(s.as_str()),
        _ => None,
    }
}

/// One content block as the checks need it.
#[derive(Debug, Clone)]
struct Block {
    kind: String,
    /// tool_use id, or tool_result tool_use_id.
    id: Option<String>,
    /// A text block (or string content) that is empty or whitespace only.
    blank_text: bool,
    line: u32,
}

/// The content blocks of a parsed record, owned or borrowed (one extraction for both parses).
fn blocks_of<T>(v: &T, line: u32) -> Vec<Block>
where
    T: simd_json::prelude::ValueObjectAccess<Target = T>
        + simd_json::prelude::ValueAsScalar
        + simd_json::prelude::ValueAsArray<Array = Vec<T>>,
    T::Key: std::borrow::Borrow<str>,
{
    use simd_json::prelude::*;
    match v.get("message").and_then(|m| m.get("content")) {
        Some(c) if c.as_str().is_some() => {
            vec![Block { kind: "text".into(), id: None, blank_text: c.as_str().unwrap_or("").trim().is_empty(), line }]
        }
        Some(c) => match c.as_array() {
            Some(a) => a
                .iter()
                .filter_map(|b| {
                    let kind = b.get("type")?.as_str()?.to_string();
                    let id_of = |key: &str| Some(b.get(key).and_then(|x| x.as_str()).unwrap_or("").to_string());
                    let id = match kind.as_str() {
                        "tool_use" | "server_tool_use" => id_of("id"),
                        "tool_result" => id_of("tool_use_id"),
                        _ => None,
                    };
                    let blank_text =
                        kind == "text" && b.get("text").and_then(|t| t.as_str()).is_none_or(|t| t.trim().is_empty());
                    Some(Block { kind, id, blank_text, line })
                })
                .collect(),
            None => Vec::new(),
        },
        None => Vec::new(),
    }
}

thread_local! {
    /// The parse buffer of a validation worker, reused across records.
    static LINE: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// The content blocks of one record (`blocks_of`) from what the scan recorded, without parsing it
/// again; None when the scan's tables cannot tell (a blank text among blocks, whose place they
/// do not keep, or a tool result without its id).
fn scanned_blocks(s: &Scan, r: &record::Record) -> Option<Vec<Block>> {
    if r.has(record::F_CONTENT_STRING) {
        return Some(vec![Block {
            kind: "text".into(),
            id: None,
            blank_text: r.has(record::F_BLANK_TEXT),
            line: r.line,
        }]);
    }
    if r.has(record::F_BLANK_TEXT) {
        return None;
    }
    let (kinds, uses, results) = (s.tables.kinds(r), s.tables.tool_uses(r), s.tables.tool_results(r));
    let (mut u, mut t) = (uses.iter(), results.iter());
    let mut blocks = Vec::with_capacity(kinds.len());
    for &k in kinds {
        let kind = s.str(k);
        let id = match kind {
            "tool_use" | "server_tool_use" => Some(s.str(u.next()?.id).to_string()),
            "tool_result" => Some(s.str(*t.next()?).to_string()),
            _ => None,
        };
        blocks.push(Block { kind: kind.to_string(), id, blank_text: false, line: r.line });
    }
    // Every id was used: otherwise a result without its id shifted the others.
    (u.next().is_none() && t.next().is_none()).then_some(blocks)
}

/// The content blocks of one record (`blocks_of`), parsed without copying its strings.
fn record_blocks(bytes: &[u8], r: &record::Record) -> Option<Vec<Block>> {
    let start = r.offset as usize;
    let line = bytes.get(start..start + r.len as usize)?;
    LINE.with(|cell| {
        let buf = &mut *cell.borrow_mut();
        buf.clear();
        buf.extend_from_slice(line);
        let v = match simd_json::to_borrowed_value(buf) {
            Ok(v) => v,
            Err(_) => {
                // Lone surrogates: repaired as the scanner does, then parsed owned.
                let v = parse_line(bytes, r)?;
                return Some(blocks_of(&v, r.line));
            }
        };
        Some(blocks_of(&v, r.line))
    })
}

struct Ctx<'a> {
    scan: &'a Scan,
    bytes: &'a [u8],
    out: Vec<Finding>,
}

impl Ctx<'_> {
    fn push(&mut self, code: &'static str, severity: Severity, mut lines: Vec<u32>, message: String) {
        lines.sort_unstable();
        lines.dedup();
        lines.truncate(MAX_LINES);
        self.out.push(Finding { code, severity, lines, message });
    }
    fn error(&mut self, code: &'static str, lines: Vec<u32>, message: String) {
        self.push(code, Severity::Error, lines, message)
    }
    fn warn(&mut self, code: &'static str, lines: Vec<u32>, message: String) {
        self.push(code, Severity::Warning, lines, message)
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
    check_lines(&mut cx);
    check_internal_fields(&mut cx);
    let g = Graph::new(scan);
    check_uuids(&mut cx, &g);
    let has_conversation = (0..scan.records.len() as u32).any(|i| g.is_conversation(i));
    if has_conversation && subagent_only(scan, &g) {
        cx.error(
            "no-conversation",
            vec![],
            "every conversation record carries an agentId: a subagent transcript, which the client does not resume as a session".into(),
        );
    } else if !has_conversation {
        let why = if scan.records.iter().any(|r| r.has(record::F_SIDECHAIN)) {
            "only sidechain records: a subagent transcript, which the client does not resume as a session"
        } else {
            "no user or assistant record: the client finds no conversation to resume"
        };
        cx.error("no-conversation", vec![], why.into());
    }
    let choice = g.client_leaf();
    report.leaf_rule = choice.rule.name();
    report.pointer = choice.pointer.name();
    report.leaf_line = (choice.leaf != NONE).then(|| cx.line(choice.leaf));
    check_pointer(&mut cx, &choice);
    let chain = g.active_chain(choice.leaf);
    report.chain_records = chain.records.len() as u32;
    check_cycles(&mut cx, &g, chain.looped);
    report.sessions = check_sessions(&mut cx, &chain, choice.leaf, choice.pointer_record, file_session);
    let visible = check_compaction(&mut cx, &g, &chain, &mut report);
    report.visible_records = visible.len() as u32;
    let (messages, tool_uses) = check_api(&mut cx, &visible);
    report.api_messages = messages;
    report.tool_uses = tool_uses;
    report.findings = cx.out;
    report
}

/// A subagent's transcript: every conversation record names the agent (`agentId`), which a
/// session's own records never do. Its records may not be marked `isSidechain` (newer layouts).
pub(crate) fn subagent_only(scan: &Scan, g: &Graph) -> bool {
    let mut conversation = (0..scan.records.len() as u32).filter(|&i| g.is_conversation(i)).peekable();
    conversation.peek().is_some() && conversation.all(|i| scan.records[i as usize].agent_id.is_some())
}

/// Parent cycles anywhere in the file (the client stops its walk there: no hang, but the records
/// above the cycle are lost). Each cycle is reported once, with its records' lines.
fn check_cycles(cx: &mut Ctx, g: &Graph, chain_looped: bool) {
    let n = cx.scan.records.len();
    let mut state = vec![0u8; n]; // 0 unseen, 1 on the current walk, 2 done
    for start in 0..n as u32 {
        let mut path = Vec::new();
        let mut at = start;
        while at != NONE && state[at as usize] == 0 {
            state[at as usize] = 1;
            path.push(at);
            at = g.parent[at as usize];
        }
        if at != NONE && state[at as usize] == 1 {
            let from = path.iter().position(|&x| x == at).unwrap_or(0);
            let lines: Vec<u32> = path[from..].iter().map(|&x| cx.line(x)).collect();
            let on_chain = if chain_looped { ", on the active chain" } else { "" };
            cx.error(
                "parent-cycle",
                lines.clone(),
                format!("{} records form a parentUuid cycle{on_chain} (lines {})", lines.len(), join(&lines)),
            );
        }
        for x in path {
            state[x as usize] = 2;
        }
    }
}

/// Every non-blank line is a JSON object; a cut-short last line is reported too.
fn check_lines(cx: &mut Ctx) {
    let s = cx.scan;
    for b in &s.bad_lines {
        match b.kind {
            BadKind::InvalidJson => cx.error("bad-json", vec![b.line], format!("line {} is not valid JSON", b.line)),
            BadKind::NonObject => {
                cx.error("non-object", vec![b.line], format!("line {} is JSON but not an object", b.line))
            }
        }
    }
    let bad = s.counts.bad_json_lines + s.counts.non_object_lines;
    if bad > s.bad_lines.len() as u64 {
        cx.error(
            "bad-json",
            vec![],
            format!(
                "{} more lines are not JSON objects (only the first {} are listed)",
                bad - s.bad_lines.len() as u64,
                s.bad_lines.len()
            ),
        );
    }
    if s.torn_tail {
        let last = s.counts.lines as u32;
        cx.error("torn-tail", vec![last], format!("the last line ({last}) is cut short: a write was interrupted"));
    }
}

/// Internal planning fields, anywhere in a record (any depth). Lines are prefiltered by the
/// quoted name, then parsed to confirm it is a key and not text inside a string.
fn check_internal_fields(cx: &mut Ctx) {
    // Every name ends in `Indexes`: one pass finds the candidate lines.
    debug_assert!(INTERNAL_FIELDS.iter().all(|f| f.ends_with("Indexes")));
    let finder = memchr::memmem::Finder::new(b"Indexes\"");
    let s = cx.scan;
    for r in &s.records {
        let Some(line) = cx.bytes.get(r.offset as usize..r.offset as usize + r.len as usize) else { continue };
        if finder.find(line).is_none() {
            continue;
        }
        let Some(v) = parse_line(cx.bytes, r) else { continue };
        let mut found: Vec<String> = Vec::new();
        let mut stack = vec![&v];
        while let Some(x) = stack.pop() {
            match x {
                V::Object(o) => {
                    for (k, val) in o.iter() {
                        if INTERNAL_FIELDS.contains(&k.as_str()) && !found.contains(k) {
                            found.push(k.clone());
                        }
                        stack.push(val);
                    }
                }
                V::Array(a) => stack.extend(a.iter()),
                _ => {}
            }
        }
        for f in found {
            cx.error(
                "internal-field",
                vec![r.line],
                format!(
                    "line {} carries the internal planning field '{f}', which must not be written to a transcript",
                    r.line
                ),
            );
        }
    }
}

/// Unique uuids; every parentUuid names a record of the file; logicalParentUuid resolves
/// (a compact boundary may name a record of an earlier file).
fn check_uuids(cx: &mut Ctx, g: &Graph) {
    let s = cx.scan;
    let mut by_uuid: FxHashMap<&str, Vec<u32>> = FxHashMap::default();
    for r in &s.records {
        if let Some(u) = r.uuid {
            by_uuid.entry(s.str(u)).or_default().push(r.line);
        }
    }
    let mut dups: Vec<(&str, Vec<u32>)> = by_uuid.into_iter().filter(|(_, l)| l.len() > 1).collect();
    dups.sort_by_key(|(_, l)| l[0]);
    for (u, lines) in dups {
        let n = lines.len();
        cx.error("duplicate-uuid", lines, format!("uuid {u} is used by {n} records (the client keeps only the last)"));
    }
    for (i, r) in s.records.iter().enumerate() {
        let i = i as u32;
        if r.has(record::F_HAS_PARENT_KEY) && r.parent_uuid.is_none() {
            // The index keeps only string parents: a root's line is read to tell null from junk.
            let v = parse_line(cx.bytes, r);
            if let Some(bad) = v
                .as_ref()
                .and_then(|v| get(v, "parentUuid"))
                .filter(|p| !matches!(p, V::Static(simd_json::StaticNode::Null)))
            {
                let what = match bad {
                    V::String(_) => "a string",
                    V::Array(_) => "an array",
                    V::Object(_) => "an object",
                    V::Static(_) => "a number or boolean",
                };
                cx.error(
                    "malformed-parent",
                    vec![r.line],
                    format!("line {}: parentUuid is {what}, not a uuid string or null", r.line),
                );
            }
        }
        if !g.canonical(i) {
            continue;
        }
        if let Some(p) = r.parent_uuid {
            let p = s.str(p);
            match g.link[i as usize] {
                _ if p.is_empty() => cx.error(
                    "malformed-parent",
                    vec![r.line],
                    format!("line {}: parentUuid is an empty string", r.line),
                ),
                Link::Reattached => {
                    let to = cx.line(g.parent[i as usize]);
                    cx.error(
                        "dangling-parent",
                        vec![r.line, to],
                        format!("line {}: parentUuid {p} names no record of this file (the client re-attaches it by timestamp, to line {to})", r.line),
                    )
                }
                Link::Dangling if s.tables.strings.opt(r.uuid) == Some(p) => cx.error(
                    "dangling-parent",
                    vec![r.line],
                    format!("line {}: the record names itself as its parent", r.line),
                ),
                Link::Dangling => cx.error(
                    "dangling-parent",
                    vec![r.line],
                    format!(
                        "line {}: parentUuid {p} names no record of this file (the record is cut off from its history)",
                        r.line
                    ),
                ),
                _ => {}
            }
        } else if let Some(lp) = r.logical_parent_uuid {
            let lp = s.str(lp);
            if g.index_of(lp).is_none() {
                if is_boundary(s, r) {
                    cx.warn(
                        "logical-parent-outside-file",
                        vec![r.line],
                        format!("line {}: the compact boundary's logicalParentUuid {lp} is not in this file (history compacted in an earlier file)", r.line),
                    );
                } else {
                    cx.error(
                        "dangling-logical-parent",
                        vec![r.line],
                        format!("line {}: logicalParentUuid {lp} names no record of this file", r.line),
                    );
                }
            }
        }
    }
}

fn check_pointer(cx: &mut Ctx, c: &crate::graph::LeafChoice) {
    let pl = (c.pointer_record != NONE).then(|| cx.line(c.pointer_record));
    match c.pointer {
        Pointer::Unknown => {
            let l = pl.unwrap_or(0);
            cx.error(
                "pointer-unknown",
                vec![l],
                format!("line {l}: the last last-prompt's leafUuid names no record of this file"),
            )
        }
        Pointer::InteriorOnChain => {
            let (l, t) = (pl.unwrap_or(0), cx.line(c.pointer_target));
            cx.warn(
                "pointer-stale",
                vec![l, t],
                format!("line {l}: the last last-prompt names line {t}, which has descendants on the chain; the client ignores it and resumes from the last record"),
            )
        }
        Pointer::InteriorOffChain => {
            let (l, t) = (pl.unwrap_or(0), cx.line(c.pointer_target));
            cx.warn(
                "pointer-truncates",
                vec![l, t],
                format!("line {l}: the last last-prompt names line {t}, inside one branch: the client resumes there and drops what follows"),
            )
        }
        _ => {}
    }
}

/// sessionId: runs along the chain must not return to an earlier session; the final run must be
/// the pointer's session and the file's. Returns the sessions of the file with their counts.
fn check_sessions(
    cx: &mut Ctx,
    chain: &crate::graph::Chain,
    leaf: u32,
    pointer: u32,
    file_session: Option<&str>,
) -> Vec<(String, u32)> {
    let s = cx.scan;
    let mut counts: Vec<(String, u32)> = Vec::new();
    for r in &s.records {
        if let Some(v) = r.session_id.map(|v| s.str(v)) {
            match counts.iter_mut().find(|(k, _)| k == v) {
                Some(e) => e.1 += 1,
                None => counts.push((v.to_string(), 1)),
            }
        }
    }
    // Runs along the parent chain (spliced records excluded: they follow their owners).
    let mut runs: Vec<(&str, u32)> = Vec::new();
    for (k, &i) in chain.records.iter().enumerate() {
        if chain.origins[k] != crate::graph::Origin::Chain {
            continue;
        }
        let r = &s.records[i as usize];
        let Some(v) = r.session_id.map(|v| s.str(v)) else { continue };
        if runs.last().is_none_or(|(last, _)| *last != v) {
            if let Some((_, first)) = runs.iter().find(|(x, _)| *x == v) {
                cx.error(
                    "session-lineage-returns",
                    vec![*first, r.line],
                    format!("line {}: the active chain returns to session {v} after leaving it (only one-way lineages are accepted)", r.line),
                );
            }
            runs.push((v, r.line));
        }
    }
    let final_session = (leaf != NONE)
        .then(|| s.records[leaf as usize].session_id.map(|v| s.str(v)))
        .flatten()
        .or(runs.last().map(|r| r.0));
    if let Some(fin) = final_session {
        if pointer != NONE {
            let pr = &s.records[pointer as usize];
            if let Some(ps) = pr.session_id.map(|v| s.str(v)) {
                if ps != fin {
                    cx.error(
                        "session-mismatch",
                        vec![pr.line, cx.line(leaf)],
                        format!("line {}: the last last-prompt is session {ps}, the leaf's is {fin}", pr.line),
                    );
                }
            }
        }
        if let Some(fs) = file_session {
            if fs != fin {
                cx.error(
                    "session-mismatch",
                    vec![cx.line(leaf)],
                    format!("the file is session {fs}, but its active chain ends in session {fin}"),
                );
            }
        }
    }
    if runs.len() > 1 {
        let desc: Vec<String> = runs.iter().map(|(v, l)| format!("{v} from line {l}")).collect();
        cx.warn(
            "session-lineage",
            runs.iter().map(|r| r.1).collect(),
            format!("the active chain spans {} sessions, one way: {}", runs.len(), desc.join(", ")),
        );
    }
    if counts.len() > 1 {
        let desc: Vec<String> = counts.iter().map(|(v, n)| format!("{v} ×{n}")).collect();
        cx.warn("mixed-sessions", vec![], format!("records carry {} sessionIds: {}", counts.len(), desc.join(", ")));
    }
    counts
}

/// Compact pairs: every boundary has exactly one summary child, every summary a boundary parent;
/// at most one current pair (on the parentUuid-only walk the client loads); the file's last pair
/// is on the active chain; the current boundary's metadata agrees with the chain. Returns the
/// model-visible records: what follows the current boundary on the loaded chain.
fn check_compaction(cx: &mut Ctx, g: &Graph, chain: &crate::graph::Chain, report: &mut Report) -> Vec<u32> {
    let s = cx.scan;
    let boundaries: Vec<u32> = (0..s.records.len() as u32)
        .filter(|&i| {
            g.canonical(i) && is_boundary(s, &s.records[i as usize]) && !s.records[i as usize].has(record::F_SIDECHAIN)
        })
        .collect();
    report.compact_boundaries = boundaries.len() as u32;
    let summary_of = |b: u32| -> Vec<u32> {
        g.children(b).iter().copied().filter(|&c| is_summary(s, &s.records[c as usize])).collect()
    };
    for &b in &boundaries {
        let sums = summary_of(b);
        let bl = cx.line(b);
        if sums.is_empty() {
            cx.error(
                "compact-boundary-without-summary",
                vec![bl],
                format!("line {bl}: compact boundary with no isCompactSummary child"),
            );
        } else if sums.len() > 1 {
            let mut lines = vec![bl];
            lines.extend(sums.iter().map(|&x| cx.line(x)));
            cx.error(
                "compact-summary-multiple",
                lines,
                format!("line {bl}: compact boundary with {} summary children", sums.len()),
            );
        }
    }
    for i in 0..s.records.len() as u32 {
        let r = &s.records[i as usize];
        if !g.canonical(i) || !is_summary(s, r) || r.has(record::F_SIDECHAIN) {
            continue;
        }
        let p = g.parent[i as usize];
        if p == NONE || !is_boundary(s, &s.records[p as usize]) {
            cx.error(
                "compact-summary-without-boundary",
                vec![r.line],
                format!("line {}: isCompactSummary record whose parent is not a compact boundary", r.line),
            );
        }
    }
    // What the client loads: the active chain, except that a live preserved segment on the
    // file's last boundary (written by the client's own `/compact` in 2.1.332) is relinked: its head hangs
    // off the summary, so the loaded history is boundary, summary, head … leaf.
    let mut loaded: Vec<u32> = chain.records.clone();
    if let Some(&last) = boundaries.last() {
        if let Some((sm, head)) = live_segment(cx, g, last, &summary_of(last)) {
            if let Some(k) = chain.records.iter().position(|&r| r == head) {
                loaded = vec![last, sm];
                loaded.extend_from_slice(&chain.records[k..]);
            }
        }
    }
    let pos: FxHashMap<u32, usize> = loaded.iter().enumerate().map(|(k, &r)| (r, k)).collect();
    // The segment the client loads: from the leaf back to the first logical (cross-compaction) hop.
    let mut current: Vec<u32> = Vec::new();
    for &i in loaded.iter().rev() {
        if is_boundary(s, &s.records[i as usize]) {
            current.push(i);
        }
        if g.link[i as usize] == Link::Logical {
            break;
        }
    }
    current.reverse();
    if current.len() > 1 {
        let lines: Vec<u32> = current.iter().map(|&b| cx.line(b)).collect();
        cx.error(
            "multiple-current-compact-pairs",
            lines.clone(),
            format!("{} compact boundaries are live on the loaded chain (lines {}): older pairs must be folded, not stacked", current.len(), join(&lines)),
        );
    }
    let compressor_pairs: Vec<u32> = boundaries.iter().copied().filter(|&b| compressor_made(cx, b)).collect();
    if compressor_pairs.len() > 1 {
        let lines: Vec<u32> = compressor_pairs.iter().map(|&b| cx.line(b)).collect();
        cx.error(
            "multiple-current-compact-pairs",
            lines.clone(),
            format!(
                "{} compressor-made compact pairs in one file (lines {}): there must be exactly one",
                lines.len(),
                join(&lines)
            ),
        );
    }
    if let Some(&last) = boundaries.last() {
        let bl = cx.line(last);
        let on_chain = pos.contains_key(&last);
        let sums = summary_of(last);
        if !on_chain {
            cx.error(
                "compact-pair-unreachable",
                vec![bl],
                format!("line {bl}: the file's last compact boundary is not on the active chain from the leaf"),
            );
        } else if let Some(&sm) = sums.first().filter(|x| !pos.contains_key(x)) {
            let sl = cx.line(sm);
            cx.error(
                "compact-pair-unreachable",
                vec![bl, sl],
                format!("line {sl}: the current compact summary is not on the active chain"),
            );
        }
    }
    let Some(&cur) = current.last() else { return loaded };
    let sums = summary_of(cur);
    let on_chain: FxHashSet<u32> = loaded.iter().chain(chain.records.iter()).copied().collect();
    check_compact_metadata(cx, g, &on_chain, cur, sums.first().copied());
    loaded.split_off(pos[&cur] + 1)
}

/// The file's last boundary carries a preserved segment the client applies: its anchor is the
/// boundary's summary and a parent walk from its tail reaches its head. Returns (summary, head).
fn live_segment(cx: &Ctx, g: &Graph, b: u32, sums: &[u32]) -> Option<(u32, u32)> {
    let &sm = sums.first()?;
    preserved_segment(cx.scan, cx.bytes, g, b, sm).map(|(head, _)| (sm, head))
}

/// Boundary `b`'s `compactMetadata.preservedSegment`, when the client would apply it: its anchor
/// is `b`'s summary `sm` and a parent walk from its tail reaches its head. Returns (head, tail).
pub(crate) fn preserved_segment(scan: &Scan, bytes: &[u8], g: &Graph, b: u32, sm: u32) -> Option<(u32, u32)> {
    let v = parse_line(bytes, &scan.records[b as usize])?;
    let seg = get(&v, "compactMetadata").and_then(|m| get(m, "preservedSegment"))?;
    let at = |k: &str| as_str(get(seg, k)).and_then(|u| g.index_of(u));
    let (head, anchor, tail) = (at("headUuid")?, at("anchorUuid")?, at("tailUuid")?);
    (anchor == sm && g.ancestors(tail).0.contains(&head)).then_some((head, tail))
}

fn join(lines: &[u32]) -> String {
    lines.iter().map(|l| l.to_string()).collect::<Vec<_>>().join(", ")
}

fn compressor_made(cx: &Ctx, b: u32) -> bool {
    let r = &cx.scan.records[b as usize];
    let Some(v) = parse_line(cx.bytes, r) else { return false };
    matches!(
        get(&v, "compactMetadata").and_then(|m| get(m, "codexOfflineCompression")),
        Some(V::Static(simd_json::StaticNode::Bool(true)))
    )
}

fn check_compact_metadata(cx: &mut Ctx, g: &Graph, on_chain: &FxHashSet<u32>, b: u32, summary: Option<u32>) {
    let s = cx.scan;
    let bl = cx.line(b);
    if let Some(sm) = summary {
        if let Some(v) = parse_line(cx.bytes, &s.records[sm as usize]) {
            let blocks = blocks_of(&v, cx.line(sm));
            if blocks.iter().filter(|b| b.kind == "text").all(|b| b.blank_text) {
                let sl = cx.line(sm);
                cx.error(
                    "compact-summary-empty",
                    vec![sl],
                    format!("line {sl}: the current compact summary has no text"),
                );
            }
        }
    }
    let Some(v) = parse_line(cx.bytes, &s.records[b as usize]) else { return };
    let Some(meta) = get(&v, "compactMetadata") else { return };
    let summary_uuid = summary.map(|x| cx.uuid(x).to_string());
    if let Some(su) = as_str(get(meta, "summaryUuid")) {
        if summary_uuid.as_deref() != Some(su) {
            cx.error(
                "compact-metadata-mismatch",
                vec![bl],
                format!("line {bl}: compactMetadata.summaryUuid {su} is not the boundary's summary record"),
            );
        }
    }
    let selected = as_str(get(meta, "selectedLeafUuid"))
        .or_else(|| as_str(get(meta, "resumeLeafInfo").and_then(|x| get(x, "selectedLeafUuid"))));
    if let Some(sel) = selected {
        match g.index_of(sel) {
            Some(i) if on_chain.contains(&i) => {}
            Some(i) => {
                let l = cx.line(i);
                cx.error(
                    "compact-metadata-mismatch",
                    vec![bl, l],
                    format!("line {bl}: compactMetadata's selected leaf (line {l}) is not on the active chain"),
                )
            }
            None => cx.error(
                "compact-metadata-mismatch",
                vec![bl],
                format!("line {bl}: compactMetadata's selected leaf {sel} names no record of this file"),
            ),
        }
    }
    if let Some(seg) = get(meta, "preservedSegment") {
        let at = |k: &str| as_str(get(seg, k)).map(|u| (u.to_string(), g.index_of(u)));
        let (head, anchor, tail) = (at("headUuid"), at("anchorUuid"), at("tailUuid"));
        let mut problems = Vec::new();
        if anchor.as_ref().map(|a| a.0.as_str()) != summary_uuid.as_deref() {
            problems.push("its anchorUuid is not the summary".to_string());
        }
        match (&head, &tail) {
            (Some((_, Some(h))), Some((_, Some(t)))) => {
                let (walk, _) = g.ancestors(*t);
                if !walk.contains(h) {
                    problems.push("the tail→head parent walk does not reach the head".into());
                } else if !on_chain.contains(t) {
                    cx.warn(
                        "compact-segment-diverged",
                        vec![bl, cx.line(*t)],
                        format!("line {bl}: the preserved segment's tail is not on the active chain (a later rewind)"),
                    );
                }
            }
            _ => problems.push("its headUuid or tailUuid is missing or names no record".into()),
        }
        if !problems.is_empty() {
            cx.error(
                "compact-segment-broken",
                vec![bl],
                format!("line {bl}: preservedSegment is broken: {}", problems.join("; ")),
            );
        }
    }
    if let Some(V::Array(uuids)) = get(meta, "preservedMessages").and_then(|p| get(p, "uuids")) {
        let (mut missing, mut off) = (Vec::new(), Vec::new());
        for u in uuids.iter().filter_map(|u| as_str(Some(u))) {
            match g.index_of(u) {
                None => missing.push(u.to_string()),
                Some(i) if !on_chain.contains(&i) => off.push(cx.line(i)),
                _ => {}
            }
        }
        if !missing.is_empty() {
            cx.error(
                "compact-preserved-missing",
                vec![bl],
                format!("line {bl}: {} preservedMessages uuids name no record (first: {})", missing.len(), missing[0]),
            );
        }
        if !off.is_empty() {
            let n = off.len();
            let mut lines = vec![bl];
            lines.extend(off);
            cx.warn(
                "compact-preserved-diverged",
                lines,
                format!("line {bl}: {n} preserved messages are not on the active chain (a later rewind)"),
            );
        }
    }
}

/// One API message after merging.
struct Message {
    assistant: bool,
    blocks: Vec<Block>,
    lines: Vec<u32>,
}

/// Merges the visible chain records into API messages the way the client does, then checks
/// tool pairing, tool id uniqueness, empty text and thinking order. Returns (messages, tool uses).
fn check_api(cx: &mut Ctx, visible: &[u32]) -> (u32, u32) {
    let s = cx.scan;
    let mut msgs: Vec<(Message, Option<&str>)> = Vec::new();
    let counted = |i: u32| {
        let r = &s.records[i as usize];
        (kind_is(s, r, "assistant") || kind_is(s, r, "user"))
            && !r.has(record::F_SIDECHAIN)
            && !r.has(record::F_API_ERROR)
    };
    // Each record's blocks, parsed in parallel (most of a validation's time is this parse).
    let bytes = cx.bytes;
    let parsed: Vec<Option<Vec<Block>>> = visible
        .par_iter()
        .map(|&i| {
            let r = &s.records[i as usize];
            if counted(i) {
                scanned_blocks(s, r).or_else(|| record_blocks(bytes, r))
            } else {
                None
            }
        })
        .collect();
    for (&i, blocks) in visible.iter().zip(parsed) {
        let r = &s.records[i as usize];
        let assistant = kind_is(s, r, "assistant");
        let Some(blocks) = blocks else { continue };
        let mid = if assistant { r.message_id.map(|m| s.str(m)) } else { None };
        let merge = match msgs.last() {
            Some((m, id)) if m.assistant && assistant => mid.is_some() && *id == mid,
            Some((m, _)) => !m.assistant && !assistant,
            None => false,
        };
        if merge {
            let (m, _) = msgs.last_mut().unwrap();
            m.blocks.extend(blocks);
            m.lines.push(r.line);
        } else {
            msgs.push((Message { assistant, blocks, lines: vec![r.line] }, mid));
        }
    }
    let msgs: Vec<Message> = msgs.into_iter().map(|(m, _)| m).collect();
    let mut tool_ids: FxHashMap<String, Vec<u32>> = FxHashMap::default();
    let mut tool_uses = 0u32;
    for m in &msgs {
        if m.blocks.is_empty() {
            let who = if m.assistant { "an assistant" } else { "a user" };
            let l = m.lines.clone();
            cx.error("empty-message", l, format!("line {}: {who} message with no content block", m.lines[0]));
        }
        for b in &m.blocks {
            if b.blank_text {
                let who = if m.assistant { "assistant" } else { "user" };
                cx.error(
                    "empty-text-block",
                    vec![b.line],
                    format!("line {}: empty text block in a {who} message", b.line),
                );
            }
        }
        if !m.assistant {
            continue;
        }
        let thinking = |b: &Block| b.kind == "thinking" || b.kind == "redacted_thinking";
        if m.blocks.iter().any(thinking) && !m.blocks.first().is_some_and(thinking) {
            let first_thinking = m.blocks.iter().find(|b| thinking(b)).map_or(0, |b| b.line);
            let mut lines = vec![m.lines[0], first_thinking];
            lines.dedup();
            cx.error(
                "thinking-not-first",
                lines,
                format!(
                    "line {}: an assistant message with thinking does not start with it (first block: {})",
                    m.lines[0], m.blocks[0].kind
                ),
            );
        }
        for b in m.blocks.iter().filter(|b| b.kind == "tool_use" || b.kind == "server_tool_use") {
            tool_uses += 1;
            let id = b.id.clone().unwrap_or_default();
            if id.is_empty() {
                cx.error("empty-tool-use-id", vec![b.line], format!("line {}: tool_use without an id", b.line));
                continue;
            }
            tool_ids.entry(id).or_default().push(b.line);
        }
    }
    let mut dups: Vec<(String, Vec<u32>)> = tool_ids.into_iter().filter(|(_, l)| l.len() > 1).collect();
    dups.sort_by_key(|(_, l)| l[0]);
    // Pairing below skips duplicated ids: their results cannot be told apart, and the graph
    // splices every result of the id after each use; one finding says it all.
    let dup_ids: FxHashSet<String> = dups.iter().map(|(id, _)| id.clone()).collect();
    for (id, lines) in dups {
        let n = lines.len();
        cx.error("duplicate-tool-use-id", lines, format!("tool_use id {id} is used {n} times in the conversation"));
    }
    // Pairing: client-side tool uses (server_tool_use is answered inside the same message).
    for (k, m) in msgs.iter().enumerate() {
        let uses: Vec<&Block> = if m.assistant {
            m.blocks
                .iter()
                .filter(|b| {
                    b.kind == "tool_use" && b.id.as_deref().is_some_and(|x| !x.is_empty() && !dup_ids.contains(x))
                })
                .collect()
        } else {
            Vec::new()
        };
        let next = msgs.get(k + 1);
        if m.assistant && !uses.is_empty() {
            match next {
                None => {
                    let lines: Vec<u32> = uses.iter().map(|b| b.line).collect();
                    cx.warn(
                        "tool-use-pending",
                        lines,
                        format!("the conversation ends on {} tool call(s) without results (an interrupted turn; the client adds an error result on resume)", uses.len()),
                    );
                }
                Some(n) => {
                    let results: Vec<&Block> = if n.assistant {
                        Vec::new()
                    } else {
                        n.blocks.iter().filter(|b| b.kind == "tool_result").collect()
                    };
                    // Results in the order of the calls (out-of-order results are an error).
                    let call_order: Vec<&str> = uses.iter().filter_map(|u| u.id.as_deref()).collect();
                    let answered: Vec<&str> =
                        results.iter().filter_map(|r| r.id.as_deref()).filter(|id| call_order.contains(id)).collect();
                    let expected: Vec<&str> = call_order.iter().copied().filter(|id| answered.contains(id)).collect();
                    if answered.len() == expected.len() && answered != expected {
                        let lines: Vec<u32> = results.iter().map(|r| r.line).collect();
                        cx.error(
                            "tool-result-order",
                            lines,
                            format!(
                                "line {}: the tool_results are not in the order of their tool_use calls",
                                results.first().map_or(0, |r| r.line)
                            ),
                        );
                    }
                    for u in &uses {
                        let id = u.id.as_deref().unwrap_or("");
                        let answers: Vec<u32> =
                            results.iter().filter(|r| r.id.as_deref() == Some(id)).map(|r| r.line).collect();
                        match answers.len() {
                            0 => cx.error(
                                "tool-use-without-result",
                                vec![u.line],
                                format!("line {}: tool_use {id} has no tool_result in the next user message", u.line),
                            ),
                            1 => {}
                            n => {
                                let mut lines = vec![u.line];
                                lines.extend(&answers);
                                cx.error(
                                    "duplicate-tool-result",
                                    lines,
                                    format!("line {}: tool_use {id} has {n} tool_results", u.line),
                                )
                            }
                        }
                    }
                }
            }
        }
        if !m.assistant {
            let prev_uses: FxHashSet<&str> = match k.checked_sub(1).map(|p| &msgs[p]) {
                Some(p) if p.assistant => {
                    p.blocks.iter().filter(|b| b.kind == "tool_use").filter_map(|b| b.id.as_deref()).collect()
                }
                _ => FxHashSet::default(),
            };
            for r in m.blocks.iter().filter(|b| b.kind == "tool_result") {
                let id = r.id.as_deref().unwrap_or("");
                if !prev_uses.contains(id) && !dup_ids.contains(id) {
                    cx.error(
                        "orphan-tool-result",
                        vec![r.line],
                        format!(
                            "line {}: tool_result for {} answers no tool_use of the preceding assistant message",
                            r.line,
                            if id.is_empty() { "(no id)" } else { id }
                        ),
                    );
                }
            }
        }
    }
    (msgs.len() as u32, tool_uses)
}
