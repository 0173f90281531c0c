//! The content blocks of one record, as the client's message rules need them: kind, tool id,
//! and whether a text block is blank. Read from the record index when it can tell, else parsed
//! again from the record's line.

use crate::scan::record::{self, Record};
use crate::scan::reparse::parse_line;
use crate::scan::Scan;

/// How blank a text block is (the client treats empty and whitespace-only text differently).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Blank {
    /// Not a text block, or text with something visible in it.
    No,
    /// `"text": ""`.
    Empty,
    /// Text made of whitespace only (spaces, newlines, tabs).
    Whitespace,
    /// A text block without a string `text`.
    Missing,
}

impl Blank {
    /// Empty or whitespace-only text (the blocks the client drops where it drops any).
    pub fn droppable(self) -> bool {
        matches!(self, Blank::Empty | Blank::Whitespace)
    }
    fn of(text: Option<&str>) -> Blank {
        match text {
            None => Blank::Missing,
            Some("") => Blank::Empty,
            Some(t) if t.trim().is_empty() => Blank::Whitespace,
            Some(_) => Blank::No,
        }
    }
}

/// The texts the client writes in place of an empty message and of an empty text block it
/// removed: in a reply they say as little as no text at all.
const PLACEHOLDERS: [&str; 2] = ["(no content)", "[Empty text removed]"];

/// Whether a reply's text says nothing to the client: absent, empty or whitespace once trimmed
/// (as JavaScript trims, a byte order mark included), or one of its placeholders.
pub fn says_nothing(text: Option<&str>) -> bool {
    let t = text.unwrap_or("").trim_matches(|c: char| c.is_whitespace() || c == '\u{feff}');
    t.is_empty() || PLACEHOLDERS.contains(&t)
}

/// What the client's load filters see in an assistant record's content, read block by block
/// (the scanner records it as flags). Observed on resume:
/// - a **silent reply** (thinking blocks, then one or more text blocks that say nothing, and
///   nothing after them) is dropped, unless another record of its `message.id` holds a block
///   that says something; a thinking block after the text makes it an ordinary reply, sent;
/// - a **thinking-only** reply is dropped, unless another record of its `message.id` holds
///   another kind of block that stays;
/// - string content counts as one text block.
#[derive(Clone, Copy, Debug)]
pub struct ReplyShape {
    blocks: u32,
    thinking: u32,
    texts: u32,
    /// Nothing so far but leading thinking and texts that say nothing.
    silent: bool,
    /// A block that says something: not thinking, and not a text that says nothing.
    says_something: bool,
}

impl Default for ReplyShape {
    fn default() -> Self {
        ReplyShape { blocks: 0, thinking: 0, texts: 0, silent: true, says_something: false }
    }
}

impl ReplyShape {
    /// One block of `kind` (`text` its text when it is a text block).
    pub fn push(&mut self, kind: &str, text: Option<&str>) {
        self.blocks += 1;
        match kind {
            "thinking" | "redacted_thinking" => {
                self.thinking += 1;
                self.silent &= self.texts == 0;
            }
            "text" => {
                self.texts += 1;
                if !says_nothing(text) {
                    self.silent = false;
                    self.says_something = true;
                }
            }
            _ => {
                self.silent = false;
                self.says_something = true;
            }
        }
    }

    /// String content: one text block.
    pub fn of_string(text: &str) -> u16 {
        let mut shape = ReplyShape::default();
        shape.push("text", Some(text));
        shape.flags()
    }

    /// [`record::F_SILENT_REPLY`], [`record::F_THINKING_ONLY`], [`record::F_SAYS_SOMETHING`].
    pub fn flags(&self) -> u16 {
        let mut f = 0;
        if self.silent && self.texts > 0 {
            f |= record::F_SILENT_REPLY;
        }
        if self.blocks > 0 && self.thinking == self.blocks {
            f |= record::F_THINKING_ONLY;
        }
        if self.says_something {
            f |= record::F_SAYS_SOMETHING;
        }
        f
    }
}

/// Where a block's content is in its record, so that a reader can take the block itself from
/// the record's line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum At {
    /// The n-th item of `message.content` that is an object with a string `type` (other items are
    /// not blocks to the client, so they are not counted).
    Item(u32),
    /// `message.content` is a string: the block is a text block of that string.
    String,
    /// No record holds it: the client's `(no content)` text for a user message left empty.
    NoContent,
}

/// One content block.
#[derive(Debug, Clone)]
pub struct Block {
    pub kind: String,
    /// tool_use id, or tool_result tool_use_id.
    pub id: Option<String>,
    pub blank: Blank,
    /// The 1-based line of the record holding it.
    pub line: u32,
    pub at: At,
}

impl Block {
    pub fn is_thinking(&self) -> bool {
        self.kind == "thinking" || self.kind == "redacted_thinking"
    }
    pub fn is_text(&self) -> bool {
        self.kind == "text"
    }
}

/// A record's content: string content is one text block.
#[derive(Debug, Clone)]
pub struct Content {
    pub blocks: Vec<Block>,
    /// `message.content` was a string (the client keeps a lone string as it is).
    pub string: bool,
}

fn blocks_of<T>(v: &T, line: u32) -> Content
where
    T: simd_json::prelude::ValueObjectAccess<Target = T>
        + simd_json::prelude::ValueAsScalar
        + simd_json::prelude::ValueAsArray<Array = Vec<T>>,
    T::Key: std::borrow::Borrow<str>,
{
    use simd_json::prelude::*;
    match v.get("message").and_then(|m| m.get("content")) {
        Some(c) if c.as_str().is_some() => Content {
            blocks: vec![Block { kind: "text".into(), id: None, blank: Blank::of(c.as_str()), line, at: At::String }],
            string: true,
        },
        Some(c) => match c.as_array() {
            Some(a) => Content {
                blocks: a
                    .iter()
                    .filter_map(|b| {
                        let kind = b.get("type")?.as_str()?.to_string();
                        let id_of = |key: &str| Some(b.get(key).and_then(|x| x.as_str()).unwrap_or("").to_string());
                        let id = match kind.as_str() {
                            "tool_use" | "server_tool_use" => id_of("id"),
                            "tool_result" => id_of("tool_use_id"),
                            _ => None,
                        };
                        let blank =
                            if kind == "text" { Blank::of(b.get("text").and_then(|t| t.as_str())) } else { Blank::No };
                        Some(Block { kind, id, blank, line, at: At::NoContent })
                    })
                    .enumerate()
                    .map(|(k, b)| Block { at: At::Item(k as u32), ..b })
                    .collect(),
                string: false,
            },
            None => Content { blocks: Vec::new(), string: false },
        },
        None => Content { blocks: Vec::new(), string: false },
    }
}

/// The content of a parsed record (owned value).
pub fn content_of_value(v: &simd_json::OwnedValue, line: u32) -> Content {
    blocks_of(v, line)
}

thread_local! {
    /// The parse buffer of a worker, reused across records.
    static LINE: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// The content from what the scan recorded, without parsing the line again; None when the
/// scan's tables cannot tell (a blank text block, whose place and kind of blankness they do not
/// keep, or a tool result without its id).
pub(crate) fn scanned(s: &Scan, r: &Record) -> Option<Content> {
    if r.has(record::F_CONTENT_STRING) {
        // Blank string content is whitespace here whether or not it is empty: the message rules
        // treat an empty and a whitespace-only string alike.
        let blank = if r.has(record::F_BLANK_TEXT) { Blank::Whitespace } else { Blank::No };
        return Some(Content {
            blocks: vec![Block { kind: "text".into(), id: None, blank, line: r.line, at: At::String }],
            string: true,
        });
    }
    if r.has(record::F_BLANK_TEXT) {
        return None;
    }
    let (kinds, uses, results) = (s.tables.kinds(r), s.tables.tool_uses(r), s.tables.tool_results(r));
    let (mut u, mut t) = (uses.iter(), results.iter());
    let mut blocks = Vec::with_capacity(kinds.len());
    for (n, &k) in kinds.iter().enumerate() {
        let kind = s.str(k);
        let id = match kind {
            "tool_use" | "server_tool_use" => Some(s.str(u.next()?.id).to_string()),
            "tool_result" => Some(s.str(*t.next()?).to_string()),
            _ => None,
        };
        blocks.push(Block { kind: kind.to_string(), id, blank: Blank::No, line: r.line, at: At::Item(n as u32) });
    }
    // Every id was used: otherwise a result without its id shifted the others.
    (u.next().is_none() && t.next().is_none()).then_some(Content { blocks, string: false })
}

/// The content parsed from the record's line, without copying its strings.
pub(crate) fn parsed(bytes: &[u8], r: &Record) -> Option<Content> {
    let start = r.offset as usize;
    let line = bytes.get(start..start + r.len as usize)?;
    LINE.with(|cell| {
        let buf = &mut *cell.borrow_mut();
        buf.clear();
        buf.extend_from_slice(line);
        let parsed = match simd_json::to_borrowed_value(buf) {
            Ok(v) => Some(blocks_of(&v, r.line)),
            // Lone surrogates: repaired as the scanner does, then parsed owned.
            Err(_) => None,
        };
        parsed
    })
    .or_else(|| parse_line(bytes, r).map(|v| blocks_of(&v, r.line)))
}

/// The content blocks of one record (`bytes` are the file's bytes).
pub fn content(s: &Scan, bytes: &[u8], r: &Record) -> Option<Content> {
    scanned(s, r).or_else(|| parsed(bytes, r))
}
