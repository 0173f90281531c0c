//! An archive run in format 2 (`stream`): the estate's files grouped into one stream per
//! session, and each stream that changed gets one new segment holding every change of the run
//! (new files, appended bytes, rewritten files as their next generation, new mtimes).
//!
//! Per file, the unchanged test is format 1's (size, mtime and inode since the last run, from
//! the index, without reading). A stream with a changed file is read back first: its
//! directories give each file's stored state (the store is the record, the index only a cache)
//! and every frame is checked before anything is appended. Streams run in parallel, largest
//! first; within one, hashing runs beside compressing, and a segment larger than a frame
//! compresses its frames in parallel.

use super::index::{Entry, Index};
use super::run::{lock_store, looks_changed, open_source, publish, write_at, Opened, Pending, Summary, Work};
use super::source::Source;
use super::stream::{self, FrameLen, Held, Piece, Unit};
use crate::durable;
use crate::failure::{Code, Failure};
use crate::scan::Progress;
use rayon::prelude::*;
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, HashMap};
use std::fs::{self, File};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;

enum Member {
    Unchanged,
    Touched(Entry),
    Appended(Entry, u64),
    Added(Entry, u64),
    Generation(Entry, u64),
    Failed(Failure),
}

struct StreamRun {
    /// Per member (its index in the run's work list), what happened.
    members: Vec<(usize, Member)>,
    /// A new stream file waiting to be linked, or the existing one appended to.
    pending: Option<Pending>,
    appended: Option<PathBuf>,
    stored: u64,
    /// The stream's length after this run, when it was written.
    written_len: Option<u64>,
    /// The stream was found damaged and stored again: what was wrong, where it was set aside.
    healed: Option<String>,
}

/// Why a stream could not be archived: it is damaged (set aside and stored again), or anything
/// else (another writer, an I/O error, a source that changed).
enum StreamError {
    Damaged(Failure),
    Other(Failure),
}

impl StreamError {
    fn into_failure(self) -> Failure {
        match self {
            StreamError::Damaged(e) | StreamError::Other(e) => e,
        }
    }
}

impl From<Failure> for StreamError {
    fn from(e: Failure) -> StreamError {
        StreamError::Other(e)
    }
}

/// What the cheap check of a recorded stream found.
enum Check {
    Fine,
    /// Not the length the index records, or ends inside a segment: read back in full.
    Behind,
    Missing,
    Damaged(Failure),
}

/// Whether a stream the index records (`recorded`: the length the last run left) is still
/// there: a regular file (never a link), of that length, whose directories check. Reads only
/// the directories.
fn check_stream(path: &Path, unit: &Unit, recorded: u64) -> Check {
    let meta = match fs::symlink_metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Check::Missing,
        Err(e) => return Check::Damaged(Failure::io(path, &e)),
    };
    if !meta.file_type().is_file() {
        let why =
            "corrupt archive: not a regular file where the archive keeps a stream (a symbolic link is never followed)";
        return Check::Damaged(Failure::at(Code::Archive, path, why));
    }
    match stream::read_segments(path) {
        Err(e) => Check::Damaged(e),
        Ok((segs, _)) if segs.is_empty() => {
            Check::Damaged(Failure::at(Code::Archive, path, "corrupt archive: no segment of this stream is complete"))
        }
        Ok((segs, _)) if segs[0].unit != *unit => {
            Check::Damaged(Failure::at(Code::Archive, path, "header places this stream elsewhere in the archive"))
        }
        Ok((_, Some(_))) => Check::Behind,
        Ok(_) if meta.len() != recorded => Check::Behind,
        Ok(_) => Check::Fine,
    }
}

/// Moves a damaged stream (or whatever is in its place) aside, byte for byte, as
/// `<stream file>.damaged-<N>` (the first N free), so the session can be stored again at its
/// name. Readers skip such files.
fn set_aside(path: &Path) -> Result<PathBuf, Failure> {
    let name = path.file_name().unwrap_or_default().to_string_lossy().into_owned();
    for n in 1..10_000 {
        let aside = path.with_file_name(format!("{name}{}{n}", super::read::DAMAGED_SUFFIX));
        if fs::symlink_metadata(&aside).is_ok() {
            continue;
        }
        // a hard link never replaces anything; the rename of a link moves the link itself
        return fs::rename(path, &aside).map(|()| aside).map_err(|e| Failure::io(path, &e));
    }
    Err(Failure::at(Code::Archive, path, "too many damaged copies set aside beside it"))
}

/// A changed file of a stream, open, with what the new segment takes from it.
struct Changed<'a> {
    at: usize,
    file: Option<File>,
    size: u64,
    mtime_ns: i128,
    dev: u64,
    ino: u64,
    /// The piece's generation and first byte; the hash of the generation's bytes before it.
    gen: u32,
    from: u64,
    hasher: Sha256,
    kind: Kind,
    work: &'a Work<'a>,
}

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Added,
    Appended,
    Generation,
    /// The same bytes: only a new mtime (or nothing, when that is unchanged too) is recorded.
    Touched,
}

/// Archives the run's files (`work`, checked keys with their index entries) into format-2
/// streams; fills `summary` and `idx`.
pub(super) fn run(
    root: &Path,
    work: &[Work],
    created_at: &str,
    progress: &Progress,
    idx: &mut Index,
    summary: &mut Summary,
) -> Result<(), Failure> {
    let mut by_unit: BTreeMap<Unit, Vec<usize>> = BTreeMap::new();
    for (i, w) in work.iter().enumerate() {
        by_unit.entry(Unit::of(&w.key)).or_default().push(i);
    }
    // temp files a killed run left, once per project folder (streams sit side by side in it)
    let folders: std::collections::BTreeSet<PathBuf> =
        by_unit.keys().filter_map(|u| u.path(root).parent().map(Path::to_path_buf)).collect();
    for f in &folders {
        durable::sweep_temps(f);
    }
    // what the index records of each stream must still be there (cheaply: the stream's length
    // and its directories); one lost, cut back or damaged is stored again from the estate
    let mut force: std::collections::HashSet<Unit> = std::collections::HashSet::new();
    for (unit, members) in &by_unit {
        let recorded = members.iter().filter_map(|&i| work[i].prior.as_ref()).map(|e| e.store_len).max();
        let Some(recorded) = recorded else { continue };
        let path = unit.path(root);
        match check_stream(&path, unit, recorded) {
            Check::Fine => {}
            Check::Behind => {
                force.insert(unit.clone());
            }
            Check::Missing => {
                summary.healed.push(format!(
                    "{}: the archive index records this stream but it is missing; its session's files in the estate are stored again (generations only it held are lost)",
                    path.display()
                ));
                force.insert(unit.clone());
            }
            Check::Damaged(e) => match set_aside(&path) {
                Ok(aside) => {
                    summary.healed.push(format!(
                        "{e}; set aside as {} and its session's files in the estate stored again",
                        aside.display()
                    ));
                    force.insert(unit.clone());
                }
                Err(e2) => {
                    for &i in members {
                        summary.failures.push(Failure::about(Code::Archive, &work[i].file.path, format!("{e}; {e2}")));
                    }
                }
            },
        }
    }
    let mut units: Vec<(Unit, Vec<usize>)> = by_unit.into_iter().collect();
    // largest first, one stream per task: the last task to finish is a small one
    units.sort_by_key(|(_, m)| std::cmp::Reverse(m.iter().map(|&i| work[i].file.size).sum::<u64>()));
    let results: Vec<Result<StreamRun, Failure>> = units
        .par_iter()
        .with_max_len(1)
        .map(|(unit, members)| {
            let forced = force.contains(unit);
            let r = match archive_stream(root, unit, members, work, progress, forced, created_at) {
                // damage found reading the stream back (a file of it changed): set aside, and
                // every file of the session stored again
                Err(StreamError::Damaged(e)) => match set_aside(&unit.path(root)) {
                    Ok(aside) => archive_stream(root, unit, members, work, progress, true, created_at)
                        .map(|mut s| {
                            s.healed = Some(format!(
                                "{e}; set aside as {} and its session's files in the estate stored again",
                                aside.display()
                            ));
                            s
                        })
                        .map_err(StreamError::into_failure),
                    Err(e2) => Err(Failure { message: format!("{e}; {e2}"), ..e }),
                },
                r => r.map_err(StreamError::into_failure),
            };
            progress.files_done.fetch_add(members.len() as u64, Ordering::Relaxed);
            r
        })
        .collect();
    let mut files: Vec<PathBuf> = Vec::new();
    let mut dirs: Vec<PathBuf> = Vec::new();
    for r in results.iter().flatten() {
        if let Some(p) = &r.pending {
            files.push(p.tmp.clone());
            // the project folder and the root may be new
            dirs.extend(p.target.ancestors().skip(1).take(2).map(Path::to_path_buf));
        }
        files.extend(r.appended.clone());
    }
    let paths: Vec<&Path> = files.iter().map(PathBuf::as_path).collect();
    let synced = if files.is_empty() { Ok(()) } else { durable::sync_all(root, &paths, &[]) };
    let mut changed = false;
    let mut written: HashMap<Unit, u64> = HashMap::new();
    for ((_, members), r) in units.iter().zip(results) {
        let published = r.and_then(|s| {
            if let Some(p) = &s.pending {
                publish(&synced, p)?;
            } else if s.appended.is_some() {
                synced.clone()?;
            }
            Ok(s)
        });
        let s = match published {
            Ok(s) => s,
            Err(e) => {
                for &i in members {
                    let w = &work[i];
                    // only the files that changed failed: the others are as archived before
                    if !is_unchanged(w) {
                        summary.failures.push(Failure::about(Code::Archive, &w.file.path, e.message.clone()));
                    } else {
                        summary.unchanged += 1;
                    }
                }
                continue;
            }
        };
        summary.bytes_stored += s.stored;
        summary.healed.extend(s.healed);
        if let Some(len) = s.written_len {
            written.insert(Unit::of(&work[members[0]].key), len);
        }
        for (i, m) in s.members {
            let w = &work[i];
            let entry = match m {
                Member::Unchanged => {
                    summary.unchanged += 1;
                    continue;
                }
                // these lines already name the file they concern (the source or its stream)
                Member::Failed(e) => {
                    summary.failures.push(Failure::about(Code::Archive, &w.file.path, e.message));
                    continue;
                }
                Member::Touched(e) => {
                    summary.touched += 1;
                    e
                }
                Member::Appended(e, n) => {
                    summary.appended += 1;
                    summary.bytes_in += n;
                    e
                }
                Member::Added(e, n) => {
                    summary.added += 1;
                    summary.bytes_in += n;
                    e
                }
                Member::Generation(e, n) => {
                    summary.generations += 1;
                    summary.bytes_in += n;
                    e
                }
            };
            changed = true;
            idx.insert(w.key.clone(), entry);
        }
    }
    // every file of a stream written now records its new length, those whose source is gone
    // included (so the stream's recorded length is its length)
    if !written.is_empty() {
        for (k, e) in idx.iter_mut() {
            if let Some(&len) = written.get(&Unit::of(k)) {
                e.store_len = len;
            }
        }
    }
    if !dirs.is_empty() {
        dirs.sort();
        dirs.dedup();
        durable::sync_all(root, &[], &dirs.iter().map(PathBuf::as_path).collect::<Vec<_>>())?;
    }
    if changed || !root.join(super::layout::INDEX).exists() {
        durable::replace(&root.join(super::layout::INDEX), &super::index::render_as(idx, 2))?;
    }
    summary.archived_files = idx.len() as u64;
    summary.archived_config_files = idx.keys().filter(|k| k.is_config()).count() as u64;
    summary.archived_bytes = idx.values().map(|e| e.size).sum();
    summary.store_bytes = store_bytes(idx);
    Ok(())
}

/// Store bytes of every stream the index knows: each stream once, at the length its latest run
/// left (every file of a stream that changed records the new length).
fn store_bytes(idx: &Index) -> u64 {
    let mut by: HashMap<Unit, u64> = HashMap::new();
    for (k, e) in idx {
        let v = by.entry(Unit::of(k)).or_default();
        *v = (*v).max(e.store_len);
    }
    by.values().sum()
}

/// The index's exact unchanged test, on the walk's metadata alone (a failed stream still counts
/// its untouched files as unchanged).
fn is_unchanged(w: &Work) -> bool {
    !looks_changed(w)
}

fn archive_stream(
    root: &Path,
    unit: &Unit,
    members: &[usize],
    work: &[Work],
    progress: &Progress,
    force: bool,
    created_at: &str,
) -> Result<StreamRun, StreamError> {
    let mut out =
        StreamRun { members: Vec::new(), pending: None, appended: None, stored: 0, written_len: None, healed: None };
    let mut changed: Vec<Changed> = Vec::new();
    for &i in members {
        let w = &work[i];
        match open_member(w, i, progress, force) {
            Ok(Some(c)) => changed.push(c),
            Ok(None) => out.members.push((i, Member::Unchanged)),
            Err(e) => out.members.push((i, Member::Failed(e))),
        }
    }
    if changed.is_empty() {
        return Ok(out);
    }
    let path = unit.path(root);
    // what the stream holds now (nothing for a new one), read back and checked
    let mut lock = None;
    let mut start = 0u64;
    let mut held: HashMap<String, Held> = HashMap::new();
    if fs::symlink_metadata(&path).is_ok() {
        let f = lock_store(&path)?;
        let mut bytes = Vec::new();
        (&f).read_to_end(&mut bytes).map_err(|e| Failure::io(&path, &e))?;
        let name = path.display().to_string();
        let damaged = |e: Failure| StreamError::Damaged(e.in_file(&path));
        let (segs, torn) = stream::segments_of(&bytes).map_err(damaged)?;
        match segs.first() {
            Some(s) if s.unit != *unit => {
                let why = "header places this stream elsewhere in the archive";
                return Err(StreamError::Damaged(Failure::at(Code::Archive, &path, why)));
            }
            None => {
                let why = "corrupt archive: no segment of this stream is complete";
                return Err(StreamError::Damaged(Failure::at(Code::Archive, &path, why)));
            }
            _ => {}
        }
        stream::verify_frames(&name, &bytes, &segs).map_err(StreamError::Damaged)?;
        held = stream::held(&segs).map_err(damaged)?.into_iter().map(|(k, h)| (k.rel, h)).collect();
        // a segment cut short by a run that died is not part of the archive: it is overwritten
        start = torn.unwrap_or(bytes.len() as u64);
        lock = Some(f);
    }
    // the files stay in place while their sources borrow them
    let files: Vec<File> = changed.iter_mut().map(|c| c.file.take().expect("opened")).collect();
    let mut sources: Vec<Option<Source>> = Vec::new();
    for (c, file) in changed.iter_mut().zip(&files) {
        let w = c.work;
        let r = (|| -> Result<Source<'_>, Failure> {
            let mut src = Source::open(file, &w.file.path, c.size)?;
            match held.get(&w.key.rel) {
                None => c.kind = Kind::Added,
                Some(h) => {
                    let same_prefix = c.size >= h.size && {
                        hash_into(&mut src, 0, h.size, &mut c.hasher, progress)?;
                        src.finish()?;
                        crate::hash::hex(&c.hasher.clone().finalize()) == h.sha256
                    };
                    if same_prefix {
                        c.gen = h.gen;
                        c.from = h.size;
                        c.kind = if c.size == h.size { Kind::Touched } else { Kind::Appended };
                    } else {
                        progress.bytes_total.fetch_add(h.size.min(c.size), Ordering::Relaxed);
                        c.gen = h.gen + 1;
                        c.from = 0;
                        c.hasher = Sha256::new();
                        c.kind = Kind::Generation;
                    }
                }
            }
            Ok(src)
        })();
        match r {
            Ok(src) => sources.push(Some(src)),
            Err(e) => {
                out.members.push((c.at, Member::Failed(e)));
                sources.push(None);
            }
        }
    }
    // a piece for every file but a failed one and a touch whose mtime did not change either
    let record: Vec<bool> = changed
        .iter()
        .zip(&sources)
        .map(|(c, s)| {
            s.is_some()
                && !(c.kind == Kind::Touched && held.get(&c.work.key.rel).is_some_and(|h| h.mtime_ns == c.mtime_ns))
        })
        .collect();
    let ranges: Vec<(usize, u64, u64)> = changed
        .iter()
        .enumerate()
        .filter(|(k, c)| record[*k] && c.size > c.from)
        .map(|(k, c)| (k, c.from, c.size))
        .collect();
    // the piece bytes: mapped pages as they are, a read source's bytes read once
    let mut owned: Vec<Option<Vec<u8>>> = Vec::with_capacity(ranges.len());
    for &(k, a, b) in &ranges {
        let src = sources[k].as_mut().expect("recorded");
        owned.push(match src.is_mapped() {
            true => None,
            false => Some(src.take_range(a, b)?),
        });
    }
    let slices: Vec<&[u8]> = ranges
        .iter()
        .zip(&owned)
        .map(|(&(k, a, b), o)| match o {
            Some(v) => v.as_slice(),
            None => sources[k].as_ref().expect("recorded").mapped(a, b),
        })
        .collect();
    let mut hashers: Vec<Sha256> = changed.iter().map(|c| c.hasher.clone()).collect();
    let (_, frames) = rayon::join(
        || {
            for ((k, _, _), s) in ranges.iter().zip(&slices) {
                hashers[*k].update(s);
            }
        },
        || compress_frames(&slices),
    );
    let frames = frames?;
    progress.bytes_done.fetch_add(slices.iter().map(|s| s.len() as u64).sum(), Ordering::Relaxed);
    drop(slices);
    // nothing read from a mapping the file was truncated under is committed
    for s in sources.iter().flatten() {
        s.finish()?;
    }
    let mut pieces = Vec::new();
    for (k, c) in changed.iter().enumerate() {
        if record[k] {
            pieces.push(Piece {
                rel: c.work.key.rel.clone(),
                gen: c.gen,
                from: c.from,
                len: c.size - c.from,
                sha256: crate::hash::hex(&hashers[k].clone().finalize()),
                mtime_ns: c.mtime_ns,
            });
        }
    }
    let lens: Vec<FrameLen> = frames.iter().map(|(f, n)| FrameLen { stored: f.len() as u64, size: *n }).collect();
    let mut new_len = start;
    if !pieces.is_empty() {
        let dir = stream::directory(unit, Some(created_at), &lens, &pieces);
        let seg_len = dir.len() as u64 + lens.iter().map(|f| f.stored).sum::<u64>();
        match &lock {
            None => {
                durable::make_dirs_with(path.parent().expect("a project folder"), false)?;
                let (tmp, mut file) = durable::temp_beside(&path)?;
                let r = (|| {
                    let io = |e: std::io::Error| Failure::io(&tmp, &e);
                    file.write_all(&dir).map_err(io)?;
                    for (f, _) in &frames {
                        file.write_all(f).map_err(io)?;
                    }
                    Ok::<(), Failure>(())
                })();
                if let Err(e) = r {
                    let _ = fs::remove_file(&tmp);
                    return Err(e.into());
                }
                out.pending = Some(Pending { tmp, target: path.clone() });
            }
            Some(f) => {
                let r = (|| {
                    let io = |e: std::io::Error| Failure::io(&path, &e);
                    f.set_len(start).map_err(io)?;
                    write_at(f, &dir, start).map_err(io)?;
                    let mut at = start + dir.len() as u64;
                    for (fr, _) in &frames {
                        write_at(f, fr, at).map_err(io)?;
                        at += fr.len() as u64;
                    }
                    Ok::<(), Failure>(())
                })();
                if let Err(e) = r {
                    // back to the committed length: nothing half-written stays
                    let _ = f.set_len(start);
                    return Err(e.into());
                }
                out.appended = Some(path.clone());
            }
        }
        out.stored = seg_len;
        new_len = start + seg_len;
        out.written_len = Some(new_len);
        // (written: their buffers serve the next frames compressed on this thread)
        frames.into_iter().for_each(|(f, _)| stream::give_back(f));
    } else if let Some(f) = &lock {
        // only identities changed; a torn tail is still cut, so the index's length is the file's
        if start != fs::metadata(&path).map_err(|e| Failure::io(&path, &e))?.len() {
            f.set_len(start).map_err(|e| Failure::io(&path, &e))?;
            out.appended = Some(path.clone());
        }
        out.written_len = Some(start);
    }
    for (k, c) in changed.into_iter().enumerate() {
        if sources[k].is_none() {
            continue; // failed above
        }
        let (gen, size) = (c.gen, c.size);
        let sha = match record[k] {
            true => crate::hash::hex(&hashers[k].clone().finalize()),
            false => held.get(&c.work.key.rel).map(|h| h.sha256.clone()).unwrap_or_default(),
        };
        let entry = Entry {
            gen,
            source: c.work.file.path.clone(),
            size,
            sha256: sha,
            mtime_ns: c.mtime_ns,
            dev: c.dev,
            ino: c.ino,
            store_len: new_len,
            events: 0,
        };
        let n = size - c.from;
        let m = match c.kind {
            Kind::Added => Member::Added(entry, n),
            Kind::Appended => Member::Appended(entry, n),
            Kind::Generation => Member::Generation(entry, n),
            Kind::Touched => Member::Touched(entry),
        };
        out.members.push((c.at, m));
    }
    drop(sources);
    drop(files);
    drop(lock);
    Ok(out)
}

/// Opens a file of the run; None when the index shows it unchanged (not read).
fn open_member<'a>(
    w: &'a Work<'a>,
    at: usize,
    progress: &Progress,
    force: bool,
) -> Result<Option<Changed<'a>>, Failure> {
    let Some(Opened { file: f, size, mtime_ns, dev, ino }) = open_source(w, progress, force)? else { return Ok(None) };
    Ok(Some(Changed {
        at,
        file: Some(f),
        size,
        mtime_ns,
        dev,
        ino,
        gen: 0,
        from: 0,
        hasher: Sha256::new(),
        kind: Kind::Added,
        work: w,
    }))
}

fn hash_into(src: &mut Source, from: u64, to: u64, h: &mut Sha256, progress: &Progress) -> Result<(), Failure> {
    const STEP: u64 = 32 << 20;
    let mut at = from;
    while at < to {
        let end = (at + STEP).min(to);
        h.update(src.range(at, end)?);
        progress.bytes_done.fetch_add(end - at, Ordering::Relaxed);
        at = end;
    }
    Ok(())
}

/// The segment's data frames: the concatenated slices cut every `stream::FRAME` bytes,
/// compressed in parallel when there is more than one. Returns each frame and its decoded size.
fn compress_frames(slices: &[&[u8]]) -> Result<Vec<(Vec<u8>, u64)>, Failure> {
    let total: usize = slices.iter().map(|s| s.len()).sum();
    if total == 0 {
        return Ok(Vec::new());
    }
    let mut groups: Vec<Vec<&[u8]>> = vec![Vec::new()];
    let mut in_group = 0usize;
    for s in slices {
        let mut rest: &[u8] = s;
        while !rest.is_empty() {
            if in_group == stream::FRAME {
                groups.push(Vec::new());
                in_group = 0;
            }
            let n = rest.len().min(stream::FRAME - in_group);
            groups.last_mut().expect("one group").push(&rest[..n]);
            in_group += n;
            rest = &rest[n..];
        }
    }
    let one = |g: &Vec<&[u8]>| stream::compress(g).map(|f| (f, g.iter().map(|s| s.len() as u64).sum()));
    if groups.len() == 1 {
        return Ok(vec![one(&groups[0])?]);
    }
    groups.par_iter().map(one).collect()
}
