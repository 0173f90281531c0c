//! Reading an archive: what it holds (catalog.rs) and a generation's transcript bytes decoded,
//! checked against the SHA-256 of every mark (decode.rs).

mod catalog;
mod decode;

pub use catalog::*;
pub use decode::*;
