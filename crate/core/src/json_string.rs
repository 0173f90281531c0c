//! JSON string literals, written by the one escaper of the crate: `"` and `\\` escaped, `\n`,
//! `\r` and `\t` in their short form, other control characters as `\u00XX`, everything else
//! as it is. It imports nothing, so any module (failures, summaries) can use it.

/// Appends `s` to `out` as a JSON string literal, quotes included.
pub fn escape_into(s: &str, out: &mut String) {
    out.push('"');
    let b = s.as_bytes();
    let mut run = 0;
    for (i, &c) in b.iter().enumerate() {
        if c >= 0x20 && c != b'"' && c != b'\\' {
            continue;
        }
        // Runs between escapes are copied whole; every escaped byte is ASCII, so the slices
        // lie on char boundaries.
        out.push_str(&s[run..i]);
        match c {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            b'\t' => out.push_str("\\t"),
            c => out.push_str(&format!("\\u{:04x}", c)),
        }
        run = i + 1;
    }
    out.push_str(&s[run..]);
    out.push('"');
}

/// `s` as a JSON string literal, quotes included.
pub fn json_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    escape_into(s, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::json_string;

    #[test]
    fn escapes_quotes_backslashes_and_control_characters_and_keeps_the_rest() {
        assert_eq!(json_string("a\"b\\c"), r#""a\"b\\c""#);
        assert_eq!(json_string("l1\nl2\r\t\u{1}"), r#""l1\nl2\r\t\u0001""#);
        assert_eq!(json_string("é ✓ 😀"), "\"é ✓ 😀\"");
        assert_eq!(json_string(""), "\"\"");
    }
}
