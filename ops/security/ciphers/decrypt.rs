//! `cipher/decrypt`: everything `cipher/encrypt` writes, OpenSSL's and crypto-js's passphrase
//! format, and for old data Triple DES, DES, Blowfish and RC4.

use wrench_contract::prelude::*;
use wrench_infra::envelope::ErrorCode;
use wrench_kit::byte_encoding::{self, InputEncoding, OutputEncoding, UsedEncoding};

use super::engine::{self, Cipher, Mode};
use super::setup::{self, CipherMode, CipherPadding, PassphraseKdf, SALTED};

#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema, Validate)]
enum DecryptAlgorithm {
    #[serde(rename = "aes-128")]
    Aes128,
    #[serde(rename = "aes-192")]
    Aes192,
    #[default]
    #[serde(rename = "aes-256")]
    Aes256,
    #[serde(rename = "chacha20-poly1305")]
    ChaCha20Poly1305,
    #[serde(rename = "xchacha20-poly1305")]
    XChaCha20Poly1305,
    /// Triple DES (EDE) with a 24-byte (three keys) or 16-byte (two keys) key; for old data.
    #[serde(rename = "3des")]
    TripleDes,
    /// Single DES, 8-byte key; broken, for old data.
    #[serde(rename = "des")]
    Des,
    /// Blowfish, 4- to 56-byte key; for old data.
    #[serde(rename = "blowfish")]
    Blowfish,
    /// RC4, 1- to 256-byte key; broken, for old data.
    #[serde(rename = "rc4")]
    Rc4,
}

impl DecryptAlgorithm {
    fn cipher(self) -> Cipher {
        match self {
            DecryptAlgorithm::Aes128 => Cipher::Aes128,
            DecryptAlgorithm::Aes192 => Cipher::Aes192,
            DecryptAlgorithm::Aes256 => Cipher::Aes256,
            DecryptAlgorithm::ChaCha20Poly1305 => Cipher::ChaCha20Poly1305,
            DecryptAlgorithm::XChaCha20Poly1305 => Cipher::XChaCha20Poly1305,
            DecryptAlgorithm::TripleDes => Cipher::TripleDes,
            DecryptAlgorithm::Des => Cipher::Des,
            DecryptAlgorithm::Blowfish => Cipher::Blowfish,
            DecryptAlgorithm::Rc4 => Cipher::Rc4,
        }
    }
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct CipherDecryptInput {
    /// The ciphertext, in Base64 by default (`inputEncoding` for hex). For a passphrase, the
    /// whole `Salted__` form (`U2FsdGVkX1...` in Base64). An AEAD's tag may be appended to it
    /// instead of given in `tag`.
    input: String,
    /// How `input` carries its bytes: `base64` (the default), `base64url`, `hex` or `utf-8`.
    #[serde(default = "wrench_kit::byte_encoding::base64_input")]
    input_encoding: InputEncoding,
    /// The cipher: `aes-256` by default.
    #[serde(default)]
    algorithm: DecryptAlgorithm,
    /// The mode: `gcm` for AES and `cbc` for Triple DES, DES and Blowfish by default.
    /// ChaCha20-Poly1305 and RC4 have none.
    #[serde(default)]
    mode: Option<CipherMode>,
    /// The key; give `keyEncoding: hex` for a hex key. Either `key` or `passphrase`.
    #[serde(default)]
    #[schemars(length(min = 1, max = 512))]
    key: Option<String>,
    /// How `key` carries its bytes: `utf-8` (the default), `hex`, `base64` or `base64url`.
    #[serde(default)]
    key_encoding: InputEncoding,
    /// The IV or nonce, required with a key where the mode has one.
    #[serde(default)]
    #[schemars(length(min = 1, max = 64))]
    iv: Option<String>,
    /// How `iv` carries its bytes: `utf-8` (the default), `hex`, `base64` or `base64url`.
    #[serde(default)]
    iv_encoding: InputEncoding,
    /// The 16-byte tag of GCM or ChaCha20-Poly1305, in hex; when absent, the last 16 bytes of
    /// `input` are the tag.
    #[serde(default)]
    #[schemars(length(min = 32, max = 32), regex(pattern = "^[0-9a-fA-F]{32}$"))]
    tag: Option<String>,
    /// Additional authenticated data, for GCM and ChaCha20-Poly1305.
    #[serde(default)]
    #[schemars(length(max = 65536))]
    aad: Option<String>,
    /// How `aad` carries its bytes: `utf-8` (the default), `hex`, `base64` or `base64url`.
    #[serde(default)]
    aad_encoding: InputEncoding,
    /// Padding for cbc and ecb: `pkcs7` by default.
    #[serde(default)]
    padding: Option<CipherPadding>,
    /// The passphrase, for OpenSSL's and crypto-js's `Salted__` format.
    #[serde(default)]
    #[schemars(length(min = 1, max = 1024))]
    passphrase: Option<String>,
    /// How the passphrase became a key: `evp-md5` (crypto-js; the default), `evp-sha256` or
    /// `pbkdf2`.
    #[serde(default)]
    kdf: Option<PassphraseKdf>,
    /// PBKDF2 iterations for `kdf: pbkdf2` (10,000 by default).
    #[serde(default)]
    #[schemars(range(min = 1, max = 2000000))]
    iterations: Option<u32>,
    /// How the plaintext is written: `auto` (text when it is UTF-8 text, else Base64; the
    /// default), `utf-8`, `hex`, `base64` or `base64url`.
    #[serde(default)]
    output_encoding: OutputEncoding,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct CipherDecryptOutput {
    /// The plaintext.
    output: String,
    /// How `output` is written.
    output_encoding: UsedEncoding,
}

fn failed() -> ApiError {
    ApiError::new(ErrorCode::DecryptionFailed, "the key, IV, tag or ciphertext is wrong")
}

/// Decrypt AES, ChaCha20, OpenSSL passphrase files, or old DES, RC4 and Blowfish.
///
/// Decrypts what `cipher/encrypt` writes, with the same key, IV and mode, and OpenSSL's
/// `Salted__` format with `passphrase` (`openssl enc -a`, crypto-js's `AES.encrypt` with a
/// string key). For old data it also reads Triple DES, DES and Blowfish (cbc, ecb, cfb, ofb)
/// and RC4, which it never writes. A wrong key, IV, tag or padding is one answer, 400
/// `DECRYPTION_FAILED`, whichever it was: telling them apart would help an attacker. The key
/// and plaintext are not stored or logged.
#[op(post "/v1/cipher/decrypt" as cipherDecrypt, tag = SecurityAndValidation, pipe(input -> output),
     errors(DECRYPTION_FAILED),
     rejects = "a wrong key, IV, tag or padding (DECRYPTION_FAILED), or a key, IV or field the cipher and mode do not take",
     example(openssl_passphrase, {"input": "U2FsdGVkX18BAgMEBQYHCJ8ZJQWSJ+KWg6JBt/iEOV0=", "mode": "cbc", "passphrase": "hunter2", "kdf": "evp-sha256"}),
     example(nist_ecb_aes_128, {"input": "3ad77bb40d7a3660a89ecaf32466ef97", "inputEncoding": "hex", "algorithm": "aes-128", "mode": "ecb", "key": "2b7e151628aed2a6abf7158809cf4f3c", "keyEncoding": "hex", "padding": "none", "outputEncoding": "hex"}),
     example(wrong_key, {"input": "U2FsdGVkX18BAgMEBQYHCJ8ZJQWSJ+KWg6JBt/iEOV0=", "mode": "cbc", "passphrase": "not it", "kdf": "evp-sha256"}, status = 400))]
async fn cipher_decrypt(input: CipherDecryptInput) -> Result<CipherDecryptOutput, ApiError> {
    let mut data = byte_encoding::decode(&input.input, input.input_encoding, "input")?;
    let cipher = input.algorithm.cipher();
    let default_mode = if cipher.block() == 16 { CipherMode::Gcm } else { CipherMode::Cbc };
    let mode = setup::mode_for(cipher, input.mode, default_mode)?;
    let aad = input.aad.as_deref().map(|a| byte_encoding::decode(a, input.aad_encoding, "aad")).transpose()?;
    setup::check_extras(cipher, mode, input.padding, aad.is_some())?;
    let authenticates = cipher.authenticates(mode);
    if input.tag.is_some() && !authenticates {
        return Err(ApiError::invalid("tag", "only GCM and ChaCha20-Poly1305 have a tag"));
    }
    let (key, iv) = match (&input.key, &input.passphrase) {
        (Some(_), Some(_)) | (None, None) => return Err(ApiError::invalid("key", "give either `key` or `passphrase`")),
        (Some(key), None) => {
            let passphrase_options = input.kdf.is_some() || input.iterations.is_some();
            let key = setup::given_key(cipher, key, input.key_encoding, passphrase_options)?;
            let iv = match &input.iv {
                Some(iv) => byte_encoding::decode(iv, input.iv_encoding, "iv")?,
                None if cipher.iv_length(mode) > 0 => {
                    return Err(ApiError::invalid("iv", "this cipher and mode need the IV used to encrypt"));
                }
                None => Vec::new(),
            };
            setup::check_iv(cipher, mode, &iv)?;
            (key, iv)
        }
        (None, Some(passphrase)) => {
            if input.iv.is_some() {
                return Err(ApiError::invalid("iv", "a passphrase derives the IV: leave `iv` out"));
            }
            if data.len() < 16 || &data[..8] != SALTED {
                return Err(ApiError::invalid(
                    "input",
                    "a passphrase needs OpenSSL's format: `Salted__`, an 8-byte salt, then the ciphertext",
                ));
            }
            let salt = data[8..16].to_vec();
            data.drain(..16);
            let kdf = input.kdf.unwrap_or_default();
            setup::from_passphrase(cipher, mode, passphrase.as_bytes(), &salt, kdf, input.iterations)?
        }
    };
    let tag = match &input.tag {
        Some(tag) => hex::decode(tag).map_err(|_| ApiError::invalid("tag", "is not hex"))?,
        None if authenticates => {
            if data.len() < 16 {
                return Err(ApiError::invalid("input", "is shorter than the 16-byte tag it should end with"));
            }
            data.split_off(data.len() - 16)
        }
        None => Vec::new(),
    };
    if matches!(mode, Mode::Cbc | Mode::Ecb) && data.len() % cipher.block() != 0 {
        return Err(ApiError::invalid(
            "input",
            format!(
                "cbc and ecb ciphertexts are whole {}-byte blocks; this one has {} bytes",
                cipher.block(),
                data.len()
            ),
        ));
    }
    let pad = input.padding.unwrap_or_default() == CipherPadding::Pkcs7;
    let plaintext = engine::decrypt(cipher, mode, &key, &iv, aad.as_deref().unwrap_or_default(), &tag, pad, &data)
        .map_err(|_| failed())?;
    let (output, output_encoding) = byte_encoding::encode(&plaintext, input.output_encoding, "outputEncoding")?;
    Ok(CipherDecryptOutput { output, output_encoding })
}

/// Runs a decryption request given as JSON and answers the plaintext as written (for the
/// tests that compare with references).
#[cfg(test)]
pub(super) async fn run(request: serde_json::Value) -> Result<String, ApiError> {
    let input: CipherDecryptInput = serde_json::from_value(request).map_err(|e| ApiError::invalid("request", e))?;
    Ok(cipher_decrypt(input).await?.output)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A wrong key, a wrong tag and a wrong padding all answer the same, word for word.
    #[tokio::test]
    async fn every_failure_is_one_answer() {
        let key = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";
        let other = "ff0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";
        let gcm = |key: &str, tag: &str| json!({"input": "00112233", "inputEncoding": "hex", "key": key, "keyEncoding": "hex", "iv": "000000000000000000000000", "ivEncoding": "hex", "tag": tag});
        let cbc = |key: &str| json!({"input": "000102030405060708090a0b0c0d0e0f", "inputEncoding": "hex", "mode": "cbc", "key": key, "keyEncoding": "hex", "iv": "000102030405060708090a0b0c0d0e0f", "ivEncoding": "hex"});
        let mut messages = Vec::new();
        for request in [
            gcm(key, "00000000000000000000000000000000"),
            gcm(other, "11111111111111111111111111111111"),
            cbc(key),
            cbc(other),
        ] {
            let e = run(request).await.unwrap_err();
            assert_eq!(e.code, ErrorCode::DecryptionFailed);
            messages.push(e.message);
        }
        messages.dedup();
        assert_eq!(messages.len(), 1, "{messages:?}");
    }
}
