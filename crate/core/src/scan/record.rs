//! One transcript record as the index keeps it: byte span plus the fields later stages need.
//! Strings live in a per-scan arena ([`Strings`]); a record holds only spans into it.

use super::tape::{as_bool, as_str, as_u64, entries, width};
use crate::client::blocks::ReplyShape;
use rustc_hash::FxHashMap as HashMap;
use simd_json::Node;
use std::num::NonZeroU32;

/// A span in a [`Strings`] arena. `end` is stored plus one so that `Option<Str>` fits in
/// eight bytes: a record holds fifteen of them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Str {
    start: u32,
    end1: NonZeroU32,
}

impl Str {
    fn new(start: u32, len: u32) -> Str {
        Str { start, end1: NonZeroU32::new(start + len + 1).expect("arena below 4 GiB") }
    }
    pub fn range(self) -> std::ops::Range<usize> {
        self.start as usize..(self.end1.get() - 1) as usize
    }
    /// The same span in an arena appended after `by` bytes of another.
    pub fn shifted(self, by: u32) -> Str {
        Str { start: self.start + by, end1: self.end1.checked_add(by).expect("arena below 4 GiB") }
    }
}

/// Append-only string arena. Short, repetitive values (types, models, tool names) are
/// interned so a million records do not store "assistant" a million times.
#[derive(Default, Debug)]
pub struct Strings {
    pub bytes: Vec<u8>,
    interned: HashMap<Box<[u8]>, Str>,
}

impl Strings {
    pub fn push(&mut self, s: &str) -> Str {
        let s = s.as_bytes();
        let start = self.bytes.len() as u32;
        self.bytes.extend_from_slice(s);
        Str::new(start, s.len() as u32)
    }
    pub fn intern(&mut self, s: &str) -> Str {
        if let Some(v) = self.interned.get(s.as_bytes()) {
            return *v;
        }
        let v = self.push(s);
        self.interned.insert(s.as_bytes().into(), v);
        v
    }
    pub fn get(&self, s: Str) -> &str {
        // SAFETY: `push` is the only way in and takes `&str`; spans only ever cover whole pushed
        // strings (or concatenations of whole arenas in `absorb`), so the bytes are valid UTF-8.
        unsafe { std::str::from_utf8_unchecked(&self.bytes[s.range()]) }
    }
    pub fn opt(&self, s: Option<Str>) -> Option<&str> {
        s.map(|s| self.get(s))
    }
    /// Appends another arena; returns the shift to add to its spans.
    pub fn absorb(&mut self, other: Strings) -> u32 {
        let shift = self.bytes.len() as u32;
        self.bytes.extend_from_slice(&other.bytes);
        shift
    }
}

/// Token usage of one assistant entry, as written (not yet deduplicated).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Usage {
    pub input: u64,
    /// The scalar `cache_creation_input_tokens`, or the sum of the split when only that exists.
    pub cache_creation: u64,
    /// `cache_creation.ephemeral_5m_input_tokens` / `ephemeral_1h_input_tokens`, when present.
    pub cache_5m: Option<u64>,
    pub cache_1h: Option<u64>,
    pub cache_read: u64,
    pub output: u64,
    /// `speed` as written (`"standard"`, `"fast"`, or whatever a later client writes).
    pub speed: Option<Str>,
    /// `service_tier` as written (`"standard"`, `"priority"`, `"batch"`, ...), when a string.
    pub service_tier: Option<Str>,
    /// `usage` was not an object, or a token count or `speed` had the wrong type: the unreadable
    /// parts count as absent.
    pub malformed: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ToolUse {
    pub id: Str,
    pub name: Str,
    /// What the call was aimed at (see [`crate::read::tool_targets`]), when its tool has one.
    pub target: Option<Str>,
}

/// `start..start+len` in one of the side tables of a scan.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Range {
    pub start: u32,
    pub len: u32,
}

pub const F_SIDECHAIN: u16 = 1;
pub const F_META: u16 = 2;
pub const F_COMPACT_SUMMARY: u16 = 4;
pub const F_API_ERROR: u16 = 8;
/// `message.content` was a plain string (a typed human prompt), not a block array.
pub const F_CONTENT_STRING: u16 = 16;
/// The record had a `parentUuid` key (even if null): distinguishes roots from metadata records.
pub const F_HAS_PARENT_KEY: u16 = 32;
/// The line held a lone surrogate escape and was read after repair.
pub const F_REPAIRED: u16 = 64;
/// `message.content` is a blank string, or a text block's text is absent or blank: the API
/// refuses such a message (full scans only).
pub const F_BLANK_TEXT: u16 = 128;
/// The content is a reply that says nothing: leading thinking, then texts that are blank or the
/// client's placeholders (the client's rule: [`crate::client::blocks::ReplyShape`]; full scans).
pub const F_SILENT_REPLY: u16 = 256;
/// The content is a non-empty array of thinking blocks only (full scans).
pub const F_THINKING_ONLY: u16 = 512;
/// The content holds a block that says something: not thinking, not a text that says nothing
/// (full scans).
pub const F_SAYS_SOMETHING: u16 = 1024;
/// What `show` prints of a user record is not empty: a non-empty string content, a text block
/// whose text is not empty, an image or a document (full scans; [`crate::read::turns`]).
pub const F_SHOWS_TEXT: u16 = 2048;
/// What `show` prints of an assistant record, tool calls aside, is not empty: a text that is not
/// blank or a non-empty thinking (full scans; [`crate::read::turns`]).
pub const F_SHOWS_REPLY: u16 = 4096;

#[derive(Clone, Debug, Default)]
pub struct Record {
    /// Byte offset of the line in the file and its length without the line terminator.
    pub offset: u64,
    pub len: u32,
    /// 1-based line number in the file.
    pub line: u32,
    pub flags: u16,
    pub kind: Option<Str>,
    pub subtype: Option<Str>,
    pub uuid: Option<Str>,
    pub parent_uuid: Option<Str>,
    pub logical_parent_uuid: Option<Str>,
    pub session_id: Option<Str>,
    pub agent_id: Option<Str>,
    pub timestamp: Option<Str>,
    pub timestamp_ms: Option<i64>,
    pub version: Option<Str>,
    pub cwd: Option<Str>,
    pub message_id: Option<Str>,
    pub request_id: Option<Str>,
    pub model: Option<Str>,
    pub stop_reason: Option<Str>,
    pub usage: Option<Usage>,
    pub leaf_uuid: Option<Str>,
    pub content_kinds: Range,
    pub tool_uses: Range,
    pub tool_results: Range,
}

impl Record {
    pub fn has(&self, flag: u16) -> bool {
        self.flags & flag != 0
    }
}

/// Side tables that records point into, plus the arena.
#[derive(Default, Debug)]
pub struct Tables {
    pub strings: Strings,
    pub content_kinds: Vec<Str>,
    pub tool_uses: Vec<ToolUse>,
    pub tool_results: Vec<Str>,
    /// Parallel to `tool_results`: the result was written with `is_error: true`.
    pub tool_result_errors: Vec<bool>,
}

impl Tables {
    /// Empties every table, keeping the memory, for the next chunk to fill.
    pub fn clear(&mut self) {
        self.strings.interned.clear();
        self.strings.bytes.clear();
        self.content_kinds.clear();
        self.tool_uses.clear();
        self.tool_results.clear();
        self.tool_result_errors.clear();
    }

    /// Drops spare capacity and the intern map (only needed while a chunk is being filled).
    pub fn shrink(&mut self) {
        self.strings.interned = HashMap::default();
        self.strings.bytes.shrink_to_fit();
        self.content_kinds.shrink_to_fit();
        self.tool_uses.shrink_to_fit();
        self.tool_results.shrink_to_fit();
        self.tool_result_errors.shrink_to_fit();
    }

    /// A copy with no spare capacity and no intern map (only needed while a chunk is filled).
    pub fn tight_copy(&self) -> Tables {
        Tables {
            strings: Strings { bytes: self.strings.bytes.clone(), interned: HashMap::default() },
            content_kinds: self.content_kinds.clone(),
            tool_uses: self.tool_uses.clone(),
            tool_results: self.tool_results.clone(),
            tool_result_errors: self.tool_result_errors.clone(),
        }
    }

    /// Bytes held by the tables' vectors, spare capacity included.
    pub fn capacity_bytes(&self) -> usize {
        use std::mem::size_of;
        self.strings.bytes.capacity()
            + self.content_kinds.capacity() * size_of::<Str>()
            + self.tool_uses.capacity() * size_of::<ToolUse>()
            + self.tool_results.capacity() * size_of::<Str>()
            + self.tool_result_errors.capacity()
    }

    pub fn kinds(&self, r: &Record) -> &[Str] {
        &self.content_kinds[r.content_kinds.start as usize..(r.content_kinds.start + r.content_kinds.len) as usize]
    }
    pub fn tool_uses(&self, r: &Record) -> &[ToolUse] {
        &self.tool_uses[r.tool_uses.start as usize..(r.tool_uses.start + r.tool_uses.len) as usize]
    }
    pub fn tool_results(&self, r: &Record) -> &[Str] {
        &self.tool_results[r.tool_results.start as usize..(r.tool_results.start + r.tool_results.len) as usize]
    }
    /// Whether each of `tool_results(r)` was written with `is_error: true`.
    pub fn tool_result_errors(&self, r: &Record) -> &[bool] {
        &self.tool_result_errors[r.tool_results.start as usize..(r.tool_results.start + r.tool_results.len) as usize]
    }
}

/// Fills `rec` from a parsed line. Returns false when the line is valid JSON but not an object.
/// `lean` skips the fields only the record index needs (graph links, text, content kinds),
/// for usage scans that keep many records and read few fields.
pub fn extract(tape: &[Node], rec: &mut Record, t: &mut Tables, lean: bool) -> bool {
    if !matches!(tape.first(), Some(Node::Object { .. })) {
        return false;
    }
    let mut attachment_type = None;
    for (key, v) in entries(tape, 0) {
        match key {
            "type" => rec.kind = as_str(tape, v).map(|s| t.strings.intern(s)),
            "subtype" => rec.subtype = as_str(tape, v).map(|s| t.strings.intern(s)),
            "uuid" if !lean => rec.uuid = as_str(tape, v).map(|s| t.strings.push(s)),
            "parentUuid" if !lean => {
                rec.flags |= F_HAS_PARENT_KEY;
                rec.parent_uuid = as_str(tape, v).map(|s| t.strings.push(s));
            }
            "logicalParentUuid" if !lean => rec.logical_parent_uuid = as_str(tape, v).map(|s| t.strings.push(s)),
            "sessionId" => rec.session_id = as_str(tape, v).map(|s| t.strings.intern(s)),
            "agentId" => rec.agent_id = as_str(tape, v).map(|s| t.strings.intern(s)),
            "timestamp" => {
                if let Some(s) = as_str(tape, v) {
                    if !lean {
                        rec.timestamp = Some(t.strings.push(s));
                    }
                    rec.timestamp_ms = super::timestamp::parse_ms(s.as_bytes());
                }
            }
            "version" => rec.version = as_str(tape, v).map(|s| t.strings.intern(s)),
            "cwd" if !lean => rec.cwd = as_str(tape, v).map(|s| t.strings.intern(s)),
            "isSidechain" if as_bool(tape, v) => rec.flags |= F_SIDECHAIN,
            "isMeta" if as_bool(tape, v) => rec.flags |= F_META,
            "isCompactSummary" if as_bool(tape, v) => rec.flags |= F_COMPACT_SUMMARY,
            "isApiErrorMessage" if as_bool(tape, v) => rec.flags |= F_API_ERROR,
            "requestId" => rec.request_id = as_str(tape, v).map(|s| t.strings.push(s)),
            "leafUuid" if !lean => rec.leaf_uuid = as_str(tape, v).map(|s| t.strings.push(s)),
            "message" => extract_message(tape, v, rec, t, lean),
            "attachment" => {
                attachment_type = entries(tape, v).find(|(k, _)| *k == "type").and_then(|(_, i)| as_str(tape, i));
            }
            _ => {}
        }
    }
    if rec.subtype.is_none() {
        rec.subtype = attachment_type.map(|s| t.strings.intern(s));
    }
    true
}

fn extract_message(tape: &[Node], at: usize, rec: &mut Record, t: &mut Tables, lean: bool) {
    for (key, v) in entries(tape, at) {
        match key {
            "id" => rec.message_id = as_str(tape, v).map(|s| t.strings.push(s)),
            "model" => rec.model = as_str(tape, v).map(|s| t.strings.intern(s)),
            "stop_reason" => rec.stop_reason = as_str(tape, v).map(|s| t.strings.intern(s)),
            "usage" => rec.usage = Some(extract_usage(tape, v, t)),
            "content" => match tape.get(v) {
                Some(Node::String(s)) => {
                    rec.flags |= F_CONTENT_STRING;
                    if !lean {
                        if s.trim().is_empty() {
                            rec.flags |= F_BLANK_TEXT;
                        }
                        rec.flags |= ReplyShape::of_string(s);
                        rec.flags |= crate::read::turns::string_flags(s);
                    }
                }
                Some(Node::Array { len, .. }) => extract_blocks(tape, v, *len, rec, t, lean),
                _ => {}
            },
            _ => {}
        }
    }
}

fn extract_usage(tape: &[Node], at: usize, t: &mut Tables) -> Usage {
    let mut u = Usage::default();
    if !matches!(tape.get(at), Some(Node::Object { .. })) {
        u.malformed = true;
        return u;
    }
    let mut scalar = None;
    // A count that is null counts as absent; one of another type (a string, a negative number)
    // makes the usage malformed.
    let count = |v: usize, malformed: &mut bool| {
        use simd_json::StaticNode;
        let n = as_u64(tape, v);
        *malformed |= match tape.get(v) {
            Some(Node::Static(StaticNode::Null)) => false,
            Some(Node::Static(StaticNode::I64(x))) => *x < 0,
            _ => n.is_none(),
        };
        n
    };
    let mut bad = false;
    for (key, v) in entries(tape, at) {
        match key {
            "input_tokens" => u.input = count(v, &mut bad).unwrap_or(0),
            "output_tokens" => u.output = count(v, &mut bad).unwrap_or(0),
            "cache_read_input_tokens" => u.cache_read = count(v, &mut bad).unwrap_or(0),
            "cache_creation_input_tokens" => scalar = count(v, &mut bad),
            "cache_creation" => {
                for (k, w) in entries(tape, v) {
                    match k {
                        "ephemeral_5m_input_tokens" => u.cache_5m = count(w, &mut bad),
                        "ephemeral_1h_input_tokens" => u.cache_1h = count(w, &mut bad),
                        _ => {}
                    }
                }
            }
            "speed" => match tape.get(v) {
                Some(Node::String(s)) => u.speed = Some(t.strings.intern(s)),
                Some(Node::Static(simd_json::StaticNode::Null)) | None => {}
                _ => bad = true,
            },
            "service_tier" => {
                if let Some(Node::String(s)) = tape.get(v) {
                    u.service_tier = Some(t.strings.intern(s));
                }
            }
            _ => {}
        }
    }
    u.malformed = bad;
    u.cache_creation = scalar.unwrap_or(u.cache_5m.unwrap_or(0) + u.cache_1h.unwrap_or(0));
    u
}

fn extract_blocks(tape: &[Node], at: usize, len: usize, rec: &mut Record, t: &mut Tables, lean: bool) {
    let kinds_start = t.content_kinds.len() as u32;
    let uses_start = t.tool_uses.len() as u32;
    let results_start = t.tool_results.len() as u32;
    let mut shape = ReplyShape::default();
    let mut i = at + 1;
    for _ in 0..len {
        let Some(node) = tape.get(i) else { break };
        if matches!(node, Node::Object { .. }) {
            let (mut kind, mut id, mut name, mut tool_use_id, mut text, mut input) =
                (None, None, None, None, None, None);
            let (mut text_at, mut thinking) = (None, None);
            let mut is_error = false;
            for (k, v) in entries(tape, i) {
                match k {
                    "type" => kind = as_str(tape, v),
                    "id" => id = as_str(tape, v),
                    "name" => name = as_str(tape, v),
                    "tool_use_id" => tool_use_id = as_str(tape, v),
                    "text" => {
                        text = as_str(tape, v);
                        text_at = Some(v);
                    }
                    "thinking" => thinking = as_str(tape, v),
                    "input" => input = Some(v),
                    "is_error" => {
                        is_error = matches!(tape.get(v), Some(Node::Static(simd_json::StaticNode::Bool(true))))
                    }
                    _ => {}
                }
            }
            if let Some(k) = kind {
                if !lean {
                    t.content_kinds.push(t.strings.intern(k));
                    if k == "text" && text.is_none_or(|x| x.trim().is_empty()) {
                        rec.flags |= F_BLANK_TEXT;
                    }
                    shape.push(k, text);
                    rec.flags |= crate::read::turns::block_flags(k, tape, text_at, thinking);
                }
                match k {
                    "tool_use" | "server_tool_use" => {
                        let name_str = name.unwrap_or("");
                        let target = input
                            .and_then(|at| crate::read::tool_targets::target(name_str, tape, at))
                            .map(|s| t.strings.intern(&s));
                        let id = t.strings.push(id.unwrap_or(""));
                        let name = t.strings.intern(name_str);
                        t.tool_uses.push(ToolUse { id, name, target });
                    }
                    "tool_result" if !lean => {
                        if let Some(tid) = tool_use_id {
                            t.tool_results.push(t.strings.push(tid));
                            t.tool_result_errors.push(is_error);
                        }
                    }
                    _ => {}
                }
            }
        }
        i += width(node);
    }
    if !lean {
        rec.flags |= shape.flags();
    }
    rec.content_kinds = Range { start: kinds_start, len: t.content_kinds.len() as u32 - kinds_start };
    rec.tool_uses = Range { start: uses_start, len: t.tool_uses.len() as u32 - uses_start };
    rec.tool_results = Range { start: results_start, len: t.tool_results.len() as u32 - results_start };
}
