//! The bytes of a record, by its index in a scan, from the buffer the scan was made from.

use super::Scan;
use crate::failure::{Code, Failure};

/// Refuses record indexes beyond the scan.
pub fn check_indexes(scan: &Scan, indexes: &[u32]) -> Result<(), Failure> {
    let n = scan.records.len();
    match indexes.iter().find(|&&i| i as usize >= n) {
        Some(bad) => Err(Failure::new(
            Code::InvalidArgument,
            format!("record index {bad} is out of range (the transcript has {n} records)"),
        )),
        None => Ok(()),
    }
}

/// The raw line of record `i` (an index already checked), from the bytes the scan was made from.
pub fn record_line<'b>(scan: &Scan, bytes: &'b [u8], i: u32) -> Result<&'b [u8], Failure> {
    record_line_at(scan, bytes, 0, i)
}

/// [`record_line`] from `bytes` holding the file's bytes from offset `base` on.
pub fn record_line_at<'b>(scan: &Scan, bytes: &'b [u8], base: u64, i: u32) -> Result<&'b [u8], Failure> {
    let r = &scan.records[i as usize];
    let at = r.offset.checked_sub(base).map_or(usize::MAX, |a| a as usize);
    bytes.get(at..at.saturating_add(r.len as usize)).ok_or_else(|| {
        Failure::new(
            Code::InvalidArgument,
            format!("record {i} lies beyond the end of the buffer: it is not the buffer the index was made from"),
        )
    })
}
