//! Signatures over a message with a key: `scheme.rs` binds each scheme to its kind of key and
//! converts ECDSA signatures between DER and raw form; `sign.rs` and `verify.rs` are the
//! operations. The keys are read by `security::keys`, the arithmetic is aws-lc-rs's.

pub(crate) mod scheme;
pub(crate) mod sign;
pub(crate) mod verify;
