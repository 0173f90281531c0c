//! claude-jsonl native core: plain Rust, no Node types. The Node-API binding is its own crate
//! (`crate/node`), which depends on this one and only converts.

pub mod archive;
pub mod client;
pub mod compress;
pub mod dataset;
pub mod estate;
pub mod failure;
pub mod graph;
pub mod hash;
pub mod mapped;
pub mod read;
pub mod scan;
pub mod search;
pub mod store;
pub mod topology;
pub mod validate;

/// An I/O error as one short phrase for a message that already names the path (`path: phrase`),
/// without the OS error number Rust appends.
pub fn io_message(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "no such file or directory".into(),
        std::io::ErrorKind::PermissionDenied => "permission denied".into(),
        _ => e.to_string(),
    }
}
