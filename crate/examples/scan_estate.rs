//! Times a native estate scan: `cargo run --release --example scan_estate -- DIR [full|usage]`.
use claude_jsonl::{estate, scan};
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
