//! This thread's CPU time, for the examples that measure a lever by the work it costs (a busy
//! shared machine changes it little).

/// This thread's CPU time in seconds (elsewhere than Linux: wall time since the first call).
#[cfg(target_os = "linux")]
pub fn cpu_s() -> f64 {
    let mut t = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime writes only into `t`.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    t.tv_sec as f64 + t.tv_nsec as f64 / 1e9
}
#[cfg(not(target_os = "linux"))]
pub fn cpu_s() -> f64 {
    static START: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
    START.get_or_init(std::time::Instant::now).elapsed().as_secs_f64()
}
