//! `jwk/convert`: a key between PEM, JWK and OpenSSH, with its RFC 7638 thumbprint.

use serde_json::{Map, Value};

use wrench_contract::prelude::*;

use crate::security::keys::{
    der, jwk,
    load::{self, KeyInput},
    pem, ssh,
};

/// The form a key is written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Validate)]
#[serde(rename_all = "lowercase")]
enum KeyForm {
    /// A JSON Web Key (RFC 7517).
    Jwk,
    /// PEM: SubjectPublicKeyInfo (`PUBLIC KEY`), or PKCS#8 (`PRIVATE KEY`) with `includePrivate`.
    Pem,
    /// An OpenSSH public key line (RSA, ECDSA on the NIST curves, Ed25519).
    Openssh,
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct JwkConvertInput {
    /// The key: PEM (private or public, or a certificate), a JWK, an OpenSSH public key line,
    /// or Base64 DER.
    key: KeyInput,
    /// The form to write.
    to: KeyForm,
    /// Write the private key too (PEM and JWK). Off by default: the public half is what is
    /// usually published.
    #[serde(default)]
    include_private: bool,
    /// The passphrase of an encrypted private key (PKCS#8 or OpenSSH).
    #[schemars(length(min = 1, max = 1024))]
    passphrase: Option<String>,
    /// The comment of an OpenSSH line.
    #[schemars(length(max = 256), regex(pattern = r"^[^\r\n]*$"))]
    comment: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct JwkConvertOutput {
    to: KeyForm,
    /// The key in that form: PEM text, an OpenSSH line, or the JWK as compact JSON text.
    key: String,
    /// The JWK, as an object (with the private members only under `includePrivate`).
    jwk: Map<String, Value>,
    /// RFC 7638 thumbprint (SHA-256, Base64url) of the public key, or of a secret's JWK.
    thumbprint: String,
    /// The JWK's `kid` when it had one; the thumbprint otherwise.
    kid: String,
    /// `rsa`, `ec`, `ed25519`, `x25519` or `oct`.
    #[serde(rename = "type")]
    kind: String,
    bits: u32,
    /// The curve, for EC and OKP keys.
    curve: Option<String>,
    /// Whether the key given was private (or a secret).
    is_private: bool,
}

/// Convert a key between PEM, JWK and OpenSSH.
///
/// Reads a key however it comes (PEM in PKCS#8, PKCS#1 or SEC1, a public key or certificate, a
/// JWK, an OpenSSH public key, Base64 DER) and writes it as a JWK, PEM or an OpenSSH line, with
/// its RFC 7638 thumbprint. The public half is written unless `includePrivate` is set.
#[op(post "/v1/jwk/convert" as jwkConvert, tag = SecurityAndValidation, cpu,
     rejects = "a key wrench cannot read, or one the chosen form has no place for (a secret as PEM, X25519 or secp256k1 as OpenSSH)",
     example(rfc7638_rsa_to_pem, {"key": {"kty": "RSA", "e": "AQAB", "kid": "2011-04-29",
        "n": "0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw"}, "to": "pem"}),
     example(pem_to_jwk, {"key": "-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEA11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo=\n-----END PUBLIC KEY-----\n", "to": "jwk"}),
     example(to_openssh, {"key": {"kty": "OKP", "crv": "Ed25519", "x": "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}, "to": "openssh", "comment": "deploy@example"}),
     example(unreadable, {"key": "not a key", "to": "jwk"}, status = 400))]
async fn jwk_convert(input: JwkConvertInput) -> Result<JwkConvertOutput, ApiError> {
    let (key, meta) = load::read_with("key", &input.key, input.passphrase.as_deref().map(str::as_bytes))?;
    let private = input.include_private && key.is_private();
    let jwk_out = {
        let mut m = jwk::write(&key, private);
        if let Some(kid) = &meta.kid {
            m.insert("kid".into(), kid.clone().into());
        }
        m
    };
    let text = match input.to {
        KeyForm::Jwk => serde_json::to_string(&jwk_out).map_err(|e| ApiError::internal(e.to_string()))?,
        KeyForm::Pem if private => pem::pkcs8(&key).map_err(|e| ApiError::invalid("key", e))?,
        KeyForm::Pem => pem::armour("PUBLIC KEY", &der::write_spki(&key).map_err(|e| ApiError::invalid("key", e))?),
        KeyForm::Openssh => {
            if input.include_private {
                return Err(ApiError::invalid("includePrivate", "OpenSSH output is the public key line only"));
            }
            ssh::write_public(&key, input.comment.as_deref())
                .ok_or_else(|| ApiError::invalid("to", format!("OpenSSH has no form for {}", key.describe())))?
        }
    };
    let thumbprint = jwk::thumbprint(&key.public());
    Ok(JwkConvertOutput {
        to: input.to,
        key: text,
        jwk: jwk_out,
        kid: meta.kid.unwrap_or_else(|| thumbprint.clone()),
        thumbprint,
        kind: key.kind().to_string(),
        bits: key.bits(),
        curve: key.curve().map(str::to_string),
        is_private: key.is_private(),
    })
}
