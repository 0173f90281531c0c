//! Where an archived transcript may be written: the one rule every path that turns an archive
//! header into a file on disk goes through (restore, the read view, the archive run's keys).
//!
//! An archive can come from someone else, and its header's `source` (project and path) is what
//! places each transcript under the target folder. So each part is checked on its own before
//! anything is created: the project must be one folder name of the kind Claude Code makes from
//! a cwd (ASCII letters, digits and `-`), and every part of the path must be a plain file or
//! folder name (no `..`, `.`, empty part, absolute path, drive or UNC prefix, NUL or control
//! character, separator inside a part, Windows device name, trailing dot or space, and no
//! `.claude` folder); a config-folder file goes under the config folder instead, and only below
//! one of the folders the archive keeps from it. Then, on disk, every part that already exists is followed: a symbolic
//! link inside the target that leads out of it (or nowhere) is refused, and the file itself is
//! never a symbolic link. The check is made before folders are created and again after, just
//! before the file is created (exclusively, without following a link at its name).

use super::key::Key;
use crate::durable;
use crate::failure::{Code, Failure};
use crate::json_string::json_string;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

/// Longest name one part may have (the common file-system limit, in bytes).
const PART_MAX: usize = 255;

/// Why a header cannot place its transcript: the field, its value, and the rule it breaks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    /// `source.project` or `source.path`.
    pub field: &'static str,
    pub value: String,
    pub reason: String,
    /// A config-folder file's key (its path is in the config folder, not a project).
    pub config: bool,
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "refused: header field {} {} {}", self.field, json_string(&self.value), self.reason)
    }
}

impl Refusal {
    /// The same rule said of a transcript on disk (the archive run refuses what restore would).
    pub fn of_source(&self) -> String {
        let what = match (self.field, self.config) {
            ("source.project", _) => "project folder",
            (_, true) => "path in the config folder",
            _ => "path in its project",
        };
        format!("its {what} {} {}; not archived (restore would refuse it)", json_string(&self.value), self.reason)
    }
}

/// The project: one folder name as Claude Code encodes a cwd (every character other than
/// `[A-Za-z0-9]` becomes `-`), so never `.`, `..`, a separator or a `.claude` folder. Returns
/// the rule a project breaks, None when it keeps them all.
fn check_project(project: &str) -> Option<String> {
    match project {
        "" => return Some("is empty (the project must be one folder name)".into()),
        "." => return Some("is '.' (the project must be one folder name)".into()),
        ".." => return Some("is '..' (it would lead out of the target folder)".into()),
        _ => {}
    }
    if let Some(r) = absolute(project) {
        return Some(r);
    }
    if project.contains('/') || project.contains('\\') {
        return Some("has a path separator (the project must be one folder name)".into());
    }
    if let Some(c) = project.chars().find(|c| !(c.is_ascii_alphanumeric() || *c == '-')) {
        return Some(format!(
            "has the character {} (a project folder, as Claude Code names them, has only letters, digits and '-')",
            json_string(&c.to_string())
        ));
    }
    if project.len() > PART_MAX {
        return Some(format!("is longer than {PART_MAX} bytes"));
    }
    None
}

/// An absolute path, drive or UNC prefix at the start of a value, described.
fn absolute(v: &str) -> Option<String> {
    let b = v.as_bytes();
    let sep = |c: u8| c == b'/' || c == b'\\';
    if b.len() >= 2 && sep(b[0]) && sep(b[1]) {
        return Some("is a UNC path (it must stay inside the target folder)".into());
    }
    if b.first().is_some_and(|&c| sep(c)) {
        return Some("is an absolute path (it must stay inside the target folder)".into());
    }
    if b.len() >= 2 && b[0].is_ascii_alphabetic() && b[1] == b':' {
        return Some("starts with a drive prefix (it must stay inside the target folder)".into());
    }
    None
}

/// One part of the path within the project: the rule it breaks, None when it keeps them all.
fn check_part(part: &str) -> Option<String> {
    match part {
        "" => return Some("has an empty part".into()),
        "." => return Some("has a '.' part".into()),
        ".." => return Some("has a '..' part (it would lead out of the target folder)".into()),
        _ => {}
    }
    if part.contains('\0') {
        return Some("has a NUL character".into());
    }
    if part.chars().any(char::is_control) {
        return Some("has a control character".into());
    }
    if part.contains('\\') {
        return Some("has a '\\' inside a part (a separator on Windows)".into());
    }
    if part.contains(':') {
        return Some("has a ':' (a drive prefix or stream name on Windows)".into());
    }
    if part.ends_with('.') || part.ends_with(' ') {
        return Some("has a part ending in '.' or ' ' (Windows drops them)".into());
    }
    if part.eq_ignore_ascii_case(".claude") {
        return Some("has a '.claude' part (nothing is restored into a Claude config folder this way)".into());
    }
    let stem = part.split('.').next().unwrap_or(part).to_ascii_uppercase();
    let device = matches!(stem.as_str(), "CON" | "PRN" | "AUX" | "NUL")
        || (stem.len() == 4
            && (stem.starts_with("COM") || stem.starts_with("LPT"))
            && stem.as_bytes()[3].is_ascii_digit());
    if device {
        return Some("has a Windows device name as a part".into());
    }
    if part.len() > PART_MAX {
        return Some(format!("has a part longer than {PART_MAX} bytes"));
    }
    None
}

/// Checks a key's project and path by the rules above, without touching the disk.
/// A config-folder file's key (`Key::is_config`) has no project: its path must also lie in one
/// of the config folders the archive keeps (`config_files::check_rel`).
pub fn check_key(key: &Key) -> Result<(), Refusal> {
    let config = key.is_config();
    let refuse = |field, value: &str, reason| Refusal { field, value: value.to_string(), reason, config };
    if !config {
        if let Some(r) = check_project(&key.project) {
            return Err(refuse("source.project", &key.project, r));
        }
    }
    if let Some(r) = absolute(&key.rel) {
        return Err(refuse("source.path", &key.rel, r));
    }
    for part in key.rel.split('/') {
        if let Some(r) = check_part(part) {
            return Err(refuse("source.path", &key.rel, r));
        }
    }
    if let Some(r) = config.then(|| super::config_files::check_rel(&key.rel)).flatten() {
        return Err(refuse("source.path", &key.rel, r));
    }
    Ok(())
}

/// A checked place for a transcript: `path` under the folder `within`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Destination {
    pub within: PathBuf,
    pub path: PathBuf,
}

/// Where `key` goes under `within` (`<within>/<project>/<path>`; a config file's `within` is the
/// config folder: `<within>/<path>`), or why it may not go there. The parts on disk are checked
/// too when they exist; `prepare` checks them again.
pub fn destination(within: &Path, key: &Key) -> Result<Destination, Failure> {
    check_key(key).map_err(|r| Failure::new(Code::Archive, r.to_string()))?;
    let mut path = if key.is_config() { within.to_path_buf() } else { within.join(&key.project) };
    for part in key.rel.split('/') {
        path.push(part);
    }
    let d = Destination { within: within.to_path_buf(), path };
    d.check_on_disk()?;
    Ok(d)
}

/// The folders a restore writes into: a projects folder for transcripts and session files, and
/// the config folder for config-folder files (None: they are not restored).
#[derive(Clone, Debug)]
pub struct Targets {
    pub projects: PathBuf,
    pub config: Option<PathBuf>,
}

impl Targets {
    /// Where `key` goes among the targets, checked as `destination` checks it.
    pub fn place(&self, key: &Key) -> Result<Destination, Failure> {
        match (&self.config, key.is_config()) {
            (_, false) => destination(&self.projects, key),
            (Some(config), true) => destination(config, key),
            (None, true) => {
                let why = "a config-folder file, and no config folder to restore it into was given";
                Err(Failure::new(Code::Archive, format!("{}: {why}", key.text())))
            }
        }
    }
}

impl Destination {
    /// The parts below `within`, in order (the last is the file).
    fn parts(&self) -> Vec<&std::ffi::OsStr> {
        self.path.strip_prefix(&self.within).map(|r| r.iter().collect()).unwrap_or_default()
    }

    /// Follows every existing part: a symbolic link must lead inside `within` (after following
    /// the links already there), a folder part must be a folder, and the file must not be a link.
    pub fn check_on_disk(&self) -> Result<(), Failure> {
        let base = match fs::canonicalize(&self.within) {
            Ok(b) => b,
            // nothing below a folder that does not exist yet exists either
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(Failure::io(&self.within, &e)),
        };
        let parts = self.parts();
        let mut p = self.within.clone();
        for (i, part) in parts.iter().enumerate() {
            p.push(part);
            let last = i + 1 == parts.len();
            let m = match fs::symlink_metadata(&p) {
                Ok(m) => m,
                Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
                Err(e) => return Err(Failure::io(&p, &e)),
            };
            if m.file_type().is_symlink() {
                if last {
                    return Err(Failure::at(Code::Archive, &p, "is a symbolic link (not followed, not replaced)"));
                }
                match fs::canonicalize(&p) {
                    Ok(real) if real.starts_with(&base) => {}
                    Ok(real) => {
                        let within = self.within.display();
                        let why = format!(
                            "a symbolic link leading out of {within} (to {}); nothing written through it",
                            real.display()
                        );
                        return Err(Failure::at(Code::Archive, &p, why));
                    }
                    Err(_) => {
                        let why = "a symbolic link that leads nowhere; nothing written through it";
                        return Err(Failure::at(Code::Archive, &p, why));
                    }
                }
            } else if !last && !m.is_dir() {
                return Err(Failure::at(Code::Archive, &p, "exists and is not a folder"));
            }
        }
        Ok(())
    }

    /// Creates the file's missing folders, checking the parts on disk before and after, so the
    /// file's folder is known to be inside `within` when the caller creates the file.
    pub fn prepare(&self) -> Result<(), Failure> {
        self.check_on_disk()?;
        let dir = self.path.parent().unwrap_or(&self.within);
        durable::make_dirs_with(dir, false)?;
        self.check_on_disk()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(project: &str, rel: &str) -> Key {
        Key { project: project.into(), rel: rel.into() }
    }

    fn refused(project: &str, rel: &str) -> Refusal {
        check_key(&key(project, rel)).expect_err(&format!("{project:?} {rel:?} must be refused"))
    }

    #[test]
    fn keys_claude_code_writes_pass() {
        for (p, r) in [
            ("-home-u-repo", "0b7c8a8e-1111-4222-8333-444455556666.jsonl"),
            ("-home-u-repo", "0b7c8a8e-1111-4222-8333-444455556666/subagents/agent-a1.jsonl"),
            ("C--Users-Me-repo", "agent-old.jsonl"),
            ("p", "s.jsonl"),
            (&format!("{}-1x2y3z", "-a".repeat(100)), "x.jsonl"),
        ] {
            check_key(&key(p, r)).unwrap_or_else(|e| panic!("{p} {r}: {e}"));
        }
    }

    #[test]
    fn every_escape_is_refused_by_field() {
        for p in [
            "../../../../tmp/x",
            "..",
            ".",
            "",
            "/tmp/x",
            "\\\\server\\share",
            "C:\\x",
            "C:x",
            "a/b",
            "a\\b",
            ".claude",
            "-home-u-my.repo",
            "x\0y",
            "repo\n",
            "café",
        ] {
            let r = refused(p, "s.jsonl");
            assert_eq!(r.field, "source.project", "{p:?}");
            assert_eq!(r.value, p);
        }
        for rel in [
            "../../../x.jsonl",
            "s/../../x.jsonl",
            "..",
            "./s.jsonl",
            "s//x.jsonl",
            "s/",
            "",
            "/tmp/x.jsonl",
            "\\\\server\\share\\x.jsonl",
            "C:\\x.jsonl",
            "C:x.jsonl",
            "s/x:stream.jsonl",
            "..\\..\\x.jsonl",
            "x\0.jsonl",
            "x\n.jsonl",
            "s/.claude/settings.json",
            "s/.CLAUDE/x.jsonl",
            "CON",
            "s/nul.jsonl",
            "com1.jsonl",
            "x.jsonl.",
            "x.jsonl ",
            &"a".repeat(256),
        ] {
            let r = refused("-home-u-repo", rel);
            assert_eq!(r.field, "source.path", "{rel:?}");
        }
    }

    #[test]
    fn the_message_names_the_field_and_escapes_the_value() {
        let m = refused("../x\0", "s.jsonl").to_string();
        assert!(m.starts_with("refused: header field source.project \"../x\\u0000\" "), "{m}");
        assert!(!m.contains('\n') && !m.contains('\0'));
        let m = refused("p", "a/../../b.jsonl").to_string();
        assert!(m.contains("source.path \"a/../../b.jsonl\" has a '..' part"), "{m}");
    }

    #[cfg(unix)]
    #[test]
    fn symbolic_links_on_disk_must_stay_inside() {
        use std::os::unix::fs::symlink;
        let t = std::env::temp_dir().join(format!("cj-destination-{}", std::process::id()));
        let _ = fs::remove_dir_all(&t);
        let (within, outside) = (t.join("to"), t.join("outside"));
        fs::create_dir_all(within.join("inside")).unwrap();
        fs::create_dir_all(&outside).unwrap();
        symlink(&outside, within.join("-out")).unwrap();
        symlink(within.join("inside"), within.join("-in")).unwrap();
        symlink(t.join("nowhere"), within.join("-dangling")).unwrap();
        fs::create_dir_all(within.join("-p")).unwrap();
        symlink(outside.join("f.jsonl"), within.join("-p").join("f.jsonl")).unwrap();
        symlink("../../outside", within.join("-p").join("up")).unwrap();

        let e = destination(&within, &key("-out", "s.jsonl")).unwrap_err();
        assert!(e.message.contains("a symbolic link leading out of"), "{e}");
        let e = destination(&within, &key("-dangling", "s.jsonl")).unwrap_err();
        assert!(e.message.contains("leads nowhere"), "{e}");
        let e = destination(&within, &key("-p", "f.jsonl")).unwrap_err();
        assert!(e.message.contains("is a symbolic link"), "{e}");
        let e = destination(&within, &key("-p", "up/subagents/a.jsonl")).unwrap_err();
        assert!(e.message.contains("leading out of"), "{e}");
        // a link that stays inside the target is followed
        let d = destination(&within, &key("-in", "s/subagents/a.jsonl")).unwrap();
        d.prepare().unwrap();
        assert!(within.join("inside").join("s").join("subagents").is_dir());
        // a link put in place after the place was first checked is seen when folders are made
        let d = destination(&within, &key("-late", "s.jsonl")).unwrap();
        symlink(&outside, within.join("-late")).unwrap();
        assert!(d.prepare().unwrap_err().message.contains("leading out of"));
        assert_eq!(fs::read_dir(&outside).unwrap().count(), 0, "nothing created outside");
        fs::remove_dir_all(&t).unwrap();
    }
}
