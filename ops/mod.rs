//! The operations. One folder per group, one file per topic, one `#[op]` function per
//! operation. Each file is declared by a `mod` line in its group's `mod.rs` (and each group
//! here), so rustfmt and readers see the whole tree; `build.rs` finds every `#[op]` function
//! and generates only the registry included below, and fails the build naming any file that
//! is not declared.

pub(crate) mod data;
pub(crate) mod dev;
pub(crate) mod images;
pub(crate) mod live;
pub(crate) mod lookups;
pub(crate) mod security;
pub(crate) mod storage;
pub(crate) mod text;

include!(concat!(env!("OUT_DIR"), "/registry.rs"));
