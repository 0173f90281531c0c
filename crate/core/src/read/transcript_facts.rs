//! What a transcript's head and tail say about its session: id, working directory, client,
//! title, last activity, read the way Claude Code's own resume picker reads its metadata (which
//! it re-appends at the end), so that listing sessions costs about a third of a megabyte per
//! file at most, whatever the file's size.
//!
//! The title rule lives here: the title a person set (`custom-title`), else the last title the
//! client generated (`ai-title`), else a legacy `summary` record, else the first human prompt;
//! shown on one line of at most 80 characters.

use crate::scan::{self, reparse, FirstLine, Mode};
use simd_json::OwnedValue as V;
use std::borrow::Cow;
use std::io;
use std::path::Path;

/// Bytes read from the start of a transcript (cwd, entrypoint, first prompt).
pub const HEAD_BYTES: u64 = 64 * 1024;
/// Bytes read from the end (last activity, titles Claude Code re-appends, version).
pub const TAIL_BYTES: u64 = 256 * 1024;
// An estate scan whose files' last units are whole ones holds each file's tail window in one.
const _: () = assert!(TAIL_BYTES <= crate::scan::UNIT_BYTES && HEAD_BYTES <= crate::scan::UNIT_BYTES);
/// A window is widened to this once when it holds no usable record (one giant line).
pub const WIDE_BYTES: u64 = 2 * 1024 * 1024;
/// Files up to this size are read whole (their message count is then exact).
pub const WHOLE_BYTES: u64 = HEAD_BYTES + TAIL_BYTES + 128 * 1024;
/// A title is shown in at most this many UTF-16 code units (what a terminal column counts
/// for most text, and what JavaScript's string length says).
const TITLE_UNITS: usize = 80;

/// Where a session's title came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TitleSource {
    CustomTitle,
    AiTitle,
    Summary,
    FirstPrompt,
}

impl TitleSource {
    pub fn name(self) -> &'static str {
        match self {
            TitleSource::CustomTitle => "custom-title",
            TitleSource::AiTitle => "ai-title",
            TitleSource::Summary => "summary",
            TitleSource::FirstPrompt => "first-prompt",
        }
    }
}

/// What the head and tail of one transcript say.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TranscriptFacts {
    pub session_id: Option<String>,
    pub cwd: Option<String>,
    pub entrypoint: Option<String>,
    pub version: Option<String>,
    /// The winning title text on one line, and where it came from.
    pub title: Option<String>,
    pub title_source: Option<TitleSource>,
    pub custom_title: Option<String>,
    pub ai_title: Option<String>,
    pub summary: Option<String>,
    pub first_prompt: Option<String>,
    /// The timestamp of the last record that has a valid one, in the bytes read.
    pub last_timestamp: Option<String>,
    /// user + assistant records: exact when `complete`, else those of the bytes read (0 when
    /// records were not counted).
    pub messages: u64,
    /// The whole file was read.
    pub complete: bool,
    pub bytes_read: u64,
    /// Why the file is no transcript (its head holds no record and line 1 is no JSON object).
    pub problem: Option<&'static str>,
}

impl TranscriptFacts {
    /// The title texts in the order they win: `sessions` shows the first non-empty one and
    /// `teleport-id --title` matches any of them.
    pub fn title_fields(&self) -> [(TitleSource, Option<&str>); 4] {
        [
            (TitleSource::CustomTitle, self.custom_title.as_deref()),
            (TitleSource::AiTitle, self.ai_title.as_deref()),
            (TitleSource::Summary, self.summary.as_deref()),
            (TitleSource::FirstPrompt, self.first_prompt.as_deref()),
        ]
    }
}

const CUSTOM_TITLE: &[u8] = b"\"type\":\"custom-title\"";
const AI_TITLE: &[u8] = b"\"type\":\"ai-title\"";
/// One search finds both title types, wherever the `type` key sits in the line.
const TITLE_TYPE: &[u8] = b"-title\"";
/// Legacy summary records, a fixed old format, start their line with this.
const SUMMARY_LINE: &[u8] = b"{\"type\":\"summary\"";
/// What is searched for to find them.
const SUMMARY_TYPE: &[u8] = b"summary\"";
const USER: &[u8] = b"\"type\":\"user\"";
const TIMESTAMP: &[u8] = b"\"timestamp\":\"";
const CWD: &[u8] = b"\"cwd\":\"";

/// Whitespace as JavaScript's `\s` and `trim` know it (the titles were first shown by a
/// JavaScript reader, and a prompt's layout characters must collapse the same way).
fn js_space(c: char) -> bool {
    matches!(
        c,
        '\t' | '\n' | '\u{0b}' | '\u{0c}' | '\r' | ' ' | '\u{a0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200a}' | '\u{2028}' | '\u{2029}' | '\u{202f}' | '\u{205f}' | '\u{3000}' | '\u{feff}'
    )
}

fn js_trim(s: &str) -> &str {
    s.trim_matches(js_space)
}

/// A text on one line: runs of whitespace as one space, trimmed, cut to [`TITLE_UNITS`] with an
/// ellipsis (never inside a character).
pub fn one_line(text: &str) -> String {
    let mut out = String::with_capacity(text.len().min(4 * TITLE_UNITS));
    let mut space = false;
    for c in js_trim(text).chars() {
        if js_space(c) {
            space = true;
            continue;
        }
        if space {
            out.push(' ');
            space = false;
        }
        out.push(c);
    }
    if out.encode_utf16().count() <= TITLE_UNITS {
        return out;
    }
    let mut units = 0;
    let mut end = 0;
    for (i, c) in out.char_indices() {
        if units + c.len_utf16() > TITLE_UNITS - 1 {
            break;
        }
        units += c.len_utf16();
        end = i + c.len_utf8();
    }
    let mut cut = out[..end].trim_end_matches(js_space).to_string();
    cut.push('…');
    cut
}

/// A non-empty string field.
fn text<'v>(r: &'v V, key: &str) -> Option<&'v str> {
    reparse::as_str(reparse::get(r, key)).filter(|s| !s.is_empty())
}

fn is_true(r: &V, key: &str) -> bool {
    matches!(reparse::get(r, key), Some(V::Static(simd_json::StaticNode::Bool(true))))
}

/// The human text of a user record; None for tool results, meta injections, compaction
/// summaries, sidechains, slash commands and their output, and injected reminders.
fn human_text(r: &V) -> Option<String> {
    if reparse::as_str(reparse::get(r, "type")) != Some("user")
        || is_true(r, "isMeta")
        || is_true(r, "isCompactSummary")
        || reparse::get(r, "toolUseResult").is_some()
        || is_true(r, "isSidechain")
    {
        return None;
    }
    let content = reparse::get(r, "message").and_then(|m| reparse::get(m, "content"));
    let joined;
    let text: &str = match content {
        Some(V::String(s)) => s,
        Some(V::Array(blocks)) => {
            fn kind(b: &V) -> Option<&str> {
                reparse::as_str(reparse::get(b, "type"))
            }
            if blocks.iter().any(|b| kind(b) == Some("tool_result")) {
                return None;
            }
            joined = blocks
                .iter()
                .filter(|b| kind(b) == Some("text"))
                .filter_map(|b| reparse::as_str(reparse::get(b, "text")))
                .collect::<Vec<_>>()
                .join(" ");
            &joined
        }
        _ => return None,
    };
    let t = js_trim(text);
    if t.is_empty() || t.starts_with('<') || t.starts_with("Caveat: The messages below") {
        return None;
    }
    Some(t.to_string())
}

/// One line as a JSON object; None for a torn or corrupt line, or one that is no object.
fn parse_object(line: &[u8]) -> Option<V> {
    let v = reparse::parse_bytes(line).or_else(|| match String::from_utf8_lossy(line) {
        // bytes that are not UTF-8 read as replacement characters, as a text decoder reads them
        Cow::Owned(s) => reparse::parse_bytes(s.as_bytes()),
        Cow::Borrowed(_) => None,
    })?;
    matches!(v, V::Object(_)).then_some(v)
}

/// The whole lines of a window, found as they are asked for (a window is mostly read at its two
/// ends): they lie in `[from, to)`, a line cut by the window's start (`cut_start`) or end
/// (`cut_end`) left out; a line is a run of bytes without a newline, and empty lines are none.
struct Lines<'a> {
    buf: &'a [u8],
    from: usize,
    to: usize,
}

impl<'a> Lines<'a> {
    fn new(buf: &'a [u8], cut_start: bool, cut_end: bool) -> Lines<'a> {
        let from = match cut_start {
            true => memchr::memchr(b'\n', buf).map_or(buf.len(), |nl| nl + 1),
            false => 0,
        };
        // (a last line without newline is one unless the window cut it: parsing decides)
        let to = match cut_end {
            true => memchr::memrchr(b'\n', &buf[from..]).map_or(from, |nl| from + nl + 1),
            false => buf.len(),
        };
        Lines { buf, from, to }
    }

    /// The line holding byte `at`, if one does.
    fn at(&self, at: usize) -> Option<(usize, usize)> {
        if at < self.from || at >= self.to || self.buf[at] == b'\n' {
            return None;
        }
        let start = memchr::memrchr(b'\n', &self.buf[self.from..at]).map_or(self.from, |nl| self.from + nl + 1);
        let end = memchr::memchr(b'\n', &self.buf[at..self.to]).map_or(self.to, |nl| at + nl);
        Some((start, end))
    }

    /// The lines in file order.
    fn forward(&self) -> impl Iterator<Item = (usize, usize)> + 'a {
        let (buf, to) = (self.buf, self.to);
        let mut pos = self.from;
        std::iter::from_fn(move || {
            while pos < to && buf[pos] == b'\n' {
                pos += 1;
            }
            if pos >= to {
                return None;
            }
            let end = memchr::memchr(b'\n', &buf[pos..to]).map_or(to, |nl| pos + nl);
            let line = (pos, end);
            pos = end;
            Some(line)
        })
    }

    /// The lines from the last one back.
    fn backward(&self) -> impl Iterator<Item = (usize, usize)> + 'a {
        let (buf, from) = (self.buf, self.from);
        let mut end = self.to;
        std::iter::from_fn(move || {
            while end > from && buf[end - 1] == b'\n' {
                end -= 1;
            }
            if end <= from {
                return None;
            }
            let start = memchr::memrchr(b'\n', &buf[from..end]).map_or(from, |nl| from + nl + 1);
            let line = (start, end);
            end = start;
            Some(line)
        })
    }

    /// From the first line's start to the last one's end; None when there is no line.
    fn span(&self) -> Option<(usize, usize)> {
        Some((self.forward().next()?.0, self.backward().next()?.1))
    }

    /// The lines that begin with `prefix` and hold more than it, in file order; `rare` is a part
    /// of the prefix seldom found elsewhere, searched for (the start of the prefix is that of
    /// every record line).
    fn starting_with(&self, prefix: &'a [u8], rare: &'a [u8]) -> impl Iterator<Item = (usize, usize)> + 'a {
        let (buf, from, to) = (self.buf, self.from, self.to);
        let back = memchr::memmem::find(prefix, rare).expect("a part of the prefix");
        memchr::memmem::find_iter(&buf[from..to], rare)
            .filter_map(move |k| (from + k).checked_sub(back).filter(|&at| at >= from))
            .filter(move |&at| (at == from || buf[at - 1] == b'\n') && buf[at..to].starts_with(prefix))
            .map(move |at| (at, memchr::memchr(b'\n', &buf[at..to]).map_or(to, |nl| at + nl)))
            .filter(move |&(s, e)| e - s > prefix.len())
    }
}

fn has(line: &[u8], pat: &[u8]) -> bool {
    memchr::memmem::find(line, pat).is_some()
}

/// user + assistant records among the lines of `span`, and how the first line read when none is
/// a record.
fn count_messages(buf: &[u8], span: Option<(usize, usize)>) -> (u64, usize, FirstLine) {
    let Some((first, last)) = span else { return (0, 0, FirstLine::Empty) };
    let s = scan::scan_bytes(&buf[first..last], Mode::Full);
    let n = s.records.iter().filter(|r| matches!(s.tables.strings.opt(r.kind), Some("user" | "assistant"))).count();
    (n as u64, s.records.len(), s.first_line)
}

struct Builder {
    counts: bool,
    f: TranscriptFacts,
}

impl Builder {
    /// Reads a window's lines in file order; a `head` window feeds the first-record facts.
    fn window(&mut self, buf: &[u8], cut_start: bool, cut_end: bool, head: bool) {
        let ls = Lines::new(buf, cut_start, cut_end);
        let f = &mut self.f;
        if let (true, Some(span)) = (self.counts, ls.span()) {
            let (messages, records, first) = count_messages(buf, Some(span));
            f.messages += messages;
            if head && !cut_start && records == 0 {
                if let Some(reason) = first.not_jsonl_reason() {
                    f.problem = Some(reason);
                }
            }
        }
        // Title records are rare: their lines are found by a search of the window, in file order.
        let mut title_lines: Vec<(usize, usize)> = memchr::memmem::find_iter(buf, TITLE_TYPE)
            .filter_map(|at| ls.at(at))
            .filter(|&(s, e)| has(&buf[s..e], CUSTOM_TITLE) || has(&buf[s..e], AI_TITLE))
            .collect();
        title_lines.extend(ls.starting_with(SUMMARY_LINE, SUMMARY_TYPE));
        title_lines.sort_unstable();
        title_lines.dedup();
        for (s, e) in title_lines {
            let Some(r) = parse_object(&buf[s..e]) else { continue };
            match reparse::as_str(reparse::get(&r, "type")) {
                Some("custom-title") => {
                    if let Some(t) = text(&r, "customTitle") {
                        f.custom_title = Some(t.to_string())
                    }
                }
                Some("ai-title") => {
                    if let Some(t) = text(&r, "aiTitle") {
                        f.ai_title = Some(t.to_string())
                    }
                }
                Some("summary") => {
                    if let Some(t) = text(&r, "summary") {
                        f.summary = Some(t.to_string())
                    }
                }
                _ => {}
            }
        }
        // Head: the first record with a cwd (entrypoint and version from the same), the session
        // id of the first record that names one, and the first human prompt.
        if head {
            for (s, e) in ls.forward() {
                if f.cwd.is_some() && f.first_prompt.is_some() {
                    break;
                }
                let line = &buf[s..e];
                if !((f.cwd.is_none() && has(line, CWD)) || (f.first_prompt.is_none() && has(line, USER))) {
                    continue;
                }
                let Some(r) = parse_object(line) else { continue };
                if f.cwd.is_none() {
                    if let Some(cwd) = text(&r, "cwd") {
                        f.cwd = Some(cwd.to_string());
                        f.entrypoint = f.entrypoint.take().or_else(|| text(&r, "entrypoint").map(str::to_string));
                        f.version = f.version.take().or_else(|| text(&r, "version").map(str::to_string));
                    }
                }
                f.session_id = f.session_id.take().or_else(|| text(&r, "sessionId").map(str::to_string));
                if f.first_prompt.is_none() {
                    f.first_prompt = human_text(&r);
                }
            }
        }
        // The last record with a valid timestamp, from the end: usually the last line.
        for (s, e) in ls.backward() {
            let line = &buf[s..e];
            if !has(line, TIMESTAMP) {
                continue;
            }
            let Some(r) = parse_object(line) else { continue };
            let Some(stamp) = reparse::as_str(reparse::get(&r, "timestamp")) else { continue };
            if scan::timestamp::parse_ms(stamp.as_bytes()).is_none() {
                continue;
            }
            f.last_timestamp = Some(stamp.to_string());
            if let Some(v) = text(&r, "version") {
                f.version = Some(v.to_string()) // the last version that wrote
            }
            f.entrypoint = f.entrypoint.take().or_else(|| text(&r, "entrypoint").map(str::to_string));
            f.cwd = f.cwd.take().or_else(|| text(&r, "cwd").map(str::to_string));
            break;
        }
    }
}

/// The facts of one window read on its own.
fn window_facts(buf: &[u8], cut_start: bool, cut_end: bool, head: bool, counts: bool) -> TranscriptFacts {
    let mut b = Builder { counts, f: TranscriptFacts::default() };
    b.window(buf, cut_start, cut_end, head);
    b.f
}

/// The facts of a file read whole ([`WHOLE_BYTES`] or less), finished.
pub fn whole_facts(bytes: &[u8], counts: bool) -> TranscriptFacts {
    finished(window_facts(bytes, false, false, true, counts), bytes.len() as u64, true)
}

/// What the first [`HEAD_BYTES`] of a larger file say; None when they must be widened (they hold
/// no whole record and no cwd: a giant first line).
pub fn head_facts(head: &[u8], counts: bool) -> Option<TranscriptFacts> {
    let f = window_facts(head, false, true, true, counts);
    // (Without counts, the head's records are counted only when it gave no cwd.)
    let no_record = || match counts {
        true => f.messages == 0,
        false => count_messages(head, Lines::new(head, false, true).span()).0 == 0,
    };
    (f.cwd.is_some() || !no_record()).then_some(f)
}

/// What the last bytes of a file say, read on their own (their first, cut line left out).
pub fn tail_facts(tail: &[u8], counts: bool) -> TranscriptFacts {
    window_facts(tail, true, false, false, counts)
}

/// Whether a tail window says when the file was last active beyond what its head says; when not,
/// the tail is widened once.
pub fn tail_is_usable(head: &TranscriptFacts, tail: &TranscriptFacts) -> bool {
    tail.last_timestamp.is_some() && tail.last_timestamp != head.last_timestamp
}

/// The facts of a head window then a tail window, as one reading of both in file order gives
/// them: the tail's titles, last activity and version win; the head's first-record facts stand,
/// the tail's last record filling in what the head lacks.
pub fn joined(mut f: TranscriptFacts, t: TranscriptFacts) -> TranscriptFacts {
    f.messages += t.messages;
    f.custom_title = t.custom_title.or(f.custom_title);
    f.ai_title = t.ai_title.or(f.ai_title);
    f.summary = t.summary.or(f.summary);
    f.last_timestamp = t.last_timestamp.or(f.last_timestamp);
    f.version = t.version.or(f.version);
    f.entrypoint = f.entrypoint.or(t.entrypoint);
    f.cwd = f.cwd.or(t.cwd);
    f
}

/// The facts with their winning title and how much was read.
pub fn finished(mut f: TranscriptFacts, bytes_read: u64, complete: bool) -> TranscriptFacts {
    f.complete = complete;
    f.bytes_read = bytes_read;
    let won = f.title_fields().into_iter().find_map(|(source, t)| {
        let t = t?;
        (!js_trim(t).is_empty()).then(|| (source, one_line(t)))
    });
    if let Some((source, title)) = won {
        f.title = Some(title);
        f.title_source = Some(source);
    }
    f
}

/// Plans the windows of a file of `size` bytes and builds its facts; `read(pos, len)` gives the
/// bytes at `pos` (fewer at the file's end). With `counts` false the records are not counted
/// (`messages` is 0 and `problem` None): counting is most of the cost, and a reader of titles,
/// cwd and times needs none of it.
pub fn facts_from<'a>(
    size: u64,
    mut read: impl FnMut(u64, u64) -> io::Result<Cow<'a, [u8]>>,
    counts: bool,
) -> io::Result<TranscriptFacts> {
    if size <= WHOLE_BYTES {
        return Ok(whole_facts(&read(0, size)?, counts));
    }
    let head = read(0, HEAD_BYTES)?;
    let (head, head_end) = match head_facts(&head, counts) {
        Some(f) => (f, head.len() as u64),
        None => {
            // The head held no whole record (a giant first line): look further, once.
            let wide = read(0, size.min(WIDE_BYTES))?;
            (window_facts(&wide, false, (wide.len() as u64) < size, true, counts), wide.len() as u64)
        }
    };
    if head_end >= size {
        return Ok(finished(head, head_end, true));
    }
    let tail_len = TAIL_BYTES.min(size - head_end);
    let mut tail = read(size - tail_len, tail_len)?;
    let mut tail_f = tail_facts(&tail, counts);
    if !tail_is_usable(&head, &tail_f) && size - head_end > tail_len {
        // No timestamped record in the tail: widen it once.
        let wide_len = WIDE_BYTES.min(size - head_end);
        tail = read(size - wide_len, wide_len)?;
        tail_f = tail_facts(&tail, counts);
    }
    // The message count of a partly read file is completed by a whole scan, where wanted.
    Ok(finished(joined(head, tail_f), head_end + tail.len() as u64, false))
}

/// The facts of the transcript at `path`, `size` bytes long when it was listed.
pub fn facts_of_file(path: &Path, size: u64, counts: bool) -> io::Result<TranscriptFacts> {
    let file = std::fs::File::open(path)?;
    facts_from(size, |pos, len| crate::read_range(&file, pos, len).map(Cow::Owned), counts)
}

/// The facts of a transcript held in memory.
pub fn facts_of_bytes(bytes: &[u8], counts: bool) -> TranscriptFacts {
    let at = |pos: u64, len: u64| {
        let start = (pos as usize).min(bytes.len());
        let end = start.saturating_add(len as usize).min(bytes.len());
        Ok(Cow::Borrowed(&bytes[start..end]))
    };
    facts_from(bytes.len() as u64, at, counts).expect("reading memory does not fail")
}

/// The facts of the transcript at `path` and whether its first `pair_head` bytes satisfy
/// `head_test`, from one read of the head: the dataset's sessions table asks both of every
/// session.
pub fn facts_and_head_of_file(
    path: &Path,
    size: u64,
    counts: bool,
    pair_head: u64,
    head_test: impl Fn(&[u8]) -> bool,
) -> io::Result<(TranscriptFacts, bool)> {
    let file = std::fs::File::open(path)?;
    // A file read whole by the facts is read once; else the head serves the facts' head window.
    let head = crate::read_range(&file, 0, if size <= WHOLE_BYTES { size } else { pair_head.min(size) })?;
    let facts = facts_from(
        size,
        |pos, len| match pos + len <= head.len() as u64 {
            true => Ok(Cow::Borrowed(&head[pos as usize..(pos + len) as usize])),
            false => crate::read_range(&file, pos, len).map(Cow::Owned),
        },
        counts,
    )?;
    let pass = head_test(&head[..head.len().min(pair_head as usize)]);
    Ok((facts, pass))
}

#[cfg(test)]
#[path = "transcript_facts_tests.rs"]
mod tests;
