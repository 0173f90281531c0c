//! Times an estate's scan in usage mode, with the tool results written as errors kept, and with
//! the dataset's session facts read too (wall and CPU, the mean of 5 after one warm-up):
//! `cargo run --release --example estate_scan_time -- DIR`.
use std::time::Instant;
fn cpu() -> f64 {
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut u) };
    let ms = |t: libc::timeval| t.tv_sec as f64 * 1e3 + t.tv_usec as f64 / 1e3;
    ms(u.ru_utime) + ms(u.ru_stime)
}
fn main() {
    use claude_jsonl_core::scan::Mode;
    let root = std::path::PathBuf::from(std::env::args().nth(1).unwrap());
    let mut acc = [0f64; 6];
    for r in 0..6 {
        let passes = [
            (Mode::Usage, None),
            (Mode::UsageAndToolErrors, None),
            (Mode::UsageAndToolErrors, Some(claude_jsonl_core::dataset::SESSION_FACTS)),
        ];
        for (k, (mode, facts)) in passes.into_iter().enumerate() {
            let (t, c) = (Instant::now(), cpu());
            let e = claude_jsonl_core::estate::scan_estate_with(
                std::slice::from_ref(&root),
                mode,
                None,
                facts,
                &Default::default(),
            )
            .unwrap();
            let (w, c) = (t.elapsed().as_secs_f64() * 1e3, cpu() - c);
            if r > 0 {
                acc[2 * k] += w / 5.0;
                acc[2 * k + 1] += c / 5.0;
            }
            drop(e);
        }
    }
    println!(
        "usage {:.0}/{:.0}  +errors {:.0}/{:.0}  +facts {:.0}/{:.0} (wall/cpu ms, mean of 5)",
        acc[0], acc[1], acc[2], acc[3], acc[4], acc[5]
    );
}
