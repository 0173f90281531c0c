//! The session an archived file belongs to, by its key alone: the rules of the three kinds of
//! file the archive keeps (a transcript's path, a file beside one, a config-folder file's name).

use super::key::Key;
use super::{config_files, session_files};

/// The session uuid `key` belongs to (None for an old-layout subagent file, whose records say,
/// or a config file not named after a session).
pub fn of(key: &Key) -> Option<&str> {
    if key.is_config() {
        return config_files::owner(&key.rel);
    }
    match key.rel.split_once('/') {
        Some((sid, _)) => Some(sid),
        None if key.rel.starts_with("agent-") => None,
        None => key.rel.strip_suffix(".jsonl").or_else(|| session_files::owner_of_beside(&key.rel)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn by_path_in_the_project() {
        let key = |rel: &str| Key { project: "p".into(), rel: rel.into() };
        assert_eq!(of(&key("abc/subagents/agent-1.jsonl")), Some("abc"));
        assert_eq!(of(&key("u1.jsonl")), Some("u1"));
        assert_eq!(of(&key("agent-x.jsonl")), None);
    }
}
