//! An archived file's key and the names the archive stores it under: the naming rules alone,
//! depending on nothing else in the archive, so every other archive module can use a key without
//! a circle back to the modules whose rules read it (where a key may be written:
//! `destination`; which session it belongs to: `owner`).
//!
//! A transcript's key is `<project>/<path in the project>`: `P/<uuid>.jsonl`,
//! `P/<uuid>/subagents/agent-x.jsonl` or `P/agent-x.jsonl`; restoring writes it back there. A
//! config-folder file's key is `_config/<path in the config folder>` ([`AREA`]). Generation G of
//! key `P/R` is stored as session id `R-g<G>-<xxh3(P) as 8 hex>` with cwd `P`. The folder and
//! file names are the session store's (src-ts/archive/store.ts: projectFolder, escapeSessionId),
//! so a `Store` opened on an archive root lists and inspects every generation.

use std::path::{Path, PathBuf};

pub const TRANSCRIPT: &str = "session.jsonl.zstd";
/// The project of every config-file key. Real project folders are only `[A-Za-z0-9-]` (the
/// archive refuses others), and the store folder it maps to (`--_config--`) is one no project
/// maps to, so config files never mix with transcripts.
pub const AREA: &str = "_config";
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

    /// A file of the config folder outside `projects/` (`archive --include-config`).
    pub fn is_config(&self) -> bool {
        self.project == AREA
    }
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
}
