//! Password-based encryption: AES-256-GCM with a key derived by Argon2id.
//!
//! The ciphertext is Base64 (standard alphabet, padded) of one self-describing blob:
//!
//! ```text
//! offset  size  field
//! 0       1     format version, 1
//! 1       4     Argon2id memory in KiB (big-endian)
//! 5       4     Argon2id iterations (big-endian)
//! 9       1     Argon2id parallelism
//! 10      16    salt (random per call)
//! 26      12    AES-GCM nonce (random per call)
//! 38      n+16  AES-256-GCM ciphertext and 16-byte tag; bytes 0-37 are its associated data
//! ```
//!
//! The parameters travel with the ciphertext so they can be raised later without breaking old
//! texts; decryption refuses parameters above [`MAX_MEMORY_KIB`] / [`MAX_ITERATIONS`] /
//! [`MAX_PARALLELISM`] so a crafted ciphertext cannot make the server burn memory or time.

use aes_gcm::{
    Aes256Gcm, Nonce,
    aead::{Aead, KeyInit, Payload},
};
use argon2::{Algorithm, Argon2, Params, Version};
use base64::{Engine, engine::general_purpose::STANDARD};

use wrench_contract::prelude::*;
use wrench_infra::envelope::ErrorCode;
use wrench_kit::byte_encoding::{self, InputEncoding, OutputEncoding, UsedEncoding};

const VERSION: u8 = 1;
const HEADER: usize = 38;
const TAG: usize = 16;
/// Argon2id parameters for new ciphertexts: OWASP's first recommendation (19 MiB, 2 passes,
/// 1 lane), which is also RFC 9106's second recommended option scaled to a server budget.
const MEMORY_KIB: u32 = 19 * 1024;
const ITERATIONS: u32 = 2;
const PARALLELISM: u8 = 1;
/// The most a ciphertext may ask of the key derivation.
pub const MAX_MEMORY_KIB: u32 = 64 * 1024;
pub const MAX_ITERATIONS: u32 = 10;
pub const MAX_PARALLELISM: u8 = 4;

#[derive(Clone, Copy, Debug, PartialEq)]
struct KdfParams {
    memory_kib: u32,
    iterations: u32,
    parallelism: u8,
}

const DEFAULT_KDF: KdfParams = KdfParams { memory_kib: MEMORY_KIB, iterations: ITERATIONS, parallelism: PARALLELISM };

fn derive_key(password: &str, salt: &[u8], p: KdfParams) -> Result<[u8; 32], ApiError> {
    let params = Params::new(p.memory_kib, p.iterations, p.parallelism as u32, Some(32))
        .map_err(|e| ApiError::invalid("ciphertext", format!("its key-derivation parameters are invalid ({e})")))?;
    let mut key = [0u8; 32];
    Argon2::new(Algorithm::Argon2id, Version::V0x13, params)
        .hash_password_into(password.as_bytes(), salt, &mut key)
        .map_err(|e| ApiError::internal(format!("key derivation failed: {e}")))?;
    Ok(key)
}

fn seal(plaintext: &[u8], password: &str, p: KdfParams) -> Result<Vec<u8>, ApiError> {
    let mut header = Vec::with_capacity(HEADER);
    header.push(VERSION);
    header.extend_from_slice(&p.memory_kib.to_be_bytes());
    header.extend_from_slice(&p.iterations.to_be_bytes());
    header.push(p.parallelism);
    let mut random = [0u8; 28];
    getrandom::fill(&mut random).map_err(|e| ApiError::internal(format!("the system random generator failed: {e}")))?;
    header.extend_from_slice(&random);
    let key = derive_key(password, &header[10..26], p)?;
    let cipher = Aes256Gcm::new(&key.into());
    let nonce = Nonce::try_from(&header[26..38]).map_err(|_| ApiError::internal("nonce length"))?;
    let sealed = cipher
        .encrypt(&nonce, Payload { msg: plaintext, aad: &header })
        .map_err(|_| ApiError::internal("encryption failed"))?;
    header.extend_from_slice(&sealed);
    Ok(header)
}

fn open(blob: &[u8], password: &str) -> Result<Vec<u8>, ApiError> {
    let field = "ciphertext";
    if blob.len() < HEADER + TAG {
        return Err(ApiError::invalid(
            field,
            format!(
                "is {} bytes after Base64 decoding; a ciphertext from encrypt/encrypt has at least {}",
                blob.len(),
                HEADER + TAG
            ),
        ));
    }
    if blob[0] != VERSION {
        return Err(ApiError::invalid(
            field,
            format!("has format version {}; this service reads version {VERSION}", blob[0]),
        ));
    }
    let p = KdfParams {
        memory_kib: u32::from_be_bytes([blob[1], blob[2], blob[3], blob[4]]),
        iterations: u32::from_be_bytes([blob[5], blob[6], blob[7], blob[8]]),
        parallelism: blob[9],
    };
    if p.memory_kib > MAX_MEMORY_KIB
        || p.iterations == 0
        || p.iterations > MAX_ITERATIONS
        || p.parallelism == 0
        || p.parallelism > MAX_PARALLELISM
    {
        return Err(ApiError::invalid(
            field,
            format!(
                "asks for Argon2id with {} KiB, {} passes, {} lanes; this service accepts at most {MAX_MEMORY_KIB} KiB, {MAX_ITERATIONS} passes, {MAX_PARALLELISM} lanes",
                p.memory_kib, p.iterations, p.parallelism
            ),
        ));
    }
    let key = derive_key(password, &blob[10..26], p)?;
    let cipher = Aes256Gcm::new(&key.into());
    let nonce = Nonce::try_from(&blob[26..38]).map_err(|_| ApiError::internal("nonce length"))?;
    cipher
        .decrypt(&nonce, Payload { msg: &blob[HEADER..], aad: &blob[..HEADER] })
        .map_err(|_| ApiError::new(ErrorCode::DecryptionFailed, "the password is wrong or the ciphertext was altered"))
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct EncryptInput {
    /// What to encrypt: text (its UTF-8 bytes), or bytes written as `inputEncoding` says.
    plaintext: String,
    /// How `plaintext` carries its bytes: `utf-8` (the default), `hex`, `base64` or
    /// `base64url`.
    #[serde(default)]
    input_encoding: InputEncoding,
    /// The password the key is derived from.
    #[schemars(length(min = 1, max = 1024))]
    password: String,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct KdfInfo {
    /// Always `argon2id`.
    algorithm: &'static str,
    /// Memory in KiB.
    memory_kib: u32,
    /// Passes over the memory.
    iterations: u32,
    /// Lanes.
    parallelism: u8,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct EncryptOutput {
    /// Base64 of version, key-derivation parameters, salt, nonce, ciphertext and tag.
    ciphertext: String,
    /// Always `AES-256-GCM`.
    algorithm: &'static str,
    /// How the key was derived from the password.
    kdf: KdfInfo,
    /// The format version inside the ciphertext.
    format_version: u8,
}

/// Encrypt text with a password (AES-256-GCM, Argon2id).
///
/// A fresh random 16-byte salt and 12-byte nonce per call; the key is Argon2id of the password
/// (19 MiB, 2 passes, 1 lane). The result is one Base64 string holding the format version, the
/// key-derivation parameters, salt, nonce, ciphertext and authentication tag, which
/// `encrypt/decrypt` takes back with the same password. Encrypting the same text twice gives
/// different ciphertexts. Bytes that are not text (a key file, an image) are given in hex or
/// Base64 with `inputEncoding`. The password and plaintext are never logged or stored.
#[op(post "/v1/encrypt/encrypt" as encryptText, tag = SecurityAndValidation, pipe(plaintext -> ciphertext),
     redact(".data.ciphertext"),
     rejects = "`plaintext` that is not in its `inputEncoding`, or an empty password",
     example(typical, {"plaintext": "meet at noon", "password": "correct horse battery staple"}),
     example(bytes_from_base64, {"plaintext": "AP8Q/g==", "inputEncoding": "base64", "password": "correct horse battery staple"}),
     example(empty_password, {"plaintext": "x", "password": ""}, status = 400))]
async fn encrypt_text(input: EncryptInput) -> Result<EncryptOutput, ApiError> {
    let plaintext = byte_encoding::decode(&input.plaintext, input.input_encoding, "plaintext")?;
    let blob = wrench_infra::cpu::run(move || seal(&plaintext, &input.password, DEFAULT_KDF)).await?;
    Ok(EncryptOutput {
        ciphertext: STANDARD.encode(blob),
        algorithm: "AES-256-GCM",
        kdf: KdfInfo {
            algorithm: "argon2id",
            memory_kib: MEMORY_KIB,
            iterations: ITERATIONS,
            parallelism: PARALLELISM,
        },
        format_version: VERSION,
    })
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct DecryptInput {
    /// A ciphertext from `encrypt/encrypt` (Base64; whitespace is ignored).
    ciphertext: String,
    /// The password it was encrypted with.
    #[schemars(length(min = 1, max = 1024))]
    password: String,
    /// How to write the decrypted bytes: `auto` (the default: text when they are UTF-8 text
    /// without control characters other than tab and line breaks, else standard Base64),
    /// `utf-8` (text, refused when they are not UTF-8), `hex`, `base64` or `base64url`.
    #[serde(default)]
    output_encoding: OutputEncoding,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct DecryptOutput {
    /// The decrypted bytes, written as `outputEncoding` says.
    plaintext: String,
    /// How `plaintext` is written: `utf-8`, `hex`, `base64` or `base64url`.
    output_encoding: UsedEncoding,
}

/// Decrypt text encrypted by encrypt/encrypt.
///
/// Reads the format version and key-derivation parameters from the ciphertext, derives the
/// key and opens the AES-256-GCM box. A wrong password and an altered ciphertext are the same
/// 400 `DECRYPTION_FAILED` (telling them apart would help an attacker); text that is not
/// Base64, too short, of an unknown version or asking for more than 64 MiB, 10 passes or 4 lanes
/// of key derivation is a 400 `VALIDATION_ERROR`. The plaintext comes back as text when it is
/// text, and otherwise in the encoding the answer's `outputEncoding` names (Base64 unless
/// another is asked for).
#[op(post "/v1/encrypt/decrypt" as decryptText, tag = SecurityAndValidation, pipe(ciphertext -> plaintext),
     errors(DECRYPTION_FAILED),
     rejects = "a ciphertext that is not one produced by encrypt/encrypt, the wrong password, or a plaintext that is not UTF-8 when `outputEncoding` is `utf-8`",
     example(typical, {"ciphertext": "AQAATAAAAAACAauEtrfgKOEYOlyklRinUjJKueIfjg6HJWQSJ/qZxzS1HRTc5K8xl68s7848EKhDYzncujccfkOL", "password": "correct horse battery staple"}),
     example(wrong_password, {"ciphertext": "AQAATAAAAAACAauEtrfgKOEYOlyklRinUjJKueIfjg6HJWQSJ/qZxzS1HRTc5K8xl68s7848EKhDYzncujccfkOL", "password": "Tr0ub4dor&3"}, status = 400),
     example(not_base64, {"ciphertext": "not a ciphertext!", "password": "x"}, status = 400))]
async fn decrypt_text(input: DecryptInput) -> Result<DecryptOutput, ApiError> {
    let compact: String = input.ciphertext.chars().filter(|c| !c.is_whitespace()).collect();
    let blob = STANDARD
        .decode(compact.as_bytes())
        .map_err(|e| ApiError::invalid("ciphertext", format!("is not Base64 ({e})")))?;
    let password = input.password;
    let bytes = wrench_infra::cpu::run(move || open(&blob, &password)).await?;
    // The convention's own message quotes the first byte that is not UTF-8: not here, where
    // the bytes are a secret's.
    let (plaintext, output_encoding) =
        byte_encoding::encode(&bytes, input.output_encoding, "outputEncoding").map_err(|_| {
            ApiError::invalid(
                "outputEncoding",
                "the plaintext is not UTF-8 text; ask for hex, base64 or base64url, or auto",
            )
        })?;
    Ok(DecryptOutput { plaintext, output_encoding })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Cheap parameters for tests that derive many keys.
    const FAST: KdfParams = KdfParams { memory_kib: 64, iterations: 1, parallelism: 1 };

    #[test]
    fn aes_256_gcm_matches_the_gcm_specification_test_case_14() {
        // McGrew and Viega, "The Galois/Counter Mode of Operation", test case 14:
        // K = 0^256, IV = 0^96, P = 0^128.
        let cipher = Aes256Gcm::new(&[0u8; 32].into());
        let out = cipher.encrypt(&Nonce::try_from(&[0u8; 12][..]).unwrap(), &[0u8; 16][..]).unwrap();
        assert_eq!(hex::encode(&out[..16]), "cea7403d4d606b6e074ec5d3baf39d18");
        assert_eq!(hex::encode(&out[16..]), "d0d1c8a799996bf0265b98b5d48ab919");
    }

    #[test]
    fn argon2id_matches_rfc_9106_section_5_3() {
        // Password 32 x 0x01, salt 16 x 0x02, secret 8 x 0x03, associated data 12 x 0x04,
        // 32 KiB, 3 passes, 4 lanes.
        let mut out = [0u8; 32];
        let params = argon2::ParamsBuilder::new()
            .m_cost(32)
            .t_cost(3)
            .p_cost(4)
            .data(argon2::AssociatedData::new(&[4u8; 12]).unwrap())
            .output_len(32)
            .build()
            .unwrap();
        let argon = Argon2::new_with_secret(&[3u8; 8], Algorithm::Argon2id, Version::V0x13, params).unwrap();
        argon.hash_password_into(&[1u8; 32], &[2u8; 16], &mut out).unwrap();
        assert_eq!(hex::encode(out), "0d640df58d78766c08c037a34a8b53c9d01ef0452d75b65eb52520e96b01e659");
    }

    #[test]
    fn round_trips_and_differs_every_time() {
        for text in ["", "hello", "naïve – 日本語 🎉", &"x".repeat(100_000)] {
            let a = seal(text.as_bytes(), "pw", FAST).unwrap();
            let b = seal(text.as_bytes(), "pw", FAST).unwrap();
            assert_ne!(a, b, "salt and nonce are fresh");
            assert_eq!(open(&a, "pw").unwrap(), text.as_bytes());
            assert_eq!(a.len(), HEADER + text.len() + TAG);
        }
    }

    #[test]
    fn any_altered_byte_or_wrong_password_fails_cleanly() {
        let blob = seal(b"attack at dawn", "secret", FAST).unwrap();
        assert_eq!(open(&blob, "Secret").unwrap_err().code, ErrorCode::DecryptionFailed);
        for i in 0..blob.len() {
            for bit in [0x01u8, 0x80] {
                let mut bad = blob.clone();
                bad[i] ^= bit;
                let e = open(&bad, "secret").expect_err("an altered ciphertext must not open");
                assert!(matches!(e.code, ErrorCode::DecryptionFailed | ErrorCode::ValidationError), "byte {i}: {e:?}");
            }
        }
        for len in [0, 10, HEADER, HEADER + TAG - 1] {
            assert_eq!(open(&blob[..len], "secret").unwrap_err().code, ErrorCode::ValidationError);
        }
    }

    #[test]
    fn crafted_parameters_are_refused_before_any_work() {
        let mut blob = seal(b"x", "pw", FAST).unwrap();
        blob[1..5].copy_from_slice(&(4u32 * 1024 * 1024).to_be_bytes());
        let e = open(&blob, "pw").unwrap_err();
        assert!(e.message.contains("at most 65536 KiB"), "{}", e.message);
    }

    #[tokio::test]
    async fn the_documented_example_decrypts() {
        let out = decrypt_text(DecryptInput {
            ciphertext: "AQAATAAAAAACAauEtrfgKOEYOlyklRinUjJKueIfjg6HJWQSJ/qZxzS1HRTc5K8xl68s7848EKhDYzncujccfkOL"
                .into(),
            password: "correct horse battery staple".into(),
            output_encoding: OutputEncoding::Auto,
        })
        .await
        .unwrap();
        assert_eq!((out.plaintext.as_str(), out.output_encoding), ("meet at noon", UsedEncoding::Utf8));
    }

    /// Bytes that are not text go in through `inputEncoding` and come back whole: as Base64
    /// by default, in hex when asked, and refused (naming `outputEncoding`) only as text.
    #[tokio::test]
    async fn bytes_that_are_not_text_round_trip() {
        let bytes = byte_encoding::decode("00ff10fe", InputEncoding::Hex, "plaintext").unwrap();
        let ciphertext = STANDARD.encode(seal(&bytes, "pw", FAST).unwrap());
        let open_as = |output_encoding| {
            decrypt_text(DecryptInput { ciphertext: ciphertext.clone(), password: "pw".into(), output_encoding })
        };
        let auto = open_as(OutputEncoding::Auto).await.unwrap();
        assert_eq!((auto.plaintext.as_str(), auto.output_encoding), ("AP8Q/g==", UsedEncoding::Base64));
        assert_eq!(open_as(OutputEncoding::Hex).await.unwrap().plaintext, "00ff10fe");
        let e = open_as(OutputEncoding::Utf8).await.unwrap_err();
        assert_eq!((e.code, e.field.as_deref()), (ErrorCode::ValidationError, Some("outputEncoding")));
        assert!(!e.message.contains("0xff") && !e.message.contains("AP8Q"), "no plaintext in errors: {}", e.message);
    }
}
