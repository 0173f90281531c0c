//! The CPU an archive run cannot avoid, measured alone on one core: compressing every session's
//! files as the archive's format-2 streams do (one stream per session, the same zstd parameters
//! and frame size) and SHA-256 of every byte. benches/archive.mjs turns these into the fastest
//! archive this machine could run on its cores, beside the measured one.
//!
//! `cargo run --release --example archive_floor -- LIST` (LIST: one transcript path per line,
//! under a `projects/<project>/` folder). Prints one JSON line: bytes and the CPU seconds of each
//! step (best of 3 passes per session).
use claude_jsonl_core::archive::key::Key;
use claude_jsonl_core::archive::stream::{self, Unit};
use std::collections::BTreeMap;
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
    let mut sessions: BTreeMap<Unit, Vec<Vec<u8>>> = BTreeMap::new();
    let mut bytes = 0u64;
    for p in paths.lines().filter(|l| !l.is_empty()) {
        let (_, in_projects) = p.rsplit_once("/projects/").expect("a path under a projects folder");
        let (project, rel) = in_projects.split_once('/').expect("a project folder");
        let data = std::fs::read(p).expect("read a transcript");
        bytes += data.len() as u64;
        let unit = Unit::of(&Key { project: project.into(), rel: rel.into() });
        sessions.entry(unit).or_default().push(data);
    }
    let (mut zstd_s, mut sha_s) = (0.0, 0.0);
    for files in sessions.values() {
        let slices: Vec<&[u8]> = files.iter().map(Vec::as_slice).collect();
        zstd_s += best_of_3(|| {
            let all: Vec<u8> = slices.concat();
            for frame in all.chunks(stream::FRAME) {
                std::hint::black_box(stream::compress(&[frame]).expect("zstd"));
            }
        });
        sha_s += best_of_3(|| {
            for f in &slices {
                std::hint::black_box(claude_jsonl_core::hash::sha256_hex(f));
            }
        });
    }
    println!("{{\"bytes\":{bytes},\"zstdCpuS\":{zstd_s:.4},\"sha256CpuS\":{sha_s:.4}}}");
}
