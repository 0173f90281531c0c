//! Which files a walk leaves out as no transcript at all: a file in which no line begins an
//! object (after blanks and NUL bytes) and no `"type"` key occurs (a text file, an image, a
//! binary named `.jsonl`). A damaged transcript (a corrupt first line, then records; a record
//! behind NUL padding that only `repair` can cut free; a first record torn by a crash) is still
//! a transcript: the archive keeps it and `repair` may mend it.

use crate::scan::{self, FirstLine, Mode};
use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

impl FirstLine {
    /// Why a file that yielded no record is not a transcript, from how its first line read.
    pub fn not_jsonl_reason(self) -> Option<&'static str> {
        match self {
            FirstLine::Invalid => Some("not a JSONL transcript (line 1 is not valid JSON)"),
            FirstLine::NonObject => Some("not a JSONL transcript (line 1 is not a JSON object)"),
            FirstLine::Empty | FirstLine::Object => None,
        }
    }
}

/// Why the file at `path` is not a transcript, or None when it may be one (its first non-blank
/// byte opens an object, it is empty, or some line is a record). Reads one block, and the whole
/// file only when that block already shows the first line is no object (rare).
pub fn not_jsonl(path: &Path) -> io::Result<Option<&'static str>> {
    let mut f = File::open(path)?;
    let mut head = [0u8; 4096];
    let n = f.read(&mut head)?;
    let mut b = &head[..n];
    if let Some(rest) = b.strip_prefix(b"\xEF\xBB\xBF") {
        b = rest;
    }
    match b.iter().find(|c| !c.is_ascii_whitespace()) {
        None if n < head.len() => return Ok(None),
        Some(b'{') => return Ok(None),
        _ => {}
    }
    let mut whole = head[..n].to_vec();
    f.read_to_end(&mut whole)?;
    Ok(not_jsonl_whole(&whole))
}

/// `not_jsonl` of a file's bytes in memory (an archived transcript).
pub fn not_jsonl_in(whole: &[u8]) -> Option<&'static str> {
    let b = whole.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(whole);
    match b.iter().find(|c| !c.is_ascii_whitespace()) {
        None | Some(b'{') => None,
        _ => not_jsonl_whole(whole),
    }
}

fn not_jsonl_whole(whole: &[u8]) -> Option<&'static str> {
    let begins_object = |line: &[u8]| line.iter().find(|c| !c.is_ascii_whitespace() && **c != 0) == Some(&b'{');
    if whole.split(|&c| c == b'\n').any(begins_object) || memchr::memmem::find(whole, b"\"type\"").is_some() {
        return None;
    }
    // How line 1 reads says which of the two reasons it is.
    let first = whole.split(|&c| c == b'\n').find(|l| !l.iter().all(u8::is_ascii_whitespace)).unwrap_or(&[]);
    scan::scan_bytes(first, Mode::Full).first_line.not_jsonl_reason()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tells_files_that_are_no_transcript_from_damaged_ones() {
        let dir = std::env::temp_dir().join(format!("cj-not-jsonl-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let case = |name: &str, body: &[u8]| {
            let p = dir.join(name);
            std::fs::write(&p, body).unwrap();
            not_jsonl(&p).unwrap()
        };
        assert_eq!(case("pw.jsonl", b"root:x:0:0:root:/root:/bin/bash\n"), FirstLine::Invalid.not_jsonl_reason());
        assert_eq!(case("arr.jsonl", b"[1,2]\n[3]\n"), FirstLine::NonObject.not_jsonl_reason());
        assert_eq!(case("png.jsonl", b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR"), FirstLine::Invalid.not_jsonl_reason());
        assert_eq!(case("empty.jsonl", b""), None);
        assert_eq!(case("blank.jsonl", b"\n  \n"), None);
        assert_eq!(case("ok.jsonl", b"\xEF\xBB\xBF {\"type\":\"user\"}\n"), None);
        // a corrupt first line, then a record: a damaged transcript, never left out
        assert_eq!(case("torn-head.jsonl", b"\0\0\0garbage\n{\"type\":\"user\",\"uuid\":\"u\"}\n"), None);
        // a record behind NUL padding on its own line: no line parses, but repair can mend it
        assert_eq!(case("padded.jsonl", b"\0\0\0\0{\"type\":\"user\",\"uuid\":\"u\"}\n"), None);
        // a first record torn by a crash after a corrupt line
        assert_eq!(case("torn.jsonl", b"\0\0 not json at all\n{\"half\":"), None);
        assert_eq!(case("text.jsonl", b"not json at all\nnor this\n"), FirstLine::Invalid.not_jsonl_reason());
        // a first line of whitespace longer than the first block
        let mut long = vec![b' '; 5000];
        long.extend_from_slice(b"{\"type\":\"user\"}\n");
        assert_eq!(case("wide.jsonl", &long), None);
        std::fs::remove_dir_all(&dir).ok();
    }
}
