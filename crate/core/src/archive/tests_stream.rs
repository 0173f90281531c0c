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
fn big_estate(dir: &Path) -> (PathBuf, PathBuf, PathBuf) {
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

fn restore_some(root: &Path, to: &Path, which: impl Fn(&Stored) -> bool) -> Vec<Result<view::Restored, String>> {
    let all: Vec<Stored> = latest(list(root).unwrap()).into_iter().filter(|s| which(s)).collect();
    view::restore(&all, &projects_only(to), true, &Progress::default())
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
    assert!(all_paths(&root).iter().all(|p| p.file_name().is_none_or(|n| n != layout::TRANSCRIPT)));
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
    let r = restore_some(&root, &to, |s| s.key.owner() == Some(SID));
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
    let r = restore_some(&root, &to, |s| s.key.owner() == Some(SID));
    let name = path.display().to_string();
    for e in &r {
        let e = e.as_ref().unwrap_err();
        assert!(e.starts_with(&name) && e.contains("corrupt archive"), "{e}");
    }
    assert!(all_paths(&to).iter().all(|p| p.is_dir()), "no file written: {:?}", all_paths(&to));
    // archive: an append to the damaged stream is refused by name and the stream left as it was
    append(&main, b"{\"more\":1}\n");
    let s = run2(&src, &root);
    assert_eq!(s.failures.len(), 1, "{s:?}");
    assert!(s.failures[0].message.starts_with(&name), "{:?}", s.failures);
    assert_eq!(fs::read(&path).unwrap(), b, "left byte for byte");
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
    assert!(e.contains("places this stream elsewhere"), "{e}");
    append(&other, b"{\"more\":1}\n");
    let s = run2(&src, &root);
    assert!(s.failures.iter().any(|f| f.message.contains("places this stream elsewhere")), "{s:?}");
    assert_eq!(fs::read(&b).unwrap(), bytes);
}
