//! BM25 ranking of a corpus for a query: one hit per session, its best-scoring file, with the
//! record its snippet comes from read back by byte span.

use super::build;
use super::corpus::Corpus;
use super::extract::Fields;
use super::segment::{Posting, NO_TIME};
use super::snippet::snippet_of;
use super::tokenize;
use std::fs::File;

/// BM25 parameters (the usual defaults).
pub const K1: f64 = 1.2;
pub const B: f64 = 0.75;

/// Inverse document frequency, BM25's form (never negative).
pub fn idf(n_docs: u64, df: u64) -> f64 {
    (1.0 + (n_docs as f64 - df as f64 + 0.5) / (df as f64 + 0.5)).ln()
}

/// One term's BM25 contribution for a document of `len` tokens.
pub fn bm25_term(idf: f64, tf: u32, len: u64, avg_len: f64) -> f64 {
    let tf = tf as f64;
    let norm = if avg_len > 0.0 { len as f64 / avg_len } else { 1.0 };
    idf * tf * (K1 + 1.0) / (tf + K1 * (1.0 - B + B * norm))
}

/// A query: distinct terms, and phrases as term-index sequences.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Query {
    pub terms: Vec<String>,
    pub phrases: Vec<Vec<usize>>,
}

impl Query {
    /// Parses command-line terms: text inside double quotes, or an argument holding several
    /// words (the shell kept it together), is a phrase; every word is also a term on its own.
    pub fn parse(args: &[String]) -> Query {
        let mut q = Query::default();
        let add = |q: &mut Query, part: &str, phrase: bool| {
            let toks = tokenize::token_list(part);
            let mut ids = Vec::new();
            for t in toks {
                let id = match q.terms.iter().position(|x| *x == t) {
                    Some(i) => i,
                    None => {
                        q.terms.push(t);
                        q.terms.len() - 1
                    }
                };
                ids.push(id);
            }
            if phrase && ids.len() > 1 && !q.phrases.contains(&ids) {
                q.phrases.push(ids);
            }
        };
        for a in args {
            if a.contains('"') {
                for (i, part) in a.split('"').enumerate() {
                    add(&mut q, part, i % 2 == 1);
                }
            } else {
                add(&mut q, a, true);
            }
        }
        q
    }
}

#[derive(Debug, Default, Clone)]
pub struct Filter {
    /// Sessions whose last searchable record is at or after this time.
    pub since_ms: Option<i64>,
    /// A substring of the project folder name (Claude Code's encoded cwd); `/`, `.`, `_` and
    /// spaces match the `-` they were encoded to. Case-insensitive.
    pub project: Option<String>,
}

pub(super) fn project_matches(project: &str, want: &str) -> bool {
    let norm = |s: &str| {
        s.chars()
            .map(|c| if c.is_alphanumeric() { c.to_lowercase().next().unwrap_or(c) } else { '-' })
            .collect::<String>()
    };
    norm(project).contains(&norm(want))
}

#[derive(Debug, Clone)]
pub struct Hit {
    pub score: f64,
    pub doc: usize,
    pub path: String,
    pub project: String,
    pub session_id: String,
    /// Set when the best match is in a subagent's transcript.
    pub agent_id: Option<String>,
    pub first_ms: i64,
    pub last_ms: i64,
    /// The record the snippet comes from.
    pub line: u32,
    pub offset: u64,
    pub len: u32,
    pub timestamp: Option<String>,
    pub snippet: String,
    /// Query terms the session holds.
    pub matched: Vec<String>,
    /// Phrases found contiguous in the snippet's record.
    pub phrases_found: usize,
}

#[derive(Debug, Default)]
pub struct Answer {
    pub hits: Vec<Hit>,
    /// Documents and bytes the query ran over (after --since / --project).
    pub docs: usize,
    pub bytes: u64,
    /// Sessions in scope (a session's subagent files are documents of their own).
    pub sessions: usize,
    /// Documents, and sessions, holding at least one term.
    pub matching_docs: usize,
    pub matching_sessions: usize,
    /// Document frequency of each query term, in query order.
    pub df: Vec<u64>,
}

/// Ranks the documents for `q` and makes snippets for the best `limit`.
pub fn search(corpus: &Corpus, q: &Query, filter: &Filter, fields: Fields, limit: usize) -> Answer {
    let segs = corpus.segments();
    let scope: Vec<usize> = (0..segs.len())
        .filter(|&i| {
            let s = &segs[i];
            !corpus.excluded[i]
                && filter.since_ms.is_none_or(|m| s.last_ms != NO_TIME && s.last_ms >= m)
                && filter.project.as_deref().is_none_or(|p| project_matches(s.project, p))
        })
        .collect();
    let mut ans = Answer { docs: scope.len(), bytes: scope.iter().map(|&i| segs[i].size).sum(), ..Default::default() };
    ans.sessions =
        scope.iter().map(|&i| (segs[i].project, segs[i].session_id)).collect::<rustc_hash::FxHashSet<_>>().len();
    let n = scope.len() as u64;
    let avg = if n == 0 { 0.0 } else { scope.iter().map(|&i| segs[i].tokens).sum::<u64>() as f64 / n as f64 };
    // Postings per (document in scope, term).
    let mut post: Vec<Vec<Option<Posting>>> = Vec::with_capacity(scope.len());
    ans.df = vec![0; q.terms.len()];
    for &i in &scope {
        let row: Vec<Option<Posting>> = q.terms.iter().map(|t| segs[i].lookup(t.as_bytes())).collect();
        for (k, p) in row.iter().enumerate() {
            ans.df[k] += p.is_some() as u64;
        }
        post.push(row);
    }
    let idfs: Vec<f64> = ans.df.iter().map(|&df| idf(n, df)).collect();
    let mut ranked: Vec<(f64, usize)> = Vec::new();
    for (j, &i) in scope.iter().enumerate() {
        let mut score = 0.0;
        for (k, p) in post[j].iter().enumerate() {
            if let Some(p) = p {
                score += bm25_term(idfs[k], p.tf, segs[i].tokens, avg);
            }
        }
        if score > 0.0 {
            ranked.push((score, j));
        }
    }
    ans.matching_docs = ranked.len();
    let by_score = |a: &(f64, usize), b: &(f64, usize)| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1));
    ranked.sort_by(by_score);
    // One hit per session: its best-scoring file (the main transcript or a subagent's).
    let mut seen_sessions = rustc_hash::FxHashSet::default();
    ranked.retain(|&(_, j)| seen_sessions.insert((segs[scope[j]].project, segs[scope[j]].session_id)));
    ans.matching_sessions = ranked.len();
    // With phrases, more candidates get snippets, since the phrase bonus can reorder them.
    let pool = if q.phrases.is_empty() { limit } else { (limit * 3).max(30) };
    ranked.truncate(pool);
    let mut hits: Vec<Hit> = ranked
        .iter()
        .map(|&(score, j)| {
            let seg = &segs[scope[j]];
            let best = best_record(seg.path, corpus.archived.get(seg.path), &post[j], q, &idfs, fields);
            let phrase_bonus: f64 = best.phrases.iter().map(|ph| ph.iter().map(|&k| idfs[k]).sum::<f64>()).sum();
            Hit {
                score: score + phrase_bonus,
                doc: scope[j],
                path: seg.path.into(),
                project: seg.project.into(),
                session_id: seg.session_id.into(),
                agent_id: (!seg.agent_id.is_empty()).then(|| seg.agent_id.to_string()),
                first_ms: seg.first_ms,
                last_ms: seg.last_ms,
                line: best.post.line,
                offset: best.post.offset,
                len: best.post.len,
                timestamp: best.timestamp,
                snippet: best.snippet,
                matched: q.terms.iter().zip(&post[j]).filter(|(_, p)| p.is_some()).map(|(t, _)| t.clone()).collect(),
                phrases_found: best.phrases.len(),
            }
        })
        .collect();
    hits.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.doc.cmp(&b.doc)));
    hits.truncate(limit);
    ans.hits = hits;
    ans
}

struct Best {
    post: Posting,
    timestamp: Option<String>,
    snippet: String,
    phrases: Vec<Vec<usize>>,
}

/// Of the records where the session's matched terms occur most, the one covering the most
/// (and rarest) query terms, read back by its byte span; and a snippet around its best match.
/// An archived file (`archived`) is decoded into memory once for its hit.
fn best_record(
    path: &str,
    archived: Option<&super::Source>,
    posts: &[Option<Posting>],
    q: &Query,
    idfs: &[f64],
    fields: Fields,
) -> Best {
    let mut cands: Vec<Posting> = posts.iter().flatten().copied().collect();
    cands.sort_by_key(|p| p.offset);
    cands.dedup_by_key(|p| p.offset);
    let mut best: Option<(f64, Best)> = None;
    let (file, whole) = match archived {
        Some(src) => (None, src.bytes().ok()),
        None => (File::open(path).ok(), None),
    };
    let mut parser = crate::scan::Parser::default();
    for p in cands {
        let (a, z) = (p.offset, p.offset + p.len as u64);
        let bytes = match (&file, &whole) {
            (_, Some(w)) => w.get(a as usize..(z as usize).min(w.len())).unwrap_or_default().to_vec(),
            (Some(f), None) => match crate::scan::read_span(f, a, z) {
                Ok(b) => b,
                Err(_) => continue,
            },
            (None, None) => break,
        };
        if bytes.len() != p.len as usize {
            continue;
        }
        let made = build::with_record_text(&mut parser, &bytes, fields, |texts, stamp| {
            let text = texts.join("\n");
            let (value, snippet, phrases) = snippet_of(&text, q, idfs);
            (value, Best { post: p, timestamp: stamp.timestamp.map(String::from), snippet, phrases })
        });
        if let Some((value, b)) = made {
            if best.as_ref().is_none_or(|(v, _)| value > *v) {
                best = Some((value, b));
            }
        }
    }
    best.map(|(_, b)| b).unwrap_or_else(|| Best {
        post: posts.iter().flatten().next().copied().unwrap_or_default(),
        timestamp: None,
        snippet: String::new(),
        phrases: Vec::new(),
    })
}
