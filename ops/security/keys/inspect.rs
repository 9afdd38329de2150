//! `keys/inspect`: what a key is, its public half in every form, and its fingerprints.

use base64::{Engine, engine::general_purpose::STANDARD};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use wrench_contract::prelude::*;

use super::load::{self, KeyInput};
use super::{der, jwk, pem, ssh};

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct KeysInspectInput {
    /// The key: PEM (a private key in PKCS#8, PKCS#1 or SEC1, a public key, or a certificate),
    /// a JWK, an OpenSSH public key line, or Base64 DER; an encrypted PKCS#8 or OpenSSH
    /// private key with `passphrase`.
    key: KeyInput,
    /// The passphrase of an encrypted key (PBES2 PKCS#8 with PBKDF2 and AES-CBC, or OpenSSH's
    /// bcrypt and AES-256-CTR).
    #[schemars(length(min = 1, max = 1024))]
    passphrase: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct KeyFingerprints {
    /// Base64 SHA-256 of the SubjectPublicKeyInfo DER: the pin of HPKP and `openssl pkey -pubout
    /// -outform DER | openssl dgst -sha256 -binary | base64`.
    spki_sha256: Option<String>,
    /// As `ssh-keygen -l -E sha256` prints it (`SHA256:…`); null where OpenSSH has no form.
    openssh_sha256: Option<String>,
    /// As `ssh-keygen -l -E md5` prints it (`MD5:aa:bb:…`).
    openssh_md5: Option<String>,
    /// RFC 7638 JWK thumbprint (SHA-256, Base64url).
    pub(crate) jwk_thumbprint: String,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct KeysInspectOutput {
    /// `rsa`, `ec`, `ed25519`, `x25519` or `oct`.
    #[serde(rename = "type")]
    kind: String,
    /// RSA's modulus, a curve's size, or a secret's length, in bits.
    bits: u32,
    /// `P-256`, `P-384`, `P-521`, `secp256k1`, `Ed25519` or `X25519`.
    curve: Option<String>,
    /// RSA's public exponent.
    public_exponent: Option<u64>,
    is_private: bool,
    /// The public key as SubjectPublicKeyInfo PEM (`PUBLIC KEY`).
    public_key_pem: Option<String>,
    /// An RSA public key as PKCS#1 PEM (`RSA PUBLIC KEY`).
    public_key_pkcs1_pem: Option<String>,
    /// The public key as an OpenSSH line (RSA, the NIST curves, Ed25519).
    public_key_openssh: Option<String>,
    /// The public key as a JWK.
    jwk: Map<String, Value>,
    fingerprints: KeyFingerprints,
}

impl KeyFingerprints {
    /// The fingerprints of a key's public half.
    pub(crate) fn of(key: &super::model::Key) -> KeyFingerprints {
        let public = key.public();
        let spki = der::write_spki(&public).ok();
        let ssh = ssh::fingerprints(&public);
        KeyFingerprints {
            spki_sha256: spki.as_ref().map(|d| STANDARD.encode(Sha256::digest(d))),
            openssh_sha256: ssh.as_ref().map(|f| f.0.clone()),
            openssh_md5: ssh.map(|f| f.1),
            jwk_thumbprint: jwk::thumbprint(&public),
        }
    }
}

/// Inspect a key and show its public forms.
///
/// Reads a private or public key however it comes (PEM in PKCS#8, PKCS#1 or SEC1, a public key
/// or a certificate, a JWK, an OpenSSH public key, Base64 DER) and answers its type, size and
/// curve, its public half as PEM, PKCS#1, OpenSSH and JWK, and its fingerprints: the SPKI
/// SHA-256 pin, OpenSSH's SHA-256 and MD5, and the RFC 7638 thumbprint. An encrypted PKCS#8
/// or OpenSSH private key is opened with `passphrase`.
#[op(post "/v1/keys/inspect" as keysInspect, tag = SecurityAndValidation, cpu,
     rejects = "a key wrench cannot read (DSA, Ed448, an unnamed curve), or an encrypted one without its passphrase",
     example(ed25519_public_pem, {"key": "-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEA11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo=\n-----END PUBLIC KEY-----\n"}),
     example(ec_jwk, {"key": {"kty": "EC", "crv": "P-256", "x": "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU", "y": "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"}}),
     example(encrypted, {"key": "-----BEGIN ENCRYPTED PRIVATE KEY-----\nMIIBvTBXBgkqhkiG9w0BBQ0wSjApBgkqhkiG9w0BBQwwHAQI\n-----END ENCRYPTED PRIVATE KEY-----\n"}, status = 400))]
async fn keys_inspect(input: KeysInspectInput) -> Result<KeysInspectOutput, ApiError> {
    let (key, _) = load::read_with("key", &input.key, input.passphrase.as_deref().map(str::as_bytes))?;
    let public = key.public();
    let spki = der::write_spki(&public).ok();
    let public_exponent = match &key {
        super::model::Key::Rsa { e, .. } if e.len() <= 8 => {
            Some(e.iter().fold(0u64, |acc, b| (acc << 8) | u64::from(*b)))
        }
        _ => None,
    };
    Ok(KeysInspectOutput {
        kind: key.kind().to_string(),
        bits: key.bits(),
        curve: key.curve().map(str::to_string),
        public_exponent,
        is_private: key.is_private(),
        public_key_pem: spki.as_ref().map(|d| pem::armour("PUBLIC KEY", d)),
        public_key_pkcs1_pem: der::write_pkcs1_public(&public).map(|d| pem::armour("RSA PUBLIC KEY", &d)),
        public_key_openssh: ssh::write_public(&public, None),
        jwk: jwk::write(&public, false),
        fingerprints: KeyFingerprints::of(&key),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::fixture;

    #[tokio::test]
    async fn the_public_forms_are_cryptographys() {
        let f = fixture("jose.json");
        for (name, k) in f["keys"].as_object().unwrap() {
            let input = KeysInspectInput { key: KeyInput::Text(k["pkcs8"].as_str().unwrap().into()), passphrase: None };
            let out = keys_inspect(input).await.unwrap();
            assert!(out.is_private, "{name}");
            assert_eq!(out.public_key_pem.as_deref(), k["spki"].as_str(), "{name}");
            assert_eq!(out.public_key_pkcs1_pem.as_deref(), k["pkcs1Public"].as_str(), "{name}");
            assert_eq!(out.public_key_openssh.as_deref(), k["openssh"].as_str(), "{name}");
            assert_eq!(out.fingerprints.jwk_thumbprint, k["thumbprint"].as_str().unwrap(), "{name}");
            assert_eq!(Value::Object(out.jwk.clone()), {
                let mut j = k["jwkPublic"].clone();
                j.as_object_mut().unwrap().remove("kid");
                j
            });
        }
        let rsa = keys_inspect(KeysInspectInput {
            key: KeyInput::Text(f["keys"]["rsa"]["spki"].as_str().unwrap().into()),
            passphrase: None,
        })
        .await
        .unwrap();
        assert_eq!((rsa.bits, rsa.public_exponent, rsa.is_private), (2048, Some(65537), false));
    }
}
