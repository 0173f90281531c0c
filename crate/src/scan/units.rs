//! Parallel scanning: files are cut into units of whole lines, balanced by size, and scanned on
//! rayon's pool; one big transcript is split across cores the same way as an estate.

use super::{scan_chunk, Mode, Parser, Scan};
use rayon::prelude::*;
use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

/// Bytes per unit of work. Large enough that per-unit overhead vanishes, small enough that
/// two cores stay busy on one 50 MB file and memory stays bounded on a 1 GB one.
pub const UNIT_BYTES: u64 = 4 << 20;

/// Shared counters the JS side polls while a scan runs.
#[derive(Debug, Default)]
pub struct Progress {
    pub bytes_done: AtomicU64,
    pub bytes_total: AtomicU64,
    pub files_done: AtomicU64,
    pub files_total: AtomicU64,
}

#[cfg(unix)]
fn read_at(f: &File, buf: &mut [u8], at: u64) -> io::Result<usize> {
    std::os::unix::fs::FileExt::read_at(f, buf, at)
}
#[cfg(windows)]
fn read_at(f: &File, buf: &mut [u8], at: u64) -> io::Result<usize> {
    std::os::windows::fs::FileExt::seek_read(f, buf, at)
}

/// Appends bytes `[from, to)` of the file to `buf` (fewer if the file is shorter now).
fn read_range(f: &File, from: u64, to: u64, buf: &mut Vec<u8>) -> io::Result<()> {
    let old = buf.len();
    buf.resize(old + (to - from) as usize, 0);
    let mut got = 0usize;
    while old + got < buf.len() {
        let n = read_at(f, &mut buf[old + got..], from + got as u64)?;
        if n == 0 {
            break;
        }
        got += n;
    }
    buf.truncate(old + got);
    Ok(())
}

/// Reads the lines owned by unit `[start, end)`: those that begin inside it. Returns the file
/// offset of `buf[0]` and whether the unit owns any line at all.
fn read_unit(f: &File, start: u64, end: u64, len: u64, buf: &mut Vec<u8>) -> io::Result<Option<u64>> {
    buf.clear();
    let mut base = start;
    if start > 0 {
        // One byte back: a newline there means a line begins exactly at `start`.
        read_range(f, start - 1, end, buf)?;
        match memchr::memchr(b'\n', buf) {
            Some(p) => {
                buf.drain(..=p);
                base = start + p as u64;
            }
            None => return Ok(None),
        }
    } else {
        read_range(f, 0, end, buf)?;
    }
    // Finish the line that crosses `end`.
    let mut at = end;
    while at < len && buf.last() != Some(&b'\n') {
        let step = (64u64 << 10).max(at / 64).min(len - at);
        let before = buf.len();
        read_range(f, at, at + step, buf)?;
        if buf.len() == before {
            break;
        }
        if let Some(p) = memchr::memchr(b'\n', &buf[before..]) {
            buf.truncate(before + p + 1);
            break;
        }
        at += step;
    }
    Ok(Some(base))
}

struct Unit {
    file: usize,
    index: usize,
    start: u64,
    end: u64,
}

/// Scans many files in parallel. Results are in input order; a file that cannot be read
/// yields its I/O error. Files are never written.
pub fn scan_paths(paths: &[PathBuf], mode: Mode, progress: &Progress) -> Vec<io::Result<Scan>> {
    let mut sizes = Vec::with_capacity(paths.len());
    let mut errors: Vec<Option<io::Error>> = Vec::with_capacity(paths.len());
    for p in paths {
        match std::fs::metadata(p) {
            Ok(m) if m.is_dir() => {
                sizes.push(0);
                errors.push(Some(io::Error::new(io::ErrorKind::InvalidInput, "is a directory")));
            }
            Ok(m) => {
                sizes.push(m.len());
                errors.push(None);
            }
            Err(e) => {
                sizes.push(0);
                errors.push(Some(e));
            }
        }
    }
    let mut units = Vec::new();
    for (file, &len) in sizes.iter().enumerate() {
        if errors[file].is_some() {
            continue;
        }
        let n = len.div_ceil(UNIT_BYTES).max(1);
        for index in 0..n {
            let start = index * UNIT_BYTES;
            units.push(Unit { file, index: index as usize, start, end: (start + UNIT_BYTES).min(len) });
        }
    }
    let remaining: Vec<AtomicU32> = sizes.iter().map(|&l| AtomicU32::new(l.div_ceil(UNIT_BYTES).max(1) as u32)).collect();
    progress.bytes_total.store(sizes.iter().sum(), Ordering::Relaxed);
    progress.files_total.store(paths.len() as u64, Ordering::Relaxed);
    progress.files_done.store(errors.iter().filter(|e| e.is_some()).count() as u64, Ordering::Relaxed);
    // Biggest first, so a large file's units do not all land at the end.
    units.sort_by(|a, b| (b.end - b.start).cmp(&(a.end - a.start)).then(a.file.cmp(&b.file)));

    let results: Vec<(usize, usize, io::Result<Scan>)> = units
        .par_iter()
        .map_init(
            || (Parser::default(), Vec::new()),
            |(parser, buf), u| {
                let len = sizes[u.file];
                let r = File::open(&paths[u.file]).and_then(|f| {
                    Ok(match read_unit(&f, u.start, u.end, len, buf)? {
                        Some(base) => {
                            let file_end = base + buf.len() as u64 >= len;
                            scan_chunk(parser, buf, base, u.start == 0, file_end, mode)
                        }
                        None => Scan::default(),
                    })
                });
                progress.bytes_done.fetch_add(u.end - u.start, Ordering::Relaxed);
                if remaining[u.file].fetch_sub(1, Ordering::AcqRel) == 1 {
                    progress.files_done.fetch_add(1, Ordering::Relaxed);
                }
                (u.file, u.index, r)
            },
        )
        .collect();

    let mut per_file: Vec<Vec<(usize, io::Result<Scan>)>> = (0..paths.len()).map(|_| Vec::new()).collect();
    for (file, index, r) in results {
        per_file[file].push((index, r));
    }
    per_file
        .into_iter()
        .zip(errors)
        .map(|(mut parts, err)| {
            if let Some(e) = err {
                return Err(e);
            }
            parts.sort_by_key(|(i, _)| *i);
            let mut whole = Scan::default();
            for (_, part) in parts {
                whole.append(part?);
            }
            Ok(whole)
        })
        .collect()
}

/// Scans one file, split across cores when it is large.
pub fn scan_file(path: &Path, mode: Mode) -> io::Result<Scan> {
    scan_paths(&[path.to_path_buf()], mode, &Progress::default()).pop().expect("one result per path")
}
