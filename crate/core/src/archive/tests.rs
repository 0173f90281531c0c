use super::key::Key;
use super::*;
use crate::failure::{Code, Failure};
use crate::scan::Progress;
use std::fs;
use std::path::{Path, PathBuf};

pub(super) struct Tmp(pub(super) PathBuf);
impl Drop for Tmp {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}
pub(super) fn tmp(name: &str) -> Tmp {
    let d = std::env::temp_dir().join(format!("cj-archive-{name}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&d);
    fs::create_dir_all(&d).unwrap();
    Tmp(d)
}

/// An archive run in format 1 (the tests of the format-1 writer, which still continues
/// format-1 archives).
fn run(estate: &Path, root: &Path) -> Summary {
    write::archive_as(&[estate.to_path_buf()], &[], root, "2026-11-30T00:00:00Z", &Progress::default(), Some(1))
        .unwrap()
}

/// An archive run as the CLI runs it (format 2 for a new root).
fn run2(estate: &Path, root: &Path) -> Summary {
    archive(&[estate.to_path_buf()], &[], root, "2026-11-30T00:00:00Z", &Progress::default()).unwrap()
}

pub(super) fn projects_only(to: &Path) -> destination::Targets {
    destination::Targets { projects: to.to_path_buf(), config: None }
}

fn restore_all(root: &Path, to: &Path) {
    let all = latest(list(root).unwrap());
    for r in restore::restore(&all, &projects_only(to), true, &Progress::default()) {
        r.unwrap();
    }
}

pub(super) fn same_tree(a: &Path, b: &Path) {
    let files = |d: &Path| {
        let mut v: Vec<(PathBuf, Vec<u8>)> = crate::estate::discover(&[d.to_path_buf()])
            .unwrap()
            .into_iter()
            .map(|f| (f.path.strip_prefix(d).unwrap().to_path_buf(), fs::read(&f.path).unwrap()))
            .collect();
        v.sort();
        v
    };
    assert_eq!(files(a), files(b));
}

pub(super) const SID: &str = "0b7c8a8e-1111-4222-8333-444455556666";

pub(super) fn estate(dir: &Path) -> (PathBuf, PathBuf) {
    let proj = dir.join("-home-u-repo");
    fs::create_dir_all(proj.join(SID).join("subagents")).unwrap();
    let main = proj.join(format!("{SID}.jsonl"));
    fs::write(&main, b"\xEF\xBB\xBF{\"type\":\"user\"}\r\nnot json\n{\"torn\":").unwrap();
    let sub = proj.join(SID).join("subagents").join("agent-a1.jsonl");
    fs::write(&sub, b"{\"type\":\"assistant\"}\n").unwrap();
    (main, sub)
}

/// The archive key of the main transcript `estate` writes.
fn main_key() -> Key {
    Key { project: "-home-u-repo".into(), rel: format!("{SID}.jsonl") }
}

pub(super) fn append(p: &Path, b: &[u8]) {
    use std::io::Write;
    fs::OpenOptions::new().append(true).open(p).unwrap().write_all(b).unwrap();
}

#[test]
fn archive_append_rewrite_restore_is_byte_identical() {
    let t = tmp("cycle");
    let (src, root) = (t.0.join("src"), t.0.join("arch"));
    let (main, sub) = estate(&src);
    let s = run(&src, &root);
    assert_eq!((s.files, s.added, s.failures.len()), (2, 2, 0));
    assert!(is_archive(&root));
    let s = run(&src, &root);
    assert_eq!(s.unchanged, 2, "{s:?}");
    append(&main, b"}\n{\"more\":1}\n");
    let s = run(&src, &root);
    assert_eq!((s.appended, s.unchanged, s.generations), (1, 1, 0), "{s:?}");
    restore_all(&root, &t.0.join("r1"));
    same_tree(&src, &t.0.join("r1"));
    // Claude Code rewrote the subagent file: a new generation, the old one kept
    fs::write(&sub, b"{\"type\":\"rewritten\"}\n").unwrap();
    let s = run(&src, &root);
    assert_eq!(s.generations, 1, "{s:?}");
    let all = list(&root).unwrap();
    assert_eq!(all.len(), 3);
    restore_all(&root, &t.0.join("r2"));
    same_tree(&src, &t.0.join("r2"));
    // restoring again over identical files is fine; over a different file is refused
    restore_all(&root, &t.0.join("r2"));
    fs::write(t.0.join("r2").join("-home-u-repo").join(format!("{SID}.jsonl")), b"other\n").unwrap();
    let latest = latest(list(&root).unwrap());
    let errs: Vec<String> = restore::restore(&latest, &projects_only(&t.0.join("r2")), true, &Progress::default())
        .into_iter()
        .filter_map(|r| r.err().map(|e| e.message))
        .collect();
    assert_eq!(errs.len(), 1);
    assert!(errs[0].contains("differs"), "{}", errs[0]);
    assert_eq!(fs::read(t.0.join("r2").join("-home-u-repo").join(format!("{SID}.jsonl"))).unwrap(), b"other\n");
    // the source deleted (Claude Code's cleanup): the archive keeps it
    fs::remove_file(&main).unwrap();
    let s = run(&src, &root);
    assert_eq!((s.files, s.archived_files), (1, 2));
}

#[test]
fn index_lost_or_stale_is_rebuilt_from_the_store() {
    let t = tmp("stale");
    let (src, root) = (t.0.join("src"), t.0.join("arch"));
    let (main, _) = estate(&src);
    run(&src, &root);
    fs::remove_file(root.join(layout::INDEX)).unwrap();
    let s = run(&src, &root);
    assert_eq!((s.touched, s.added, s.appended), (2, 0, 0), "{s:?}");
    append(&main, b"x\n");
    fs::remove_file(root.join(layout::INDEX)).unwrap();
    let s = run(&src, &root);
    assert_eq!((s.appended, s.generations), (1, 0), "{s:?}");
    restore_all(&root, &t.0.join("r"));
    same_tree(&src, &t.0.join("r"));
}

#[test]
fn an_unfinished_run_is_cut_and_a_torn_frame_repaired() {
    let t = tmp("crash");
    let (src, root) = (t.0.join("src"), t.0.join("arch"));
    let (main, _) = estate(&src);
    run(&src, &root);
    let key = main_key();
    let store_path = key.store_path(&root, 0);
    let committed = fs::read(&store_path).unwrap();
    // a run that wrote a data frame but was killed before its mark, then a torn frame
    let frame = crate::store::encode_batch(
        b"{\"seq\":4,\"type\":\"line\",\"data\":{\"lost\":1}}\n",
        crate::store::Encoding::Zstd,
    )
    .unwrap();
    let mut bad = committed.clone();
    bad.extend_from_slice(&frame);
    bad.extend_from_slice(&frame[..frame.len() / 2]);
    fs::write(&store_path, &bad).unwrap();
    // readers see only committed bytes
    restore_all(&root, &t.0.join("r0"));
    same_tree(&src, &t.0.join("r0"));
    append(&main, b"}\n{\"after\":1}\n");
    let s = run(&src, &root);
    assert_eq!(s.appended, 1, "{s:?}");
    restore_all(&root, &t.0.join("r1"));
    same_tree(&src, &t.0.join("r1"));
}

#[test]
fn damage_and_foreign_files_are_named() {
    let t = tmp("bad");
    let (src, root) = (t.0.join("src"), t.0.join("arch"));
    let (main, _) = estate(&src);
    run(&src, &root);
    let key = main_key();
    let store_path = key.store_path(&root, 0);
    let mut b = fs::read(&store_path).unwrap();
    let at = b.len() - 20;
    b[at] ^= 0x55;
    fs::write(&store_path, &b).unwrap();
    append(&main, b"}\n");
    let s = run(&src, &root);
    assert_eq!(s.failures.len(), 1, "{s:?}");
    assert!(s.failures[0].message.starts_with(&store_path.display().to_string()), "{}", s.failures[0].message);
    // the estate file travels as data beside the line, which names the damaged store file
    assert_eq!(s.failures[0].path.as_deref(), Some(main.display().to_string().as_str()));
    assert_eq!(fs::read(&store_path).unwrap(), b, "a damaged store file is left alone");
    // an index write cut short leaves its temp file: readers and the next run pass it by
    let (tmp, _) = crate::durable::temp_beside(&root.join(layout::INDEX)).unwrap();
    assert!(tmp.file_name().unwrap().to_string_lossy().starts_with(layout::INDEX), "{}", tmp.display());
    assert!(list(&root).is_ok());
    fs::remove_file(tmp).unwrap();
    // a second run while one holds the archive
    let held = fs::File::open(&root).unwrap();
    held.try_lock().unwrap();
    let e = archive(std::slice::from_ref(&src), &[], &root, "t", &Progress::default()).unwrap_err();
    assert!(e.message.contains("another archive run"), "{e}");
    // a run that cannot proceed is an archive failure, whatever stopped it, about the file named
    assert_eq!((e.code, e.path.as_deref()), (Code::Archive, Some(root.display().to_string().as_str())));
    drop(held);
    fs::write(root.join("notes.txt"), b"x").unwrap();
    let e = archive(std::slice::from_ref(&src), &[], &root, "t", &Progress::default()).unwrap_err();
    assert!(e.message.contains("notes.txt") && e.message.contains("foreign"), "{e}");
}

/// Where archive CPU time goes, on a sample file: `ARCHIVE_SAMPLE=file cargo test --release
/// -- --ignored cost_breakdown --nocapture`.
#[test]
#[ignore]
fn cost_breakdown() {
    let Ok(p) = std::env::var("ARCHIVE_SAMPLE") else { return };
    let data = fs::read(p).unwrap();
    let mb = data.len() as f64 / 1e6;
    let t = std::time::Instant::now();
    let mut json = crate::scan::json_text::JsonText::default();
    let mut text = Vec::new();
    events::encode(&mut json, &data, 0, &mut text);
    let enc = t.elapsed().as_secs_f64();
    let t = std::time::Instant::now();
    let mut stored = 0;
    for (a, b) in write::cut_chunks(&text) {
        stored +=
            crate::store::encode_batch_with(&text[a..b], crate::store::Encoding::Zstd, crate::store::Profile::Archive)
                .unwrap()
                .len();
    }
    let z = t.elapsed().as_secs_f64();
    let t = std::time::Instant::now();
    let h = crate::hash::sha256_hex(&data);
    let sha = t.elapsed().as_secs_f64();
    println!(
        "{mb:.0} MB: events {:.0} MB/s, zstd {:.0} MB/s (ratio {:.2}), sha256 {:.0} MB/s {}",
        mb / enc,
        mb / z,
        data.len() as f64 / stored as f64,
        mb / sha,
        &h[..8]
    );
}

#[test]
fn a_touch_records_the_new_mtime_and_restore_returns_it() {
    let t = tmp("touch");
    let (src, root) = (t.0.join("src"), t.0.join("arch"));
    let (main, _) = estate(&src);
    run(&src, &root);
    let key = main_key();
    let before = fs::metadata(key.store_path(&root, 0)).unwrap().len();
    let later = std::time::SystemTime::now() + std::time::Duration::from_secs(3600);
    fs::File::options().write(true).open(&main).unwrap().set_modified(later).unwrap();
    let s = run(&src, &root);
    assert_eq!((s.touched, s.unchanged, s.bytes_in), (1, 1, 0), "{s:?}");
    assert!(s.bytes_stored > 0 && fs::metadata(key.store_path(&root, 0)).unwrap().len() > before);
    assert_eq!(run(&src, &root).unchanged, 2, "the new mtime is in the index too");
    // the index lost: rebuilt from the store, whose last mark has the new mtime
    fs::remove_file(root.join(layout::INDEX)).unwrap();
    let s = run(&src, &root);
    assert_eq!((s.touched, s.bytes_stored), (2, 0), "{s:?}");
    let out = t.0.join("r");
    restore_all(&root, &out);
    same_tree(&src, &out);
    let got = fs::metadata(destination::destination(&out, &key).unwrap().path).unwrap().modified().unwrap();
    assert_eq!(got, fs::metadata(&main).unwrap().modified().unwrap());
}

#[test]
fn frames_decode_the_same_pipelined_or_one_by_one() {
    let t = tmp("pipeline");
    let (src, root) = (t.0.join("src"), t.0.join("arch"));
    let (main, _) = estate(&src);
    run(&src, &root);
    for i in 0..5 {
        append(&main, format!("}}\n{{\"more\":{i}}}\nnot json {i}\n").as_bytes());
        run(&src, &root);
    }
    // an unfinished run after the last mark, which the next run cuts
    let key = main_key();
    let path = key.store_path(&root, 0);
    let events = read::decode(&path, &mut read::Count::default(), true).unwrap().events;
    let line = format!("{{\"seq\":{events},\"type\":\"line\",\"data\":{{\"lost\":1}}}}\n");
    let frame = crate::store::encode_batch(line.as_bytes(), crate::store::Encoding::Zstd).unwrap();
    append(&path, &frame);
    append(&main, b"{\"after\":1}\n");
    run(&src, &root);
    let bytes = fs::read(&path).unwrap();
    let bufs = read::Buffers::default();
    let mut got = Vec::new();
    for pipeline in [false, true] {
        let (tmp_path, mut f) = crate::durable::temp_beside(&t.0.join("out")).unwrap();
        let d = read::decode_bytes(
            &bufs,
            &path,
            &bytes,
            &mut read::FileSink { file: &mut f, path: &tmp_path },
            true,
            pipeline,
        )
        .unwrap();
        got.push((d.events, d.len, d.mark, fs::read(&tmp_path).unwrap()));
    }
    assert_eq!(got[0], got[1]);
    assert_eq!(got[0].3, fs::read(&main).unwrap());
    // a wrong seq is named by its record number either way
    let mut bad = bytes.clone();
    bad.extend_from_slice(&frame);
    for pipeline in [false, true] {
        let e = read::decode_bytes(&bufs, &path, &bad, &mut read::Count::default(), true, pipeline).unwrap_err();
        assert!(e.message.contains(&format!("record {} has seq {events}", got[0].0 + 1)), "{e}");
    }
}

/// The same source mapped and read window by window encodes to the same frames: over many
/// windows (64 KiB in test builds), a line longer than two windows, a line that is not JSON
/// and a last line without its newline. The frames decode back to the source.
#[test]
fn mapped_and_read_sources_encode_the_same_frames() {
    struct Frames(Vec<u8>);
    impl write::FrameSink for Frames {
        fn put(&mut self, frame: &[u8]) -> Result<(), Failure> {
            self.0.extend_from_slice(frame);
            Ok(())
        }
    }
    struct Bytes(Vec<u8>);
    impl read::Sink for Bytes {
        fn put(&mut self, b: &[u8]) -> Result<(), Failure> {
            self.0.extend_from_slice(b);
            Ok(())
        }
        fn cut(&mut self, len: u64) -> Result<(), Failure> {
            self.0.truncate(len as usize);
            Ok(())
        }
    }
    let t = tmp("source-modes");
    let mut bytes = Vec::new();
    for i in 0..3000 {
        bytes.extend_from_slice(format!("{{\"n\":{i},\"pad\":\"{}\"}}\n", "x".repeat(i % 97)).as_bytes());
    }
    bytes.extend_from_slice(format!("{{\"long\":\"{}\"}}\nnot json\n", "y".repeat(200_000)).as_bytes());
    bytes.extend_from_slice(b"{\"n\":1}\n{\"torn\":");
    let p = t.0.join("s.jsonl");
    fs::write(&p, &bytes).unwrap();
    let f = fs::File::open(&p).unwrap();
    let key = Key { project: "-p".into(), rel: "s.jsonl".into() };
    let encode = |map: bool| {
        let mut source = source::Source::open_with(&f, &p, bytes.len() as u64, map).unwrap();
        let header = layout::header_line(&key, 0, "2026-11-30T00:00:00Z");
        let mut sink = Frames(
            crate::store::encode_batch_with(&header, crate::store::Encoding::Zstd, crate::store::Profile::Archive)
                .unwrap(),
        );
        let end = bytes.len() as u64;
        let (sha, events) =
            write::encode_range(&mut source, 0, end, 0, sha2::Sha256::default(), 1, &mut sink, &Progress::default())
                .unwrap();
        (sink.0, sha, events)
    };
    let (mapped, read) = (encode(true), encode(false));
    assert!(mapped == read, "the two modes differ");
    assert_eq!(mapped.1, crate::hash::sha256_hex(&bytes));
    let mut back = Bytes(Vec::new());
    let d = read::decode_bytes(&read::Buffers::default(), &p, &mapped.0, &mut back, true, false).unwrap();
    assert_eq!((d.events, d.len), (mapped.2, bytes.len() as u64));
    assert!(back.0 == bytes, "decodes back to the source");
}

/// Store headers an archive from someone else could carry, each placing its transcript outside
/// the folder it is restored or read into: (case name, source.project, source.path).
const HOSTILE: &[(&str, &str, &str)] = &[
    ("project-parent", "../../../../tmp/claude-jsonl-hostile", "s.jsonl"),
    ("project-absolute", "/tmp/claude-jsonl-hostile-abs", "s.jsonl"),
    ("project-dotdot", "..", "claude-jsonl-hostile.jsonl"),
    ("project-dot", ".", "claude-jsonl-hostile.jsonl"),
    ("project-empty", "", "claude-jsonl-hostile.jsonl"),
    ("project-separator", "a/../..", "claude-jsonl-hostile.jsonl"),
    ("project-claude", ".claude", "projects/-x/s.jsonl"),
    ("project-drive", "C:\\claude-jsonl-hostile", "s.jsonl"),
    ("project-unc", "\\\\server\\share", "s.jsonl"),
    ("project-nul", "-home\0-x", "s.jsonl"),
    ("path-parent", "-home-u-ok", "../../../../claude-jsonl-hostile.jsonl"),
    ("path-inner-parent", "-home-u-ok", "s/../../../claude-jsonl-hostile.jsonl"),
    ("path-absolute", "-home-u-ok", "/tmp/claude-jsonl-hostile-path.jsonl"),
    ("path-dot", "-home-u-ok", "./claude-jsonl-hostile.jsonl"),
    ("path-empty-part", "-home-u-ok", "s//claude-jsonl-hostile.jsonl"),
    ("path-backslash", "-home-u-ok", "..\\..\\claude-jsonl-hostile.jsonl"),
    ("path-drive", "-home-u-ok", "C:\\claude-jsonl-hostile.jsonl"),
    ("path-nul", "-home-u-ok", "claude-jsonl-hostile\0.jsonl"),
    ("path-claude", "-home-u-ok", "s/.claude/settings.json"),
];

pub(super) const SAFE_SID: &str = "5afe0000-1111-4222-8333-444455556666";

pub(super) fn safe_record(kind: &str, text: &str, n: u32) -> String {
    let (uuid, parent) = (format!("{kind}-{n}"), if n == 0 { "null".into() } else { format!("\"user-{n}\"") });
    let content = match kind {
        "user" => format!("\"{text}\""),
        _ => format!("[{{\"type\":\"text\",\"text\":\"{text}\"}}]"),
    };
    let extra = match kind {
        "user" => String::new(),
        _ => format!(
            ",\"id\":\"msg_{n}\",\"model\":\"claude-opus-5-5\",\"usage\":{{\"input_tokens\":10,\"output_tokens\":5}}"
        ),
    };
    format!(
        "{{\"type\":\"{kind}\",\"uuid\":\"{uuid}\",\"parentUuid\":{parent},\"sessionId\":\"{SAFE_SID}\",\"timestamp\":\"2026-11-20T10:00:0{n}.000Z\",\"cwd\":\"/home/u/ok\",\"message\":{{\"role\":\"{kind}\",\"content\":{content}{extra}}}}}\n"
    )
}

/// Writes generation 0 of `key` holding `bytes` (a valid archive file, whatever the key says).
pub(super) fn craft(root: &Path, key: &Key, bytes: &[u8]) -> PathBuf {
    struct Frames(Vec<u8>);
    impl write::FrameSink for Frames {
        fn put(&mut self, frame: &[u8]) -> Result<(), Failure> {
            self.0.extend_from_slice(frame);
            Ok(())
        }
    }
    static N: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let src = std::env::temp_dir().join(format!("cj-craft-{}-{n}", std::process::id()));
    fs::write(&src, bytes).unwrap();
    let f = fs::File::open(&src).unwrap();
    let mut source = source::Source::open_with(&f, &src, bytes.len() as u64, false).unwrap();
    let header = layout::header_line(key, 0, "2026-11-30T00:00:00Z");
    let (zstd, profile) = (crate::store::Encoding::Zstd, crate::store::Profile::Archive);
    let mut sink = Frames(crate::store::encode_batch_with(&header, zstd, profile).unwrap());
    let mtime_ns = 1_763_632_800_000_000_000; // 2025-11-20T10:00:00Z
    let end = bytes.len() as u64;
    write::encode_range(&mut source, 0, end, 0, sha2::Sha256::default(), mtime_ns, &mut sink, &Progress::default())
        .unwrap();
    fs::remove_file(&src).unwrap();
    let path = key.store_path(root, 0);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(&path, sink.0).unwrap();
    path
}

/// An archive of two good transcripts (a session and its subagent) and one transcript per
/// hostile header; returns the good keys with their bytes and the hostile store files.
#[allow(clippy::type_complexity)]
fn hostile_archive(root: &Path) -> (Vec<(Key, Vec<u8>)>, Vec<(&'static str, Key, PathBuf)>) {
    let good = vec![
        (
            Key { project: "-home-u-ok".into(), rel: format!("{SAFE_SID}.jsonl") },
            [safe_record("user", "hello from a safe transcript", 0), safe_record("assistant", "a safe reply", 1)]
                .concat()
                .into_bytes(),
        ),
        (
            Key { project: "-home-u-ok".into(), rel: format!("{SAFE_SID}/subagents/agent-a1.jsonl") },
            safe_record("assistant", "a safe subagent", 1).into_bytes(),
        ),
    ];
    for (k, b) in &good {
        craft(root, k, b);
    }
    let hostile = HOSTILE
        .iter()
        .map(|&(name, project, rel)| {
            let key = Key { project: project.into(), rel: rel.into() };
            let line = format!("{{\"type\":\"user\",\"message\":{{\"role\":\"user\",\"content\":\"{name}\"}}}}\n");
            let path = craft(root, &key, line.as_bytes());
            (name, key, path)
        })
        .collect();
    (good, hostile)
}

/// Every path under `dir` (folders and files).
pub(super) fn all_paths(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Ok(rd) = fs::read_dir(dir) {
        for e in rd.flatten() {
            out.push(e.path());
            if e.file_type().unwrap().is_dir() {
                out.extend(all_paths(&e.path()));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn a_hostile_archive_restores_the_rest_and_writes_nothing_outside() {
    let t = tmp("hostile");
    let root = t.0.join("a").join("arch");
    let (good, hostile) = hostile_archive(&root);
    let to = t.0.join("a").join("b").join("c").join("d").join("to");
    let before: Vec<PathBuf> = all_paths(&t.0);
    let all = latest(list(&root).unwrap());
    assert_eq!(all.len(), good.len() + hostile.len());
    let results = restore::restore(&all, &projects_only(&to), true, &Progress::default());
    for (s, r) in all.iter().zip(&results) {
        match hostile.iter().find(|h| h.1 == s.key) {
            Some((name, key, path)) => {
                let e = r.as_ref().expect_err(name);
                let field = if HOSTILE.iter().any(|h| h.0 == *name && h.0.starts_with("project")) {
                    "source.project"
                } else {
                    "source.path"
                };
                assert!(
                    e.message.starts_with(&format!("{}: refused: header field {field} ", path.display())),
                    "{name}: {e}"
                );
                assert!(destination::check_key(key).is_err());
            }
            None => assert!(r.is_ok(), "{:?}", r),
        }
    }
    for (k, bytes) in &good {
        assert_eq!(&fs::read(destination::destination(&to, k).unwrap().path).unwrap(), bytes);
    }
    // outside `to` nothing new: the tree is as before plus `to`'s ancestors
    let after: Vec<PathBuf> = all_paths(&t.0).into_iter().filter(|p| !p.starts_with(&to)).collect();
    let mut expected: Vec<PathBuf> = before.clone();
    expected.extend(to.ancestors().skip(1).filter(|a| a.starts_with(&t.0) && *a != t.0).map(Path::to_path_buf));
    expected.sort();
    expected.dedup();
    assert_eq!(after, expected);
    let inside: Vec<String> =
        all_paths(&to).into_iter().map(|p| p.strip_prefix(&to).unwrap().display().to_string()).collect();
    let sub = format!("-home-u-ok/{SAFE_SID}");
    assert_eq!(
        inside,
        [
            "-home-u-ok".to_string(),
            sub.clone(),
            format!("{sub}/subagents"),
            format!("{sub}/subagents/agent-a1.jsonl"),
            format!("{sub}.jsonl")
        ]
    );
    for p in ["/tmp/claude-jsonl-hostile", "/tmp/claude-jsonl-hostile-abs", "/tmp/claude-jsonl-hostile-path.jsonl"] {
        assert!(!Path::new(p).exists(), "{p}");
    }
    // the readers refuse the archive
    let e = estate_scan_tests::reader_listing(&root).unwrap_err();
    assert!(e.message.contains("refused: header field") && e.message.contains("the archive is not read"), "{e}");
    // the same archive without its hostile transcripts reads
    for (_, _, p) in &hostile {
        fs::remove_dir_all(p.parent().unwrap()).unwrap();
        let project = p.parent().unwrap().parent().unwrap();
        if fs::read_dir(project).unwrap().next().is_none() {
            fs::remove_dir(project).unwrap();
        }
    }
    assert_eq!(estate_scan_tests::reader_listing(&root).unwrap(), (2, vec![]));
}

/// `fixtures/hostile-archive/archive` is the archive `hostile_archive` writes (the CLI tests
/// read it); `CLAUDE_JSONL_WRITE_FIXTURES=1 cargo test hostile_archive_fixture` rewrites it.
#[test]
fn the_hostile_archive_fixture_is_current() {
    let t = tmp("hostile-fixture");
    let root = t.0.join("archive");
    let (_, hostile) = hostile_archive(&root);
    let mut cases = String::from("[\n");
    for (i, (name, key, path)) in hostile.iter().enumerate() {
        let field = if destination::check_key(key).unwrap_err().field == "source.project" { "project" } else { "path" };
        let store = path.parent().unwrap().strip_prefix(&root).unwrap().display().to_string();
        cases.push_str(&format!(
            "  {{\"name\": {}, \"field\": \"source.{field}\", \"project\": {}, \"path\": {}, \"store\": {}}}{}\n",
            layout::json_string(name),
            layout::json_string(&key.project),
            layout::json_string(&key.rel),
            layout::json_string(&store),
            if i + 1 < hostile.len() { "," } else { "" }
        ));
    }
    cases.push_str("]\n");
    fs::write(t.0.join("cases.json"), cases).unwrap();
    fixture_is_current(&t.0, "hostile-archive");
}

/// `fixtures/<name>` holds exactly the files under `built`; with `CLAUDE_JSONL_WRITE_FIXTURES`
/// set it is rewritten from them first.
pub(super) fn fixture_is_current(built: &Path, name: &str) {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures").join(name);
    let tree = |d: &Path| -> Vec<(PathBuf, Vec<u8>)> {
        all_paths(d)
            .into_iter()
            .filter(|p| p.is_file())
            .map(|p| (p.strip_prefix(d).unwrap().to_path_buf(), fs::read(&p).unwrap()))
            .collect()
    };
    if std::env::var_os("CLAUDE_JSONL_WRITE_FIXTURES").is_some() {
        let _ = fs::remove_dir_all(&fixture);
        for (rel, bytes) in tree(built) {
            fs::create_dir_all(fixture.join(&rel).parent().unwrap()).unwrap();
            fs::write(fixture.join(&rel), bytes).unwrap();
        }
    }
    assert!(
        tree(&fixture) == tree(built),
        "fixtures/{name} is stale: CLAUDE_JSONL_WRITE_FIXTURES=1 cargo test fixture"
    );
}

/// A store file whose header is another transcript's, under this one's path and with a torn
/// tail: the archive run refuses it before any repair, and the file stays as it was.
#[test]
fn a_store_file_under_another_transcripts_path_is_refused_unchanged() {
    let t = tmp("misplaced");
    let (src, root) = (t.0.join("src"), t.0.join("arch"));
    estate(&src);
    let key = main_key();
    let other = Key { project: key.project.clone(), rel: "0000-other.jsonl".into() };
    let crafted = craft(&root, &other, b"{\"a\":1}\n");
    let mut bytes = fs::read(&crafted).unwrap();
    fs::remove_dir_all(crafted.parent().unwrap()).unwrap();
    let torn =
        crate::store::encode_batch_with(b"{\"x\":1}\n", crate::store::Encoding::Zstd, crate::store::Profile::Archive)
            .unwrap();
    bytes.extend_from_slice(&torn[..torn.len() - 5]);
    let path = key.store_path(&root, 0);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(&path, &bytes).unwrap();
    let s = run(&src, &root);
    let failure = s.failures.iter().find(|f| f.message.starts_with(&path.display().to_string())).expect("refused");
    assert!(failure.message.contains("header places this transcript elsewhere"), "{}", failure.message);
    assert_eq!(fs::read(&path).unwrap(), bytes, "left as it was");
}

/// `fixtures/archive-format-1`: an archive as this format writes it (several frames per
/// transcript, an appended run after a mark, a base64 line, a rewritten file kept as a second
/// generation) beside the transcripts it holds. It is never rewritten: a later writer (another
/// frame encoding, dictionaries) must still read it, byte for byte. When the folder is missing,
/// `CLAUDE_JSONL_WRITE_FIXTURES=1 cargo test archive_format_1` writes it.
#[test]
fn an_archive_in_format_1_still_restores_byte_identical() {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/archive-format-1");
    if !fixture.exists() && std::env::var_os("CLAUDE_JSONL_WRITE_FIXTURES").is_some() {
        let t = tmp("format-1-write");
        let (src, root) = (fixture.join("projects"), t.0.join("archive"));
        let (main, sub) = estate(&src);
        // more than one frame per run (tests cut frames at 16 KiB)
        let many: String =
            (0..400).map(|n| safe_record(if n % 2 == 0 { "user" } else { "assistant" }, "x", n)).collect();
        append(&main, format!("}}\n{many}").as_bytes());
        run(&src, &root);
        append(&main, many.as_bytes());
        fs::write(&sub, b"{\"type\":\"rewritten\"}\n").unwrap();
        run(&src, &root);
        for p in all_paths(&root)
            .into_iter()
            .filter(|p| p.is_file() && !p.file_name().unwrap().to_string_lossy().starts_with(layout::INDEX))
        {
            let to = fixture.join("archive").join(p.strip_prefix(&root).unwrap());
            fs::create_dir_all(to.parent().unwrap()).unwrap();
            fs::copy(&p, to).unwrap();
        }
    }
    let t = tmp("format-1");
    let root = fixture.join("archive");
    assert!(is_archive(&root), "fixtures/archive-format-1/archive is an archive");
    let all = list(&root).unwrap();
    assert_eq!(all.len(), 3, "two transcripts, the rewritten one in two generations");
    let frames = fs::read(&latest(all.clone())[0].path).map(|b| crate::store::frame_spans(&b).unwrap().0.len());
    assert!(frames.unwrap() > 4, "the main transcript spans several frames");
    restore_all(&root, &t.0.join("r"));
    same_tree(&fixture.join("projects"), &t.0.join("r"));
}

/// Every file below `d`, with its bytes (not only transcripts).
fn every_file(d: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![d.to_path_buf()];
    while let Some(p) = stack.pop() {
        for e in fs::read_dir(&p).unwrap() {
            let e = e.unwrap().path();
            if e.is_dir() {
                stack.push(e);
            } else {
                out.push((e.strip_prefix(d).unwrap().to_path_buf(), fs::read(&e).unwrap()));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn a_sessions_own_files_are_archived_incrementally_and_restored_byte_identical() {
    let t = tmp("session-files");
    let (src, root) = (t.0.join("src"), t.0.join("arch"));
    let (main, _) = estate(&src);
    let proj = main.parent().unwrap();
    let results = proj.join(SID).join("tool-results");
    fs::create_dir_all(&results).unwrap();
    let binary: Vec<u8> = (0..=255u8).cycle().take(70_000).collect();
    fs::write(results.join("toolu_01.txt"), "line one\nline two, no newline at the end").unwrap();
    fs::write(results.join("toolu_02.bin"), &binary).unwrap();
    fs::write(proj.join(SID).join("subagents").join("agent-a1.meta.json"), "{\"agentType\":\"x\"}").unwrap();
    fs::write(proj.join(format!("{SID}.precompact.json")), "{}").unwrap();
    // not the session's: a project's memory folder is left to the client
    fs::create_dir_all(proj.join("memory")).unwrap();
    fs::write(proj.join("memory").join("MEMORY.md"), "m").unwrap();
    let s = run(&src, &root);
    assert_eq!((s.files, s.added, s.failures.len()), (6, 6, 0), "{s:?}");
    let s = run(&src, &root);
    assert_eq!((s.unchanged, s.added, s.bytes_in), (6, 0, 0), "{s:?}");
    append(&results.join("toolu_01.txt"), b"\nthree");
    let s = run(&src, &root);
    assert_eq!((s.appended, s.unchanged), (1, 5), "{s:?}");
    let stored = latest(list(&root).unwrap());
    let owners: Vec<Option<&str>> = stored.iter().map(|s| owner::of(&s.key)).collect();
    assert!(owners.iter().all(|o| *o == Some(SID)), "{owners:?}");
    let to = t.0.join("r");
    restore_all(&root, &to);
    let mut want = every_file(&src);
    want.retain(|(p, _)| !p.starts_with("-home-u-repo/memory"));
    assert_eq!(every_file(&to), want);
}

#[path = "tests_stream.rs"]
mod stream_tests;

#[path = "tests_estate_scan.rs"]
pub(super) mod estate_scan_tests;
