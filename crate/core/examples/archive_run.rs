//! One archive run of an estate into a fresh root, for profiling the run alone (no Node):
//! `cargo run --release --example archive_run -- PROJECTS TO [FORMAT]` (FORMAT 1 or 2, default 2).
//! Prints the summary's counts and the elapsed time.
use claude_jsonl_core::scan::Progress;
use std::path::PathBuf;
use std::time::Instant;

fn main() {
    let mut args = std::env::args().skip(1);
    let projects = PathBuf::from(args.next().expect("usage: archive_run PROJECTS TO"));
    let to = PathBuf::from(args.next().expect("usage: archive_run PROJECTS TO"));
    let format = args.next().map(|f| f.parse().expect("FORMAT is 1 or 2"));
    let t = Instant::now();
    let s = claude_jsonl_core::archive::write::archive_as(
        &[projects],
        &[],
        &to,
        "2026-12-01T00:00:00Z",
        &Progress::default(),
        format,
    )
    .expect("archive");
    println!(
        "{{\"ms\":{:.0},\"files\":{},\"bytesIn\":{},\"bytesStored\":{},\"failures\":{},\"format\":{}}}",
        t.elapsed().as_secs_f64() * 1000.0,
        s.files,
        s.bytes_in,
        s.bytes_stored,
        s.failures.len(),
        s.format
    );
}
