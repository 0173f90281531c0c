//! Compact pairs: boundaries, summaries, the current pair and its metadata.

use super::codes::Code;
use super::{is_boundary, is_summary, join, Ctx, Report};
use crate::client::blocks::{content_of_value, Blank};
use crate::client::chain as client_chain;
use crate::graph::{Graph, Link, NONE};
use crate::scan::record;
use crate::scan::reparse::{as_str, get, parse_line};
use rustc_hash::{FxHashMap, FxHashSet};
use simd_json::OwnedValue as V;

/// Compact pairs: every boundary has exactly one summary child, every summary a boundary parent;
/// at most one current pair (on the parentUuid-only walk the client loads); the file's last pair
/// is on the active chain; the current boundary's metadata agrees with the chain. Returns the
/// model-visible records: what follows the current boundary on the loaded chain.
pub(super) fn check_compaction(cx: &mut Ctx, g: &Graph, chain: &crate::client::Chain, report: &mut Report) -> Vec<u32> {
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
            cx.push(
                Code::CompactBoundaryWithoutSummary,
                vec![bl],
                format!("line {bl}: compact boundary with no isCompactSummary child"),
            );
        } else if sums.len() > 1 {
            let mut lines = vec![bl];
            lines.extend(sums.iter().map(|&x| cx.line(x)));
            cx.push(
                Code::CompactSummaryMultiple,
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
            cx.push(
                Code::CompactSummaryWithoutBoundary,
                vec![r.line],
                format!("line {}: isCompactSummary record whose parent is not a compact boundary", r.line),
            );
        }
    }
    // What the client loads: the active chain with a live preserved segment relinked.
    let mut loaded: Vec<u32> = client_chain::load(g, cx.bytes, chain).records;
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
        cx.push(Code::MultipleCurrentCompactPairs,
            lines.clone(),
            format!("{} compact boundaries are live on the loaded chain (lines {}): older pairs must be folded, not stacked", current.len(), join(&lines)),
        );
    }
    let compressor_pairs: Vec<u32> = boundaries.iter().copied().filter(|&b| compressor_made(cx, b)).collect();
    if compressor_pairs.len() > 1 {
        let lines: Vec<u32> = compressor_pairs.iter().map(|&b| cx.line(b)).collect();
        cx.push(
            Code::MultipleCurrentCompactPairs,
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
            cx.push(
                Code::CompactPairUnreachable,
                vec![bl],
                format!("line {bl}: the file's last compact boundary is not on the active chain from the leaf"),
            );
        } else if let Some(&sm) = sums.first().filter(|x| !pos.contains_key(x)) {
            let sl = cx.line(sm);
            cx.push(
                Code::CompactPairUnreachable,
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

fn compressor_made(cx: &Ctx, b: u32) -> bool {
    let r = &cx.scan.records[b as usize];
    let Some(v) = parse_line(cx.bytes, r) else { return false };
    matches!(
        get(&v, "compactMetadata").and_then(|m| get(m, "codexOfflineCompression")),
        Some(V::Static(simd_json::StaticNode::Bool(true)))
    )
}

pub(super) fn check_compact_metadata(cx: &mut Ctx, g: &Graph, on_chain: &FxHashSet<u32>, b: u32, summary: Option<u32>) {
    let s = cx.scan;
    let bl = cx.line(b);
    if let Some(sm) = summary {
        if let Some(v) = parse_line(cx.bytes, &s.records[sm as usize]) {
            let blocks = content_of_value(&v, cx.line(sm)).blocks;
            if blocks.iter().filter(|b| b.is_text()).all(|b| b.blank != Blank::No) {
                let sl = cx.line(sm);
                cx.push(
                    Code::CompactSummaryEmpty,
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
            cx.push(
                Code::CompactMetadataMismatch,
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
                cx.push(
                    Code::CompactMetadataMismatch,
                    vec![bl, l],
                    format!("line {bl}: compactMetadata's selected leaf (line {l}) is not on the active chain"),
                )
            }
            None => cx.push(
                Code::CompactMetadataMismatch,
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
                    cx.push(
                        Code::CompactSegmentDiverged,
                        vec![bl, cx.line(*t)],
                        format!("line {bl}: the preserved segment's tail is not on the active chain (a later rewind)"),
                    );
                }
            }
            _ => problems.push("its headUuid or tailUuid is missing or names no record".into()),
        }
        if !problems.is_empty() {
            cx.push(
                Code::CompactSegmentBroken,
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
            cx.push(
                Code::CompactPreservedMissing,
                vec![bl],
                format!("line {bl}: {} preservedMessages uuids name no record (first: {})", missing.len(), missing[0]),
            );
        }
        if !off.is_empty() {
            let n = off.len();
            let mut lines = vec![bl];
            lines.extend(off);
            cx.push(
                Code::CompactPreservedDiverged,
                lines,
                format!("line {bl}: {n} preserved messages are not on the active chain (a later rewind)"),
            );
        }
    }
}
