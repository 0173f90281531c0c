//! The cold pass: files cut into 256 KiB units of whole lines (the scanner's unit size), each
//! unit's searchable text extracted and tokenized on rayon's pool, and a file's units joined
//! into its segment as soon as its last unit is done.

use super::extract::{self, Fields, Finders};
use super::segment::{self, DocMeta, Posting, Segment, NO_TIME, TAIL_BYTES};
use super::tokenize;
use crate::scan::{self, timestamp, Parser, Progress};
use rustc_hash::FxHashMap;
use std::cell::RefCell;
use std::fs::File;
use std::io;

#[derive(Default)]
struct Stat {
    tf: u32,
    best: u32,
    post: Posting,
    cur: u32,
    cur_rec: u32,
    cur_post: Posting,
}

impl Stat {
    /// The record being counted ends: keep its count when it is the term's best so far.
    fn end_record(&mut self) {
        if self.cur > self.best {
            self.best = self.cur;
            self.post = self.cur_post;
        }
        self.cur = 0;
    }
}

/// A unit's terms: their bytes in one arena and their statistics in one vector, so a unit
/// costs a few allocations rather than one per distinct term.
#[derive(Default)]
struct TermTable {
    arena: Vec<u8>,
    terms: Vec<(u32, u32, Stat)>,
}

impl TermTable {
    fn term(&self, i: usize) -> &[u8] {
        let (off, len, _) = self.terms[i];
        &self.arena[off as usize..(off + len) as usize]
    }
}

/// Finds a term's slot in a [`TermTable`] by its 64-bit hash; the rare term whose hash is
/// already taken by another goes to an exact map.
#[derive(Default)]
struct TermIndex {
    by_hash: FxHashMap<u64, u32>,
    collided: FxHashMap<Box<[u8]>, u32>,
}

impl TermIndex {
    fn clear(&mut self) {
        self.by_hash.clear();
        self.collided.clear();
    }

    fn slot<'t>(&mut self, table: &'t mut TermTable, tok: &[u8]) -> &'t mut Stat {
        self.slot_hashed(table, tok, xxhash_rust::xxh3::xxh3_64(tok))
    }

    fn slot_hashed<'t>(&mut self, table: &'t mut TermTable, tok: &[u8], h: u64) -> &'t mut Stat {
        let new = |table: &mut TermTable| {
            let i = table.terms.len() as u32;
            table.terms.push((table.arena.len() as u32, tok.len() as u32, Stat::default()));
            table.arena.extend_from_slice(tok);
            i
        };
        let i = match self.by_hash.get(&h) {
            Some(&i) if table.term(i as usize) == tok => i,
            Some(_) => match self.collided.get(tok) {
                Some(&i) => i,
                None => {
                    let i = new(table);
                    self.collided.insert(tok.into(), i);
                    i
                }
            },
            None => {
                let i = new(table);
                self.by_hash.insert(h, i);
                i
            }
        };
        &mut table.terms[i as usize].2
    }
}

/// What one unit found: per-term statistics with unit-relative line numbers.
#[derive(Default)]
struct UnitTerms {
    table: TermTable,
    lines: u32,
    tokens: u64,
    records: u32,
    first_ms: i64,
    last_ms: i64,
    /// The first `sessionId` a record carried (names an old-layout subagent's parent).
    session_id: Option<String>,
}

#[derive(Default)]
struct Worker {
    parser: Parser,
    token: Vec<u8>,
    finders: Finders,
    index: TermIndex,
}

thread_local! {
    static WORKER: RefCell<Worker> = RefCell::new(Worker::default());
}

/// Parses one line (lone surrogate escapes repaired, as in the scanner) and hands its
/// searchable strings and stamp to `f`; None when the line is not valid JSON.
pub fn with_record_text<R>(
    parser: &mut Parser,
    line: &[u8],
    fields: Fields,
    f: impl FnOnce(&[&str], extract::Stamp) -> R,
) -> Option<R> {
    parser
        .parse_with(line, |tape| {
            let mut texts = Vec::new();
            let stamp = extract::record_text(tape, fields, &mut texts);
            f(&texts, stamp)
        })
        .map(|(r, _)| r)
}

fn scan_unit(w: &mut Worker, owned: &[u8], base: u64, fields: Fields) -> UnitTerms {
    let mut u = UnitTerms { first_ms: NO_TIME, last_ms: NO_TIME, ..Default::default() };
    let Worker { parser, token, finders, index } = w;
    index.clear();
    let mut lines = extract::TextLines::new(owned, fields, finders);
    for (n, (line_no, at, line)) in lines.by_ref().enumerate() {
        let here = Posting { tf: 0, best: 0, line: line_no, offset: base + at as u64, len: line.len() as u32 };
        let rid = n as u32 + 1;
        with_record_text(parser, line, fields, |texts, stamp| {
            if u.session_id.is_none() {
                u.session_id = stamp.session_id.map(String::from);
            }
            if texts.is_empty() {
                return;
            }
            u.records += 1;
            if let Some(ms) = stamp.timestamp.and_then(|t| timestamp::parse_ms(t.as_bytes())) {
                if u.first_ms == NO_TIME || ms < u.first_ms {
                    u.first_ms = ms;
                }
                if u.last_ms == NO_TIME || ms > u.last_ms {
                    u.last_ms = ms;
                }
            }
            for t in texts {
                tokenize::tokens(t, token, |tok, _, _| {
                    u.tokens += 1;
                    let stat = index.slot(&mut u.table, tok);
                    stat.tf += 1;
                    if stat.cur_rec != rid {
                        stat.end_record();
                        stat.cur_rec = rid;
                        stat.cur_post = here;
                    }
                    stat.cur += 1;
                });
            }
        });
    }
    u.lines = lines.lines;
    for (_, _, s) in &mut u.table.terms {
        s.end_record();
    }
    if index.by_hash.capacity() > 1 << 20 {
        *index = TermIndex::default();
    }
    u
}

/// A file to build a segment for.
#[derive(Clone, Debug)]
pub struct Source {
    pub path: std::path::PathBuf,
    pub project: String,
    /// Empty when the path does not say (an old-layout `agent-*.jsonl`): then the first
    /// `sessionId` in its records is used.
    pub session_id: String,
    /// Set for a subagent transcript (then `session_id` is its parent's).
    pub agent_id: Option<String>,
    pub size: u64,
    pub mtime_ms: f64,
    /// An archived transcript (no file is at `path`): its bytes are decoded from the archive's
    /// stream into memory when it is read.
    pub stored: Option<crate::archive::Stored>,
}

impl Source {
    pub fn of(f: &crate::estate::EstateFile) -> Source {
        Source {
            path: f.path.clone(),
            project: f.project.clone(),
            session_id: f.session_id.clone().unwrap_or_default(),
            agent_id: f.agent_id.clone(),
            size: f.size,
            mtime_ms: f.mtime_ms,
            stored: None,
        }
    }

    /// The whole file's bytes, read from disk or decoded from the archive.
    pub fn bytes(&self) -> io::Result<Vec<u8>> {
        match &self.stored {
            Some(s) => crate::archive::estate_scan::read_stored(s).map_err(io::Error::other),
            None => std::fs::read(&self.path),
        }
    }
}

/// The archived sources among `sources` (by index) grouped by the stream that holds them, for
/// `scan::run_in_memory`: a session's files are decoded from its stream together. Each group
/// holds positions in `which`.
pub fn stream_groups(sources: &[&Source], which: &[usize]) -> Vec<Vec<usize>> {
    let mut at: FxHashMap<(&std::path::Path, Option<u32>), usize> = FxHashMap::default();
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for (k, &i) in which.iter().enumerate() {
        let s = sources[i].stored.as_ref().expect("an archived source");
        let g = *at.entry((s.path.as_path(), s.segments)).or_insert_with(|| {
            groups.push(Vec::new());
            groups.len() - 1
        });
        groups[g].push(k);
    }
    groups
}

/// The bytes of the archived sources `group` (positions in `which`), decoded from their stream
/// together.
pub fn group_bytes(sources: &[&Source], which: &[usize], group: &[usize]) -> io::Result<Vec<Vec<u8>>> {
    let stored: Vec<&crate::archive::Stored> =
        group.iter().map(|&k| sources[which[k]].stored.as_ref().expect("an archived source")).collect();
    crate::archive::estate_scan::read_stored_group(&stored).map_err(io::Error::other)
}

/// The hash of a file's last (up to) TAIL_BYTES bytes before `size`, and whether they end
/// with a newline.
pub fn tail_of(f: &File, size: u64) -> io::Result<(u64, bool)> {
    Ok(tail_hash(&scan::read_span(f, size.saturating_sub(TAIL_BYTES), size)?))
}

/// `tail_of` for a file's bytes in memory.
pub fn tail_in(bytes: &[u8]) -> (u64, bool) {
    tail_hash(&bytes[bytes.len().saturating_sub(TAIL_BYTES as usize)..])
}

fn tail_hash(tail: &[u8]) -> (u64, bool) {
    (xxhash_rust::xxh3::xxh3_64(tail), tail.last() == Some(&b'\n'))
}

fn join(job: &Job, parts: Vec<UnitTerms>, tail_hash: u64) -> io::Result<Vec<u8>> {
    let src = job.src;
    let mut meta = match &job.prev {
        Some(prev) => prev.meta(),
        None => {
            DocMeta { session_id: src.session_id.clone(), first_ms: NO_TIME, last_ms: NO_TIME, ..Default::default() }
        }
    };
    meta.path = src.path.to_string_lossy().into_owned();
    meta.project = src.project.clone();
    meta.agent_id = src.agent_id.clone().unwrap_or_default();
    meta.size = src.size;
    meta.mtime_ms = src.mtime_ms;
    meta.tail_hash = tail_hash;
    let posting = |s: &Stat, shift: u32| Posting { tf: s.tf, best: s.best, line: s.post.line + shift, ..s.post };
    let mut shift = meta.lines;
    for p in &parts {
        if meta.session_id.is_empty() {
            meta.session_id = p.session_id.clone().unwrap_or_default();
        }
        meta.tokens += p.tokens;
        meta.records += p.records;
        if p.first_ms != NO_TIME && (meta.first_ms == NO_TIME || p.first_ms < meta.first_ms) {
            meta.first_ms = p.first_ms;
        }
        if p.last_ms != NO_TIME && (meta.last_ms == NO_TIME || p.last_ms > meta.last_ms) {
            meta.last_ms = p.last_ms;
        }
    }
    // One unit and nothing before it (most files): its table is the document's.
    if let ([p], None) = (parts.as_slice(), &job.prev) {
        let terms = (0..p.table.terms.len()).map(|i| (p.table.term(i), posting(&p.table.terms[i].2, shift))).collect();
        meta.lines = shift + p.lines;
        return Ok(segment::encode(&meta, terms));
    }
    let mut terms: FxHashMap<&[u8], Posting> = FxHashMap::default();
    if let Some(prev) = &job.prev {
        terms.reserve(prev.term_count());
        terms.extend(prev.terms());
    }
    for p in &parts {
        for (i, (_, _, s)) in p.table.terms.iter().enumerate() {
            let post = posting(s, shift);
            match terms.entry(p.table.term(i)) {
                std::collections::hash_map::Entry::Occupied(mut e) => {
                    let have = e.get_mut();
                    let tf = have.tf + s.tf;
                    if s.best > have.best {
                        *have = post;
                    }
                    have.tf = tf;
                }
                std::collections::hash_map::Entry::Vacant(e) => {
                    e.insert(post);
                }
            }
        }
        shift += p.lines;
    }
    meta.lines = shift;
    Ok(segment::encode(&meta, terms.into_iter().collect()))
}

/// One segment to make: the whole file, or (with `prev`) only what was appended after
/// `from`, merged into the segment it had.
pub struct Job<'a> {
    pub src: &'a Source,
    pub from: u64,
    pub prev: Option<Segment<'a>>,
}

/// Builds one segment per job, in parallel, on the scanner's unit engine; a file that cannot
/// be read yields its error.
/// An archived file's jobs are read whole from memory (decoded from their streams one at a time
/// per worker), the others from their files.
pub fn build(jobs: &[Job], fields: Fields, progress: &Progress) -> Vec<io::Result<Vec<u8>>> {
    let per_unit = |_: usize, unit: Option<(&[u8], scan::UnitPlace)>| match unit {
        Some((owned, at)) => WORKER.with(|cell| {
            let w = &mut *cell.borrow_mut();
            let terms = scan_unit(w, owned, at.base, fields);
            w.parser.trim();
            terms
        }),
        None => UnitTerms { first_ms: NO_TIME, last_ms: NO_TIME, ..Default::default() },
    };
    let (on_disk, in_memory): (Vec<usize>, Vec<usize>) = (0..jobs.len()).partition(|&i| jobs[i].src.stored.is_none());
    let units: Vec<scan::Job> =
        on_disk.iter().map(|&i| scan::Job::new(&jobs[i].src.path, jobs[i].from, jobs[i].src.size)).collect();
    let from_disk = scan::run(
        &units,
        progress,
        |k, u| per_unit(on_disk[k], u),
        |k, parts| {
            let j = &jobs[on_disk[k]];
            join(j, parts, tail_of(&File::open(&j.src.path)?, j.src.size)?.0)
        },
    );
    let sizes: Vec<u64> = in_memory.iter().map(|&i| jobs[i].src.size).collect();
    let srcs: Vec<&Source> = jobs.iter().map(|j| j.src).collect();
    let from_memory = scan::run_in_memory(
        &stream_groups(&srcs, &in_memory),
        &sizes,
        progress,
        |g| group_bytes(&srcs, &in_memory, g),
        |k, u| per_unit(in_memory[k], u),
        |k, parts, bytes| join(&jobs[in_memory[k]], parts, tail_in(bytes).0),
    );
    let mut out: Vec<Option<io::Result<Vec<u8>>>> = jobs.iter().map(|_| None).collect();
    for (i, r) in on_disk.into_iter().zip(from_disk).chain(in_memory.into_iter().zip(from_memory)) {
        out[i] = Some(r);
    }
    out.into_iter().map(|r| r.expect("one result per job")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colliding_hashes_keep_terms_apart() {
        let (mut table, mut index) = (TermTable::default(), TermIndex::default());
        index.slot_hashed(&mut table, b"alpha", 7).tf += 1;
        index.slot_hashed(&mut table, b"omega", 7).tf += 10;
        index.slot_hashed(&mut table, b"alpha", 7).tf += 1;
        index.slot_hashed(&mut table, b"omega", 7).tf += 10;
        index.slot(&mut table, b"beta").tf += 100;
        let got: Vec<(&[u8], u32)> = (0..table.terms.len()).map(|i| (table.term(i), table.terms[i].2.tf)).collect();
        assert_eq!(got, [(b"alpha".as_slice(), 2), (b"omega".as_slice(), 20), (b"beta".as_slice(), 100)]);
    }
}
