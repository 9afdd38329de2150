//! A key as a caller pastes it: PEM (a private key in PKCS#8, PKCS#1 or SEC1, a public key in
//! SubjectPublicKeyInfo or PKCS#1, or a certificate, whose public key is taken), a JWK (as an
//! object or as JSON text), an OpenSSH public key line or private key, or DER in Base64. An
//! encrypted PKCS#8 or OpenSSH private key is opened with its passphrase.
//!
//! Every failure is a 400 naming the field and what was found; nothing of the key itself is
//! ever quoted back.

use base64::{Engine, engine::general_purpose::STANDARD};
use serde_json::{Map, Value};

use wrench_contract::prelude::*;

use super::jwk::{self, Meta};
use super::model::Key;
use super::{der, openssh_private, pem, pkcs8_sealed, ssh};

/// Longest key text, in characters (an RSA-8192 private key in PEM is about 6,400).
const MAX_TEXT: usize = 65_536;
/// Most members of a JWK object.
const MAX_MEMBERS: usize = 64;

/// A key field: text (PEM, JSON text of a JWK, an OpenSSH line, Base64 DER) or a JWK object.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub(crate) enum KeyInput {
    /// PEM, an OpenSSH public key line, Base64 DER, a JWK as JSON text, or (for HMAC) a secret.
    Text(String),
    /// A JWK (RFC 7517).
    Jwk(Map<String, Value>),
}

impl JsonSchema for KeyInput {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "KeyInput".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "A key: PEM text, an OpenSSH public key line, Base64 DER, a JWK as JSON text or (for HMAC) a secret; or a JWK object.",
            "anyOf": [
                {"type": "string", "minLength": 1, "maxLength": MAX_TEXT},
                // Any members (a JWK's are checked when it is read); said outright, since SDK
                // generators read an object without it as one that may have none.
                {"type": "object", "additionalProperties": true, "maxProperties": MAX_MEMBERS}
            ]
        })
    }
}

impl Validate for KeyInput {
    fn validate(&self, path: &str) -> Result<(), wrench_contract::validate::FieldError> {
        match self {
            KeyInput::Text(t) => wrench_contract::validate::check_length(t, path, Some(1), Some(MAX_TEXT)),
            KeyInput::Jwk(m) if m.len() > MAX_MEMBERS => Err(wrench_contract::validate::FieldError {
                path: path.to_string(),
                message: format!("must have at most {MAX_MEMBERS} members (got {})", m.len()),
            }),
            KeyInput::Jwk(_) => Ok(()),
        }
    }
}

/// The PEM labels that carry keys, and how each is read.
fn read_block(block: &pem::Block, passphrase: Option<&[u8]>) -> Option<Result<Key, String>> {
    if block.legacy_encrypted {
        return Some(Err(format!(
            "holds an encrypted `{}` (Proc-Type: 4,ENCRYPTED); decrypt it first (`openssl pkey -in key.pem`)",
            block.label
        )));
    }
    Some(match block.label.as_str() {
        "PRIVATE KEY" => der::read_pkcs8(&block.der),
        "RSA PRIVATE KEY" => der::read_pkcs1_private(&block.der),
        "EC PRIVATE KEY" => der::read_sec1(&block.der, None),
        "PUBLIC KEY" => der::read_spki(&block.der),
        "RSA PUBLIC KEY" => der::read_pkcs1_public(&block.der),
        "CERTIFICATE" | "X509 CERTIFICATE" | "TRUSTED CERTIFICATE" => der::read_certificate_key(&block.der),
        "ENCRYPTED PRIVATE KEY" => match passphrase {
            None => Err("holds an encrypted PKCS#8 key: give its passphrase".to_string()),
            Some(p) => pkcs8_sealed::open(&block.der, p).and_then(|der| der::read_pkcs8(&der)),
        },
        "OPENSSH PRIVATE KEY" => openssh_private::read(&block.der, passphrase).map(|(key, _)| key),
        // EC PARAMETERS and other companions of a key are skipped.
        _ => return None,
    })
}

/// The one key of PEM text.
fn from_pem(text: &str, passphrase: Option<&[u8]>) -> Result<Key, String> {
    let blocks = pem::blocks(text, 16)?;
    let mut keys = blocks.iter().filter_map(|b| read_block(b, passphrase));
    let first = keys.next().ok_or_else(|| {
        let labels: Vec<&str> = blocks.iter().map(|b| b.label.as_str()).collect();
        format!("holds no key PEM block (found {})", labels.join(", "))
    })?;
    if keys.next().is_some() {
        return Err("holds more than one key; give one".into());
    }
    first
}

/// Base64 DER of any structure [`from_pem`] reads.
fn from_der(der: &[u8]) -> Result<Key, String> {
    der::read_pkcs8(der)
        .or_else(|_| der::read_spki(der))
        .or_else(|_| der::read_pkcs1_private(der))
        .or_else(|_| der::read_sec1(der, None))
        .or_else(|_| der::read_pkcs1_public(der))
        .or_else(|_| der::read_certificate_key(der))
        .map_err(|_| "is Base64 but not a DER key or certificate wrench reads".to_string())
}

/// The key of `input` and, for a JWK, its metadata.
pub(crate) fn read(field: &str, input: &KeyInput) -> Result<(Key, Meta), ApiError> {
    read_with(field, input, None)
}

/// [`read`], opening an encrypted PKCS#8 or OpenSSH private key with `passphrase`.
pub(crate) fn read_with(field: &str, input: &KeyInput, passphrase: Option<&[u8]>) -> Result<(Key, Meta), ApiError> {
    let bad = |m: String| ApiError::invalid(field, m);
    match input {
        KeyInput::Jwk(map) => Ok((jwk::read(map).map_err(bad)?, jwk::meta(map).map_err(bad)?)),
        KeyInput::Text(text) => {
            let text = text.trim();
            if text.starts_with('{') {
                let map: Map<String, Value> = serde_json::from_str(text)
                    .map_err(|e| bad(format!("looks like a JWK but is not a JSON object: {e}")))?;
                return Ok((jwk::read(&map).map_err(bad)?, jwk::meta(&map).map_err(bad)?));
            }
            let key = if pem::looks_like_pem(text) {
                from_pem(text, passphrase)
            } else if ssh::looks_like_public(text) {
                ssh::read_public(text)
            } else {
                let compact: String = text.chars().filter(|c| !c.is_whitespace()).collect();
                match STANDARD.decode(&compact) {
                    Ok(der) => from_der(&der),
                    Err(_) => Err("is not a PEM key, a JWK, an OpenSSH public key or Base64 DER".to_string()),
                }
            };
            Ok((key.map_err(bad)?, Meta::default()))
        }
    }
}

/// Whether a text key looks like an asymmetric key rather than a secret (used to refuse a
/// public key given as an HMAC secret).
pub(crate) fn looks_asymmetric(text: &str) -> bool {
    let t = text.trim();
    pem::looks_like_pem(t) || ssh::looks_like_public(t) || t.starts_with('{')
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::fixture;

    fn text(v: &Value) -> KeyInput {
        KeyInput::Text(v.as_str().unwrap().to_string())
    }

    /// Every form PyPI cryptography writes reads to the key jwcrypto describes, and wrench
    /// writes each form back byte for byte.
    #[test]
    fn cryptographys_keys_read_and_write_the_same() {
        let f = fixture("jose.json");
        for (name, k) in f["keys"].as_object().unwrap() {
            let private_jwk = k["jwkPrivate"].as_object().unwrap();
            let public_jwk = k["jwkPublic"].as_object().unwrap();
            let mut inputs = vec![("pkcs8", text(&k["pkcs8"]), true), ("spki", text(&k["spki"]), false)];
            inputs.push(("jwkPrivate", KeyInput::Jwk(private_jwk.clone()), true));
            inputs.push(("jwkPublic", KeyInput::Jwk(public_jwk.clone()), false));
            for form in ["traditional", "pkcs1Public", "openssh"] {
                if k[form].is_string() {
                    inputs.push((form, text(&k[form]), form == "traditional"));
                }
            }
            // The DER of a PEM, in Base64.
            let der_b64: String = k["spki"].as_str().unwrap().lines().filter(|l| !l.starts_with("-----")).collect();
            inputs.push(("spki DER", KeyInput::Text(der_b64), false));
            for (form, input, private) in inputs {
                let (key, _) = read("key", &input).unwrap_or_else(|e| panic!("{name} {form}: {e:?}"));
                assert_eq!(key.is_private(), private, "{name} {form}");
                // jwcrypto names a key read from PEM by its thumbprint (`kid`); the key is the rest.
                let mut want = if private { private_jwk } else { public_jwk }.clone();
                want.remove("kid");
                assert_eq!(jwk::write(&key, true), want, "{name} {form}");
                assert_eq!(jwk::thumbprint(&key), k["thumbprint"].as_str().unwrap(), "{name} {form}");
            }
            let (key, _) = read("key", &text(&k["pkcs8"])).unwrap();
            assert_eq!(
                pem::armour("PRIVATE KEY", &der::write_pkcs8(&key).unwrap()),
                k["pkcs8"].as_str().unwrap(),
                "{name}"
            );
            assert_eq!(
                pem::armour("PUBLIC KEY", &der::write_spki(&key).unwrap()),
                k["spki"].as_str().unwrap(),
                "{name}"
            );
            if let Some(t) = k["traditional"].as_str() {
                let written = match der::write_pkcs1_private(&key) {
                    Some(d) => pem::armour("RSA PRIVATE KEY", &d),
                    None => pem::armour("EC PRIVATE KEY", &der::write_sec1(&key, true).unwrap()),
                };
                assert_eq!(written, t, "{name}");
            }
            if let Some(p) = k["pkcs1Public"].as_str() {
                assert_eq!(pem::armour("RSA PUBLIC KEY", &der::write_pkcs1_public(&key).unwrap()), p);
            }
            assert_eq!(ssh::write_public(&key, None).as_deref(), k["openssh"].as_str(), "{name}");
        }
    }

    #[test]
    fn the_declared_bounds_are_the_checked_ones() {
        let members: Map<String, Value> = (0..=MAX_MEMBERS).map(|i| (format!("m{i}"), Value::Null)).collect();
        assert!(KeyInput::Jwk(members.clone()).validate("key").unwrap_err().message.contains("at most 64 members"));
        let fewer: Map<String, Value> = members.into_iter().skip(1).collect();
        assert!(KeyInput::Jwk(fewer).validate("key").is_ok());
        assert!(KeyInput::Text(String::new()).validate("key").is_err());
        assert!(KeyInput::Text("k".repeat(MAX_TEXT + 1)).validate("key").is_err());
        assert!(KeyInput::Text("k".repeat(MAX_TEXT)).validate("key").is_ok());
        let schema = serde_json::to_value(schemars::schema_for!(KeyInput)).unwrap();
        assert_eq!(schema["anyOf"][0]["maxLength"], MAX_TEXT);
        assert_eq!(schema["anyOf"][1]["maxProperties"], MAX_MEMBERS);
    }

    #[test]
    fn what_is_not_one_key_is_refused_by_name() {
        let f = fixture("jose.json");
        let two =
            format!("{}{}", f["keys"]["p256"]["spki"].as_str().unwrap(), f["keys"]["rsa"]["spki"].as_str().unwrap());
        let cases = [
            (two, "more than one key"),
            (
                "-----BEGIN CERTIFICATE REQUEST-----\nAAAA\n-----END CERTIFICATE REQUEST-----".to_string(),
                "no key PEM block",
            ),
            (
                "-----BEGIN ENCRYPTED PRIVATE KEY-----\nAAAA\n-----END ENCRYPTED PRIVATE KEY-----".to_string(),
                "encrypted",
            ),
            ("-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----".to_string(), "SubjectPublicKeyInfo"),
            ("{\"kty\": 1}".to_string(), "kty"),
            ("hello there".to_string(), "is not a PEM key"),
        ];
        for (input, words) in cases {
            let e = read("key", &KeyInput::Text(input.clone())).unwrap_err();
            assert!(e.message.contains(words), "{input}: {}", e.message);
        }
    }
}
