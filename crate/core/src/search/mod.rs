//! Ranked full-text search over an estate's conversations.
//!
//! Documents are transcript files: a session's main transcript and each of its subagents'.
//! Hits are sessions (a session's best-scoring file stands for it): "when did we discuss X" is
//! answered by a session one can resume, and one long session repeating a word should not fill
//! every slot of the answer as turns would. Each document is a [`segment`]: a sorted term table with, per term, its
//! frequency and the record where it occurs most, so a hit's snippet is made by reading back
//! only a few records by their byte span. Ranking is BM25 summed over the query's terms, so a
//! document holding two of three terms still ranks (no AND cliff); a quoted phrase found
//! contiguous in a hit's best records earns a bonus.
//!
//! The index is the segments written to one file outside the estate, refreshed per file by
//! (size, mtime): an unchanged file's segment is reused; a file that grew, whose old last 4 KiB
//! are unchanged and end a line, has only its new bytes read and merged in; any other change
//! (shrunk, rewritten) rebuilds that file's segment from all its bytes. The index file is then
//! replaced atomically (temp file, fsync, rename).

pub mod build;
pub mod corpus;
pub mod exact;
pub mod extract;
pub mod find;
pub mod index_file;
pub mod rank;
pub mod segment;
pub mod snippet;
pub mod tokenize;

pub use build::Source;
pub use corpus::{open, Corpus};
pub use extract::Fields;
pub use index_file::index_path;
pub use rank::{bm25_term, idf, search, Answer, Filter, Hit, Query, B, K1};
pub use snippet::snippet_of;

#[cfg(test)]
mod tests;
