//! The local token estimate (model-pack protocol v11 / `--target-estimated-tokens`): a
//! dependency-free heuristic, reproducible everywhere, not a tokenizer.
//!
//! Per character: ASCII 1/4 token; Han, Kana and Hangul 1.3; anything outside the BMP, and
//! symbols (Unicode category S*) and marks (M*) 1.5; any other non-ASCII 0.8. Classes are
//! checked in that order, so an emoji or a supplementary-plane ideograph is 1.5 and a kana
//! voicing mark is Kana. Characters are tallied per class and multiplied once at the end, so
//! equal inputs give bit-equal results however they are split.
//!
//! A record's estimate is [`RECORD_ALLOWANCE`] plus its complete message payload: for `user`
//! and `assistant` records every content block (text, full thinking, tool_use name and input,
//! tool_result content, other blocks whole) and the top-level `toolUseResult`; for
//! `attachment` records the `attachment` value. Structured values count as their compact JSON
//! text with escapes decoded (punctuation and keys are ASCII characters too). A thinking
//! block's `signature` is not sent to the model as text and is not counted; an image block
//! counts [`IMAGE_TOKENS`] instead of its base64. Other record types (system, metadata,
//! snapshots, progress) are not sent as messages and estimate to 0.

use crate::scan::tape::{as_str, entries, items};
use crate::scan::{Parser, Scan};
use rayon::prelude::*;
use simd_json::{Node, StaticNode};

/// Tokens added for each message record (role, framing).
pub const RECORD_ALLOWANCE: f64 = 12.0;
/// Tokens for one image block: the API's cap for an image at its default size.
pub const IMAGE_TOKENS: f64 = 1600.0;

pub const ASCII_WEIGHT: f64 = 0.25;
pub const CJK_WEIGHT: f64 = 1.3;
pub const WIDE_WEIGHT: f64 = 1.5;
pub const OTHER_WEIGHT: f64 = 0.8;

/// Characters counted per class, plus fixed allowances.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Tally {
    pub ascii: u64,
    /// Han, Kana, Hangul.
    pub cjk: u64,
    /// Outside the BMP, symbols, marks.
    pub wide: u64,
    pub other: u64,
    /// Records counted (each adds [`RECORD_ALLOWANCE`]) and image blocks.
    pub records: u64,
    pub images: u64,
}

impl Tally {
    pub fn tokens(&self) -> f64 {
        self.ascii as f64 * ASCII_WEIGHT
            + self.cjk as f64 * CJK_WEIGHT
            + self.wide as f64 * WIDE_WEIGHT
            + self.other as f64 * OTHER_WEIGHT
            + self.records as f64 * RECORD_ALLOWANCE
            + self.images as f64 * IMAGE_TOKENS
    }

    pub fn add_text(&mut self, s: &str) {
        if s.is_ascii() {
            self.ascii += s.len() as u64;
            return;
        }
        // ASCII runs are counted by bytes; only the rest is decoded.
        let b = s.as_bytes();
        let mut i = 0;
        while i < b.len() {
            if b[i] < 0x80 {
                self.ascii += 1;
                i += 1;
                continue;
            }
            let c = s[i..].chars().next().expect("i is on a char boundary");
            i += c.len_utf8();
            match class_of(c) {
                Class::Cjk => self.cjk += 1,
                Class::Wide => self.wide += 1,
                Class::Other => self.other += 1,
                Class::Ascii => self.ascii += 1,
            }
        }
    }

    fn add_ascii(&mut self, n: usize) {
        self.ascii += n as u64;
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    Ascii,
    Cjk,
    Wide,
    Other,
}

pub fn class_of(c: char) -> Class {
    let u = c as u32;
    if u < 0x80 {
        Class::Ascii
    } else if u > 0xFFFF {
        Class::Wide
    } else if in_ranges(u, CJK) {
        Class::Cjk
    } else if in_ranges(u, SYMBOLS_AND_MARKS) {
        Class::Wide
    } else {
        Class::Other
    }
}

fn in_ranges(u: u32, table: &[(u32, u32)]) -> bool {
    let i = table.partition_point(|&(_, hi)| hi < u);
    table.get(i).is_some_and(|&(lo, _)| lo <= u)
}

/// The estimate of one text, with no record allowance.
pub fn text_tokens(s: &str) -> f64 {
    let mut t = Tally::default();
    t.add_text(s);
    t.tokens()
}

/// Adds the compact JSON text of the value at `tape[at]`; returns the tape index after it.
fn add_json(tape: &[Node], at: usize, t: &mut Tally) -> usize {
    match tape.get(at) {
        Some(Node::String(s)) => {
            t.add_ascii(2);
            t.add_text(s);
            at + 1
        }
        Some(Node::Object { len, count }) => {
            if is_image(tape, at) {
                t.images += 1;
                return at + count + 1;
            }
            t.add_ascii(2 + len.saturating_sub(1));
            let mut i = at + 1;
            for _ in 0..*len {
                if let Some(Node::String(k)) = tape.get(i) {
                    t.add_ascii(3);
                    t.add_text(k);
                }
                i = add_json(tape, i + 1, t);
            }
            i
        }
        Some(Node::Array { len, .. }) => {
            t.add_ascii(2 + len.saturating_sub(1));
            let mut i = at + 1;
            for _ in 0..*len {
                i = add_json(tape, i, t);
            }
            i
        }
        Some(Node::Static(s)) => {
            t.add_ascii(match s {
                StaticNode::Null => 4,
                StaticNode::Bool(true) => 4,
                StaticNode::Bool(false) => 5,
                StaticNode::U64(v) => decimal_len(*v),
                StaticNode::I64(v) => decimal_len(v.unsigned_abs()) + (*v < 0) as usize,
                StaticNode::F64(v) => format!("{v}").len(),
                #[allow(unreachable_patterns)]
                _ => 1,
            });
            at + 1
        }
        None => at + 1,
    }
}

fn decimal_len(v: u64) -> usize {
    v.checked_ilog10().map_or(1, |d| d as usize + 1)
}

fn type_of<'i>(tape: &[Node<'i>], at: usize) -> Option<&'i str> {
    entries(tape, at).find(|(k, _)| *k == "type").and_then(|(_, v)| as_str(tape, v))
}

fn is_image(tape: &[Node], at: usize) -> bool {
    type_of(tape, at) == Some("image")
}

/// Adds one content block of a message (or of a tool_result's content).
fn add_block(tape: &[Node], at: usize, t: &mut Tally) {
    let Some(Node::Object { .. }) = tape.get(at) else {
        add_json(tape, at, t);
        return;
    };
    let field = |name: &str| entries(tape, at).find(|(k, _)| *k == name).map(|(_, v)| v);
    match type_of(tape, at) {
        Some("text") => add_string_field(tape, field("text"), t),
        Some("thinking") => add_string_field(tape, field("thinking"), t),
        Some("redacted_thinking") => add_string_field(tape, field("data"), t),
        Some("image") => t.images += 1,
        Some("tool_use" | "server_tool_use") => {
            add_string_field(tape, field("name"), t);
            if let Some(v) = field("input") {
                add_json(tape, v, t);
            }
        }
        Some("tool_result") => {
            if let Some(v) = field("content") {
                add_content(tape, v, t);
            }
        }
        _ => {
            add_json(tape, at, t);
        }
    }
}

fn add_string_field(tape: &[Node], v: Option<usize>, t: &mut Tally) {
    if let Some(s) = v.and_then(|v| as_str(tape, v)) {
        t.add_text(s);
    }
}

/// A `content` value: a string, or an array of blocks.
fn add_content(tape: &[Node], at: usize, t: &mut Tally) {
    match tape.get(at) {
        Some(Node::String(s)) => t.add_text(s),
        Some(Node::Array { .. }) => {
            for b in items(tape, at) {
                add_block(tape, b, t);
            }
        }
        Some(_) => {
            add_json(tape, at, t);
        }
        None => {}
    }
}

/// Tallies one parsed record (see the module comment for what counts).
pub fn add_record(tape: &[Node], t: &mut Tally) {
    if !matches!(tape.first(), Some(Node::Object { .. })) {
        return;
    }
    let (mut kind, mut message, mut tool_use_result, mut attachment) = (None, None, None, None);
    for (k, v) in entries(tape, 0) {
        match k {
            "type" => kind = as_str(tape, v),
            "message" => message = Some(v),
            "toolUseResult" => tool_use_result = Some(v),
            "attachment" => attachment = Some(v),
            _ => {}
        }
    }
    match kind {
        Some("user" | "assistant") => {
            t.records += 1;
            if let Some(content) = message.and_then(|m| entries(tape, m).find(|(k, _)| *k == "content")).map(|(_, v)| v)
            {
                add_content(tape, content, t);
            }
            if let Some(v) = tool_use_result {
                match tape.get(v) {
                    Some(Node::String(s)) => t.add_text(s),
                    _ => {
                        add_json(tape, v, t);
                    }
                }
            }
        }
        Some("attachment") => {
            t.records += 1;
            if let Some(v) = attachment {
                add_json(tape, v, t);
            }
        }
        _ => {}
    }
}

/// The tally of one raw JSONL line; an unparseable line counts nothing.
pub fn line_tally(parser: &mut Parser, line: &[u8]) -> Tally {
    let mut t = Tally::default();
    parser.parse_with(line, |tape| add_record(tape, &mut t));
    t
}

/// Per-record estimates for the records `indexes` of `scan` (all records when None), read from
/// `bytes`, the file the scan was made from. Runs on rayon's pool.
pub fn record_tokens(scan: &Scan, bytes: &[u8], indexes: Option<&[u32]>) -> Result<Vec<f64>, crate::failure::Failure> {
    let n = scan.records.len();
    let all: Vec<u32>;
    let idx = match indexes {
        Some(i) => i,
        None => {
            all = (0..n as u32).collect();
            &all
        }
    };
    crate::scan::record_bytes::check_indexes(scan, idx)?;
    let mut out = vec![0.0; idx.len()];
    out.par_chunks_mut(256).zip(idx.par_chunks(256)).try_for_each_init(Parser::default, |parser, (o, ix)| {
        for (slot, &i) in o.iter_mut().zip(ix) {
            let r = &scan.records[i as usize];
            // The scan knows each record's type: records never sent as messages are not parsed.
            if !matches!(scan.tables.strings.opt(r.kind), Some("user" | "assistant" | "attachment")) {
                continue;
            }
            *slot = line_tally(parser, crate::scan::record_bytes::record_line(scan, bytes, i)?).tokens();
        }
        parser.trim();
        Ok::<(), crate::failure::Failure>(())
    })?;
    Ok(out)
}

/// Han (radicals, ideographs, iteration and numeral marks), Kana and Hangul in the BMP.
const CJK: &[(u32, u32)] = &[
    (0x1100, 0x11FF),
    (0x2E80, 0x2FDF),
    (0x3005, 0x3007),
    (0x3021, 0x3029),
    (0x3038, 0x303B),
    (0x3040, 0x30FF),
    (0x3130, 0x318F),
    (0x31F0, 0x31FF),
    (0x3400, 0x4DBF),
    (0x4E00, 0x9FFF),
    (0xA960, 0xA97F),
    (0xAC00, 0xD7FF),
    (0xF900, 0xFAFF),
    (0xFF65, 0xFF9F),
    (0xFFA0, 0xFFDC),
];

/// BMP code points of general category S* (symbols) or M* (marks), from the Unicode 14.0
/// character database (generated with Python's `unicodedata`; sorted, disjoint).
#[rustfmt::skip]
const SYMBOLS_AND_MARKS: &[(u32, u32)] = &[
    (0x00A2, 0x00A6), (0x00A8, 0x00A9), (0x00AC, 0x00AC), (0x00AE, 0x00B1), (0x00B4, 0x00B4), (0x00B8, 0x00B8), (0x00D7, 0x00D7),
    (0x00F7, 0x00F7), (0x02C2, 0x02C5), (0x02D2, 0x02DF), (0x02E5, 0x02EB), (0x02ED, 0x02ED), (0x02EF, 0x036F), (0x0375, 0x0375),
    (0x0384, 0x0385), (0x03F6, 0x03F6), (0x0482, 0x0489), (0x058D, 0x058F), (0x0591, 0x05BD), (0x05BF, 0x05BF), (0x05C1, 0x05C2),
    (0x05C4, 0x05C5), (0x05C7, 0x05C7), (0x0606, 0x0608), (0x060B, 0x060B), (0x060E, 0x061A), (0x064B, 0x065F), (0x0670, 0x0670),
    (0x06D6, 0x06DC), (0x06DE, 0x06E4), (0x06E7, 0x06ED), (0x06FD, 0x06FE), (0x0711, 0x0711), (0x0730, 0x074A), (0x07A6, 0x07B0),
    (0x07EB, 0x07F3), (0x07F6, 0x07F6), (0x07FD, 0x07FF), (0x0816, 0x0819), (0x081B, 0x0823), (0x0825, 0x0827), (0x0829, 0x082D),
    (0x0859, 0x085B), (0x0888, 0x0888), (0x0898, 0x089F), (0x08CA, 0x08E1), (0x08E3, 0x0903), (0x093A, 0x093C), (0x093E, 0x094F),
    (0x0951, 0x0957), (0x0962, 0x0963), (0x0981, 0x0983), (0x09BC, 0x09BC), (0x09BE, 0x09C4), (0x09C7, 0x09C8), (0x09CB, 0x09CD),
    (0x09D7, 0x09D7), (0x09E2, 0x09E3), (0x09F2, 0x09F3), (0x09FA, 0x09FB), (0x09FE, 0x09FE), (0x0A01, 0x0A03), (0x0A3C, 0x0A3C),
    (0x0A3E, 0x0A42), (0x0A47, 0x0A48), (0x0A4B, 0x0A4D), (0x0A51, 0x0A51), (0x0A70, 0x0A71), (0x0A75, 0x0A75), (0x0A81, 0x0A83),
    (0x0ABC, 0x0ABC), (0x0ABE, 0x0AC5), (0x0AC7, 0x0AC9), (0x0ACB, 0x0ACD), (0x0AE2, 0x0AE3), (0x0AF1, 0x0AF1), (0x0AFA, 0x0AFF),
    (0x0B01, 0x0B03), (0x0B3C, 0x0B3C), (0x0B3E, 0x0B44), (0x0B47, 0x0B48), (0x0B4B, 0x0B4D), (0x0B55, 0x0B57), (0x0B62, 0x0B63),
    (0x0B70, 0x0B70), (0x0B82, 0x0B82), (0x0BBE, 0x0BC2), (0x0BC6, 0x0BC8), (0x0BCA, 0x0BCD), (0x0BD7, 0x0BD7), (0x0BF3, 0x0BFA),
    (0x0C00, 0x0C04), (0x0C3C, 0x0C3C), (0x0C3E, 0x0C44), (0x0C46, 0x0C48), (0x0C4A, 0x0C4D), (0x0C55, 0x0C56), (0x0C62, 0x0C63),
    (0x0C7F, 0x0C7F), (0x0C81, 0x0C83), (0x0CBC, 0x0CBC), (0x0CBE, 0x0CC4), (0x0CC6, 0x0CC8), (0x0CCA, 0x0CCD), (0x0CD5, 0x0CD6),
    (0x0CE2, 0x0CE3), (0x0D00, 0x0D03), (0x0D3B, 0x0D3C), (0x0D3E, 0x0D44), (0x0D46, 0x0D48), (0x0D4A, 0x0D4D), (0x0D4F, 0x0D4F),
    (0x0D57, 0x0D57), (0x0D62, 0x0D63), (0x0D79, 0x0D79), (0x0D81, 0x0D83), (0x0DCA, 0x0DCA), (0x0DCF, 0x0DD4), (0x0DD6, 0x0DD6),
    (0x0DD8, 0x0DDF), (0x0DF2, 0x0DF3), (0x0E31, 0x0E31), (0x0E34, 0x0E3A), (0x0E3F, 0x0E3F), (0x0E47, 0x0E4E), (0x0EB1, 0x0EB1),
    (0x0EB4, 0x0EBC), (0x0EC8, 0x0ECD), (0x0F01, 0x0F03), (0x0F13, 0x0F13), (0x0F15, 0x0F1F), (0x0F34, 0x0F39), (0x0F3E, 0x0F3F),
    (0x0F71, 0x0F84), (0x0F86, 0x0F87), (0x0F8D, 0x0F97), (0x0F99, 0x0FBC), (0x0FBE, 0x0FCC), (0x0FCE, 0x0FCF), (0x0FD5, 0x0FD8),
    (0x102B, 0x103E), (0x1056, 0x1059), (0x105E, 0x1060), (0x1062, 0x1064), (0x1067, 0x106D), (0x1071, 0x1074), (0x1082, 0x108D),
    (0x108F, 0x108F), (0x109A, 0x109F), (0x135D, 0x135F), (0x1390, 0x1399), (0x166D, 0x166D), (0x1712, 0x1715), (0x1732, 0x1734),
    (0x1752, 0x1753), (0x1772, 0x1773), (0x17B4, 0x17D3), (0x17DB, 0x17DB), (0x17DD, 0x17DD), (0x180B, 0x180D), (0x180F, 0x180F),
    (0x1885, 0x1886), (0x18A9, 0x18A9), (0x1920, 0x192B), (0x1930, 0x193B), (0x1940, 0x1940), (0x19DE, 0x19FF), (0x1A17, 0x1A1B),
    (0x1A55, 0x1A5E), (0x1A60, 0x1A7C), (0x1A7F, 0x1A7F), (0x1AB0, 0x1ACE), (0x1B00, 0x1B04), (0x1B34, 0x1B44), (0x1B61, 0x1B7C),
    (0x1B80, 0x1B82), (0x1BA1, 0x1BAD), (0x1BE6, 0x1BF3), (0x1C24, 0x1C37), (0x1CD0, 0x1CD2), (0x1CD4, 0x1CE8), (0x1CED, 0x1CED),
    (0x1CF4, 0x1CF4), (0x1CF7, 0x1CF9), (0x1DC0, 0x1DFF), (0x1FBD, 0x1FBD), (0x1FBF, 0x1FC1), (0x1FCD, 0x1FCF), (0x1FDD, 0x1FDF),
    (0x1FED, 0x1FEF), (0x1FFD, 0x1FFE), (0x2044, 0x2044), (0x2052, 0x2052), (0x207A, 0x207C), (0x208A, 0x208C), (0x20A0, 0x20C0),
    (0x20D0, 0x20F0), (0x2100, 0x2101), (0x2103, 0x2106), (0x2108, 0x2109), (0x2114, 0x2114), (0x2116, 0x2118), (0x211E, 0x2123),
    (0x2125, 0x2125), (0x2127, 0x2127), (0x2129, 0x2129), (0x212E, 0x212E), (0x213A, 0x213B), (0x2140, 0x2144), (0x214A, 0x214D),
    (0x214F, 0x214F), (0x218A, 0x218B), (0x2190, 0x2307), (0x230C, 0x2328), (0x232B, 0x2426), (0x2440, 0x244A), (0x249C, 0x24E9),
    (0x2500, 0x2767), (0x2794, 0x27C4), (0x27C7, 0x27E5), (0x27F0, 0x2982), (0x2999, 0x29D7), (0x29DC, 0x29FB), (0x29FE, 0x2B73),
    (0x2B76, 0x2B95), (0x2B97, 0x2BFF), (0x2CE5, 0x2CEA), (0x2CEF, 0x2CF1), (0x2D7F, 0x2D7F), (0x2DE0, 0x2DFF), (0x2E50, 0x2E51),
    (0x2E80, 0x2E99), (0x2E9B, 0x2EF3), (0x2F00, 0x2FD5), (0x2FF0, 0x2FFB), (0x3004, 0x3004), (0x3012, 0x3013), (0x3020, 0x3020),
    (0x302A, 0x302F), (0x3036, 0x3037), (0x303E, 0x303F), (0x3099, 0x309C), (0x3190, 0x3191), (0x3196, 0x319F), (0x31C0, 0x31E3),
    (0x3200, 0x321E), (0x322A, 0x3247), (0x3250, 0x3250), (0x3260, 0x327F), (0x328A, 0x32B0), (0x32C0, 0x33FF), (0x4DC0, 0x4DFF),
    (0xA490, 0xA4C6), (0xA66F, 0xA672), (0xA674, 0xA67D), (0xA69E, 0xA69F), (0xA6F0, 0xA6F1), (0xA700, 0xA716), (0xA720, 0xA721),
    (0xA789, 0xA78A), (0xA802, 0xA802), (0xA806, 0xA806), (0xA80B, 0xA80B), (0xA823, 0xA82C), (0xA836, 0xA839), (0xA880, 0xA881),
    (0xA8B4, 0xA8C5), (0xA8E0, 0xA8F1), (0xA8FF, 0xA8FF), (0xA926, 0xA92D), (0xA947, 0xA953), (0xA980, 0xA983), (0xA9B3, 0xA9C0),
    (0xA9E5, 0xA9E5), (0xAA29, 0xAA36), (0xAA43, 0xAA43), (0xAA4C, 0xAA4D), (0xAA77, 0xAA79), (0xAA7B, 0xAA7D), (0xAAB0, 0xAAB0),
    (0xAAB2, 0xAAB4), (0xAAB7, 0xAAB8), (0xAABE, 0xAABF), (0xAAC1, 0xAAC1), (0xAAEB, 0xAAEF), (0xAAF5, 0xAAF6), (0xAB5B, 0xAB5B),
    (0xAB6A, 0xAB6B), (0xABE3, 0xABEA), (0xABEC, 0xABED), (0xFB1E, 0xFB1E), (0xFB29, 0xFB29), (0xFBB2, 0xFBC2), (0xFD40, 0xFD4F),
    (0xFDCF, 0xFDCF), (0xFDFC, 0xFE0F), (0xFE20, 0xFE2F), (0xFE62, 0xFE62), (0xFE64, 0xFE66), (0xFE69, 0xFE69), (0xFF04, 0xFF04),
    (0xFF0B, 0xFF0B), (0xFF1C, 0xFF1E), (0xFF3E, 0xFF3E), (0xFF40, 0xFF40), (0xFF5C, 0xFF5C), (0xFF5E, 0xFF5E), (0xFFE0, 0xFFE6),
    (0xFFE8, 0xFFEE), (0xFFFC, 0xFFFD),
];

#[cfg(test)]
mod tests {
    use super::*;

    fn record(line: &str) -> f64 {
        line_tally(&mut Parser::default(), line.as_bytes()).tokens()
    }

    #[test]
    fn each_character_class_has_its_weight() {
        assert_eq!(text_tokens(""), 0.0);
        assert_eq!(text_tokens("abcd"), 1.0);
        assert_eq!(text_tokens("a\n\t~"), 1.0);
        for cjk in ["漢字", "かな", "カナ", "한국", "ｶﾅ", "々〇", "\u{3099}\u{309A}"] {
            assert_eq!(text_tokens(cjk), 2.0 * 1.3, "{cjk:?}");
        }
        // Outside the BMP (emoji, a supplementary ideograph), symbols, combining marks.
        for wide in ["😀", "𠀀", "€", "→", "©", "\u{0301}", "\u{093F}", "\u{FFFD}"] {
            assert_eq!(text_tokens(wide), 1.5, "{wide:?}");
        }
        for other in ["é", "Ж", "א", "ع", "ह", "α", "ß", "\u{00A0}", "…"] {
            assert_eq!(text_tokens(other), 0.8, "{other:?}");
        }
    }

    #[test]
    fn mixed_text_is_the_sum_of_its_classes() {
        let t = {
            let mut t = Tally::default();
            t.add_text("ab漢😀é€cd");
            t
        };
        assert_eq!((t.ascii, t.cjk, t.wide, t.other), (4, 1, 2, 1));
        assert_eq!(text_tokens("ab漢😀é€cd"), 4.0 * 0.25 + 1.3 + 2.0 * 1.5 + 0.8);
        // Tallies add per class, so a split gives the same bits.
        let mut a = Tally::default();
        a.add_text("ab漢😀");
        a.add_text("é€cd");
        assert_eq!(a.tokens(), text_tokens("ab漢😀é€cd"));
    }

    #[test]
    fn a_user_prompt_is_its_text_plus_the_allowance() {
        assert_eq!(record(r#"{"type":"user","message":{"role":"user","content":"abcdefgh"}}"#), 12.0 + 2.0);
        assert_eq!(record(r#"{"type":"user","message":{"role":"user","content":"漢字"}}"#), 12.0 + 2.6);
        let blocks = r#"{"type":"user","message":{"content":[{"type":"text","text":"abcd"},{"type":"image","source":{"type":"base64","data":"AAAAAAAA"}}]}}"#;
        assert_eq!(record(blocks), 12.0 + 1.0 + IMAGE_TOKENS);
    }

    #[test]
    fn assistant_thinking_text_and_tool_input_count_in_full() {
        let line = r#"{"type":"assistant","message":{"content":[{"type":"thinking","thinking":"abcd","signature":"SIGSIGSIGSIG"},{"type":"text","text":"héllo"},{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"ls","n":12,"ok":true}}]}}"#;
        // input as compact JSON: {"command":"ls","n":12,"ok":true} is 33 ASCII characters.
        let input = r#"{"command":"ls","n":12,"ok":true}"#;
        assert_eq!(input.len(), 33);
        let expect = 12.0 + 1.0 + (4.0 * 0.25 + 0.8) + 4.0 * 0.25 + 33.0 * 0.25;
        assert!((record(line) - expect).abs() < 1e-9, "{} != {expect}", record(line));
    }

    #[test]
    fn tool_results_and_tool_use_result_both_count() {
        let line = r#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"toolu_1","content":[{"type":"text","text":"abcdefgh"},{"type":"image","source":{"data":"QUJD"}}],"is_error":false}]},"toolUseResult":{"stdout":"ok","interrupted":false}}"#;
        let tur = r#"{"stdout":"ok","interrupted":false}"#;
        let expect = 12.0 + 2.0 + IMAGE_TOKENS + tur.len() as f64 * 0.25;
        assert!((record(line) - expect).abs() < 1e-9);
        let string = r#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t","content":"abcd"}]},"toolUseResult":"Error: abcd"}"#;
        assert_eq!(record(string), 12.0 + 1.0 + 11.0 * 0.25);
        // Negative and fractional numbers keep their decimal form; escapes count decoded.
        let nums = r#"{"type":"user","message":{"content":[]},"toolUseResult":[-12,1.5,"a\nb"]}"#;
        assert_eq!(record(nums), 12.0 + r#"[-12,1.5,"a b"]"#.len() as f64 * 0.25);
    }

    #[test]
    fn records_that_are_not_messages_count_nothing() {
        assert_eq!(record(r#"{"type":"system","subtype":"compact_boundary","content":"Conversation compacted"}"#), 0.0);
        assert_eq!(record(r#"{"type":"file-history-snapshot","snapshot":{"a":"bbbb"}}"#), 0.0);
        assert_eq!(record("not json"), 0.0);
        assert_eq!(record(r#"{"type":"attachment","attachment":{"k":"v"}}"#), 12.0 + 2.25);
    }

    #[test]
    fn a_line_with_a_lone_surrogate_is_estimated_from_its_repair() {
        assert_eq!(record(r#"{"type":"user","message":{"content":"ab\ud83d"}}"#), 12.0 + 0.5 + 1.5);
    }

    #[test]
    fn record_tokens_reads_each_indexed_record() {
        let bytes = concat!(
            "{\"type\":\"user\",\"message\":{\"content\":\"abcd\"}}\n",
            "{\"type\":\"system\",\"content\":\"x\"}\n",
            "{\"type\":\"assistant\",\"message\":{\"content\":[{\"type\":\"text\",\"text\":\"漢\"}]}}\n"
        )
        .as_bytes();
        let scan = crate::scan::scan_bytes(bytes, crate::scan::Mode::Full);
        assert_eq!(record_tokens(&scan, bytes, None).unwrap(), vec![13.0, 0.0, 13.3]);
        assert_eq!(record_tokens(&scan, bytes, Some(&[2, 0])).unwrap(), vec![13.3, 13.0]);
        let err = record_tokens(&scan, bytes, Some(&[3])).unwrap_err();
        assert!(err.message.contains("out of range") && err.code == crate::failure::Code::InvalidArgument, "{err}");
        assert!(record_tokens(&scan, &bytes[..20], None).is_err());
    }

    #[test]
    fn the_symbol_table_is_sorted_and_disjoint() {
        for w in SYMBOLS_AND_MARKS.windows(2).chain(CJK.windows(2)) {
            assert!(w[0].0 <= w[0].1 && w[0].1 < w[1].0, "{w:?}");
        }
    }
}
