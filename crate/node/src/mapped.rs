//! Source files mapped read-only into memory (Linux): the mapping as a Buffer, whether it is
//! still intact, and giving its pages back.

use napi::bindgen_prelude::*;
use napi_derive::napi;

/// The file at `path` mapped read-only (Linux), as a Buffer over the mapping: no copy and no
/// fresh pages to fault in. `null` where files are not mapped (other systems, an empty file) or
/// the mapping failed: the caller then reads the file. The Buffer must never be written; check
/// `mappedIntact` before trusting what was read (a file truncated meanwhile reads as zeros).
#[napi(ts_return_type = "Buffer | null")]
pub fn map_file(env: &Env, path: String) -> Result<Option<Unknown<'_>>> {
    let Ok(file) = std::fs::File::open(&path) else { return Ok(None) };
    let Ok(Some(mapped)) = claude_jsonl_core::mapped::MappedFile::open(&file) else { return Ok(None) };
    let (ptr, len) = (mapped.as_ptr(), mapped.len());
    // SAFETY: the bytes live as long as `mapped`, which the finaliser drops with the Buffer.
    let slice = unsafe { BufferSlice::from_external(env, ptr, len, mapped, |_, m| drop(m))? };
    Ok(Some(slice.to_unknown()))
}

/// False when `buffer` (from `mapFile`) lost pages because its file was truncated while mapped:
/// what was read from it may be zeros. True for any other buffer.
#[napi]
pub fn mapped_intact(buffer: &[u8]) -> bool {
    claude_jsonl_core::mapped::intact_at(buffer.as_ptr()).unwrap_or(true)
}

/// Drops the pages of a `mapFile` buffer from the process (they read again from the file when
/// touched), all of them or those wholly inside bytes `[start, end)`. Returns the bytes
/// released; 0 for any other buffer.
#[napi]
pub fn release_mapped(buffer: &[u8], start: Option<f64>, end: Option<f64>) -> f64 {
    // `as usize` saturates: a negative offset reads as 0, as it always has
    let at = |v: Option<f64>| v.map(|v| v.max(0.0) as usize);
    claude_jsonl_core::mapped::release_within(buffer, at(start), at(end)) as f64
}
