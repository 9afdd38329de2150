//! `cipher/encrypt`: AES in its six modes, ChaCha20-Poly1305 and XChaCha20-Poly1305 with a key
//! and IV, or with a passphrase as `openssl enc` and crypto-js do it.

use wrench_contract::prelude::*;
use wrench_kit::byte_encoding::{self, InputEncoding, OutputEncoding, UsedEncoding};

use super::engine::{self, Cipher, Mode};
use super::setup::{self, CipherMode, CipherPadding, PassphraseKdf, SALTED};

#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema, Validate)]
enum EncryptAlgorithm {
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
}

impl EncryptAlgorithm {
    fn cipher(self) -> Cipher {
        match self {
            EncryptAlgorithm::Aes128 => Cipher::Aes128,
            EncryptAlgorithm::Aes192 => Cipher::Aes192,
            EncryptAlgorithm::Aes256 => Cipher::Aes256,
            EncryptAlgorithm::ChaCha20Poly1305 => Cipher::ChaCha20Poly1305,
            EncryptAlgorithm::XChaCha20Poly1305 => Cipher::XChaCha20Poly1305,
        }
    }
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct CipherEncryptInput {
    /// The plaintext: text (its UTF-8 bytes), or bytes written as `inputEncoding` says.
    input: String,
    /// How `input` carries its bytes: `utf-8` (the default), `hex`, `base64` or `base64url`.
    #[serde(default)]
    input_encoding: InputEncoding,
    /// The cipher: `aes-256` by default.
    #[serde(default)]
    algorithm: EncryptAlgorithm,
    /// AES's mode: `gcm` by default. ChaCha20-Poly1305 has none.
    #[serde(default)]
    mode: Option<CipherMode>,
    /// The key (16, 24 or 32 bytes for AES-128/192/256; 32 for ChaCha20): give
    /// `keyEncoding: hex` for a hex key. Either `key` or `passphrase`.
    #[serde(default)]
    #[schemars(length(min = 1, max = 128))]
    key: Option<String>,
    /// How `key` carries its bytes: `utf-8` (the default), `hex`, `base64` or `base64url`.
    #[serde(default)]
    key_encoding: InputEncoding,
    /// The IV or nonce: 12 bytes for GCM and ChaCha20-Poly1305, 24 for XChaCha20-Poly1305, 16
    /// for AES's other modes, none for ECB. A fresh random one when absent (the answer gives
    /// it). Never reuse a nonce with a key for GCM or ChaCha20.
    #[serde(default)]
    #[schemars(length(min = 1, max = 64))]
    iv: Option<String>,
    /// How `iv` carries its bytes: `utf-8` (the default), `hex`, `base64` or `base64url`.
    #[serde(default)]
    iv_encoding: InputEncoding,
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
    /// A passphrase instead of a key: the answer is OpenSSL's `Salted__` format, as
    /// `openssl enc -a` and crypto-js write it (not for GCM or ChaCha20).
    #[serde(default)]
    #[schemars(length(min = 1, max = 1024))]
    passphrase: Option<String>,
    /// How a passphrase becomes a key and IV: `evp-md5` (crypto-js; the default),
    /// `evp-sha256` (`openssl enc` since 1.1.0) or `pbkdf2` (`openssl enc -pbkdf2`).
    #[serde(default)]
    kdf: Option<PassphraseKdf>,
    /// PBKDF2 iterations for `kdf: pbkdf2` (10,000 by default, as OpenSSL's).
    #[serde(default)]
    #[schemars(range(min = 1, max = 2000000))]
    iterations: Option<u32>,
    /// How the ciphertext is written: `base64` by default, `hex` or `base64url`.
    #[serde(default = "wrench_kit::byte_encoding::base64_output")]
    output_encoding: OutputEncoding,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct CipherEncryptOutput {
    /// The ciphertext (for a passphrase, `Salted__`, the salt and the ciphertext); an AEAD's
    /// tag is apart, in `tag`.
    output: String,
    /// How `output` is written.
    output_encoding: UsedEncoding,
    /// The IV or nonce used, in hex (absent for ECB).
    #[serde(skip_serializing_if = "Option::is_none")]
    iv: Option<String>,
    /// The 16-byte authentication tag of GCM and ChaCha20-Poly1305, in hex.
    #[serde(skip_serializing_if = "Option::is_none")]
    tag: Option<String>,
    /// The passphrase's salt, in hex.
    #[serde(skip_serializing_if = "Option::is_none")]
    salt: Option<String>,
    /// The cipher used.
    algorithm: EncryptAlgorithm,
    /// The mode used (absent for ChaCha20-Poly1305).
    #[serde(skip_serializing_if = "Option::is_none")]
    mode: Option<CipherMode>,
}

/// Encrypt with AES (GCM, CBC, CTR, CFB, OFB, ECB) or ChaCha20-Poly1305.
///
/// Encrypts the bytes of `input` with AES-128, -192 or -256 in GCM (the default), CBC, CTR,
/// CFB, OFB or ECB, or with ChaCha20-Poly1305 or XChaCha20-Poly1305, under `key` and `iv` (a
/// random one when absent). AEAD tags come apart in `tag`. With `passphrase` instead of a key,
/// writes OpenSSL's `Salted__` format, which `openssl enc -d -a` and crypto-js's
/// `AES.decrypt` read (`kdf` says how the key was derived). The key and plaintext are not
/// stored or logged.
#[op(post "/v1/cipher/encrypt" as cipherEncrypt, tag = SecurityAndValidation, pipe(input -> output),
     redact(".data.output", ".data.iv", ".data.tag", ".data.salt"),
     rejects = "a key, IV or padding the cipher and mode do not take, both or neither of `key` and `passphrase`, or data that is not whole blocks without padding, naming the field",
     example(aes_256_gcm, {"input": "meet at noon", "key": "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f", "keyEncoding": "hex"}),
     example(aes_128_cbc_known_iv, {"input": "meet at noon", "algorithm": "aes-128", "mode": "cbc", "key": "2b7e151628aed2a6abf7158809cf4f3c", "keyEncoding": "hex", "iv": "000102030405060708090a0b0c0d0e0f", "ivEncoding": "hex"}),
     example(openssl_passphrase, {"input": "meet at noon", "mode": "cbc", "passphrase": "hunter2"}),
     example(chacha20, {"input": "meet at noon", "algorithm": "chacha20-poly1305", "key": "808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f", "keyEncoding": "hex"}),
     example(short_key, {"input": "x", "key": "too short"}, status = 400))]
async fn cipher_encrypt(input: CipherEncryptInput) -> Result<CipherEncryptOutput, ApiError> {
    let data = byte_encoding::decode(&input.input, input.input_encoding, "input")?;
    let cipher = input.algorithm.cipher();
    let mode = setup::mode_for(cipher, input.mode, CipherMode::Gcm)?;
    let aad = input.aad.as_deref().map(|a| byte_encoding::decode(a, input.aad_encoding, "aad")).transpose()?;
    setup::check_extras(cipher, mode, input.padding, aad.is_some())?;
    let pad = input.padding.unwrap_or_default() == CipherPadding::Pkcs7;
    let (key, iv, salt) = match (&input.key, &input.passphrase) {
        (Some(_), Some(_)) | (None, None) => {
            return Err(ApiError::invalid("key", "give either `key` or `passphrase`"));
        }
        (Some(key), None) => {
            let passphrase_options = input.kdf.is_some() || input.iterations.is_some();
            let key = setup::given_key(cipher, key, input.key_encoding, passphrase_options)?;
            let iv = match &input.iv {
                Some(iv) => byte_encoding::decode(iv, input.iv_encoding, "iv")?,
                None => setup::random(cipher.iv_length(mode))?,
            };
            setup::check_iv(cipher, mode, &iv)?;
            (key, iv, None)
        }
        (None, Some(passphrase)) => {
            if input.iv.is_some() {
                return Err(ApiError::invalid("iv", "a passphrase derives the IV: leave `iv` out"));
            }
            let salt = setup::random(8)?;
            let kdf = input.kdf.unwrap_or_default();
            let (key, iv) = setup::from_passphrase(cipher, mode, passphrase.as_bytes(), &salt, kdf, input.iterations)?;
            (key, iv, Some(salt))
        }
    };
    if !pad && matches!(mode, Mode::Cbc | Mode::Ecb) && data.len() % cipher.block() != 0 {
        return Err(ApiError::invalid(
            "input",
            format!(
                "without padding the input must be whole {}-byte blocks; it has {} bytes",
                cipher.block(),
                data.len()
            ),
        ));
    }
    let (ciphertext, tag) = engine::encrypt(cipher, mode, &key, &iv, aad.as_deref().unwrap_or_default(), pad, &data);
    let bytes = match &salt {
        Some(salt) => [&SALTED[..], salt, &ciphertext].concat(),
        None => ciphertext,
    };
    let (output, output_encoding) = byte_encoding::encode(&bytes, input.output_encoding, "outputEncoding")?;
    Ok(CipherEncryptOutput {
        output,
        output_encoding,
        iv: (!iv.is_empty()).then(|| hex::encode(&iv)),
        tag: tag.map(hex::encode),
        salt: salt.map(hex::encode),
        algorithm: input.algorithm,
        mode: (mode != Mode::Own).then(|| input.mode.unwrap_or(CipherMode::Gcm)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn field(case: &serde_json::Value, name: &str) -> Option<String> {
        case.get(name).and_then(|v| v.as_str()).map(str::to_string)
    }

    /// Python's cryptography and pycryptodome, and `openssl enc` (tests/fixtures/ciphers.py):
    /// the same ciphertext from the same key and IV, in every cipher and mode `cipher/encrypt`
    /// offers, and the same plaintext back from `cipher/decrypt` for those and the old ciphers.
    #[tokio::test]
    async fn the_references_agree_both_ways() {
        let fixture = crate::testing::fixture("ciphers.json");
        let cases = fixture["keys"].as_array().unwrap();
        assert!(cases.len() > 200);
        let mut encrypted = 0;
        for case in cases {
            let algorithm = case["algorithm"].as_str().unwrap();
            let mut request = json!({
                "key": case["key"], "keyEncoding": "hex", "algorithm": algorithm,
                "outputEncoding": "hex", "inputEncoding": "hex",
            });
            for name in ["mode", "padding", "aad"] {
                if let Some(v) = field(case, name) {
                    request[name] = json!(v);
                }
            }
            if case["aad"].is_string() {
                request["aadEncoding"] = json!("hex");
            }
            let iv = field(case, "iv").unwrap();
            if !iv.is_empty() {
                request["iv"] = json!(iv);
                request["ivEncoding"] = json!("hex");
            }
            let plaintext = field(case, "plaintext").unwrap();
            let ciphertext = field(case, "ciphertext").unwrap();
            if !["3des", "des", "blowfish", "rc4"].contains(&algorithm) {
                let mut enc = request.clone();
                enc["input"] = json!(plaintext);
                let input: CipherEncryptInput = serde_json::from_value(enc).unwrap();
                let out = cipher_encrypt(input).await.unwrap_or_else(|e| panic!("{case}: {}", e.message));
                assert_eq!(out.output, ciphertext, "{case}");
                assert_eq!(out.tag, field(case, "tag"), "{case}");
                encrypted += 1;
            }
            let mut dec = request.clone();
            dec["input"] = json!(ciphertext);
            dec["outputEncoding"] = json!("hex");
            if let Some(tag) = field(case, "tag") {
                dec["tag"] = json!(tag);
            }
            let out =
                crate::security::ciphers::decrypt::run(dec).await.unwrap_or_else(|e| panic!("{case}: {}", e.message));
            assert_eq!(out, plaintext, "{case}");
        }
        assert!(encrypted >= 130, "{encrypted}");
        for case in fixture["passphrases"].as_array().unwrap() {
            let mut dec = json!({
                "input": case["salted"], "inputEncoding": "hex", "algorithm": case["algorithm"], "mode": case["mode"],
                "passphrase": case["passphrase"], "kdf": case["kdf"], "outputEncoding": "hex",
            });
            if case["iterations"].is_number() {
                dec["iterations"] = case["iterations"].clone();
            }
            let out =
                crate::security::ciphers::decrypt::run(dec).await.unwrap_or_else(|e| panic!("{case}: {}", e.message));
            assert_eq!(out, case["plaintext"].as_str().unwrap(), "{case}");
        }
    }

    /// What `cipher/encrypt` writes with a passphrase, `openssl enc -d` reads (the other way
    /// round is the fixture's); the salt is random, so this goes through the round trip.
    #[tokio::test]
    async fn passphrase_output_round_trips_with_the_salt_it_names() {
        for kdf in ["evp-md5", "evp-sha256", "pbkdf2"] {
            let input: CipherEncryptInput =
                serde_json::from_value(json!({"input": "meet at noon", "mode": "cbc", "passphrase": "p", "kdf": kdf}))
                    .unwrap();
            let out = cipher_encrypt(input).await.unwrap();
            assert!(out.output.starts_with("U2FsdGVkX1"), "{}", out.output);
            let dec = json!({"input": out.output, "mode": "cbc", "passphrase": "p", "kdf": kdf});
            assert_eq!(crate::security::ciphers::decrypt::run(dec).await.unwrap(), "meet at noon");
        }
    }
}
