//! claude-jsonl native core: plain Rust, no Node types. The Node-API binding is its own crate
//! (`crate/node`), which depends on this one and only converts.

pub mod archive;
pub mod client;
pub mod compress;
pub mod dataset;
pub mod durable;
pub mod estate;
pub mod estimate;
pub mod failure;
pub mod graph;
pub mod hash;
pub mod json_string;
pub mod mapped;
pub mod read;
pub mod repair;
pub mod scan;
pub mod search;
pub mod store;
pub mod topology;
pub mod validate;

/// What a path is when it is neither a regular file nor a folder (a FIFO, a socket, a device),
/// as a phrase for `path: phrase`; None for a regular file or a folder. Every reader checks a
/// named file with this before opening it: opening a FIFO for reading blocks until a writer
/// comes, and reading a device never ends.
pub fn special_file(m: &std::fs::Metadata) -> Option<&'static str> {
    let t = m.file_type();
    if t.is_file() || t.is_dir() {
        return None;
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return Some("is a FIFO (named pipe), not a transcript file; not read");
        }
        if t.is_socket() {
            return Some("is a socket, not a transcript file; not read");
        }
        if t.is_block_device() || t.is_char_device() {
            return Some("is a device, not a transcript file; not read");
        }
    }
    Some("is not a regular file; not read")
}

/// Reads a whole named file, refusing a special file (`special_file`) before opening it.
pub fn read_regular(path: &std::path::Path) -> Result<Vec<u8>, failure::Failure> {
    let m = std::fs::metadata(path).map_err(|e| failure::Failure::io(path, &e))?;
    if let Some(what) = special_file(&m) {
        return Err(failure::Failure::at(failure::Code::Io, path, what));
    }
    std::fs::read(path).map_err(|e| failure::Failure::io(path, &e))
}

/// Reads into `buf` from byte `at` of `f` without moving a shared file position (so that
/// threads may read one open file side by side): the bytes read, 0 at the end.
#[cfg(unix)]
pub fn read_at(f: &std::fs::File, buf: &mut [u8], at: u64) -> std::io::Result<usize> {
    std::os::unix::fs::FileExt::read_at(f, buf, at)
}
#[cfg(windows)]
pub fn read_at(f: &std::fs::File, buf: &mut [u8], at: u64) -> std::io::Result<usize> {
    std::os::windows::fs::FileExt::seek_read(f, buf, at)
}

/// Up to `len` bytes of `f` from byte `at`: fewer only where the file ends.
pub fn read_range(f: &std::fs::File, at: u64, len: u64) -> std::io::Result<Vec<u8>> {
    let mut buf = vec![0u8; len as usize];
    let mut got = 0;
    while got < buf.len() {
        match read_at(f, &mut buf[got..], at + got as u64) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    buf.truncate(got);
    Ok(buf)
}

/// An I/O error as one short phrase for a message that already names the path (`path: phrase`),
/// without the OS error number Rust appends.
pub fn io_message(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "no such file or directory".into(),
        std::io::ErrorKind::PermissionDenied => "permission denied".into(),
        _ => e.to_string(),
    }
}
