//! A source transcript's bytes during one archive run. A file of [`MAP_MIN`] to [`MAP_LIMIT`] is
//! mapped read-only from the page cache, so hashing and compressing read the cache's pages in
//! place: no copy into a buffer and no fresh buffer to fault in (together about a tenth of a cold
//! archive's CPU). Smaller and larger files, platforms without the mapping and
//! `CLAUDE_JSONL_NO_MMAP=1` read window by window instead.
//!
//! If another program truncates a mapped file, the pages past its new end read as zeros (the
//! SIGBUS guard of [`crate::mapped`]); [`Source::finish`] reports that as a changed file, so
//! nothing read from a damaged mapping is committed.

use crate::failure::{Code, Failure};
use crate::mapped::MappedFile;
use std::fs::File;
use std::path::Path;
use std::sync::OnceLock;

/// Files up to this size are mapped whole (their pages stay mapped while the file is archived,
/// so this bounds what each worker holds).
pub const MAP_LIMIT: u64 = 64 << 20;

/// Files smaller than this are read: unmapping a file stops the process's other threads to flush
/// their TLBs (on a virtual machine, an interrupt that exits to the hypervisor), which for a small
/// file costs more than copying it.
pub const MAP_MIN: u64 = 256 << 10;

fn mapping_allowed() -> bool {
    static ALLOWED: OnceLock<bool> = OnceLock::new();
    *ALLOWED.get_or_init(|| std::env::var_os("CLAUDE_JSONL_NO_MMAP").is_none())
}

pub struct Source<'a> {
    file: &'a File,
    path: &'a Path,
    map: Option<MappedFile>,
    /// Read mode: bytes `[buf_at, buf_at + buf.len())` of the file.
    buf: Vec<u8>,
    buf_at: u64,
}

impl<'a> Source<'a> {
    /// The file as it is `size` bytes long (the length the caller's metadata gave).
    pub fn open(file: &'a File, path: &'a Path, size: u64) -> Result<Source<'a>, Failure> {
        Source::open_with(file, path, size, mapping_allowed() && size >= MAP_MIN)
    }

    pub fn open_with(file: &'a File, path: &'a Path, size: u64, map: bool) -> Result<Source<'a>, Failure> {
        let map = match map && size > 0 && size <= MAP_LIMIT {
            true => MappedFile::open(file).ok().flatten(),
            false => None,
        };
        if map.as_ref().is_some_and(|m| (m.len() as u64) < size) {
            return Err(shorter(path));
        }
        Ok(Source { file, path, map, buf: Vec::new(), buf_at: 0 })
    }

    pub fn is_mapped(&self) -> bool {
        self.map.is_some()
    }

    /// Bytes `[from, to)` of a mapped source, without `&mut` (so several can be held at once).
    /// Panics on a source that is read, not mapped.
    pub fn mapped(&self, from: u64, to: u64) -> &[u8] {
        &self.map.as_ref().expect("a mapped source").bytes()[from as usize..to as usize]
    }

    /// Bytes `[from, to)`. In read mode, asking again from the same start for more reads only
    /// the rest (a line longer than a window grows the window without reading it twice).
    pub fn range(&mut self, from: u64, to: u64) -> Result<&[u8], Failure> {
        if let Some(m) = &self.map {
            return Ok(&m.bytes()[from as usize..to as usize]);
        }
        if from != self.buf_at {
            self.buf.clear();
            self.buf_at = from;
        }
        let held = self.buf_at + self.buf.len() as u64;
        if held < to {
            read_append(self.file, self.path, &mut self.buf, held, to)?;
        }
        Ok(&self.buf[..(to - from) as usize])
    }

    /// Bytes `[from, to)` of a source that is read, not mapped, as a vector of their own: the
    /// window read for them, handed over rather than copied.
    pub fn take_range(&mut self, from: u64, to: u64) -> Result<Vec<u8>, Failure> {
        self.range(from, to)?;
        let mut bytes = std::mem::take(&mut self.buf);
        bytes.truncate((to - from) as usize);
        self.buf_at = 0;
        Ok(bytes)
    }

    /// Err when what was read may not be the file's bytes: it was truncated under the mapping.
    pub fn finish(&self) -> Result<(), Failure> {
        match &self.map {
            Some(m) if !m.intact() => Err(shorter(self.path)),
            _ => Ok(()),
        }
    }
}

fn shorter(path: &Path) -> Failure {
    Failure::at(Code::Changed, path, "changed while being archived (got shorter); run again")
}

use crate::read_at;

/// Appends exactly bytes `[from, to)` to `buf`; a file that got shorter is an error.
fn read_append(f: &File, src: &Path, buf: &mut Vec<u8>, from: u64, to: u64) -> Result<(), Failure> {
    let start = buf.len();
    buf.resize(start + (to - from) as usize, 0);
    let mut got = start;
    while got < buf.len() {
        let n = read_at(f, &mut buf[got..], from + (got - start) as u64).map_err(|e| Failure::io(src, &e))?;
        if n == 0 {
            buf.truncate(start);
            return Err(shorter(src));
        }
        got += n;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn file(name: &str, bytes: &[u8]) -> (std::path::PathBuf, File) {
        let dir = std::env::temp_dir().join(format!("cj-source-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("s.jsonl");
        File::create(&p).unwrap().write_all(bytes).unwrap();
        let f = File::open(&p).unwrap();
        (p, f)
    }

    #[test]
    fn both_modes_give_the_same_ranges() {
        let bytes: Vec<u8> = (0..100_000u32).map(|i| (i % 251) as u8).collect();
        let (p, f) = file("ranges", &bytes);
        for map in [true, false] {
            let mut s = Source::open_with(&f, &p, bytes.len() as u64, map).unwrap();
            assert_eq!(s.is_mapped(), map && cfg!(target_os = "linux"));
            for (a, b) in [(0, 10), (0, 5000), (0, 70_000), (0, 100_000), (5, 6), (70_000, 99_999), (0, 3)] {
                assert_eq!(s.range(a, b).unwrap(), &bytes[a as usize..b as usize], "{map} {a}..{b}");
            }
            s.finish().unwrap();
        }
    }

    #[test]
    fn a_range_taken_from_a_read_source_is_its_bytes_and_leaves_the_source_reading() {
        let bytes: Vec<u8> = (0..50_000u32).map(|i| (i % 241) as u8).collect();
        let (p, f) = file("take", &bytes);
        let mut s = Source::open_with(&f, &p, bytes.len() as u64, false).unwrap();
        assert_eq!(s.range(0, 100).unwrap(), &bytes[..100]);
        assert_eq!(s.take_range(0, 30_000).unwrap(), &bytes[..30_000]);
        for (a, b) in [(0, 10), (20_000, 50_000), (0, 50_000)] {
            assert_eq!(s.range(a, b).unwrap(), &bytes[a as usize..b as usize], "{a}..{b}");
        }
        assert_eq!(s.take_range(40_000, 50_000).unwrap(), &bytes[40_000..]);
        assert_eq!(s.range(0, 5).unwrap(), &bytes[..5]);
    }

    #[test]
    fn a_file_shorter_than_its_size_is_refused() {
        let (p, f) = file("short", b"{}\n");
        for map in [true, false] {
            let r = Source::open_with(&f, &p, 10, map).and_then(|mut s| s.range(0, 10).map(|_| ()));
            assert!(r.unwrap_err().message.contains("changed while being archived"), "{map}");
        }
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_truncated_mapping_is_reported_by_finish() {
        let bytes = vec![b'x'; 3 * 4096 + 17];
        let (p, f) = file("trunc", &bytes);
        let mut s = Source::open_with(&f, &p, bytes.len() as u64, true).unwrap();
        assert!(s.is_mapped());
        s.finish().unwrap();
        File::options().write(true).open(&p).unwrap().set_len(100).unwrap();
        let tail = s.range(2 * 4096, bytes.len() as u64).unwrap().to_vec();
        assert!(tail.iter().all(|&b| b == 0), "the lost pages read as zeros");
        assert!(s.finish().unwrap_err().message.contains("changed while being archived"));
    }
}
