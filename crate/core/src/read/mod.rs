//! Read-side aggregations over scanned records: usage per request, per-file request facts,
//! tool calls and their targets.

pub mod facts;
pub mod select;
pub mod tool_targets;
pub mod usage;
