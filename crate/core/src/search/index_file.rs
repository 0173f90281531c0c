//! The index file: every document's segment in one file outside the estate, after a header
//! naming the fields indexed and when it was built; read whole, written atomically.

use super::extract::Fields;
use super::segment::Segment;
use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

const MAGIC: &[u8; 8] = b"CJLFIND\x02";
const HEADER: usize = 8 + 4 + 4 + 8;

/// Reads an index file: its segments by path (byte ranges into the returned buffer), or None
/// when absent, unreadable, for other fields, or damaged in any way (then it is rebuilt).
pub(super) type Loaded = (Vec<u8>, f64, Vec<(usize, usize)>);

pub(super) fn load_index(path: &Path, fields: Fields) -> Option<Loaded> {
    let bytes = std::fs::read(path).ok()?;
    if bytes.len() < HEADER || &bytes[..8] != MAGIC || bytes[8] != fields.bits() {
        return None;
    }
    let n = u32::from_le_bytes(bytes[12..16].try_into().ok()?) as usize;
    let built = f64::from_le_bytes(bytes[16..24].try_into().ok()?);
    let mut at = HEADER;
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let (_, len) = Segment::parse(&bytes[at..])?;
        out.push((at, at + len));
        at += len;
    }
    (at == bytes.len()).then_some((bytes, built, out))
}

/// Writes the index atomically: a temp file beside it, fsynced, then renamed over it.
pub(super) fn write_index(path: &Path, fields: Fields, built_ms: f64, segments: &[&[u8]]) -> io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let tmp = dir.join(format!(
        ".{}.{}.tmp",
        path.file_name().map_or("index".into(), |n| n.to_string_lossy()),
        std::process::id()
    ));
    let result = (|| {
        let mut f = io::BufWriter::with_capacity(1 << 20, File::create(&tmp)?);
        f.write_all(MAGIC)?;
        f.write_all(&[fields.bits(), 0, 0, 0])?;
        f.write_all(&(segments.len() as u32).to_le_bytes())?;
        f.write_all(&built_ms.to_le_bytes())?;
        for s in segments {
            f.write_all(s)?;
        }
        let f = f.into_inner().map_err(|e| e.into_error())?;
        f.sync_all()?;
        drop(f);
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// Where the index for these roots and fields lives inside `dir`.
pub fn index_path(dir: &Path, roots: &[PathBuf], fields: Fields) -> PathBuf {
    let mut key = Vec::new();
    for r in roots {
        key.extend_from_slice(r.to_string_lossy().as_bytes());
        key.push(0);
    }
    dir.join(format!("{:016x}-f{}.idx", xxhash_rust::xxh3::xxh3_64(&key), fields.bits()))
}
