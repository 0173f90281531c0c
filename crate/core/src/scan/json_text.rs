//! Whether bytes are exactly one JSON text (RFC 8259: one value, optional whitespace around
//! it, UTF-8), decided without building anything. The archive asks this of every transcript
//! line to know whether the line can be embedded verbatim in its event; a full parse (a tape,
//! unescaped strings) cost about a tenth of the archive's CPU, this check a fraction of that.
//!
//! Any `\uXXXX` escape is grammatical, lone surrogates included (JSON.parse reads them too),
//! and numbers of any size are accepted: range is a reader's concern, not the grammar's.

/// Reusable state: the open brackets of the value being checked (kept between calls so a deep
/// line allocates once).
#[derive(Default)]
pub struct JsonText {
    open: Vec<u8>,
}

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGH: u64 = 0x8080_8080_8080_8080;

/// Bit 7 of each byte of `x` that is zero is set; above the lowest such byte, bits may be set
/// spuriously (a borrow), so only the lowest set bit is exact.
#[inline]
fn zero_bytes(x: u64) -> u64 {
    x.wrapping_sub(ONES) & !x & HIGH
}

/// The index of the first `"`, `\` or control byte (< 0x20) at or after `i`, or `b.len()`.
#[inline]
fn string_stop(b: &[u8], mut i: usize) -> usize {
    while i + 8 <= b.len() {
        let x = u64::from_le_bytes(b[i..i + 8].try_into().expect("8 bytes"));
        // bytes < 0x20: the subtraction borrows there, and !x drops bytes >= 0x80
        let control = x.wrapping_sub(ONES * 0x20) & !x & HIGH;
        let hits = zero_bytes(x ^ (ONES * b'"' as u64)) | zero_bytes(x ^ (ONES * b'\\' as u64)) | control;
        if hits != 0 {
            return i + (hits.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while i < b.len() && !matches!(b[i], b'"' | b'\\' | 0..=0x1f) {
        i += 1;
    }
    i
}

/// The escape whose backslash is at `i`: the index just past it.
#[inline]
fn escape_end(b: &[u8], i: usize) -> Option<usize> {
    match b.get(i + 1)? {
        b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => Some(i + 2),
        b'u' => b.get(i + 2..i + 6)?.iter().all(u8::is_ascii_hexdigit).then_some(i + 6),
        _ => None,
    }
}

/// After the opening quote at `i - 1`: the index just past the closing quote.
#[cfg(target_arch = "x86_64")]
fn string_end(b: &[u8], i: usize) -> Option<usize> {
    string_end_sse2(b, i)
}
#[cfg(not(target_arch = "x86_64"))]
fn string_end(b: &[u8], i: usize) -> Option<usize> {
    string_end_swar(b, i)
}

/// `string_end` eight bytes at a time, on any CPU.
fn string_end_swar(b: &[u8], mut i: usize) -> Option<usize> {
    loop {
        i = string_stop(b, i);
        match b.get(i)? {
            b'"' => return Some(i + 1),
            b'\\' => i = escape_end(b, i)?,
            _ => return None, // a control byte
        }
    }
}

/// `string_end` sixteen bytes at a time: one compare finds every stop of a block, and text
/// full of escapes (code, with `\n` and `\"` every few words) walks the stops of a block
/// without loading it again.
#[cfg(target_arch = "x86_64")]
fn string_end_sse2(b: &[u8], mut i: usize) -> Option<usize> {
    use std::arch::x86_64::{
        __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_min_epu8, _mm_movemask_epi8, _mm_or_si128, _mm_set1_epi8,
    };
    while i + 16 <= b.len() {
        // SAFETY: SSE2 is part of every x86_64 CPU, and the load reads b[i..i + 16], in bounds.
        let mut stops = unsafe {
            let v = _mm_loadu_si128(b.as_ptr().add(i).cast::<__m128i>());
            let quote = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'"' as i8));
            let backslash = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'\\' as i8));
            // unsigned v <= 0x1f
            let control = _mm_cmpeq_epi8(_mm_min_epu8(v, _mm_set1_epi8(0x1f)), v);
            _mm_movemask_epi8(_mm_or_si128(_mm_or_si128(quote, backslash), control)) as u32
        };
        let mut next = i + 16;
        while stops != 0 {
            let k = i + stops.trailing_zeros() as usize;
            match b[k] {
                b'"' => return Some(k + 1),
                b'\\' => {
                    let e = escape_end(b, k)?;
                    if e >= i + 16 {
                        next = e;
                        break;
                    }
                    stops &= !0u32 << (e - i);
                }
                _ => return None,
            }
        }
        i = next;
    }
    string_end_swar(b, i)
}

fn digits(b: &[u8], mut i: usize) -> usize {
    while b.get(i).is_some_and(u8::is_ascii_digit) {
        i += 1;
    }
    i
}

/// A number starting at `i`: the index just past it.
fn number_end(b: &[u8], mut i: usize) -> Option<usize> {
    if b[i] == b'-' {
        i += 1;
    }
    i = match b.get(i)? {
        b'0' => i + 1,
        b'1'..=b'9' => digits(b, i + 1),
        _ => return None,
    };
    if b.get(i) == Some(&b'.') {
        let end = digits(b, i + 1);
        if end == i + 1 {
            return None;
        }
        i = end;
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        let end = digits(b, i);
        if end == i {
            return None;
        }
        i = end;
    }
    Some(i)
}

fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while matches!(b.get(i), Some(b' ' | b'\t' | b'\n' | b'\r')) {
        i += 1;
    }
    i
}

/// After an object's `{` or `,` (at `i - 1`): the key's raw text (between its quotes) and the
/// index past `"key" :` and the whitespace after it.
fn member_head(b: &[u8], i: usize) -> Option<(&[u8], usize)> {
    let i = skip_ws(b, i);
    if b.get(i) != Some(&b'"') {
        return None;
    }
    let key_end = string_end(b, i + 1)?;
    let j = skip_ws(b, key_end);
    if b.get(j) != Some(&b':') {
        return None;
    }
    Some((&b[i + 1..key_end - 1], skip_ws(b, j + 1)))
}

/// The raw text (between the quotes, escapes as written) of the string value starting at `i`,
/// or None when the value there is not a string.
pub fn string_value(b: &[u8], i: usize) -> Option<&[u8]> {
    if b.get(i) != Some(&b'"') {
        return None;
    }
    let end = string_end(b, i + 1)?;
    Some(&b[i + 1..end - 1])
}

/// Why a line the parser could not read is still one JSON text: nested deeper than the parser
/// reads (`simd_json::DEFAULT_MAX_DEPTH` levels), or holding a number beyond the range of a
/// double (`1e400`). None when the line is not JSON at all. Run only on lines that failed to
/// parse, so a person is told what the line is instead of "not valid JSON".
pub fn unreadable_kind(b: &[u8]) -> Option<super::BadKind> {
    if !JsonText::default().check(b) {
        return None;
    }
    let (mut depth, mut max, mut in_str, mut esc) = (0usize, 0usize, false, false);
    for &c in b {
        if in_str {
            if esc {
                esc = false;
            } else if c == b'\\' {
                esc = true;
            } else if c == b'"' {
                in_str = false;
            }
            continue;
        }
        match c {
            b'"' => in_str = true,
            b'{' | b'[' => {
                depth += 1;
                max = max.max(depth);
            }
            b'}' | b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    Some(if max > simd_json::DEFAULT_MAX_DEPTH { super::BadKind::TooDeep } else { super::BadKind::NumberOutOfRange })
}

impl JsonText {
    /// True when `b` is one JSON text.
    pub fn check(&mut self, b: &[u8]) -> bool {
        simdutf8::basic::from_utf8(b).is_ok() && self.grammar(b, |_, _| {}).is_some()
    }

    /// `check`, telling `on_member` the raw key and the value's start index of each member of the
    /// outermost object (when the text is an object), in order, as the check passes them. The
    /// calls made before the check fails are not undone.
    pub fn check_members(&mut self, b: &[u8], on_member: impl FnMut(&[u8], usize)) -> bool {
        simdutf8::basic::from_utf8(b).is_ok() && self.grammar(b, on_member).is_some()
    }

    /// The grammar, on bytes already known to be UTF-8 (so bytes >= 0x80 can only be inside
    /// strings: anywhere else they fail as an unexpected byte).
    fn grammar(&mut self, b: &[u8], mut on_member: impl FnMut(&[u8], usize)) -> Option<()> {
        self.open.clear();
        let mut i = skip_ws(b, 0);
        // each turn reads one value at `i`, then closes what it completes
        loop {
            i = match *b.get(i)? {
                b'{' => {
                    let j = skip_ws(b, i + 1);
                    if b.get(j) == Some(&b'}') {
                        j + 1
                    } else {
                        self.open.push(b'{');
                        let (key, value) = member_head(b, j)?;
                        if self.open.len() == 1 {
                            on_member(key, value);
                        }
                        i = value;
                        continue;
                    }
                }
                b'[' => {
                    let j = skip_ws(b, i + 1);
                    if b.get(j) == Some(&b']') {
                        j + 1
                    } else {
                        self.open.push(b'[');
                        i = j;
                        continue;
                    }
                }
                b'"' => string_end(b, i + 1)?,
                b't' if b[i..].starts_with(b"true") => i + 4,
                b'f' if b[i..].starts_with(b"false") => i + 5,
                b'n' if b[i..].starts_with(b"null") => i + 4,
                b'-' | b'0'..=b'9' => number_end(b, i)?,
                _ => return None,
            };
            // after a value: a separator (then the next value), a close, or the end
            loop {
                i = skip_ws(b, i);
                match (self.open.last(), b.get(i)) {
                    (None, None) => return Some(()),
                    (Some(b'{'), Some(b',')) => {
                        let (key, value) = member_head(b, i + 1)?;
                        if self.open.len() == 1 {
                            on_member(key, value);
                        }
                        i = value;
                        break;
                    }
                    (Some(b'['), Some(b',')) => {
                        i = skip_ws(b, i + 1);
                        break;
                    }
                    (Some(b'{'), Some(b'}')) | (Some(b'['), Some(b']')) => {
                        self.open.pop();
                        i += 1;
                    }
                    _ => return None,
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scan::Parser;

    fn ok(s: &[u8]) -> bool {
        JsonText::default().check(s)
    }

    #[test]
    fn accepts_json_texts() {
        for s in [
            &b"{}"[..],
            b"[]",
            b" { \"a\" : [ 1 , -2.5e+3 , true , false , null , \"x\" , { } , [ ] ] } \r",
            b"\"s\"",
            b"0",
            b"-0.0E-0",
            b"123456789012345678901234567890e999",
            b"\"\\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\\ud83d\\uDE00\\udc00\"",
            "{\"é\":\"日本語 😀\"}".as_bytes(),
            b"{\"a\":{\"b\":[{\"c\":[]},{}]},\"d\":\"\x7f\"}",
        ] {
            assert!(ok(s), "{}", String::from_utf8_lossy(s));
        }
        let deep = format!("{}1{}", "[{\"a\":".repeat(5000), "}]".repeat(5000));
        assert!(ok(deep.as_bytes()));
        assert!(!ok(&deep.as_bytes()[..deep.len() - 1]));
    }

    #[test]
    fn rejects_everything_else() {
        for s in [
            &b""[..],
            b"   ",
            b"{",
            b"}",
            b"{\"a\"}",
            b"{\"a\":}",
            b"{\"a\":1,}",
            b"[1,]",
            b"[,1]",
            b"{1:2}",
            b"{'a':1}",
            b"[1 2]",
            b"{\"a\":1}}",
            b"{\"a\":1}]",
            b"[1}",
            b"{\"a\":1]",
            b"{} {}",
            b"01",
            b"-",
            b"1.",
            b".5",
            b"1e",
            b"1e+",
            b"+1",
            b"tru",
            b"nul",
            b"True",
            b"NaN",
            b"\"unterminated",
            b"\"a\\x\"",
            b"\"a\\u12g4\"",
            b"\"a\\u12\"",
            b"\"tab\there\"",
            b"\"nul\x00\"",
            b"\"bad utf8 \xff\"",
            b"\"overlong \xc0\xaf\"",
            b"\xef\xbb\xbf{}",
            b"{\"a\":1}\x00",
            b"[1]\x0b",
        ] {
            assert!(!ok(s), "{}", String::from_utf8_lossy(s));
        }
    }

    /// Strings dense with escapes, stops at every offset around the 16-byte blocks: both
    /// string scanners give the same end (or the same refusal).
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn both_string_scanners_agree() {
        const PIECES: [&[u8]; 9] = [b"a", b"bcdefgh", b"\\n", b"\\\"", b"\\\\", b"\\u00e9", b"\xc3\xa9", b"\\q", b"\t"];
        let mut r = Rng(99);
        for _ in 0..50_000 {
            let mut s = Vec::new();
            for _ in 0..r.below(24) {
                s.extend_from_slice(PIECES[r.below(PIECES.len())]);
            }
            if r.below(8) > 0 {
                s.push(b'"');
            }
            s.extend_from_slice(&b"tail after the string \\\""[..r.below(24)]);
            for from in 0..3.min(s.len()) {
                assert_eq!(string_end_sse2(&s, from), string_end_swar(&s, from), "{}", String::from_utf8_lossy(&s));
            }
        }
    }

    #[test]
    fn finds_the_first_stop_in_every_position() {
        for len in 0..40 {
            for at in 0..len {
                for stop in [b'"', b'\\', 0x00, 0x1f] {
                    let mut b = vec![b'a'; len];
                    b[at] = stop;
                    // a spurious later hit must not hide an earlier one
                    if at + 1 < len {
                        b[at + 1] = 0x01;
                    }
                    assert_eq!(string_stop(&b, 0), at, "len {len} at {at} stop {stop}");
                }
            }
            let mut b = vec![0xe9u8; len];
            b.extend_from_slice(b"\x7f ~");
            assert_eq!(string_stop(&b, 0), b.len());
        }
    }

    /// A small deterministic generator (xorshift), so the test needs no dependency.
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
        fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }
    }

    fn value(r: &mut Rng, depth: u32, out: &mut Vec<u8>) {
        const PIECES: [&str; 12] =
            ["a", "é", "😀", "\\n", "\\\"", "\\\\", "\\u00e9", "\\ud83d", "\\/", " ", "日本", "\\t"];
        match if depth > 4 { r.below(4) } else { r.below(6) } {
            0 => {
                out.push(b'"');
                for _ in 0..r.below(12) {
                    out.extend_from_slice(PIECES[r.below(PIECES.len())].as_bytes());
                }
                out.push(b'"');
            }
            1 => {
                let n = ["0", "-1", "12.5", "3e7", "-0.25E-3", "18446744073709551616", "1e400"];
                out.extend_from_slice(n[r.below(n.len())].as_bytes());
            }
            2 => out.extend_from_slice(b"true"),
            3 => out.extend_from_slice(b"null"),
            4 => {
                out.push(b'[');
                for k in 0..r.below(4) {
                    if k > 0 {
                        out.push(b',');
                    }
                    value(r, depth + 1, out);
                }
                out.push(b']');
            }
            _ => {
                out.push(b'{');
                for k in 0..r.below(4) {
                    if k > 0 {
                        out.extend_from_slice(if r.below(2) == 0 { b"," } else { b" , " });
                    }
                    out.extend_from_slice(format!("\"k{k}\":").as_bytes());
                    value(r, depth + 1, out);
                }
                out.push(b'}');
            }
        }
    }

    fn mutate(r: &mut Rng, s: &[u8]) -> Vec<u8> {
        const BYTES: &[u8] = b"{}[]\",:\\ 0-.eE+tu\x00\x1f\xff\xc3\xa9x/";
        let mut m = s.to_vec();
        for _ in 0..1 + r.below(2) {
            if m.is_empty() {
                break;
            }
            let at = r.below(m.len());
            match r.below(4) {
                0 => {
                    m.remove(at);
                }
                1 => m.insert(at, BYTES[r.below(BYTES.len())]),
                2 => m[at] = BYTES[r.below(BYTES.len())],
                _ => m.truncate(at),
            }
        }
        m
    }

    /// Whether a number outside strings overflows a double (simd-json refuses those; the
    /// grammar, and JSON.parse, do not).
    fn has_overflowing_number(t: &[u8]) -> bool {
        let (mut in_str, mut esc, mut run) = (false, false, String::new());
        for &c in t.iter().chain(b" ") {
            if in_str {
                (in_str, esc) = (esc || c != b'"', !esc && c == b'\\');
            } else if matches!(c, b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E') {
                run.push(c as char);
            } else {
                if run.parse::<f64>().is_ok_and(f64::is_infinite) {
                    return true;
                }
                run.clear();
                in_str = c == b'"';
            }
        }
        false
    }

    /// The check agrees with the scanner's full parse (simd-json, lone surrogates repaired, big
    /// integers read as floats) on generated texts and on mutations of them. Texts with a number
    /// too large for a double are left out: the parse refuses them, the grammar (like
    /// JSON.parse, which reads Infinity) does not.
    #[test]
    fn agrees_with_the_full_parse() {
        let mut r = Rng(0x9e37_79b9_7f4a_7c15);
        let mut parser = Parser::default();
        let mut check = JsonText::default();
        let (mut valid, mut invalid) = (0, 0);
        for _ in 0..20_000 {
            let mut s = Vec::new();
            value(&mut r, 0, &mut s);
            for t in [s.clone(), mutate(&mut r, &s), mutate(&mut r, &s)] {
                if has_overflowing_number(&t) {
                    continue; // the one difference, checked in accepts_json_texts
                }
                let full = parser.parse_with(&t, |_| ()).is_some();
                assert_eq!(check.check(&t), full, "{}", String::from_utf8_lossy(&t));
                if full {
                    valid += 1
                } else {
                    invalid += 1
                }
            }
        }
        assert!(valid > 20_000 && invalid > 10_000, "{valid} valid, {invalid} invalid");
    }

    /// The same on real transcripts when the shared folder is there (it is outside the repo).
    #[test]
    fn agrees_with_the_full_parse_on_real_lines() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/real-transcripts");
        let Ok(entries) = std::fs::read_dir(&dir) else { return };
        let mut r = Rng(7);
        let mut parser = Parser::default();
        let mut check = JsonText::default();
        for e in entries.flatten() {
            let Ok(data) = std::fs::read(e.path()) else { continue };
            for line in data.split(|&c| c == b'\n').take(400) {
                let cut = &line[..line.len().min(4096)];
                for t in [line.to_vec(), cut.to_vec(), mutate(&mut r, cut)] {
                    if has_overflowing_number(&t) {
                        continue;
                    }
                    let full = parser.parse_with(&t, |_| ()).is_some();
                    assert_eq!(check.check(&t), full, "{}", String::from_utf8_lossy(&t));
                }
            }
        }
    }
}

#[cfg(test)]
mod speed {
    /// `JSON_SAMPLE=file cargo test --release -- --ignored json_check_speed --nocapture`
    #[test]
    #[ignore]
    fn json_check_speed() {
        let Ok(p) = std::env::var("JSON_SAMPLE") else { return };
        let data = std::fs::read(p).unwrap();
        let lines: Vec<&[u8]> = data.split(|&c| c == b'\n').collect();
        let mb = data.len() as f64 / 1e6;
        let time = |name: &str, f: &mut dyn FnMut(&[u8]) -> bool| {
            let mut best = f64::MAX;
            let mut n = 0;
            for _ in 0..5 {
                let t = std::time::Instant::now();
                n = lines.iter().filter(|l| f(l)).count();
                best = best.min(t.elapsed().as_secs_f64());
            }
            println!("{name:24} {:6.0} MB/s ({n} valid)", mb / best);
        };
        let mut parser = crate::scan::Parser::default();
        time("simd-json parse", &mut |l| parser.parse_with(l, |_| ()).is_some());
        let mut j = super::JsonText::default();
        time("json_text check", &mut |l| j.check(l));
        time("std from_utf8", &mut |l| std::str::from_utf8(l).is_ok());
        time("simdutf8", &mut |l| simdutf8::basic::from_utf8(l).is_ok());
        time("grammar only", &mut |l| j.grammar(l, |_, _| {}).is_some());
    }
}
