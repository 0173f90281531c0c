//! Reading an archive: its generations from the layout and header frames, and a generation's
//! transcript bytes decoded (frames in parallel), checked against the SHA-256 of every mark.

use super::events::{self, Event, Mark};
use super::fsx;
use super::layout::{self, Key, INDEX, TRANSCRIPT};
use crate::scan::Parser;
use crate::store;
use rayon::prelude::*;
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::fs;
use std::io::{Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

#[derive(Clone, Debug)]
pub struct Stored {
    pub key: Key,
    pub gen: u32,
    pub path: PathBuf,
    /// How many generations the key has (this one is the latest when listed by `latest`).
    pub generations: u32,
    pub store_len: u64,
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
    let first = |d: &Path| -> Option<PathBuf> {
        let mut names: Vec<PathBuf> = fs::read_dir(d).ok()?.flatten().map(|e| e.path()).collect();
        names.sort();
        names.into_iter().find(|p| p.is_dir())
    };
    let Some(project) = first(dir) else { return false };
    if !project_dir_name(&project.file_name().unwrap_or_default().to_string_lossy()) {
        return false;
    }
    let Some(session) = first(&project) else { return false };
    store::read_header(&session.join(TRANSCRIPT), store::Encoding::Zstd)
        .ok()
        .and_then(|h| layout::parse_header(&mut Parser::default(), &h))
        .is_some()
}

/// The project folders of an archive root; anything else in it (but the index) is an error
/// naming it.
pub fn check_root(root: &Path) -> Result<Vec<PathBuf>, String> {
    let mut projects = Vec::new();
    for e in fs::read_dir(root).map_err(|e| fsx::msg(root, &e))? {
        let e = e.map_err(|e| fsx::msg(root, &e))?;
        let name = e.file_name().to_string_lossy().into_owned();
        let p = e.path();
        if name.starts_with(INDEX) {
            continue;
        }
        if !p.is_dir() || !project_dir_name(&name) {
            return Err(format!(
                "{}: not part of an archive (a foreign file or folder in the store root)",
                p.display()
            ));
        }
        projects.push(p);
    }
    Ok(projects)
}

/// Every generation in the archive, checked against the layout; anything else in the root is
/// an error naming it.
pub fn list(root: &Path) -> Result<Vec<Stored>, String> {
    let mut out = Vec::new();
    let mut parser = Parser::default();
    let mut projects = check_root(root)?;
    projects.sort();
    for pdir in projects {
        let mut sessions: Vec<PathBuf> =
            fs::read_dir(&pdir).map_err(|e| fsx::msg(&pdir, &e))?.flatten().map(|e| e.path()).collect();
        sessions.sort();
        for sdir in sessions {
            let name = sdir.file_name().unwrap_or_default().to_string_lossy().into_owned();
            if !sdir.is_dir() || layout::unescape_id(&name).is_none() {
                return Err(format!("{}: not a session folder this archive writes", sdir.display()));
            }
            let path = sdir.join(TRANSCRIPT);
            let Ok(meta) = fs::metadata(&path) else {
                continue; // a first publish that never happened: nothing committed
            };
            let header = store::read_header(&path, store::Encoding::Zstd)?;
            let (key, gen) = layout::parse_header(&mut parser, &header).ok_or_else(|| {
                format!("{}: not an archived transcript (its header is not an archive's)", path.display())
            })?;
            if key.store_path(root, gen) != path {
                return Err(format!("{}: header places this transcript elsewhere in the archive", path.display()));
            }
            out.push(Stored { key, gen, path, generations: 0, store_len: meta.len() });
        }
    }
    Ok(out)
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
            s.generations = counts[&s.key];
            s
        })
        .collect()
}

/// Where decoded transcript bytes go.
pub trait Sink {
    fn put(&mut self, bytes: &[u8]) -> Result<(), String>;
    /// Drops everything after the first `len` bytes.
    fn cut(&mut self, len: u64) -> Result<(), String>;
}

/// Counts bytes only (recovery needs lengths, not contents).
#[derive(Default)]
pub struct Count(pub u64);

impl Sink for Count {
    fn put(&mut self, bytes: &[u8]) -> Result<(), String> {
        self.0 += bytes.len() as u64;
        Ok(())
    }
    fn cut(&mut self, len: u64) -> Result<(), String> {
        self.0 = len;
        Ok(())
    }
}

/// Writes to a file (a temp file the caller publishes).
pub struct FileSink<'a> {
    pub file: &'a mut fs::File,
    pub path: &'a Path,
    pub len: u64,
    buf: Vec<u8>,
}

impl<'a> FileSink<'a> {
    pub fn new(file: &'a mut fs::File, path: &'a Path) -> Self {
        FileSink { file, path, len: 0, buf: Vec::with_capacity(1 << 20) }
    }
    pub fn flush(&mut self) -> Result<(), String> {
        self.file.write_all(&self.buf).map_err(|e| fsx::msg(self.path, &e))?;
        self.buf.clear();
        Ok(())
    }
}

impl Sink for FileSink<'_> {
    fn put(&mut self, bytes: &[u8]) -> Result<(), String> {
        self.buf.extend_from_slice(bytes);
        self.len += bytes.len() as u64;
        if self.buf.len() >= 1 << 20 {
            self.flush()?;
        }
        Ok(())
    }
    fn cut(&mut self, len: u64) -> Result<(), String> {
        self.flush()?;
        let io = |e: std::io::Error| fsx::msg(self.path, &e);
        self.file.set_len(len).map_err(io)?;
        self.file.seek(SeekFrom::Start(len)).map_err(io)?;
        self.len = len;
        Ok(())
    }
}

/// What a decode found.
#[derive(Clone, Debug, Default)]
pub struct Decoded {
    /// The last mark: the committed bytes' length, SHA-256 and the source's mtime.
    pub mark: Option<Mark>,
    /// Decoded bytes in all (more than the mark's size when a run did not finish).
    pub len: u64,
    /// The file ends inside a frame (a write cut short).
    pub torn_at: Option<u64>,
    pub events: u64,
}

/// Frames decoded at once (up to 8 MB of text each): enough to keep every core busy, few enough
/// to bound memory.
const FRAMES_AT_ONCE: usize = 8;

/// Decodes one generation's file into `sink`, checking every mark's size and SHA-256 (each
/// mark's hash is of all bytes before it). Bytes after the last mark are written too; the
/// caller cuts them (`Decoded::mark`). Errors name the file.
pub fn decode(path: &Path, sink: &mut dyn Sink, verify: bool) -> Result<Decoded, String> {
    let name = path.display();
    let bytes = fs::read(path).map_err(|e| fsx::msg(path, &e))?;
    let (spans, torn) = store::frame_spans(&bytes).map_err(|e| format!("{name}: {e}"))?;
    let mut out = Decoded { torn_at: torn.map(|t| t as u64), ..Decoded::default() };
    let mut hasher = Sha256::new();
    let mut at_mark = hasher.clone();
    let mut seq = 0u64;
    for batch in spans[1..].chunks(FRAMES_AT_ONCE) {
        let texts: Vec<Result<Vec<u8>, String>> =
            batch.par_iter().map(|&(at, len)| store::decode_frame(&bytes[at..at + len], at)).collect();
        for text in texts {
            let text = text.map_err(|e| format!("{name}: {e}"))?;
            for line in text.split(|&b| b == b'\n') {
                if line.is_empty() {
                    continue;
                }
                match events::decode(line, seq).map_err(|e| format!("{name}: {e}"))? {
                    Event::Line(raw) => {
                        if verify {
                            hasher.update(raw);
                            hasher.update(b"\n");
                        }
                        sink.put(raw)?;
                        sink.put(b"\n")?;
                        out.len += raw.len() as u64 + 1;
                    }
                    Event::Bytes(b) => {
                        if verify {
                            hasher.update(&b);
                        }
                        sink.put(&b)?;
                        out.len += b.len() as u64;
                    }
                    Event::Mark(m) => {
                        if m.size != out.len {
                            return Err(format!(
                                "{name}: corrupt archive: a mark records {} bytes where {} were stored",
                                m.size, out.len
                            ));
                        }
                        if verify {
                            let got = crate::hash::hex(&hasher.clone().finalize());
                            if got != m.sha256 {
                                return Err(format!(
                                    "{name}: corrupt archive: the first {} bytes do not match their recorded SHA-256",
                                    m.size
                                ));
                            }
                            at_mark = hasher.clone();
                        }
                        out.mark = Some(m);
                    }
                    Event::Cut(n) => {
                        if Some(n) != out.mark.as_ref().map(|m| m.size) {
                            return Err(format!("{name}: corrupt archive: a cut to {n} bytes is not at the last mark"));
                        }
                        hasher = at_mark.clone();
                        sink.cut(n)?;
                        out.len = n;
                    }
                }
                seq += 1;
            }
        }
    }
    out.events = seq;
    if out.mark.is_none() {
        return Err(format!("{name}: corrupt archive: no run of this transcript completed (no mark)"));
    }
    Ok(out)
}

/// Decodes one generation into a new file at `target`'s folder (a temp file), cut to the last
/// mark; returns the temp file's path and the mark. The caller makes it durable (or not: a
/// cache) and publishes it.
pub fn decode_to_temp(store_path: &Path, target: &Path) -> Result<(PathBuf, Mark), String> {
    let dir = target.parent().unwrap_or(Path::new("."));
    fsx::make_dirs_with(dir, false)?;
    let (tmp, mut file) = fsx::temp_beside(target)?;
    let r = (|| {
        let mut sink = FileSink::new(&mut file, &tmp);
        let d = decode(store_path, &mut sink, true)?;
        sink.flush()?;
        let mark = d.mark.expect("decode returns a mark");
        let io = |e: std::io::Error| fsx::msg(&tmp, &e);
        if d.len != mark.size {
            file.set_len(mark.size).map_err(io)?;
        }
        Ok(mark)
    })();
    match r {
        Ok(m) => Ok((tmp, m)),
        Err(e) => {
            let _ = fs::remove_file(&tmp);
            Err(e)
        }
    }
}
