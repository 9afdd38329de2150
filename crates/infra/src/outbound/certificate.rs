//! What a certificate says, read from its DER form (x509-parser): names, issuer, validity,
//! key and fingerprint, in the shape the TLS operations report.

use schemars::JsonSchema;
use serde::Serialize;
use sha2::{Digest, Sha256};
use x509_parser::{
    extensions::GeneralName,
    objects::{oid_registry, oid2sn},
    prelude::{FromDer, X509Certificate},
    public_key::PublicKey,
};

/// One certificate of a chain.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CertificateSummary {
    /// The subject's distinguished name (`CN=example.com, O=...`).
    pub subject: String,
    /// The subject's common name, if it has one.
    pub common_name: Option<String>,
    /// The issuer's distinguished name.
    pub issuer: String,
    /// The issuer's common name, if it has one.
    pub issuer_common_name: Option<String>,
    /// DNS names and IP addresses of the subject alternative name extension.
    pub subject_alt_names: Vec<String>,
    /// Serial number, colon-separated hexadecimal.
    pub serial_number: String,
    /// Start of validity, RFC 3339 (UTC).
    pub not_before: String,
    /// End of validity, RFC 3339 (UTC).
    pub not_after: String,
    /// The signature algorithm's name (`sha256WithRSAEncryption`, `ecdsa-with-SHA256`...).
    pub signature_algorithm: String,
    /// The public key's algorithm (`rsaEncryption`, `id-ecPublicKey`, `ed25519`...).
    pub key_algorithm: String,
    /// The public key's size in bits (the modulus for RSA, the field for elliptic curves).
    pub key_bits: Option<u32>,
    /// Whether the certificate may sign others (basic constraints).
    pub is_ca: bool,
    /// Whether subject and issuer are the same name.
    pub self_issued: bool,
    /// SHA-256 of the DER encoding, colon-separated upper-case hexadecimal.
    pub sha256_fingerprint: String,
    #[serde(skip)]
    pub not_after_unix: i64,
}

fn oid_name(oid: &x509_parser::der_parser::oid::Oid) -> String {
    oid2sn(oid, oid_registry()).map(str::to_string).unwrap_or_else(|_| oid.to_id_string())
}

fn rfc3339(unix: i64) -> String {
    jiff::Timestamp::from_second(unix).map(|t| t.to_string()).unwrap_or_else(|_| unix.to_string())
}

fn common_name(name: &x509_parser::x509::X509Name) -> Option<String> {
    name.iter_common_name().next().and_then(|cn| cn.as_str().ok()).map(str::to_string)
}

fn colon_hex(bytes: &[u8], upper: bool) -> String {
    bytes.iter().map(|b| if upper { format!("{b:02X}") } else { format!("{b:02x}") }).collect::<Vec<_>>().join(":")
}

/// The summary of `der`, or why it cannot be read.
pub fn summarize(der: &[u8]) -> Result<CertificateSummary, String> {
    let (_, cert) = X509Certificate::from_der(der).map_err(|e| format!("the certificate cannot be parsed: {e}"))?;
    let mut sans = Vec::new();
    if let Ok(Some(ext)) = cert.subject_alternative_name() {
        for name in &ext.value.general_names {
            match name {
                GeneralName::DNSName(d) => sans.push(d.to_string()),
                GeneralName::IPAddress(bytes) => match bytes.len() {
                    4 => sans.push(std::net::Ipv4Addr::from(<[u8; 4]>::try_from(*bytes).expect("4")).to_string()),
                    16 => sans.push(std::net::Ipv6Addr::from(<[u8; 16]>::try_from(*bytes).expect("16")).to_string()),
                    _ => {}
                },
                _ => {}
            }
        }
    }
    let spki = cert.public_key();
    let key_bits = match spki.parsed() {
        Ok(PublicKey::RSA(rsa)) => {
            let modulus = rsa.modulus.iter().skip_while(|b| **b == 0).count();
            Some((modulus * 8) as u32)
        }
        // An uncompressed point: one tag byte, then two coordinates of the field's size.
        Ok(PublicKey::EC(point)) => Some(((point.data().len().saturating_sub(1)) / 2 * 8) as u32),
        _ if oid_name(&spki.algorithm.algorithm) == "ed25519" => Some(256),
        _ => None,
    };
    let not_after_unix = cert.validity().not_after.timestamp();
    Ok(CertificateSummary {
        subject: cert.subject().to_string(),
        common_name: common_name(cert.subject()),
        issuer: cert.issuer().to_string(),
        issuer_common_name: common_name(cert.issuer()),
        subject_alt_names: sans,
        serial_number: colon_hex(cert.raw_serial(), false),
        not_before: rfc3339(cert.validity().not_before.timestamp()),
        not_after: rfc3339(not_after_unix),
        signature_algorithm: oid_name(&cert.signature_algorithm.algorithm),
        key_algorithm: oid_name(&spki.algorithm.algorithm),
        key_bits,
        is_ca: cert.is_ca(),
        self_issued: cert.subject().as_raw() == cert.issuer().as_raw(),
        sha256_fingerprint: colon_hex(&Sha256::digest(der), true),
        not_after_unix,
    })
}
