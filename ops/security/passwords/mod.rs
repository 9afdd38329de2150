//! Passwords and keys from passwords: `password/hash` and `password/verify` over every common
//! password-hash format (`schemes.rs`, with the cost caps in `params.rs`, crypt's Base64 in
//! `crypt64.rs` and md5-crypt in `md5_crypt.rs`), `htpasswd/generate`, and `kdf/derive`.
//!
//! Every function here is slow on purpose; the operations run on the CPU pool, and their
//! parameters are capped for hashing and verifying alike. Passwords, keys and salts never
//! reach a log line or an error message.

mod crypt64;
pub(crate) mod hash;
pub(crate) mod htpasswd;
pub(crate) mod kdf;
mod md5_crypt;
mod params;
mod schemes;
pub(crate) mod verify;
