//! Read-side aggregations over scanned records: usage per request, per-file request facts,
//! tool calls and their targets, the turns `show` splits a chain into.

pub mod facts;
pub mod select;
pub mod tool_targets;
pub mod turns;
pub mod usage;
