//! The tokenizer shared by indexing and queries: lowercase words split on anything that is not
//! a letter or digit (Unicode-aware), CJK runs as overlapping character bigrams.

/// Longer tokens (hashes, base64 runs) are not indexed: nobody types them as search terms
/// and they would bloat the index.
pub const MAX_TOKEN_BYTES: usize = 48;

/// Han, kana, Hangul and their punctuation-free neighbours: scripts written without spaces.
fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xAC00..=0xD7A3 | 0xF900..=0xFAFF
        | 0x1100..=0x11FF | 0x3130..=0x318F | 0x31F0..=0x31FF | 0x20000..=0x3134F)
}

/// Calls `emit(token, start, end)` for every token of `text` (byte positions in `text`).
/// `buf` is scratch space for the lowercased token; the slice passed to `emit` lives in it.
pub fn tokens(text: &str, buf: &mut Vec<u8>, mut emit: impl FnMut(&[u8], usize, usize)) {
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c < 0x80 {
            if !c.is_ascii_alphanumeric() {
                i += 1;
                continue;
            }
            // A word: ASCII letters and digits, continuing into non-ASCII letters (café).
            let start = i;
            buf.clear();
            let mut too_long = false;
            while i < b.len() {
                let c = b[i];
                if c < 0x80 {
                    if !c.is_ascii_alphanumeric() {
                        break;
                    }
                    if buf.len() < MAX_TOKEN_BYTES {
                        buf.push(c.to_ascii_lowercase());
                    } else {
                        too_long = true;
                    }
                    i += 1;
                } else {
                    let ch = text[i..].chars().next().expect("char boundary");
                    if !ch.is_alphanumeric() || is_cjk(ch) {
                        break;
                    }
                    push_lower(buf, ch, &mut too_long);
                    i += ch.len_utf8();
                }
            }
            if !too_long {
                emit(buf, start, i);
            }
            continue;
        }
        let ch = text[i..].chars().next().expect("char boundary");
        if is_cjk(ch) {
            // A CJK run: bigrams of neighbouring characters; a lone character is a unigram.
            let start = i;
            let mut prev: Option<(char, usize)> = None;
            let mut emitted = false;
            while i < b.len() {
                let Some(ch) = text[i..].chars().next() else { break };
                if !is_cjk(ch) {
                    break;
                }
                if let Some((p, at)) = prev {
                    buf.clear();
                    let mut s = [0u8; 4];
                    buf.extend_from_slice(p.encode_utf8(&mut s).as_bytes());
                    buf.extend_from_slice(ch.encode_utf8(&mut s).as_bytes());
                    emit(buf, at, i + ch.len_utf8());
                    emitted = true;
                }
                prev = Some((ch, i));
                i += ch.len_utf8();
            }
            if !emitted {
                buf.clear();
                buf.extend_from_slice(&b[start..i]);
                emit(buf, start, i);
            }
            continue;
        }
        if !ch.is_alphanumeric() {
            i += ch.len_utf8();
            continue;
        }
        // A word that starts with a non-ASCII letter (Ärger, привет).
        let start = i;
        buf.clear();
        let mut too_long = false;
        while i < b.len() {
            let ch = text[i..].chars().next().expect("char boundary");
            if !ch.is_alphanumeric() || is_cjk(ch) {
                break;
            }
            push_lower(buf, ch, &mut too_long);
            i += ch.len_utf8();
        }
        if !too_long {
            emit(buf, start, i);
        }
    }
}

fn push_lower(buf: &mut Vec<u8>, ch: char, too_long: &mut bool) {
    let mut s = [0u8; 4];
    for l in ch.to_lowercase() {
        let e = l.encode_utf8(&mut s);
        if buf.len() + e.len() <= MAX_TOKEN_BYTES {
            buf.extend_from_slice(e.as_bytes());
        } else {
            *too_long = true;
        }
    }
}

/// The tokens of a string, owned (for queries and tests).
pub fn token_list(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut buf = Vec::new();
    tokens(text, &mut buf, |t, _, _| out.push(String::from_utf8_lossy(t).into_owned()));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_lowercased_and_split_on_punctuation() {
        assert_eq!(
            token_list("Fix the BM25 ranker: scan_paths() v2.1!"),
            ["fix", "the", "bm25", "ranker", "scan", "paths", "v2", "1"]
        );
    }

    #[test]
    fn unicode_letters_stay_in_words() {
        assert_eq!(token_list("Café ÄRGER привет naïve"), ["café", "ärger", "привет", "naïve"]);
    }

    #[test]
    fn cjk_runs_become_bigrams_and_positions_are_byte_spans() {
        assert_eq!(token_list("東京都へ go"), ["東京", "京都", "都へ", "go"]);
        assert_eq!(token_list("字"), ["字"]);
        let text = "ab 東京";
        let mut spans = Vec::new();
        tokens(text, &mut Vec::new(), |_, s, e| spans.push(&text[s..e]));
        assert_eq!(spans, ["ab", "東京"]);
    }

    #[test]
    fn overlong_tokens_are_dropped() {
        let long = "a".repeat(MAX_TOKEN_BYTES + 1);
        assert_eq!(token_list(&format!("x {long} y")), ["x", "y"]);
        assert_eq!(token_list(&"a".repeat(MAX_TOKEN_BYTES)).len(), 1);
    }
}
