//! Times the dataset rows of an estate and the encoding of their part files:
//! `cargo run --release --example dataset_rows_time -- DIR`.
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
        let mut requests = requests;
        let (n, k) = (requests.pricing.key.len(), requests.pricing.keys.len());
        let per_key = dataset::estate::KeyPricing {
            estimated: vec![0; k],
            fast: vec![0; k],
            long_context: vec![0; k],
            priced_as: vec![Some("claude-sonnet-4-5".into()); k],
        };
        for (name, v) in requests.pricing.cost_columns((0..n).map(|i| i as f64 * 0.001).collect(), &per_key).unwrap() {
            requests.rows.set_column(name, v).unwrap();
        }
        let c4 = cpu();
        let t4 = std::time::Instant::now();
        let n1 = requests.rows.encode_days().unwrap().iter().map(|b| b.len()).sum::<usize>();
        let t5 = t4.elapsed();
        let n2 = calls.encode_days().unwrap().iter().map(|b| b.len()).sum::<usize>();
        println!(
            "encode requests {:?} {} B, tool_calls {:?} {} B, cpu {:.0} ms",
            t5,
            n1,
            t4.elapsed() - t5,
            n2,
            cpu() - c4
        );
        drop((requests, calls, a));
        println!("grouping {:?}  table_rows {:?}  request_rows alone {:?}", t1, t2 - t1, t3 - t2);
    }
}

/// CPU time of the process so far, ms.
fn cpu() -> f64 {
    // SAFETY: getrusage writes the struct it is given.
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut u) };
    let ms = |t: libc::timeval| t.tv_sec as f64 * 1e3 + t.tv_usec as f64 / 1e3;
    ms(u.ru_utime) + ms(u.ru_stime)
}
