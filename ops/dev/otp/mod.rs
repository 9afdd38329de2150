//! One-time passwords: HOTP (RFC 4226) and TOTP (RFC 6238) codes, and new secrets with the
//! `otpauth://` URI authenticator apps read. `code.rs` holds what they share.

mod code;
pub(crate) mod hotp;
pub(crate) mod totp;
pub(crate) mod totp_secret;
