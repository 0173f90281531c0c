//! An archive as a history: every generation of every file a format-2 stream holds, when each
//! was archived, and a stream read as of an earlier run (`restore --list`, `--generation`,
//! `--as-of`). A stream's first `n` segments are the archive as the `n`th run that changed the
//! session left it, so a past state is the same decode over fewer segments.

use super::index;
use super::key::Key;
use super::read::Stored;
use super::stream;
use crate::durable;
use crate::failure::{Code, Failure};
use crate::scan::{tape, Parser};
use std::path::{Path, PathBuf};

/// One generation of one file.
#[derive(Clone, Debug)]
pub struct Generation {
    /// 0 for the first archived (shown to people as 1).
    pub gen: u32,
    /// The segment that started it, and the segment count up to which it stayed the latest
    /// (the stream read as of that many segments holds it at its last state).
    pub from_segment: u32,
    pub until_segment: u32,
    /// Its bytes at its last state: length, SHA-256, the source's mtime then.
    pub size: u64,
    pub sha256: String,
    pub mtime_ns: i128,
    /// Whether it holds a compact pair this tool's compressor made (transcripts only; None for
    /// other files).
    pub compressed: Option<bool>,
}

#[derive(Clone, Debug)]
pub struct FileHistory {
    pub key: Key,
    pub generations: Vec<Generation>,
    /// The source the archive index last read it from no longer exists (None: the index does not
    /// know the file).
    pub deleted: Option<bool>,
}

/// Per segment, when its run started (None in segments written before runs recorded it) and
/// the newest source mtime among its pieces (a lower bound of that time).
#[derive(Clone, Debug)]
pub struct SegmentTime {
    pub archived_at: Option<String>,
    pub newest_mtime_ns: i128,
}

#[derive(Clone, Debug)]
pub struct StreamHistory {
    pub path: PathBuf,
    pub segments: Vec<SegmentTime>,
    pub files: Vec<FileHistory>,
}

/// Every generation of every file of the stream at `path`. With `scan`, each transcript
/// generation is decoded (SHA-256 checked) to tell whether it is a compressed candidate of ours.
pub fn history(root: &Path, path: &Path, scan: bool) -> Result<StreamHistory, Failure> {
    let segs = stream::placed_segments(root, path)?;
    let idx = index::load(root);
    let mut files: Vec<FileHistory> = Vec::new();
    for (k, s) in segs.iter().enumerate() {
        for p in &s.pieces {
            let key = Key { project: s.unit.project.clone(), rel: p.rel.clone() };
            let at = match files.iter().position(|f| f.key == key) {
                Some(i) => i,
                None => {
                    let deleted = idx.get(&key).map(|e| !durable::exists_no_follow(&e.source));
                    files.push(FileHistory { key, generations: Vec::new(), deleted });
                    files.len() - 1
                }
            };
            let gens = &mut files[at].generations;
            if gens.last().is_none_or(|g| g.gen != p.gen) {
                if let Some(prev) = gens.last_mut() {
                    prev.until_segment = k as u32;
                }
                gens.push(Generation {
                    gen: p.gen,
                    from_segment: k as u32,
                    until_segment: segs.len() as u32,
                    size: 0,
                    sha256: String::new(),
                    mtime_ns: 0,
                    compressed: None,
                });
            }
            let g = gens.last_mut().expect("just pushed");
            g.size = p.size();
            g.sha256 = p.sha256.clone();
            g.mtime_ns = p.mtime_ns;
        }
    }
    if scan {
        let bytes = std::fs::read(path).map_err(|e| Failure::io(path, &e))?;
        let name = path.display().to_string();
        for f in files.iter_mut().filter(|f| f.key.rel.ends_with(".jsonl")) {
            for g in &mut f.generations {
                let mut data = Vec::new();
                let upto = &segs[..g.until_segment as usize];
                stream::decode(&name, &bytes, upto, &[f.key.rel.as_str()], &mut [&mut data])?;
                g.compressed = Some(has_compressor_pair(&data));
            }
        }
    }
    let segments = segs
        .iter()
        .map(|s| SegmentTime {
            archived_at: s.archived_at.clone(),
            newest_mtime_ns: s.pieces.iter().map(|p| p.mtime_ns).max().unwrap_or(0),
        })
        .collect();
    Ok(StreamHistory { path: path.to_path_buf(), segments, files })
}

/// The files of the stream at `path` as its first `segments` segments hold them (each at the
/// generation and length it had then), for a restore of that state.
pub fn stream_at(root: &Path, path: &Path, segments: u32) -> Result<Vec<Stored>, Failure> {
    files_at(root, path, segments).map_err(super::cannot_proceed)
}

fn files_at(root: &Path, path: &Path, segments: u32) -> Result<Vec<Stored>, Failure> {
    let segs = stream::placed_segments(root, path)?;
    let n = segments as usize;
    if n == 0 || n > segs.len() {
        return Err(Failure::at(
            Code::Archive,
            path,
            format!("the stream has {} segments, not {segments}", segs.len()),
        ));
    }
    let len = std::fs::metadata(path).map_err(|e| Failure::io(path, &e))?.len();
    let held = stream::held(&segs[..n]).map_err(|e| e.in_file(path))?;
    Ok(held
        .into_iter()
        .map(|(key, h)| Stored {
            key,
            gen: h.gen,
            path: path.to_path_buf(),
            generations: h.gen + 1,
            store_len: len,
            size: Some(h.size),
            segments: Some(segments),
        })
        .collect())
}

/// Whether transcript bytes hold a compact pair this tool's compressor made: a
/// `compact_boundary` record whose `compactMetadata.codexOfflineCompression` is true (the
/// compressor's mark on its pair). Only lines naming the field are parsed.
pub fn has_compressor_pair(bytes: &[u8]) -> bool {
    let mut parser = Parser::default();
    memchr::memmem::find_iter(bytes, b"\"codexOfflineCompression\"").any(|at| {
        let start = memchr::memrchr(b'\n', &bytes[..at]).map_or(0, |i| i + 1);
        let end = memchr::memchr(b'\n', &bytes[at..]).map_or(bytes.len(), |i| at + i);
        let line = bytes[start..end].strip_suffix(b"\r").unwrap_or(&bytes[start..end]);
        parser
            .parse_with(line, |t| {
                let boundary =
                    tape::field(t, 0, "subtype").and_then(|i| tape::as_str(t, i)) == Some("compact_boundary");
                let flag = tape::field(t, 0, "compactMetadata")
                    .and_then(|m| tape::field(t, m, "codexOfflineCompression"))
                    .is_some_and(|i| tape::as_bool(t, i));
                boundary && flag
            })
            .is_some_and(|(v, _)| v)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_compressor_pair_is_told_from_a_client_compaction() {
        let ours = b"{\"type\":\"user\"}\n{\"type\":\"system\",\"subtype\":\"compact_boundary\",\"compactMetadata\":{\"trigger\":\"manual\",\"codexOfflineCompression\":true}}\n";
        let theirs =
            b"{\"type\":\"system\",\"subtype\":\"compact_boundary\",\"compactMetadata\":{\"trigger\":\"auto\"}}\n";
        let quoted = b"{\"type\":\"user\",\"text\":\"\\\"codexOfflineCompression\\\":true\"}\n";
        assert!(has_compressor_pair(ours));
        assert!(!has_compressor_pair(theirs));
        assert!(!has_compressor_pair(quoted));
    }
}
