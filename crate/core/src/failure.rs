//! A failure the caller reports to a person: what kind it is (a machine-readable code), the
//! path it concerns when there is one (as data, so no caller has to cut it out of the text),
//! and the one-line message shown as it is.

use std::path::Path;

/// The kinds of failure the native core reports. Each has a stable kebab-case name that
/// crosses to JavaScript; the TypeScript side maps them to its errors and exit codes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Code {
    /// A file or folder could not be opened, read, listed or written.
    Io,
    /// A file changed or is not the one the caller's index was made from.
    Changed,
    /// A store file cannot be read or is not a valid store (bad frame, checksum, header).
    Store,
    /// Another writer holds the session's lock.
    Locked,
    /// An archive run, listing, restore or read view could not proceed.
    Archive,
    /// An argument does not fit: an unknown record index, a part that is not one kind, a buffer
    /// that is not the one an index was made from.
    InvalidArgument,
    /// An option value the caller gave is not one the command takes (reported as a usage
    /// error, exit code 2).
    Usage,
    /// A cut position that is not one of the legal cuts.
    IllegalCut,
    /// Something that should not happen (a worker thread panicked).
    Internal,
}

impl Code {
    pub const ALL: [Code; 9] = [
        Code::Io,
        Code::Changed,
        Code::Store,
        Code::Locked,
        Code::Archive,
        Code::InvalidArgument,
        Code::Usage,
        Code::IllegalCut,
        Code::Internal,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Code::Io => "io",
            Code::Changed => "changed",
            Code::Store => "store",
            Code::Locked => "locked",
            Code::Archive => "archive",
            Code::InvalidArgument => "invalid-argument",
            Code::Usage => "usage",
            Code::IllegalCut => "illegal-cut",
            Code::Internal => "internal",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    pub code: Code,
    /// The file or folder the failure concerns, when it concerns one.
    pub path: Option<String>,
    /// One line, shown to a person as it is (it names the path itself when there is one).
    pub message: String,
}

impl Failure {
    pub fn new(code: Code, message: impl Into<String>) -> Failure {
        Failure { code, path: None, message: message.into() }
    }

    /// `path: problem`, with the path kept as data.
    pub fn at(code: Code, path: &Path, problem: impl std::fmt::Display) -> Failure {
        let p = path.display().to_string();
        Failure { code, message: format!("{p}: {problem}"), path: Some(p) }
    }

    /// An I/O error on `path`, as one short phrase (see [`crate::io_message`]).
    pub fn io(path: &Path, e: &std::io::Error) -> Failure {
        Failure::at(Code::Io, path, crate::io_message(e))
    }

    /// A message the core already wrote as `path: problem` about `path` (or a file under it).
    pub fn about(code: Code, path: &Path, message: String) -> Failure {
        Failure { code, path: Some(path.display().to_string()), message }
    }

    /// This failure as one about `path`: a phrase a byte-level function wrote without knowing
    /// the file (`corrupt store: …`) becomes `path: phrase`, with the path as data.
    pub fn in_file(self, path: &Path) -> Failure {
        Failure::at(self.code, path, self.message)
    }

    /// This failure with another code, its message and path kept: an operation that reports
    /// every failure under one code (an archive run is `archive` whatever file stopped it).
    pub fn recoded(self, code: Code) -> Failure {
        Failure { code, ..self }
    }
}

impl Failure {
    /// `{"code":…,"path":…}`: the data half of the failure, as it crosses to JavaScript.
    pub fn data_json(&self) -> String {
        let json = crate::json_string::json_string;
        match &self.path {
            Some(p) => format!("{{\"code\":{},\"path\":{}}}", json(self.code.name()), json(p)),
            None => format!("{{\"code\":{}}}", json(self.code.name())),
        }
    }
}

impl std::error::Error for Failure {}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_names_are_distinct_kebab_case() {
        let names: Vec<&str> = Code::ALL.iter().map(|c| c.name()).collect();
        let mut sorted = names.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), names.len());
        assert!(names.iter().all(|n| n.chars().all(|c| c.is_ascii_lowercase() || c == '-')));
    }

    #[test]
    fn io_failure_names_the_path_in_text_and_data() {
        let e = std::io::Error::from(std::io::ErrorKind::NotFound);
        let f = Failure::io(Path::new("/x/y.jsonl"), &e);
        assert_eq!(f.code, Code::Io);
        assert_eq!(f.path.as_deref(), Some("/x/y.jsonl"));
        assert_eq!(f.message, "/x/y.jsonl: no such file or directory");
        assert_eq!(f.data_json(), r#"{"code":"io","path":"/x/y.jsonl"}"#);
        assert_eq!(Failure::new(Code::Usage, "m").data_json(), r#"{"code":"usage"}"#);
        assert_eq!(
            Failure::about(Code::Store, Path::new("/a\"b"), "x".into()).data_json(),
            r#"{"code":"store","path":"/a\"b"}"#
        );
    }
}
