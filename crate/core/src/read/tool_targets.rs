//! What each tool call was aimed at, and the most frequent targets per tool over an estate.
//!
//! The target of a call is read from its `input` when the scan meets the `tool_use` block:
//! the file for Read/Edit/Write/MultiEdit/NotebookEdit/LS, the command's first word for Bash, the
//! host for WebFetch, the query for WebSearch, the subagent type for Task/Agent, the pattern for
//! Grep/Glob and the skill for Skill. Other tools (MCP tools, TodoWrite, …) have no target and
//! only count calls. `show` names a call's target by the same table ([`RULES`]), with the whole
//! field's text (the full command, the URL) where counting keeps only the first word or the host.
//! Counting happens in [`super::usage::aggregate`], deduplicated by tool_use id like the calls.

use crate::scan::tape::{as_str, field};
use simd_json::Node;

/// Longest target kept, in bytes (cut on a character boundary): a query or pattern can be long.
pub const MAX_TARGET_BYTES: usize = 200;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TargetKind {
    File,
    Command,
    Host,
    Query,
    SubagentType,
    Pattern,
    Skill,
}

impl TargetKind {
    pub fn as_str(self) -> &'static str {
        match self {
            TargetKind::File => "file",
            TargetKind::Command => "command",
            TargetKind::Host => "host",
            TargetKind::Query => "query",
            TargetKind::SubagentType => "subagent type",
            TargetKind::Pattern => "pattern",
            TargetKind::Skill => "skill",
        }
    }
}

/// Each tool that has a target: its name, the kind of target, and the `input` fields that name
/// it, in order of preference.
pub const RULES: &[(&str, TargetKind, &[&str])] = &[
    ("Read", TargetKind::File, &["file_path", "path"]),
    ("Edit", TargetKind::File, &["file_path", "path"]),
    ("Write", TargetKind::File, &["file_path", "path"]),
    ("MultiEdit", TargetKind::File, &["file_path", "path"]),
    ("LS", TargetKind::File, &["path"]),
    ("NotebookEdit", TargetKind::File, &["notebook_path", "file_path"]),
    ("NotebookRead", TargetKind::File, &["notebook_path", "file_path"]),
    ("Bash", TargetKind::Command, &["command"]),
    ("WebFetch", TargetKind::Host, &["url"]),
    ("WebSearch", TargetKind::Query, &["query"]),
    ("Task", TargetKind::SubagentType, &["subagent_type"]),
    ("Agent", TargetKind::SubagentType, &["subagent_type"]),
    ("Grep", TargetKind::Pattern, &["pattern"]),
    ("Glob", TargetKind::Pattern, &["pattern"]),
    ("Skill", TargetKind::Skill, &["skill"]),
];

/// The kind of target a tool has and the `input` fields that name it, in order of preference.
pub fn kind_of(tool: &str) -> Option<(TargetKind, &'static [&'static str])> {
    RULES.iter().find(|(name, _, _)| *name == tool).map(|&(_, kind, fields)| (kind, fields))
}

/// The target of a call to `tool` whose `input` object is at `tape[input]`.
pub fn target<'i>(tool: &str, tape: &[Node<'i>], input: usize) -> Option<std::borrow::Cow<'i, str>> {
    let (kind, fields) = kind_of(tool)?;
    let value = fields.iter().find_map(|f| field(tape, input, f).and_then(|v| as_str(tape, v)))?;
    let value = value.trim();
    let reduced = match kind {
        TargetKind::Command => value.split_whitespace().next().unwrap_or(""),
        TargetKind::Host => host(value),
        _ => value,
    };
    if reduced.is_empty() {
        return None;
    }
    let reduced = cut(reduced);
    // Host names are case-insensitive: one spelling per host.
    if kind == TargetKind::Host && reduced.bytes().any(|b| b.is_ascii_uppercase()) {
        return Some(std::borrow::Cow::Owned(reduced.to_ascii_lowercase()));
    }
    Some(std::borrow::Cow::Borrowed(reduced))
}

/// The host of a URL (`https://user@Example.com:8080/x` → `example.com`), else the text itself.
fn host(url: &str) -> &str {
    let Some((_, rest)) = url.split_once("://") else { return url };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let host_port = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    // An IPv6 literal keeps its brackets; otherwise drop the port.
    if host_port.starts_with('[') {
        return host_port.split_once(']').map_or(host_port, |(h, _)| &host_port[..h.len() + 1]);
    }
    host_port.split(':').next().unwrap_or(host_port)
}

fn cut(s: &str) -> &str {
    if s.len() <= MAX_TARGET_BYTES {
        return s;
    }
    let mut end = MAX_TARGET_BYTES;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

/// Tool calls per (bucket, tool, target), as [`super::usage::aggregate`] counts them.
#[derive(Debug, Default, Clone)]
pub struct TargetCounts {
    /// Interned target strings.
    pub targets: Vec<String>,
    /// (bucket index, tool name index, target index or `NO_TARGET`, calls), sorted.
    pub counts: Vec<(u32, u32, u32, u64)>,
}

pub const NO_TARGET: u32 = u32::MAX;

/// One tool's calls and its most frequent targets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolTargets {
    pub tool: String,
    pub kind: Option<TargetKind>,
    pub calls: u64,
    /// Calls whose input named no target (or a tool without targets).
    pub calls_without_target: u64,
    pub distinct_targets: u64,
    /// At most `limit` targets, most calls first, ties by target.
    pub top: Vec<(String, u64)>,
}

/// Per tool, over the buckets `included` marks (all when it is empty): calls and the top `limit`
/// targets. Tools come most calls first, ties by name.
pub fn top_targets(counts: &TargetCounts, tool_names: &[String], included: &[u8], limit: usize) -> Vec<ToolTargets> {
    use rustc_hash::FxHashMap as HashMap;
    let mut per_tool: HashMap<u32, (u64, u64, HashMap<u32, u64>)> = HashMap::default();
    for &(bucket, tool, target, calls) in &counts.counts {
        if !included.is_empty() && included.get(bucket as usize).copied().unwrap_or(0) == 0 {
            continue;
        }
        let t = per_tool.entry(tool).or_default();
        t.0 += calls;
        if target == NO_TARGET {
            t.1 += calls;
        } else {
            *t.2.entry(target).or_insert(0) += calls;
        }
    }
    let mut out: Vec<ToolTargets> = per_tool
        .into_iter()
        .map(|(tool, (calls, without, targets))| {
            let mut top: Vec<(u32, u64)> = targets.iter().map(|(&k, &v)| (k, v)).collect();
            top.sort_unstable_by(|a, b| {
                b.1.cmp(&a.1).then_with(|| counts.targets[a.0 as usize].cmp(&counts.targets[b.0 as usize]))
            });
            top.truncate(limit);
            let name = tool_names[tool as usize].clone();
            ToolTargets {
                kind: kind_of(&name).map(|k| k.0),
                tool: name,
                calls,
                calls_without_target: without,
                distinct_targets: targets.len() as u64,
                top: top.into_iter().map(|(k, v)| (counts.targets[k as usize].clone(), v)).collect(),
            }
        })
        .collect();
    out.sort_by(|a, b| b.calls.cmp(&a.calls).then_with(|| a.tool.cmp(&b.tool)));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn target_of(tool: &str, input: &str) -> Option<String> {
        let mut bytes = input.as_bytes().to_vec();
        let tape = simd_json::to_tape(&mut bytes).unwrap();
        target(tool, &tape.0, 0).map(|t| t.into_owned())
    }

    #[test]
    fn reads_the_target_each_tool_names() {
        assert_eq!(target_of("Read", r#"{"file_path":"/a/b.rs","limit":3}"#).as_deref(), Some("/a/b.rs"));
        assert_eq!(target_of("NotebookEdit", r#"{"notebook_path":"/n.ipynb"}"#).as_deref(), Some("/n.ipynb"));
        assert_eq!(target_of("Bash", r#"{"command":"  npm test -- --x"}"#).as_deref(), Some("npm"));
        assert_eq!(target_of("Bash", r#"{"command":"   "}"#), None);
        assert_eq!(
            target_of("WebFetch", r#"{"url":"https://u:p@Docs.Example.com:8443/x?y#z"}"#).as_deref(),
            Some("docs.example.com")
        );
        assert_eq!(target_of("WebFetch", r#"{"url":"http://[::1]:80/"}"#).as_deref(), Some("[::1]"));
        assert_eq!(target_of("WebFetch", r#"{"url":"not a url"}"#).as_deref(), Some("not a url"));
        assert_eq!(target_of("WebSearch", r#"{"query":"napi-rs threadsafe"}"#).as_deref(), Some("napi-rs threadsafe"));
        assert_eq!(target_of("Task", r#"{"subagent_type":"Explore","prompt":"x"}"#).as_deref(), Some("Explore"));
        assert_eq!(target_of("Agent", r#"{"subagent_type":"general-purpose"}"#).as_deref(), Some("general-purpose"));
        assert_eq!(target_of("Grep", r#"{"pattern":"fn main","path":"src"}"#).as_deref(), Some("fn main"));
        assert_eq!(target_of("Glob", r#"{"pattern":"**/*.ts"}"#).as_deref(), Some("**/*.ts"));
        assert_eq!(target_of("TodoWrite", r#"{"todos":[]}"#), None);
        assert_eq!(target_of("Read", r#"{"file_path":7}"#), None);
        let long = "é".repeat(150);
        let t = target_of("WebSearch", &format!(r#"{{"query":"{long}"}}"#)).unwrap();
        assert!(t.len() <= MAX_TARGET_BYTES && t.len() >= MAX_TARGET_BYTES - 1);
    }

    #[test]
    fn top_targets_filters_buckets_and_ranks() {
        let counts = TargetCounts {
            targets: vec!["a.rs".into(), "b.rs".into(), "npm".into()],
            counts: vec![
                (0, 0, 0, 2),
                (0, 0, 1, 2),
                (1, 0, 1, 5),
                (0, 1, 2, 1),
                (0, 1, NO_TARGET, 1),
                (1, 2, NO_TARGET, 4),
            ],
        };
        let names = vec!["Read".to_string(), "Bash".to_string(), "TodoWrite".to_string()];
        let all = top_targets(&counts, &names, &[], 1);
        assert_eq!(all[0].tool, "Read");
        assert_eq!((all[0].calls, all[0].distinct_targets), (9, 2));
        assert_eq!(all[0].top, vec![("b.rs".to_string(), 7)]);
        assert_eq!(all[1].tool, "TodoWrite");
        assert_eq!((all[1].calls, all[1].calls_without_target, all[1].kind), (4, 4, None));
        let first = top_targets(&counts, &names, &[1, 0], 5);
        assert_eq!(first.iter().map(|t| (t.tool.as_str(), t.calls)).collect::<Vec<_>>(), [("Read", 4), ("Bash", 2)]);
        // ties broken by target
        assert_eq!(first[0].top, vec![("a.rs".to_string(), 2), ("b.rs".to_string(), 2)]);
        assert_eq!(first[1].calls_without_target, 1);
    }
}
