//! The whole `find` pipeline: discover the estate's files, open the corpus (from the index
//! where it still holds, scanning the rest), run the query, and account for what it ran over.

use super::{index_path, open, search, Filter, Hit, Query, Source};
use crate::archive::estate_scan::ArchiveRoot;
use crate::archive::Stored;
use crate::estate::{discover, DiscoverError};
use crate::scan::Progress;
use crate::search::Fields;
use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// What to look for and where.
#[derive(Debug, Clone, Default)]
pub struct Request {
    /// Command-line terms (see [`Query::parse`]).
    pub terms: Vec<String>,
    pub fields: Fields,
    /// Hits returned at most.
    pub limit: usize,
    pub filter: Filter,
    /// Folder holding the index; None: scan everything and write nothing.
    pub index_dir: Option<PathBuf>,
}

/// What the query ran over and how the index served it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Scope {
    /// In scope after the filter: documents, sessions, bytes.
    pub files: usize,
    pub sessions: usize,
    pub bytes: u64,
    /// Everything found under the roots.
    pub files_total: usize,
    pub sessions_total: usize,
    pub bytes_total: u64,
    pub matching_files: usize,
    pub matching_sessions: usize,
    pub terms: Vec<String>,
    /// Each phrase as its words.
    pub phrases: Vec<Vec<String>>,
    /// Files in scope holding each term, in `terms` order.
    pub term_files: Vec<u64>,
    pub index_path: Option<PathBuf>,
    pub index_built_ms: Option<f64>,
    pub index_written: bool,
    pub index_error: Option<String>,
    pub files_reused: usize,
    pub files_rescanned: usize,
    pub files_appended: usize,
    pub bytes_rescanned: u64,
    /// Files that could not be read: path, why.
    pub failed: Vec<(String, String)>,
}

#[derive(Debug, Clone, Default)]
pub struct Found {
    pub hits: Vec<Hit>,
    pub scope: Scope,
}

/// Runs `request` over the transcripts under `roots`. A root that does not exist or cannot be
/// listed fails the whole search; an unreadable file is only reported in `scope.failed`.
pub fn find(roots: &[PathBuf], request: &Request, progress: &Progress) -> Result<Found, DiscoverError> {
    find_in(roots, &[], request, progress)
}

/// The files found, their sources, and the archived files that could not be listed (path, why).
type Sources = (Vec<crate::estate::EstateFile>, Vec<Source>, Vec<(String, String)>);

/// The sources of the files under `roots` and of the archived transcripts of `archives` (read
/// from their streams in memory; a stream whose directories do not read is named in `failed`).
fn sources_of(roots: &[PathBuf], archives: &[ArchiveRoot]) -> Result<Sources, DiscoverError> {
    let mut files = if roots.is_empty() { Vec::new() } else { discover(roots)? };
    let mut sources: Vec<Source> = files.iter().map(Source::of).collect();
    let mut failed = Vec::new();
    for a in archives {
        let which: Vec<Stored> =
            a.files.iter().filter(|s| !s.key.is_config() && s.key.rel.ends_with(".jsonl")).cloned().collect();
        let found = crate::archive::estate_scan::discover_stored(&a.root, &which)
            .map_err(|f| DiscoverError { path: a.root.clone(), message: f.message })?;
        for (s, f) in which.into_iter().zip(found) {
            match f {
                Ok(f) => {
                    sources.push(Source { stored: Some(s), ..Source::of(&f) });
                    files.push(f);
                }
                Err(e) => failed.push((a.root.join(&s.key.project).join(&s.key.rel).display().to_string(), e.message)),
            }
        }
    }
    Ok((files, sources, failed))
}

/// `find` over the folders `roots` and the archive roots `archives` together.
pub fn find_in(
    roots: &[PathBuf],
    archives: &[ArchiveRoot],
    request: &Request,
    progress: &Progress,
) -> Result<Found, DiscoverError> {
    let (files, sources, unread) = sources_of(roots, archives)?;
    let fields = request.fields;
    let keyed: Vec<PathBuf> = roots.iter().cloned().chain(archives.iter().map(|a| a.root.clone())).collect();
    let index = request.index_dir.as_deref().map(|d| index_path(Path::new(d), &keyed, fields));
    let mut corpus = open(&sources, fields, index.as_deref(), progress);
    corpus.failed.extend(unread);
    let query = Query::parse(&request.terms);
    let ans = search(&corpus, &query, &request.filter, fields, request.limit);
    let segs = corpus.segments();
    let transcripts = || segs.iter().zip(&corpus.excluded).filter(|(_, &x)| !x).map(|(s, _)| s);
    let sessions_total = transcripts().map(|s| (s.project, s.session_id)).collect::<HashSet<_>>().len();
    let left_out = || segs.iter().zip(&corpus.excluded).filter(|(_, &x)| x).map(|(s, _)| s);
    let scope = Scope {
        files: ans.docs,
        sessions: ans.sessions,
        bytes: ans.bytes,
        files_total: files.len() - left_out().count(),
        sessions_total,
        bytes_total: files.iter().map(|f| f.size).sum::<u64>() - left_out().map(|s| s.size).sum::<u64>(),
        matching_files: ans.matching_docs,
        matching_sessions: ans.matching_sessions,
        phrases: query.phrases.iter().map(|p| p.iter().map(|&k| query.terms[k].clone()).collect()).collect(),
        terms: query.terms,
        term_files: ans.df,
        index_path: index,
        index_built_ms: corpus.index_built_ms,
        index_written: corpus.index_written,
        index_error: corpus.index_error.clone(),
        files_reused: corpus.reused,
        files_rescanned: corpus.rescanned,
        files_appended: corpus.appended,
        bytes_rescanned: corpus.rescanned_bytes,
        failed: corpus.failed.clone(),
    };
    Ok(Found { hits: ans.hits, scope })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn line(kind: &str, text: &str, at: &str) -> String {
        format!(
            r#"{{"type":"{kind}","message":{{"role":"{kind}","content":"{text}"}},"timestamp":"2026-03-0{at}T10:00:00.000Z"}}"#
        )
    }

    fn estate(name: &str) -> PathBuf {
        let root = std::env::temp_dir().join(format!("cj-find-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&root);
        let project = root.join("-home-u-app");
        fs::create_dir_all(project.join("s1/subagents")).unwrap();
        fs::write(project.join("s1.jsonl"), line("user", "the zebra migration plan", "1") + "\n").unwrap();
        fs::write(project.join("s1/subagents/agent-a.jsonl"), line("user", "zebra zebra stripes", "2") + "\n").unwrap();
        fs::write(project.join("s2.jsonl"), line("user", "unrelated words only", "3") + "\n").unwrap();
        root
    }

    fn request(terms: &[&str]) -> Request {
        Request { terms: terms.iter().map(|t| t.to_string()).collect(), limit: 10, ..Default::default() }
    }

    #[test]
    fn find_ranks_sessions_and_accounts_for_the_whole_estate() {
        let root = estate("scope");
        let found = find(std::slice::from_ref(&root), &request(&["zebra", "\"migration plan\""]), &Progress::default())
            .unwrap();
        assert_eq!(found.hits.len(), 1);
        assert_eq!(found.hits[0].session_id, "s1");
        let s = &found.scope;
        assert_eq!((s.files_total, s.sessions_total), (3, 2));
        assert_eq!((s.matching_files, s.matching_sessions), (2, 1));
        assert_eq!(s.terms, ["zebra", "migration", "plan"]);
        assert_eq!(s.phrases, [vec!["migration".to_string(), "plan".to_string()]]);
        assert_eq!(s.term_files, [2, 1, 1]);
        assert_eq!(s.bytes_total, s.bytes);
        assert_eq!((s.index_path.as_ref(), s.index_written, s.files_rescanned), (None, false, 3));
        fs::remove_dir_all(root).unwrap();
    }

    #[test]
    fn find_with_an_index_reuses_unchanged_files_on_the_next_run() {
        let root = estate("index");
        let index_dir = root.join("index");
        fs::create_dir_all(&index_dir).unwrap();
        let projects = root.join("-home-u-app");
        let req = Request { index_dir: Some(index_dir), ..request(&["zebra"]) };
        let first = find(std::slice::from_ref(&projects), &req, &Progress::default()).unwrap();
        assert!(first.scope.index_written);
        let again = find(&[projects], &req, &Progress::default()).unwrap();
        assert_eq!((again.scope.files_reused, again.scope.files_rescanned), (3, 0));
        assert_eq!(again.hits.len(), first.hits.len());
        fs::remove_dir_all(root).unwrap();
    }

    #[test]
    fn find_under_a_missing_root_fails_naming_it() {
        let missing = std::env::temp_dir().join("cj-find-missing-root");
        assert_eq!(
            find(std::slice::from_ref(&missing), &request(&["x"]), &Progress::default()).unwrap_err().path,
            missing
        );
    }
}

/// What `find --exact` asks: the literal text and how to match it, where and how many.
#[derive(Debug, Clone)]
pub struct ExactRequest {
    pub text: String,
    pub case_sensitive: bool,
    pub fields: Fields,
    pub filter: Filter,
    pub limit: usize,
}

/// The answer of `find_exact`, with the totals under the roots beside the scope searched.
#[derive(Debug)]
pub struct ExactFound {
    pub answer: super::exact::ExactAnswer,
    pub files_total: usize,
    pub bytes_total: u64,
}

/// Why `find_exact` could not run.
#[derive(Debug)]
pub enum ExactError {
    /// An empty text matches everywhere: refused.
    EmptyText,
    Discover(DiscoverError),
}

/// Literal search of `request.text` over the transcripts under `roots`, the counterpart of
/// [`find`] for `find --exact`: the same discovery, sources and filter, no index.
pub fn find_exact(
    roots: &[PathBuf],
    archives: &[ArchiveRoot],
    request: &ExactRequest,
    progress: &Progress,
) -> Result<ExactFound, ExactError> {
    let needle = super::exact::Needle::new(&request.text, request.case_sensitive).ok_or(ExactError::EmptyText)?;
    let (files, sources, unread) = sources_of(roots, archives).map_err(ExactError::Discover)?;
    let mut answer =
        super::exact::search_exact(&sources, &needle, request.fields, &request.filter, request.limit, progress);
    answer.failed.extend(unread);
    Ok(ExactFound { answer, files_total: files.len(), bytes_total: files.iter().map(|f| f.size).sum() })
}
