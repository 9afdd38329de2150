//! Symmetric ciphers: `cipher/encrypt` and `cipher/decrypt` over AES in six modes,
//! ChaCha20-Poly1305 and XChaCha20-Poly1305, OpenSSL's passphrase format, and for reading old
//! data Triple DES, DES, Blowfish and RC4. `engine.rs` runs the ciphers; `setup.rs` checks a
//! request's key, IV and options and derives keys from passphrases.
//!
//! Keys and plaintexts never reach a log line or an error message, and every way a decryption
//! can fail gives the same answer.

pub(crate) mod decrypt;
pub(crate) mod encrypt;
mod engine;
mod setup;
