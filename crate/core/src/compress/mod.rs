//! Compression of one transcript, the parts that run over its bytes natively: locating and
//! editing members of kept records, the summary's inputs, and assembling the candidate from
//! source spans. (The token estimate is its own module, `crate::estimate`: planning uses it too.)

pub mod json_span;
pub mod output;
pub mod pages;
pub mod read_pages;
pub mod summary_inputs;
