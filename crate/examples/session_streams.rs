use claude_jsonl::archive::events;
use claude_jsonl::scan::json_text::JsonText;
use std::collections::BTreeMap;
use zstd::zstd_safe::CParameter;

fn cpu_s() -> f64 {
    let mut t = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    t.tv_sec as f64 + t.tv_nsec as f64 / 1e9
}

fn group_of(rel: &str) -> String {
    // rel = project/…
    let (project, rest) = rel.split_once('/').unwrap();
    let first = rest.split('/').next().unwrap();
    let stem = first.split('.').next().unwrap();
    if stem.len() == 36 { format!("{project}/{stem}") } else { format!("{project}/{rest}") }
}

fn main() {
    let root = std::env::args().nth(1).unwrap();
    let list = std::env::args().nth(2).unwrap();
    let mut groups: BTreeMap<String, Vec<Vec<u8>>> = BTreeMap::new();
    let mut total = 0u64;
    for p in std::fs::read_to_string(list).unwrap().lines().filter(|l| !l.is_empty()) {
        let rel = p.strip_prefix(&root).unwrap().trim_start_matches('/');
        let b = std::fs::read(p).unwrap();
        total += b.len() as u64;
        groups.entry(group_of(rel)).or_default().push(b);
    }
    let big = groups.values().map(|v| v.iter().map(|b| b.len()).sum::<usize>()).max().unwrap();
    eprintln!("groups {} total {} biggest {}", groups.len(), total, big);
    let mut json = JsonText::default();
    let t = cpu_s();
    let mut n = 0;
    for g in groups.values() { for f in g { for l in f.split(|&b| b == b'\n') { n += json.check(l) as usize; } } }
    eprintln!("json check {:.3}s {n}", cpu_s() - t);
    let configs: Vec<(&str, i32, u32, Option<u32>, bool)> = vec![
        ("l1 w23 h17", 1, 23, Some(17), false),
        ("l1 w24 h17", 1, 24, Some(17), false),
        ("l1 w27 h17", 1, 27, Some(17), false),
        ("l2 w23", 2, 23, None, false),
        ("l2 w24", 2, 24, None, false),
        ("l3 w23", 3, 23, None, false),
        ("l3 w24", 3, 24, None, false),
        ("l1 w27 ldm", 1, 27, Some(17), true),
        ("l3 w27 ldm", 3, 27, None, true),
    ];
    let only: Option<String> = std::env::args().nth(3);
    for form in ["raw", "events"] {
        for (name, level, wlog, hlog, ldm) in &configs {
            if let Some(o) = &only { if !name.contains(o.as_str()) { continue; } }
            let mut c = zstd::bulk::Compressor::new(*level).unwrap();
            c.set_parameter(CParameter::WindowLog(*wlog)).unwrap();
            if let Some(h) = hlog { c.set_parameter(CParameter::HashLog(*h)).unwrap(); }
            if *ldm { c.set_parameter(CParameter::EnableLongDistanceMatching(true)).unwrap(); }
            c.include_checksum(true).unwrap();
            let mut cpu = 0.0;
            let mut stored = 0u64;
            let mut buf = Vec::new();
            for g in groups.values() {
                buf.clear();
                for f in g {
                    if form == "raw" { buf.extend_from_slice(f); } else { events::encode(&mut json, f, 0, &mut buf); }
                }
                let t = cpu_s();
                // frames of at most 64 MB
                for chunk in buf.chunks(64 << 20) { stored += c.compress(chunk).unwrap().len() as u64 + 64; }
                cpu += cpu_s() - t;
            }
            println!("{form} {name}: cpu {cpu:.3}s ratio {:.3}", total as f64 / stored as f64);
        }
    }
}
