//! What each zstd parameter set would buy for the archive's format-2 streams, measured on an
//! estate with our own code: every session's files compressed as one stream (as the archive
//! stores them), frames of up to 64 MB, and the size ratio and the CPU seconds of compressing
//! (this thread's CPU time, so a busy shared machine changes them little). Each set runs three
//! times, interleaved; take the median. benches/RESULTS.md quotes its output.
//!
//! `cargo run --release --example session_streams -- PROJECTS LIST` (LIST: one file path per
//! line, under PROJECTS).
use claude_jsonl_core::archive::key::Key;
use claude_jsonl_core::archive::stream::Unit;
use std::collections::BTreeMap;
use zstd::zstd_safe::CParameter;

#[path = "support/thread_cpu.rs"]
mod thread_cpu;
use thread_cpu::cpu_s;

fn main() {
    let root = std::env::args().nth(1).expect("usage: session_streams PROJECTS LIST");
    let list = std::env::args().nth(2).expect("usage: session_streams PROJECTS LIST");
    let mut sessions: BTreeMap<Unit, Vec<u8>> = BTreeMap::new();
    let mut total = 0u64;
    for p in std::fs::read_to_string(list).expect("read the list").lines().filter(|l| !l.is_empty()) {
        let rel = p.strip_prefix(&root).expect("a file under PROJECTS").trim_start_matches('/');
        let (project, rel) = rel.split_once('/').expect("a project folder");
        let b = std::fs::read(p).expect("read a file");
        total += b.len() as u64;
        sessions.entry(Unit::of(&Key { project: project.into(), rel: rel.into() })).or_default().extend(b);
    }
    // (name, level, windowLog, hashLog, chainLog, minMatch); 0: the level's own
    let sets: [(&str, i32, u32, u32, u32, u32); 5] = [
        ("level 1, window 2^24, hash 2^18", 1, 24, 18, 0, 0),
        ("level 3, window 2^23", 3, 23, 0, 0, 0),
        ("level 3, window 2^24", 3, 24, 0, 0, 0),
        ("level 3, window 2^24, hash 2^18, chain 2^12, min match 6 (the archive's)", 3, 24, 18, 12, 6),
        ("level 3, window 2^24, hash 2^18, chain 2^14, min match 7", 3, 24, 18, 14, 7),
    ];
    for _ in 0..3 {
        for (name, level, wlog, hlog, clog, mm) in sets {
            let mut c = zstd::bulk::Compressor::new(level).expect("zstd");
            c.set_parameter(CParameter::WindowLog(wlog)).expect("zstd");
            for (p, v) in
                [(CParameter::HashLog(hlog), hlog), (CParameter::ChainLog(clog), clog), (CParameter::MinMatch(mm), mm)]
            {
                if v > 0 {
                    c.set_parameter(p).expect("zstd");
                }
            }
            c.include_checksum(true).expect("zstd");
            let t = cpu_s();
            let mut stored = 0u64;
            for s in sessions.values() {
                for frame in s.chunks(64 << 20) {
                    stored += c.compress(frame).expect("zstd").len() as u64;
                }
            }
            println!(
                "{{\"set\":\"{name}\",\"cpuS\":{:.3},\"ratio\":{:.3}}}",
                cpu_s() - t,
                total as f64 / stored as f64
            );
        }
    }
}
