//! Message digests and HMAC over any bytes: the message (and a key) are text by default, or
//! bytes in the byte convention's `inputEncoding`. `algorithm.rs` holds the digests and how
//! answers are written; one file per operation uses it.
//!
//! MD5, SHA-1 and MD4 are offered because checksums and legacy protocols still need them; they
//! are broken for collision resistance, and the descriptions say so.

mod algorithm;
pub(crate) mod batch;
pub(crate) mod hmac;
pub(crate) mod single;
