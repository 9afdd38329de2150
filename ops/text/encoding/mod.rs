//! Encodings and byte transforms: bytes written as hex, dumps, Base32, Base58 and Base85, HTML
//! character references, string literals, Unicode escapes and quoted-printable, and read back; charsets, Unicode
//! normalization, IDNs, rotations and XOR. Each is on the byte convention
//! (`wrench_kit::byte_encoding`): bytes in through `inputEncoding`, bytes out through
//! `outputEncoding`, nothing lost that is not UTF-8.
//!
//! Every file here is declared below; the build fails naming a file that is not.

pub(crate) mod base32;
pub(crate) mod base58;
pub(crate) mod base85;
pub(crate) mod bytes_convert;
pub(crate) mod charset;
pub(crate) mod hex;
pub(crate) mod hexdump;
pub(crate) mod html_entities;
pub(crate) mod normalize;
pub(crate) mod punycode;
pub(crate) mod quoted_printable;
pub(crate) mod reading;
pub(crate) mod rot;
pub(crate) mod string_escape;
pub(crate) mod string_unescape;
pub(crate) mod unicode_escape;
pub(crate) mod xor;
