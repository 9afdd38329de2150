//! What the one-time-password operations share: HOTP itself (RFC 4226 section 5.3), the
//! hashes it may run on, and secrets in Base32 (RFC 4648) as authenticator apps show them:
//! letter case, spaces and `=` padding do not matter. Any secret of at least one byte is read
//! (apps commonly use 80-bit secrets, below RFC 4226's recommended 128); new secrets are 160
//! bits unless asked otherwise. Codes are compared in constant time by the operations.

use wrench_contract::prelude::*;
use wrench_kit::crypto::{self, MacHash};

#[derive(Debug, Deserialize, Serialize, JsonSchema, Validate, Clone, Copy, PartialEq)]
#[serde(rename_all = "lowercase")]
pub(super) enum TotpAlgorithm {
    Sha1,
    Sha256,
    Sha512,
}

pub(super) fn sha1() -> TotpAlgorithm {
    TotpAlgorithm::Sha1
}
pub(super) fn thirty() -> u32 {
    30
}
pub(super) fn six() -> u32 {
    6
}
pub(super) fn one() -> u32 {
    1
}

/// RFC 4648 Base32, forgiving about case, spaces, hyphens and padding, strict about the rest.
pub(super) fn base32_decode(text: &str) -> Result<Vec<u8>, String> {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
    let mut bits: u64 = 0;
    let mut n = 0u32;
    let mut out = Vec::new();
    for (i, c) in text.chars().enumerate() {
        if c.is_whitespace() || c == '-' || c == '=' {
            continue;
        }
        let v = ALPHABET
            .iter()
            .position(|&a| a as char == c.to_ascii_uppercase())
            .ok_or_else(|| format!("{c:?} at position {i} is not a Base32 character (A-Z, 2-7)"))?;
        bits = (bits << 5) | v as u64;
        n += 5;
        if n >= 8 {
            n -= 8;
            out.push((bits >> n) as u8);
            bits &= (1 << n) - 1;
        }
    }
    if out.is_empty() {
        return Err("decodes to no bytes".to_string());
    }
    Ok(out)
}

/// The HOTP value (RFC 4226 section 5.3) for `counter`, as a zero-padded decimal string.
pub(super) fn hotp(algorithm: TotpAlgorithm, key: &[u8], counter: u64, digits: u32) -> String {
    let hash = match algorithm {
        TotpAlgorithm::Sha1 => MacHash::Sha1,
        TotpAlgorithm::Sha256 => MacHash::Sha256,
        TotpAlgorithm::Sha512 => MacHash::Sha512,
    };
    let mac = crypto::hmac(hash, key, &counter.to_be_bytes());
    let offset = (mac[mac.len() - 1] & 0x0f) as usize;
    let code = u32::from_be_bytes([mac[offset] & 0x7f, mac[offset + 1], mac[offset + 2], mac[offset + 3]]);
    format!("{:0width$}", code % 10u32.pow(digits), width = digits as usize)
}

/// RFC 4648 Base32 without padding, as authenticator apps and pyotp write secrets.
pub(super) fn base32_encode(bytes: &[u8]) -> String {
    data_encoding::BASE32_NOPAD.encode(bytes)
}
