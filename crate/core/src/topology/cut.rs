//! Where the recent raw suffix may start (never inside an API turn or a merged user message),
//! where it does start (a share of the model-visible chain's estimated message tokens, a token
//! ceiling, minimum records, a human prompt when one is in reach), and
//! the six-way partition of every record.

use super::{kind_is, line, CheckpointPolicy, Options, Plan, PreserveMode, Status, Stop, Warning};
use crate::graph::{Graph, NONE};
use crate::scan::record;
use crate::scan::reparse::{as_str, get, parse_line};
use rustc_hash::{FxHashMap, FxHashSet};

/// The six sets of the partition: every record of the file is in exactly one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SetKind {
    Summary = 0,
    RawKeep = 1,
    SideKeep = 2,
    ControlProjection = 3,
    ExcludedBranch = 4,
    ExcludedUnattributed = 5,
}

impl SetKind {
    pub const ALL: [SetKind; 6] = [
        SetKind::Summary,
        SetKind::RawKeep,
        SetKind::SideKeep,
        SetKind::ControlProjection,
        SetKind::ExcludedBranch,
        SetKind::ExcludedUnattributed,
    ];
}

/// Session-scoped metadata whose latest value is projected at the end of a rewritten file.
pub const SESSION_METADATA: &[&str] = &[
    "custom-title",
    "ai-title",
    "tag",
    "agent-name",
    "agent-color",
    "agent-setting",
    "mode",
    "permission-mode",
    "worktree-state",
    "pr-link",
];

/// A record the API view sends (or merges into a neighbour): user, assistant, attachment.
fn relevant(g: &Graph, i: u32) -> bool {
    let s = g.scan();
    !s.records[i as usize].has(record::F_SIDECHAIN)
        && (kind_is(s, i, "user") || kind_is(s, i, "assistant") || kind_is(s, i, "attachment"))
}

/// A prompt a human typed: a user record that is not meta, not a compact summary, and carries
/// text rather than tool results.
fn human_prompt(g: &Graph, i: u32) -> bool {
    let s = g.scan();
    let r = &s.records[i as usize];
    kind_is(s, i, "user")
        && !r.has(record::F_META)
        && !r.has(record::F_COMPACT_SUMMARY)
        && !r.has(record::F_SIDECHAIN)
        && s.tables.tool_results(r).is_empty()
        && (r.has(record::F_CONTENT_STRING) || s.tables.kinds(r).iter().any(|k| s.str(*k) == "text"))
}

/// Widens the span of `key` in `m` to chain position `k`.
fn widen<K: std::hash::Hash + Eq>(m: &mut FxHashMap<K, (usize, usize)>, key: K, k: usize) {
    let e = m.entry(key).or_insert((k, k));
    e.0 = e.0.min(k);
    e.1 = e.1.max(k);
}

pub(super) fn legal_cuts(p: &mut Plan, g: &Graph, bytes: &[u8]) {
    let s = g.scan();
    let n = p.chain.len();
    if n == 0 {
        return;
    }
    // What the client sends of each chain record: the cut is measured on this, never on the
    // file's bytes (history before a boundary, other branches and side records are not sent).
    p.chain_tokens = crate::estimate::record_tokens(s, bytes, Some(&p.chain)).unwrap_or_else(|_| vec![0.0; n]);
    p.visible_tokens = p.chain_tokens.iter().sum();
    let run_start = p.runs.last().map_or(0, |r| r.start as usize);
    // Records forced into the summary: the prior compact pair and earlier sessions. A message
    // they share with the suffix changes anyway (the summary replaces them), so a cut right
    // after them is legal. Something is always summarised.
    let forced = p.prior_compact.len().max(run_start);
    let min_cut = forced.max(1);
    // Spans that must stay on one side: the records of one API message (the client's rule:
    // assistant fragments sharing message.id); one tool id's use and results.
    let message_of = crate::client::chain::message_groups(s);
    let mut spans: FxHashMap<u32, (usize, usize)> = FxHashMap::default();
    let mut tools: FxHashMap<&str, (usize, usize)> = FxHashMap::default();
    for (k, &i) in p.chain.iter().enumerate() {
        let r = &s.records[i as usize];
        widen(&mut spans, message_of[i as usize], k);
        if kind_is(s, i, "assistant") {
            for u in s.tables.tool_uses(r) {
                widen(&mut tools, s.str(u.id), k);
            }
        }
        for id in s.tables.tool_results(r) {
            widen(&mut tools, s.str(*id), k);
        }
    }
    // A call answered across the session transition: the earlier session must be summarised,
    // so the turn would be split; strict topology stops there.
    if run_start > 0 && p.preserve_mode != PreserveMode::PhysicalTail {
        if let Some(&(lo, hi)) =
            spans.values().chain(tools.values()).find(|&&(lo, hi)| lo < run_start && run_start <= hi)
        {
            let (a, b, t) = (line(s, p.chain[lo]), line(s, p.chain[hi]), line(s, p.chain[run_start]));
            p.stop(Stop {
                status: Status::SessionMismatch,
                lines: vec![a, b, t],
                message: format!("lines {a} and {b} are one API turn across the session transition at line {t}: the earlier session must be summarised, which would split it"),
                recovery: vec!["--preserve-physical-tail (compatibility mode: no branch isolation)".into()],
            });
        }
    }
    let mut diff = vec![0i32; n + 2];
    for &(lo, hi) in spans.values().chain(tools.values()) {
        if hi > lo {
            diff[lo + 1] += 1;
            diff[hi + 1] -= 1;
        }
    }
    let mut suffix = vec![0u64; n + 1];
    let mut suffix_tokens = vec![0f64; n + 1];
    for k in (0..n).rev() {
        suffix[k] = suffix[k + 1] + s.records[p.chain[k] as usize].len as u64 + 1;
        suffix_tokens[k] = suffix_tokens[k + 1] + p.chain_tokens[k];
    }
    let mut inside = 0i32;
    let mut prev: Option<usize> = None;
    for k in 0..n {
        inside += diff[k];
        let i = p.chain[k];
        if !relevant(g, i) {
            continue;
        }
        let starts_message = kind_is(s, i, "assistant")
            || match prev {
                None => true,
                Some(q) => q < forced || kind_is(s, p.chain[q], "assistant"),
            };
        if k >= min_cut && inside == 0 && starts_message {
            let prompt = p.chain[k..].iter().take_while(|&&x| !kind_is(s, x, "assistant")).any(|&x| human_prompt(g, x));
            p.legal_cuts.push(k as u32);
            p.prompt_cuts.push(prompt);
            p.cut_bytes.push(suffix[k]);
            p.cut_tokens.push(suffix_tokens[k]);
        }
        prev = Some(k);
    }
}

pub(super) fn choose(p: &mut Plan, opts: &Options) {
    if p.legal_cuts.is_empty() {
        if !p.chain.is_empty() {
            p.warnings.push(Warning {
                code: "no-legal-cut",
                lines: vec![],
                message:
                    "no position on the chain can start a kept suffix without splitting an API turn or a merged message"
                        .into(),
            });
        }
        return;
    }
    if let Some(c) = opts.cut_at {
        // The caller narrows the cut itself (a token ceiling); an illegal position is no cut.
        p.cut = p.legal_cuts.contains(&c).then_some(c);
        return;
    }
    let n = p.chain.len() as u32;
    // The share of what the client would send, capped by the ceiling when there is one.
    let target = (opts.target_ratio * p.visible_tokens).min(opts.max_kept_tokens.unwrap_or(f64::INFINITY));
    let all: Vec<usize> = (0..p.legal_cuts.len()).collect();
    let within = |js: &[usize]| -> Vec<usize> { js.iter().copied().filter(|&j| p.cut_tokens[j] <= target).collect() };
    // At least min_recent_records kept when such a suffix fits the target; when none does, the
    // target wins (a few huge records at the end must not keep the session whole).
    let enough: Vec<usize> =
        all.iter().copied().filter(|&j| n - p.legal_cuts[j] >= opts.min_recent_records.max(1)).collect();
    let mut fits = within(&enough);
    if fits.is_empty() {
        fits = within(&all);
    }
    // The largest suffix within the target; a human prompt is "in reach" when starting there
    // keeps at least half of that suffix's tokens. Nothing fits: the shortest legal suffix.
    let j = match fits.first() {
        None => *all.last().unwrap(),
        Some(&best) => fits
            .iter()
            .copied()
            .find(|&j| p.prompt_cuts[j] && p.cut_tokens[j] * 2.0 >= p.cut_tokens[best])
            .unwrap_or(best),
    };
    p.cut = Some(p.legal_cuts[j]);
}

pub(super) fn partition(p: &mut Plan, g: &Graph, bytes: &[u8], opts: &Options) {
    const UNSET: u8 = u8::MAX;
    let s = g.scan();
    let n = s.records.len();
    let mut set = vec![UNSET; n];
    let cut = p.cut.map_or(p.chain.len(), |c| c as usize);
    for (k, &i) in p.chain.iter().enumerate() {
        set[i as usize] = if k < cut { SetKind::Summary as u8 } else { SetKind::RawKeep as u8 };
    }
    let tail_from = p.chain.get(cut).copied().unwrap_or(NONE);
    let physical = p.preserve_mode == PreserveMode::PhysicalTail && tail_from != NONE;
    if physical {
        for (k, r) in set.iter_mut().zip(&s.records).skip(tail_from as usize) {
            if *k == UNSET && r.uuid.is_some() {
                *k = SetKind::RawKeep as u8;
            }
        }
    }
    if p.pointer != NONE {
        set[p.pointer as usize] = SetKind::ControlProjection as u8;
    }
    let mut seen: FxHashSet<&str> = FxHashSet::default();
    for i in (0..n).rev() {
        let Some(k) = s.records[i].kind.map(|v| s.str(v)) else { continue };
        if set[i] == UNSET && SESSION_METADATA.contains(&k) && seen.insert(k) {
            set[i] = SetKind::ControlProjection as u8;
            p.metadata.push(i as u32);
        }
    }
    p.metadata.reverse();
    let kept: FxHashSet<&str> = (0..n)
        .filter(|&i| set[i] == SetKind::RawKeep as u8)
        .filter_map(|i| s.records[i].uuid.map(|u| s.str(u)))
        .collect();
    let mut budget = opts.max_checkpoints;
    for i in (0..n).rev() {
        if budget == 0 || set[i] != UNSET || !kind_is(s, i as u32, "file-history-snapshot") {
            continue;
        }
        let keep = match opts.checkpoint_policy {
            CheckpointPolicy::None => false,
            CheckpointPolicy::PreserveRecent => physical && i as u32 >= tail_from,
            CheckpointPolicy::ActiveCorrelated => parse_line(bytes, &s.records[i])
                .is_some_and(|v| as_str(get(&v, "messageId")).is_some_and(|m| kept.contains(m))),
        };
        if keep {
            set[i] = SetKind::SideKeep as u8;
            budget -= 1;
        }
    }
    for (i, k) in set.iter_mut().enumerate() {
        if *k == UNSET {
            *k =
                if s.records[i].uuid.is_some() { SetKind::ExcludedBranch } else { SetKind::ExcludedUnattributed } as u8;
        }
    }
    assert!(set.iter().all(|&k| (k as usize) < SetKind::ALL.len()), "the partition covers every record");
    p.sets = set.into_iter().map(|k| SetKind::ALL[k as usize]).collect();
}
