//! Compression of one transcript (issue 3): the pieces that run over its bytes natively.

pub mod estimate;
pub mod summary_inputs;
