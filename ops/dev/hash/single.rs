//! `hash`: one digest of the bytes, at the length and with the key the algorithm allows, and
//! optionally compared with an expected one.

use super::algorithm::{self, Algorithm, Encoding, Options, hex_default};
use wrench_contract::prelude::*;
use wrench_kit::byte_encoding::{self, InputEncoding};

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
    /// The digest's length in bytes, for the algorithms that let it be chosen: shake128,
    /// shake256 and blake3 (1 to 4096), blake2b (1 to 64) and blake2s (1 to 32). Each has a
    /// default (32 bytes for shake128 and blake3, 64 for shake256 and blake2b, 32 for blake2s);
    /// the others refuse it.
    #[serde(default)]
    #[schemars(range(min = 1, max = 4096))]
    length: Option<u32>,
    /// A key, for the keyed modes: blake2b (1 to 64 bytes), blake2s (1 to 32) and blake3
    /// (exactly 32). Text by default, or bytes written as `keyEncoding` says. The others refuse
    /// it (`hash/hmac` keys them).
    #[serde(default)]
    #[schemars(length(max = 256))]
    key: Option<String>,
    /// How `key` carries its bytes: `utf-8` (the default), `hex`, `base64` or `base64url`.
    #[serde(default)]
    key_encoding: InputEncoding,
    /// A digest to compare with, written as `encoding` says (hex in either case): the answer's
    /// `matches` says whether it is this one, compared in constant time.
    #[serde(default)]
    #[schemars(length(min = 1, max = 8192))]
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

/// Hash text with one algorithm.
///
/// Digests the UTF-8 bytes of `text` (or, with `inputEncoding`, the bytes it carries in hex or
/// Base64) with MD5 (RFC 1321), SHA-1, SHA-224, SHA-256, SHA-384, SHA-512 or SHA-512/256 (FIPS
/// 180-4), SHA3-224 to SHA3-512, SHAKE128 or SHAKE256 (FIPS 202), Ethereum's Keccak-256,
/// BLAKE2b or BLAKE2s (RFC 7693), BLAKE3, RIPEMD-160, MD4, SM3 or Whirlpool, written in
/// lower-case hex by default or Base64. SHAKE, BLAKE2 and BLAKE3 take a `length`, and BLAKE2
/// and BLAKE3 a `key` for their keyed modes. With `expected`, `matches` says whether the digest
/// is that one, compared in constant time. MD5, SHA-1 and MD4 are broken for collision
/// resistance: fine for checksums, not for signatures or passwords. Also answers at
/// `/v1/hash/`.
#[op(post "/v1/hash" as hashText,
     post "/v1/hash/" as hashTextAlias, tag = DeveloperUtilities, pipe(text -> hash),
     example(sha256, {"text": "abc", "algorithm": "sha256"}),
     rejects = "`text`, `key` or `expected` that is not in its encoding, or a `length` or `key` the algorithm does not take, naming the field",
     example(md5_base64_empty, {"text": "", "algorithm": "md5", "encoding": "base64"}),
     example(bytes_from_hex, {"text": "00ff10fe", "inputEncoding": "hex", "algorithm": "sha256"}),
     example(keccak_ethereum, {"text": "", "algorithm": "keccak256"}),
     example(matches_expected, {"text": "abc", "algorithm": "sha3-256", "expected": "3A985DA74FE225B2045C172D6BD390BD855F086E3E9D525B46BFE24511431532"}),
     example(shake128_16_bytes, {"text": "abc", "algorithm": "shake128", "length": 16}),
     example(blake3_keyed, {"text": "abc", "algorithm": "blake3", "key": "whats the Elvish word for friend"}),
     example(blake2b_short, {"text": "abc", "algorithm": "blake2b", "length": 20}),
     example(length_of_fixed, {"text": "abc", "algorithm": "sha256", "length": 16}, status = 400),
     example(unknown_algorithm, {"text": "abc", "algorithm": "sha3"}, status = 400))]
async fn hash_text(input: HashInput) -> Result<HashOutput, ApiError> {
    let bytes = byte_encoding::decode(&input.text, input.input_encoding, "text")?;
    let key = input.key.as_deref().map(|k| byte_encoding::decode(k, input.key_encoding, "key")).transpose()?;
    let options = Options { length: input.length.map(|l| l as usize), key: key.as_deref() };
    input.algorithm.check(options)?;
    let expected = input.expected.as_deref().map(|e| algorithm::read_expected(e, input.encoding)).transpose()?;
    let digest = input.algorithm.digest_with(&bytes, options);
    Ok(HashOutput {
        hash: algorithm::encode(&digest, input.encoding),
        algorithm: input.algorithm,
        encoding: input.encoding,
        matches: expected.map(|e| algorithm::same(&digest, &e)),
    })
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
}
