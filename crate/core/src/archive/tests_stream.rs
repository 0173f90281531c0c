//! Archive format 2 (one stream per session) end to end: round trip, random access, incremental
//! runs, torn and damaged streams, and a format-1 archive continued in format 1.
use super::*;
use crate::archive::stream::{self, Unit, STREAM_SUFFIX};

fn streams(root: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> =
        all_paths(root).into_iter().filter(|p| p.to_string_lossy().ends_with(STREAM_SUFFIX)).collect();
    v.sort();
    v
}

/// A session with enough text for several frames (tests cut frames at 16 KiB), its subagent,
/// a tool result and a file beside it; and a second session.
pub(super) fn big_estate(dir: &Path) -> (PathBuf, PathBuf, PathBuf) {
    let (main, sub) = estate(dir);
    let many: String = (0..300).map(|n| safe_record(if n % 2 == 0 { "user" } else { "assistant" }, "x", n)).collect();
    append(&main, format!("}}\n{many}").as_bytes());
    let proj = main.parent().unwrap();
    fs::create_dir_all(proj.join(SID).join("tool-results")).unwrap();
    let binary: Vec<u8> = (0..=255u8).cycle().take(40_000).collect();
    fs::write(proj.join(SID).join("tool-results").join("toolu_1.bin"), binary).unwrap();
    fs::write(proj.join(format!("{SID}.precompact.json")), "{}").unwrap();
    let other = proj.join("11111111-2222-4333-8444-555555555555.jsonl");
    fs::write(&other, many.as_bytes()).unwrap();
    (main, sub, other)
}

fn restore_some(
    root: &Path,
    to: &Path,
    which: impl Fn(&Stored) -> bool,
) -> Vec<Result<restore::Restored, crate::failure::Failure>> {
    let all: Vec<Stored> = latest(list(root).unwrap()).into_iter().filter(|s| which(s)).collect();
    restore::restore(&all, &projects_only(to), true, &Progress::default())
}

#[test]
fn a_new_archive_is_one_stream_per_session_and_restores_byte_identical() {
    let t = tmp("v2-cycle");
    let (src, root) = (t.0.join("src"), t.0.join("arch"));
    let (main, sub, _) = big_estate(&src);
    let s = run2(&src, &root);
    assert_eq!((s.files, s.added, s.failures.len(), s.format), (5, 5, 0, 2), "{s:?}");
    assert!(is_archive(&root));
    // the first session's four files share one stream; the second session has its own
    let files = streams(&root);
    assert_eq!(files.len(), 2, "{files:?}");
    assert!(all_paths(&root).iter().all(|p| p.file_name().is_none_or(|n| n != key::TRANSCRIPT)));
    let (segs, torn) = stream::read_segments(&Unit::of(&main_key()).path(&root)).unwrap();
    assert_eq!((segs.len(), segs[0].pieces.len(), torn), (1, 4, None));
    assert!(segs[0].frames.len() > 1, "the session spans several frames");
    restore_all(&root, &t.0.join("r1"));
    assert_eq!(every_file(&t.0.join("r1")), every_file(&src));
    // unchanged: nothing read, nothing written
    let before = fs::read(&files[0]).unwrap();
    let s = run2(&src, &root);
    assert_eq!((s.unchanged, s.bytes_stored), (5, 0), "{s:?}");
    // the session grows: one segment appended, the stored bytes before it untouched
    append(&main, b"{\"more\":1}\n");
    fs::write(&sub, b"{\"type\":\"rewritten\"}\n").unwrap();
    let s = run2(&src, &root);
    assert_eq!((s.appended, s.generations, s.unchanged, s.bytes_in), (1, 1, 3, 32), "{s:?}");
    let after = fs::read(Unit::of(&main_key()).path(&root)).unwrap();
    assert_eq!(&after[..before.len()], before.as_slice(), "earlier segments are never rewritten");
    assert_eq!(after.len() as u64, before.len() as u64 + s.bytes_stored);
    let all = latest(list(&root).unwrap());
    let subagent = all.iter().find(|s| s.key.rel.contains("agent-a1")).unwrap();
    assert_eq!((subagent.gen, subagent.generations), (1, 2), "the rewrite is the next generation");
    restore_all(&root, &t.0.join("r2"));
    assert_eq!(every_file(&t.0.join("r2")), every_file(&src));
    // the index lost: rebuilt from the streams, nothing stored again
    fs::remove_file(root.join(layout::INDEX)).unwrap();
    let s = run2(&src, &root);
    assert_eq!((s.touched, s.added, s.bytes_stored, s.format), (5, 0, 0, 2), "{s:?}");
}

#[test]
fn one_session_restores_without_reading_the_other_streams_or_frames() {
    let t = tmp("v2-random");
    let (src, root) = (t.0.join("src"), t.0.join("arch"));
    let (_, _, other) = big_estate(&src);
    run2(&src, &root);
    // damage the other session's stream in its middle: this session is not affected
    let other_key = Key { project: "-home-u-repo".into(), rel: other.file_name().unwrap().to_string_lossy().into() };
    let other_path = Unit::of(&other_key).path(&root);
    let mut b = fs::read(&other_path).unwrap();
    let n = b.len();
    b[n / 2] ^= 0x55;
    fs::write(&other_path, &b).unwrap();
    let to = t.0.join("r");
    let r = restore_some(&root, &to, |s| crate::archive::owner::of(&s.key) == Some(SID));
    assert_eq!(r.len(), 4);
    assert!(r.iter().all(Result::is_ok), "{r:?}");
    // within the session's stream, only the frames of the wanted file are decompressed: damage
    // the last frame (the tool result and the small files): the transcript's frames still read
    let path = Unit::of(&main_key()).path(&root);
    let (segs, _) = stream::read_segments(&path).unwrap();
    let last = segs[0].frames.last().unwrap();
    let mut b = fs::read(&path).unwrap();
    let at = (segs[0].end - last.stored / 2) as usize;
    b[at] ^= 0x55;
    fs::write(&path, &b).unwrap();
    let to2 = t.0.join("r2");
    let r = restore_some(&root, &to2, |s| s.key == main_key());
    assert!(r[0].is_ok(), "{r:?}");
    assert_eq!(fs::read(to2.join(main_key().text())).unwrap(), fs::read(src.join(main_key().text())).unwrap());
}

#[test]
fn a_corrupt_frame_is_refused_by_name_and_nothing_changes() {
    let t = tmp("v2-corrupt");
    let (src, root) = (t.0.join("src"), t.0.join("arch"));
    let (main, ..) = big_estate(&src);
    run2(&src, &root);
    let path = Unit::of(&main_key()).path(&root);
    let (segs, _) = stream::read_segments(&path).unwrap();
    let mut b = fs::read(&path).unwrap();
    b[segs[0].data_at as usize + 40] ^= 0x55;
    fs::write(&path, &b).unwrap();
    // restore: refused naming the stream, nothing written for the session
    let to = t.0.join("r");
    let r = restore_some(&root, &to, |s| crate::archive::owner::of(&s.key) == Some(SID));
    let name = path.display().to_string();
    for e in &r {
        let e = e.as_ref().unwrap_err();
        assert!(e.message.starts_with(&name) && e.message.contains("corrupt archive"), "{e}");
    }
    assert!(all_paths(&to).iter().all(|p| p.is_dir()), "no file written: {:?}", all_paths(&to));
    // archive: nothing is appended to the damaged stream; it is set aside byte for byte, named,
    // and the session stored again from the estate
    append(&main, b"{\"more\":1}\n");
    let s = run2(&src, &root);
    assert_eq!(s.failures.len(), 0, "{s:?}");
    assert_eq!(s.healed.len(), 1, "{s:?}");
    assert!(s.healed[0].starts_with(&name) && s.healed[0].contains(".damaged-1"), "{:?}", s.healed);
    let aside = PathBuf::from(format!("{name}.damaged-1"));
    assert_eq!(fs::read(&aside).unwrap(), b, "left byte for byte");
    restore_all(&root, &t.0.join("r2"));
    assert_eq!(every_file(&t.0.join("r2")), every_file(&src));
}

#[test]
fn a_torn_segment_is_cut_by_the_next_run() {
    let t = tmp("v2-torn");
    let (src, root) = (t.0.join("src"), t.0.join("arch"));
    let (main, ..) = big_estate(&src);
    run2(&src, &root);
    let path = Unit::of(&main_key()).path(&root);
    let committed = fs::metadata(&path).unwrap().len();
    append(&main, b"{\"more\":1}\n");
    run2(&src, &root);
    // the second run's segment cut short (a crash while writing), the index stale
    let grown = fs::metadata(&path).unwrap().len();
    fs::OpenOptions::new().write(true).open(&path).unwrap().set_len((committed + grown) / 2).unwrap();
    fs::remove_file(root.join(layout::INDEX)).unwrap();
    let s = latest(list(&root).unwrap());
    let m = s.iter().find(|s| s.key == main_key()).unwrap();
    assert_eq!(m.gen, 0);
    let s = run2(&src, &root);
    assert_eq!((s.appended, s.failures.len()), (1, 0), "{s:?}");
    assert_eq!(fs::metadata(&path).unwrap().len(), grown, "the same segment written again over the torn one");
    restore_all(&root, &t.0.join("r"));
    assert_eq!(every_file(&t.0.join("r")), every_file(&src));
}

#[test]
fn a_format_1_archive_is_continued_in_format_1() {
    let t = tmp("v2-keeps-1");
    let (src, root) = (t.0.join("src"), t.0.join("arch"));
    let (main, _) = estate(&src);
    assert_eq!(run(&src, &root).format, 1);
    append(&main, b"}\n");
    for lost_index in [false, true] {
        if lost_index {
            fs::remove_file(root.join(layout::INDEX)).unwrap();
        }
        let s = run2(&src, &root);
        assert_eq!(s.format, 1, "{s:?}");
    }
    assert!(streams(&root).is_empty());
    restore_all(&root, &t.0.join("r"));
    same_tree(&src, &t.0.join("r"));
}

#[test]
fn a_stream_under_another_sessions_folder_is_refused_unchanged() {
    let t = tmp("v2-misplaced");
    let (src, root) = (t.0.join("src"), t.0.join("arch"));
    let (_, _, other) = big_estate(&src);
    run2(&src, &root);
    let other_key = Key { project: "-home-u-repo".into(), rel: other.file_name().unwrap().to_string_lossy().into() };
    let (a, b) = (Unit::of(&main_key()).path(&root), Unit::of(&other_key).path(&root));
    fs::copy(&a, &b).unwrap();
    let bytes = fs::read(&b).unwrap();
    let e = list(&root).unwrap_err();
    assert!(e.message.contains("places this stream elsewhere"), "{e}");
    // never read as the other session's, nor appended to: set aside unchanged, stored again
    append(&other, b"{\"more\":1}\n");
    let s = run2(&src, &root);
    assert!(s.healed.iter().any(|f| f.contains("places this stream elsewhere")), "{s:?}");
    assert_eq!(fs::read(format!("{}.damaged-1", b.display())).unwrap(), bytes);
    restore_all(&root, &t.0.join("r"));
    assert_eq!(every_file(&t.0.join("r")), every_file(&src));
}

/// The ways a stream gets damaged from outside: cut inside its first segment, its first bytes
/// overwritten, garbage appended, replaced by a symbolic link.
fn damage(path: &Path, how: &str, outside: &Path) {
    match how {
        "truncated" => {
            let (segs, _) = stream::read_segments(path).unwrap();
            fs::OpenOptions::new().write(true).open(path).unwrap().set_len(segs[0].end / 2).unwrap();
        }
        "first bytes" => {
            let mut b = fs::read(path).unwrap();
            b[..8].copy_from_slice(b"garbage!");
            fs::write(path, b).unwrap();
        }
        "appended garbage" => append(path, b"this is not a segment"),
        "symlink" => {
            fs::write(outside, b"a file outside the archive").unwrap();
            fs::remove_file(path).unwrap();
            std::os::unix::fs::symlink(outside, path).unwrap();
        }
        _ => unreachable!(),
    }
}

#[test]
fn a_damaged_stream_is_named_the_others_restore_and_the_next_run_stores_it_again() {
    for how in ["truncated", "first bytes", "appended garbage", "symlink"] {
        let t = tmp(&format!("v2-damaged-{}", how.replace(' ', "-")));
        let (src, root) = (t.0.join("src"), t.0.join("arch"));
        let (_, _, other) = big_estate(&src);
        run2(&src, &root);
        let path = Unit::of(&main_key()).path(&root);
        let outside = t.0.join("outside");
        damage(&path, how, &outside);
        let kept = fs::symlink_metadata(&path).map(|m| m.file_type().is_symlink()).unwrap();
        // the listing names the damaged stream and still holds the other session
        let l = read::list_all(&root).unwrap();
        assert_eq!(l.damaged.len(), 1, "{how}: {l:?}");
        let d = &l.damaged[0];
        assert!(d.error.message.starts_with(&path.display().to_string()), "{how}: {}", d.error);
        assert_eq!((d.session.as_deref(), d.project.as_deref()), (Some(SID), Some("-home-u-repo")), "{how}");
        assert!(l.lacking.is_empty(), "{how}: its files are named by the damaged stream, not again: {l:?}");
        let rest = latest(l.stored);
        assert!(rest.iter().all(|s| crate::archive::owner::of(&s.key) != Some(SID)), "{how}");
        let to = t.0.join("r");
        for r in restore::restore(&rest, &projects_only(&to), true, &Progress::default()) {
            r.unwrap();
        }
        let name = other.file_name().unwrap();
        assert_eq!(fs::read(to.join("-home-u-repo").join(name)).unwrap(), fs::read(&other).unwrap(), "{how}");
        // the readers skip it with a warning and read the rest
        let (files, warnings) = super::estate_scan_tests::reader_listing(&root).unwrap();
        assert_eq!(files, 1, "{how}: {warnings:?}");
        assert!(warnings.iter().any(|w| w.starts_with(&path.display().to_string())), "{how}: {warnings:?}");
        // the next run sets it aside (a link moved as a link, its target untouched) and
        // stores the session again, though nothing changed in the estate
        let s = run2(&src, &root);
        assert_eq!((s.failures.len(), s.healed.len()), (0, 1), "{how}: {s:?}");
        assert_eq!(s.added, 4, "{how}: {s:?}");
        let aside = PathBuf::from(format!("{}.damaged-1", path.display()));
        assert_eq!(fs::symlink_metadata(&aside).unwrap().file_type().is_symlink(), kept, "{how}");
        if how == "symlink" {
            assert_eq!(fs::read(&outside).unwrap(), b"a file outside the archive");
        }
        let l = read::list_all(&root).unwrap();
        assert!(l.damaged.is_empty() && l.lacking.is_empty(), "{how}: {l:?}");
        restore_all(&root, &t.0.join("r2"));
        assert_eq!(every_file(&t.0.join("r2")), every_file(&src), "{how}");
        let s = run2(&src, &root);
        assert_eq!((s.unchanged, s.healed.len()), (5, 0), "{how}: healed once: {s:?}");
    }
}

#[test]
fn a_lost_or_cut_back_stream_is_named_and_stored_again() {
    let t = tmp("v2-lost");
    let (src, root) = (t.0.join("src"), t.0.join("arch"));
    let (main, ..) = big_estate(&src);
    run2(&src, &root);
    let path = Unit::of(&main_key()).path(&root);
    let first = fs::metadata(&path).unwrap().len();
    append(&main, b"{\"more\":1}\n");
    run2(&src, &root);
    // cut back to the first run's segment: the index says more was stored
    fs::OpenOptions::new().write(true).open(&path).unwrap().set_len(first).unwrap();
    let l = read::list_all(&root).unwrap();
    assert!(l.damaged.is_empty(), "{l:?}");
    assert_eq!(l.lacking.len(), 1, "{l:?}");
    assert_eq!(l.lacking[0].key, main_key());
    assert!(l.lacking[0].error.contains("holds only generation 1"), "{}", l.lacking[0].error);
    let s = run2(&src, &root);
    assert_eq!((s.appended, s.failures.len()), (1, 0), "stored again: {s:?}");
    assert!(read::list_all(&root).unwrap().lacking.is_empty());
    restore_all(&root, &t.0.join("r1"));
    assert_eq!(every_file(&t.0.join("r1")), every_file(&src));
    // the stream deleted: every file of it is named, then stored again by the next run
    fs::remove_file(&path).unwrap();
    let l = read::list_all(&root).unwrap();
    assert_eq!(l.lacking.len(), 4, "{l:?}");
    assert!(l.lacking.iter().all(|x| x.error.contains("no store file holds it")), "{l:?}");
    let s = run2(&src, &root);
    assert_eq!((s.added, s.healed.len(), s.failures.len()), (4, 1, 0), "{s:?}");
    assert!(s.healed[0].contains("missing"), "{:?}", s.healed);
    assert!(read::list_all(&root).unwrap().lacking.is_empty());
    restore_all(&root, &t.0.join("r2"));
    assert_eq!(every_file(&t.0.join("r2")), every_file(&src));
}
