//! Encodings and byte transforms: bytes written as hex, dumps, Base32, Base58 and Base85, and
//! read back, each on the byte convention (`wrench_kit::byte_encoding`): bytes in through
//! `inputEncoding`, bytes out through `outputEncoding`, nothing lost that is not UTF-8.
//!
//! Every file here is declared below; the build fails naming a file that is not.

pub(crate) mod base32;
pub(crate) mod base58;
pub(crate) mod base85;
pub(crate) mod hex;
pub(crate) mod hexdump;
pub(crate) mod reading;
