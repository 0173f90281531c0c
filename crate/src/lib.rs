//! claude-jsonl native core: plain Rust, no Node types. The Node-API binding lives in
//! `binding` and is compiled only with the `node` feature.

pub mod estate;
pub mod hash;
pub mod read;
pub mod scan;

#[cfg(feature = "node")]
mod binding;
