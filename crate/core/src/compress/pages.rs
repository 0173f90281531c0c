//! Giving the pages of a large in-memory source back to the operating system between the
//! passes that read it, so a compression holds only the spans it is reading (the peak
//! RSS target: under 3x the file). The caller reloads the spans it needs from the file before reading them.

/// Releases the memory pages lying wholly inside `bytes`: on Linux they are dropped
/// (`MADV_DONTNEED`) and read as zeros until written again; elsewhere nothing happens and the
/// bytes stay. Returns the number of bytes released. The memory must be owned by the caller
/// (no other object may live in those pages), as a large buffer of its own is.
pub fn release(bytes: &mut [u8]) -> usize {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: sysconf has no preconditions.
        let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
        let page = if page > 0 { page as usize } else { 4096 };
        let start = bytes.as_mut_ptr() as usize;
        let first = start.div_ceil(page) * page;
        let end = (start + bytes.len()) / page * page;
        if end <= first {
            return 0;
        }
        // SAFETY: [first, end) is page-aligned and lies inside `bytes`, which we borrow mutably:
        // dropping those pages only zeroes memory we own.
        let r = unsafe { libc::madvise(first as *mut libc::c_void, end - first, libc::MADV_DONTNEED) };
        if r == 0 {
            end - first
        } else {
            0
        }
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = bytes;
        0
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn released_pages_read_as_zeros_or_keep_their_bytes() {
        let mut v = vec![7u8; 1 << 20];
        let n = super::release(&mut v[1000..]);
        assert!(n <= (1 << 20) - 1000);
        assert_eq!(v[999], 7, "bytes before the range are kept");
        if n > 0 {
            assert!(v[8192..8192 + n - 8192].iter().all(|&b| b == 0));
        }
        v[500_000] = 9;
        assert_eq!(v[500_000], 9, "released memory can be written again");
    }
}
