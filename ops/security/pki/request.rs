//! What `csr/generate` and `x509/self-signed` share: the subject a caller describes, the
//! subject alternative names (each typed by its form), and the key: a new one of a named type,
//! or the caller's own, handed to rcgen to sign with.

use std::net::IpAddr;

use rcgen::{DistinguishedName, DnType, DnValue, SanType};

use wrench_contract::prelude::*;

use crate::security::keys::generate::{KeyType, new_key};
use crate::security::keys::load::{self, KeyInput};
use crate::security::keys::model::{Curve, Key};
use crate::security::keys::pem;

/// Most subject alternative names one request may carry.
pub(crate) const MAX_SANS: usize = 100;

/// The subject's attributes, each optional.
#[derive(Debug, Default, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields)]
pub(crate) struct SubjectInput {
    /// Common name (CN).
    #[schemars(length(min = 1, max = 64))]
    cn: Option<String>,
    /// Organisation (O).
    #[schemars(length(min = 1, max = 64))]
    o: Option<String>,
    /// Organisational unit (OU).
    #[schemars(length(min = 1, max = 64))]
    ou: Option<String>,
    /// Locality (L).
    #[schemars(length(min = 1, max = 128))]
    l: Option<String>,
    /// State or province (ST).
    #[schemars(length(min = 1, max = 128))]
    st: Option<String>,
    /// Country (C): two letters, ISO 3166.
    #[schemars(regex(pattern = r"^[A-Z]{2}$"))]
    c: Option<String>,
    /// E-mail address (emailAddress).
    #[schemars(length(min = 3, max = 128))]
    email: Option<String>,
}

/// A key type for a new key.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Validate)]
pub(crate) enum NewKeyType {
    #[serde(rename = "rsa-2048")]
    Rsa2048,
    #[serde(rename = "rsa-3072")]
    Rsa3072,
    #[serde(rename = "rsa-4096")]
    Rsa4096,
    #[default]
    #[serde(rename = "ec-p256")]
    EcP256,
    #[serde(rename = "ec-p384")]
    EcP384,
    #[serde(rename = "ed25519")]
    Ed25519,
}

impl SubjectInput {
    /// The distinguished name, in the order C, ST, L, O, OU, CN, emailAddress (as OpenSSL's
    /// configuration files usually list them).
    pub(crate) fn name(&self) -> Result<DistinguishedName, ApiError> {
        let mut dn = DistinguishedName::new();
        if let Some(c) = &self.c {
            let value = rcgen::string::PrintableString::try_from(c.as_str())
                .map_err(|_| ApiError::invalid("subject.c", "must be two capital letters"))?;
            dn.push(DnType::CountryName, DnValue::PrintableString(value));
        }
        for (t, v) in [
            (DnType::StateOrProvinceName, &self.st),
            (DnType::LocalityName, &self.l),
            (DnType::OrganizationName, &self.o),
            (DnType::OrganizationalUnitName, &self.ou),
            (DnType::CommonName, &self.cn),
        ] {
            if let Some(v) = v {
                dn.push(t, DnValue::Utf8String(v.clone()));
            }
        }
        if let Some(e) = &self.email {
            let value = rcgen::string::Ia5String::try_from(e.as_str())
                .map_err(|_| ApiError::invalid("subject.email", "must be ASCII (an IA5String)"))?;
            dn.push(DnType::CustomDnType(vec![1, 2, 840, 113549, 1, 9, 1]), DnValue::Ia5String(value));
        }
        Ok(dn)
    }

    pub(crate) fn is_empty(&self) -> bool {
        [&self.cn, &self.o, &self.ou, &self.l, &self.st, &self.c, &self.email].iter().all(|v| v.is_none())
    }
}

/// Each name typed by its form: an IP address, an e-mail address (with `@`), a URI (with
/// `://`), or else a DNS name.
pub(crate) fn sans(names: &[String]) -> Result<Vec<SanType>, ApiError> {
    names
        .iter()
        .enumerate()
        .map(|(i, n)| {
            let field = format!("sans[{i}]");
            let ia5 = |s: &str| {
                rcgen::string::Ia5String::try_from(s)
                    .map_err(|_| ApiError::invalid(&field, "must be ASCII (IDNs as their xn-- form)"))
            };
            Ok(if let Ok(ip) = n.parse::<IpAddr>() {
                SanType::IpAddress(ip)
            } else if n.contains("://") {
                SanType::URI(ia5(n)?)
            } else if n.contains('@') {
                SanType::Rfc822Name(ia5(n)?)
            } else {
                if n.is_empty() || n.len() > 253 || n.contains(char::is_whitespace) {
                    return Err(ApiError::invalid(&field, "is not a DNS name, IP address, e-mail address or URI"));
                }
                SanType::DnsName(ia5(n)?)
            })
        })
        .collect()
}

/// The signing key: the caller's (`privateKey`, opened with `passphrase`) or a new one, with
/// whether it is new.
pub(crate) fn signing_key(
    key_type: Option<NewKeyType>,
    private_key: Option<&KeyInput>,
    passphrase: Option<&str>,
) -> Result<(Key, bool), ApiError> {
    match (private_key, key_type) {
        (Some(_), Some(_)) => Err(ApiError::invalid("keyType", "give keyType for a new key or privateKey, not both")),
        (Some(input), None) => {
            let (key, _) = load::read_with("privateKey", input, passphrase.map(str::as_bytes))?;
            if !key.is_private_pair() {
                return Err(ApiError::invalid("privateKey", format!("is {}, not a private key", key.describe())));
            }
            Ok((key, false))
        }
        (None, kind) => {
            let key = match kind.unwrap_or_default() {
                NewKeyType::Rsa2048 => new_key(KeyType::Rsa, 2048, Curve::P256),
                NewKeyType::Rsa3072 => new_key(KeyType::Rsa, 3072, Curve::P256),
                NewKeyType::Rsa4096 => new_key(KeyType::Rsa, 4096, Curve::P256),
                NewKeyType::EcP256 => new_key(KeyType::Ec, 0, Curve::P256),
                NewKeyType::EcP384 => new_key(KeyType::Ec, 0, Curve::P384),
                NewKeyType::Ed25519 => new_key(KeyType::Ed25519, 0, Curve::P256),
            }?;
            Ok((key, true))
        }
    }
}

/// The key as rcgen signs with it, and the signature algorithm: SHA-256 with RSA and P-256,
/// SHA-384 with P-384, SHA-512 with P-521, Ed25519.
pub(crate) fn rcgen_key(key: &Key) -> Result<rcgen::KeyPair, ApiError> {
    let alg: &'static rcgen::SignatureAlgorithm = match key {
        Key::Rsa { .. } => &rcgen::PKCS_RSA_SHA256,
        Key::Ec { curve: Curve::P256, .. } => &rcgen::PKCS_ECDSA_P256_SHA256,
        Key::Ec { curve: Curve::P384, .. } => &rcgen::PKCS_ECDSA_P384_SHA384,
        Key::Ec { curve: Curve::P521, .. } => &rcgen::PKCS_ECDSA_P521_SHA512,
        Key::Ed25519 { .. } => &rcgen::PKCS_ED25519,
        other => {
            return Err(ApiError::invalid(
                "privateKey",
                format!(
                    "certificates are signed with RSA, P-256, P-384, P-521 or Ed25519 keys; the key is {}",
                    other.describe()
                ),
            ));
        }
    };
    let pkcs8 = pem::pkcs8(key).map_err(ApiError::internal)?;
    rcgen::KeyPair::from_pkcs8_pem_and_sign_algo(&pkcs8, alg)
        .map_err(|e| ApiError::invalid("privateKey", format!("cannot sign with this key: {e}")))
}
