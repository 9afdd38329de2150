//! `hash/hmac`: HMAC (RFC 2104) of any bytes under any key, through the HMAC `wrench-kit`
//! shares with the webhook verifiers, and optionally compared with an expected one.

use super::algorithm::{self, Encoding, hex_default};
use wrench_contract::prelude::*;
use wrench_kit::byte_encoding::{self, InputEncoding};
use wrench_kit::crypto::{self, MacHash};

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
    /// A signature to compare with, written as `encoding` says (hex in either case): the
    /// answer's `matches` says whether it is this one, compared in constant time. This is how
    /// a webhook's signature is checked.
    #[serde(default)]
    #[schemars(length(min = 1, max = 256))]
    expected: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
struct HmacOutput {
    /// The HMAC of the message under the key.
    signature: String,
    /// The hash function used.
    algorithm: HmacAlgorithm,
    /// How `signature` is written.
    encoding: Encoding,
    /// Whether the signature is `expected` (only when it was given).
    #[serde(skip_serializing_if = "Option::is_none")]
    matches: Option<bool>,
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
/// written in hex by default or Base64 (as many webhook providers send it). With `expected`,
/// `matches` says whether the signature is that one, compared in constant time. The key is
/// used only for this computation: it is not stored or logged.
#[op(post "/v1/hash/hmac" as hashHmac, tag = DeveloperUtilities, pipe(text -> signature),
     rejects = "`text`, `key` or `expected` that is not in its encoding, naming the field and the position",
     example(sha256, {"text": "what do ya want for nothing?", "key": "Jefe", "algorithm": "sha256"}),
     example(sha1_base64, {"text": "payload", "key": "webhook-secret", "algorithm": "sha1", "encoding": "base64"}),
     example(binary_key, {"text": "Hi There", "key": "0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b", "keyEncoding": "hex", "algorithm": "sha256"}),
     example(check_a_signature, {"text": "what do ya want for nothing?", "key": "Jefe", "algorithm": "sha256", "expected": "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"}))]
async fn hash_hmac(input: HmacInput) -> Result<HmacOutput, ApiError> {
    let text = byte_encoding::decode(&input.text, input.input_encoding, "text")?;
    let key = byte_encoding::decode(&input.key, input.key_encoding, "key")?;
    let expected = input.expected.as_deref().map(|e| algorithm::read_expected(e, input.encoding)).transpose()?;
    let bytes = hmac_bytes(input.algorithm, &key, &text);
    Ok(HmacOutput {
        signature: algorithm::encode(&bytes, input.encoding),
        algorithm: input.algorithm,
        encoding: input.encoding,
        matches: expected.map(|e| algorithm::same(&bytes, &e)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

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
