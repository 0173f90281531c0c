//! `archive --include-config`: the config folder's files outside `projects/` archived beside the
//! transcripts, restored byte-identical into a config folder, and refused by name when an
//! archive from someone else would place one anywhere else.

use super::config_files::{self, AREA};
use super::destination::{self, Targets};
use super::key::{self, Key};
use super::layout;
use super::tests::{
    all_paths, append, craft, estate, fixture_is_current, projects_only, safe_record, same_tree, tmp, SAFE_SID, SID,
};
use super::*;
use crate::scan::Progress;
use std::fs;
use std::path::{Path, PathBuf};

fn run_with_config(projects: &Path, config: &Path, root: &Path) -> Summary {
    archive(&[projects.to_path_buf()], &[config.to_path_buf()], root, "2026-11-30T00:00:00Z", &Progress::default())
        .unwrap()
}

/// A config folder with a projects folder (`estate`) and one file of each kind the cleanup
/// deletes, plus the files it must leave out; returns the config-folder paths archived.
fn config_folder(config: &Path) -> Vec<String> {
    estate(&config.join("projects"));
    let kept = vec![
        format!("file-history/{SID}/3f2a9c1e@v1"),
        format!("file-history/{SID}/3f2a9c1e@v2"),
        format!("todos/{SID}-agent-{SID}.json"),
        format!("tasks/{SID}/1.json"),
        format!("session-env/{SID}/sessionstart-hook-0.sh"),
        format!("debug/{SID}.txt"),
        "plans/witty-twirling-oasis.md".to_string(),
        "shell-snapshots/snapshot-bash-1700000000000-abc.sh".to_string(),
        "paste-cache/0a1b2c.txt".to_string(),
        "todos/unknown-name.bin".to_string(),
    ];
    let left_out =
        [".credentials.json", "settings.json", ".claude.json", "history.jsonl", "image-cache/x/1.png", "statsig/s"];
    for (i, rel) in kept.iter().map(String::as_str).chain(left_out).enumerate() {
        let p = config.join(rel);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        // bytes of every kind: not JSON, not UTF-8, no final newline
        fs::write(&p, [rel.as_bytes(), b"\n\xff\x00", &[i as u8; 3]].concat()).unwrap();
    }
    kept
}

fn restore_into(root: &Path, config: &Path) -> Vec<Result<restore::Restored, crate::failure::Failure>> {
    let all = latest(list(root).unwrap());
    let to = Targets { projects: config.join("projects"), config: Some(config.to_path_buf()) };
    restore::restore(&all, &to, true, &Progress::default())
}

#[test]
fn config_files_round_trip_byte_identical_and_incrementally() {
    let t = tmp("config-cycle");
    let (config, root) = (t.0.join("home").join("cfg"), t.0.join("arch"));
    let kept = config_folder(&config);
    let s = run_with_config(&config.join("projects"), &config, &root);
    assert_eq!((s.files, s.added, s.config_files, s.failures.len()), (12, 12, 10, 0), "{s:?}");
    let listed: Vec<String> =
        latest(list(&root).unwrap()).iter().filter(|s| s.key.is_config()).map(|s| s.key.rel.clone()).collect();
    let mut want = kept.clone();
    want.sort();
    assert_eq!(listed, want);

    let back = t.0.join("back");
    for r in restore_into(&root, &back) {
        r.unwrap();
    }
    same_tree(&config.join("projects"), &back.join("projects"));
    for rel in &kept {
        assert_eq!(fs::read(back.join(rel)).unwrap(), fs::read(config.join(rel)).unwrap(), "{rel}");
        let (a, b) = (fs::metadata(back.join(rel)).unwrap(), fs::metadata(config.join(rel)).unwrap());
        assert_eq!(a.modified().unwrap(), b.modified().unwrap(), "{rel}: the recorded mtime");
    }
    let mut restored: Vec<String> = all_paths(&back)
        .into_iter()
        .filter(|p| p.is_file() && !p.starts_with(back.join("projects")))
        .map(|p| p.strip_prefix(&back).unwrap().display().to_string())
        .collect();
    restored.sort();
    assert_eq!(restored, want, "nothing but the kept files (no credentials, settings, caches)");

    // a re-run stores only what changed: one file grew, one is new, one was rewritten
    let s = run_with_config(&config.join("projects"), &config, &root);
    assert_eq!((s.unchanged, s.added, s.appended), (12, 0, 0), "{s:?}");
    append(&config.join(format!("debug/{SID}.txt")), b"more log\n");
    fs::write(config.join(format!("file-history/{SID}/3f2a9c1e@v3")), b"v3").unwrap();
    fs::write(config.join(format!("todos/{SID}-agent-{SID}.json")), b"[]").unwrap();
    let s = run_with_config(&config.join("projects"), &config, &root);
    assert_eq!((s.unchanged, s.appended, s.added, s.generations), (10, 1, 1, 1), "{s:?}");
    let back2 = t.0.join("back2");
    for r in restore_into(&root, &back2) {
        r.unwrap();
    }
    assert_eq!(
        fs::read(back2.join(format!("debug/{SID}.txt"))).unwrap(),
        fs::read(config.join(format!("debug/{SID}.txt"))).unwrap()
    );
    assert_eq!(fs::read(back2.join(format!("todos/{SID}-agent-{SID}.json"))).unwrap(), b"[]");
    assert_eq!(fs::read(back2.join(format!("file-history/{SID}/3f2a9c1e@v3"))).unwrap(), b"v3");

    // deleted by the cleanup: the archive keeps them
    fs::remove_dir_all(config.join("file-history")).unwrap();
    let s = run_with_config(&config.join("projects"), &config, &root);
    assert_eq!((s.config_files, s.archived_files, s.archived_config_files), (8, 13, 11), "{s:?}");

    // the readers read transcripts only, and restoring without a config folder refuses the
    // config files by name while the transcripts restore
    assert_eq!(super::tests::estate_scan_tests::reader_listing(&root).unwrap().0, 2);
    let all = latest(list(&root).unwrap());
    let results = restore::restore(&all, &projects_only(&t.0.join("only")), true, &Progress::default());
    for (s, r) in all.iter().zip(results) {
        match s.key.is_config() {
            true => assert!(r.unwrap_err().message.contains("no config folder to restore it into"), "{}", s.key.text()),
            false => assert!(r.is_ok()),
        }
    }
}

#[test]
fn without_config_folders_the_run_is_unchanged() {
    let t = tmp("config-default");
    let (config, root) = (t.0.join("cfg"), t.0.join("arch"));
    config_folder(&config);
    let s = run(&config.join("projects"), &root);
    assert_eq!((s.files, s.config_files), (2, 0), "{s:?}");
    assert!(latest(list(&root).unwrap()).iter().all(|s| !s.key.is_config()));
    assert!(!root.join(key::project_folder(AREA)).exists());
}

fn run(projects: &Path, root: &Path) -> Summary {
    archive(&[projects.to_path_buf()], &[], root, "2026-11-30T00:00:00Z", &Progress::default()).unwrap()
}

/// Config-file headers an archive from someone else could carry, each placing its file where
/// restore must not write (case name, source.path; source.project is the config area).
const HOSTILE_CONFIG: &[(&str, &str)] = &[
    ("config-settings", "settings.json"),
    ("config-credentials", ".credentials.json"),
    ("config-hooks", "hooks/pre-tool.sh"),
    ("config-projects", "projects/-home-u-ok/5afe0000-1111-4222-8333-444455556666.jsonl"),
    ("config-folder-itself", "plans"),
    ("config-parent", "file-history/../settings.json"),
    ("config-deep-parent", "todos/../../../../tmp/claude-jsonl-hostile-config"),
    ("config-absolute", "/tmp/claude-jsonl-hostile-config-abs"),
    ("config-backslash", "plans/..\\..\\settings.json"),
    ("config-claude", "plans/.claude/settings.json"),
    ("config-nul", "plans/x\0.md"),
    ("config-empty-part", "plans//x.md"),
];

/// The good config files of the hostile config archive: (path in the config folder, bytes).
fn good_config() -> Vec<(String, Vec<u8>)> {
    vec![
        (format!("file-history/{SAFE_SID}/0011aabb@v1"), b"fn main() {}\n".to_vec()),
        (
            format!("todos/{SAFE_SID}-agent-{SAFE_SID}.json"),
            b"[{\"content\":\"ship it\",\"status\":\"pending\"}]".to_vec(),
        ),
        ("plans/safe-plan.md".to_string(), b"# The plan\n".to_vec()),
    ]
}

/// An archive of one good session (transcript), its good config files and one config file per
/// hostile header; returns the hostile store files.
fn hostile_config_archive(root: &Path) -> Vec<(&'static str, Key, PathBuf)> {
    let transcript = [safe_record("user", "hello", 0), safe_record("assistant", "a reply", 1)].concat();
    craft(root, &Key { project: "-home-u-ok".into(), rel: format!("{SAFE_SID}.jsonl") }, transcript.as_bytes());
    for (rel, bytes) in good_config() {
        craft(root, &Key { project: AREA.into(), rel }, &bytes);
    }
    HOSTILE_CONFIG
        .iter()
        .map(|&(name, rel)| {
            let key = Key { project: AREA.into(), rel: rel.into() };
            let path = craft(root, &key, format!("{name}\n").as_bytes());
            (name, key, path)
        })
        .collect()
}

#[test]
fn a_hostile_config_entry_is_refused_by_name_and_the_rest_restores() {
    let t = tmp("config-hostile");
    let root = t.0.join("arch");
    let hostile = hostile_config_archive(&root);
    let config = t.0.join("a").join("b").join("cfg");
    let before = all_paths(&t.0);
    let all = latest(list(&root).unwrap());
    let results = restore_into(&root, &config);
    for (s, r) in all.iter().zip(&results) {
        match hostile.iter().find(|h| h.1 == s.key) {
            Some((name, _, path)) => {
                let e = r.as_ref().expect_err(name);
                assert!(
                    e.message.starts_with(&format!("{}: refused: header field source.path ", path.display())),
                    "{name}: {e}"
                );
            }
            None => assert!(r.is_ok(), "{r:?}"),
        }
    }
    for (rel, bytes) in good_config() {
        assert_eq!(fs::read(config.join(&rel)).unwrap(), bytes, "{rel}");
    }
    let inside: Vec<String> = all_paths(&config)
        .into_iter()
        .filter(|p| p.is_file())
        .map(|p| p.strip_prefix(&config).unwrap().display().to_string())
        .collect();
    let mut want: Vec<String> = good_config().into_iter().map(|g| g.0).collect();
    want.push(format!("projects/-home-u-ok/{SAFE_SID}.jsonl"));
    want.sort();
    assert_eq!(inside, want);
    let after: Vec<PathBuf> = all_paths(&t.0).into_iter().filter(|p| !p.starts_with(&config)).collect();
    let mut expected = before;
    expected.extend([t.0.join("a"), t.0.join("a").join("b")]);
    expected.sort();
    assert_eq!(after, expected, "nothing outside the config folder");
    assert!(!Path::new("/tmp/claude-jsonl-hostile-config").exists());
    assert!(!Path::new("/tmp/claude-jsonl-hostile-config-abs").exists());
    // config entries are not transcripts: the readers read the archive
    assert_eq!(super::tests::estate_scan_tests::reader_listing(&root).unwrap().0, 1);
}

#[cfg(unix)]
#[test]
fn a_config_folder_behind_a_symbolic_link_out_is_refused() {
    let t = tmp("config-link");
    let root = t.0.join("arch");
    hostile_config_archive(&root);
    let (config, outside) = (t.0.join("cfg"), t.0.join("outside"));
    fs::create_dir_all(&config).unwrap();
    fs::create_dir_all(&outside).unwrap();
    std::os::unix::fs::symlink(&outside, config.join("todos")).unwrap();
    let all = latest(list(&root).unwrap());
    for (s, r) in all.iter().zip(restore_into(&root, &config)) {
        if s.key.rel.starts_with("todos/") && destination::check_key(&s.key).is_ok() {
            assert!(r.unwrap_err().message.contains("a symbolic link leading out of"), "{}", s.key.text());
        }
    }
    assert_eq!(fs::read_dir(&outside).unwrap().count(), 0, "nothing written through the link");
    assert!(config.join("plans/safe-plan.md").is_file());
}

#[test]
fn a_hostile_config_entry_is_refused_without_touching_the_disk() {
    for &(name, rel) in HOSTILE_CONFIG {
        let r = destination::check_key(&Key { project: AREA.into(), rel: rel.into() }).expect_err(name);
        assert_eq!(r.field, "source.path", "{name}");
        assert!(r.config);
    }
    for (rel, _) in good_config() {
        destination::check_key(&Key { project: AREA.into(), rel }).unwrap();
    }
    // the config area is never a project: a transcript cannot be archived under it
    assert!(config_files::check_rel("x.jsonl").is_some());
}

/// `fixtures/hostile-config-archive` is the archive `hostile_config_archive` writes (the CLI
/// tests read it); `CLAUDE_JSONL_WRITE_FIXTURES=1 cargo test fixture` rewrites it.
#[test]
fn the_hostile_config_archive_fixture_is_current() {
    let t = tmp("config-hostile-fixture");
    let hostile = hostile_config_archive(&t.0.join("archive"));
    let mut cases = String::from("[\n");
    for (i, (name, key, path)) in hostile.iter().enumerate() {
        let store = path.parent().unwrap().strip_prefix(t.0.join("archive")).unwrap().display().to_string();
        cases.push_str(&format!(
            "  {{\"name\": {}, \"path\": {}, \"store\": {}}}{}\n",
            layout::json_string(name),
            layout::json_string(&key.rel),
            layout::json_string(&store),
            if i + 1 < hostile.len() { "," } else { "" }
        ));
    }
    cases.push_str("]\n");
    fs::write(t.0.join("cases.json"), cases).unwrap();
    fixture_is_current(&t.0, "hostile-config-archive");
}
