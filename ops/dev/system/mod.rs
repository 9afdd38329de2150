//! Unix and system references worked out offline: file modes (`chmod.rs`).

pub(crate) mod chmod;
