//! Swapping what two paths name in one step (Linux `renameat2(RENAME_EXCHANGE)`), so an in-place
//! replacement never leaves the transcript's path empty and never destroys a file another
//! process put there: after the swap the old file still exists under the other name, and a
//! second swap puts both back.

use std::io;
use std::path::Path;

/// Swaps `a` and `b` (both must exist, on one file system). `Ok(false)` when this platform or
/// file system has no atomic exchange; the caller then uses its fallback.
pub fn exchange(a: &Path, b: &Path) -> io::Result<bool> {
    #[cfg(target_os = "linux")]
    {
        use std::ffi::CString;
        use std::os::unix::ffi::OsStrExt;
        let ca = CString::new(a.as_os_str().as_bytes()).map_err(|_| io::ErrorKind::InvalidInput)?;
        let cb = CString::new(b.as_os_str().as_bytes()).map_err(|_| io::ErrorKind::InvalidInput)?;
        // SAFETY: both pointers are NUL-terminated strings that outlive the call.
        let r = unsafe {
            libc::syscall(
                libc::SYS_renameat2,
                libc::AT_FDCWD,
                ca.as_ptr(),
                libc::AT_FDCWD,
                cb.as_ptr(),
                libc::RENAME_EXCHANGE,
            )
        };
        if r == 0 {
            return Ok(true);
        }
        let e = io::Error::last_os_error();
        match e.raw_os_error() {
            // No such system call, or a file system that does not implement the flag.
            Some(libc::ENOSYS) | Some(libc::EINVAL) | Some(libc::EOPNOTSUPP) => Ok(false),
            _ => Err(e),
        }
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = (a, b);
        Ok(false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn swaps_two_files_or_reports_no_support() {
        let dir = std::env::temp_dir().join(format!("cj-exchange-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (a, b) = (dir.join("a"), dir.join("b"));
        std::fs::write(&a, "A").unwrap();
        std::fs::write(&b, "B").unwrap();
        if exchange(&a, &b).unwrap() {
            assert_eq!(std::fs::read(&a).unwrap(), b"B");
            assert_eq!(std::fs::read(&b).unwrap(), b"A");
        }
        assert!(exchange(&a, &dir.join("missing")).is_err(), "a missing path is an error, not a fallback");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
