//! The session store: checksummed frames of whole JSONL lines, loading with torn-tail repair,
//! and the one-writer lock.

use super::{job, js_error, Job};
use claude_jsonl_core::store::{self, Encoding};
use napi::bindgen_prelude::*;
use napi_derive::napi;
use std::path::{Path, PathBuf};

/// How a store's record lines are kept: zstd frames, or the lines themselves.
#[napi(string_enum = "lowercase")]
pub enum StoreCompression {
    Zstd,
    None,
}

impl From<StoreCompression> for Encoding {
    fn from(c: StoreCompression) -> Encoding {
        match c {
            StoreCompression::Zstd => Encoding::Zstd,
            StoreCompression::None => Encoding::None,
        }
    }
}

/// Encodes one batch of whole JSONL lines as the bytes to append (a checksummed frame with its
/// extent marker, or the lines themselves for 'none').
#[napi]
pub fn store_encode_batch(lines: &[u8], compression: StoreCompression) -> Result<Buffer> {
    store::encode_batch(lines, compression.into()).map(Buffer::from).map_err(js_error)
}

/// `storeEncodeBatch` on the libuv pool, so compressing a large batch never blocks the event loop.
#[napi(ts_return_type = "Promise<Buffer>")]
pub fn store_encode_batch_async(lines: &[u8], compression: StoreCompression) -> AsyncTask<Job<Buffer>> {
    let (lines, enc) = (lines.to_vec(), Encoding::from(compression));
    job(move || store::encode_batch(&lines, enc).map(Buffer::from))
}

/// The header line of a store file, reading only its first frame (or line).
#[napi]
pub fn store_read_header(path: String, compression: StoreCompression) -> Result<Buffer> {
    let path = PathBuf::from(path);
    store::read_header(&path, compression.into()).map(Buffer::from).map_err(js_error)
}

#[napi(object)]
pub struct StoreLoaded {
    pub header: Buffer,
    /// Record lines after the header, each ending in a newline.
    pub data: Buffer,
    pub records: f64,
    pub file_len: f64,
    pub frames: f64,
    /// Where a torn tail began (the file was, or would be, cut back there).
    pub torn_at: Option<f64>,
    /// Whole records recovered from the torn frame (re-encoded when repaired).
    pub torn_kept: f64,
    pub repaired: bool,
}

impl From<(store::Scanned, bool)> for StoreLoaded {
    fn from((s, repaired): (store::Scanned, bool)) -> StoreLoaded {
        StoreLoaded {
            header: s.header.into(),
            data: s.data.into(),
            records: s.records as f64,
            file_len: s.file_len as f64,
            frames: s.frames as f64,
            torn_at: s.torn.as_ref().map(|t| t.at as f64),
            torn_kept: s.torn.as_ref().map_or(0.0, |t| t.kept_records as f64),
            repaired,
        }
    }
}

/// Reads and validates a whole store file on the libuv pool; with `repair`, a torn tail is cut
/// and its surviving records re-encoded (the caller must hold the session's writer lock).
#[napi(ts_return_type = "Promise<StoreLoaded>")]
pub fn store_load(path: String, compression: StoreCompression, repair: bool) -> AsyncTask<Job<StoreLoaded>> {
    let enc = Encoding::from(compression);
    job(move || {
        let path = PathBuf::from(path);
        store::load(&path, enc, repair).map(StoreLoaded::from)
    })
}

/// An exclusive advisory lock (flock) on a store file, held until `release` or process exit
/// (so a killed writer never leaves a stale lock).
#[napi]
pub struct StoreLock {
    lock: Option<store::WriterLock>,
}

#[napi]
impl StoreLock {
    #[napi]
    pub fn release(&mut self) {
        if let Some(lock) = self.lock.take() {
            lock.release();
        }
    }
}

/// Takes the writer lock of a store file without blocking; a lock held elsewhere (another
/// process or another store in this one) is an error naming the file.
#[napi]
pub fn store_lock(path: String) -> Result<StoreLock> {
    store::WriterLock::take(Path::new(&path)).map(|lock| StoreLock { lock: Some(lock) }).map_err(js_error)
}
