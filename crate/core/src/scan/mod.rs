//! The scanner: file bytes in, a record index out.
//!
//! Lines are split with memchr and each kept line is parsed with simd-json into a tape, from
//! which [`record::extract`] copies the few fields later stages need. Nothing here allocates
//! per field except into the scan's string arena.

pub mod json_text;
pub mod record;
pub mod record_bytes;
pub mod reparse;
pub mod surrogate;
pub mod tape;
pub mod timestamp;
mod units;

pub use record::{Range, Record, Str, Strings, Tables, ToolUse, Usage};
pub use units::{
    read_span, run, run_in_memory, scan_bytes_parallel, scan_file, scan_paths, scan_sized, scan_sized_with, unit_in,
    Job, Progress, UnitPlace, UnitRead, UNIT_BYTES,
};

use simd_json::{Node, Tape};

/// What a scan keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Every line is parsed and every object line becomes a record.
    Full,
    /// Only lines that can carry token usage are parsed (a memchr `"usage"` prefilter: the
    /// unescaped key cannot occur inside a JSON string), and only `assistant` records are kept.
    /// Line counts stay exact; blank and CRLF counts are not taken.
    Usage,
    /// As `Usage`, and also the lines holding a tool result written as an error (a memchr
    /// `"is_error":true` prefilter, the form Claude Code writes), kept as records when they hold
    /// tool results: what the tool calls of an export need to tell a failed call.
    UsageAndToolErrors,
}

/// How the first non-blank line of a file read. A file whose first line is not a JSON object
/// and which yields no record at all is "not JSONL".
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum FirstLine {
    #[default]
    Empty,
    Object,
    NonObject,
    Invalid,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BadKind {
    InvalidJson,
    NonObject,
    /// One JSON text by the grammar, nested deeper than the parser reads.
    TooDeep,
    /// One JSON text by the grammar, holding a number beyond the range of a double.
    NumberOutOfRange,
}

impl BadKind {
    /// What the line is, as a marker in its place (`line N: …`).
    pub fn what(self) -> String {
        match self {
            BadKind::InvalidJson => "corrupt line (not valid JSON)".into(),
            BadKind::NonObject => "not a JSON object".into(),
            BadKind::TooDeep => {
                format!("JSON nested too deep to read (over {} levels)", simd_json::DEFAULT_MAX_DEPTH)
            }
            BadKind::NumberOutOfRange => {
                "JSON holding a number out of range (beyond a double's ±1.8e308, like 1e400)".into()
            }
        }
    }

    /// One JSON text by the grammar that this parser cannot hold; the client's reader takes it.
    pub fn is_valid_json(self) -> bool {
        matches!(self, BadKind::TooDeep | BadKind::NumberOutOfRange)
    }

    /// What the line is, as the end of `line N …`.
    pub fn phrase(self) -> String {
        match self {
            BadKind::InvalidJson => "is not valid JSON".into(),
            BadKind::NonObject => "is JSON but not an object".into(),
            BadKind::TooDeep => {
                format!("is JSON nested deeper than {} levels, too deep to read", simd_json::DEFAULT_MAX_DEPTH)
            }
            BadKind::NumberOutOfRange => {
                "is JSON holding a number out of range (beyond a double's ±1.8e308), which no reader keeps exact".into()
            }
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BadLine {
    pub line: u32,
    pub offset: u64,
    pub kind: BadKind,
}

/// Samples of bad lines kept per file (counts are always complete).
pub const BAD_LINE_SAMPLES: usize = 20;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    pub lines: u64,
    pub blank_lines: u64,
    pub crlf_lines: u64,
    pub bad_json_lines: u64,
    /// Of `bad_json_lines`, those that are one JSON text the parser cannot hold (too deep, a
    /// number out of range): the client's reader takes them, so they are no damage to mend.
    pub unreadable_json_lines: u64,
    pub non_object_lines: u64,
    pub lone_surrogate_lines: u64,
}

/// The index of one file (or of one chunk of it, before merging).
#[derive(Debug, Default)]
pub struct Scan {
    pub bytes: u64,
    pub counts: Counts,
    pub bom: bool,
    /// The file does not end with a newline (and its last fragment is not blank).
    pub unterminated_tail: bool,
    /// That unterminated last fragment did not parse: a write cut short.
    pub torn_tail: bool,
    pub first_line: FirstLine,
    pub records: Vec<Record>,
    pub tables: Tables,
    pub bad_lines: Vec<BadLine>,
}

impl Scan {
    /// This scan's memory with nothing in it: every vector empty, every count zero.
    fn emptied(mut self) -> Scan {
        self.records.clear();
        self.tables.clear();
        self.bad_lines.clear();
        Scan { records: self.records, tables: self.tables, bad_lines: self.bad_lines, ..Scan::default() }
    }

    /// Bytes held by the records and tables, spare capacity included.
    fn capacity_bytes(&self) -> usize {
        self.records.capacity() * std::mem::size_of::<Record>() + self.tables.capacity_bytes()
    }

    /// A copy with no spare capacity and no intern map.
    fn tight_copy(&self) -> Scan {
        Scan {
            bytes: self.bytes,
            counts: self.counts,
            bom: self.bom,
            unterminated_tail: self.unterminated_tail,
            torn_tail: self.torn_tail,
            first_line: self.first_line,
            records: self.records.clone(),
            tables: self.tables.tight_copy(),
            bad_lines: self.bad_lines.clone(),
        }
    }

    /// Joins the scans of consecutive chunks of one file, allocating each table once.
    pub fn concat(mut parts: Vec<Scan>) -> Scan {
        // (a file of one chunk, most of an estate's: its scan is the file's as it is)
        if parts.len() == 1 {
            return parts.pop().expect("one part");
        }
        let mut whole = Scan::default();
        whole.records.reserve_exact(parts.iter().map(|p| p.records.len()).sum());
        whole.tables.strings.bytes.reserve_exact(parts.iter().map(|p| p.tables.strings.bytes.len()).sum());
        whole.tables.content_kinds.reserve_exact(parts.iter().map(|p| p.tables.content_kinds.len()).sum());
        whole.tables.tool_uses.reserve_exact(parts.iter().map(|p| p.tables.tool_uses.len()).sum());
        whole.tables.tool_results.reserve_exact(parts.iter().map(|p| p.tables.tool_results.len()).sum());
        whole.tables.tool_result_errors.reserve_exact(parts.iter().map(|p| p.tables.tool_results.len()).sum());
        for p in parts {
            whole.append(p);
        }
        whole
    }

    /// Appends the scan of the next chunk of the same file.
    pub fn append(&mut self, mut next: Scan) {
        let line_shift = self.counts.lines as u32;
        let str_shift = self.tables.strings.absorb(std::mem::take(&mut next.tables.strings));
        let kinds_shift = self.tables.content_kinds.len() as u32;
        let uses_shift = self.tables.tool_uses.len() as u32;
        let results_shift = self.tables.tool_results.len() as u32;
        let sh = |s: &mut record::Str| *s = s.shifted(str_shift);
        for k in &mut next.tables.content_kinds {
            sh(k);
        }
        for u in &mut next.tables.tool_uses {
            sh(&mut u.id);
            sh(&mut u.name);
            if let Some(t) = &mut u.target {
                sh(t);
            }
        }
        for r in &mut next.tables.tool_results {
            sh(r);
        }
        for r in &mut next.records {
            r.line += line_shift;
            if let Some(u) = r.usage.as_mut() {
                for s in [&mut u.speed, &mut u.service_tier].into_iter().flatten() {
                    sh(s);
                }
            }
            for s in [
                &mut r.kind,
                &mut r.subtype,
                &mut r.uuid,
                &mut r.parent_uuid,
                &mut r.logical_parent_uuid,
                &mut r.session_id,
                &mut r.agent_id,
                &mut r.timestamp,
                &mut r.version,
                &mut r.cwd,
                &mut r.message_id,
                &mut r.request_id,
                &mut r.model,
                &mut r.stop_reason,
                &mut r.leaf_uuid,
            ]
            .into_iter()
            .flatten()
            {
                sh(s);
            }
            r.content_kinds.start += kinds_shift;
            r.tool_uses.start += uses_shift;
            r.tool_results.start += results_shift;
        }
        for b in &mut next.bad_lines {
            b.line += line_shift;
        }
        self.tables.content_kinds.append(&mut next.tables.content_kinds);
        self.tables.tool_uses.append(&mut next.tables.tool_uses);
        self.tables.tool_results.append(&mut next.tables.tool_results);
        self.tables.tool_result_errors.append(&mut next.tables.tool_result_errors);
        self.records.append(&mut next.records);
        let room = BAD_LINE_SAMPLES.saturating_sub(self.bad_lines.len());
        self.bad_lines.extend(next.bad_lines.into_iter().take(room));
        let c = &mut self.counts;
        let n = next.counts;
        c.lines += n.lines;
        c.blank_lines += n.blank_lines;
        c.crlf_lines += n.crlf_lines;
        c.bad_json_lines += n.bad_json_lines;
        c.unreadable_json_lines += n.unreadable_json_lines;
        c.non_object_lines += n.non_object_lines;
        c.lone_surrogate_lines += n.lone_surrogate_lines;
        self.bytes += next.bytes;
        self.bom |= next.bom;
        if next.bytes > 0 {
            self.unterminated_tail = next.unterminated_tail;
            self.torn_tail = next.torn_tail;
        }
        if self.first_line == FirstLine::Empty {
            self.first_line = next.first_line;
        }
    }

    pub fn str(&self, s: Str) -> &str {
        self.tables.strings.get(s)
    }

    /// The records' `type` values with their counts, in first-seen order.
    pub fn type_counts(&self) -> Vec<(&str, u64)> {
        let mut out: Vec<(&str, u64)> = Vec::new();
        let mut at: rustc_hash::FxHashMap<&str, usize> = Default::default();
        for r in &self.records {
            let k = r.kind.map_or("", |s| self.str(s));
            match at.get(k) {
                Some(&i) => out[i].1 += 1,
                None => {
                    at.insert(k, out.len());
                    out.push((k, 1));
                }
            }
        }
        out
    }
}

enum Parsed {
    Object,
    NonObject,
    Invalid,
}

/// Reusable parse state for one thread.
pub struct Parser {
    /// Usage scans extract only what usage needs (see [`record::extract`]).
    lean: bool,
    scratch: Vec<u8>,
    buffers: simd_json::Buffers,
    tape: Vec<Node<'static>>,
    /// The scan a chunk is filled into, reused: each chunk's result is a tight copy of it, so
    /// its vectors grow once per thread instead of by doubling in every chunk (each doubling a
    /// reallocation: a copy into fresh pages).
    filling: Scan,
}

impl Default for Parser {
    fn default() -> Self {
        Parser {
            lean: false,
            scratch: Vec::new(),
            buffers: simd_json::Buffers::new(4096),
            tape: Vec::new(),
            filling: Scan::default(),
        }
    }
}

impl Parser {
    /// Gives back memory after an unusually long line.
    pub fn trim(&mut self) {
        if self.scratch.capacity() > 64 << 20 {
            *self = Parser::default();
        }
    }

    /// Parses `line` (lone surrogate escapes at `repair_at` rewritten) and hands the tape to
    /// `f`; None when it is not valid JSON.
    fn with_tape<R>(&mut self, line: &[u8], repair_at: &[usize], f: impl FnOnce(&[Node]) -> R) -> Option<R> {
        self.scratch.clear();
        self.scratch.extend_from_slice(line);
        surrogate::repair(&mut self.scratch, repair_at);
        self.scratch.resize(line.len() + simd_json::INPUT_PADDING, b' ');
        let mut tape = Tape(std::mem::take(&mut self.tape));
        let out = match simd_json::fill_tape_padded(&mut self.scratch, line.len(), &mut self.buffers, &mut tape) {
            Ok(()) => Some(f(&tape.0)),
            Err(_) => None,
        };
        let mut nodes = tape.0;
        nodes.clear();
        // SAFETY: the vector is empty, so no node borrows the scratch buffer any more; only the
        // allocation is kept for the next line.
        self.tape = unsafe { std::mem::transmute::<Vec<Node<'_>>, Vec<Node<'static>>>(nodes) };
        out
    }

    /// Parses one line and hands its tape to `f`. A line that is invalid only because of lone
    /// UTF-16 surrogate escapes is parsed from a repaired copy. Returns None for invalid JSON,
    /// else what `f` returned and whether a repair was needed.
    pub fn parse_with<R>(&mut self, line: &[u8], f: impl FnOnce(&[Node]) -> R) -> Option<(R, bool)> {
        let mut f = Some(f);
        if let Some(r) = self.with_tape(line, &[], |t| (f.take().expect("called once"))(t)) {
            return Some((r, false));
        }
        let lone = surrogate::find_lone_surrogates(line);
        if lone.is_empty() {
            return None;
        }
        self.with_tape(line, &lone, |t| (f.take().expect("called once"))(t)).map(|r| (r, true))
    }

    fn parse(&mut self, line: &[u8], rec: &mut Record, t: &mut Tables) -> (Parsed, bool) {
        let lean = self.lean;
        match self.parse_with(line, |tape| record::extract(tape, rec, t, lean)) {
            Some((true, repaired)) => {
                if repaired {
                    rec.flags |= record::F_REPAIRED;
                }
                (Parsed::Object, repaired)
            }
            Some((false, repaired)) => (Parsed::NonObject, repaired),
            None => (Parsed::Invalid, false),
        }
    }
}

const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";

fn is_blank(line: &[u8]) -> bool {
    line.iter().all(|c| matches!(c, b' ' | b'\t' | b'\r'))
}

/// Scans `buf`, which holds whole lines starting at file offset `base`. `file_start` and
/// `file_end` say whether the buffer begins / ends the file (BOM, first line, torn tail).
pub fn scan_chunk(parser: &mut Parser, buf: &[u8], base: u64, file_start: bool, file_end: bool, mode: Mode) -> Scan {
    let mut scan = std::mem::take(&mut parser.filling).emptied();
    scan.bytes = buf.len() as u64;
    let mut pos = 0usize;
    if file_start && buf.starts_with(UTF8_BOM) {
        scan.bom = true;
        pos = UTF8_BOM.len();
    }
    let mut st = ChunkState { parser, scan, base, first_pending: file_start, mode };
    match mode {
        Mode::Full => {
            let mut line_no = 0u32;
            let from = pos;
            for nl in memchr::memchr_iter(b'\n', &buf[from..]) {
                let end = from + nl;
                line_no += 1;
                st.line(&buf[pos..end], pos, line_no, true);
                pos = end + 1;
            }
            st.scan.counts.lines = line_no as u64;
            if pos < buf.len() {
                st.scan.counts.lines += 1;
                st.line(&buf[pos..], pos, line_no + 1, !file_end);
            }
        }
        Mode::Usage | Mode::UsageAndToolErrors => usage_lines(&mut st, buf, pos, file_end),
    }
    let mut filled = st.scan;
    // Unit results wait in memory until their file is merged: keep them tight. A large chunk's
    // scan (a whole file scanned at once) leaves as it is, shrunk, and the next chunk starts
    // afresh: a copy would double its memory at the peak.
    if filled.capacity_bytes() > FILLING_KEPT {
        filled.records.shrink_to_fit();
        filled.tables.shrink();
        return filled;
    }
    let scan = filled.tight_copy();
    parser.filling = filled;
    scan
}

/// The largest scan a parser keeps to fill the next chunk into.
const FILLING_KEPT: usize = 16 << 20;

struct ChunkState<'p> {
    parser: &'p mut Parser,
    scan: Scan,
    base: u64,
    first_pending: bool,
    mode: Mode,
}

impl ChunkState<'_> {
    fn line(&mut self, raw: &[u8], at: usize, line_no: u32, terminated: bool) {
        let mut line = raw;
        if let [rest @ .., b'\r'] = line {
            if terminated {
                self.scan.counts.crlf_lines += 1;
            }
            line = rest;
        }
        if is_blank(line) {
            self.scan.counts.blank_lines += 1;
            return;
        }
        if !terminated {
            self.scan.unterminated_tail = true;
        }
        let mut rec =
            Record { offset: self.base + at as u64, len: line.len() as u32, line: line_no, ..Record::default() };
        let (parsed, repaired) = self.parser.parse(line, &mut rec, &mut self.scan.tables);
        let first = std::mem::replace(&mut self.first_pending, false);
        let kind = match parsed {
            Parsed::Object => {
                if repaired {
                    self.scan.counts.lone_surrogate_lines += 1;
                }
                if first {
                    self.scan.first_line = FirstLine::Object;
                }
                let keep = match self.mode {
                    Mode::Full => true,
                    Mode::Usage => rec.kind.is_some_and(|k| self.scan.tables.strings.get(k) == "assistant"),
                    Mode::UsageAndToolErrors => {
                        rec.tool_results.len > 0
                            || rec.kind.is_some_and(|k| self.scan.tables.strings.get(k) == "assistant")
                    }
                };
                if keep {
                    self.scan.records.push(rec);
                }
                return;
            }
            Parsed::NonObject => {
                self.scan.counts.non_object_lines += 1;
                if first {
                    self.scan.first_line = FirstLine::NonObject;
                }
                BadKind::NonObject
            }
            Parsed::Invalid => {
                if first {
                    self.scan.first_line = FirstLine::Invalid;
                }
                // Lines that fail to parse are rare; telling valid JSON this parser cannot hold
                // from a corrupt line costs one more pass over each.
                let unreadable = json_text::unreadable_kind(line);
                if !terminated && unreadable.is_none() {
                    self.scan.torn_tail = true;
                    return;
                }
                self.scan.counts.bad_json_lines += 1;
                if unreadable.is_some() {
                    self.scan.counts.unreadable_json_lines += 1;
                }
                unreadable.unwrap_or(BadKind::InvalidJson)
            }
        };
        if self.scan.bad_lines.len() < BAD_LINE_SAMPLES {
            self.scan.bad_lines.push(BadLine { line: line_no, offset: self.base + at as u64, kind });
        }
    }
}

/// Usage mode: count lines exactly, but parse only the first line (to tell JSONL from
/// anything else) and the lines that contain `"usage"`.
fn usage_lines(st: &mut ChunkState, buf: &[u8], start: usize, file_end: bool) {
    let finder = memchr::memmem::Finder::new(b"\"usage\"");
    let errors = (st.mode == Mode::UsageAndToolErrors).then(|| memchr::memmem::Finder::new(b"\"is_error\":true"));
    // The next hit of each finder at or after `pos` (None: no more), found again only once
    // `pos` has passed it.
    let mut next_usage: Option<Option<usize>> = None;
    let mut next_error: Option<Option<usize>> = None;
    let mut counted_to = start;
    let mut line_no = 0u32;
    let mut pos = start;
    let handle = |st: &mut ChunkState, line_start: usize, counted_to: &mut usize, line_no: &mut u32| -> usize {
        *line_no += memchr::memchr_iter(b'\n', &buf[*counted_to..line_start]).count() as u32 + 1;
        let (end, terminated) = match memchr::memchr(b'\n', &buf[line_start..]) {
            Some(p) => (line_start + p, true),
            None => (buf.len(), !file_end),
        };
        st.line(&buf[line_start..end], line_start, *line_no, terminated);
        *counted_to = (end + 1).min(buf.len());
        end + 1
    };
    if st.first_pending {
        // The first non-blank line of the file.
        while pos < buf.len() {
            let end = memchr::memchr(b'\n', &buf[pos..]).map_or(buf.len(), |p| pos + p);
            if !is_blank(&buf[pos..end]) {
                break;
            }
            pos = end + 1;
        }
        if pos < buf.len() {
            pos = handle(st, pos, &mut counted_to, &mut line_no);
        }
    }
    while pos < buf.len() {
        let next = |cached: &mut Option<Option<usize>>, f: &memchr::memmem::Finder| {
            if cached.is_none_or(|c| c.is_some_and(|at| at < pos)) {
                *cached = Some(f.find(&buf[pos..]).map(|h| pos + h));
            }
            cached.flatten()
        };
        let usage_at = next(&mut next_usage, &finder);
        let error_at = errors.as_ref().and_then(|f| next(&mut next_error, f));
        let Some(at) = [usage_at, error_at].into_iter().flatten().min() else {
            break;
        };
        let line_start = memchr::memrchr(b'\n', &buf[pos..at]).map_or(pos, |p| pos + p + 1);
        pos = handle(st, line_start, &mut counted_to, &mut line_no);
    }
    let rest = &buf[counted_to.min(buf.len())..];
    let mut lines = line_no as u64 + memchr::memchr_iter(b'\n', rest).count() as u64;
    let tail_start = memchr::memrchr(b'\n', buf).map_or(start, |p| p + 1).max(start);
    if tail_start < buf.len() && counted_to <= tail_start {
        lines += 1;
        if file_end && !is_blank(&buf[tail_start..]) {
            st.scan.unterminated_tail = true;
        }
    }
    st.scan.counts.lines = lines;
}

/// Scans one in-memory buffer holding a whole file.
pub fn scan_bytes(buf: &[u8], mode: Mode) -> Scan {
    let mut parser = Parser::default();
    scan_chunk(&mut parser, buf, 0, true, true, mode)
}

#[cfg(test)]
mod tests;
