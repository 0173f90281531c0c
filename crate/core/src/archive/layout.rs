//! Where an archived transcript lives in the store root, and its header line. The rules are the
//! session store's (src-ts/archive/store.ts: projectFolder, escapeSessionId), so a `Store` opened
//! on an archive root lists and inspects every generation.
//!
//! A transcript's key is `<project>/<path in the project>`: `P/<uuid>.jsonl`,
//! `P/<uuid>/subagents/agent-x.jsonl` or `P/agent-x.jsonl`; restoring writes it back there. A
//! config-folder file's key is `_config/<path in the config folder>` (`config_files::AREA`).
//! Generation G of key `P/R` is stored as session id `R-g<G>-<xxh3(P) as 8 hex>` with cwd `P`.

use crate::failure::Failure;
use crate::scan::{tape, Parser};
use std::path::{Path, PathBuf};

pub const TRANSCRIPT: &str = "session.jsonl.zstd";
/// The archive's index (a cache of per-file state, rebuilt from the store when stale); its
/// presence marks a store root as an archive. Store readers skip names with this prefix.
pub const INDEX: &str = ".claude-jsonl-archive";
pub const ORIGIN: &str = "claude-jsonl archive";
const PROJECT_MAX: usize = 120;

/// The readable project folder of a cwd (store.ts projectFolder): every character other than
/// `[A-Za-z0-9._]` becomes one `-` per UTF-16 unit, cut to 120 units, wrapped in `--`.
pub fn project_folder(cwd: &str) -> String {
    if cwd.is_empty() {
        return "_no-cwd".into();
    }
    let mut norm = String::new();
    for c in cwd.chars() {
        if c.is_ascii_alphanumeric() || c == '.' || c == '_' {
            norm.push(c);
        } else {
            for _ in 0..c.len_utf16() {
                norm.push('-');
            }
        }
    }
    norm.truncate(PROJECT_MAX);
    format!("--{norm}--")
}

/// store.ts escapeSessionId: `[a-z0-9_-]` kept, every other UTF-8 byte as `%XX`.
pub fn escape_id(id: &str) -> String {
    let mut out = String::with_capacity(id.len());
    for b in id.bytes() {
        if b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_' || b == b'-' {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

pub fn unescape_id(name: &str) -> Option<String> {
    let b = name.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let hex = std::str::from_utf8(b.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    let id = String::from_utf8(out).ok()?;
    (escape_id(&id) == name).then_some(id)
}

/// One archived transcript: its key split into project and path within the project.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Key {
    pub project: String,
    pub rel: String,
}

impl Key {
    pub fn text(&self) -> String {
        format!("{}/{}", self.project, self.rel)
    }

    pub fn session_id(&self, gen: u32) -> String {
        let stem = self.rel.strip_suffix(".jsonl").unwrap_or(&self.rel);
        let h = xxhash_rust::xxh3::xxh3_64(self.project.as_bytes()) as u32;
        format!("{stem}-g{gen}-{h:08x}")
    }

    /// The store file of generation `gen`.
    pub fn store_path(&self, root: &Path, gen: u32) -> PathBuf {
        root.join(project_folder(&self.project)).join(escape_id(&self.session_id(gen))).join(TRANSCRIPT)
    }

    /// The transcript's place under a projects folder (restore target, read view), checked:
    /// a header from someone else's archive must not place it outside `dir`.
    pub fn destination(&self, dir: &Path) -> Result<super::destination::Destination, Failure> {
        super::destination::destination(dir, self)
    }

    /// A file of the config folder outside `projects/` (`archive --include-config`).
    pub fn is_config(&self) -> bool {
        self.project == super::config_files::AREA
    }

    /// The session uuid this file belongs to (None for an old-layout subagent file, or a config
    /// file not named after a session).
    pub fn owner(&self) -> Option<&str> {
        if self.is_config() {
            return super::config_files::owner(&self.rel);
        }
        match self.rel.split_once('/') {
            Some((sid, _)) => Some(sid),
            None if self.rel.starts_with("agent-") => None,
            None => self.rel.strip_suffix(".jsonl").or_else(|| super::session_files::owner_of_beside(&self.rel)),
        }
    }
}

// The store's header lines are written with the crate's one JSON-string escaper.
pub use crate::json_string::json_string;

/// The store header line (with its newline) of one generation.
pub fn header_line(key: &Key, gen: u32, created_at: &str) -> Vec<u8> {
    format!(
        "{{\"type\":\"session\",\"version\":0,\"id\":{},\"cwd\":{},\"createdAt\":{},\"delegationDepth\":0,\"origin\":{},\"source\":{{\"project\":{},\"path\":{},\"generation\":{gen}}}}}\n",
        json_string(&key.session_id(gen)),
        json_string(&key.project),
        json_string(created_at),
        json_string(ORIGIN),
        json_string(&key.project),
        json_string(&key.rel),
    )
    .into_bytes()
}

/// Reads an archive header back: the key and generation, or None when the header is not one
/// this archive writes.
pub fn parse_header(parser: &mut Parser, line: &[u8]) -> Option<(Key, u32)> {
    parser
        .parse_with(line, |t| {
            let origin = tape::field(t, 0, "origin").and_then(|i| tape::as_str(t, i));
            if origin != Some(ORIGIN) {
                return None;
            }
            let src = tape::field(t, 0, "source")?;
            let project = tape::field(t, src, "project").and_then(|i| tape::as_str(t, i))?;
            let rel = tape::field(t, src, "path").and_then(|i| tape::as_str(t, i))?;
            let gen = tape::field(t, src, "generation").and_then(|i| tape::as_u64(t, i))?;
            let id = tape::field(t, 0, "id").and_then(|i| tape::as_str(t, i))?;
            let key = Key { project: project.to_string(), rel: rel.to_string() };
            let gen = u32::try_from(gen).ok()?;
            (key.session_id(gen) == id).then_some((key, gen))
        })
        .and_then(|(v, _)| v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folder_and_id_rules_match_the_store() {
        assert_eq!(project_folder("/home/me/repo"), "---home-me-repo--");
        assert_eq!(project_folder(""), "_no-cwd");
        assert_eq!(project_folder("a😀b"), "--a--b--");
        assert_eq!(escape_id("Ab.c/d"), "%41b%2Ec%2Fd");
        assert_eq!(unescape_id("%41b%2Ec%2Fd").as_deref(), Some("Ab.c/d"));
        assert_eq!(unescape_id("%41b%2ec"), None);
        assert_eq!(unescape_id("A"), None);
    }

    #[test]
    fn header_round_trips() {
        let key = Key { project: "-home-u-\"q\"".into(), rel: "abc/subagents/agent-1.jsonl".into() };
        let line = header_line(&key, 3, "2026-11-30T00:00:00Z");
        let mut p = Parser::default();
        assert_eq!(parse_header(&mut p, &line[..line.len() - 1]), Some((key.clone(), 3)));
        assert_eq!(key.owner(), Some("abc"));
        assert_eq!(Key { project: "p".into(), rel: "u1.jsonl".into() }.owner(), Some("u1"));
        assert_eq!(Key { project: "p".into(), rel: "agent-x.jsonl".into() }.owner(), None);
    }
}
