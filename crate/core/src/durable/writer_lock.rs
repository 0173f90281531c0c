//! The one-writer lock of a store file: an exclusive advisory lock (flock) taken without
//! blocking and held until released or the process exits, so a killed writer never leaves a
//! stale lock.

use crate::failure::{Code, Failure};
use std::fs::File;
use std::path::Path;

/// The writer lock of one store file, held while this value lives (or until [`WriterLock::release`]).
#[derive(Debug)]
pub struct WriterLock {
    file: File,
}

impl WriterLock {
    /// Takes the lock of the store file at `path`; a lock held elsewhere (another process, or
    /// another handle in this one) is a `locked` failure naming the file.
    pub fn take(path: &Path) -> Result<WriterLock, Failure> {
        let file = File::open(path).map_err(|e| Failure::io(path, &e))?;
        match file.try_lock() {
            Ok(()) => Ok(WriterLock { file }),
            Err(std::fs::TryLockError::WouldBlock) => {
                Err(Failure::at(Code::Locked, path, "another writer holds this session (one writer per session)"))
            }
            Err(std::fs::TryLockError::Error(e)) => {
                Err(Failure::at(Code::Io, path, format!("cannot lock: {}", crate::io_message(&e))))
            }
        }
    }

    /// Lets the lock go now rather than when the value is dropped.
    pub fn release(self) {
        let _ = self.file.unlock();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_lock_on_a_held_file_is_locked_and_free_again_after_release() {
        let dir = std::env::temp_dir().join(format!("cj-writer-lock-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("s.jsonl");
        std::fs::write(&path, b"{}\n").unwrap();
        let held = WriterLock::take(&path).unwrap();
        let second = WriterLock::take(&path).unwrap_err();
        assert_eq!(second.code, Code::Locked);
        assert_eq!(second.path.as_deref(), Some(path.display().to_string().as_str()));
        held.release();
        WriterLock::take(&path).unwrap().release();
        assert_eq!(WriterLock::take(&dir.join("missing")).unwrap_err().code, Code::Io);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
