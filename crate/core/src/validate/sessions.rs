//! The resume pointer and the sessions along the chain.

use super::codes::Code;
use super::Ctx;
use crate::client::Pointer;
use crate::graph::NONE;

pub(super) fn check_pointer(cx: &mut Ctx, c: &crate::client::LeafChoice) {
    let pl = (c.pointer_record != NONE).then(|| cx.line(c.pointer_record));
    match c.pointer {
        Pointer::Unknown => {
            let l = pl.unwrap_or(0);
            cx.push(
                Code::PointerUnknown,
                vec![l],
                format!("line {l}: the last last-prompt's leafUuid names no record of this file"),
            )
        }
        Pointer::InteriorOnChain => {
            let (l, t) = (pl.unwrap_or(0), cx.line(c.pointer_target));
            cx.push(Code::PointerStale,
                vec![l, t],
                format!("line {l}: the last last-prompt names line {t}, which has descendants on the chain; the client ignores it and resumes from the last record"),
            )
        }
        Pointer::InteriorOffChain if c.named_leaf != c.pointer_target => {
            let (l, t, r) = (pl.unwrap_or(0), cx.line(c.pointer_target), cx.line(c.named_leaf));
            cx.push(
                Code::PointerTruncates,
                vec![l, t, r],
                format!("line {l}: the last last-prompt names line {t}, a tool call inside one branch: the client resumes from its result (line {r}) and drops what follows"),
            )
        }
        Pointer::InteriorOffChain => {
            let (l, t) = (pl.unwrap_or(0), cx.line(c.pointer_target));
            cx.push(Code::PointerTruncates,
                vec![l, t],
                format!("line {l}: the last last-prompt names line {t}, inside one branch: the client resumes there and drops what follows"),
            )
        }
        _ => {}
    }
    if c.stepped_back() {
        let (n, r) = (cx.line(c.named_leaf), cx.line(c.leaf));
        cx.push(Code::SilentTail, vec![n, r], crate::client::leaf::describe_step_back(n, r))
    }
}

/// sessionId: runs along the chain must not return to an earlier session; the final run must be
/// the pointer's session and the file's. Returns the sessions of the file with their counts.
pub(super) fn check_sessions(
    cx: &mut Ctx,
    chain: &crate::client::Chain,
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
        if chain.origins[k] != crate::client::Origin::Chain {
            continue;
        }
        let r = &s.records[i as usize];
        let Some(v) = r.session_id.map(|v| s.str(v)) else { continue };
        if runs.last().is_none_or(|(last, _)| *last != v) {
            if let Some((_, first)) = runs.iter().find(|(x, _)| *x == v) {
                cx.push(Code::SessionLineageReturns,
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
                    cx.push(
                        Code::SessionMismatch,
                        vec![pr.line, cx.line(leaf)],
                        format!("line {}: the last last-prompt is session {ps}, the leaf's is {fin}", pr.line),
                    );
                }
            }
        }
        if let Some(fs) = file_session {
            if fs != fin {
                cx.push(
                    Code::FileSessionDiffers,
                    vec![cx.line(leaf)],
                    format!("the file is session {fs}, but its active chain ends in session {fin}: the client resumes it as {fs} (it goes by the file name)"),
                );
            }
        }
    }
    if runs.len() > 1 {
        let desc: Vec<String> = runs.iter().map(|(v, l)| format!("{v} from line {l}")).collect();
        cx.push(
            Code::SessionLineage,
            runs.iter().map(|r| r.1).collect(),
            format!("the active chain spans {} sessions, one way: {}", runs.len(), desc.join(", ")),
        );
    }
    if counts.len() > 1 {
        let desc: Vec<String> = counts.iter().map(|(v, n)| format!("{v} ×{n}")).collect();
        cx.push(Code::MixedSessions, vec![], format!("records carry {} sessionIds: {}", counts.len(), desc.join(", ")));
    }
    counts
}
