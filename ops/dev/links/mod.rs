//! Links as people receive them: wrapped by a mail filter, a search engine or a social site
//! (`unwrap.rs` reads the destination back, offline), and loaded with tracking parameters
//! (`clean.rs` takes them off, naming each; `trackers.rs` holds the names). Nothing here
//! fetches anything: every answer comes from the text of the link.

pub(crate) mod clean;
mod query;
mod trackers;
pub(crate) mod unwrap;
