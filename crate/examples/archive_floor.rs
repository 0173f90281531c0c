//! The CPU an archive run cannot avoid, measured alone on one core: compressing every file in
//! the archive's frames (the same profile and 8 MB chunks), SHA-256 of every byte, and the JSON
//! check of every line. benches/archive.mjs turns these into the fastest archive this machine
//! could run on its cores, beside the measured one.
//!
//! `cargo run --release --example archive_floor -- LIST` (LIST: one transcript path per line).
//! Prints one JSON line: bytes and the CPU seconds of each step (best of 3 passes per file).
use claude_jsonl::archive::write::cut_chunks;
use claude_jsonl::scan::json_text::JsonText;
use claude_jsonl::store::{self, Encoding, Profile};
use std::time::Instant;

fn best_of_3(mut f: impl FnMut()) -> f64 {
    (0..3)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_secs_f64()
        })
        .fold(f64::MAX, f64::min)
}

fn main() {
    let list = std::env::args().nth(1).expect("usage: archive_floor LIST");
    let paths = std::fs::read_to_string(list).expect("read the list");
    let (mut bytes, mut zstd_s, mut sha_s, mut json_s) = (0u64, 0.0, 0.0, 0.0);
    let mut json = JsonText::default();
    for p in paths.lines().filter(|l| !l.is_empty()) {
        let data = std::fs::read(p).expect("read a transcript");
        bytes += data.len() as u64;
        zstd_s += best_of_3(|| {
            for (a, b) in cut_chunks(&data) {
                std::hint::black_box(
                    store::encode_batch_with(&data[a..b], Encoding::Zstd, Profile::Archive).expect("zstd"),
                );
            }
        });
        sha_s += best_of_3(|| {
            std::hint::black_box(claude_jsonl::hash::sha256_hex(&data));
        });
        json_s += best_of_3(|| {
            let mut at = 0;
            for nl in memchr::memchr_iter(b'\n', &data) {
                std::hint::black_box(json.check(&data[at..nl]));
                at = nl + 1;
            }
        });
    }
    println!("{{\"bytes\":{bytes},\"zstdCpuS\":{zstd_s:.4},\"sha256CpuS\":{sha_s:.4},\"jsonCheckCpuS\":{json_s:.4}}}");
}
