//! Identifiers beyond the random ones of `dev/uuid.rs`: name-based UUIDs (versions 3 and 5,
//! `named.rs`), time-based UUIDs (versions 1 and 6, `timed.rs`), and the common identifiers
//! read back to their parts and embedded times (`decode.rs`, with the per-format readers of
//! `formats.rs`).

pub(crate) mod decode;
mod formats;
pub(crate) mod named;
pub(crate) mod timed;
