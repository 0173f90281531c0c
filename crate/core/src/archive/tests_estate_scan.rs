//! An archive read as an estate from its streams in memory: the same scan as the files it holds,
//! for the latest state and an earlier one, with a damaged stream failing only its own files.
use super::stream_tests::big_estate;
use super::*;
use crate::archive::estate_scan::{scan_estate_and_archives, ArchiveRoot};
use crate::archive::stream::Unit;
use crate::estate::{self, EstateScan};
use crate::scan::{Mode, Scan};

/// What a reader takes from one file's scan, comparable across the two ways of reading it.
fn facts(s: &Scan) -> String {
    let recs: Vec<String> = s
        .records
        .iter()
        .map(|r| format!("{}:{}:{:?}", r.line, s.tables.strings.opt(r.uuid).unwrap_or(""), r.usage.map(|u| u.input)))
        .collect();
    format!(
        "{} {:?} {:?} bom={} tail={} torn={} {}",
        s.bytes,
        s.counts,
        s.first_line,
        s.bom,
        s.unterminated_tail,
        s.torn_tail,
        recs.join(",")
    )
}

/// Per file, by its path under its root: kind, project, session, size and the scan's facts.
fn by_rel(e: &EstateScan, root: &Path) -> Vec<(PathBuf, String)> {
    let mut v: Vec<(PathBuf, String)> = e
        .files
        .iter()
        .zip(&e.scans)
        .zip(&e.session_of_file)
        .map(|((f, s), &si)| {
            let what = match s {
                Ok(s) => facts(s),
                Err(e) => format!("error {e}"),
            };
            let session = &e.sessions[si as usize].session_id;
            (
                f.path.strip_prefix(root).unwrap().to_path_buf(),
                format!("{:?} {} {session} {} {what}", f.kind, f.project, f.size),
            )
        })
        .collect();
    v.sort();
    v
}

fn scan_archive(root: &Path, files: Vec<Stored>, mode: Mode) -> EstateScan {
    let a = ArchiveRoot { root: root.to_path_buf(), files };
    scan_estate_and_archives(&[], &[a], mode, None, None, &Progress::default()).unwrap()
}

#[test]
fn an_archive_scans_as_the_estate_it_holds_in_chunks_across_frames() {
    let t = tmp("scan-latest");
    let (src, root) = (t.0.join("src"), t.0.join("arch"));
    big_estate(&src);
    run2(&src, &root);
    for mode in [Mode::Full, Mode::Usage] {
        let direct = estate::scan_estate(std::slice::from_ref(&src), mode, None, &Progress::default()).unwrap();
        let archived = scan_archive(&root, latest(list(&root).unwrap()), mode);
        assert_eq!(by_rel(&archived, &root), by_rel(&direct, &src), "{mode:?}");
    }
    // nothing was written anywhere: the archive holds what it held
    assert!(all_paths(&root).iter().all(|p| !p.to_string_lossy().ends_with(".jsonl")));
}

#[test]
fn an_earlier_state_scans_as_the_files_were_then() {
    let t = tmp("scan-past");
    let (src, root) = (t.0.join("src"), t.0.join("arch"));
    let (main, ..) = big_estate(&src);
    run2(&src, &root);
    let then = t.0.join("then");
    fs::create_dir_all(&then).unwrap();
    fs::rename(&src, &then).unwrap();
    fs::create_dir_all(&src).unwrap();
    let copy = |from: &Path, to: &Path| {
        for f in estate::discover(&[from.to_path_buf()]).unwrap() {
            let dest = to.join(f.path.strip_prefix(from).unwrap());
            fs::create_dir_all(dest.parent().unwrap()).unwrap();
            fs::copy(&f.path, &dest).unwrap();
        }
    };
    copy(&then, &src);
    // the transcript is rewritten (a new generation), then archived again
    fs::write(&main, b"{\"type\":\"user\",\"uuid\":\"new\"}\n").unwrap();
    run2(&src, &root);
    let stream = Unit::of(&Key { project: "-home-u-repo".into(), rel: format!("{SID}.jsonl") }).path(&root);
    let mut past: Vec<Stored> = latest(list(&root).unwrap()).into_iter().filter(|s| s.path != stream).collect();
    past.extend(history::stream_at(&root, &stream, 1).unwrap());
    let old = scan_archive(&root, past, Mode::Full);
    let direct = estate::scan_estate(std::slice::from_ref(&then), Mode::Full, None, &Progress::default()).unwrap();
    assert_eq!(by_rel(&old, &root), by_rel(&direct, &then));
    let now = scan_archive(&root, latest(list(&root).unwrap()), Mode::Full);
    let direct = estate::scan_estate(std::slice::from_ref(&src), Mode::Full, None, &Progress::default()).unwrap();
    assert_eq!(by_rel(&now, &root), by_rel(&direct, &src));
}

#[test]
fn a_damaged_stream_fails_its_own_files_by_name_and_the_rest_scans() {
    let t = tmp("scan-damaged");
    let (src, root) = (t.0.join("src"), t.0.join("arch"));
    big_estate(&src);
    run2(&src, &root);
    let files = latest(list(&root).unwrap());
    let path = Unit::of(&Key { project: "-home-u-repo".into(), rel: format!("{SID}.jsonl") }).path(&root);
    let (segs, _) = stream::read_segments(&path).unwrap();
    let mut b = fs::read(&path).unwrap();
    b[segs[0].data_at as usize + 40] ^= 0x55;
    fs::write(&path, &b).unwrap();
    let e = scan_archive(&root, files, Mode::Full);
    let name = path.display().to_string();
    for (f, s) in e.files.iter().zip(&e.scans) {
        match f.session_id.as_deref() == Some(SID) {
            true => assert!(s.as_ref().unwrap_err().starts_with(&name), "{s:?}"),
            false => assert!(s.as_ref().unwrap().records.len() > 10, "{}", f.path.display()),
        }
    }
}

#[test]
fn one_file_reads_back_whole_and_checked() {
    let t = tmp("scan-read");
    let (src, root) = (t.0.join("src"), t.0.join("arch"));
    let (main, ..) = big_estate(&src);
    run2(&src, &root);
    let s = latest(list(&root).unwrap()).into_iter().find(|s| s.key.rel == format!("{SID}.jsonl")).unwrap();
    assert_eq!(estate_scan::read_stored(&s).unwrap(), fs::read(&main).unwrap());
}

/// The transcripts of the archive at `root` as the readers list them (the latest generation,
/// config-folder files left out, from the streams' directories), with the warnings they give:
/// each damaged store file, each file the index has that no store file holds, each stream
/// whose directories do not read. An archive with a hostile header is an error.
pub(crate) fn reader_listing(root: &Path) -> Result<(usize, Vec<String>), crate::failure::Failure> {
    let l = read::list_all(root)?;
    let mut warnings: Vec<String> = l.damaged.iter().map(|d| format!("{} (skipped)", d.error)).collect();
    warnings.extend(l.lacking.iter().filter(|x| !x.key.is_config()).map(|x| x.error.clone()));
    let which: Vec<Stored> = latest(l.stored).into_iter().filter(|s| !s.key.is_config()).collect();
    let found = crate::archive::estate_scan::discover_stored(root, &which)?;
    warnings.extend(found.iter().filter_map(|f| f.as_ref().err().map(|e| e.message.clone())));
    Ok((found.iter().filter(|f| f.is_ok()).count(), warnings))
}
