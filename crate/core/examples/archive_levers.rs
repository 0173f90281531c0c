//! What each lever on the archive's frames would buy, measured on an estate with our own code:
//! the size ratio and the CPU seconds (this thread's CPU time, so a busy shared machine changes
//! them little) of compressing every transcript on its own in the archive's frames, as the
//! archive stores them today (every line wrapped as an event) and as raw transcript bytes, at
//! zstd level 1 with the archive's 8 MiB window and at level 3, without and with a zstd
//! dictionary trained per project on the project's own records (the dictionaries' bytes are
//! counted in the ratio). benches/RESULTS.md quotes its output.
//!
//! `cargo run --release --example archive_levers -- LIST [DICT_BYTES] [SAMPLE_BYTES_PER_FILE]`
//! (LIST: one transcript path per line, under a `projects/<project>/` folder).
use claude_jsonl_core::archive::{events, write::cut_chunks};
use claude_jsonl_core::scan::json_text::JsonText;
use std::collections::BTreeMap;
use zstd::zstd_safe::CParameter;

#[path = "support/thread_cpu.rs"]
mod thread_cpu;
use thread_cpu::cpu_s;

fn compressor(level: i32, dict: Option<&[u8]>) -> zstd::bulk::Compressor<'static> {
    let mut c = match dict {
        Some(d) => zstd::bulk::Compressor::with_dictionary(level, d).expect("zstd"),
        None => zstd::bulk::Compressor::new(level).expect("zstd"),
    };
    c.set_parameter(CParameter::WindowLog(23)).expect("zstd");
    if level == 1 {
        c.set_parameter(CParameter::HashLog(17)).expect("zstd");
    }
    c.include_checksum(true).expect("zstd");
    c
}

fn main() {
    let mut args = std::env::args().skip(1);
    let list = args.next().expect("usage: archive_levers LIST [DICT_BYTES] [SAMPLE_BYTES_PER_FILE]");
    let dict_size: usize = args.next().map_or(112_640, |s| s.parse().expect("DICT_BYTES"));
    let sample: usize = args.next().map_or(16_384, |s| s.parse().expect("SAMPLE_BYTES_PER_FILE"));
    let mut raw: BTreeMap<String, Vec<Vec<u8>>> = BTreeMap::new();
    let mut total = 0u64;
    for p in std::fs::read_to_string(list).expect("read the list").lines().filter(|l| !l.is_empty()) {
        let project = p.rsplit_once("/projects/").map_or("", |(_, r)| r).split('/').next().unwrap_or("").to_string();
        let bytes = std::fs::read(p).expect("read a transcript");
        total += bytes.len() as u64;
        raw.entry(project).or_default().push(bytes);
    }
    // the archive's event form of every file, and what making it costs
    let mut json = JsonText::default();
    let t = cpu_s();
    let wrapped: BTreeMap<String, Vec<Vec<u8>>> = raw
        .iter()
        .map(|(p, files)| {
            let w = files
                .iter()
                .map(|f| {
                    let mut out = Vec::new();
                    events::encode(&mut json, f, 0, &mut out);
                    out
                })
                .collect();
            (p.clone(), w)
        })
        .collect();
    let wrap_s = cpu_s() - t;
    let train = |form: &BTreeMap<String, Vec<Vec<u8>>>| -> (BTreeMap<String, Vec<u8>>, f64) {
        let t = cpu_s();
        let dicts = form
            .iter()
            .map(|(p, files)| {
                let samples: Vec<&[u8]> = files
                    .iter()
                    .map(|f| {
                        let n = f.len().min(sample);
                        &f[..memchr::memrchr(b'\n', &f[..n]).map_or(n, |i| i + 1)]
                    })
                    .collect();
                (p.clone(), zstd::dict::from_samples(&samples, dict_size).unwrap_or_default())
            })
            .collect();
        (dicts, cpu_s() - t)
    };
    let (dicts_wrapped, train_wrapped_s) = train(&wrapped);
    let (dicts_raw, train_raw_s) = train(&raw);
    println!("{{\"bytes\":{total},\"eventWrapCpuS\":{wrap_s:.3},\"dictBytes\":{dict_size},\"samplePerFile\":{sample},\"trainCpuS\":{{\"events\":{train_wrapped_s:.3},\"raw\":{train_raw_s:.3}}}}}");
    for (form, files, dicts) in [("events", &wrapped, &dicts_wrapped), ("raw", &raw, &dicts_raw)] {
        for level in [1, 3] {
            for with_dict in [false, true] {
                let t = cpu_s();
                let mut stored = 0u64;
                for (p, fs) in files {
                    let d = dicts[p].as_slice();
                    let d = (with_dict && !d.is_empty()).then_some(d);
                    let mut c = compressor(level, d);
                    stored += d.map_or(0, |d| d.len() as u64);
                    for f in fs {
                        for (a, b) in cut_chunks(f) {
                            // 16 bytes: the frame marker every store frame carries
                            stored += c.compress(&f[a..b]).expect("zstd").len() as u64 + 16;
                        }
                    }
                }
                println!(
                    "{{\"form\":\"{form}\",\"level\":{level},\"dictionary\":{with_dict},\"cpuS\":{:.3},\"ratio\":{:.3}}}",
                    cpu_s() - t,
                    total as f64 / stored as f64
                );
            }
        }
    }
}
