//! `kdf/derive`: key material from a secret with PBKDF2 (RFC 8018), HKDF (RFC 5869), scrypt
//! (RFC 7914), Argon2id (RFC 9106) or OpenSSL's EVP_BytesToKey (what `openssl enc` and
//! crypto-js use with a passphrase).

use base64::Engine;

use wrench_contract::prelude::*;
use wrench_kit::byte_encoding::{self, InputEncoding};
use wrench_kit::crypto::{self, MacHash};

use super::params::Params;
use super::schemes::{self, Scheme};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema, Validate)]
enum KdfAlgorithm {
    /// PBKDF2 with HMAC of `hash` (RFC 8018).
    #[serde(rename = "pbkdf2")]
    Pbkdf2,
    /// HKDF extract-and-expand with HMAC of `hash` (RFC 5869).
    #[serde(rename = "hkdf")]
    Hkdf,
    /// scrypt (RFC 7914).
    #[serde(rename = "scrypt")]
    Scrypt,
    /// Argon2id, version 1.3 (RFC 9106).
    #[serde(rename = "argon2id")]
    Argon2id,
    /// OpenSSL's EVP_BytesToKey: a key and an IV from a passphrase and an 8-byte salt.
    #[serde(rename = "evp-bytestokey")]
    EvpBytesToKey,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema, Validate)]
#[serde(rename_all = "lowercase")]
enum KdfHash {
    Md5,
    Sha1,
    Sha224,
    Sha256,
    Sha384,
    Sha512,
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct KdfInput {
    /// The secret (password or input key material): text, or bytes written as
    /// `secretEncoding` says.
    #[schemars(length(max = 4096))]
    secret: String,
    /// How `secret` carries its bytes: `utf-8` (the default), `hex`, `base64` or `base64url`.
    #[serde(default)]
    secret_encoding: InputEncoding,
    /// The salt: required by PBKDF2 and scrypt (any length, empty included) and Argon2id (8
    /// bytes or more); optional for HKDF
    /// (none means zeros) and EVP_BytesToKey (exactly 8 bytes, or none).
    #[serde(default)]
    #[schemars(length(max = 1024))]
    salt: Option<String>,
    /// How `salt` carries its bytes: `utf-8` (the default), `hex`, `base64` or `base64url`.
    #[serde(default)]
    salt_encoding: InputEncoding,
    /// The function.
    algorithm: KdfAlgorithm,
    /// The hash of PBKDF2, HKDF and EVP_BytesToKey: `sha256` by default (`md5` for
    /// EVP_BytesToKey, as `openssl enc` before 1.1 and crypto-js use it).
    #[serde(default)]
    hash: Option<KdfHash>,
    /// PBKDF2 iterations (default 600,000; up to 2,000,000), EVP_BytesToKey's count (default
    /// 1; up to 100,000) or Argon2id's passes (default 2; up to 10). For PBKDF2 and
    /// EVP_BytesToKey, iterations times the output's hash blocks may not pass 4,000,000.
    #[serde(default)]
    #[schemars(range(min = 1, max = 2000000))]
    iterations: Option<u32>,
    /// Argon2id's memory in KiB (default 19,456; up to 65,536).
    #[serde(default)]
    #[schemars(range(min = 8, max = 65536))]
    memory_kib: Option<u32>,
    /// Argon2id's lanes or scrypt's p (default 1; up to 4).
    #[serde(default)]
    #[schemars(range(min = 1, max = 4))]
    parallelism: Option<u32>,
    /// scrypt's log2 N (default 15; up to 17).
    #[serde(default)]
    #[schemars(range(min = 1, max = 17))]
    log_n: Option<u8>,
    /// scrypt's block size r (default 8; 128 * r * N at most 128 MiB).
    #[serde(default)]
    #[schemars(range(min = 1, max = 16))]
    block_size: Option<u32>,
    /// HKDF's context (`info`), as text or in `infoEncoding`.
    #[serde(default)]
    #[schemars(length(max = 1024))]
    info: Option<String>,
    /// How `info` carries its bytes: `utf-8` (the default), `hex`, `base64` or `base64url`.
    #[serde(default)]
    info_encoding: InputEncoding,
    /// Bytes of key to derive (default 32; HKDF at most 255 hash lengths).
    #[serde(default = "default_length")]
    #[schemars(range(min = 1, max = 1024))]
    length: u32,
    /// EVP_BytesToKey: bytes of IV to derive after the key (default 16, AES's block; 0 for
    /// none).
    #[serde(default)]
    #[schemars(range(min = 0, max = 64))]
    iv_length: Option<u32>,
}

impl KdfHash {
    fn mac(self) -> MacHash {
        match self {
            KdfHash::Md5 => MacHash::Md5,
            KdfHash::Sha1 => MacHash::Sha1,
            KdfHash::Sha224 => MacHash::Sha224,
            KdfHash::Sha256 => MacHash::Sha256,
            KdfHash::Sha384 => MacHash::Sha384,
            KdfHash::Sha512 => MacHash::Sha512,
        }
    }
}

fn default_length() -> u32 {
    32
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct KdfOutput {
    /// The key, in hex.
    key: String,
    /// The same key in standard Base64.
    key_base64: String,
    /// EVP_BytesToKey only: the IV, in hex.
    #[serde(skip_serializing_if = "Option::is_none")]
    iv: Option<String>,
    /// The function used.
    algorithm: KdfAlgorithm,
    /// Its hash, where it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    hash: Option<KdfHash>,
}

/// Refuses a field the function does not read.
fn unused(input: &KdfInput, allowed: &[&str]) -> Result<(), ApiError> {
    let given = [
        ("salt", input.salt.is_some()),
        ("hash", input.hash.is_some()),
        ("iterations", input.iterations.is_some()),
        ("memoryKib", input.memory_kib.is_some()),
        ("parallelism", input.parallelism.is_some()),
        ("logN", input.log_n.is_some()),
        ("blockSize", input.block_size.is_some()),
        ("info", input.info.is_some()),
        ("ivLength", input.iv_length.is_some()),
    ];
    match given.iter().find(|(name, set)| *set && !allowed.contains(name)) {
        Some((name, _)) => Err(ApiError::invalid(name, format!("this function does not read `{name}`"))),
        None => Ok(()),
    }
}

/// The most hash blocks one derivation may compute: iterations times the output's blocks. Both
/// PBKDF2 and EVP_BytesToKey repeat the whole count for every block of output, so a long key
/// at a high count multiplies; 4,000,000 is 2,000,000 iterations for two blocks, about a
/// second of a core.
const MAX_WORK: u64 = 4_000_000;

fn within_work(iterations: u32, length: usize, hash: KdfHash) -> Result<(), ApiError> {
    let block = match hash {
        KdfHash::Md5 => 16,
        KdfHash::Sha1 => 20,
        KdfHash::Sha224 => 28,
        KdfHash::Sha256 => 32,
        KdfHash::Sha384 => 48,
        KdfHash::Sha512 => 64,
    };
    let blocks = length.div_ceil(block) as u64;
    if u64::from(iterations) * blocks > MAX_WORK {
        return Err(ApiError::invalid(
            "iterations",
            format!(
                "{iterations} iterations for {blocks} blocks of output pass the {MAX_WORK} hash blocks one request may compute; ask for fewer iterations or a shorter key"
            ),
        ));
    }
    Ok(())
}

fn hmac_pbkdf2(hash: KdfHash, secret: &[u8], salt: &[u8], n: u32, out: &mut [u8]) {
    match hash {
        KdfHash::Md5 => pbkdf2::pbkdf2_hmac::<md5::Md5>(secret, salt, n, out),
        KdfHash::Sha1 => pbkdf2::pbkdf2_hmac::<sha1::Sha1>(secret, salt, n, out),
        KdfHash::Sha224 => pbkdf2::pbkdf2_hmac::<sha2::Sha224>(secret, salt, n, out),
        KdfHash::Sha256 => pbkdf2::pbkdf2_hmac::<sha2::Sha256>(secret, salt, n, out),
        KdfHash::Sha384 => pbkdf2::pbkdf2_hmac::<sha2::Sha384>(secret, salt, n, out),
        KdfHash::Sha512 => pbkdf2::pbkdf2_hmac::<sha2::Sha512>(secret, salt, n, out),
    }
}

fn hkdf(hash: KdfHash, secret: &[u8], salt: Option<&[u8]>, info: &[u8], out: &mut [u8]) -> Result<(), ApiError> {
    let done = match hash {
        KdfHash::Md5 => hkdf::Hkdf::<md5::Md5>::new(salt, secret).expand(info, out),
        KdfHash::Sha1 => hkdf::Hkdf::<sha1::Sha1>::new(salt, secret).expand(info, out),
        KdfHash::Sha224 => hkdf::Hkdf::<sha2::Sha224>::new(salt, secret).expand(info, out),
        KdfHash::Sha256 => hkdf::Hkdf::<sha2::Sha256>::new(salt, secret).expand(info, out),
        KdfHash::Sha384 => hkdf::Hkdf::<sha2::Sha384>::new(salt, secret).expand(info, out),
        KdfHash::Sha512 => hkdf::Hkdf::<sha2::Sha512>::new(salt, secret).expand(info, out),
    };
    done.map_err(|_| ApiError::invalid("length", "HKDF gives at most 255 times its hash's length"))
}

/// Derive a key with PBKDF2, HKDF, scrypt, Argon2id or EVP_BytesToKey.
///
/// Derives `length` bytes (32 by default) from `secret` and `salt` with PBKDF2-HMAC (RFC
/// 8018), HKDF (RFC 5869, with `info`), scrypt (RFC 7914), Argon2id (RFC 9106) or OpenSSL's
/// EVP_BytesToKey (a key and then an IV, as `openssl enc -pass` and crypto-js derive them).
/// Each function reads only its own fields and refuses the others; costs are capped as
/// `password/hash` caps them. The answer is key material: treat it as a secret.
#[op(post "/v1/kdf/derive" as kdfDerive, tag = SecurityAndValidation, cpu,
     rejects = "a field the function does not read, a salt it cannot use, an HKDF length past 255 hash lengths, or more than 4,000,000 hash blocks of PBKDF2 or EVP_BytesToKey work",
     example(pbkdf2_rfc6070, {"secret": "password", "salt": "salt", "algorithm": "pbkdf2", "hash": "sha1", "iterations": 4096, "length": 20}),
     example(hkdf_rfc5869, {"secret": "0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b", "secretEncoding": "hex", "salt": "000102030405060708090a0b0c", "saltEncoding": "hex", "info": "f0f1f2f3f4f5f6f7f8f9", "infoEncoding": "hex", "algorithm": "hkdf", "length": 42}),
     example(openssl_enc, {"secret": "hunter2", "salt": "0102030405060708", "saltEncoding": "hex", "algorithm": "evp-bytestokey", "hash": "sha256"}),
     example(scrypt_rfc7914, {"secret": "", "salt": "", "algorithm": "scrypt", "logN": 4, "blockSize": 1, "parallelism": 1, "length": 64}),
     example(scrypt_over_the_cap, {"secret": "password", "salt": "NaCl", "algorithm": "scrypt", "logN": 10, "blockSize": 8, "parallelism": 16, "length": 64}, status = 400),
     example(pbkdf2_without_salt, {"secret": "password", "algorithm": "pbkdf2"}, status = 400))]
async fn kdf_derive(input: KdfInput) -> Result<KdfOutput, ApiError> {
    let secret = byte_encoding::decode(&input.secret, input.secret_encoding, "secret")?;
    let salt = input.salt.as_deref().map(|s| byte_encoding::decode(s, input.salt_encoding, "salt")).transpose()?;
    let length = input.length as usize;
    let need_salt = |min: usize| -> Result<&[u8], ApiError> {
        match salt.as_deref() {
            Some(s) if s.len() >= min => Ok(s),
            Some(s) => Err(ApiError::invalid(
                "salt",
                format!("this function takes a salt of {min} bytes or more, not {}", s.len()),
            )),
            None => Err(ApiError::invalid("salt", "this function needs a salt")),
        }
    };
    let (key, iv, hash) = match input.algorithm {
        KdfAlgorithm::Pbkdf2 => {
            unused(&input, &["salt", "hash", "iterations"])?;
            let hash = input.hash.unwrap_or(KdfHash::Sha256);
            let iterations = input.iterations.unwrap_or(600_000);
            within_work(iterations, length, hash)?;
            let mut key = vec![0; length];
            hmac_pbkdf2(hash, &secret, need_salt(1)?, iterations, &mut key);
            (key, None, Some(hash))
        }
        KdfAlgorithm::Hkdf => {
            unused(&input, &["salt", "hash", "info"])?;
            let hash = input.hash.unwrap_or(KdfHash::Sha256);
            let info =
                input.info.as_deref().map(|i| byte_encoding::decode(i, input.info_encoding, "info")).transpose()?;
            let mut key = vec![0; length];
            hkdf(hash, &secret, salt.as_deref(), info.as_deref().unwrap_or_default(), &mut key)?;
            (key, None, Some(hash))
        }
        KdfAlgorithm::Scrypt => {
            unused(&input, &["salt", "logN", "blockSize", "parallelism"])?;
            let params = Params {
                log_n: input.log_n,
                block_size: input.block_size,
                parallelism: input.parallelism,
                ..Params::default()
            };
            let params = params.effective(Scheme::Scrypt.family(), "")?;
            (schemes::derive(Scheme::Scrypt, &secret, need_salt(0)?, params, length), None, None)
        }
        KdfAlgorithm::Argon2id => {
            unused(&input, &["salt", "iterations", "memoryKib", "parallelism"])?;
            let params = Params {
                memory_kib: input.memory_kib,
                iterations: input.iterations,
                parallelism: input.parallelism,
                ..Params::default()
            };
            let params = params.effective(Scheme::Argon2id.family(), "")?;
            if length < 4 {
                return Err(ApiError::invalid("length", "Argon2 gives 4 bytes or more"));
            }
            (schemes::derive(Scheme::Argon2id, &secret, need_salt(8)?, params, length), None, None)
        }
        KdfAlgorithm::EvpBytesToKey => {
            unused(&input, &["salt", "hash", "iterations", "ivLength"])?;
            let salt: &[u8] = match salt.as_deref() {
                None => &[],
                Some(s) if s.len() == 8 => s,
                Some(s) => {
                    return Err(ApiError::invalid(
                        "salt",
                        format!("EVP_BytesToKey takes 8 bytes of salt, not {}", s.len()),
                    ));
                }
            };
            let count = input.iterations.unwrap_or(1);
            if count > 100_000 {
                return Err(ApiError::invalid("iterations", "EVP_BytesToKey takes a count of at most 100,000 here"));
            }
            let hash = input.hash.unwrap_or(KdfHash::Md5);
            let iv_len = input.iv_length.unwrap_or(16) as usize;
            let n = length + iv_len;
            within_work(count, n, hash)?;
            let bytes = crypto::evp_bytes_to_key(hash.mac(), &secret, salt, count, n);
            let (key, iv) = bytes.split_at(length);
            (key.to_vec(), (iv_len > 0).then(|| hex::encode(iv)), Some(hash))
        }
    };
    Ok(KdfOutput {
        key: hex::encode(&key),
        key_base64: base64::engine::general_purpose::STANDARD.encode(&key),
        iv,
        algorithm: input.algorithm,
        hash,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 6070, RFC 5869, RFC 7914 and argon2-cffi through Python, and `openssl enc -P` for
    /// EVP_BytesToKey (tests/fixtures/passwords.py).
    #[tokio::test]
    async fn the_references_agree_on_every_function() {
        let fixture = crate::testing::fixture("passwords.json");
        let cases = fixture["kdf"].as_array().unwrap();
        assert!(cases.len() >= 20);
        for case in cases {
            let input: KdfInput = serde_json::from_value(case["input"].clone()).unwrap();
            let out = kdf_derive(input).await.unwrap_or_else(|e| panic!("{}: {}", case["input"], e.message));
            assert_eq!(out.key, case["key"].as_str().unwrap(), "{}", case["input"]);
            assert_eq!(out.iv.as_deref(), case["iv"].as_str(), "{}", case["input"]);
        }
    }

    #[tokio::test]
    async fn long_keys_at_high_counts_are_refused_before_any_work() {
        let request = |algorithm: &str, iterations: u32, length: u32| {
            serde_json::from_value::<KdfInput>(json!({"secret": "s", "salt": "0102030405060708", "saltEncoding": "hex",
                "algorithm": algorithm, "iterations": iterations, "length": length}))
            .unwrap()
        };
        let started = std::time::Instant::now();
        let e = kdf_derive(request("pbkdf2", 2_000_000, 1024)).await.unwrap_err();
        assert_eq!(e.field.as_deref(), Some("iterations"));
        let e = kdf_derive(request("evp-bytestokey", 100_000, 1024)).await.unwrap_err();
        assert_eq!(e.field.as_deref(), Some("iterations"));
        assert!(started.elapsed() < std::time::Duration::from_millis(100), "refused before the work");
        assert!(kdf_derive(request("pbkdf2", 1_000, 1024)).await.is_ok());
    }
}
