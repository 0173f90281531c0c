//! SHA-256 of buffers and files, and a scan hashed while it runs.

use super::scan::{mode_of, TranscriptIndex};
use super::{fail, job, js_error, Job};
use claude_jsonl_core::failure::{Code, Failure};
use claude_jsonl_core::scan;
use napi::bindgen_prelude::*;
use napi_derive::napi;
use std::path::{Path, PathBuf};

#[napi]
pub fn sha256(buffer: &[u8]) -> String {
    claude_jsonl_core::hash::sha256_hex(buffer)
}

/// `sha256File` off the JS thread: compress hashes its source while the summary is built.
#[napi(ts_return_type = "Promise<string>")]
pub fn sha256_file_async(path: String) -> AsyncTask<Job<String>> {
    job(move || {
        let path = PathBuf::from(path);
        claude_jsonl_core::hash::sha256_file_hex(&path).map_err(|e| Failure::io(&path, &e))
    })
}

/// Whether the file at `path` holds exactly `bytes` (the read-back check of a written file).
#[napi]
pub fn file_equals(path: String, bytes: &[u8]) -> Result<bool> {
    let path = Path::new(&path);
    claude_jsonl_core::hash::file_equals(path, bytes).map_err(|e| js_error(Failure::io(path, &e)))
}

/// A scan and the SHA-256 of the same bytes.
#[napi(object, object_from_js = false)]
pub struct HashedScan {
    pub index: TranscriptIndex,
    pub sha256: String,
}

/// `scanBuffer` and `sha256` of one buffer at once: the hash runs on a thread of its own while
/// the scan runs, so a compression does not read its source twice in a row.
#[napi]
pub fn scan_buffer_hashed(buffer: &[u8], #[napi(ts_arg_type = "ScanMode")] mode: Option<String>) -> Result<HashedScan> {
    let mode = mode_of(mode)?;
    let (scan, sha256) = std::thread::scope(|threads| {
        let hash = threads.spawn(|| claude_jsonl_core::hash::sha256_hex(buffer));
        let scan = scan::scan_bytes_parallel(buffer, mode);
        (scan, hash.join())
    });
    let sha256 = sha256.map_err(|_| fail(Code::Internal, "hashing the source failed"))?;
    Ok(HashedScan { index: TranscriptIndex { scan }, sha256 })
}
