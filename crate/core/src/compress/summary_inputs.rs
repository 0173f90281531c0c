//! What a summary needs from each summarised record, read natively so that only the texts a
//! summary can use cross into JS: full human, assistant and thinking text and prior compact
//! summaries; tool calls with their inputs as compact JSON whose long strings are cut; tool
//! results cut to a head and a tail. Records are parsed in parallel with the scanner's parser.

use crate::failure::Failure;
use crate::json_string::escape_into;
use crate::scan::tape::{as_bool, as_str, entries, items};
use crate::scan::{Parser, Scan};
use rayon::prelude::*;
use simd_json::{Node, StaticNode};

#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Strings inside tool inputs are cut to this many characters.
    pub string_chars: usize,
    /// Tool results are cut to this many characters (head and tail kept).
    pub result_chars: usize,
    /// Results that report no failure are cut to this many (0: text left out): a summary that
    /// only reports failures need not carry every successful output across.
    pub success_result_chars: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits { string_chars: 400, result_chars: 1200, success_result_chars: 1200 }
    }
}

impl Limits {
    /// The defaults with the caller's overrides; a successful result is cut like any result
    /// (`result_chars`, as given) unless its own limit is given.
    pub fn with(
        string_chars: Option<usize>,
        result_chars: Option<usize>,
        success_result_chars: Option<usize>,
    ) -> Limits {
        let d = Limits::default();
        let result_chars = result_chars.unwrap_or(d.result_chars);
        Limits {
            string_chars: string_chars.unwrap_or(d.string_chars),
            result_chars,
            success_result_chars: success_result_chars.unwrap_or(result_chars),
        }
    }
}

/// A result's text reports a failure by its start, whatever `is_error` says.
fn reports_failure(text: &str) -> bool {
    text.starts_with("Exit code") || text.starts_with("Error: Exit code") || text.starts_with("<tool_use_error>")
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Block {
    /// 'text' | 'thinking' | 'tool_use' | 'tool_result' | 'image' | any other block type
    pub kind: String,
    pub text: Option<String>,
    pub name: Option<String>,
    pub id: Option<String>,
    /// tool_use: the input as compact JSON, long strings cut.
    pub input: Option<String>,
    pub is_error: bool,
    /// Characters of the text before it was cut.
    pub chars: u32,
    pub cut: bool,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Item {
    pub record: u32,
    pub line: u32,
    pub kind: Option<String>,
    pub subtype: Option<String>,
    pub role: Option<String>,
    pub uuid: Option<String>,
    pub timestamp: Option<String>,
    pub is_meta: bool,
    pub is_compact_summary: bool,
    pub is_api_error_message: bool,
    /// `message.content` when it is a string (in full).
    pub content: Option<String>,
    pub blocks: Vec<Block>,
    /// The `type` of an object `toolUseResult` (`create`, `update`, `text`, …): all a summary
    /// uses of it (its text repeats the tool_result; its patches and file copies are bulk).
    pub tool_use_result_type: Option<String>,
    /// A system record's text: `content`, else its `error` as compact JSON.
    pub system_text: Option<String>,
    pub parsed: bool,
}

/// `s` cut to at most `max` characters: the head, and when `tail` the last quarter too.
fn cut(s: &str, max: usize, tail: bool) -> (String, bool) {
    if s.len() <= max {
        return (s.to_string(), false);
    }
    cut_counted(s, s.chars().count(), max, tail)
}

/// [`cut`] of `s`, whose character count `n` is known.
fn cut_counted(s: &str, n: usize, max: usize, tail: bool) -> (String, bool) {
    if n <= max {
        return (s.to_string(), false);
    }
    let at = |k: usize| s.char_indices().nth(k).map_or(s.len(), |(i, _)| i);
    if !tail {
        return (format!("{}…[+{} chars]", &s[..at(max)], n - max), true);
    }
    let (head, back) = (max - max / 4, max / 4);
    // The tail is found from the end: walking to it from the start would cross the whole text.
    let tail_at = if back == 0 { s.len() } else { s.char_indices().nth_back(back - 1).map_or(0, |(i, _)| i) };
    (format!("{}…[{} chars cut]…{}", &s[..at(head)], n - head - back, &s[tail_at..]), true)
}

/// Writes the value at `tape[at]` as compact JSON with strings cut; returns the index after it.
fn json_into(tape: &[Node], at: usize, max: usize, out: &mut String) -> usize {
    match tape.get(at) {
        Some(Node::String(s)) => {
            escape_into(&cut(s, max, false).0, out);
            at + 1
        }
        Some(Node::Object { len, .. }) => {
            out.push('{');
            let mut i = at + 1;
            for k in 0..*len {
                if k > 0 {
                    out.push(',');
                }
                if let Some(Node::String(key)) = tape.get(i) {
                    escape_into(key, out);
                }
                out.push(':');
                i = json_into(tape, i + 1, max, out);
            }
            out.push('}');
            i
        }
        Some(Node::Array { len, .. }) => {
            out.push('[');
            let mut i = at + 1;
            for k in 0..*len {
                if k > 0 {
                    out.push(',');
                }
                i = json_into(tape, i, max, out);
            }
            out.push(']');
            i
        }
        Some(Node::Static(s)) => {
            match s {
                StaticNode::Null => out.push_str("null"),
                StaticNode::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
                StaticNode::U64(v) => out.push_str(&v.to_string()),
                StaticNode::I64(v) => out.push_str(&v.to_string()),
                StaticNode::F64(v) => out.push_str(&v.to_string()),
                #[allow(unreachable_patterns)]
                _ => out.push_str("null"),
            }
            at + 1
        }
        None => at + 1,
    }
}

fn json(tape: &[Node], at: usize, max: usize) -> String {
    let mut s = String::new();
    json_into(tape, at, max, &mut s);
    s
}

fn field<'i>(tape: &[Node<'i>], at: usize, name: &str) -> Option<usize> {
    entries(tape, at).find(|(k, _)| *k == name).map(|(_, v)| v)
}

fn text_of(tape: &[Node], at: Option<usize>) -> Option<String> {
    at.and_then(|v| as_str(tape, v)).map(str::to_string)
}

/// A tool result's content as plain text: a string, or its text blocks joined by newlines.
fn result_text<'t>(tape: &'t [Node], at: usize) -> std::borrow::Cow<'t, str> {
    match tape.get(at) {
        Some(Node::String(s)) => std::borrow::Cow::Borrowed(s),
        Some(Node::Array { .. }) => items(tape, at)
            .map(|b| match field(tape, b, "type").and_then(|t| as_str(tape, t)) {
                Some("text") => field(tape, b, "text").and_then(|t| as_str(tape, t)).unwrap_or("").to_string(),
                Some(other) => format!("[{other}]"),
                None => String::new(),
            })
            .filter(|s| !s.is_empty())
            .collect::<Vec<_>>()
            .join("\n")
            .into(),
        _ => std::borrow::Cow::Borrowed(""),
    }
}

fn block(tape: &[Node], at: usize, lim: Limits) -> Block {
    let kind = field(tape, at, "type").and_then(|t| as_str(tape, t)).unwrap_or("").to_string();
    let mut b = Block { kind, ..Block::default() };
    match b.kind.as_str() {
        "text" | "thinking" => {
            b.text = text_of(tape, field(tape, at, &b.kind.clone()));
            b.chars = b.text.as_deref().map_or(0, |t| t.chars().count() as u32);
        }
        "tool_use" | "server_tool_use" => {
            b.name = text_of(tape, field(tape, at, "name"));
            b.id = text_of(tape, field(tape, at, "id"));
            b.input = field(tape, at, "input").map(|v| json(tape, v, lim.string_chars));
        }
        "tool_result" => {
            b.id = text_of(tape, field(tape, at, "tool_use_id"));
            b.is_error = field(tape, at, "is_error").is_some_and(|v| as_bool(tape, v));
            let full = field(tape, at, "content").map_or(std::borrow::Cow::Borrowed(""), |v| result_text(tape, v));
            let n = full.chars().count();
            b.chars = n as u32;
            let max = if b.is_error || reports_failure(&full) { lim.result_chars } else { lim.success_result_chars };
            let (t, c) = if max == 0 { (String::new(), n > 0) } else { cut_counted(&full, n, max, true) };
            b.text = Some(t);
            b.cut = c;
        }
        _ => {}
    }
    b
}

/// Extracts one parsed record.
pub fn item_of(tape: &[Node], lim: Limits, it: &mut Item) {
    if !matches!(tape.first(), Some(Node::Object { .. })) {
        return;
    }
    it.parsed = true;
    let (mut message, mut content_field, mut error) = (None, None, None);
    for (k, v) in entries(tape, 0) {
        match k {
            "type" => it.kind = text_of(tape, Some(v)),
            "subtype" => it.subtype = text_of(tape, Some(v)),
            "uuid" => it.uuid = text_of(tape, Some(v)),
            "timestamp" => it.timestamp = text_of(tape, Some(v)),
            "isMeta" => it.is_meta = as_bool(tape, v),
            "isCompactSummary" => it.is_compact_summary = as_bool(tape, v),
            "isApiErrorMessage" => it.is_api_error_message = as_bool(tape, v),
            "message" => message = Some(v),
            "content" => content_field = Some(v),
            "error" => error = Some(v),
            "toolUseResult" => it.tool_use_result_type = field(tape, v, "type").and_then(|t| text_of(tape, Some(t))),
            _ => {}
        }
    }
    if let Some(m) = message {
        it.role = text_of(tape, field(tape, m, "role"));
        if let Some(c) = field(tape, m, "content") {
            match tape.get(c) {
                Some(Node::String(s)) => it.content = Some(s.to_string()),
                Some(Node::Array { .. }) => it.blocks = items(tape, c).map(|b| block(tape, b, lim)).collect(),
                _ => {}
            }
        }
    }
    if it.kind.as_deref() == Some("system") {
        it.system_text = content_field
            .and_then(|v| as_str(tape, v).map(str::to_string))
            .or_else(|| error.map(|v| json(tape, v, lim.string_chars)));
    }
}

/// The summary items of records `indexes` of `scan`, read from `bytes` (the scanned file).
pub fn items_of(scan: &Scan, bytes: &[u8], indexes: &[u32], lim: Limits) -> Result<Vec<Item>, Failure> {
    crate::scan::record_bytes::check_indexes(scan, indexes)?;
    indexes.par_iter().map_init(Parser::default, |parser, &i| item_at(scan, bytes, 0, parser, i, lim)).collect()
}

/// Writes `"key":value` members: strings escaped, absent options and false flags left out.
struct Members<'o> {
    out: &'o mut String,
    first: bool,
}

impl<'o> Members<'o> {
    fn open(out: &'o mut String) -> Self {
        out.push('{');
        Members { out, first: true }
    }
    fn key(&mut self, k: &str) {
        if !self.first {
            self.out.push(',');
        }
        self.first = false;
        self.out.push('"');
        self.out.push_str(k);
        self.out.push_str("\":");
    }
    fn str(&mut self, k: &str, v: &Option<String>) {
        if let Some(v) = v {
            self.key(k);
            escape_into(v, self.out);
        }
    }
    fn flag(&mut self, k: &str, v: bool) {
        if v {
            self.key(k);
            self.out.push_str("true");
        }
    }
    fn num(&mut self, k: &str, v: u32) {
        self.key(k);
        self.out.push_str(&v.to_string());
    }
    fn close(self) {
        self.out.push('}');
    }
}

/// The items as one JSON array (camelCase keys, absent values and false flags left out):
/// one string crosses into JS and one JSON.parse there costs far less than building the
/// objects member by member through Node-API.
pub fn to_json(items: &[Item]) -> String {
    let mut out = String::with_capacity(items.len() * 256);
    out.push('[');
    for (n, it) in items.iter().enumerate() {
        if n > 0 {
            out.push(',');
        }
        item_json(it, &mut out);
    }
    out.push(']');
    out
}

fn item_json(it: &Item, out: &mut String) {
    let mut m = Members::open(out);
    m.num("record", it.record);
    m.num("line", it.line);
    m.str("type", &it.kind);
    m.str("subtype", &it.subtype);
    m.str("role", &it.role);
    m.str("uuid", &it.uuid);
    m.str("timestamp", &it.timestamp);
    m.flag("isMeta", it.is_meta);
    m.flag("isCompactSummary", it.is_compact_summary);
    m.flag("isApiErrorMessage", it.is_api_error_message);
    m.str("content", &it.content);
    m.str("toolUseResultType", &it.tool_use_result_type);
    m.str("systemText", &it.system_text);
    m.flag("parsed", it.parsed);
    m.key("blocks");
    m.out.push('[');
    for (k, b) in it.blocks.iter().enumerate() {
        if k > 0 {
            m.out.push(',');
        }
        let mut bm = Members::open(m.out);
        bm.key("kind");
        escape_into(&b.kind, bm.out);
        bm.str("text", &b.text);
        bm.str("name", &b.name);
        bm.str("id", &b.id);
        bm.str("input", &b.input);
        bm.flag("isError", b.is_error);
        bm.num("chars", b.chars);
        bm.flag("cut", b.cut);
        bm.close();
    }
    m.out.push(']');
    m.close();
}

/// [`items_of`] and [`to_json`] in one parallel pass: each record is serialised on the thread
/// that parsed it.
pub fn items_json(scan: &Scan, bytes: &[u8], indexes: &[u32], lim: Limits) -> Result<String, Failure> {
    items_json_at(scan, bytes, 0, indexes, lim)
}

/// The byte range `[start, end)` of the file holding records `indexes` (already checked);
/// `(0, 0)` when there are none.
pub fn window_of(scan: &Scan, indexes: &[u32]) -> (u64, u64) {
    let mut range: Option<(u64, u64)> = None;
    for &i in indexes {
        let r = &scan.records[i as usize];
        let (start, end) = (r.offset, r.offset + r.len as u64);
        range = Some(range.map_or((start, end), |(s, e)| (s.min(start), e.max(end))));
    }
    range.unwrap_or((0, 0))
}

thread_local! {
    /// The last batch's bytes: one allocation reused across batches keeps its pages mapped.
    static WINDOW: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// [`items_json`] of records `indexes`, their bytes read from the file at `path` (the file
/// `scan` was made from) one window at a time rather than from a copy of the whole source.
/// `Ok(None)`, reading nothing, when the records span more than `max_window` bytes.
pub fn items_json_from_file(
    path: &std::path::Path,
    scan: &Scan,
    indexes: &[u32],
    max_window: f64,
    lim: Limits,
) -> Result<Option<String>, Failure> {
    crate::scan::record_bytes::check_indexes(scan, indexes)?;
    let (start, end) = window_of(scan, indexes);
    if (end - start) as f64 > max_window {
        return Ok(None);
    }
    let file = std::fs::File::open(path).map_err(|e| Failure::io(path, &e))?;
    WINDOW.with(|w| {
        let mut window = w.borrow_mut();
        window.clear();
        window.resize((end - start) as usize, 0);
        super::output::read_exact_at(&file, &mut window, start).map_err(|e| Failure::io(path, &e))?;
        items_json_at(scan, &window, start, indexes, lim).map(Some)
    })
}

/// [`items_json`] of records `indexes`, whose lines all lie in `window`, the file's bytes from
/// offset `base` on (a batch read straight from the file: no copy of the whole source needed).
pub fn items_json_at(scan: &Scan, window: &[u8], base: u64, indexes: &[u32], lim: Limits) -> Result<String, Failure> {
    crate::scan::record_bytes::check_indexes(scan, indexes)?;
    let bytes = window;
    let parts: Vec<String> = indexes
        .par_chunks(64)
        .map_init(Parser::default, |parser, chunk| {
            let mut out = String::new();
            for (k, &i) in chunk.iter().enumerate() {
                if k > 0 {
                    out.push(',');
                }
                item_json(&item_at(scan, bytes, base, parser, i, lim)?, &mut out);
            }
            Ok(out)
        })
        .collect::<Result<_, Failure>>()?;
    let mut out = String::with_capacity(parts.iter().map(String::len).sum::<usize>() + parts.len() + 2);
    out.push('[');
    for (k, p) in parts.iter().enumerate() {
        if k > 0 {
            out.push(',');
        }
        out.push_str(p);
    }
    out.push(']');
    Ok(out)
}

fn item_at(scan: &Scan, bytes: &[u8], base: u64, parser: &mut Parser, i: u32, lim: Limits) -> Result<Item, Failure> {
    let line = crate::scan::record_bytes::record_line_at(scan, bytes, base, i)?;
    let mut it = Item { record: i, line: scan.records[i as usize].line, ..Item::default() };
    parser.parse_with(line, |tape| item_of(tape, lim, &mut it));
    Ok(it)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::failure::Code;

    fn item(line: &str, lim: Limits) -> Item {
        let mut it = Item::default();
        Parser::default().parse_with(line.as_bytes(), |t| item_of(t, lim, &mut it));
        it
    }

    #[test]
    fn human_text_and_flags() {
        let it = item(
            r#"{"type":"user","uuid":"u1","timestamp":"t","isMeta":true,"message":{"role":"user","content":"héllo"}}"#,
            Limits::default(),
        );
        assert_eq!(it.content.as_deref(), Some("héllo"));
        assert!(it.is_meta && !it.is_compact_summary);
        assert_eq!((it.role.as_deref(), it.uuid.as_deref()), (Some("user"), Some("u1")));
    }

    #[test]
    fn tool_use_input_keeps_valid_json_with_long_strings_cut() {
        let lim = Limits { string_chars: 5, result_chars: 8, success_result_chars: 8 };
        let it = item(
            r#"{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t1","name":"Write","input":{"file_path":"a/b.rs","content":"line1\nline2\"x","n":-3,"f":1.5,"ok":null}}]}}"#,
            lim,
        );
        let b = &it.blocks[0];
        assert_eq!((b.name.as_deref(), b.id.as_deref()), (Some("Write"), Some("t1")));
        assert_eq!(
            b.input.as_deref(),
            Some(r#"{"file_path":"a/b.r…[+1 chars]","content":"line1…[+8 chars]","n":-3,"f":1.5,"ok":null}"#)
        );
    }

    #[test]
    fn tool_results_are_cut_to_head_and_tail_and_keep_is_error() {
        let lim = Limits { string_chars: 5, result_chars: 8, success_result_chars: 8 };
        let it = item(
            r#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","is_error":true,"content":[{"type":"text","text":"Exit code 1 and then the last line"}]}]},"toolUseResult":{"type":"text","stdout":"x"}}"#,
            lim,
        );
        let b = &it.blocks[0];
        assert!(b.is_error && b.cut);
        assert_eq!(b.chars, 34);
        assert_eq!(b.text.as_deref(), Some("Exit c…[26 chars cut]…ne"));
        assert_eq!(it.tool_use_result_type.as_deref(), Some("text"));
    }

    #[test]
    fn successful_results_can_be_left_out_while_failures_keep_their_text() {
        let lim = Limits { string_chars: 400, result_chars: 1200, success_result_chars: 0 };
        let ok = item(
            r#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"all good"}]}}"#,
            lim,
        );
        assert_eq!((ok.blocks[0].text.as_deref(), ok.blocks[0].chars, ok.blocks[0].cut), (Some(""), 8, true));
        for failed in [
            r#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"boom","is_error":true}]}}"#,
            r#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"Exit code 2\nno"}]}}"#,
        ] {
            let it = item(failed, lim);
            assert!(it.blocks[0].text.as_deref().is_some_and(|t| !t.is_empty()), "{failed}");
        }
    }

    #[test]
    fn system_text_and_thinking() {
        let s = item(r#"{"type":"system","subtype":"api_error","error":{"status":529}}"#, Limits::default());
        assert_eq!((s.subtype.as_deref(), s.system_text.as_deref()), (Some("api_error"), Some(r#"{"status":529}"#)));
        let a = item(
            r#"{"type":"assistant","message":{"content":[{"type":"thinking","thinking":"漢字","signature":"s"}]}}"#,
            Limits::default(),
        );
        assert_eq!((a.blocks[0].kind.as_str(), a.blocks[0].text.as_deref()), ("thinking", Some("漢字")));
    }

    #[test]
    fn items_serialise_to_one_json_array() {
        let mut it =
            item(r#"{"type":"user","isMeta":true,"message":{"role":"user","content":"a\"b"}}"#, Limits::default());
        it.line = 3;
        assert_eq!(
            to_json(&[it]),
            r#"[{"record":0,"line":3,"type":"user","role":"user","isMeta":true,"content":"a\"b","parsed":true,"blocks":[]}]"#
        );
    }

    #[test]
    fn the_parallel_json_equals_the_items_serialised_in_order() {
        let mut lines = String::new();
        for k in 0..300 {
            lines.push_str(&format!(
                "{{\"type\":\"user\",\"message\":{{\"role\":\"user\",\"content\":\"prompt {k}\"}}}}\n"
            ));
        }
        let bytes = lines.as_bytes();
        let scan = crate::scan::scan_bytes(bytes, crate::scan::Mode::Full);
        let idx: Vec<u32> = (0..300).rev().collect();
        let json = items_json(&scan, bytes, &idx, Limits::default()).unwrap();
        assert_eq!(json, to_json(&items_of(&scan, bytes, &idx, Limits::default()).unwrap()));
        assert!(json.starts_with(r#"[{"record":299,"line":300"#));
        assert_eq!(items_json(&scan, bytes, &[], Limits::default()).unwrap(), "[]");
        assert!(items_json(&scan, bytes, &[300], Limits::default()).unwrap_err().message.contains("out of range"));
        let some = [17u32, 5, 40];
        let (start, end) = window_of(&scan, &some);
        let window = &bytes[start as usize..end as usize];
        assert_eq!(
            items_json_at(&scan, window, start, &some, Limits::default()).unwrap(),
            items_json(&scan, bytes, &some, Limits::default()).unwrap()
        );
        assert!(items_json_at(&scan, &window[1..], start, &some, Limits::default()).is_err());
    }

    #[test]
    fn limits_default_a_successful_result_to_the_result_limit_given() {
        let d = Limits::default();
        let l = Limits::with(None, None, None);
        assert_eq!(
            (l.string_chars, l.result_chars, l.success_result_chars),
            (d.string_chars, d.result_chars, d.result_chars)
        );
        let l = Limits::with(Some(10), Some(50), None);
        assert_eq!((l.string_chars, l.result_chars, l.success_result_chars), (10, 50, 50));
        assert_eq!(Limits::with(None, Some(50), Some(0)).success_result_chars, 0);
    }

    #[test]
    fn items_from_the_file_read_only_the_window_asked_for() {
        let mut lines = String::new();
        for k in 0..50 {
            lines.push_str(&format!("{{\"type\":\"user\",\"message\":{{\"role\":\"user\",\"content\":\"p {k}\"}}}}\n"));
        }
        let path = std::env::temp_dir().join(format!("cj-summary-window-{}", std::process::id()));
        std::fs::write(&path, &lines).unwrap();
        let scan = crate::scan::scan_bytes(lines.as_bytes(), crate::scan::Mode::Full);
        let some = [3u32, 9];
        let (start, end) = window_of(&scan, &some);
        let want = items_json(&scan, lines.as_bytes(), &some, Limits::default()).unwrap();
        let got = items_json_from_file(&path, &scan, &some, (end - start) as f64, Limits::default()).unwrap();
        assert_eq!(got.as_deref(), Some(want.as_str()));
        assert_eq!(items_json_from_file(&path, &scan, &some, (end - start - 1) as f64, Limits::default()), Ok(None));
        let bad = items_json_from_file(&path, &scan, &[99], 1e9, Limits::default()).unwrap_err();
        assert_eq!(bad.code, Code::InvalidArgument);
        std::fs::remove_file(&path).unwrap();
        let gone = items_json_from_file(&path, &scan, &some, 1e9, Limits::default()).unwrap_err();
        assert_eq!((gone.code, gone.path), (Code::Io, Some(path.display().to_string())));
    }
}
