//! `signature/sign`: a message signed with a private key.

use wrench_contract::prelude::*;
use wrench_kit::byte_encoding::{self, InputEncoding};

use super::scheme::{EcdsaFormat, SignatureScheme};
use crate::security::keys::{
    jwk,
    load::{self, KeyInput},
};

/// How a signature is written in answers.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Validate)]
pub(crate) enum SignatureEncoding {
    #[default]
    #[serde(rename = "base64")]
    Base64,
    #[serde(rename = "base64url")]
    Base64Url,
    #[serde(rename = "hex")]
    Hex,
}

impl SignatureEncoding {
    pub(crate) fn write(self, bytes: &[u8]) -> String {
        use base64::Engine;
        match self {
            Self::Base64 => base64::engine::general_purpose::STANDARD.encode(bytes),
            Self::Base64Url => base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes),
            Self::Hex => hex::encode(bytes),
        }
    }

    pub(crate) fn input(self) -> InputEncoding {
        match self {
            Self::Base64 => InputEncoding::Base64,
            Self::Base64Url => InputEncoding::Base64Url,
            Self::Hex => InputEncoding::Hex,
        }
    }
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct SignatureSignInput {
    /// The message: text (its UTF-8 bytes), or bytes written as `messageEncoding` says.
    message: String,
    #[serde(default)]
    message_encoding: InputEncoding,
    /// The private key: PEM (PKCS#8, PKCS#1, SEC1, OpenSSH), a JWK, or Base64 DER.
    key: KeyInput,
    /// The passphrase of an encrypted private key.
    #[schemars(length(min = 1, max = 1024))]
    passphrase: Option<String>,
    algorithm: SignatureScheme,
    /// How an ECDSA signature is written: `der` (the default) or `raw`.
    #[serde(default)]
    signature_format: EcdsaFormat,
    /// How the signature is written in the answer: `base64` (the default), `base64url` or `hex`.
    #[serde(default)]
    signature_encoding: SignatureEncoding,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct SignatureSignOutput {
    /// The signature, in `signatureEncoding`.
    signature: String,
    algorithm: SignatureScheme,
    /// `der` or `raw` for ECDSA; null for the others, whose signatures have one form.
    signature_format: Option<EcdsaFormat>,
    /// The signature's length in bytes.
    bytes: usize,
    /// RFC 7638 thumbprint of the public key that verifies it.
    key_thumbprint: String,
}

/// Sign a message with RSA, ECDSA or Ed25519.
///
/// Signs the message's bytes with RSASSA-PKCS1-v1_5 or RSA-PSS (SHA-256, 384 or 512), ECDSA
/// with the curve's hash (P-256 and secp256k1 with SHA-256, P-384 with SHA-384, P-521 with
/// SHA-512; DER or raw r||s), or Ed25519, under a private key given as PEM, JWK or OpenSSH.
/// RSA and Ed25519 signatures of the same message are the same every time; ECDSA and PSS ones
/// are randomised.
#[op(post "/v1/signature/sign" as signatureSign, tag = SecurityAndValidation, cpu,
     rejects = "a public key, or a key the algorithm does not take",
     redact(".data.signature"),
     example(ed25519_rfc8032_test_1, {"message": "", "algorithm": "ed25519", "signatureEncoding": "hex",
        "key": {"kty": "OKP", "crv": "Ed25519", "d": "nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A", "x": "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}}),
     example(ecdsa_p256_raw, {"message": "hello", "algorithm": "ecdsa-sha256", "signatureFormat": "raw",
        "key": {"kty": "EC", "crv": "P-256", "x": "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU", "y": "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0", "d": "jpsQnnGQmL-YBIffH1136cspYG6-0iY7X1fCE9-E9LI"}}),
     example(public_key_refused, {"message": "hello", "algorithm": "ed25519",
        "key": {"kty": "OKP", "crv": "Ed25519", "x": "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}}, status = 400))]
async fn signature_sign(input: SignatureSignInput) -> Result<SignatureSignOutput, ApiError> {
    let message = byte_encoding::decode(&input.message, input.message_encoding, "message")?;
    let (key, _) = load::read_with("key", &input.key, input.passphrase.as_deref().map(str::as_bytes))?;
    if !key.is_private_pair() {
        return Err(ApiError::invalid("key", format!("signing needs a private key; the key is {}", key.describe())));
    }
    let signature =
        input.algorithm.sign(&key, &message, input.signature_format).map_err(|e| ApiError::invalid("key", e))?;
    Ok(SignatureSignOutput {
        signature: input.signature_encoding.write(&signature),
        bytes: signature.len(),
        signature_format: input.algorithm.is_ecdsa().then_some(input.signature_format),
        algorithm: input.algorithm,
        key_thumbprint: jwk::thumbprint(&key.public()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::fixture;

    async fn sign(input: serde_json::Value) -> Result<SignatureSignOutput, ApiError> {
        signature_sign(serde_json::from_value(input).expect("the test input reads")).await
    }

    /// PKCS#1 v1.5 and Ed25519 are deterministic: the same key and message give cryptography's
    /// signature and RFC 8032's. The randomised ones verify, in both ECDSA forms.
    #[tokio::test]
    async fn signatures_are_cryptographys_or_verify() {
        let f = fixture("signatures.json");
        let keys = fixture("jose.json")["keys"].clone();
        for s in f["signatures"].as_array().unwrap() {
            let k = &keys[s["key"].as_str().unwrap()];
            let algorithm: SignatureScheme = serde_json::from_value(s["algorithm"].clone()).unwrap();
            for format in ["der", "raw"] {
                let input = json!({"message": f["message"], "algorithm": s["algorithm"], "key": k["pkcs8"],
                    "signatureEncoding": "hex", "signatureFormat": format});
                let out = sign(input).await.unwrap_or_else(|e| panic!("{}: {e:?}", s["algorithm"]));
                let deterministic = matches!(algorithm, SignatureScheme::Ed25519)
                    || s["algorithm"].as_str().unwrap().starts_with("rsa-pkcs1");
                if deterministic {
                    assert_eq!(out.signature, s["signature"].as_str().unwrap(), "{}", s["algorithm"]);
                }
                let (public, _) = load::read("key", &KeyInput::Text(k["spki"].as_str().unwrap().into())).unwrap();
                let bytes = hex::decode(&out.signature).unwrap();
                let format = if format == "raw" { EcdsaFormat::Raw } else { EcdsaFormat::Der };
                assert!(
                    algorithm.verify(&public, f["message"].as_str().unwrap().as_bytes(), &bytes, format).unwrap(),
                    "{}",
                    s["algorithm"]
                );
            }
        }
        for v in f["rfc8032"].as_array().unwrap() {
            use base64::{Engine, engine::general_purpose::URL_SAFE_NO_PAD};
            let b64 = |h: &str| URL_SAFE_NO_PAD.encode(hex::decode(h).unwrap());
            let key = json!({"kty": "OKP", "crv": "Ed25519", "d": b64(v["secret"].as_str().unwrap()), "x": b64(v["public"].as_str().unwrap())});
            let input = json!({"message": v["message"], "messageEncoding": "hex", "algorithm": "ed25519", "key": key, "signatureEncoding": "hex"});
            assert_eq!(sign(input).await.unwrap().signature, v["signature"].as_str().unwrap());
        }
    }

    #[tokio::test]
    async fn keys_the_scheme_does_not_take_are_refused() {
        let keys = fixture("jose.json")["keys"].clone();
        for (algorithm, key, words) in [
            ("ecdsa-sha384", "p256", "P-384"),
            ("ecdsa-sha256", "p384", "P-256 or secp256k1"),
            ("rsa-pss-sha256", "ed25519", "RSA"),
            ("ed25519", "x25519", "Ed25519"),
            ("rsa-pkcs1-sha256", "rsa", "private key"),
        ] {
            let k = if words == "private key" { &keys[key]["spki"] } else { &keys[key]["pkcs8"] };
            let e = sign(json!({"message": "m", "algorithm": algorithm, "key": k})).await.err().unwrap();
            assert!(e.message.contains(words), "{algorithm} {key}: {}", e.message);
        }
    }
}
