//! The archive index: per transcript, what the last run saw and stored, so an unchanged file is
//! skipped from its metadata alone and a grown one is continued without decoding its store.
//! It is a cache: the store files (their marks) are the record, and an entry whose store file
//! does not have the recorded length is rebuilt from the store.

use super::key::Key;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

/// The first line: the index of a format-1 archive, or of a format-2 one (the same fields; in
/// format 2 `store_len` is the length of the file's stream and `events` is 0).
const MAGIC: &str = "claude-jsonl-archive 2";
const MAGIC_2: &str = "claude-jsonl-archive 3 format-2";

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    pub gen: u32,
    /// Where the transcript was read last.
    pub source: PathBuf,
    /// Bytes archived (the source's size then) and their SHA-256.
    pub size: u64,
    pub sha256: String,
    pub mtime_ns: i128,
    pub dev: u64,
    pub ino: u64,
    /// The store file's length after that run, and how many events it holds (the next seq).
    pub store_len: u64,
    pub events: u64,
}

pub type Index = BTreeMap<Key, Entry>;

pub(super) fn esc(s: &[u8]) -> String {
    let mut out = String::with_capacity(s.len());
    for &b in s {
        if b == b'%' || !(0x20..0x7f).contains(&b) {
            out.push_str(&format!("%{b:02X}"));
        } else {
            out.push(b as char);
        }
    }
    out
}

pub(super) fn unesc(s: &str) -> Option<Vec<u8>> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            out.push(u8::from_str_radix(std::str::from_utf8(b.get(i + 1..i + 3)?).ok()?, 16).ok()?);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    Some(out)
}

#[cfg(unix)]
fn path_bytes(p: &Path) -> Vec<u8> {
    use std::os::unix::ffi::OsStrExt;
    p.as_os_str().as_bytes().to_vec()
}
#[cfg(not(unix))]
fn path_bytes(p: &Path) -> Vec<u8> {
    p.to_string_lossy().as_bytes().to_vec()
}
#[cfg(unix)]
fn path_from(b: Vec<u8>) -> PathBuf {
    use std::os::unix::ffi::OsStringExt;
    PathBuf::from(std::ffi::OsString::from_vec(b))
}
#[cfg(not(unix))]
fn path_from(b: Vec<u8>) -> PathBuf {
    PathBuf::from(String::from_utf8_lossy(&b).into_owned())
}

pub fn parse(text: &str) -> Option<Index> {
    parse_with_format(text).map(|(_, i)| i)
}

/// The index and the archive format it says the root is written in.
pub fn parse_with_format(text: &str) -> Option<(u8, Index)> {
    let mut lines = text.lines();
    let format = match lines.next()? {
        MAGIC => 1,
        MAGIC_2 => 2,
        _ => return None,
    };
    let mut index = Index::new();
    for line in lines {
        let f: Vec<&str> = line.split('\t').collect();
        if f.len() != 12 {
            return None;
        }
        let s = |i: usize| unesc(f[i]).and_then(|b| String::from_utf8(b).ok());
        let key = Key { project: s(0)?, rel: s(1)? };
        let e = Entry {
            gen: f[2].parse().ok()?,
            source: path_from(unesc(f[3])?),
            size: f[4].parse().ok()?,
            sha256: f[5].to_string(),
            mtime_ns: f[6].parse().ok()?,
            dev: f[7].parse().ok()?,
            ino: f[8].parse().ok()?,
            store_len: f[9].parse().ok()?,
            events: f[10].parse().ok()?,
        };
        if f[11] != "." {
            return None;
        }
        index.insert(key, e);
    }
    Some((format, index))
}

pub fn render(index: &Index) -> Vec<u8> {
    render_as(index, 1)
}

/// The index of an archive written in `format`.
pub fn render_as(index: &Index, format: u8) -> Vec<u8> {
    let mut out = Vec::with_capacity(64 + index.len() * 256);
    writeln!(out, "{}", if format == 2 { MAGIC_2 } else { MAGIC }).unwrap();
    for (k, e) in index {
        writeln!(
            out,
            "{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t.",
            esc(k.project.as_bytes()),
            esc(k.rel.as_bytes()),
            e.gen,
            esc(&path_bytes(&e.source)),
            e.size,
            e.sha256,
            e.mtime_ns,
            e.dev,
            e.ino,
            e.store_len,
            e.events
        )
        .unwrap();
    }
    out
}

/// The index of an archive root; an absent or unreadable one is empty (everything is then
/// rebuilt from the store files).
pub fn load(root: &Path) -> Index {
    load_with_format(root).1
}

/// `load`, with the format the index says (None without a readable index).
pub fn load_with_format(root: &Path) -> (Option<u8>, Index) {
    match std::fs::read_to_string(root.join(super::layout::INDEX)).ok().and_then(|t| parse_with_format(&t)) {
        Some((f, i)) => (Some(f), i),
        None => (None, Index::new()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_with_awkward_names() {
        let mut i = Index::new();
        i.insert(
            Key { project: "-home-u\tx%".into(), rel: "a b/subagents/agent-1.jsonl".into() },
            Entry {
                gen: 2,
                source: PathBuf::from("/tmp/x\ny.jsonl"),
                size: 10,
                sha256: "ab".into(),
                mtime_ns: 1_700_000_000_000_000_001,
                dev: 3,
                ino: 4,
                store_len: 99,
                events: 7,
            },
        );
        let text = String::from_utf8(render(&i)).unwrap();
        assert_eq!(parse(&text), Some(i));
        assert_eq!(parse("nope"), None);
    }
}
