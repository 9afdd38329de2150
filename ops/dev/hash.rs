//! Message digests (MD5, SHA-1, SHA-2, SHA-3 and Keccak, BLAKE2, RIPEMD-160, MD4, SM3) and
//! HMAC, over any bytes: the message (and the HMAC
//! key) are text by default, or bytes in the byte convention's `inputEncoding`.
//!
//! MD5 and SHA-1 are offered because checksums and legacy protocols still need them; they
//! are broken for collision resistance, and the descriptions say so.

use base64::Engine;
use md5::Md5;
use sha1::Sha1;
use sha2::{Digest, Sha256, Sha384, Sha512};

use wrench_kit::crypto::{self, MacHash};

use wrench_contract::prelude::*;
use wrench_kit::byte_encoding::{self, InputEncoding};

#[derive(Debug, Deserialize, Serialize, JsonSchema, Validate, Clone, Copy, PartialEq, Eq, Hash)]
enum Algorithm {
    /// MD5 (RFC 1321); not collision resistant.
    #[serde(rename = "md5")]
    Md5,
    /// SHA-1 (FIPS 180-4); not collision resistant.
    #[serde(rename = "sha1")]
    Sha1,
    /// SHA-224 (FIPS 180-4).
    #[serde(rename = "sha224")]
    Sha224,
    /// SHA-256 (FIPS 180-4).
    #[serde(rename = "sha256")]
    Sha256,
    /// SHA-384 (FIPS 180-4).
    #[serde(rename = "sha384")]
    Sha384,
    /// SHA-512 (FIPS 180-4).
    #[serde(rename = "sha512")]
    Sha512,
    /// SHA-512/256 (FIPS 180-4): SHA-512's rounds, 256 bits out.
    #[serde(rename = "sha512-256")]
    Sha512_256,
    /// SHA3-224 (FIPS 202).
    #[serde(rename = "sha3-224")]
    Sha3_224,
    /// SHA3-256 (FIPS 202).
    #[serde(rename = "sha3-256")]
    Sha3_256,
    /// SHA3-384 (FIPS 202).
    #[serde(rename = "sha3-384")]
    Sha3_384,
    /// SHA3-512 (FIPS 202).
    #[serde(rename = "sha3-512")]
    Sha3_512,
    /// Keccak-256 as Ethereum uses it (the padding before FIPS 202; not SHA3-256).
    #[serde(rename = "keccak256")]
    Keccak256,
    /// BLAKE2b with 512 bits out (RFC 7693).
    #[serde(rename = "blake2b")]
    Blake2b,
    /// BLAKE2s with 256 bits out (RFC 7693).
    #[serde(rename = "blake2s")]
    Blake2s,
    /// RIPEMD-160, as Bitcoin addresses use it.
    #[serde(rename = "ripemd160")]
    Ripemd160,
    /// MD4 (RFC 1320), as NTLM uses it; broken, for old data only.
    #[serde(rename = "md4")]
    Md4,
    /// SM3 (GB/T 32905-2016).
    #[serde(rename = "sm3")]
    Sm3,
}

impl Algorithm {
    /// What `hash/batch` computes when no list is given: the five it has always computed.
    const DEFAULT_BATCH: [Algorithm; 5] =
        [Algorithm::Md5, Algorithm::Sha1, Algorithm::Sha256, Algorithm::Sha384, Algorithm::Sha512];

    fn name(self) -> &'static str {
        match self {
            Algorithm::Md5 => "md5",
            Algorithm::Sha1 => "sha1",
            Algorithm::Sha224 => "sha224",
            Algorithm::Sha256 => "sha256",
            Algorithm::Sha384 => "sha384",
            Algorithm::Sha512 => "sha512",
            Algorithm::Sha512_256 => "sha512-256",
            Algorithm::Sha3_224 => "sha3-224",
            Algorithm::Sha3_256 => "sha3-256",
            Algorithm::Sha3_384 => "sha3-384",
            Algorithm::Sha3_512 => "sha3-512",
            Algorithm::Keccak256 => "keccak256",
            Algorithm::Blake2b => "blake2b",
            Algorithm::Blake2s => "blake2s",
            Algorithm::Ripemd160 => "ripemd160",
            Algorithm::Md4 => "md4",
            Algorithm::Sm3 => "sm3",
        }
    }

    fn digest(self, data: &[u8]) -> Vec<u8> {
        match self {
            Algorithm::Md5 => Md5::digest(data).to_vec(),
            Algorithm::Sha1 => Sha1::digest(data).to_vec(),
            Algorithm::Sha224 => sha2::Sha224::digest(data).to_vec(),
            Algorithm::Sha256 => Sha256::digest(data).to_vec(),
            Algorithm::Sha384 => Sha384::digest(data).to_vec(),
            Algorithm::Sha512 => Sha512::digest(data).to_vec(),
            Algorithm::Sha512_256 => sha2::Sha512_256::digest(data).to_vec(),
            Algorithm::Sha3_224 => sha3::Sha3_224::digest(data).to_vec(),
            Algorithm::Sha3_256 => sha3::Sha3_256::digest(data).to_vec(),
            Algorithm::Sha3_384 => sha3::Sha3_384::digest(data).to_vec(),
            Algorithm::Sha3_512 => sha3::Sha3_512::digest(data).to_vec(),
            Algorithm::Keccak256 => sha3::Keccak256::digest(data).to_vec(),
            Algorithm::Blake2b => blake2::Blake2b512::digest(data).to_vec(),
            Algorithm::Blake2s => blake2::Blake2s256::digest(data).to_vec(),
            Algorithm::Ripemd160 => ripemd::Ripemd160::digest(data).to_vec(),
            Algorithm::Md4 => md4::Md4::digest(data).to_vec(),
            Algorithm::Sm3 => sm3::Sm3::digest(data).to_vec(),
        }
    }
}

#[derive(Debug, Deserialize, Serialize, JsonSchema, Validate, Clone, Copy, PartialEq)]
#[serde(rename_all = "lowercase")]
enum Encoding {
    /// Lower-case hexadecimal.
    Hex,
    /// Standard Base64 with padding.
    Base64,
}

fn hex_default() -> Encoding {
    Encoding::Hex
}

fn encode(bytes: &[u8], encoding: Encoding) -> String {
    match encoding {
        Encoding::Hex => hex::encode(bytes),
        Encoding::Base64 => base64::engine::general_purpose::STANDARD.encode(bytes),
    }
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct HashInput {
    /// What to hash: text (its UTF-8 bytes), or bytes written as `inputEncoding` says.
    text: String,
    /// How `text` carries its bytes: `utf-8` (the default), `hex`, `base64` or `base64url`.
    #[serde(default)]
    input_encoding: InputEncoding,
    /// The digest. md5 and sha1 are not collision resistant: use them for checksums only.
    algorithm: Algorithm,
    /// How the digest is written.
    #[serde(default = "hex_default")]
    encoding: Encoding,
    /// A digest to compare with, written as `encoding` says (hex in either case): the answer's
    /// `matches` says whether it is this one, compared in constant time.
    #[serde(default)]
    #[schemars(length(min = 1, max = 256))]
    expected: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
struct HashOutput {
    /// The digest.
    hash: String,
    /// The algorithm used.
    algorithm: Algorithm,
    /// How `hash` is written.
    encoding: Encoding,
    /// Whether the digest is `expected` (only when it was given).
    #[serde(skip_serializing_if = "Option::is_none")]
    matches: Option<bool>,
}

/// Whether `digest` is the one `expected` writes in `encoding`, in time that does not depend
/// on where they differ; `expected` that is not in the encoding is a 400 naming it.
fn matches(digest: &[u8], expected: &str, encoding: Encoding) -> Result<bool, ApiError> {
    let convention = match encoding {
        Encoding::Hex => InputEncoding::Hex,
        Encoding::Base64 => InputEncoding::Base64,
    };
    let expected = byte_encoding::decode(expected.trim(), convention, "expected")?;
    Ok(expected.len() == digest.len() && bool::from(subtle::ConstantTimeEq::ct_eq(digest, &expected[..])))
}

/// Hash text with one algorithm.
///
/// Digests the UTF-8 bytes of `text` (or, with `inputEncoding`, the bytes it carries in hex or
/// Base64) with MD5 (RFC 1321), SHA-1, SHA-224, SHA-256, SHA-384, SHA-512 or SHA-512/256 (FIPS
/// 180-4), SHA3-224 to SHA3-512 (FIPS 202), Ethereum's Keccak-256, BLAKE2b-512 or BLAKE2s-256
/// (RFC 7693), RIPEMD-160, MD4 or SM3, written in lower-case hex by default or Base64. With
/// `expected`, `matches` says whether the digest is that one, compared in constant time. MD5,
/// SHA-1 and MD4 are broken for collision resistance: fine for checksums, not for signatures or
/// passwords. Also answers at `/v1/hash/`.
#[op(post "/v1/hash" as hashText,
     post "/v1/hash/" as hashTextAlias, tag = DeveloperUtilities,
     example(sha256, {"text": "abc", "algorithm": "sha256"}),
     rejects = "`text` that is not in its `inputEncoding`, or `expected` that is not in `encoding`, naming the position",
     example(md5_base64_empty, {"text": "", "algorithm": "md5", "encoding": "base64"}),
     example(bytes_from_hex, {"text": "00ff10fe", "inputEncoding": "hex", "algorithm": "sha256"}),
     example(keccak_ethereum, {"text": "", "algorithm": "keccak256"}),
     example(matches_expected, {"text": "abc", "algorithm": "sha3-256", "expected": "3A985DA74FE225B2045C172D6BD390BD855F086E3E9D525B46BFE24511431532"}),
     example(unknown_algorithm, {"text": "abc", "algorithm": "sha3"}, status = 400))]
async fn hash_text(input: HashInput) -> Result<HashOutput, ApiError> {
    let bytes = byte_encoding::decode(&input.text, input.input_encoding, "text")?;
    let digest = input.algorithm.digest(&bytes);
    let matches = input.expected.as_deref().map(|e| matches(&digest, e, input.encoding)).transpose()?;
    Ok(HashOutput {
        hash: encode(&digest, input.encoding),
        algorithm: input.algorithm,
        encoding: input.encoding,
        matches,
    })
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct HashBatchInput {
    /// What to hash: text (its UTF-8 bytes), or bytes written as `inputEncoding` says.
    text: String,
    /// How `text` carries its bytes: `utf-8` (the default), `hex`, `base64` or `base64url`.
    #[serde(default)]
    input_encoding: InputEncoding,
    /// Which digests; md5, sha1, sha256, sha384 and sha512 when absent. Repeats are ignored.
    #[serde(default)]
    #[schemars(length(min = 1, max = 17))]
    algorithms: Option<Vec<Algorithm>>,
    /// How the digests are written.
    #[serde(default = "hex_default")]
    encoding: Encoding,
}

#[derive(Debug, Serialize, JsonSchema)]
struct HashBatchOutput {
    /// Algorithm name to digest, in the order asked for.
    hashes: indexmap::IndexMap<String, String>,
    /// How the digests are written.
    encoding: Encoding,
}

/// Hash text with several algorithms at once.
///
/// The same digests as `/v1/hash`, of the same bytes (`inputEncoding`), for the algorithms
/// listed (all five by default), keyed by algorithm name.
#[op(post "/v1/hash/batch" as hashBatch, tag = DeveloperUtilities,
     rejects = "`text` that is not in its `inputEncoding`, naming the position",
     example(all_five, {"text": "abc"}),
     example(two_base64, {"text": "wrench", "algorithms": ["sha256", "sha512"], "encoding": "base64"}),
     example(bytes_from_base64, {"text": "AP8Q/g==", "inputEncoding": "base64", "algorithms": ["md5"]}))]
async fn hash_batch(input: HashBatchInput) -> Result<HashBatchOutput, ApiError> {
    let bytes = byte_encoding::decode(&input.text, input.input_encoding, "text")?;
    let algorithms = input.algorithms.unwrap_or_else(|| Algorithm::DEFAULT_BATCH.to_vec());
    let mut hashes = indexmap::IndexMap::new();
    for a in algorithms {
        hashes.entry(a.name().to_string()).or_insert_with(|| encode(&a.digest(&bytes), input.encoding));
    }
    Ok(HashBatchOutput { hashes, encoding: input.encoding })
}

#[derive(Debug, Deserialize, Serialize, JsonSchema, Validate, Clone, Copy, PartialEq)]
#[serde(rename_all = "lowercase")]
enum HmacAlgorithm {
    Md5,
    Sha1,
    Sha224,
    Sha256,
    Sha384,
    Sha512,
    #[serde(rename = "sha3-224")]
    Sha3_224,
    #[serde(rename = "sha3-256")]
    Sha3_256,
    #[serde(rename = "sha3-384")]
    Sha3_384,
    #[serde(rename = "sha3-512")]
    Sha3_512,
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct HmacInput {
    /// The message: text (its UTF-8 bytes), or bytes written as `inputEncoding` says.
    text: String,
    /// How `text` carries its bytes: `utf-8` (the default), `hex`, `base64` or `base64url`.
    #[serde(default)]
    input_encoding: InputEncoding,
    /// The secret key, any length: text (its UTF-8 bytes), or bytes written as `keyEncoding`
    /// says (many webhook providers hand out Base64 secrets).
    key: String,
    /// How `key` carries its bytes: `utf-8` (the default), `hex`, `base64` or `base64url`.
    #[serde(default)]
    key_encoding: InputEncoding,
    /// The hash function.
    algorithm: HmacAlgorithm,
    /// How the signature is written.
    #[serde(default = "hex_default")]
    encoding: Encoding,
}

#[derive(Debug, Serialize, JsonSchema)]
struct HmacOutput {
    /// The HMAC of the message under the key.
    signature: String,
    /// The hash function used.
    algorithm: HmacAlgorithm,
    /// How `signature` is written.
    encoding: Encoding,
}

fn hmac_bytes(algorithm: HmacAlgorithm, key: &[u8], text: &[u8]) -> Vec<u8> {
    let hash = match algorithm {
        HmacAlgorithm::Md5 => MacHash::Md5,
        HmacAlgorithm::Sha1 => MacHash::Sha1,
        HmacAlgorithm::Sha224 => MacHash::Sha224,
        HmacAlgorithm::Sha256 => MacHash::Sha256,
        HmacAlgorithm::Sha384 => MacHash::Sha384,
        HmacAlgorithm::Sha512 => MacHash::Sha512,
        HmacAlgorithm::Sha3_224 => MacHash::Sha3_224,
        HmacAlgorithm::Sha3_256 => MacHash::Sha3_256,
        HmacAlgorithm::Sha3_384 => MacHash::Sha3_384,
        HmacAlgorithm::Sha3_512 => MacHash::Sha3_512,
    };
    crypto::hmac(hash, key, text)
}

/// Compute an HMAC.
///
/// HMAC (RFC 2104) of the bytes of `text` under the bytes of `key` (UTF-8 text by default;
/// hex or Base64 with `inputEncoding` and `keyEncoding`), with SHA-256, SHA-512, SHA-1, MD5,
/// SHA-224, SHA-384 or SHA3-224 to SHA3-512,
/// written in hex by default or Base64 (as many webhook providers send it). The key is used
/// only for this computation: it is not stored or logged.
#[op(post "/v1/hash/hmac" as hashHmac, tag = DeveloperUtilities,
     rejects = "`text` or `key` that is not in its encoding, naming the field and the position",
     example(sha256, {"text": "what do ya want for nothing?", "key": "Jefe", "algorithm": "sha256"}),
     example(sha1_base64, {"text": "payload", "key": "webhook-secret", "algorithm": "sha1", "encoding": "base64"}),
     example(binary_key, {"text": "Hi There", "key": "0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b", "keyEncoding": "hex", "algorithm": "sha256"}))]
async fn hash_hmac(input: HmacInput) -> Result<HmacOutput, ApiError> {
    let text = byte_encoding::decode(&input.text, input.input_encoding, "text")?;
    let key = byte_encoding::decode(&input.key, input.key_encoding, "key")?;
    let bytes = hmac_bytes(input.algorithm, &key, &text);
    Ok(HmacOutput { signature: encode(&bytes, input.encoding), algorithm: input.algorithm, encoding: input.encoding })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_trailing_slash_alias_answers_too() {
        let app = wrench_server::http::app(
            std::sync::Arc::new(wrench_infra::config::Config::default()),
            vec![__op_hash_text()],
        )
        .unwrap();
        let cli = poem::test::TestClient::new(app);
        for path in ["/v1/hash", "/v1/hash/"] {
            let (status, v) = crate::testing::json_of(
                cli.post(path).body_json(&json!({"text": "abc", "algorithm": "md5"})).send().await,
            )
            .await;
            assert_eq!((status, v["data"]["hash"].as_str()), (200, Some("900150983cd24fb0d6963f7d28e17f72")), "{path}");
        }
    }

    #[test]
    fn digests_match_published_vectors() {
        let cases = [
            // RFC 1321, appendix A.5.
            (Algorithm::Md5, "", "d41d8cd98f00b204e9800998ecf8427e"),
            (Algorithm::Md5, "abc", "900150983cd24fb0d6963f7d28e17f72"),
            (Algorithm::Md5, "message digest", "f96b697d7cb7938d525a2f31aaf161d0"),
            // FIPS 180-2 appendix examples ("abc" and the 448-bit message).
            (Algorithm::Sha1, "abc", "a9993e364706816aba3e25717850c26c9cd0d89d"),
            (
                Algorithm::Sha1,
                "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
                "84983e441c3bd26ebaae4aa1f95129e5e54670f1",
            ),
            (Algorithm::Sha256, "abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
            (
                Algorithm::Sha256,
                "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
                "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
            ),
            (
                Algorithm::Sha384,
                "abc",
                "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed8086072ba1e7cc2358baeca134c825a7",
            ),
            (
                Algorithm::Sha512,
                "abc",
                "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f",
            ),
        ];
        for (alg, text, want) in cases {
            assert_eq!(hex::encode(alg.digest(text.as_bytes())), want, "{} of {text:?}", alg.name());
        }
    }

    /// Python's `hashlib` (and PyPI pycryptodome for Keccak-256 and MD4, which hashlib lacks
    /// or calls otherwise) on the same bytes, every algorithm (tests/fixtures/digests.py).
    #[test]
    fn python_agrees_on_every_algorithm() {
        let fixture = crate::testing::fixture("digests.json");
        let cases = fixture.as_array().unwrap();
        assert!(cases.len() >= 5);
        for case in cases {
            let bytes = ::hex::decode(case["hex"].as_str().unwrap()).unwrap();
            for (name, want) in case["digests"].as_object().unwrap() {
                let algorithm: Algorithm = serde_json::from_value(json!(name)).unwrap();
                assert_eq!(algorithm.name(), name);
                assert_eq!(hex::encode(algorithm.digest(&bytes)), want.as_str().unwrap(), "{name} of {}", case["hex"]);
            }
        }
    }

    /// Python's `hmac` in every hash `hash/hmac` offers, with keys shorter than, equal to and
    /// longer than the block (tests/fixtures/hmacs.py).
    #[test]
    fn python_agrees_on_every_hmac() {
        let fixture = crate::testing::fixture("hmacs.json");
        let cases = fixture.as_array().unwrap();
        assert!(cases.len() >= 20);
        for case in cases {
            let h = |k: &str| ::hex::decode(case[k].as_str().unwrap()).unwrap();
            for (name, want) in case["hmacs"].as_object().unwrap() {
                let algorithm: HmacAlgorithm = serde_json::from_value(json!(name)).unwrap();
                assert_eq!(
                    hex::encode(hmac_bytes(algorithm, &h("key"), &h("message"))),
                    want.as_str().unwrap(),
                    "{name}"
                );
            }
        }
    }

    #[test]
    fn expected_digests_are_compared_whole() {
        let digest = Algorithm::Sha256.digest(b"abc");
        let hex = hex::encode(&digest);
        assert!(matches(&digest, &hex.to_uppercase(), Encoding::Hex).unwrap());
        assert!(!matches(&digest, &hex[..62], Encoding::Hex).unwrap(), "a prefix is not the digest");
        assert!(!matches(&digest, &format!("{}00", &hex[..62]), Encoding::Hex).unwrap());
        assert_eq!(matches(&digest, "xyz", Encoding::Hex).unwrap_err().field.as_deref(), Some("expected"));
    }

    #[test]
    fn hmacs_match_rfc_4231_and_rfc_2202() {
        let key1 = "\u{b}".repeat(20);
        let cases = [
            // RFC 4231 test case 1 (key 0x0b x 20, "Hi There") and 2 ("Jefe").
            (
                HmacAlgorithm::Sha256,
                key1.as_str(),
                "Hi There",
                "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7",
            ),
            (
                HmacAlgorithm::Sha512,
                key1.as_str(),
                "Hi There",
                "87aa7cdea5ef619d4ff0b4241a1d6cb02379f4e2ce4ec2787ad0b30545e17cdedaa833b7d6b8a702038b274eaea3f4e4be9d914eeb61f1702e696c203a126854",
            ),
            (
                HmacAlgorithm::Sha256,
                "Jefe",
                "what do ya want for nothing?",
                "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843",
            ),
            (
                HmacAlgorithm::Sha512,
                "Jefe",
                "what do ya want for nothing?",
                "164b7a7bfcf819e2e395fbe73b56e0a387bd64222e831fd610270cd7ea2505549758bf75c05a994a6d034f65f8f0e6fdcaeab1a34d4a6b4b636e070a38bce737",
            ),
            // RFC 2202 test case 2.
            (HmacAlgorithm::Sha1, "Jefe", "what do ya want for nothing?", "effcdf6ae5eb2fa2d27416d5f184df9c259a7c79"),
        ];
        for (alg, key, text, want) in cases {
            assert_eq!(hex::encode(hmac_bytes(alg, key.as_bytes(), text.as_bytes())), want, "{alg:?} {text:?}");
        }
        // RFC 4231 test case 6: a key longer than the block size is hashed first.
        let long_key = vec![0xaa_u8; 131];
        assert_eq!(
            hex::encode(hmac_bytes(
                HmacAlgorithm::Sha256,
                &long_key,
                b"Test Using Larger Than Block-Size Key - Hash Key First"
            )),
            "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"
        );
    }
}
