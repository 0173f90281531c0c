//! Times the dataset rows of an estate: `cargo run --release --example dataset_rows_time -- DIR`.
use claude_jsonl_core::{dataset, estate, read::usage, scan};
use std::time::Instant;

fn main() {
    let root = std::path::PathBuf::from(std::env::args().nth(1).expect("DIR"));
    let e = estate::scan_estate(&[root], scan::Mode::Usage, None, &scan::Progress::default()).expect("scan");
    let empty = scan::Scan::default();
    let scans: Vec<&scan::Scan> = e.scans.iter().map(|s| s.as_ref().unwrap_or(&empty)).collect();
    for _ in 0..5 {
        let t = Instant::now();
        let (reqs, calls) = usage::counted_requests_and_tool_calls(&scans, &[100_000, 200_000]);
        let t1 = t.elapsed();
        let (requests, calls) = dataset::estate::table_rows(&e, &scans, &reqs, &calls, "m");
        let t2 = t.elapsed();
        let a = dataset::estate::request_rows(&e, &scans, &reqs, "m");
        let t3 = t.elapsed();
        drop((requests, calls, a));
        println!("grouping {:?}  table_rows {:?}  request_rows alone {:?}", t1, t2 - t1, t3 - t2);
    }
}
