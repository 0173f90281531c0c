//! The estate archive: every session and subagent transcript mirrored into a session
//! store root, incrementally, byte-exact, and read back (restore, and the readers, which scan
//! its streams in memory: `estate_scan`). The store's frame format is `crate::store`; this module adds the event form
//! that carries raw transcript bytes (`events`), where each transcript lives (`layout`), the
//! per-file index (`index`), the archive run (`write`) and reading (`read`, `restore`).

pub mod config_files;
pub mod destination;
pub mod estate_scan;
pub mod events;
pub mod history;
pub mod index;
pub mod key;
pub mod layout;
pub mod owner;
pub mod read;
pub mod restore;
mod run;
pub mod session_files;
pub(crate) mod source;
pub mod stream;
pub mod write;
mod write_stream;

pub use read::{is_archive, latest, list, Stored};
pub use write::{archive, Summary};

use crate::failure::{Code, Failure};

/// An archive operation that cannot proceed fails as `archive` whatever stopped it (a folder
/// that cannot be read, a corrupt store file, another run's lock): the file it concerns stays as
/// data and the message names it. The steps below keep their own codes for their own callers.
fn cannot_proceed(f: Failure) -> Failure {
    f.recoded(Code::Archive)
}

#[cfg(test)]
mod config_tests;
#[cfg(test)]
mod tests;
