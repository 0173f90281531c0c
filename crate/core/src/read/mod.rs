//! Read-side aggregations over scanned records: usage per request, per-file request facts,
//! tool calls and their targets, the turns `show` splits a chain into, and what a transcript's
//! head and tail say of its session (title, cwd, last activity).

pub mod facts;
pub mod select;
pub mod tool_targets;
pub mod transcript_facts;
pub mod turns;
pub mod usage;
