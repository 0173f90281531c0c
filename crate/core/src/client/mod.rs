//! How Claude Code (observed on client 2.1.332) turns the records of a transcript into the API
//! messages it sends when it resumes the file. Every rule the rest of the crate needs about the
//! client lives here, once:
//!
//! - [`leaf`]: which record the client resumes from (the last `last-prompt` pointer, its
//!   fallbacks, and where an interior pointer truncates the history);
//! - [`chain`]: the active chain from that leaf, with the assistant fragments of one
//!   `message.id` and the tool results of its calls spliced back in, and a live preserved
//!   segment of the last compaction relinked after its summary;
//! - [`messages`]: which records and blocks the client drops, and how the rest merge into API
//!   messages (fragments by `message.id`, consecutive user records into one message);
//! - [`records`]: the record types Claude Code writes, and the request key that tells the
//!   entries of one API request apart from the next.
//!
//! These are observations of one client version, made by resuming hand-written and real
//! transcripts against a loopback mock of the API (`docs/claude-code-client.md` lists them);
//! the format moves, so each rule says what it was seen to do.

pub mod blocks;
pub mod chain;
pub mod leaf;
pub mod messages;
pub mod records;

#[cfg(test)]
mod tests;

pub use chain::{Chain, Origin};
pub use leaf::{LeafChoice, LeafRule, Pointer};
