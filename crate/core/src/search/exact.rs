//! Literal substring search: what tokenised search cannot find (the middle of an identifier,
//! punctuation, a path fragment). Same text as ranked search ([`extract::record_text`]: human
//! and assistant text, tool traffic and thinking when asked for), matched in the decoded JSON
//! strings, so `\"`, `\n` and `\u00e9` in a line match `"`, a newline and `é`. One pass over
//! the files on rayon's pool, no index: each file reports how many times the needle occurs and
//! where it first does; a session's files are summed into one hit.
//!
//! Case-insensitive matching folds each character to its lowercase, one character for one:
//! ASCII letters always, other letters when their lowercase is a single non-ASCII character
//! (`É` matches `é`, `Σ` matches `σ` and `ς`). A character whose lowercase is several
//! characters (`İ`) or an ASCII letter (the Kelvin sign `K`) only matches itself, and `ß` does
//! not match `ss`: a match always covers the same number of characters in the text as in the
//! needle, and an ASCII needle is matched by an ASCII-folded byte search.

use super::build::{with_record_text, Source};
use super::extract::{self, Fields, Finders};
use super::rank::{project_matches, Filter};
use super::segment::NO_TIME;
use super::snippet::cut;
use crate::scan::{self, timestamp, Parser, Progress};
use memchr::memmem::Finder;
use std::cell::RefCell;
use std::io;

/// The character case-insensitive matching compares (see the module comment).
pub fn fold(c: char) -> char {
    if c.is_ascii() {
        return c.to_ascii_lowercase();
    }
    if c == 'ς' {
        return 'σ';
    }
    let mut low = c.to_lowercase();
    match (low.next(), low.next()) {
        (Some(l), None) if !l.is_ascii() => l,
        _ => c,
    }
}

/// What to look for, prepared once.
pub struct Needle {
    /// The bytes searched for: the text as given, or folded.
    folded: Vec<u8>,
    case_sensitive: bool,
    /// A folded ASCII needle only needs the text's ASCII letters folded.
    ascii: bool,
    finder: Finder<'static>,
    /// Bytes every line holding a match holds once unescaped (and ASCII-folded unless
    /// case-sensitive): the whole needle, or for a folded non-ASCII needle its longest ASCII run.
    /// None when a non-ASCII needle has no ASCII character: then every line is parsed.
    probe: Option<Finder<'static>>,
}

impl Needle {
    /// None for an empty needle.
    pub fn new(text: &str, case_sensitive: bool) -> Option<Needle> {
        if text.is_empty() {
            return None;
        }
        let folded: Vec<u8> =
            if case_sensitive { text.as_bytes().to_vec() } else { text.chars().map(fold).collect::<String>().into() };
        let finder = Finder::new(&folded).into_owned();
        let ascii = folded.is_ascii();
        let probe = if case_sensitive || ascii {
            Some(finder.clone())
        } else {
            let run = folded.split(|b| !b.is_ascii()).max_by_key(|r| r.len()).unwrap_or_default();
            (!run.is_empty()).then(|| Finder::new(run).into_owned())
        };
        Some(Needle { ascii, folded, case_sensitive, finder, probe })
    }

    /// Whether `line` (one JSON record) may hold a match, judged without parsing it: its bytes
    /// with every JSON escape decoded (and ASCII letters folded unless case-sensitive) must
    /// hold the probe. A searchable string's decoded text lies contiguous in that rendering of
    /// the line, so no line holding a match is ever rejected.
    pub fn line_may_match(&self, line: &[u8], buf: &mut Vec<u8>) -> bool {
        let Some(probe) = &self.probe else { return true };
        let has_escape = memchr::memchr(b'\\', line).is_some();
        if self.case_sensitive && !has_escape {
            return probe.find(line).is_some();
        }
        buf.clear();
        unescape(line, buf);
        if !self.case_sensitive {
            buf.make_ascii_lowercase();
        }
        probe.find(buf).is_some()
    }

    /// How many non-overlapping times the needle occurs in `text`, and the byte offset in
    /// `text` of the first occurrence. `buf` is scratch space for the folded text.
    pub fn count(&self, text: &str, buf: &mut Vec<u8>) -> (u64, Option<usize>) {
        if text.len() < self.folded.len() && (self.case_sensitive || self.ascii) {
            return (0, None);
        }
        if self.case_sensitive {
            return count_iter(self.finder.find_iter(text.as_bytes()), |at| at);
        }
        buf.clear();
        if self.ascii {
            // Non-ASCII characters never fold to ASCII, and UTF-8 continuation bytes are never
            // ASCII, so folding the text's ASCII bytes alone is exact, and offsets are kept.
            buf.extend(text.bytes().map(|b| b.to_ascii_lowercase()));
            return count_iter(self.finder.find_iter(buf), |at| at);
        }
        let mut s = String::with_capacity(text.len());
        s.extend(text.chars().map(fold));
        let (n, first) = count_iter(self.finder.find_iter(s.as_bytes()), |at| at);
        // Folding may change a character's UTF-8 length: map the first match back by
        // counting characters.
        (n, first.map(|at| text.char_indices().nth(s[..at].chars().count()).map_or(text.len(), |(i, _)| i)))
    }
}

/// Appends `raw` to `out` with JSON's escapes decoded (`\\uXXXX` pairs joined, a lone
/// surrogate as U+FFFD, as the parser repairs it); the rest, quotes and keys too, is copied.
fn unescape(raw: &[u8], out: &mut Vec<u8>) {
    let mut i = 0;
    while let Some(p) = memchr::memchr(b'\\', &raw[i..]) {
        out.extend_from_slice(&raw[i..i + p]);
        i += p;
        let Some(&e) = raw.get(i + 1) else { break };
        i += 2;
        let hex = |at: usize| {
            raw.get(at..at + 4).and_then(|h| std::str::from_utf8(h).ok()).and_then(|h| u32::from_str_radix(h, 16).ok())
        };
        match e {
            b'n' => out.push(b'\n'),
            b't' => out.push(b'\t'),
            b'r' => out.push(b'\r'),
            b'b' => out.push(8),
            b'f' => out.push(12),
            b'u' => {
                let Some(hi) = hex(i) else { continue };
                i += 4;
                let mut c = hi;
                if (0xD800..0xDC00).contains(&hi) && raw.get(i..i + 2) == Some(b"\\u") {
                    if let Some(lo) = hex(i + 2).filter(|lo| (0xDC00..0xE000).contains(lo)) {
                        c = 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00);
                        i += 6;
                    }
                }
                let ch = char::from_u32(c).unwrap_or('\u{FFFD}');
                out.extend_from_slice(ch.encode_utf8(&mut [0; 4]).as_bytes());
            }
            other => out.push(other),
        }
    }
    out.extend_from_slice(&raw[i..]);
}

fn count_iter(it: impl Iterator<Item = usize>, map: impl Fn(usize) -> usize) -> (u64, Option<usize>) {
    let mut n = 0u64;
    let mut first = None;
    for at in it {
        if n == 0 {
            first = Some(map(at));
        }
        n += 1;
    }
    (n, first)
}

/// Where a file first holds the needle.
#[derive(Clone, Debug, Default)]
pub struct FirstMatch {
    /// 1-based line, byte offset and length of the record.
    pub line: u32,
    pub offset: u64,
    pub len: u32,
    pub timestamp: Option<String>,
    pub snippet: String,
}

/// What one unit of lines (or a whole file, once joined) holds.
#[derive(Default)]
struct Found {
    lines: u32,
    matches: u64,
    records: u32,
    first: Option<FirstMatch>,
    first_ms: i64,
    last_ms: i64,
    session_id: Option<String>,
}

impl Found {
    fn empty() -> Found {
        Found { first_ms: NO_TIME, last_ms: NO_TIME, ..Default::default() }
    }
    fn stamp(&mut self, ms: i64) {
        if self.first_ms == NO_TIME || ms < self.first_ms {
            self.first_ms = ms;
        }
        if self.last_ms == NO_TIME || ms > self.last_ms {
            self.last_ms = ms;
        }
    }
}

struct Worker {
    parser: Parser,
    finders: Finders,
    buf: Vec<u8>,
    timestamp_key: Finder<'static>,
}

impl Default for Worker {
    fn default() -> Self {
        Worker {
            parser: Parser::default(),
            finders: Finders::default(),
            buf: Vec::new(),
            timestamp_key: Finder::new(b"\"timestamp\":\"").into_owned(),
        }
    }
}

/// The time in a record's `"timestamp":"…"` field, read from the raw line (the first such
/// field: Claude Code writes the record's own before any nested one in a text-bearing record).
fn timestamp_of(line: &[u8], key: &Finder) -> Option<i64> {
    let at = key.find(line)? + key.needle().len();
    let end = memchr::memchr(b'"', &line[at..])?;
    timestamp::parse_ms(&line[at..at + end])
}

thread_local! {
    static WORKER: RefCell<Worker> = RefCell::new(Worker::default());
}

fn scan_unit(w: &mut Worker, owned: &[u8], base: u64, needle: &Needle, fields: Fields, need_session: bool) -> Found {
    let mut u = Found::empty();
    let Worker { parser, finders, buf, timestamp_key } = w;
    let mut lines = extract::TextLines::new(owned, fields, finders);
    for (line_no, at, line) in lines.by_ref() {
        // Most lines cannot hold the needle: they are not parsed, and their time is read from
        // their `"timestamp":"` field directly.
        if !(needle.line_may_match(line, buf) || need_session && u.session_id.is_none()) {
            if let Some(ms) = timestamp_of(line, timestamp_key) {
                u.stamp(ms);
            }
            continue;
        }
        with_record_text(parser, line, fields, |texts, stamp| {
            if u.session_id.is_none() {
                u.session_id = stamp.session_id.map(String::from);
            }
            // Activity: the time of every record that may hold searchable text.
            if let Some(ms) = stamp.timestamp.and_then(|t| timestamp::parse_ms(t.as_bytes())) {
                u.stamp(ms);
            }
            let mut in_record = 0;
            for t in texts {
                let (n, first) = needle.count(t, buf);
                in_record += n;
                if let (Some(i), None) = (first, &u.first) {
                    u.first = Some(FirstMatch {
                        line: line_no,
                        offset: base + at as u64,
                        len: line.len() as u32,
                        timestamp: stamp.timestamp.map(String::from),
                        snippet: cut(t, i),
                    });
                }
            }
            u.matches += in_record;
            u.records += (in_record > 0) as u32;
        });
    }
    u.lines = lines.lines;
    if buf.capacity() > 16 << 20 {
        *buf = Vec::new();
    }
    u
}

fn join(parts: Vec<Found>) -> Found {
    let mut all = Found::empty();
    for p in parts {
        if all.first.is_none() {
            all.first = p.first.map(|f| FirstMatch { line: f.line + all.lines, ..f });
        }
        if all.session_id.is_none() {
            all.session_id = p.session_id;
        }
        all.lines += p.lines;
        all.matches += p.matches;
        all.records += p.records;
        for ms in [p.first_ms, p.last_ms] {
            if ms != NO_TIME {
                all.stamp(ms);
            }
        }
    }
    all
}

/// One session that holds the needle.
#[derive(Clone, Debug)]
pub struct ExactHit {
    /// Occurrences in the session's files in scope (main transcript and subagents).
    pub matches: u64,
    /// Records holding at least one, and files holding at least one.
    pub records: u64,
    pub files: usize,
    pub project: String,
    pub session_id: String,
    /// The file the snippet comes from: the session's file with the most matches.
    pub path: String,
    /// Set when that file is a subagent's transcript.
    pub agent_id: Option<String>,
    pub first_ms: i64,
    pub last_ms: i64,
    pub first: FirstMatch,
}

#[derive(Debug, Default)]
pub struct ExactAnswer {
    pub hits: Vec<ExactHit>,
    /// Files, bytes and sessions the needle was looked for in (after --since / --project).
    pub docs: usize,
    pub bytes: u64,
    pub sessions: usize,
    /// Sessions under the roots, whether in scope or not.
    pub sessions_total: usize,
    pub matching_docs: usize,
    pub matching_sessions: usize,
    /// Occurrences over every file in scope.
    pub matches: u64,
    /// Files that could not be read, with why.
    pub failed: Vec<(String, String)>,
}

/// One file's findings, and why it is no transcript at all (then it is left out).
type Read = (Found, Option<&'static str>);

/// Looks for `needle` in every file of `sources` (those of a project not matching the filter
/// are not read) and returns the `limit` sessions with the most occurrences, the most
/// recently active first among equals.
pub fn search_exact(
    sources: &[Source],
    needle: &Needle,
    fields: Fields,
    filter: &Filter,
    limit: usize,
    progress: &Progress,
) -> ExactAnswer {
    let read: Vec<&Source> =
        sources.iter().filter(|s| filter.project.as_deref().is_none_or(|p| project_matches(&s.project, p))).collect();
    let per_unit = |file: usize, unit: Option<(&[u8], scan::UnitPlace)>| match unit {
        Some((owned, at)) => WORKER.with(|cell| {
            let w = &mut *cell.borrow_mut();
            let f = scan_unit(w, owned, at.base, needle, fields, read[file].session_id.is_empty());
            w.parser.trim();
            f
        }),
        None => Found::empty(),
    };
    // An archived file is decoded into memory (one per worker at a time), the others read from
    // disk; each result says whether the file is no transcript at all.
    let (on_disk, in_memory): (Vec<usize>, Vec<usize>) = (0..read.len()).partition(|&i| read[i].stored.is_none());
    let units: Vec<scan::Job> = on_disk.iter().map(|&i| scan::Job::new(&read[i].path, 0, read[i].size)).collect();
    let from_disk = scan::run(&units, progress, |k, u| per_unit(on_disk[k], u), |_, parts| Ok(join(parts)));
    let sizes: Vec<u64> = in_memory.iter().map(|&i| read[i].size).collect();
    let from_memory = scan::run_in_memory(
        &super::build::stream_groups(&read, &in_memory),
        &sizes,
        progress,
        |g| super::build::group_bytes(&read, &in_memory, g),
        |k, u| per_unit(in_memory[k], u),
        |_, parts, bytes| Ok((join(parts), crate::estate::not_jsonl_in(bytes))),
    );
    let mut found: Vec<Option<io::Result<Read>>> = read.iter().map(|_| None).collect();
    for (k, r) in from_disk.into_iter().enumerate() {
        let i = on_disk[k];
        // It reads every file whole anyway: one more block read tells a file that is no
        // transcript at all, which is left out and named.
        found[i] = Some(r.map(|f| (f, crate::estate::not_jsonl(&read[i].path).ok().flatten())));
    }
    for (k, r) in from_memory.into_iter().enumerate() {
        found[in_memory[k]] = Some(r);
    }
    let mut ans = ExactAnswer::default();
    let session_of = |s: &Source, f: &Found| {
        if s.session_id.is_empty() {
            f.session_id.clone().unwrap_or_default()
        } else {
            s.session_id.clone()
        }
    };
    let mut total = rustc_hash::FxHashSet::default();
    let mut in_scope = rustc_hash::FxHashSet::default();
    // Per session: its hit, built from its files in scope.
    let mut by_session: rustc_hash::FxHashMap<(String, String), (ExactHit, u64)> = Default::default();
    for (s, r) in read.iter().zip(found) {
        let (f, not_jsonl) = match r.expect("one result per file") {
            Ok(f) => f,
            Err(e) => {
                ans.failed.push((s.path.to_string_lossy().into_owned(), crate::io_message(&e)));
                continue;
            }
        };
        if let Some(why) = not_jsonl {
            ans.failed.push((s.path.to_string_lossy().into_owned(), why.to_string()));
            continue;
        }
        let key = (s.project.clone(), session_of(s, &f));
        total.insert(key.clone());
        if filter.since_ms.is_some_and(|m| f.last_ms == NO_TIME || f.last_ms < m) {
            continue;
        }
        in_scope.insert(key.clone());
        ans.docs += 1;
        ans.bytes += s.size;
        ans.matches += f.matches;
        let Some(first) = f.first else { continue };
        ans.matching_docs += 1;
        let hit = ExactHit {
            matches: f.matches,
            records: f.records as u64,
            files: 1,
            project: key.0.clone(),
            session_id: key.1.clone(),
            path: s.path.to_string_lossy().into_owned(),
            agent_id: s.agent_id.clone(),
            first_ms: f.first_ms,
            last_ms: f.last_ms,
            first,
        };
        match by_session.entry(key) {
            std::collections::hash_map::Entry::Vacant(e) => {
                e.insert((hit, f.matches));
            }
            std::collections::hash_map::Entry::Occupied(mut e) => {
                let (have, best) = e.get_mut();
                let (matches, records, files) =
                    (have.matches + hit.matches, have.records + hit.records, have.files + 1);
                let (first_ms, last_ms) = (span_min(have.first_ms, hit.first_ms), have.last_ms.max(hit.last_ms));
                // The file with the most matches stands for the session; the main transcript
                // among equals.
                if hit.matches > *best || (hit.matches == *best && have.agent_id.is_some() && hit.agent_id.is_none()) {
                    *best = hit.matches;
                    *have = hit;
                }
                (have.matches, have.records, have.files, have.first_ms, have.last_ms) =
                    (matches, records, files, first_ms, last_ms);
            }
        }
    }
    ans.sessions_total = total.len();
    ans.sessions = in_scope.len();
    let mut hits: Vec<ExactHit> = by_session.into_values().map(|(h, _)| h).collect();
    ans.matching_sessions = hits.len();
    hits.sort_by(|a, b| b.matches.cmp(&a.matches).then(b.last_ms.cmp(&a.last_ms)).then_with(|| a.path.cmp(&b.path)));
    hits.truncate(limit);
    ans.hits = hits;
    ans
}

fn span_min(a: i64, b: i64) -> i64 {
    match (a == NO_TIME, b == NO_TIME) {
        (true, _) => b,
        (_, true) => a,
        _ => a.min(b),
    }
}

#[cfg(test)]
mod tests;
