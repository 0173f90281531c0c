//! Ranked full-text search over an estate's conversations.
//!
//! Documents are transcript files: a session's main transcript and each of its subagents'.
//! Hits are sessions (a session's best-scoring file stands for it): "when did we discuss X" is
//! answered by a session one can resume, and one long session repeating a word should not fill
//! every slot of the answer as turns would. Each document is a [`segment`]: a sorted term table with, per term, its
//! frequency and the record where it occurs most, so a hit's snippet is made by reading back
//! only a few records by their byte span. Ranking is BM25 summed over the query's terms, so a
//! document holding two of three terms still ranks (no AND cliff); a quoted phrase found
//! contiguous in a hit's best records earns a bonus.
//!
//! The index is the segments written to one file outside the estate, refreshed per file by
//! (size, mtime): an unchanged file's segment is reused; a file that grew, whose old last 4 KiB
//! are unchanged and end a line, has only its new bytes read and merged in; any other change
//! (shrunk, rewritten) rebuilds that file's segment from all its bytes. The index file is then
//! replaced atomically (temp file, fsync, rename).

pub mod build;
pub mod exact;
pub mod extract;
pub mod find;
pub mod segment;
pub mod tokenize;

pub use build::Source;
pub use extract::Fields;

use crate::scan::Progress;
use segment::{Posting, Segment, NO_TIME};
use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

const MAGIC: &[u8; 8] = b"CJLFIND\x02";
const HEADER: usize = 8 + 4 + 4 + 8;

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

enum Held {
    Index(usize, usize),
    Own(Vec<u8>),
}

/// The estate's documents, from the index file, from a fresh scan, or both.
pub struct Corpus {
    base: Vec<u8>,
    held: Vec<Held>,
    /// Files whose segment came from the index unchanged, and files scanned now.
    pub reused: usize,
    pub rescanned: usize,
    /// Of the files scanned, those that only grew: just their new bytes were read.
    pub appended: usize,
    pub rescanned_bytes: u64,
    /// When the index file now on disk was written (ms since the epoch), if one is used.
    pub index_built_ms: Option<f64>,
    pub index_written: bool,
    /// Why the index could not be written (the answer is still complete).
    pub index_error: Option<String>,
    /// Files that could not be read, with why.
    pub failed: Vec<(String, String)>,
}

impl Corpus {
    pub fn len(&self) -> usize {
        self.held.len()
    }
    pub fn is_empty(&self) -> bool {
        self.held.is_empty()
    }
    pub fn segments(&self) -> Vec<Segment<'_>> {
        self.held
            .iter()
            .map(|h| {
                let b = match h {
                    Held::Index(a, z) => &self.base[*a..*z],
                    Held::Own(v) => v.as_slice(),
                };
                Segment::parse(b).expect("validated when loaded or built").0
            })
            .collect()
    }
}

fn now_ms() -> f64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0.0, |d| d.as_secs_f64() * 1000.0)
}

/// Reads an index file: its segments by path (byte ranges into the returned buffer), or None
/// when absent, unreadable, for other fields, or damaged in any way (then it is rebuilt).
type Loaded = (Vec<u8>, f64, Vec<(usize, usize)>);

fn load_index(path: &Path, fields: Fields) -> Option<Loaded> {
    let bytes = std::fs::read(path).ok()?;
    if bytes.len() < HEADER || &bytes[..8] != MAGIC || bytes[8] != fields.bits() {
        return None;
    }
    let n = u32::from_le_bytes(bytes[12..16].try_into().ok()?) as usize;
    let built = f64::from_le_bytes(bytes[16..24].try_into().ok()?);
    let mut at = HEADER;
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let (_, len) = Segment::parse(&bytes[at..])?;
        out.push((at, at + len));
        at += len;
    }
    (at == bytes.len()).then_some((bytes, built, out))
}

/// Writes the index atomically: a temp file beside it, fsynced, then renamed over it.
fn write_index(path: &Path, fields: Fields, built_ms: f64, segments: &[&[u8]]) -> io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let tmp = dir.join(format!(
        ".{}.{}.tmp",
        path.file_name().map_or("index".into(), |n| n.to_string_lossy()),
        std::process::id()
    ));
    let result = (|| {
        let mut f = io::BufWriter::with_capacity(1 << 20, File::create(&tmp)?);
        f.write_all(MAGIC)?;
        f.write_all(&[fields.bits(), 0, 0, 0])?;
        f.write_all(&(segments.len() as u32).to_le_bytes())?;
        f.write_all(&built_ms.to_le_bytes())?;
        for s in segments {
            f.write_all(s)?;
        }
        let f = f.into_inner().map_err(|e| e.into_error())?;
        f.sync_all()?;
        drop(f);
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// Whether the file only grew since its segment was made: the bytes before the old size still
/// end the same way (hash of the last 4 KiB) and end a line.
fn appended_only(seg_bytes: &[u8], s: &Source) -> bool {
    let Some((seg, _)) = Segment::parse(seg_bytes) else { return false };
    let Ok(f) = File::open(&s.path) else { return false };
    matches!(build::tail_of(&f, seg.size), Ok((hash, true)) if hash == seg.tail_hash)
}

/// The documents for `sources`: reused from the index at `index` where (size, mtime) still
/// match, built from the files otherwise, and the index rewritten when anything changed.
/// Without `index` everything is scanned and nothing is written.
pub fn open(sources: &[Source], fields: Fields, index: Option<&Path>, progress: &Progress) -> Corpus {
    let loaded = index.and_then(|p| load_index(p, fields));
    let (base, built_ms, ranges) = loaded.map_or((Vec::new(), None, Vec::new()), |(b, t, r)| (b, Some(t), r));
    let mut by_path: rustc_hash::FxHashMap<&str, (usize, usize, u64, f64)> = Default::default();
    for &(a, z) in &ranges {
        let (s, _) = Segment::parse(&base[a..z]).expect("validated by load_index");
        by_path.insert(s.path, (a, z, s.size, s.mtime_ms));
    }
    let mut held: Vec<Option<Held>> = Vec::with_capacity(sources.len());
    let mut todo: Vec<(usize, build::Job)> = Vec::new();
    let mut appended = 0;
    for (i, s) in sources.iter().enumerate() {
        let key = s.path.to_string_lossy();
        let had = by_path.get(key.as_ref()).copied();
        match had {
            Some((a, z, size, mtime)) if size == s.size && mtime == s.mtime_ms => held.push(Some(Held::Index(a, z))),
            Some((a, z, size, _)) if size > 0 && size < s.size && appended_only(&base[a..z], s) => {
                held.push(None);
                appended += 1;
                let prev = Segment::parse(&base[a..z]).map(|(seg, _)| seg);
                todo.push((i, build::Job { src: s, from: size, prev }));
            }
            _ => {
                held.push(None);
                todo.push((i, build::Job { src: s, from: 0, prev: None }));
            }
        }
    }
    let reused = sources.len() - todo.len();
    let stale = ranges.len() != reused;
    let rescanned_bytes = todo.iter().map(|(_, j)| j.src.size - j.from).sum();
    let jobs: Vec<build::Job> =
        todo.iter().map(|(_, j)| build::Job { src: j.src, from: j.from, prev: j.prev }).collect();
    let mut failed = Vec::new();
    for ((i, _), r) in todo.iter().zip(build::build(&jobs, fields, progress)) {
        match r {
            Ok(seg) => held[*i] = Some(Held::Own(seg)),
            Err(e) => failed.push((sources[*i].path.to_string_lossy().into_owned(), crate::io_message(&e))),
        }
    }
    let n_todo = todo.len();
    drop(jobs);
    drop(todo);
    let held: Vec<Held> = held.into_iter().flatten().collect();
    let mut corpus = Corpus {
        base,
        held,
        reused,
        rescanned: n_todo,
        appended,
        rescanned_bytes,
        index_built_ms: built_ms,
        index_written: false,
        index_error: None,
        failed,
    };
    if let Some(path) = index {
        if n_todo > 0 || stale || built_ms.is_none() {
            let now = now_ms();
            let segs: Vec<&[u8]> = corpus
                .held
                .iter()
                .map(|h| match h {
                    Held::Index(a, z) => &corpus.base[*a..*z],
                    Held::Own(v) => v.as_slice(),
                })
                .collect();
            match write_index(path, fields, now, &segs) {
                Ok(()) => {
                    corpus.index_built_ms = Some(now);
                    corpus.index_written = true;
                }
                Err(e) => corpus.index_error = Some(format!("{}: {}", path.display(), crate::io_message(&e))),
            }
        }
    }
    corpus
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

fn project_matches(project: &str, want: &str) -> bool {
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
            filter.since_ms.is_none_or(|m| s.last_ms != NO_TIME && s.last_ms >= m)
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
            let best = best_record(seg.path, &post[j], q, &idfs, fields);
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
fn best_record(path: &str, posts: &[Option<Posting>], q: &Query, idfs: &[f64], fields: Fields) -> Best {
    let mut cands: Vec<Posting> = posts.iter().flatten().copied().collect();
    cands.sort_by_key(|p| p.offset);
    cands.dedup_by_key(|p| p.offset);
    let mut best: Option<(f64, Best)> = None;
    let file = File::open(path).ok();
    let mut parser = crate::scan::Parser::default();
    for p in cands {
        let Some(f) = &file else { break };
        let Ok(bytes) = crate::scan::read_span(f, p.offset, p.offset + p.len as u64) else { continue };
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
fn cut(text: &str, at: usize) -> String {
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

/// Where the index for these roots and fields lives inside `dir`.
pub fn index_path(dir: &Path, roots: &[PathBuf], fields: Fields) -> PathBuf {
    let mut key = Vec::new();
    for r in roots {
        key.extend_from_slice(r.to_string_lossy().as_bytes());
        key.push(0);
    }
    dir.join(format!("{:016x}-f{}.idx", xxhash_rust::xxh3::xxh3_64(&key), fields.bits()))
}

#[cfg(test)]
mod tests;
