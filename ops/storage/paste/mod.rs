//! Pastes: text stored under a random id, read back (optionally burned after reading) and deleted with a token.

pub(crate) mod create;
pub(crate) mod model;
pub(crate) mod page;
pub(crate) mod read;
