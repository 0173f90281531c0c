//! Byte spans of top-level members in one JSON object line, so a kept record can have one value
//! replaced without re-serialising anything else (key order, spacing, escapes and unknown fields
//! all stay as Claude Code wrote them).

use std::ops::Range;

/// Why a member could not be located unambiguously.
#[derive(Debug, PartialEq, Eq)]
pub enum SpanError {
    /// The line is not one JSON object (this scanner only follows strings and nesting).
    NotAnObject,
    /// The key occurs twice at the top level: which one a reader honours is not ours to guess.
    DuplicateKey,
}

/// Where a top-level member sits in the line.
#[derive(Debug, PartialEq, Eq)]
pub struct Member {
    /// The value, without surrounding whitespace.
    pub value: Range<usize>,
}

/// Finds `key` among the top-level members of `line`. `Ok(None)` when it is absent.
pub fn find_member(line: &[u8], key: &str) -> Result<Option<Member>, SpanError> {
    let mut found = None;
    for_each_member(line, |k, value| {
        if k == key.as_bytes() {
            if found.is_some() {
                return Err(SpanError::DuplicateKey);
            }
            found = Some(Member { value });
        }
        Ok(())
    })?;
    Ok(found)
}

/// One change to a top-level member: its new value as raw JSON text.
pub struct MemberEdit<'a> {
    pub key: &'a str,
    pub json: &'a [u8],
}

/// Applies edits to a line: an existing member's value is replaced in place; a missing member is
/// appended as the last member. Everything else is copied byte for byte.
pub fn edit_members(line: &[u8], edits: &[MemberEdit]) -> Result<Vec<u8>, SpanError> {
    let mut spans: Vec<(Range<usize>, &[u8])> = Vec::with_capacity(edits.len());
    let mut appended: Vec<&MemberEdit> = Vec::new();
    for e in edits {
        match find_member(line, e.key)? {
            Some(m) => spans.push((m.value, e.json)),
            None => appended.push(e),
        }
    }
    spans.sort_by_key(|(r, _)| r.start);
    let close = closing_brace(line).ok_or(SpanError::NotAnObject)?;
    let mut out = Vec::with_capacity(line.len() + edits.iter().map(|e| e.json.len() + e.key.len() + 4).sum::<usize>());
    let mut at = 0;
    for (range, json) in spans {
        out.extend_from_slice(&line[at..range.start]);
        out.extend_from_slice(json);
        at = range.end;
    }
    out.extend_from_slice(&line[at..close]);
    let empty = line[..close].iter().rev().find(|b| !b.is_ascii_whitespace()) == Some(&b'{');
    for (n, e) in appended.iter().enumerate() {
        if !(empty && n == 0) {
            out.push(b',');
        }
        out.push(b'"');
        out.extend_from_slice(e.key.as_bytes());
        out.extend_from_slice(b"\":");
        out.extend_from_slice(e.json);
    }
    out.extend_from_slice(&line[close..]);
    Ok(out)
}

/// The index of the object's closing brace (trailing whitespace allowed after it).
fn closing_brace(line: &[u8]) -> Option<usize> {
    let end = line.iter().rposition(|b| !b.is_ascii_whitespace())?;
    (line[end] == b'}').then_some(end)
}

/// Calls `f(raw key bytes, value span)` for every top-level member, in order.
fn for_each_member(
    line: &[u8],
    mut f: impl FnMut(&[u8], Range<usize>) -> Result<(), SpanError>,
) -> Result<(), SpanError> {
    for m in object_members(line, 0)? {
        f(&line[m.key.clone()], m.value)?;
    }
    Ok(())
}

/// One member of an object, located in the line's bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RawMember {
    /// The key's raw bytes between its quotes (escapes not decoded).
    pub key: Range<usize>,
    /// The index of the key's opening quote.
    pub start: usize,
    /// The value, without surrounding whitespace.
    pub value: Range<usize>,
}

/// The members of the object whose `{` is the first non-blank byte at or after `at`, in order.
pub fn object_members(line: &[u8], at: usize) -> Result<Vec<RawMember>, SpanError> {
    let mut out = Vec::new();
    let mut i = skip_ws(line, at);
    if line.get(i) != Some(&b'{') {
        return Err(SpanError::NotAnObject);
    }
    i = skip_ws(line, i + 1);
    if line.get(i) == Some(&b'}') {
        return Ok(out);
    }
    loop {
        if line.get(i) != Some(&b'"') {
            return Err(SpanError::NotAnObject);
        }
        let key_start = i;
        let key_end = string_end(line, i).ok_or(SpanError::NotAnObject)?;
        i = skip_ws(line, key_end);
        if line.get(i) != Some(&b':') {
            return Err(SpanError::NotAnObject);
        }
        let start = skip_ws(line, i + 1);
        let end = value_end(line, start).ok_or(SpanError::NotAnObject)?;
        out.push(RawMember { key: key_start + 1..key_end - 1, start: key_start, value: start..end });
        i = skip_ws(line, end);
        match line.get(i) {
            Some(b',') => i = skip_ws(line, i + 1),
            Some(b'}') => return Ok(out),
            _ => return Err(SpanError::NotAnObject),
        }
    }
}

/// The element spans of the array whose `[` is the first non-blank byte at or after `at`.
/// `None` when the bytes there are not a well-formed array.
pub fn array_items(line: &[u8], at: usize) -> Option<Vec<Range<usize>>> {
    let mut out = Vec::new();
    let mut i = skip_ws(line, at);
    if line.get(i) != Some(&b'[') {
        return None;
    }
    i = skip_ws(line, i + 1);
    if line.get(i) == Some(&b']') {
        return Some(out);
    }
    loop {
        let end = value_end(line, i)?;
        out.push(i..end);
        i = skip_ws(line, end);
        match line.get(i) {
            Some(b',') => i = skip_ws(line, i + 1),
            Some(b']') => return Some(out),
            _ => return None,
        }
    }
}

/// The bytes to delete so that member `k` of `members` (one object's, in order) disappears with
/// exactly one separating comma: up to the next member's key when one follows, else from the end
/// of the previous value. An only member leaves the braces (and any blanks) as they are.
pub fn member_deletion(members: &[RawMember], k: usize) -> Range<usize> {
    let m = &members[k];
    if let Some(next) = members.get(k + 1) {
        m.start..next.start
    } else if k > 0 {
        members[k - 1].value.end..m.value.end
    } else {
        m.start..m.value.end
    }
}

fn skip_ws(line: &[u8], mut i: usize) -> usize {
    while i < line.len() && matches!(line[i], b' ' | b'\t' | b'\r' | b'\n') {
        i += 1;
    }
    i
}

/// `line[start]` is a quote: the index just past the closing quote.
fn string_end(line: &[u8], start: usize) -> Option<usize> {
    let mut i = start + 1;
    loop {
        let j = i + memchr::memchr2(b'"', b'\\', &line[i..])?;
        if line[j] == b'\\' {
            i = j + 2;
            if i > line.len() {
                return None;
            }
        } else {
            return Some(j + 1);
        }
    }
}

/// The index just past the value starting at `start`.
pub fn value_end(line: &[u8], start: usize) -> Option<usize> {
    match *line.get(start)? {
        b'"' => string_end(line, start),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut i = start;
            while i < line.len() {
                match line[i] {
                    b'"' => {
                        i = string_end(line, i)?;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(i + 1);
                        }
                    }
                    _ => {}
                }
                i += 1;
            }
            None
        }
        _ => {
            let n = line[start..].iter().position(|b| matches!(b, b',' | b'}' | b']' | b' ' | b'\t' | b'\r' | b'\n'));
            let end = start + n.unwrap_or(line.len() - start);
            (end > start).then_some(end)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edit(line: &str, edits: &[(&str, &str)]) -> Result<String, SpanError> {
        let e: Vec<MemberEdit> = edits.iter().map(|(k, j)| MemberEdit { key: k, json: j.as_bytes() }).collect();
        edit_members(line.as_bytes(), &e).map(|v| String::from_utf8(v).unwrap())
    }

    #[test]
    fn replaces_only_the_top_level_value() {
        let line = r#"{"parentUuid":"a","message":{"parentUuid":"inner","content":"x \"parentUuid\":1"},"uuid":"u"}"#;
        assert_eq!(
            edit(line, &[("parentUuid", r#""NEW""#)]).unwrap(),
            r#"{"parentUuid":"NEW","message":{"parentUuid":"inner","content":"x \"parentUuid\":1"},"uuid":"u"}"#
        );
        let line = r#"{"parentUuid":null, "uuid" : "u"}"#;
        assert_eq!(edit(line, &[("parentUuid", r#""p""#)]).unwrap(), r#"{"parentUuid":"p", "uuid" : "u"}"#);
    }

    #[test]
    fn appends_a_missing_member_and_handles_several_edits() {
        let line = r#"{"type":"last-prompt","sessionId":"s1","extra":[1,{"a":"}"}]}"#;
        assert_eq!(
            edit(line, &[("leafUuid", r#""L""#), ("sessionId", r#""s2""#)]).unwrap(),
            r#"{"type":"last-prompt","sessionId":"s2","extra":[1,{"a":"}"}],"leafUuid":"L"}"#
        );
        assert_eq!(edit("{ }", &[("k", "1")]).unwrap(), r#"{ "k":1}"#);
    }

    #[test]
    fn keeps_escapes_and_non_ascii_bytes_verbatim() {
        let line = "{\"a\":\"\\ud83d lone \u{00e9}\\\\\",\"parentUuid\":\"x\"}";
        let out = edit(line, &[("parentUuid", "\"y\"")]).unwrap();
        assert_eq!(out, "{\"a\":\"\\ud83d lone \u{00e9}\\\\\",\"parentUuid\":\"y\"}");
    }

    #[test]
    fn member_deletion_takes_one_separating_comma() {
        let cut = |line: &str, key: &str| {
            let b = line.as_bytes();
            let ms = object_members(b, 0).unwrap();
            let k = ms.iter().position(|m| &b[m.key.clone()] == key.as_bytes()).unwrap();
            let r = member_deletion(&ms, k);
            format!("{}{}", &line[..r.start], &line[r.end..])
        };
        assert_eq!(cut(r#"{"a":1, "pages":"1-2" ,"b":[2]}"#, "pages"), r#"{"a":1, "b":[2]}"#);
        assert_eq!(cut(r#"{"a":1 , "pages":{"x":"}"}}"#, "pages"), r#"{"a":1}"#);
        assert_eq!(cut(r#"{"pages":"3","file_path":"/x"}"#, "pages"), r#"{"file_path":"/x"}"#);
        assert_eq!(cut(r#"{ "pages":"3" }"#, "pages"), r#"{  }"#);
        let items = array_items(br#" [1, {"a":"]"} ,"s"]"#, 0).unwrap();
        assert_eq!(items, vec![2..3, 5..14, 16..19]);
        assert_eq!(array_items(b"[1,", 0), None);
    }

    #[test]
    fn refuses_duplicate_keys_and_non_objects() {
        assert_eq!(
            edit(r#"{"parentUuid":"a","parentUuid":"b"}"#, &[("parentUuid", "null")]),
            Err(SpanError::DuplicateKey)
        );
        assert_eq!(edit(r#"["parentUuid"]"#, &[("parentUuid", "null")]), Err(SpanError::NotAnObject));
        assert_eq!(edit(r#"{"a":"unterminated}"#, &[("a", "1")]), Err(SpanError::NotAnObject));
        assert_eq!(find_member(br#"{"a":1,"b":true}"#, "b").unwrap().unwrap().value, 11..15);
    }
}
