//! A store file's header line (what it holds: its key and generation, written and read back)
//! and the marks of an archive root (its index file). The keys and the names they are stored
//! under are `key.rs`.

use super::key::Key;
use crate::scan::{tape, Parser};

/// The archive's index (a cache of per-file state, rebuilt from the store when stale); its
/// presence marks a store root as an archive. Store readers skip names with this prefix.
pub const INDEX: &str = ".claude-jsonl-archive";
pub const ORIGIN: &str = "claude-jsonl archive";

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
    fn header_round_trips() {
        let key = Key { project: "-home-u-\"q\"".into(), rel: "abc/subagents/agent-1.jsonl".into() };
        let line = header_line(&key, 3, "2026-11-30T00:00:00Z");
        let mut p = Parser::default();
        assert_eq!(parse_header(&mut p, &line[..line.len() - 1]), Some((key, 3)));
    }
}
