//! Archive to plain transcripts: `restore` (into a folder, never replacing a different file),
//! decoding through `read::decode` and checking every mark's SHA-256; and the checks the readers
//! share (a header that would place a file outside the layout refuses the archive).

use super::destination::{self, Destination, Targets};
use super::read::{self, Stored};
use crate::durable;
use crate::failure::{Code, Failure};
use crate::scan::Progress;
use rayon::prelude::*;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;

#[derive(Clone, Debug)]
pub enum Restored {
    Written {
        bytes: u64,
    },
    /// The target already holds exactly these bytes.
    Identical {
        bytes: u64,
    },
}

/// Restores the latest generation of each transcript in `which` under `to` (as
/// `<to>/<project>/<path>`). With `keep_mtime`, each file gets the source's mtime recorded at
/// archive time. Files are decoded in parallel to temp files, made durable together, then
/// linked into place without replacing anything. A transcript whose header would place it
/// outside `to` is refused by name and the others are still restored. One result per
/// transcript, in order.
pub fn restore(
    which: &[Stored],
    to: &Targets,
    keep_mtime: bool,
    progress: &Progress,
) -> Vec<Result<Restored, Failure>> {
    progress.files_total.fetch_add(which.len() as u64, Ordering::Relaxed);
    let groups = by_store_file(which);
    progress.bytes_total.fetch_add(groups.iter().map(|g| which[g[0]].store_len).sum(), Ordering::Relaxed);
    let bufs = read::Buffers::default();
    // each replaced by its group's outcome below
    let mut staged: Vec<Result<Staged, Failure>> =
        which.iter().map(|_| Err(Failure::new(Code::Internal, "not staged"))).collect();
    let done: Vec<Vec<Result<Staged, Failure>>> = groups
        .par_iter()
        .with_max_len(1)
        .map(|g| {
            let r = stage_group(&bufs, which, g, to, keep_mtime);
            progress.bytes_done.fetch_add(which[g[0]].store_len, Ordering::Relaxed);
            progress.files_done.fetch_add(g.len() as u64, Ordering::Relaxed);
            r
        })
        .collect();
    for (g, rs) in groups.iter().zip(done) {
        for (&i, r) in g.iter().zip(rs) {
            staged[i] = r;
        }
    }
    drop(bufs);
    let temps: Vec<&Path> = staged.iter().filter_map(|r| r.as_ref().ok()?.tmp.as_deref()).collect();
    let synced = if temps.is_empty() { Ok(()) } else { sync_targets(to, &temps, &[]) };
    let linked: Vec<(Result<Restored, Failure>, Option<PathBuf>)> = staged
        .into_par_iter()
        .map(|r| {
            let st = match r {
                Ok(st) => st,
                Err(e) => return (Err(e), None),
            };
            let Some(tmp) = st.tmp else { return (Ok(Restored::Identical { bytes: st.bytes }), None) };
            if let Err(e) = &synced {
                let _ = fs::remove_file(&tmp);
                return (Err(e.clone()), None);
            }
            match durable::link_no_clobber(&tmp, &st.dest.path) {
                Ok(()) => (Ok(Restored::Written { bytes: st.bytes }), Some(st.dest.path)),
                Err(e) => (Err(e), None),
            }
        })
        .collect();
    let mut dirs: Vec<PathBuf> = linked
        .iter()
        .filter_map(|(_, t)| t.as_deref())
        .flat_map(|t| t.ancestors().skip(1).take(3).map(Path::to_path_buf))
        .collect();
    dirs.sort();
    dirs.dedup();
    if !dirs.is_empty() {
        let dirs: Vec<&Path> = dirs.iter().map(PathBuf::as_path).collect();
        if let Err(e) = sync_targets(to, &[], &dirs) {
            return which.iter().map(|_| Err(e.clone())).collect();
        }
    }
    linked.into_iter().map(|(r, _)| r).collect()
}

/// `durable::sync_all` for each target folder that exists (the config folder may be another file
/// system than the projects folder; a target nothing was written into may not exist).
fn sync_targets(to: &Targets, files: &[&Path], dirs: &[&Path]) -> Result<(), Failure> {
    let mut roots = std::iter::once(&to.projects).chain(&to.config).filter(|r| r.is_dir());
    if let Some(first) = roots.next() {
        durable::sync_all(first, files, dirs)?;
    }
    // Linux syncs a whole file system per root; elsewhere the files were synced one by one above
    roots.try_for_each(|root| durable::sync_all(root, &[], &[]))
}

/// A decoded transcript waiting to be linked (None: the target already holds these bytes).
struct Staged {
    dest: Destination,
    tmp: Option<PathBuf>,
    bytes: u64,
}

/// The indices of `which` by store file: a format-1 file alone, a format-2 stream's files
/// together (the stream is read once for all of them), largest store file first.
pub(super) fn by_store_file(which: &[Stored]) -> Vec<Vec<usize>> {
    let mut at: std::collections::HashMap<(&Path, Option<u32>), usize> = std::collections::HashMap::new();
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for (i, s) in which.iter().enumerate() {
        if !s.in_stream() {
            groups.push(vec![i]);
            continue;
        }
        match at.get(&(s.path.as_path(), s.segments)) {
            Some(&g) => groups[g].push(i),
            None => {
                at.insert((&s.path, s.segments), groups.len());
                groups.push(vec![i]);
            }
        }
    }
    groups.sort_by_key(|g| std::cmp::Reverse(which[g[0]].store_len));
    groups
}

/// Stages one group of `by_store_file`: one result per member, in order.
fn stage_group(
    bufs: &read::Buffers,
    which: &[Stored],
    group: &[usize],
    to: &Targets,
    keep_mtime: bool,
) -> Vec<Result<Staged, Failure>> {
    let first = &which[group[0]];
    if !first.in_stream() {
        return vec![first.placed(to).and_then(|dest| stage(bufs, first, dest, keep_mtime))];
    }
    let mut out: Vec<Result<Staged, Failure>> = Vec::with_capacity(group.len());
    let mut ok: Vec<(usize, Destination)> = Vec::new();
    for (k, &i) in group.iter().enumerate() {
        match which[i].placed(to).and_then(|d| check_target(&d).map(|()| d)) {
            Ok(d) => {
                ok.push((k, d));
                // replaced by the stream's outcome below
                out.push(Err(Failure::new(Code::Internal, "not staged")));
            }
            Err(e) => out.push(Err(e)),
        }
    }
    let pairs: Vec<(&Stored, &Destination)> = ok.iter().map(|(k, d)| (&which[group[*k]], d)).collect();
    let temps = read::stream_to_temps(&first.path, &pairs, keep_mtime, true);
    for ((k, dest), r) in ok.into_iter().zip(temps) {
        out[k] = r.and_then(|(tmp, mark)| settle(dest, tmp, mark));
    }
    out
}

/// A restore target must be a file or nothing.
fn check_target(dest: &Destination) -> Result<(), Failure> {
    let target = dest.path.as_path();
    if let Ok(m) = fs::symlink_metadata(target) {
        if !m.is_file() {
            return Err(Failure::at(Code::Archive, target, "exists and is not a file (not overwritten)"));
        }
    }
    Ok(())
}

fn stage(bufs: &read::Buffers, s: &Stored, dest: Destination, keep_mtime: bool) -> Result<Staged, Failure> {
    check_target(&dest)?;
    let (tmp, mark) = read::decode_to_temp(bufs, &s.path, &dest, keep_mtime, true)?;
    settle(dest, tmp, mark)
}

/// A decoded temp file against what is at its target already: kept to be linked, or dropped
/// when the target holds these bytes (a different file there is an error).
fn settle(dest: Destination, tmp: PathBuf, mark: read::Mark) -> Result<Staged, Failure> {
    let target = dest.path.as_path();
    let r = (|| {
        if target.exists() {
            let have = crate::hash::sha256_file_hex(target).map_err(|e| Failure::io(target, &e))?;
            if have == mark.sha256 {
                return Ok(None);
            }
            return Err(Failure::at(
                Code::Archive,
                target,
                "exists and differs from the archived transcript (not overwritten)",
            ));
        }
        Ok(Some(tmp.clone()))
    })();
    if !matches!(r, Ok(Some(_))) {
        let _ = fs::remove_file(&tmp);
    }
    r.map(|tmp| Staged { dest, tmp, bytes: mark.size })
}

/// A reader reads an archive only when every transcript's header places it where restore would
/// put it: a header that would place one elsewhere (another archive's crafted file) refuses the
/// whole archive, naming the first such store file and field.
pub fn refuse_hostile_keys(files: &[Stored]) -> Result<(), Failure> {
    let mut refused = files.iter().filter_map(|s| destination::check_key(&s.key).err().map(|r| (s, r)));
    let Some((s, r)) = refused.next() else { return Ok(()) };
    let more = match refused.count() {
        0 => String::new(),
        n => format!(", nor {n} more"),
    };
    Err(Failure::at(Code::Archive, &s.path, format!("{r}; the archive is not read (this transcript is refused{more}; `claude-jsonl restore --all` restores the others)")))
}
