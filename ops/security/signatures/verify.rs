//! `signature/verify`: whether a signature of a message verifies with a key.

use wrench_contract::prelude::*;
use wrench_kit::byte_encoding::{self, InputEncoding};

use super::scheme::{EcdsaFormat, SignatureScheme};
use super::sign::SignatureEncoding;
use crate::security::keys::{
    jwk,
    load::{self, KeyInput},
};

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct SignatureVerifyInput {
    /// The message: text (its UTF-8 bytes), or bytes written as `messageEncoding` says.
    message: String,
    #[serde(default)]
    message_encoding: InputEncoding,
    /// The key: a public key (PEM, a certificate, an OpenSSH line, a JWK, Base64 DER) or a
    /// private key, whose public half is used.
    key: KeyInput,
    algorithm: SignatureScheme,
    /// The signature, in `signatureEncoding`.
    #[schemars(length(min = 1, max = 4096))]
    signature: String,
    /// `base64` (the default), `base64url` or `hex`.
    #[serde(default)]
    signature_encoding: SignatureEncoding,
    /// How an ECDSA signature is written: `der` (the default) or `raw`.
    #[serde(default)]
    signature_format: EcdsaFormat,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct SignatureVerifyOutput {
    valid: bool,
    /// Why, in words.
    reason: String,
    algorithm: SignatureScheme,
    /// RFC 7638 thumbprint of the key checked against.
    key_thumbprint: String,
}

/// Verify an RSA, ECDSA or Ed25519 signature.
///
/// Checks a signature of the message's bytes with a public key (or a private key's public
/// half, or a certificate's key) under RSASSA-PKCS1-v1_5, RSA-PSS, ECDSA (DER or raw) or
/// Ed25519. A signature that does not verify is `valid: false`, not an error; a key the
/// algorithm does not take is a 400.
#[op(post "/v1/signature/verify" as signatureVerify, tag = SecurityAndValidation,
     rejects = "a key the algorithm does not take, or a signature that is not in its encoding",
     example(ed25519_rfc8032_test_1, {"message": "", "algorithm": "ed25519", "signatureEncoding": "hex",
        "signature": "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b",
        "key": "-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEA11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo=\n-----END PUBLIC KEY-----\n"}),
     example(altered_message, {"message": "x", "algorithm": "ed25519", "signatureEncoding": "hex",
        "signature": "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b",
        "key": "-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEA11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo=\n-----END PUBLIC KEY-----\n"}),
     example(wrong_kind_of_key, {"message": "x", "algorithm": "rsa-pss-sha256", "signature": "AAAA",
        "key": "-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEA11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo=\n-----END PUBLIC KEY-----\n"}, status = 400))]
async fn signature_verify(input: SignatureVerifyInput) -> Result<SignatureVerifyOutput, ApiError> {
    let message = byte_encoding::decode(&input.message, input.message_encoding, "message")?;
    let signature = byte_encoding::decode(&input.signature, input.signature_encoding.input(), "signature")?;
    let (key, _) = load::read("key", &input.key)?;
    if matches!(key, crate::security::keys::model::Key::Secret(_)) {
        return Err(ApiError::invalid("key", "is a secret; a signature is checked with a public key"));
    }
    let public = key.public();
    let valid = input
        .algorithm
        .verify(&public, &message, &signature, input.signature_format)
        .map_err(|e| ApiError::invalid("key", e))?;
    let reason = if valid {
        format!("the {} signature verifies with {}", input.algorithm.name(), public.describe())
    } else {
        format!("the signature is not a {} signature of the message by {}", input.algorithm.name(), public.describe())
    };
    Ok(SignatureVerifyOutput { valid, reason, algorithm: input.algorithm, key_thumbprint: jwk::thumbprint(&public) })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::fixture;

    async fn verify(input: serde_json::Value) -> Result<SignatureVerifyOutput, ApiError> {
        signature_verify(serde_json::from_value(input).expect("the test input reads")).await
    }

    #[tokio::test]
    async fn cryptographys_signatures_verify_and_altered_ones_do_not() {
        let f = fixture("signatures.json");
        let keys = fixture("jose.json")["keys"].clone();
        for s in f["signatures"].as_array().unwrap() {
            let k = &keys[s["key"].as_str().unwrap()];
            for key in [&k["spki"], &k["pkcs8"], &k["jwkPublic"], &k["certificate"]] {
                let input = json!({"message": f["message"], "algorithm": s["algorithm"], "key": key,
                    "signature": s["signature"], "signatureEncoding": "hex"});
                let out = verify(input).await.unwrap_or_else(|e| panic!("{}: {e:?}", s["algorithm"]));
                assert!(out.valid, "{} with {}: {}", s["algorithm"], s["key"], out.reason);
            }
            let input = json!({"message": format!("{}.", f["message"].as_str().unwrap()), "algorithm": s["algorithm"],
                "key": k["spki"], "signature": s["signature"], "signatureEncoding": "hex"});
            assert!(!verify(input).await.unwrap().valid, "{}: an altered message", s["algorithm"]);
        }
    }

    #[tokio::test]
    async fn rfc_8032_vectors_verify() {
        use base64::{Engine, engine::general_purpose::URL_SAFE_NO_PAD};
        for v in fixture("signatures.json")["rfc8032"].as_array().unwrap() {
            let x = URL_SAFE_NO_PAD.encode(hex::decode(v["public"].as_str().unwrap()).unwrap());
            let input = json!({"message": v["message"], "messageEncoding": "hex", "algorithm": "ed25519",
                "key": {"kty": "OKP", "crv": "Ed25519", "x": x}, "signature": v["signature"], "signatureEncoding": "hex"});
            assert!(verify(input).await.unwrap().valid, "{}", v["message"]);
        }
    }
}
