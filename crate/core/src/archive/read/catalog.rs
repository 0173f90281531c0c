//! What an archive holds: its roots, streams and store files listed, their generations from the
//! layout and header frames, the damaged and the missing named.

use crate::archive::destination::{Destination, Targets};
pub use crate::archive::events::Mark;
use crate::archive::index;
use crate::archive::key::{self, Key, TRANSCRIPT};
use crate::archive::layout::{self, INDEX};
use crate::archive::stream::{self, Unit, STREAM_SUFFIX};
use crate::failure::{Code, Failure};
use crate::scan::Parser;
use crate::store;
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

#[derive(Clone, Debug)]
pub struct Stored {
    pub key: Key,
    pub gen: u32,
    pub path: PathBuf,
    /// How many generations the key has (this one is the latest when listed by `latest`).
    pub generations: u32,
    pub store_len: u64,
    /// The bytes of this generation the store holds, when the listing knows (format 2).
    pub size: Option<u64>,
    /// A format-2 file as of an earlier run: only the stream's first `segments` segments are
    /// read (None: all of them, the latest state).
    pub segments: Option<u32>,
}

/// A store file (or something in its place) that cannot be read: its path and why. The rest of
/// the archive still reads.
#[derive(Clone, Debug)]
pub struct Damaged {
    pub path: PathBuf,
    /// The project and session (or lone file) its name places it at, when the name says.
    pub project: Option<String>,
    pub session: Option<String>,
    pub error: Failure,
}

/// A file the archive index records that the store files do not hold (or hold only an earlier
/// state of): a stream lost or cut back.
#[derive(Clone, Debug)]
pub struct Lacking {
    pub key: Key,
    /// What the store holds of it instead (None: nothing).
    pub holds: Option<(u32, Option<u64>)>,
    pub error: String,
}

/// Everything an archive holds: the readable files, the store files that are damaged, and what
/// the index has that the store files lack.
#[derive(Clone, Debug, Default)]
pub struct Listing {
    pub stored: Vec<Stored>,
    pub damaged: Vec<Damaged>,
    pub lacking: Vec<Lacking>,
}

/// How a damaged stream an archive run set aside is named: `<stream file>.damaged-<N>`, kept
/// byte for byte beside the stream stored again; readers skip it.
pub const DAMAGED_SUFFIX: &str = ".damaged-";

fn is_set_aside(p: &Path) -> bool {
    let name = p.file_name().unwrap_or_default().to_string_lossy();
    name.split_once(DAMAGED_SUFFIX).is_some_and(|(stem, n)| {
        stem.ends_with(STREAM_SUFFIX) && !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit())
    })
}

fn project_dir_name(name: &str) -> bool {
    name == "_no-cwd" || (name.len() >= 4 && name.starts_with("--") && name.ends_with("--"))
}

/// True when `dir` is an archive root: it holds the archive index, or its first project
/// folder's first session holds an archive header.
pub fn is_archive(dir: &Path) -> bool {
    if !dir.is_dir() {
        return false;
    }
    if dir.join(INDEX).is_file() {
        return true;
    }
    let first = |d: &Path, stream_file: bool| -> Option<PathBuf> {
        let mut names: Vec<PathBuf> = fs::read_dir(d).ok()?.flatten().map(|e| e.path()).collect();
        names.sort();
        names.into_iter().find(|p| p.is_dir() || (stream_file && is_stream_file(p)))
    };
    let Some(project) = first(dir, false) else { return false };
    if !project_dir_name(&project.file_name().unwrap_or_default().to_string_lossy()) {
        return false;
    }
    let Some(session) = first(&project, true) else { return false };
    if is_stream_file(&session) {
        return stream::read_segments(&session).is_ok_and(|(s, _)| !s.is_empty());
    }
    store::read_header(&session.join(TRANSCRIPT), store::Encoding::Zstd)
        .ok()
        .and_then(|h| layout::parse_header(&mut Parser::default(), &h))
        .is_some()
}

/// The project folders of an archive root; anything else in it (but the index) is an error
/// naming it.
pub fn check_root(root: &Path) -> Result<Vec<PathBuf>, Failure> {
    let mut projects = Vec::new();
    for e in fs::read_dir(root).map_err(|e| Failure::io(root, &e))? {
        let e = e.map_err(|e| Failure::io(root, &e))?;
        let name = e.file_name().to_string_lossy().into_owned();
        let p = e.path();
        if name.starts_with(INDEX) {
            continue;
        }
        if !p.is_dir() || !project_dir_name(&name) {
            return Err(Failure::at(
                Code::Archive,
                &p,
                "not part of an archive (a foreign file or folder in the store root)",
            ));
        }
        projects.push(p);
    }
    Ok(projects)
}

/// Every generation in the archive, checked against the layout; anything else in the root is
/// an error naming it, and so is the first damaged store file (`list_all` reads past them).
pub fn list(root: &Path) -> Result<Vec<Stored>, Failure> {
    let all = list_all(root)?;
    match all.damaged.into_iter().next() {
        Some(d) => Err(crate::archive::cannot_proceed(d.error)),
        None => Ok(all.stored),
    }
}

/// Every generation in the archive, with each store file that cannot be read named apart (a
/// damaged stream does not hide the others), and what the index records that no store file
/// holds. Err only when the root itself is not an archive. Directories are read on every core
/// (a restore lists thousands).
pub fn list_all(root: &Path) -> Result<Listing, Failure> {
    listing(root).map_err(crate::archive::cannot_proceed)
}

fn listing(root: &Path) -> Result<Listing, Failure> {
    let mut projects = check_root(root)?;
    projects.sort();
    let mut sessions = Vec::new();
    for pdir in projects {
        let mut in_project: Vec<PathBuf> =
            fs::read_dir(&pdir).map_err(|e| Failure::io(&pdir, &e))?.flatten().map(|e| e.path()).collect();
        in_project.sort();
        sessions.extend(in_project.into_iter().filter(|p| !is_set_aside(p)));
    }
    let found: Vec<Result<Vec<Stored>, Failure>> =
        sessions.par_iter().map_init(Parser::default, |parser, sdir| stored(root, parser, sdir)).collect();
    let mut out = Listing::default();
    for (sdir, f) in sessions.iter().zip(found) {
        match f {
            Ok(s) => out.stored.extend(s),
            Err(error) => out.damaged.push(damaged_at(sdir, error)),
        }
    }
    out.lacking = lacking(root, &out);
    Ok(out)
}

/// A damaged store file with the project and session its name gives.
fn damaged_at(path: &Path, error: Failure) -> Damaged {
    let project = path
        .parent()
        .and_then(|p| p.file_name())
        .map(|n| n.to_string_lossy().into_owned())
        .and_then(|n| n.strip_prefix("--").and_then(|n| n.strip_suffix("--")).map(str::to_string));
    let name = path.file_name().unwrap_or_default().to_string_lossy().into_owned();
    let id = key::unescape_id(name.strip_suffix(STREAM_SUFFIX).unwrap_or(&name));
    // `<session>-s2-<hash>` (format 2) or `<stem>-g<N>-<hash>` (format 1)
    let session = id.and_then(|id| {
        let (stem, _) = id.rsplit_once('-')?;
        let (stem, tag) = stem.rsplit_once('-')?;
        match tag {
            "s2" | "f2" => Some(stem.to_string()),
            t if t.starts_with('g') => Some(stem.to_string()),
            _ => None,
        }
    });
    Damaged { path: path.to_path_buf(), project, session, error }
}

/// What the index records that the readable store files do not hold: a file in no store file
/// (its stream lost), or held at an earlier generation or length than the index's (the
/// stream cut back to an earlier run). Files of a damaged store file are not repeated here.
fn lacking(root: &Path, listing: &Listing) -> Vec<Lacking> {
    let (format, idx) = index::load_with_format(root);
    if idx.is_empty() {
        return Vec::new();
    }
    let mut have: BTreeMap<&Key, &Stored> = BTreeMap::new();
    for s in &listing.stored {
        match have.get(&s.key) {
            Some(h) if h.gen >= s.gen => {}
            _ => {
                have.insert(&s.key, s);
            }
        }
    }
    let damaged: std::collections::HashSet<&Path> = listing.damaged.iter().map(|d| d.path.as_path()).collect();
    let mut out = Vec::new();
    for (key, e) in &idx {
        let recorded = format!("generation {}, {} bytes", e.gen + 1, e.size);
        match have.get(key) {
            Some(s) => {
                let behind = s.gen < e.gen || (s.gen == e.gen && s.size.is_some_and(|n| n < e.size));
                if behind {
                    let holds = match s.size {
                        Some(n) => format!("generation {}, {n} bytes", s.gen + 1),
                        None => format!("generation {}", s.gen + 1),
                    };
                    out.push(Lacking {
                        key: key.clone(),
                        holds: Some((s.gen, s.size)),
                        error: format!(
                            "{}: {}: the archive index records {recorded} but the store file holds only {holds} (a later run's data is missing; restored as it holds it)",
                            s.path.display(),
                            key.text()
                        ),
                    });
                }
            }
            None => {
                let stream = Unit::of(key).path(root);
                let in_damaged = damaged.contains(stream.as_path())
                    || (0..=e.gen).any(|g| key.store_path(root, g).parent().is_some_and(|d| damaged.contains(d)));
                if in_damaged {
                    continue;
                }
                let place = match format {
                    Some(1) => key.store_path(root, e.gen).display().to_string(),
                    _ => stream.display().to_string(),
                };
                out.push(Lacking {
                    key: key.clone(),
                    holds: None,
                    error: format!(
                        "{place}: {}: the archive index records {recorded} but no store file holds it (its stream is missing; `claude-jsonl archive` stores it again while its source is in the estate)",
                        key.text()
                    ),
                });
            }
        }
    }
    out
}

/// The format an archive root is written in, from its store files (None: it holds none).
pub fn root_format(root: &Path) -> Option<u8> {
    for pdir in check_root(root).unwrap_or_default() {
        for s in fs::read_dir(&pdir).into_iter().flatten().flatten() {
            if is_stream_file(&s.path()) {
                return Some(2);
            }
            if s.path().join(TRANSCRIPT).exists() {
                return Some(1);
            }
        }
    }
    None
}

/// A format-2 stream file's name: an escaped stream id and the suffix.
fn is_stream_file(p: &Path) -> bool {
    let name = p.file_name().unwrap_or_default().to_string_lossy();
    name.strip_suffix(STREAM_SUFFIX).is_some_and(|id| key::unescape_id(id).is_some()) && p.is_file()
}

/// A temp file a writer is filling (or a killed one left): not part of the archive.
fn is_temp(p: &Path) -> bool {
    let name = p.file_name().unwrap_or_default().to_string_lossy();
    name.starts_with('.') && name.contains(".tmp-")
}

/// What a session folder holds: one generation (format 1), every file of a stream (format 2),
/// or nothing (its first publish never happened).
fn stored(root: &Path, parser: &mut Parser, sdir: &Path) -> Result<Vec<Stored>, Failure> {
    // a link in a store file's place is never followed (it may lead anywhere)
    if fs::symlink_metadata(sdir).is_ok_and(|m| m.file_type().is_symlink()) {
        return Err(Failure::at(
            Code::Archive,
            sdir,
            "corrupt archive: a symbolic link where the archive keeps a store file (not followed)",
        ));
    }
    if is_stream_file(sdir) {
        let len = fs::metadata(sdir).map_err(|e| Failure::io(sdir, &e))?.len();
        return stream_files(root, sdir, len);
    }
    if is_temp(sdir) && sdir.is_file() {
        return Ok(Vec::new()); // a stream being written, not yet linked into place
    }
    let name = sdir.file_name().unwrap_or_default().to_string_lossy().into_owned();
    if !sdir.is_dir() || key::unescape_id(&name).is_none() {
        return Err(Failure::at(Code::Archive, sdir, "not a session folder this archive writes"));
    }
    let path = sdir.join(TRANSCRIPT);
    let Ok(meta) = fs::metadata(&path) else {
        return Ok(Vec::new()); // a first publish that never happened: nothing committed
    };
    let (key, gen) = placed_header(root, parser, &path)?;
    Ok(vec![Stored { key, gen, path, generations: 0, store_len: meta.len(), size: None, segments: None }])
}

/// The files of a format-2 stream, each at its latest generation, from the directories alone;
/// refused unless the stream's own record places it at `path`.
fn stream_files(root: &Path, path: &Path, len: u64) -> Result<Vec<Stored>, Failure> {
    let segs = stream::placed_segments(root, path)?;
    let held = stream::held(&segs).map_err(|e| e.in_file(path))?;
    Ok(held
        .into_iter()
        .map(|(key, h)| Stored {
            key,
            gen: h.gen,
            path: path.to_path_buf(),
            generations: h.gen + 1,
            store_len: len,
            size: Some(h.size),
            segments: None,
        })
        .collect())
}

/// The key and generation in a store file's header, refused unless they place it at `path`
/// (a file under another transcript's path is never read as, or repaired as, that one).
pub fn placed_header(root: &Path, parser: &mut Parser, path: &Path) -> Result<(Key, u32), Failure> {
    let header = store::read_header(path, store::Encoding::Zstd)?;
    let (key, gen) = layout::parse_header(parser, &header).ok_or_else(|| {
        Failure::at(Code::Archive, path, "not an archived transcript (its header is not an archive's)")
    })?;
    if key.store_path(root, gen) != path {
        return Err(Failure::at(Code::Archive, path, "header places this transcript elsewhere in the archive"));
    }
    Ok((key, gen))
}

impl Stored {
    /// Whether this file is held in a format-2 stream (shared with its session's other files).
    pub fn in_stream(&self) -> bool {
        self.path.file_name().is_some_and(|n| n.to_string_lossy().ends_with(STREAM_SUFFIX))
    }

    /// Where this transcript goes under `within`; a header that would place it elsewhere is
    /// refused naming this store file and the field.
    pub fn destination(&self, within: &Path) -> Result<Destination, Failure> {
        self.placed(&Targets { projects: within.to_path_buf(), config: None })
    }

    /// Where this file goes among a restore's targets (a config-folder file into the config
    /// folder), refused as `destination` refuses.
    pub fn placed(&self, targets: &Targets) -> Result<Destination, Failure> {
        crate::archive::destination::check_key(&self.key).map_err(|r| Failure::at(Code::Archive, &self.path, r))?;
        targets.place(&self.key)
    }
}

/// The latest generation of every key, in key order.
pub fn latest(all: Vec<Stored>) -> Vec<Stored> {
    let mut by: BTreeMap<Key, Stored> = BTreeMap::new();
    let mut counts: BTreeMap<Key, u32> = BTreeMap::new();
    for s in all {
        *counts.entry(s.key.clone()).or_default() += 1;
        match by.get(&s.key) {
            Some(have) if have.gen >= s.gen => {}
            _ => {
                by.insert(s.key.clone(), s);
            }
        }
    }
    by.into_values()
        .map(|mut s| {
            // a stream lists each file once, with its generations already counted
            if !s.in_stream() {
                s.generations = counts[&s.key];
            }
            s
        })
        .collect()
}
