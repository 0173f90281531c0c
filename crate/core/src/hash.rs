//! SHA-256 of bytes and files. sha2 0.11 dispatches at run time to the SHA-NI instructions
//! where the CPU has them (about 3x coreutils' sha256sum here).

use sha2::{Digest, Sha256};
use std::io::Read;
use std::path::Path;

pub fn hex(d: &[u8]) -> String {
    d.iter().map(|b| format!("{b:02x}")).collect()
}

pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

pub fn sha256_file_hex(path: &Path) -> std::io::Result<String> {
    let mut f = std::fs::File::open(path)?;
    let mut h = Sha256::new();
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = f.read(&mut buf)?;
        if n == 0 {
            break;
        }
        h.update(&buf[..n]);
    }
    Ok(hex(&h.finalize()))
}

/// Whether the file at `path` holds exactly `bytes`: the read-back check of a written file,
/// cheaper than hashing it and exact.
pub fn file_equals(path: &Path, bytes: &[u8]) -> std::io::Result<bool> {
    let mut f = std::fs::File::open(path)?;
    if f.metadata()?.len() != bytes.len() as u64 {
        return Ok(false);
    }
    let mut buf = vec![0u8; 1 << 20];
    let mut at = 0usize;
    loop {
        let n = f.read(&mut buf)?;
        if n == 0 {
            return Ok(at == bytes.len());
        }
        if at + n > bytes.len() || buf[..n] != bytes[at..at + n] {
            return Ok(false);
        }
        at += n;
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn file_equals_compares_the_whole_file() {
        let path = std::env::temp_dir().join(format!("cj-file-equals-{}", std::process::id()));
        let data: Vec<u8> = (0..3_000_000u32).map(|i| (i % 253) as u8).collect();
        std::fs::write(&path, &data).unwrap();
        assert!(super::file_equals(&path, &data).unwrap());
        let mut other = data.clone();
        other[2_500_000] ^= 1;
        assert!(!super::file_equals(&path, &other).unwrap());
        assert!(!super::file_equals(&path, &data[..data.len() - 1]).unwrap());
        std::fs::remove_file(&path).unwrap();
    }

    #[test]
    fn known_vector() {
        assert_eq!(super::sha256_hex(b"abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    }
}
