//! The cold pass: files cut into 256 KiB units of whole lines (the scanner's unit size), each
//! unit's searchable text extracted and tokenized on rayon's pool, and a file's units joined
//! into its segment as soon as its last unit is done.

use super::extract::{self, Fields, Finders};
use super::segment::{self, DocMeta, Posting, Segment, NO_TIME, TAIL_BYTES};
use super::tokenize;
use crate::scan::{surrogate, timestamp, Progress};
use rayon::prelude::*;
use rustc_hash::FxHashMap;
use simd_json::Node;
use std::cell::RefCell;
use std::fs::File;
use std::io;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Mutex;

#[cfg(unix)]
fn read_at(f: &File, buf: &mut [u8], at: u64) -> io::Result<usize> {
    std::os::unix::fs::FileExt::read_at(f, buf, at)
}
#[cfg(windows)]
fn read_at(f: &File, buf: &mut [u8], at: u64) -> io::Result<usize> {
    std::os::windows::fs::FileExt::seek_read(f, buf, at)
}

/// Reads `[from, to)` of a file into `buf`, after its first `filled` bytes; returns the new
/// fill (less if the file is shorter now). `buf` only ever grows, so refilling it costs no
/// zeroing.
fn read_into(f: &File, buf: &mut Vec<u8>, filled: usize, from: u64, to: u64) -> io::Result<usize> {
    let want = filled + (to - from) as usize;
    if buf.len() < want {
        buf.resize(want.next_power_of_two(), 0);
    }
    let mut at = filled;
    while at < want {
        let n = read_at(f, &mut buf[at..want], from + (at - filled) as u64)?;
        if n == 0 {
            break;
        }
        at += n;
    }
    Ok(at)
}

/// Reads `[from, to)` of a file into a fresh vector (fewer bytes if the file is shorter now).
pub fn read_span(f: &File, from: u64, to: u64) -> io::Result<Vec<u8>> {
    let mut buf = Vec::new();
    let n = read_into(f, &mut buf, 0, from, to)?;
    buf.truncate(n);
    Ok(buf)
}

/// Reads the lines that begin in unit `[start, end)`, finishing the one that crosses `end`.
/// Returns the file offset of the first owned byte and the owned range of `buf`.
fn read_unit(f: &File, buf: &mut Vec<u8>, start: u64, end: u64, len: u64) -> io::Result<Option<(u64, usize, usize)>> {
    let from = start.saturating_sub(1);
    let mut filled = read_into(f, buf, 0, from, end)?;
    let begin = if start == 0 {
        0
    } else {
        // A line begins inside the unit only after a newline at or after `start - 1`.
        match memchr::memchr(b'\n', &buf[..filled]) {
            Some(p) => p + 1,
            None => return Ok(None),
        }
    };
    let mut at = end;
    let mut step = 64u64 << 10;
    while at < len && filled > begin && buf[filled - 1] != b'\n' {
        let before = filled;
        filled = read_into(f, buf, filled, at, (at + step).min(len))?;
        if filled == before {
            break;
        }
        if let Some(p) = memchr::memchr(b'\n', &buf[before..filled]) {
            filled = before + p + 1;
            break;
        }
        at += (filled - before) as u64;
        step *= 2;
    }
    Ok(Some((from + begin as u64, begin, filled)))
}

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
    fn settle(&mut self) {
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

struct Worker {
    buf: Vec<u8>,
    scratch: Vec<u8>,
    buffers: simd_json::Buffers,
    tape: Vec<Node<'static>>,
    token: Vec<u8>,
    finders: Finders,
    index: TermIndex,
}

impl Default for Worker {
    fn default() -> Self {
        Worker {
            buf: Vec::new(),
            scratch: Vec::new(),
            buffers: simd_json::Buffers::new(4096),
            tape: Vec::new(),
            token: Vec::new(),
            finders: Finders::default(),
            index: TermIndex::default(),
        }
    }
}

thread_local! {
    static WORKER: RefCell<Worker> = RefCell::new(Worker::default());
}

/// Parses one line and hands its searchable strings and timestamp to `f`. Lines with lone
/// surrogate escapes are repaired in a scratch copy (same length, so offsets hold).
pub fn with_record_text<R>(
    scratch: &mut Vec<u8>,
    buffers: &mut simd_json::Buffers,
    tape_store: &mut Vec<Node<'static>>,
    line: &[u8],
    fields: Fields,
    f: impl FnOnce(&[&str], extract::Stamp) -> R,
) -> Option<R> {
    let mut f = Some(f);
    for attempt in 0..2 {
        let repair = if attempt == 0 { Vec::new() } else { surrogate::find_lone_surrogates(line) };
        if attempt == 1 && repair.is_empty() {
            return None;
        }
        scratch.clear();
        scratch.extend_from_slice(line);
        surrogate::repair(scratch, &repair);
        scratch.resize(line.len() + simd_json::INPUT_PADDING, b' ');
        let mut tape = simd_json::Tape(std::mem::take(tape_store));
        let mut result = None;
        let ok = simd_json::fill_tape_padded(scratch, line.len(), buffers, &mut tape).is_ok();
        if ok {
            let mut texts = Vec::new();
            let stamp = extract::record_text(&tape.0, fields, &mut texts);
            result = Some((f.take().expect("called once"))(&texts, stamp));
        }
        let mut nodes = tape.0;
        nodes.clear();
        // SAFETY: the vector is empty, so no node borrows `scratch` any more; only the
        // allocation is kept for the next line.
        *tape_store = unsafe { std::mem::transmute::<Vec<Node<'_>>, Vec<Node<'static>>>(nodes) };
        if ok {
            return result;
        }
    }
    None
}

fn scan_unit(w: &mut Worker, owned: &[u8], base: u64, fields: Fields) -> UnitTerms {
    let mut u = UnitTerms { first_ms: NO_TIME, last_ms: NO_TIME, ..Default::default() };
    let Worker { scratch, buffers, tape, token, finders, index, .. } = w;
    index.clear();
    let mut pos = 0usize;
    let mut line_no = 0u32;
    let mut rec_id = 0u32;
    while pos < owned.len() {
        let end = memchr::memchr(b'\n', &owned[pos..]).map_or(owned.len(), |p| pos + p);
        line_no += 1;
        let mut line = &owned[pos..end];
        let at = pos;
        pos = end + 1;
        if let [rest @ .., b'\r'] = line {
            line = rest;
        }
        if line.len() < 2 || !extract::may_hold_text(line, fields, finders) {
            continue;
        }
        let here = Posting { tf: 0, best: 0, line: line_no, offset: base + at as u64, len: line.len() as u32 };
        rec_id += 1;
        let rid = rec_id;
        with_record_text(scratch, buffers, tape, line, fields, |texts, stamp| {
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
                        stat.settle();
                        stat.cur_rec = rid;
                        stat.cur_post = here;
                    }
                    stat.cur += 1;
                });
            }
        });
    }
    u.lines = line_no;
    for (_, _, s) in &mut u.table.terms {
        s.settle();
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
}

/// The hash of a file's last (up to) TAIL_BYTES bytes before `size`, and whether they end
/// with a newline.
pub fn tail_of(f: &File, size: u64) -> io::Result<(u64, bool)> {
    let tail = read_span(f, size.saturating_sub(TAIL_BYTES), size)?;
    Ok((xxhash_rust::xxh3::xxh3_64(&tail), tail.last() == Some(&b'\n')))
}

fn join(job: &Job, parts: Vec<UnitTerms>) -> io::Result<Vec<u8>> {
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
    meta.tail_hash = tail_of(&File::open(&src.path)?, src.size)?.0;
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

/// Bytes per unit of work, as in the scanner (`scan::units`).
const UNIT_BYTES: u64 = 256 << 10;

struct Unit {
    file: usize,
    index: usize,
    start: u64,
    end: u64,
}

fn unit_count(j: &Job) -> u64 {
    (j.src.size - j.from).div_ceil(UNIT_BYTES).max(1)
}

/// Builds one segment per job, in parallel; a file that cannot be read yields its error.
pub fn build(jobs: &[Job], fields: Fields, progress: &Progress) -> Vec<io::Result<Vec<u8>>> {
    let mut units = Vec::new();
    for (file, j) in jobs.iter().enumerate() {
        for index in 0..unit_count(j) {
            let start = j.from + index * UNIT_BYTES;
            units.push(Unit { file, index: index as usize, start, end: (start + UNIT_BYTES).min(j.src.size) });
        }
    }
    progress.bytes_total.fetch_add(jobs.iter().map(|j| j.src.size - j.from).sum(), Ordering::Relaxed);
    progress.files_total.fetch_add(jobs.len() as u64, Ordering::Relaxed);
    units.sort_by(|a, b| (b.end - b.start).cmp(&(a.end - a.start)).then(a.file.cmp(&b.file)));
    let remaining: Vec<AtomicU32> = jobs.iter().map(|j| AtomicU32::new(unit_count(j) as u32)).collect();
    let sources = jobs;
    type Parts = Vec<(usize, io::Result<UnitTerms>)>;
    let parts: Vec<Mutex<Parts>> = sources.iter().map(|_| Mutex::default()).collect();
    let whole: Vec<Mutex<Option<io::Result<Vec<u8>>>>> = sources.iter().map(|_| Mutex::default()).collect();
    units.par_iter().for_each(|u| {
        let src = sources[u.file].src;
        let r = WORKER.with(|cell| {
            let w = &mut *cell.borrow_mut();
            let mut buf = std::mem::take(&mut w.buf);
            let r = File::open(&src.path).and_then(|f| {
                Ok(match read_unit(&f, &mut buf, u.start, u.end, src.size)? {
                    Some((base, begin, filled)) => scan_unit(w, &buf[begin..filled], base, fields),
                    None => UnitTerms { first_ms: NO_TIME, last_ms: NO_TIME, ..Default::default() },
                })
            });
            if buf.len() > 4 * UNIT_BYTES as usize {
                buf = Vec::new();
            }
            w.buf = buf;
            if w.scratch.capacity() > 64 << 20 {
                *w = Worker::default();
            }
            r
        });
        progress.bytes_done.fetch_add(u.end - u.start, Ordering::Relaxed);
        let mut mine = parts[u.file].lock().unwrap_or_else(|e| e.into_inner());
        mine.push((u.index, r));
        if remaining[u.file].fetch_sub(1, Ordering::AcqRel) == 1 {
            let mut done = std::mem::take(&mut *mine);
            drop(mine);
            done.sort_by_key(|(i, _)| *i);
            let joined = done
                .into_iter()
                .map(|(_, p)| p)
                .collect::<io::Result<Vec<UnitTerms>>>()
                .and_then(|p| join(&sources[u.file], p));
            *whole[u.file].lock().unwrap_or_else(|e| e.into_inner()) = Some(joined);
            progress.files_done.fetch_add(1, Ordering::Relaxed);
        }
    });
    whole
        .into_iter()
        .map(|w| w.into_inner().unwrap_or_else(|e| e.into_inner()).expect("every unit of every file ran"))
        .collect()
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
