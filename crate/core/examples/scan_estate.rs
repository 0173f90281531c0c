//! Times a native estate scan: `cargo run --release --example scan_estate -- DIR [full|usage]`.
use claude_jsonl_core::{estate, scan};
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let root = std::path::PathBuf::from(&args[1]);
    let mode = if args.get(2).map(String::as_str) == Some("full") { scan::Mode::Full } else { scan::Mode::Usage };
    let t = Instant::now();
    let files = estate::discover(&[root]).expect("discover");
    let t_discover = t.elapsed();
    let paths: Vec<_> = files.iter().map(|f| f.path.clone()).collect();
    let scans = scan::scan_paths(&paths, mode, &scan::Progress::default());
    let t_scan = t.elapsed();
    let bytes: u64 = files.iter().map(|f| f.size).sum();
    let held: usize = scans
        .iter()
        .filter_map(|s| s.as_ref().ok())
        .map(|s| s.records.capacity() * std::mem::size_of::<scan::Record>() + s.tables.strings.bytes.capacity())
        .sum();
    println!("records + arenas held: {:.1} MB", held as f64 / 1e6);
    let refs: Vec<Option<&scan::Scan>> = scans.iter().map(|s| s.as_ref().ok()).collect();
    let t2 = Instant::now();
    let (_sessions, session_of_file) = estate::sessions(&files, &refs);
    let t_sessions = t2.elapsed();
    let empty = scan::Scan::default();
    let flat: Vec<&scan::Scan> = refs.iter().map(|s| s.unwrap_or(&empty)).collect();
    let subagent: Vec<bool> = files.iter().map(|f| f.kind == estate::FileKind::Subagent).collect();
    let t3 = Instant::now();
    // USAGE_DETAIL=days: buckets by UTC day only, as `stats` asks for its totals.
    let detail = match std::env::var("USAGE_DETAIL").as_deref() {
        Ok("days") => claude_jsonl_core::read::usage::Detail::Days,
        _ => claude_jsonl_core::read::usage::Detail::Slots,
    };
    let repeat: usize = std::env::var("AGG_REPEAT").ok().and_then(|v| v.parse().ok()).unwrap_or(1);
    // The prompt thresholds the price table holds today (stats passes them from prices.json).
    let thresholds = [100_000, 200_000];
    let mut report = claude_jsonl_core::read::usage::aggregate(
        &flat,
        &session_of_file,
        &subagent,
        &thresholds,
        claude_jsonl_core::read::usage::Targets::Count,
        detail,
    );
    for _ in 1..repeat {
        report = claude_jsonl_core::read::usage::aggregate(
            &flat,
            &session_of_file,
            &subagent,
            &thresholds,
            claude_jsonl_core::read::usage::Targets::Count,
            detail,
        );
    }
    let t_usage = t3.elapsed();
    let t4 = Instant::now();
    let facts: u64 = flat
        .iter()
        .map(|s| claude_jsonl_core::read::facts::request_facts(s).distinct_requests + s.type_counts().len() as u64)
        .sum();
    println!(
        "sessions {t_sessions:?}, usage::aggregate {t_usage:?} ({} buckets), facts+types {:?} ({facts})",
        report.buckets.len(),
        t4.elapsed()
    );
    let records: usize = scans.iter().filter_map(|s| s.as_ref().ok()).map(|s| s.records.len()).sum();
    println!(
        "{} files, {:.0} MB, {records} records: discover {:?}, total {:?}, {:.2} GB/s",
        files.len(),
        bytes as f64 / 1e6,
        t_discover,
        t_scan,
        bytes as f64 / t_scan.as_secs_f64() / 1e9
    );
}
