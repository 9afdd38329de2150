//! `keys/generate`: a new key pair, written in the form asked for.

use serde_json::{Map, Value};

use wrench_contract::prelude::*;

use super::inspect::KeyFingerprints;
use super::model::{Curve, Key};
use super::{der, jwk, openssh_private, pem, pkcs8_sealed, ssh};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Validate)]
#[serde(rename_all = "lowercase")]
pub(crate) enum KeyType {
    Rsa,
    Ec,
    Ed25519,
    X25519,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Validate)]
#[serde(rename_all = "lowercase")]
pub(crate) enum GeneratedCurve {
    P256,
    P384,
    P521,
    Secp256k1,
}

impl GeneratedCurve {
    fn curve(self) -> Curve {
        match self {
            Self::P256 => Curve::P256,
            Self::P384 => Curve::P384,
            Self::P521 => Curve::P521,
            Self::Secp256k1 => Curve::Secp256k1,
        }
    }
}

/// How the private key is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Validate)]
#[serde(rename_all = "lowercase")]
enum PrivateFormat {
    /// PEM `PRIVATE KEY`, or `ENCRYPTED PRIVATE KEY` (PBES2: PBKDF2-HMAC-SHA256, AES-256-CBC)
    /// with a passphrase. Every key type.
    Pkcs8,
    /// PEM `RSA PRIVATE KEY` (RSA only, not encrypted).
    Pkcs1,
    /// PEM `EC PRIVATE KEY` (EC only, not encrypted).
    Sec1,
    /// `OPENSSH PRIVATE KEY`, sealed with bcrypt_pbkdf and AES-256-CTR with a passphrase (RSA,
    /// the NIST curves, Ed25519).
    Openssh,
    /// A private JWK as JSON text (not encrypted).
    Jwk,
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct KeysGenerateInput {
    #[serde(rename = "type")]
    kind: KeyType,
    /// RSA's size: 2048 (the default), 3072 or 4096.
    #[schemars(range(min = 2048, max = 4096))]
    bits: Option<u32>,
    /// EC's curve: `p256` (the default), `p384`, `p521` or `secp256k1`.
    curve: Option<GeneratedCurve>,
    /// The private key's form: `pkcs8` (the default), `pkcs1`, `sec1`, `openssh` or `jwk`.
    #[serde(default = "pkcs8")]
    format: PrivateFormat,
    /// Encrypt the private key (PKCS#8 and OpenSSH forms).
    #[schemars(length(min = 1, max = 1024))]
    passphrase: Option<String>,
    /// The comment of the OpenSSH forms (`user@host`).
    #[schemars(length(max = 256), regex(pattern = r"^[^\r\n]*$"))]
    comment: Option<String>,
}

fn pkcs8() -> PrivateFormat {
    PrivateFormat::Pkcs8
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct KeysGenerateOutput {
    /// `rsa`, `ec`, `ed25519` or `x25519`.
    #[serde(rename = "type")]
    kind: String,
    bits: u32,
    curve: Option<String>,
    format: PrivateFormat,
    /// Whether `privateKey` is encrypted with the passphrase.
    encrypted: bool,
    /// The private key in `format`.
    private_key: String,
    /// The public key as SubjectPublicKeyInfo PEM.
    public_key: String,
    /// The public key as an OpenSSH line (with `comment`); null for secp256k1 and X25519.
    public_key_openssh: Option<String>,
    /// The public key as a JWK.
    jwk: Map<String, Value>,
    fingerprints: KeyFingerprints,
}

/// A new key of `kind`, from aws-lc-rs's generators.
pub(crate) fn new_key(kind: KeyType, bits: u32, curve: Curve) -> Result<Key, ApiError> {
    use aws_lc_rs::encoding::AsDer;
    let failed = |what: &str| ApiError::internal(format!("{what} key generation failed"));
    let pkcs8: Vec<u8> = match kind {
        KeyType::Rsa => {
            let size = match bits {
                2048 => aws_lc_rs::rsa::KeySize::Rsa2048,
                3072 => aws_lc_rs::rsa::KeySize::Rsa3072,
                4096 => aws_lc_rs::rsa::KeySize::Rsa4096,
                _ => return Err(ApiError::invalid("bits", "must be 2048, 3072 or 4096")),
            };
            let pair = aws_lc_rs::rsa::KeyPair::generate(size).map_err(|_| failed("RSA"))?;
            pair.as_der().map_err(|_| failed("RSA"))?.as_ref().to_vec()
        }
        KeyType::Ec => aws_lc_rs::signature::EcdsaKeyPair::generate(curve.signing())
            .and_then(|p| p.to_pkcs8v1())
            .map_err(|_| failed("EC"))?
            .as_ref()
            .to_vec(),
        KeyType::Ed25519 => aws_lc_rs::signature::Ed25519KeyPair::generate()
            .and_then(|p| p.to_pkcs8v1())
            .map_err(|_| failed("Ed25519"))?
            .as_ref()
            .to_vec(),
        KeyType::X25519 => {
            let mut d = [0u8; 32];
            getrandom::fill(&mut d).map_err(|_| failed("X25519"))?;
            return der::x25519_from_private(&d).map_err(|_| failed("X25519"));
        }
    };
    der::read_pkcs8(&pkcs8).map_err(|e| ApiError::internal(format!("a generated key did not read back: {e}")))
}

/// Generate a key pair: RSA, EC, Ed25519 or X25519.
///
/// Makes a new RSA (2048, 3072 or 4096 bits), EC (P-256, P-384, P-521 or secp256k1), Ed25519 or
/// X25519 key with aws-lc-rs and writes the private key as PKCS#8, PKCS#1, SEC1, OpenSSH or a
/// JWK, encrypted with `passphrase` in the PKCS#8 and OpenSSH forms; and the public key as
/// PEM, an OpenSSH line and a JWK, with its fingerprints. Nothing is kept.
#[op(post "/v1/keys/generate" as keysGenerate, tag = SecurityAndValidation, cpu,
     rejects = "bits other than 2048, 3072 or 4096, a format the key type has no place in, or a passphrase for a form that is not encrypted",
     redact(".data.privateKey", ".data.publicKey", ".data.publicKeyOpenssh", ".data.jwk", ".data.fingerprints"),
     example(ed25519_openssh, {"type": "ed25519", "format": "openssh", "comment": "deploy@example"}),
     example(ec_encrypted_pkcs8, {"type": "ec", "curve": "p384", "passphrase": "correct horse battery staple"}),
     example(rsa_pkcs1, {"type": "rsa", "bits": 2048, "format": "pkcs1"}),
     example(sec1_for_rsa, {"type": "rsa", "format": "sec1"}, status = 400))]
async fn keys_generate(input: KeysGenerateInput) -> Result<KeysGenerateOutput, ApiError> {
    let format_error = |m: &str| Err(ApiError::invalid("format", m.to_string()));
    match (input.format, input.kind) {
        (PrivateFormat::Pkcs1, k) if k != KeyType::Rsa => return format_error("pkcs1 holds RSA keys only"),
        (PrivateFormat::Sec1, k) if k != KeyType::Ec => return format_error("sec1 holds EC keys only"),
        (PrivateFormat::Openssh, KeyType::X25519) => return format_error("OpenSSH has no form for X25519 keys"),
        (PrivateFormat::Openssh, KeyType::Ec) if input.curve == Some(GeneratedCurve::Secp256k1) => {
            return format_error("OpenSSH has no form for secp256k1 keys");
        }
        _ => {}
    }
    if input.passphrase.is_some() && !matches!(input.format, PrivateFormat::Pkcs8 | PrivateFormat::Openssh) {
        return Err(ApiError::invalid("passphrase", "only the pkcs8 and openssh forms are encrypted"));
    }
    if input.bits.is_some() && input.kind != KeyType::Rsa {
        return Err(ApiError::invalid("bits", "is for RSA keys; an EC key's size is its curve's"));
    }
    if input.curve.is_some() && input.kind != KeyType::Ec {
        return Err(ApiError::invalid("curve", "is for EC keys"));
    }
    let curve = input.curve.unwrap_or(GeneratedCurve::P256).curve();
    let key = new_key(input.kind, input.bits.unwrap_or(2048), curve)?;
    let passphrase = input.passphrase.as_deref().map(str::as_bytes);
    let comment = input.comment.as_deref().unwrap_or("");
    let internal = |e: String| ApiError::internal(e);
    let private_key = match input.format {
        PrivateFormat::Pkcs8 => {
            let der = der::write_pkcs8(&key).map_err(internal)?;
            match passphrase {
                Some(p) => pem::armour("ENCRYPTED PRIVATE KEY", &pkcs8_sealed::seal(&der, p)),
                None => pem::armour("PRIVATE KEY", &der),
            }
        }
        PrivateFormat::Pkcs1 => pem::armour("RSA PRIVATE KEY", &der::write_pkcs1_private(&key).unwrap_or_default()),
        PrivateFormat::Sec1 => pem::armour("EC PRIVATE KEY", &der::write_sec1(&key, true).unwrap_or_default()),
        PrivateFormat::Openssh => openssh_private::write(&key, comment, passphrase).map_err(internal)?,
        PrivateFormat::Jwk => serde_json::to_string(&jwk::write(&key, true)).map_err(|e| internal(e.to_string()))?,
    };
    let public = key.public();
    Ok(KeysGenerateOutput {
        kind: key.kind().to_string(),
        bits: key.bits(),
        curve: key.curve().map(str::to_string),
        format: input.format,
        encrypted: passphrase.is_some(),
        private_key,
        public_key: pem::armour("PUBLIC KEY", &der::write_spki(&public).map_err(internal)?),
        public_key_openssh: ssh::write_public(&public, input.comment.as_deref()),
        jwk: jwk::write(&public, false),
        fingerprints: KeyFingerprints::of(&key),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::security::keys::load::{self, KeyInput};

    async fn generate(input: Value) -> Result<KeysGenerateOutput, ApiError> {
        keys_generate(serde_json::from_value(input).expect("the test input reads")).await
    }

    /// Every type in every form it has, read back by wrench's own reader (with the passphrase
    /// where encrypted) to the public key the answer names. The tools' view is in
    /// tests/it/secret_tools.rs.
    #[tokio::test]
    async fn every_form_reads_back_to_its_public_key() {
        let cases = [
            (json!({"type": "rsa"}), 2048),
            (json!({"type": "rsa", "format": "pkcs1"}), 2048),
            (json!({"type": "rsa", "format": "openssh", "comment": "a@b"}), 2048),
            (json!({"type": "ec"}), 256),
            (json!({"type": "ec", "curve": "p384", "format": "sec1"}), 384),
            (json!({"type": "ec", "curve": "p521", "format": "openssh", "passphrase": "pw"}), 521),
            (json!({"type": "ec", "curve": "secp256k1", "format": "jwk"}), 256),
            (json!({"type": "ed25519", "format": "openssh"}), 256),
            (json!({"type": "ed25519", "passphrase": "pw"}), 256),
            (json!({"type": "x25519"}), 256),
        ];
        for (input, bits) in cases {
            let out = generate(input.clone()).await.unwrap_or_else(|e| panic!("{input}: {e:?}"));
            assert_eq!(out.bits, bits, "{input}");
            let passphrase = input["passphrase"].as_str().map(str::as_bytes);
            let (key, _) = load::read_with("key", &KeyInput::Text(out.private_key.clone()), passphrase)
                .unwrap_or_else(|e| panic!("{input}: {e:?}"));
            assert!(key.is_private(), "{input}");
            let (public, _) = load::read("key", &KeyInput::Text(out.public_key.clone())).unwrap();
            assert!(key.same_public(&public), "{input}");
            assert_eq!(out.fingerprints.jwk_thumbprint, jwk::thumbprint(&public), "{input}");
            if passphrase.is_some() {
                let wrong = load::read_with("key", &KeyInput::Text(out.private_key.clone()), Some(b"wrong"));
                assert!(wrong.unwrap_err().message.contains("passphrase is wrong"), "{input}");
            }
        }
    }

    #[tokio::test]
    async fn forms_a_key_has_no_place_in_are_refused() {
        for (input, field) in [
            (json!({"type": "ec", "format": "pkcs1"}), "format"),
            (json!({"type": "rsa", "format": "sec1"}), "format"),
            (json!({"type": "x25519", "format": "openssh"}), "format"),
            (json!({"type": "ec", "curve": "secp256k1", "format": "openssh"}), "format"),
            (json!({"type": "rsa", "format": "jwk", "passphrase": "pw"}), "passphrase"),
            (json!({"type": "rsa", "bits": 2049}), "bits"),
            (json!({"type": "ec", "bits": 2048}), "bits"),
            (json!({"type": "ed25519", "curve": "p256"}), "curve"),
        ] {
            let e = generate(input.clone()).await.err().unwrap_or_else(|| panic!("{input} is refused"));
            assert_eq!(e.field.as_deref(), Some(field), "{input}");
        }
    }
}
