//! The documents of one search: each file's segment reused from the index file while its
//! (size, mtime) still match, extended when the file only grew, rebuilt otherwise; the index
//! file rewritten when anything changed.

use super::build::{self, Source};
use super::extract::Fields;
use super::index_file::{load_index, write_index};
use super::segment::Segment;
use crate::scan::Progress;
use std::fs::File;
use std::path::Path;

/// Where one file's segment is: a range of the index file read at the start, or built now.
enum SegmentBytes {
    InIndexFile(usize, usize),
    Built(Vec<u8>),
}

/// The estate's documents, from the index file, from a fresh scan, or both.
pub struct Corpus {
    base: Vec<u8>,
    segment_bytes: Vec<SegmentBytes>,
    /// Files whose segment came from the index unchanged, and files scanned now.
    pub reused: usize,
    pub rescanned: usize,
    /// Of the files scanned, those that only grew: just their new bytes were read.
    pub appended: usize,
    pub rescanned_bytes: u64,
    /// When the index file now on disk was written (ms since the epoch), if one is used.
    pub index_built_ms: Option<f64>,
    pub index_written: bool,
    /// Why the index could not be written (the answer is still complete).
    pub index_error: Option<String>,
    /// Files that could not be read, and files that are no transcript, with why.
    pub failed: Vec<(String, String)>,
    /// Per segment: the file is no transcript (left out of every count and answer).
    pub excluded: Vec<bool>,
    /// The archived files among the sources, by path (no file is there: read from the archive).
    pub archived: rustc_hash::FxHashMap<String, Source>,
}

impl Corpus {
    pub fn len(&self) -> usize {
        self.segment_bytes.len()
    }
    pub fn is_empty(&self) -> bool {
        self.segment_bytes.is_empty()
    }
    pub fn segments(&self) -> Vec<Segment<'_>> {
        self.segment_bytes
            .iter()
            .map(|h| {
                let b = match h {
                    SegmentBytes::InIndexFile(a, z) => &self.base[*a..*z],
                    SegmentBytes::Built(v) => v.as_slice(),
                };
                Segment::parse(b).expect("validated when loaded or built").0
            })
            .collect()
    }
}

fn now_ms() -> f64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0.0, |d| d.as_secs_f64() * 1000.0)
}

/// Whether the file only grew since its segment was made: the bytes before the old size still
/// end the same way (hash of the last 4 KiB) and end a line.
fn appended_only(seg_bytes: &[u8], s: &Source) -> bool {
    // an archived file is read whole from its stream: nothing is gained by reading only its end
    if s.stored.is_some() {
        return false;
    }
    let Some((seg, _)) = Segment::parse(seg_bytes) else { return false };
    let Ok(f) = File::open(&s.path) else { return false };
    matches!(build::tail_of(&f, seg.size), Ok((hash, true)) if hash == seg.tail_hash)
}

/// The documents for `sources`: reused from the index at `index` where (size, mtime) still
/// match, built from the files otherwise, and the index rewritten when anything changed.
/// Without `index` everything is scanned and nothing is written.
pub fn open(sources: &[Source], fields: Fields, index: Option<&Path>, progress: &Progress) -> Corpus {
    let loaded = index.and_then(|p| load_index(p, fields));
    let (base, built_ms, ranges) = loaded.map_or((Vec::new(), None, Vec::new()), |(b, t, r)| (b, Some(t), r));
    let mut by_path: rustc_hash::FxHashMap<&str, (usize, usize, u64, f64)> = Default::default();
    for &(a, z) in &ranges {
        let (s, _) = Segment::parse(&base[a..z]).expect("validated by load_index");
        by_path.insert(s.path, (a, z, s.size, s.mtime_ms));
    }
    let mut segment_bytes: Vec<Option<SegmentBytes>> = Vec::with_capacity(sources.len());
    let mut todo: Vec<(usize, build::Job)> = Vec::new();
    let mut appended = 0;
    for (i, s) in sources.iter().enumerate() {
        let key = s.path.to_string_lossy();
        let had = by_path.get(key.as_ref()).copied();
        match had {
            Some((a, z, size, mtime)) if size == s.size && mtime == s.mtime_ms => {
                segment_bytes.push(Some(SegmentBytes::InIndexFile(a, z)))
            }
            Some((a, z, size, _)) if size > 0 && size < s.size && appended_only(&base[a..z], s) => {
                segment_bytes.push(None);
                appended += 1;
                let prev = Segment::parse(&base[a..z]).map(|(seg, _)| seg);
                todo.push((i, build::Job { src: s, from: size, prev }));
            }
            _ => {
                segment_bytes.push(None);
                todo.push((i, build::Job { src: s, from: 0, prev: None }));
            }
        }
    }
    let reused = sources.len() - todo.len();
    let stale = ranges.len() != reused;
    let rescanned_bytes = todo.iter().map(|(_, j)| j.src.size - j.from).sum();
    let jobs: Vec<build::Job> =
        todo.iter().map(|(_, j)| build::Job { src: j.src, from: j.from, prev: j.prev }).collect();
    let mut failed = Vec::new();
    for ((i, _), r) in todo.iter().zip(build::build(&jobs, fields, progress)) {
        match r {
            Ok(seg) => segment_bytes[*i] = Some(SegmentBytes::Built(seg)),
            Err(e) => failed.push((sources[*i].path.to_string_lossy().into_owned(), crate::io_message(&e))),
        }
    }
    let n_todo = todo.len();
    drop(jobs);
    drop(todo);
    let segment_bytes: Vec<SegmentBytes> = segment_bytes.into_iter().flatten().collect();
    let mut corpus = Corpus {
        base,
        segment_bytes,
        reused,
        rescanned: n_todo,
        appended,
        rescanned_bytes,
        index_built_ms: built_ms,
        index_written: false,
        index_error: None,
        failed,
        excluded: Vec::new(),
        archived: sources
            .iter()
            .filter(|s| s.stored.is_some())
            .map(|s| (s.path.to_string_lossy().into_owned(), s.clone()))
            .collect(),
    };
    // A file with no searchable record may be no transcript at all (a text file, an image named
    // `.jsonl`): only those are read again, one block each.
    let mut excluded = Vec::with_capacity(corpus.segment_bytes.len());
    let mut left_out = Vec::new();
    for s in corpus.segments() {
        let why = if s.records == 0 && s.size > 0 {
            match corpus.archived.get(s.path) {
                Some(src) => src.bytes().ok().and_then(|b| crate::estate::not_jsonl_in(&b)),
                None => crate::estate::not_jsonl(Path::new(s.path)).ok().flatten(),
            }
        } else {
            None
        };
        if let Some(why) = why {
            left_out.push((s.path.to_string(), why.to_string()));
        }
        excluded.push(why.is_some());
    }
    corpus.failed.extend(left_out);
    corpus.excluded = excluded;
    if let Some(path) = index {
        if n_todo > 0 || stale || built_ms.is_none() {
            let now = now_ms();
            let segs: Vec<&[u8]> = corpus
                .segment_bytes
                .iter()
                .map(|h| match h {
                    SegmentBytes::InIndexFile(a, z) => &corpus.base[*a..*z],
                    SegmentBytes::Built(v) => v.as_slice(),
                })
                .collect();
            match write_index(path, fields, now, &segs) {
                Ok(()) => {
                    corpus.index_built_ms = Some(now);
                    corpus.index_written = true;
                }
                Err(e) => corpus.index_error = Some(format!("{}: {}", path.display(), crate::io_message(&e))),
            }
        }
    }
    corpus
}
