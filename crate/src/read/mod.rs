//! Read-side aggregations over scanned records: usage per request, per-file request facts.

pub mod facts;
pub mod select;
pub mod usage;
