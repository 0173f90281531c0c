//! Compression's byte-level work: locating and editing members of kept records, and assembling
//! the candidate transcript from source spans.

pub mod json_span;
pub mod output;
