//! Scanning a whole estate: discover its files, scan the ones that can hold anything new (in
//! parallel), and group them into sessions.

use super::{discover, sessions, DiscoverError, EstateFile, FileKind, Session};
use crate::read::transcript_facts::{self as facts, TranscriptFacts};
use crate::scan::{self, Mode, Progress, Scan, UnitPlace, UnitRead};
use std::path::{Path, PathBuf};

/// Every transcript under the roots, scanned, with the session each belongs to.
#[derive(Debug, Default)]
pub struct EstateScan {
    pub files: Vec<EstateFile>,
    /// One per file: its scan, or the one-phrase reason it could not be read. A pruned file has
    /// an empty scan.
    pub scans: Vec<Result<Scan, String>>,
    /// One per file: not scanned, because it was last modified before the cut-off.
    pub pruned: Vec<bool>,
    /// One per file: its index in `sessions`.
    pub session_of_file: Vec<u32>,
    pub sessions: Vec<Session>,
    /// One per file when the scan was asked for [`MainFacts`] (else empty): a session's own
    /// transcript's facts and head test; None for other files and for one that cannot be read.
    pub main_facts: Vec<Option<FileFacts>>,
}

/// What a scan also reads of each session's own transcript, from the bytes it holds anyway: the
/// head-and-tail facts (records not counted) and whether its first `head_bytes` pass
/// `head_test`, as [`facts::facts_and_head_of_file`] reads them from the file.
#[derive(Clone, Copy)]
pub struct MainFacts {
    /// At most [`scan::UNIT_BYTES`] (a file's first unit holds them; more are read from the file).
    pub head_bytes: usize,
    pub head_test: fn(&[u8]) -> bool,
}

/// A transcript's facts and whether its head passed the test.
pub type FileFacts = (TranscriptFacts, bool);

/// Scans the estate under `paths`. A file last modified before `min_mtime_ms` is listed but not
/// read: it cannot hold records newer than that. A root that does not exist or cannot be
/// listed fails the whole scan.
pub fn scan_estate(
    paths: &[PathBuf],
    mode: Mode,
    min_mtime_ms: Option<f64>,
    progress: &Progress,
) -> Result<EstateScan, DiscoverError> {
    scan_estate_with(paths, mode, min_mtime_ms, None, progress)
}

/// [`scan_estate`], with the [`MainFacts`] of every session's own transcript when asked.
pub fn scan_estate_with(
    paths: &[PathBuf],
    mode: Mode,
    min_mtime_ms: Option<f64>,
    main_facts: Option<MainFacts>,
    progress: &Progress,
) -> Result<EstateScan, DiscoverError> {
    let files = discover(paths)?;
    let pruned: Vec<bool> = files.iter().map(|f| min_mtime_ms.is_some_and(|m| f.mtime_ms < m)).collect();
    // (the walk has just stat'ed each file: its size is taken from there)
    let kept: Vec<usize> = (0..files.len()).filter(|&i| !pruned[i]).collect();
    let sized: Vec<(&Path, u64)> = kept.iter().map(|&i| (files[i].path.as_path(), files[i].size)).collect();
    let wanted = |i: usize| main_facts.is_some() && files[i].kind == FileKind::Session;
    let (scanned, mut got) = match main_facts {
        None => (scan::scan_sized(&sized, mode, progress), Vec::new()),
        Some(m) => {
            let want: Vec<bool> = kept.iter().map(|&i| wanted(i)).collect();
            let both = scan::scan_sized_with(
                &sized,
                &want,
                mode,
                progress,
                |k, read, place| match want[k] {
                    true => window_parts(&m, sized[k].1, read, place),
                    false => WindowParts::default(),
                },
                |k, parts| want[k].then(|| facts_of_parts(parts)).flatten(),
            );
            both.into_iter()
                .map(|r| match r {
                    Ok((s, f)) => (Ok(s), f),
                    Err(e) => (Err(e), None),
                })
                .unzip()
        }
    };
    let mut main: Vec<Option<FileFacts>> = Vec::new();
    if let Some(m) = main_facts {
        // What the scan's units could not tell (a pruned file, a window that must be widened, a
        // file changed since the walk) is read from the file, as a reader of its windows would.
        main = files.iter().map(|_| None).collect();
        for (k, &i) in kept.iter().enumerate() {
            main[i] = got[k].take();
        }
        for (i, f) in files.iter().enumerate() {
            if wanted(i) && main[i].is_none() {
                #[cfg(test)]
                tests::READ_AGAIN.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                main[i] = facts::facts_and_head_of_file(&f.path, f.size, false, m.head_bytes as u64, m.head_test).ok();
            }
        }
    }
    let mut scanned_kept = scanned.into_iter();
    let scans: Vec<Result<Scan, String>> = pruned
        .iter()
        .map(|&p| match p {
            true => Ok(Scan::default()),
            false => scanned_kept.next().expect("one scan per kept file").map_err(|e| crate::io_message(&e)),
        })
        .collect();
    let refs: Vec<Option<&Scan>> = scans.iter().map(|s| s.as_ref().ok()).collect();
    let (sessions, session_of_file) = sessions(&files, &refs);
    Ok(EstateScan { files, scans, pruned, session_of_file, sessions, main_facts: main })
}

/// What one unit of a session's transcript gives of its facts' windows.
#[derive(Default)]
struct WindowParts {
    /// The file read whole (it is one unit), with its head test.
    whole: Option<FileFacts>,
    /// The head window's facts (None inside: the window must be widened), and the head test.
    head: Option<(Option<TranscriptFacts>, bool)>,
    /// The tail window's facts, read on their own.
    tail: Option<TranscriptFacts>,
}

/// The windows of a file of `size` bytes (as listed) that a unit's read (its lines from file
/// offset `place.base`, after the bytes before them it holds) holds whole. A unit that ends
/// before `size` (the file shrank) gives no tail, and one that does not begin the file no head.
fn window_parts(m: &MainFacts, size: u64, read: &UnitRead, place: &UnitPlace) -> WindowParts {
    let mut parts = WindowParts::default();
    let owned = read.owned();
    let end = place.base + owned.len() as u64;
    let test = |b: &[u8]| (m.head_test)(&b[..b.len().min(m.head_bytes)]);
    if place.file_start && place.base == 0 {
        if size <= facts::WHOLE_BYTES {
            if end == size {
                parts.whole = Some((facts::whole_facts(owned, false), test(owned)));
            }
            return parts;
        }
        if owned.len() >= (facts::HEAD_BYTES as usize).max(m.head_bytes) {
            parts.head = Some((facts::head_facts(&owned[..facts::HEAD_BYTES as usize], false), test(owned)));
        }
    }
    // (the read begins before the unit's lines, at the end of the line its start cut)
    let read_from = place.base - read.owned_from as u64;
    if size > facts::WHOLE_BYTES && end == size && read_from + facts::TAIL_BYTES <= size {
        parts.tail = Some(facts::tail_facts(&read.bytes[(size - facts::TAIL_BYTES - read_from) as usize..], false));
    }
    parts
}

/// A transcript's facts from its units' window parts (in file order); None when they do not
/// tell (a window to widen, one not seen whole), and the file must be read.
fn facts_of_parts(mut parts: Vec<WindowParts>) -> Option<FileFacts> {
    if let Some(w) = parts.iter_mut().find_map(|p| p.whole.take()) {
        return Some(w);
    }
    let tail = parts.last_mut()?.tail.take()?;
    let (head, pass) = parts.first_mut()?.head.take()?;
    let head = head?;
    if !facts::tail_is_usable(&head, &tail) {
        return None;
    }
    let read = facts::HEAD_BYTES + facts::TAIL_BYTES;
    Some((facts::finished(facts::joined(head, tail), read, false), pass))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn estate(name: &str) -> (PathBuf, PathBuf) {
        let root = std::env::temp_dir().join(format!("cj-estate-scan-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&root);
        let project = root.join("-w-proj");
        fs::create_dir_all(project.join("s1/subagents")).unwrap();
        let line = |sid: &str| format!("{{\"type\":\"user\",\"uuid\":\"u\",\"sessionId\":\"{sid}\"}}\n");
        fs::write(project.join("s1.jsonl"), line("s1")).unwrap();
        fs::write(project.join("s1/subagents/agent-a1.jsonl"), line("s1")).unwrap();
        // old flat layout: the parent session is only in the records
        fs::write(project.join("agent-b2.jsonl"), line("s2")).unwrap();
        (root, project)
    }

    #[test]
    fn groups_files_into_sessions_by_path_or_records() {
        let (root, _) = estate("group");
        let e = scan_estate(std::slice::from_ref(&root), Mode::Full, None, &Progress::default()).unwrap();
        assert_eq!(e.files.len(), 3);
        assert!(e.pruned.iter().all(|p| !p));
        let mut ids: Vec<&str> = e.sessions.iter().map(|s| s.session_id.as_str()).collect();
        ids.sort();
        assert_eq!(ids, ["s1", "s2"]);
        let s1 = e.sessions.iter().find(|s| s.session_id == "s1").unwrap();
        assert_eq!(s1.files.len(), 2);
        assert!(s1.main_file.is_some());
        for (i, f) in e.files.iter().enumerate() {
            assert_eq!(e.scans[i].as_ref().unwrap().records.len(), 1, "{}", f.path.display());
        }
        fs::remove_dir_all(root).unwrap();
    }

    #[test]
    fn files_older_than_the_cut_off_are_listed_but_not_scanned() {
        let (root, _) = estate("prune");
        let e = scan_estate(std::slice::from_ref(&root), Mode::Full, Some(f64::MAX), &Progress::default()).unwrap();
        assert_eq!(e.files.len(), 3);
        assert!(e.pruned.iter().all(|p| *p));
        assert!(e.scans.iter().all(|s| s.as_ref().unwrap().records.is_empty()));
        // unscanned, the flat-layout subagent falls back to its file stem as session
        assert!(e.sessions.iter().any(|s| s.session_id == "agent-b2"));
        fs::remove_dir_all(root).unwrap();
    }

    #[test]
    fn a_missing_root_fails_the_scan_naming_it() {
        let missing = std::env::temp_dir().join("cj-estate-scan-missing-root");
        let e = scan_estate(std::slice::from_ref(&missing), Mode::Full, None, &Progress::default()).unwrap_err();
        assert_eq!(e.path, missing);
    }

    /// Session files whose facts the scan's units did not tell (read from the file again).
    pub(super) static READ_AGAIN: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

    /// What a reader takes from a file's scan: its records and counts.
    fn seen(s: &Scan) -> String {
        let recs: Vec<String> = s
            .records
            .iter()
            .map(|r| {
                format!("{}@{}:{:?}:{:?}", r.line, r.offset, s.tables.strings.opt(r.kind), r.usage.map(|u| u.output))
            })
            .collect();
        format!("{} {:?} {:?} tail={} {}", s.bytes, s.counts, s.first_line, s.unterminated_tail, recs.join(","))
    }

    #[test]
    fn the_session_facts_read_by_the_scan_are_those_a_reader_of_the_file_s_windows_finds() {
        let root = std::env::temp_dir().join(format!("cj-estate-scan-facts-{}", std::process::id()));
        let _ = fs::remove_dir_all(&root);
        let project = root.join("-w-proj");
        fs::create_dir_all(project.join("big/subagents")).unwrap();
        let rec = |kind: &str, at: &str, pad: usize| {
            format!(
                "{{\"type\":\"{kind}\",\"uuid\":\"u\",\"sessionId\":\"s\",\"cwd\":\"/w/proj\",\"timestamp\":\"{at}\",\"message\":{{\"role\":\"{kind}\",\"content\":\"{}\",\"usage\":{{\"input_tokens\":1,\"output_tokens\":{pad}}}}}}}\n",
                "x".repeat(pad)
            )
        };
        let title = |t: &str| format!("{{\"type\":\"custom-title\",\"customTitle\":\"{t}\",\"sessionId\":\"s\"}}\n");
        let ours = "{\"type\":\"system\",\"subtype\":\"compact_boundary\",\"compactMetadata\":{\"trigger\":\"manual\",\"codexOfflineCompression\":true}}\n";
        // Transcripts of many sizes and shapes, each line `pad` bytes long or so.
        let mut files: Vec<(String, String)> = Vec::new();
        for (i, &(size, pad)) in [
            (0usize, 100usize),
            (3_000, 200),
            (440_000, 900),
            (470_000, 5_000),
            (520_000, 70_000),
            (700_000, 200_000),
            (1_300_000, 1_000),
            (3_000_000, 150_000),
            (5_000_000, 9_000),
        ]
        .iter()
        .enumerate()
        {
            let mut t = if i % 2 == 0 { ours.to_string() } else { String::new() };
            let mut k = 0;
            while t.len() < size {
                let kind = if k % 2 == 0 { "user" } else { "assistant" };
                t +=
                    &rec(kind, &format!("2026-11-01T10:{:02}:{:02}.000Z", (k / 60) % 60, k % 60), pad + (k * 37) % 500);
                if k % 7 == 3 {
                    t += &title(&format!("title {k}"));
                }
                k += 1;
            }
            if i == 3 {
                t.pop(); // a last line without its newline
            }
            files.push((format!("s{i}.jsonl"), t));
        }
        // A giant first line (the head window is widened) and a tail without a timestamp (so is
        // the tail).
        files.push((
            "wide-head.jsonl".into(),
            format!(
                "{}{}",
                rec("user", "2026-11-02T00:00:00.000Z", 3 << 20),
                rec("assistant", "2026-11-02T00:00:01.000Z", 10)
            ),
        ));
        let mut untimed = rec("user", "2026-11-03T00:00:00.000Z", 100).repeat(2);
        untimed += &"{\"type\":\"progress\",\"data\":\"zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz\"}\n".repeat(4000);
        files.push(("untimed-tail.jsonl".into(), untimed));
        for (name, text) in &files {
            fs::write(project.join(name), text).unwrap();
        }
        fs::write(project.join("big/subagents/agent-a1.jsonl"), rec("assistant", "2026-11-01T10:00:00.000Z", 10))
            .unwrap();

        let m = crate::dataset::SESSION_FACTS;
        let plain =
            scan_estate(std::slice::from_ref(&root), Mode::UsageAndToolErrors, None, &Progress::default()).unwrap();
        let e = scan_estate_with(
            std::slice::from_ref(&root),
            Mode::UsageAndToolErrors,
            None,
            Some(m),
            &Progress::default(),
        )
        .unwrap();
        assert!(plain.main_facts.is_empty());
        assert_eq!(e.main_facts.len(), e.files.len());
        for (i, f) in e.files.iter().enumerate() {
            // the units planned for the windows scan as the plain ones do
            let (a, b) = (plain.scans[i].as_ref().unwrap(), e.scans[i].as_ref().unwrap());
            assert_eq!(seen(a), seen(b), "{}", f.path.display());
            let got = e.main_facts[i].as_ref();
            if f.kind != FileKind::Session {
                assert!(got.is_none());
                continue;
            }
            let read = facts::facts_and_head_of_file(&f.path, f.size, false, m.head_bytes as u64, m.head_test).unwrap();
            assert_eq!(got, Some(&read), "{}", f.path.display());
        }
        let titled =
            e.main_facts.iter().flatten().filter(|(f, _)| f.title_source == Some(facts::TitleSource::CustomTitle));
        assert!(titled.count() >= 8);
        assert_eq!(e.main_facts.iter().flatten().filter(|(_, ours)| *ours).count(), 5);
        // Only the files whose head or tail window must be widened were read again: those whose
        // first line outgrows the head window (s4, s5, s7 and wide-head) and the one with
        // no timestamp at its end.
        assert_eq!(READ_AGAIN.load(std::sync::atomic::Ordering::Relaxed), 5);
        fs::remove_dir_all(root).unwrap();
    }
}
