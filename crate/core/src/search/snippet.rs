//! A hit's snippet: a record's text scored for the query and cut around its densest cluster of
//! matches.

use super::rank::Query;
use super::tokenize;

/// Characters of context shown around the best match.
const SNIPPET_BEFORE: usize = 60;
const SNIPPET_LEN: usize = 220;

/// Scores a record's text for the query (sum of idf over the distinct terms it holds, plus the
/// phrases found contiguous) and cuts a snippet around its densest cluster of matches.
pub fn snippet_of(text: &str, q: &Query, idfs: &[f64]) -> (f64, String, Vec<Vec<usize>>) {
    let mut toks: Vec<(Option<usize>, usize, usize)> = Vec::new();
    let mut buf = Vec::new();
    tokenize::tokens(text, &mut buf, |t, s, e| {
        toks.push((q.terms.iter().position(|x| x.as_bytes() == t), s, e));
    });
    let mut seen = vec![false; q.terms.len()];
    for (k, _, _) in &toks {
        if let Some(k) = k {
            seen[*k] = true;
        }
    }
    let mut value: f64 = seen.iter().zip(idfs).filter(|(s, _)| **s).map(|(_, v)| v).sum();
    let mut phrases = Vec::new();
    let mut phrase_at = None;
    for ph in &q.phrases {
        let at = (0..toks.len().saturating_sub(ph.len() - 1))
            .find(|&i| ph.iter().enumerate().all(|(j, &k)| toks[i + j].0 == Some(k)));
        if let Some(i) = at {
            value += ph.iter().map(|&k| idfs[k]).sum::<f64>();
            phrases.push(ph.clone());
            phrase_at.get_or_insert(toks[i].1);
        }
    }
    // The window of SNIPPET_LEN bytes starting at a match that holds the most distinct terms.
    let matches: Vec<(usize, usize)> = toks.iter().filter_map(|(k, s, _)| k.map(|k| (k, *s))).collect();
    let mut anchor = phrase_at;
    if anchor.is_none() {
        let mut best = (0usize, 0usize);
        for (i, &(_, s)) in matches.iter().enumerate() {
            let mut here = vec![false; q.terms.len()];
            for &(k, s2) in &matches[i..] {
                if s2 >= s + SNIPPET_LEN - SNIPPET_BEFORE {
                    break;
                }
                here[k] = true;
            }
            let count = here.iter().filter(|h| **h).count();
            if count > best.0 {
                best = (count, s);
            }
        }
        anchor = (best.0 > 0).then_some(best.1);
    }
    (value, cut(text, anchor.unwrap_or(0)), phrases)
}

fn floor_char(s: &str, mut i: usize) -> usize {
    while i > 0 && !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// About SNIPPET_LEN bytes of `text` around byte `at`, whitespace collapsed, cut at word
/// boundaries where one is near, with an ellipsis where text was left out.
pub(super) fn cut(text: &str, at: usize) -> String {
    let mut start = floor_char(text, at.saturating_sub(SNIPPET_BEFORE));
    if start > 0 {
        if let Some(sp) = text[start..floor_char(text, at)].find(char::is_whitespace) {
            start += sp;
        }
    }
    let mut end = floor_char(text, (start + SNIPPET_LEN).min(text.len()));
    if end < text.len() {
        if let Some(sp) = text[start..end].rfind(char::is_whitespace) {
            if sp > SNIPPET_LEN / 2 {
                end = start + sp;
            }
        }
    }
    let mut out = String::new();
    if start > 0 {
        out.push('…');
    }
    let mut space = false;
    for c in text[start..end].chars() {
        if c.is_whitespace() {
            space = true;
            continue;
        }
        if space && !out.is_empty() && !out.ends_with('…') {
            out.push(' ');
        }
        space = false;
        out.push(c);
    }
    if end < text.len() {
        out.push('…');
    }
    out
}
