//! Lone UTF-16 surrogate escapes (`\ud83d` with no low half, or a low half alone).
//!
//! Claude Code before 2.1.132 wrote them when it cut a string inside an emoji; JSON.parse
//! accepts them, but simd-json (like serde) rejects the whole line. We rewrite each lone escape
//! to `\ufffd` in a scratch copy: the same six bytes, so every byte offset stays valid.

/// Decodes the four hex digits at `b[i..i+4]`.
fn hex4(b: &[u8], i: usize) -> Option<u16> {
    let digits = b.get(i..i + 4)?;
    let mut v: u16 = 0;
    for &c in digits {
        let d = (c as char).to_digit(16)? as u16;
        v = (v << 4) | d;
    }
    Some(v)
}

fn is_high(u: u16) -> bool {
    (0xD800..=0xDBFF).contains(&u)
}
fn is_low(u: u16) -> bool {
    (0xDC00..=0xDFFF).contains(&u)
}

/// Offsets of every `\uXXXX` escape that is a lone surrogate. Tracks backslash parity, so
/// `\\ud83d` (an escaped backslash followed by text) is not mistaken for an escape.
pub fn find_lone_surrogates(line: &[u8]) -> Vec<usize> {
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(p) = memchr::memchr(b'\\', &line[i..]) {
        let at = i + p;
        match line.get(at + 1) {
            Some(b'u') => {
                if let Some(u) = hex4(line, at + 2) {
                    if is_high(u) {
                        let pair = line.get(at + 6) == Some(&b'\\')
                            && line.get(at + 7) == Some(&b'u')
                            && hex4(line, at + 8).is_some_and(is_low);
                        if pair {
                            i = at + 12;
                            continue;
                        }
                        out.push(at);
                    } else if is_low(u) {
                        out.push(at);
                    }
                }
                i = at + 6;
            }
            Some(_) => i = at + 2,
            None => break,
        }
        if i >= line.len() {
            break;
        }
    }
    out
}

/// Rewrites the escapes found by [`find_lone_surrogates`] to `\ufffd` in place.
pub fn repair(line: &mut [u8], at: &[usize]) {
    for &p in at {
        line[p + 2..p + 6].copy_from_slice(b"fffd");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_only_lone_halves() {
        assert_eq!(find_lone_surrogates(br#""a\ud83d b""#), vec![2]);
        assert_eq!(find_lone_surrogates(br#""\udc00""#), vec![1]);
        assert_eq!(find_lone_surrogates(br#""\uD83D""#), vec![1]);
        assert!(find_lone_surrogates(br#""\ud83d\ude00""#).is_empty());
        assert!(find_lone_surrogates(br#""\\ud83d""#).is_empty());
        assert_eq!(find_lone_surrogates(br#""\\\ud83d""#), vec![3]);
        assert_eq!(find_lone_surrogates(br#""\ud83d\u0041""#), vec![1]);
        assert!(find_lone_surrogates(br#""\u00e9 \n""#).is_empty());
    }

    #[test]
    fn repair_keeps_length() {
        let mut l = br#"{"a":"x\ud83d"}"#.to_vec();
        let n = l.len();
        let at = find_lone_surrogates(&l);
        repair(&mut l, &at);
        assert_eq!(l.len(), n);
        assert_eq!(&l, br#"{"a":"x\ufffd"}"#);
    }
}
