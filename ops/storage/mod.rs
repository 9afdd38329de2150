//! Storage: pastes, short links and webhook inboxes, on the configured store.
//!
//! One folder per feature, and `shared` for what they have in common (manage tokens, the
//! stream of a log); a file not reached by a `mod` line fails the build.

pub(crate) mod paste;
pub(crate) mod shared;
pub(crate) mod short_url;
pub(crate) mod webhook;
