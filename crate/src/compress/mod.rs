//! Compression of one transcript (issue 3), the parts that run over its bytes natively: the
//! token estimate, locating and editing members of kept records, and assembling the candidate
//! from source spans.

pub mod estimate;
pub mod json_span;
pub mod output;
pub mod summary_inputs;
