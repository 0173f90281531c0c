//! Parallel scanning: files are cut into units of whole lines, balanced by size, and scanned on
//! rayon's pool; one big transcript is split across cores the same way as an estate.

use super::{scan_chunk, Mode, Parser, Scan};
use rayon::prelude::*;
use std::cell::RefCell;
use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// Bytes per unit of work: small enough that the bytes just read are still in L2 cache when
/// they are scanned, and that two cores share even one 50 MB file evenly.
pub const UNIT_BYTES: u64 = 256 << 10;

/// Shared counters the JS side polls while a scan runs.
#[derive(Debug, Default)]
pub struct Progress {
    pub bytes_done: AtomicU64,
    pub bytes_total: AtomicU64,
    pub files_done: AtomicU64,
    pub files_total: AtomicU64,
    /// Set by the caller to stop: units not yet started are skipped, and their files' results
    /// are [`cancelled`] errors.
    pub cancelled: std::sync::atomic::AtomicBool,
}

/// The error of a file whose work was skipped because the caller cancelled.
pub fn cancelled() -> io::Error {
    io::Error::new(io::ErrorKind::Interrupted, "cancelled")
}

use crate::read_at;

/// A read buffer that only ever grows, so refilling it costs no zeroing and no page faults.
/// (pread into it beats mmap here: measured 0.94 against 1.08 CPU-seconds per GB, the page
/// faults of a mapping costing more than the copy.)
#[derive(Default)]
struct ReadBuf {
    bytes: Vec<u8>,
    filled: usize,
    /// Where the unit's first owned line begins in `bytes`.
    begin: usize,
}

impl ReadBuf {
    /// Appends bytes `[from, to)` of the file (fewer if the file is shorter now).
    fn append(&mut self, f: &File, from: u64, to: u64) -> io::Result<()> {
        let want = self.filled + (to - from) as usize;
        if self.bytes.len() < want {
            self.bytes.resize(want.next_power_of_two(), 0);
        }
        let mut at = from;
        while self.filled < want {
            let n = read_at(f, &mut self.bytes[self.filled..want], at)?;
            if n == 0 {
                break;
            }
            self.filled += n;
            at += n as u64;
        }
        Ok(())
    }

    /// Reads the lines owned by unit `[start, end)`: those that begin inside it. Returns the
    /// file offset of the first owned byte, or None when no line begins in the unit.
    fn read_unit(&mut self, f: &File, start: u64, end: u64, len: u64) -> io::Result<Option<u64>> {
        self.filled = 0;
        self.begin = 0;
        let mut base = start;
        if start > 0 {
            // One byte back: a newline there means a line begins exactly at `start`.
            self.append(f, start - 1, end)?;
            match memchr::memchr(b'\n', &self.bytes[..self.filled]) {
                Some(p) => {
                    self.begin = p + 1;
                    base = start + p as u64;
                }
                None => return Ok(None),
            }
        } else {
            self.append(f, 0, end)?;
        }
        // Finish the line that crosses `end`.
        // Lines are short on average and rarely up to tens of MB: start small, then double.
        let mut at = end;
        let mut step = 64u64 << 10;
        while at < len && self.filled > self.begin && self.bytes[self.filled - 1] != b'\n' {
            step = step.min(len - at);
            let before = self.filled;
            self.append(f, at, at + step)?;
            if self.filled == before {
                break;
            }
            if let Some(p) = memchr::memchr(b'\n', &self.bytes[before..self.filled]) {
                self.filled = before + p + 1;
                break;
            }
            at += step;
            step *= 2;
        }
        Ok(Some(base))
    }

    /// Gives back memory after an unusually long line, so an idle pool does not keep it.
    fn trim(&mut self) {
        if self.bytes.len() > 4 * UNIT_BYTES as usize {
            *self = ReadBuf::default();
        }
    }
}

/// Opens a file a unit of work reads. Non-blocking: a file that was a regular one when listed and
/// is a FIFO by now is read as empty instead of waiting for a writer (reads of a regular file
/// never block anyway).
fn open_unit(path: &Path) -> io::Result<File> {
    let mut o = std::fs::OpenOptions::new();
    o.read(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::custom_flags(&mut o, libc::O_NONBLOCK);
    o.open(path)
}

/// Reads bytes `[from, to)` of a file into a fresh vector (fewer if the file is shorter now).
pub fn read_span(f: &File, from: u64, to: u64) -> io::Result<Vec<u8>> {
    let mut buf = ReadBuf::default();
    buf.append(f, from, to)?;
    buf.bytes.truncate(buf.filled);
    Ok(buf.bytes)
}

thread_local! {
    /// Each worker's read buffer, reused across units and across runs.
    static READ: RefCell<ReadBuf> = RefCell::new(ReadBuf::default());
}

/// Bytes `[from, size)` of one file to process: from 0 for a whole file, or from where an
/// earlier pass stopped (a line start) for the part appended since.
pub struct Job<'a> {
    pub path: &'a Path,
    pub from: u64,
    pub size: u64,
    /// The job's last unit is never shorter than a whole unit: a short one joins the unit before
    /// it, so the file's last [`UNIT_BYTES`] lie in one unit (and a file of up to twice that is
    /// one unit), for a pass that reads a window at the end of each file.
    pub last_unit_full: bool,
}

impl<'a> Job<'a> {
    /// Bytes `[from, size)` of the file at `path`, in units of [`UNIT_BYTES`].
    pub fn new(path: &'a Path, from: u64, size: u64) -> Job<'a> {
        Job { path, from, size, last_unit_full: false }
    }

    fn units(&self) -> u64 {
        let bytes = self.size.saturating_sub(self.from);
        let n = bytes.div_ceil(UNIT_BYTES).max(1);
        match self.last_unit_full && n > 1 && !bytes.is_multiple_of(UNIT_BYTES) {
            true => n - 1,
            false => n,
        }
    }
}

/// Where a unit's lines lie in their file.
pub struct UnitPlace {
    /// File offset of the first owned byte.
    pub base: u64,
    /// The unit begins its file (a BOM may follow) / ends it (a last line may lack its newline).
    pub file_start: bool,
    pub file_end: bool,
}

struct Unit {
    file: usize,
    index: usize,
    start: u64,
    end: u64,
}

/// The one parallel engine under every estate-wide pass (scan, search): each job is cut into
/// units of whole lines, all units run on rayon's pool biggest first, `per_unit` sees each
/// unit's bytes (None when no line begins in it), and `join` gets a job's unit results in file
/// order as soon as its last unit is done, so unit results are freed as the pass goes.
/// Results are in job order; an I/O error fails only its job.
pub fn run<T: Send, R: Send>(
    jobs: &[Job],
    progress: &Progress,
    per_unit: impl Fn(usize, Option<(&[u8], UnitPlace)>) -> T + Sync,
    join: impl Fn(usize, Vec<T>) -> io::Result<R> + Sync,
) -> Vec<io::Result<R>> {
    run_reads(jobs, progress, |file, unit| per_unit(file, unit.map(|(read, place)| (read.owned(), place))), join)
}

/// A unit's bytes as read: its lines, after the bytes of the file before them that the read
/// holds too (the end of the line the unit's start cut, which the unit before owns).
pub struct UnitRead<'a> {
    pub bytes: &'a [u8],
    /// Where the unit's lines begin in `bytes`.
    pub owned_from: usize,
}

impl<'a> UnitRead<'a> {
    pub fn owned(&self) -> &'a [u8] {
        &self.bytes[self.owned_from..]
    }
}

/// [`run`], with each unit's whole read.
fn run_reads<T: Send, R: Send>(
    jobs: &[Job],
    progress: &Progress,
    per_unit: impl Fn(usize, Option<(UnitRead, UnitPlace)>) -> T + Sync,
    join: impl Fn(usize, Vec<T>) -> io::Result<R> + Sync,
) -> Vec<io::Result<R>> {
    let mut units = Vec::new();
    for (file, j) in jobs.iter().enumerate() {
        let n = j.units();
        for index in 0..n {
            let start = j.from + index * UNIT_BYTES;
            let end = if index + 1 == n { j.size } else { start + UNIT_BYTES };
            units.push(Unit { file, index: index as usize, start, end });
        }
    }
    progress.bytes_total.fetch_add(jobs.iter().map(|j| j.size.saturating_sub(j.from)).sum(), Ordering::Relaxed);
    progress.files_total.fetch_add(jobs.len() as u64, Ordering::Relaxed);
    let remaining: Vec<AtomicU32> = jobs.iter().map(|j| AtomicU32::new(j.units() as u32)).collect();
    // Biggest file first, so a large file's units do not all land at the end; a file's units
    // side by side, so its file is opened once for all of them (below) and only the files
    // being read are open at a time.
    let bytes_of = |file: usize| jobs[file].size.saturating_sub(jobs[file].from);
    units.sort_by(|a, b| bytes_of(b.file).cmp(&bytes_of(a.file)).then(a.file.cmp(&b.file)).then(a.index.cmp(&b.index)));
    // Each file's open handle while its units are read (pread needs no position of its own).
    let open: Vec<Mutex<Option<Arc<File>>>> = jobs.iter().map(|_| Mutex::default()).collect();
    let file_of = |u: &Unit| -> io::Result<Arc<File>> {
        let mut slot = open[u.file].lock().unwrap_or_else(|e| e.into_inner());
        if let Some(f) = &*slot {
            return Ok(f.clone());
        }
        let f = Arc::new(open_unit(jobs[u.file].path)?);
        *slot = Some(f.clone());
        Ok(f)
    };

    type Parts<T> = Vec<(usize, io::Result<T>)>;
    let parts: Vec<Mutex<Parts<T>>> = jobs.iter().map(|_| Mutex::default()).collect();
    let whole: Vec<Mutex<Option<io::Result<R>>>> = jobs.iter().map(|_| Mutex::default()).collect();
    units.par_iter().for_each(|u| {
        let job = &jobs[u.file];
        let r = if progress.cancelled.load(Ordering::Relaxed) {
            Err(cancelled())
        } else {
            READ.with(|cell| {
                let buf = &mut *cell.borrow_mut();
                let r = file_of(u).and_then(|f| {
                    Ok(match buf.read_unit(&f, u.start, u.end, job.size)? {
                        Some(base) => {
                            let read = UnitRead { bytes: &buf.bytes[..buf.filled], owned_from: buf.begin };
                            let place = UnitPlace {
                                base,
                                file_start: u.start == 0,
                                file_end: base + read.owned().len() as u64 >= job.size,
                            };
                            per_unit(u.file, Some((read, place)))
                        }
                        None => per_unit(u.file, None),
                    })
                });
                buf.trim();
                r
            })
        };
        progress.bytes_done.fetch_add(u.end - u.start, Ordering::Relaxed);
        let mut mine = parts[u.file].lock().unwrap_or_else(|e| e.into_inner());
        mine.push((u.index, r));
        if remaining[u.file].fetch_sub(1, Ordering::AcqRel) == 1 {
            let mut done = std::mem::take(&mut *mine);
            drop(mine);
            // (the file's last unit: its handle is closed)
            drop(open[u.file].lock().unwrap_or_else(|e| e.into_inner()).take());
            done.sort_by_key(|(i, _)| *i);
            let joined = done.into_iter().map(|(_, p)| p).collect::<io::Result<Vec<T>>>().and_then(|p| join(u.file, p));
            *whole[u.file].lock().unwrap_or_else(|e| e.into_inner()) = Some(joined);
            progress.files_done.fetch_add(1, Ordering::Relaxed);
        }
    });
    whole
        .into_iter()
        .map(|w| w.into_inner().unwrap_or_else(|e| e.into_inner()).expect("every unit of every job ran"))
        .collect()
}

/// The unit `[start, end)` of a file held in memory, as `run` reads it from the file: the lines
/// that begin in it (the last one finished past `end`), and the offset of the first; None when
/// no line begins in it.
pub fn unit_in(bytes: &[u8], start: u64, end: u64) -> Option<(&[u8], u64)> {
    let (len, start, end) = (bytes.len(), start as usize, (end as usize).min(bytes.len()));
    let begin = match start {
        0 => 0,
        _ => start + memchr::memchr(b'\n', &bytes[start - 1..end])?,
    };
    let mut stop = end;
    if stop < len && stop > begin && bytes[stop - 1] != b'\n' {
        stop = memchr::memchr(b'\n', &bytes[stop..]).map_or(len, |p| stop + p + 1);
    }
    Some((&bytes[begin..stop], begin as u64))
}

/// `run` over files that are not on disk (transcripts decoded from an archive): each group of
/// jobs (the files of one session's stream) has its bytes got at once by `bytes_of` on the
/// worker that takes it (groups in parallel, largest first), and each job's bytes are cut into
/// the units `run` would read from the file, so `per_unit` sees what it would of the file;
/// `join` gets the parts and the bytes. Memory is one group's bytes per worker, whatever the
/// number of jobs. Results are in job order.
pub fn run_in_memory<T: Send, R: Send>(
    groups: &[Vec<usize>],
    sizes: &[u64],
    progress: &Progress,
    bytes_of: impl Fn(&[usize]) -> io::Result<Vec<Vec<u8>>> + Sync,
    per_unit: impl Fn(usize, Option<(&[u8], UnitPlace)>) -> T + Sync,
    join: impl Fn(usize, Vec<T>, &[u8]) -> io::Result<R> + Sync,
) -> Vec<io::Result<R>> {
    progress.bytes_total.fetch_add(sizes.iter().sum(), Ordering::Relaxed);
    progress.files_total.fetch_add(sizes.len() as u64, Ordering::Relaxed);
    let mut order: Vec<&Vec<usize>> = groups.iter().collect();
    order.sort_by_key(|g| std::cmp::Reverse(g.iter().map(|&i| sizes[i]).sum::<u64>()));
    let one = |i: usize, b: &[u8]| {
        let len = b.len() as u64;
        let parts = (0..len.div_ceil(UNIT_BYTES).max(1))
            .map(|k| {
                let start = k * UNIT_BYTES;
                match unit_in(b, start, (start + UNIT_BYTES).min(len)) {
                    Some((owned, base)) => {
                        let file_end = base + owned.len() as u64 >= len;
                        per_unit(i, Some((owned, UnitPlace { base, file_start: start == 0, file_end })))
                    }
                    None => per_unit(i, None),
                }
            })
            .collect();
        join(i, parts, b)
    };
    let mut done: Vec<(usize, io::Result<R>)> = order
        .par_iter()
        .with_max_len(1)
        .flat_map_iter(|g| {
            let got = match progress.cancelled.load(Ordering::Relaxed) {
                true => Err(cancelled()),
                false => bytes_of(g),
            };
            let rs: Vec<(usize, io::Result<R>)> = match got {
                Ok(all) => g.iter().zip(all).map(|(&i, b)| (i, one(i, &b))).collect(),
                Err(e) => g.iter().map(|&i| (i, Err(io::Error::new(e.kind(), e.to_string())))).collect(),
            };
            progress.bytes_done.fetch_add(g.iter().map(|&i| sizes[i]).sum(), Ordering::Relaxed);
            progress.files_done.fetch_add(g.len() as u64, Ordering::Relaxed);
            rs
        })
        .collect();
    done.sort_by_key(|(i, _)| *i);
    done.into_iter().map(|(_, r)| r).collect()
}

thread_local! {
    /// Per-worker parse state of the scanner, reused across units and across scans.
    static PARSER: RefCell<Parser> = RefCell::new(Parser::default());
}

/// Scans many files in parallel. Results are in input order; a file that cannot be read
/// yields its I/O error. Files are never written.
pub fn scan_paths(paths: &[PathBuf], mode: Mode, progress: &Progress) -> Vec<io::Result<Scan>> {
    let mut errors: Vec<Option<io::Error>> = Vec::with_capacity(paths.len());
    let mut jobs = Vec::with_capacity(paths.len());
    for p in paths {
        match std::fs::metadata(p) {
            Ok(m) if m.is_dir() => errors.push(Some(io::Error::new(io::ErrorKind::InvalidInput, "is a directory"))),
            Ok(m) if crate::special_file(&m).is_some() => {
                errors.push(Some(io::Error::new(io::ErrorKind::InvalidInput, crate::special_file(&m).unwrap())))
            }
            Ok(m) => {
                errors.push(None);
                jobs.push(Job::new(p, 0, m.len()));
            }
            Err(e) => errors.push(Some(e)),
        }
    }
    progress.files_total.fetch_add(errors.iter().filter(|e| e.is_some()).count() as u64, Ordering::Relaxed);
    progress.files_done.fetch_add(errors.iter().filter(|e| e.is_some()).count() as u64, Ordering::Relaxed);
    let mut scanned = scan_jobs(&jobs, mode, progress).into_iter();
    errors
        .into_iter()
        .map(|e| match e {
            Some(e) => Err(e),
            None => scanned.next().expect("one result per readable file"),
        })
        .collect()
}

/// [`scan_paths`] of regular files whose sizes are known (a walk that listed them has just
/// stat'ed each): each is read up to that size, with no second stat of every file before the
/// parallel work can start.
pub fn scan_sized(files: &[(&Path, u64)], mode: Mode, progress: &Progress) -> Vec<io::Result<Scan>> {
    let jobs: Vec<Job> = files.iter().map(|&(path, size)| Job::new(path, 0, size)).collect();
    scan_jobs(&jobs, mode, progress)
}

fn scan_jobs(jobs: &[Job], mode: Mode, progress: &Progress) -> Vec<io::Result<Scan>> {
    run(jobs, progress, |_, unit| scan_unit(unit, mode), |_, parts| Ok(Scan::concat(parts)))
}

fn scan_unit(unit: Option<(&[u8], UnitPlace)>, mode: Mode) -> Scan {
    match unit {
        Some((owned, at)) => PARSER.with(|cell| {
            let parser = &mut *cell.borrow_mut();
            let s = scan_chunk(parser, owned, at.base, at.file_start, at.file_end, mode);
            parser.trim();
            s
        }),
        None => Scan::default(),
    }
}

/// [`scan_sized`] where a pass that wants more of some files than their scan sees their bytes
/// while they are in memory, instead of reading them again: `also(file, read, place)` is called
/// with each unit's read beside its scan, and `finish(file, parts)` gets its results in file
/// order (none for a unit in which no line begins: a file's first unit always gives one).
/// `last_unit_full[i]` plans file `i`'s units as [`Job::last_unit_full`] says.
pub fn scan_sized_with<A: Send, B: Send>(
    files: &[(&Path, u64)],
    last_unit_full: &[bool],
    mode: Mode,
    progress: &Progress,
    also: impl Fn(usize, &UnitRead, &UnitPlace) -> A + Sync,
    finish: impl Fn(usize, Vec<A>) -> B + Sync,
) -> Vec<io::Result<(Scan, B)>> {
    let jobs: Vec<Job> = files
        .iter()
        .zip(last_unit_full)
        .map(|(&(path, size), &full)| Job { last_unit_full: full, ..Job::new(path, 0, size) })
        .collect();
    run_reads(
        &jobs,
        progress,
        |file, unit| {
            let more = unit.as_ref().map(|(read, place)| also(file, read, place));
            (scan_unit(unit.map(|(read, place)| (read.owned(), place)), mode), more)
        },
        |file, parts| {
            let (scans, more): (Vec<Scan>, Vec<Option<A>>) = parts.into_iter().unzip();
            Ok((Scan::concat(scans), finish(file, more.into_iter().flatten().collect())))
        },
    )
}

/// Scans one buffer held in memory, cut after a newline about every [`UNIT_BYTES`] and scanned
/// on rayon's pool: the same index as `scan_bytes`, in a fraction of the time on a large file.
pub fn scan_bytes_parallel(buf: &[u8], mode: Mode) -> Scan {
    let unit = UNIT_BYTES as usize;
    let mut cuts = vec![0usize];
    let mut at = unit;
    while at < buf.len() {
        match memchr::memchr(b'\n', &buf[at..]) {
            Some(k) if at + k + 1 < buf.len() => {
                cuts.push(at + k + 1);
                at += k + 1 + unit;
            }
            _ => break,
        }
    }
    cuts.push(buf.len());
    let last = cuts.len() - 2;
    let parts: Vec<Scan> = cuts
        .par_windows(2)
        .enumerate()
        .map(|(k, w)| {
            PARSER.with(|cell| {
                let parser = &mut *cell.borrow_mut();
                let s = scan_chunk(parser, &buf[w[0]..w[1]], w[0] as u64, k == 0, k == last, mode);
                parser.trim();
                s
            })
        })
        .collect();
    Scan::concat(parts)
}

/// Scans one file, split across cores when it is large.
pub fn scan_file(path: &Path, mode: Mode) -> io::Result<Scan> {
    scan_paths(&[path.to_path_buf()], mode, &Progress::default()).pop().expect("one result per path")
}
