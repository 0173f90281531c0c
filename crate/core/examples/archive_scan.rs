//! Times an archive read as an estate from its streams in memory (what `stats ARCHIVE` does):
//! `cargo run --release --example archive_scan -- ARCHIVE [full|usage]`.
use claude_jsonl_core::archive::{self, estate_scan};
use claude_jsonl_core::scan;
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let root = std::path::PathBuf::from(&args[1]);
    let mode = if args.get(2).map(String::as_str) == Some("full") { scan::Mode::Full } else { scan::Mode::Usage };
    let t = Instant::now();
    let files = archive::latest(archive::list(&root).expect("list"));
    let t_list = t.elapsed();
    let a = estate_scan::ArchiveRoot { root: root.clone(), files };
    let e =
        estate_scan::scan_estate_and_archives(&[], &[a], mode, None, None, &scan::Progress::default()).expect("scan");
    let bytes: u64 = e.files.iter().map(|f| f.size).sum();
    let failed = e.scans.iter().filter(|s| s.is_err()).count();
    let secs = t.elapsed().as_secs_f64();
    println!(
        "{} files, {:.1} MB, {failed} failed: list {:.0} ms, all {:.0} ms ({:.0} MB/s)",
        e.files.len(),
        bytes as f64 / 1e6,
        t_list.as_secs_f64() * 1e3,
        secs * 1e3,
        bytes as f64 / 1e6 / secs
    );
}
