//! Choosing the leaf: the strict rules (the physically last `last-prompt` is
//! authoritative, post-pointer records only as a bounded tool-result closure), the real
//! client's rules, and the `auto` policy between them.

use super::{line, uuid_of, LeafPolicy, Options, Plan, PreserveMode, Status, Stop, Warning};
use crate::client::{LeafChoice, LeafRule, Pointer};
use crate::graph::{Graph, NONE};
use crate::scan::record;
use crate::scan::reparse::{get, parse_line};
use rustc_hash::{FxHashMap, FxHashSet};

pub(super) fn choose(p: &mut Plan, g: &Graph, bytes: &[u8], c: &LeafChoice, opts: &Options) {
    let s = g.scan();
    let subagent = crate::client::records::subagent_only(g);
    if (c.default_leaf == NONE && c.leaf == NONE) || subagent {
        let message = if subagent {
            "every conversation record carries an agentId: a subagent transcript, which is not resumed as a session"
        } else {
            "no user or assistant record: there is no conversation to resume"
        };
        p.stop(Stop { status: Status::Absent, lines: vec![], message: message.into(), recovery: vec![] });
        return;
    }
    let strict = strict_leaf(g, bytes, c, opts.max_extension);
    if let Ok((l, ext)) = &strict {
        p.strict_leaf = *l;
        p.extension = ext.clone();
    }
    let client_line = line(s, c.leaf);
    let client_opt = format!("--leaf-policy client (leaf line {client_line})");
    if let Some(u) = &opts.resume_leaf {
        match g.index_of(u).filter(|&i| g.canonical(i)) {
            Some(i) => {
                p.leaf = i;
                p.preserve_mode = PreserveMode::ManualOverride;
                p.leaf_reason = format!("--resume-leaf names line {}", line(s, i));
            }
            None => p.stop(Stop {
                status: Status::Dangling,
                lines: vec![],
                message: format!("--resume-leaf {u} names no record of this file"),
                recovery: vec![client_opt],
            }),
        }
        return;
    }
    if opts.preserve_physical_tail {
        p.preserve_mode = PreserveMode::PhysicalTail;
        match &strict {
            Ok((l, _)) => {
                p.leaf = *l;
                p.leaf_reason = pointer_reason(g, c, *l);
            }
            Err(_) => {
                p.leaf = c.leaf;
                p.leaf_reason = client_reason(g, c);
            }
        }
        p.leaf_reason.push_str("; physical-tail compatibility mode: no branch isolation");
        return;
    }
    match opts.leaf_policy {
        LeafPolicy::Strict => match strict {
            Ok((l, _)) => {
                p.leaf = l;
                p.leaf_reason = pointer_reason(g, c, l);
            }
            Err(stop) => p.stop(stop),
        },
        LeafPolicy::Client => {
            p.leaf = c.leaf;
            if p.strict_leaf == c.leaf {
                p.leaf_reason = pointer_reason(g, c, c.leaf);
            } else {
                p.preserve_mode = PreserveMode::ClientLeaf;
                p.leaf_reason = client_reason(g, c);
            }
        }
        LeafPolicy::Auto => auto(p, g, bytes, c, strict, client_opt),
    }
    if c.stepped_back() && p.leaf == c.leaf {
        p.warnings.push(Warning {
            code: "silent-tail",
            lines: vec![line(s, c.leaf), line(s, c.named_leaf)],
            message: format!("{}; the dropped replies are left out", silent_tail(g, c)),
        });
    }
}

/// The replies the chain ends on that the client drops, in one phrase.
fn silent_tail(g: &Graph, c: &LeafChoice) -> String {
    let s = g.scan();
    crate::client::leaf::describe_step_back(line(s, c.named_leaf), line(s, c.leaf))
}

fn auto(
    p: &mut Plan,
    g: &Graph,
    bytes: &[u8],
    c: &LeafChoice,
    strict: Result<(u32, Vec<u32>), Stop>,
    client_opt: String,
) {
    let s = g.scan();
    // The pointer names a leaf the client drops (a reply that says nothing): it goes on from
    // the record before, and so does the rewrite.
    if c.stepped_back() && matches!(&strict, Ok((l, _)) if *l == c.named_leaf) {
        p.leaf = c.leaf;
        p.preserve_mode = PreserveMode::ClientLeaf;
        p.leaf_reason = format!("{}; {}", pointer_reason(g, c, c.named_leaf), silent_tail(g, c));
        return;
    }
    // The strict leaf when the pointer names a leaf, or when the client resumes there too.
    let strict_ok = match &strict {
        Ok((l, _)) if *l == c.leaf || c.pointer == Pointer::Leaf => Some(*l),
        _ => None,
    };
    if let Some(l) = strict_ok {
        p.leaf = l;
        p.leaf_reason = pointer_reason(g, c, l);
        return;
    }
    let use_client = |p: &mut Plan, why: String| {
        p.leaf = c.leaf;
        p.preserve_mode = PreserveMode::ClientLeaf;
        p.leaf_reason = why;
    };
    let (pl, tl) = (line(s, c.pointer_record), line(s, c.pointer_target));
    let both_leaves = |why: String, lines: Vec<u32>| Stop {
        status: match &strict {
            Err(stop) if stop.status != Status::ExtensionUnsafe && stop.status != Status::ExtensionLimit => stop.status,
            _ => Status::ExtensionBranch,
        },
        lines,
        message: format!("{why}: strict leaf line {tl}, client leaf line {}", line(s, c.leaf)),
        recovery: vec![format!("--resume-leaf {} (strict leaf)", uuid_of(s, c.pointer_target)), client_opt.clone()],
    };
    match c.pointer {
        Pointer::Absent => use_client(p, client_reason(g, c)),
        Pointer::NoLeafUuid if !has_key(bytes, &s.records[c.pointer_record as usize], "leafUuid") => {
            use_client(p, client_reason(g, c))
        }
        Pointer::InteriorOnChain => {
            // Stale (a snapshot taken at prompt submit): everything below the pointer's record
            // was written after the pointer, on one linear continuation. A continuation written
            // before the pointer is a rewind the pointer records, not staleness.
            let chain = crate::client::chain::active_chain(g, c.leaf);
            let branches = g.branches(&chain.records);
            let below = g.branches_below(&chain.records, &branches, c.pointer_target);
            let rewound: Vec<u32> = descendants(g, c.pointer_target)
                .into_iter()
                .filter(|&d| d < c.pointer_record && g.is_conversation(d))
                .collect();
            if below.is_empty() && rewound.is_empty() {
                use_client(p, client_reason(g, c));
            } else if !below.is_empty() {
                let mut lines = vec![pl, tl];
                lines.extend(below.iter().map(|&b| line(s, b)));
                let why = format!(
                    "the last last-prompt (line {pl}) names line {tl}, below which the conversation forks into {} branches",
                    below.len() + 1
                );
                p.stop(both_leaves(why, lines));
            } else {
                let first = line(s, rewound[0]);
                let why = format!(
                    "the last last-prompt (line {pl}) names line {tl}, whose continuation (from line {first}) was written before the pointer: a rewind the client does not follow"
                );
                p.stop(both_leaves(why, vec![pl, tl, first]));
            }
        }
        Pointer::InteriorOffChain if !matches!(&strict, Err(e) if e.status == Status::ExtensionBranch) => {
            use_client(p, client_reason(g, c));
            let ll = line(s, c.named_leaf);
            let there = if ll == tl { "there".to_string() } else { format!("from its tool result (line {ll})") };
            p.warnings.push(Warning {
                code: "pointer-truncates",
                lines: if ll == tl { vec![pl, tl] } else { vec![pl, tl, ll] },
                message: format!("line {pl}: the last last-prompt names line {tl}, inside one branch: the client resumes {there} and the records after it are excluded"),
            });
        }
        _ => match strict {
            Err(mut stop) => {
                if c.leaf != NONE && !stop.recovery.iter().any(|r| r.starts_with("--leaf-policy client")) {
                    stop.recovery.push(client_opt);
                }
                p.stop(stop);
            }
            Ok(_) => {
                let why = format!("the last last-prompt (line {pl}) and the client choose different leaves");
                p.stop(both_leaves(why, vec![pl, tl]));
            }
        },
    }
}

fn has_key(bytes: &[u8], r: &record::Record, key: &str) -> bool {
    parse_line(bytes, r).is_some_and(|v| get(&v, key).is_some())
}

fn pointer_reason(g: &Graph, c: &LeafChoice, leaf: u32) -> String {
    let s = g.scan();
    if c.pointer_record == NONE {
        return client_reason(g, c);
    }
    let (pl, ll) = (line(s, c.pointer_record), line(s, leaf));
    if leaf == c.pointer_target {
        format!("the last last-prompt (line {pl}) names line {ll}")
    } else {
        format!(
            "the last last-prompt (line {pl}) names line {}, extended to line {ll} by its tool-result closure",
            line(s, c.pointer_target)
        )
    }
}

/// Why the client resumes where it does, in one line.
fn client_reason(g: &Graph, c: &LeafChoice) -> String {
    let named = named_reason(g, c);
    if c.stepped_back() {
        format!("{named}; {}", silent_tail(g, c))
    } else {
        named
    }
}

/// Why the client's rules name the record they name.
fn named_reason(g: &Graph, c: &LeafChoice) -> String {
    let s = g.scan();
    let (pl, ll) = (line(s, c.pointer_record), line(s, c.named_leaf));
    match c.rule {
        LeafRule::LastPrompt => format!("the last last-prompt (line {pl}) names a leaf (line {ll})"),
        LeafRule::LastPromptInterior if c.named_leaf != c.pointer_target => format!(
            "the last last-prompt (line {pl}) names line {} inside one branch, a tool call: the client resumes from its result (line {ll}) and truncates",
            line(s, c.pointer_target)
        ),
        LeafRule::LastPromptInterior => format!(
            "the last last-prompt (line {pl}) names line {ll} inside one branch: the client resumes there and truncates"
        ),
        LeafRule::None => "no conversation record".into(),
        LeafRule::LastConversationRecord => {
            let why = match c.pointer {
                Pointer::Absent => "no last-prompt record".to_string(),
                Pointer::NoLeafUuid => format!("the last last-prompt (line {pl}) has no leafUuid (written before 2.1)"),
                Pointer::Unknown => format!("the last last-prompt's leafUuid (line {pl}) names no record"),
                Pointer::InteriorOnChain => format!(
                    "the last last-prompt (line {pl}) is stale: it names line {}, which has a linear continuation below it",
                    line(s, c.pointer_target)
                ),
                _ => format!("the last last-prompt (line {pl}) does not name a leaf"),
            };
            format!("{why}: the client resumes from the leaf of the last conversation record (line {ll})")
        }
    }
}

/// The strict leaf: the physically last `last-prompt`'s `leafUuid`, never skipped; records after
/// the pointer only as a same-session linear closure of tool-result-only user records that
/// closes every pending tool id, at most `max_ext` of them.
fn strict_leaf(g: &Graph, bytes: &[u8], c: &LeafChoice, max_ext: u32) -> Result<(u32, Vec<u32>), Stop> {
    let s = g.scan();
    let client = (c.leaf != NONE).then(|| format!("--leaf-policy client (leaf line {})", line(s, c.leaf)));
    let recovery = |more: Vec<String>| -> Vec<String> { more.into_iter().chain(client.clone()).collect() };
    if c.pointer_record == NONE {
        return Err(Stop {
            status: Status::Absent,
            lines: vec![],
            message: "no last-prompt record: the file names no authoritative leaf".into(),
            recovery: recovery(vec!["--resume-leaf UUID".into()]),
        });
    }
    let pr = c.pointer_record;
    let pl = line(s, pr);
    let r = &s.records[pr as usize];
    let leaf_uuid = r.leaf_uuid.map(|u| s.str(u)).filter(|u| !u.is_empty());
    let Some(lu) = leaf_uuid else {
        let what = match r.leaf_uuid {
            Some(_) => "an empty leafUuid",
            None if has_key(bytes, r, "leafUuid") => "a leafUuid that is not a string",
            None => "no leafUuid",
        };
        return Err(Stop {
            status: Status::Malformed,
            lines: vec![pl],
            message: format!("line {pl}: the last last-prompt has {what} (an older pointer is never used instead)"),
            recovery: recovery(vec!["--resume-leaf UUID".into()]),
        });
    };
    let Some(t) = g.index_of(lu) else {
        return Err(Stop {
            status: Status::Dangling,
            lines: vec![pl],
            message: format!("line {pl}: the last last-prompt's leafUuid {lu} names no record of this file"),
            recovery: recovery(vec!["--resume-leaf UUID".into()]),
        });
    };
    let after: Vec<u32> = descendants(g, t).into_iter().filter(|&d| d > pr && g.is_conversation(d)).collect();
    if after.is_empty() {
        return Ok((t, Vec::new()));
    }
    closure(g, t, pr, &after, max_ext).map_err(|mut stop| {
        stop.recovery = recovery(std::mem::take(&mut stop.recovery));
        stop
    })
}

fn descendants(g: &Graph, t: u32) -> Vec<u32> {
    let mut seen = FxHashSet::default();
    let mut stack = g.children(t).to_vec();
    let mut out = Vec::new();
    while let Some(x) = stack.pop() {
        if x == t || !seen.insert(x) {
            continue;
        }
        out.push(x);
        stack.extend_from_slice(g.children(x));
    }
    out.sort_unstable();
    out
}

fn tool_result_only(g: &Graph, x: u32) -> bool {
    let s = g.scan();
    let r = &s.records[x as usize];
    let kinds = s.tables.kinds(r);
    super::kind_is(s, x, "user") && !kinds.is_empty() && kinds.iter().all(|k| s.str(*k) == "tool_result")
}

/// The nearest conversation ancestor (through progress, attachment and system records).
fn conversation_parent(g: &Graph, x: u32) -> u32 {
    let mut at = g.parent[x as usize];
    for _ in 0..256 {
        if at == NONE || g.is_conversation(at) {
            return at;
        }
        at = g.parent[at as usize];
    }
    NONE
}

fn closure(g: &Graph, t: u32, pr: u32, after: &[u32], max_ext: u32) -> Result<(u32, Vec<u32>), Stop> {
    let s = g.scan();
    let (pl, tl) = (line(s, pr), line(s, t));
    let tr = &s.records[t as usize];
    let group = crate::client::chain::message_fragments(g, t);
    let inside: FxHashSet<u32> = group.iter().chain(after).copied().collect();
    let stale = |status: Status, x: u32, why: &str| {
        Stop {
        status,
        lines: vec![pl, tl, line(s, x)],
        message: format!(
            "line {pl}: the last last-prompt names line {tl}, but {} conversation record(s) follow it after the pointer: {why} (line {})",
            after.len(),
            line(s, x)
        ),
        recovery: vec![format!("--resume-leaf {} (keep the pointer's leaf, exclude what follows)", uuid_of(s, t))],
    }
    };
    let mut children: FxHashMap<u32, Vec<u32>> = FxHashMap::default();
    for &x in after {
        children.entry(conversation_parent(g, x)).or_default().push(x);
    }
    let mut parents: Vec<&u32> = children.keys().collect();
    parents.sort_unstable();
    for parent in parents {
        let kids = &children[parent];
        if kids.len() > 1 && !kids.iter().all(|&k| tool_result_only(g, k)) {
            return Err(stale(Status::ExtensionBranch, kids[1], "the conversation branches below the pointer"));
        }
    }
    let session = tr.session_id;
    for &x in after {
        let xr = &s.records[x as usize];
        if !tool_result_only(g, x) {
            return Err(stale(Status::ExtensionUnsafe, x, "not a tool-result-only user record"));
        }
        if xr.session_id.map(|v| s.str(v)) != session.map(|v| s.str(v)) {
            return Err(stale(Status::ExtensionUnsafe, x, "another session"));
        }
        if xr.has(record::F_SIDECHAIN) || !inside.contains(&conversation_parent(g, x)) {
            return Err(stale(Status::ExtensionUnsafe, x, "not a direct linear continuation"));
        }
    }
    let uses: FxHashSet<&str> =
        group.iter().flat_map(|&i| s.tables.tool_uses(&s.records[i as usize])).map(|u| s.str(u.id)).collect();
    let after_set: FxHashSet<u32> = after.iter().copied().collect();
    let before: FxHashSet<&str> = crate::client::chain::active_chain(g, t)
        .records
        .iter()
        .filter(|i| !after_set.contains(i))
        .flat_map(|&i| s.tables.tool_results(&s.records[i as usize]))
        .map(|id| s.str(*id))
        .collect();
    let pending: FxHashSet<&str> = uses.difference(&before).copied().collect();
    let mut answered: FxHashSet<&str> = FxHashSet::default();
    for &x in after {
        for id in s.tables.tool_results(&s.records[x as usize]) {
            let id = s.str(*id);
            if !pending.contains(id) {
                return Err(stale(Status::ExtensionUnsafe, x, "a result for a tool call that is not pending"));
            }
            answered.insert(id);
        }
    }
    if answered.len() < pending.len() {
        return Err(stale(
            Status::ExtensionUnsafe,
            *after.last().unwrap(),
            "a partial closure (tool calls left pending)",
        ));
    }
    if after.len() as u32 > max_ext {
        let mut stop = stale(
            Status::ExtensionLimit,
            after[0],
            "a tool-result closure longer than --max-post-last-prompt-extension",
        );
        stop.recovery.insert(0, format!("--max-post-last-prompt-extension {}", after.len()));
        return Err(stop);
    }
    Ok((*after.iter().max().unwrap(), after.to_vec()))
}
