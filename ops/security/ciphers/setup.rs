//! What `cipher/encrypt` and `cipher/decrypt` share: the names of ciphers and modes in the
//! document, the checks of a request's key, IV, tag and padding against them, and the
//! passphrase form of `openssl enc` and crypto-js (`Salted__`, then an 8-byte salt; key and IV
//! from EVP_BytesToKey or PBKDF2).

use wrench_contract::prelude::*;
use wrench_kit::byte_encoding::{self, InputEncoding};
use wrench_kit::crypto::{self, MacHash};

use super::engine::{Cipher, Mode};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema, Validate)]
pub(super) enum CipherMode {
    /// Galois/Counter Mode: authenticated, a 12-byte nonce and a 16-byte tag (AES only).
    #[serde(rename = "gcm")]
    Gcm,
    /// Cipher block chaining, padded (PKCS#7 by default).
    #[serde(rename = "cbc")]
    Cbc,
    /// Counter mode with a 128-bit big-endian counter, as OpenSSL runs it (AES only).
    #[serde(rename = "ctr")]
    Ctr,
    /// Cipher feedback, full blocks (OpenSSL's `-cfb`).
    #[serde(rename = "cfb")]
    Cfb,
    /// Output feedback.
    #[serde(rename = "ofb")]
    Ofb,
    /// Electronic codebook: each block alone, which shows patterns. For old data.
    #[serde(rename = "ecb")]
    Ecb,
}

impl CipherMode {
    pub(super) fn mode(self) -> Mode {
        match self {
            CipherMode::Gcm => Mode::Gcm,
            CipherMode::Cbc => Mode::Cbc,
            CipherMode::Ctr => Mode::Ctr,
            CipherMode::Cfb => Mode::Cfb,
            CipherMode::Ofb => Mode::Ofb,
            CipherMode::Ecb => Mode::Ecb,
        }
    }
}

#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema, Validate)]
#[serde(rename_all = "lowercase")]
pub(super) enum CipherPadding {
    /// PKCS#7 (what OpenSSL, crypto-js and most libraries use).
    #[default]
    Pkcs7,
    /// None: the data must be whole blocks.
    None,
}

#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema, Validate)]
pub(super) enum PassphraseKdf {
    /// EVP_BytesToKey with MD5: crypto-js, and `openssl enc -md md5` (OpenSSL before 1.1.0).
    #[default]
    #[serde(rename = "evp-md5")]
    EvpMd5,
    /// EVP_BytesToKey with SHA-256: `openssl enc` since 1.1.0 without `-pbkdf2`.
    #[serde(rename = "evp-sha256")]
    EvpSha256,
    /// PBKDF2-HMAC-SHA256: `openssl enc -pbkdf2` (`iterations`, 10,000 by default).
    #[serde(rename = "pbkdf2")]
    Pbkdf2,
}

/// OpenSSL's marker before the salt of a passphrase-encrypted file.
pub(super) const SALTED: &[u8; 8] = b"Salted__";

/// The most PBKDF2 iterations a passphrase may ask for (as `kdf/derive` allows).
const MAX_ITERATIONS: u32 = 2_000_000;

/// The mode `cipher` runs in: the asked one if the cipher has modes and allows it, else its own.
pub(super) fn mode_for(cipher: Cipher, asked: Option<CipherMode>, default: CipherMode) -> Result<Mode, ApiError> {
    let own = matches!(cipher, Cipher::ChaCha20Poly1305 | Cipher::XChaCha20Poly1305 | Cipher::Rc4);
    match (own, asked) {
        (true, Some(_)) => Err(ApiError::invalid("mode", "this cipher has no modes: leave `mode` out")),
        (true, None) => Ok(Mode::Own),
        (false, asked) => {
            let mode = asked.unwrap_or(default).mode();
            if cipher.block() != 16 && matches!(mode, Mode::Gcm | Mode::Ctr) {
                return Err(ApiError::invalid(
                    "mode",
                    "GCM and CTR are offered with AES only; Triple DES, DES and Blowfish run in cbc, ecb, cfb or ofb",
                ));
            }
            Ok(mode)
        }
    }
}

/// The bytes of a `key` given in `encoding`, checked against the cipher; `kdf` and
/// `iterations` (`passphrase_options`) belong with a passphrase and are refused beside a key.
pub(super) fn given_key(
    cipher: Cipher,
    key: &str,
    encoding: InputEncoding,
    passphrase_options: bool,
) -> Result<Vec<u8>, ApiError> {
    if passphrase_options {
        return Err(ApiError::invalid("kdf", "`kdf` and `iterations` go with `passphrase`"));
    }
    let key = byte_encoding::decode(key, encoding, "key")?;
    check_key(cipher, &key)?;
    Ok(key)
}

/// Checks a key's length against the cipher.
fn check_key(cipher: Cipher, key: &[u8]) -> Result<(), ApiError> {
    let (min, max) = cipher.key_lengths();
    if (min..=max).contains(&key.len()) {
        return Ok(());
    }
    let want = if min == max { format!("{min}") } else { format!("{min} to {max}") };
    Err(ApiError::invalid("key", format!("this cipher takes a key of {want} bytes, not {}", key.len())))
}

/// Checks an IV's length against the cipher and mode.
pub(super) fn check_iv(cipher: Cipher, mode: Mode, iv: &[u8]) -> Result<(), ApiError> {
    let want = cipher.iv_length(mode);
    match (want, iv.len()) {
        (0, 0) => Ok(()),
        (0, _) => Err(ApiError::invalid("iv", "this cipher and mode take no IV: leave `iv` out")),
        (w, n) if w == n => Ok(()),
        (w, n) => Err(ApiError::invalid("iv", format!("this cipher and mode take an IV of {w} bytes, not {n}"))),
    }
}

/// Refuses a padding or AAD the mode does not read.
pub(super) fn check_extras(
    cipher: Cipher,
    mode: Mode,
    padding: Option<CipherPadding>,
    has_aad: bool,
) -> Result<(), ApiError> {
    if padding.is_some() && !matches!(mode, Mode::Cbc | Mode::Ecb) {
        return Err(ApiError::invalid("padding", "only cbc and ecb pad: leave `padding` out"));
    }
    if has_aad && !cipher.authenticates(mode) {
        return Err(ApiError::invalid("aad", "only GCM and ChaCha20-Poly1305 authenticate additional data"));
    }
    Ok(())
}

/// Key and IV from a passphrase and salt, as `openssl enc` derives them.
pub(super) fn from_passphrase(
    cipher: Cipher,
    mode: Mode,
    passphrase: &[u8],
    salt: &[u8],
    kdf: PassphraseKdf,
    iterations: Option<u32>,
) -> Result<(Vec<u8>, Vec<u8>), ApiError> {
    if cipher.authenticates(mode) {
        return Err(ApiError::invalid(
            "passphrase",
            "openssl enc has no AEAD form: give a `key` for GCM and ChaCha20-Poly1305",
        ));
    }
    if iterations.is_some() && kdf != PassphraseKdf::Pbkdf2 {
        return Err(ApiError::invalid("iterations", "only the pbkdf2 passphrase form takes iterations"));
    }
    // openssl enc uses the cipher's longest key (Blowfish: 16 bytes, as OpenSSL's bf-cbc).
    let key_len = match cipher {
        Cipher::Blowfish => 16,
        Cipher::Rc4 => 16,
        c => c.key_lengths().1,
    };
    let iv_len = cipher.iv_length(mode);
    let n = key_len + iv_len;
    let bytes = match kdf {
        PassphraseKdf::EvpMd5 => crypto::evp_bytes_to_key(MacHash::Md5, passphrase, salt, 1, n),
        PassphraseKdf::EvpSha256 => crypto::evp_bytes_to_key(MacHash::Sha256, passphrase, salt, 1, n),
        PassphraseKdf::Pbkdf2 => {
            let rounds = iterations.unwrap_or(10_000);
            if rounds > MAX_ITERATIONS {
                return Err(ApiError::invalid("iterations", format!("at most {MAX_ITERATIONS} iterations here")));
            }
            let mut out = vec![0; n];
            pbkdf2::pbkdf2_hmac::<sha2::Sha256>(passphrase, salt, rounds, &mut out);
            out
        }
    };
    let (key, iv) = bytes.split_at(key_len);
    Ok((key.to_vec(), iv.to_vec()))
}

/// Fresh random bytes (IVs, salts).
pub(super) fn random(n: usize) -> Result<Vec<u8>, ApiError> {
    let mut bytes = vec![0u8; n];
    getrandom::fill(&mut bytes).map_err(|_| ApiError::internal("the system's random source failed"))?;
    Ok(bytes)
}
