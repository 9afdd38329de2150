//! `x509/self-signed`: a self-signed X.509 certificate, with a new key or the caller's.

use sha1::Sha1;
use sha2::{Digest, Sha256};

use wrench_contract::prelude::*;

use super::request::{self, MAX_SANS, NewKeyType, SubjectInput};
use crate::security::keys::{load::KeyInput, pem};

/// Longest validity, in days (about 100 years).
const MAX_DAYS: u32 = 36_500;

/// A key usage (RFC 5280 section 4.2.1.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Validate)]
#[serde(rename_all = "camelCase")]
enum KeyUsageName {
    DigitalSignature,
    ContentCommitment,
    KeyEncipherment,
    DataEncipherment,
    KeyAgreement,
    KeyCertSign,
    #[serde(rename = "cRLSign")]
    CrlSign,
}

/// An extended key usage (RFC 5280 section 4.2.1.12).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Validate)]
enum ExtKeyUsageName {
    #[serde(rename = "serverAuth")]
    ServerAuth,
    #[serde(rename = "clientAuth")]
    ClientAuth,
    #[serde(rename = "codeSigning")]
    CodeSigning,
    #[serde(rename = "emailProtection")]
    EmailProtection,
    #[serde(rename = "timeStamping")]
    TimeStamping,
    #[serde(rename = "OCSPSigning")]
    OcspSigning,
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct X509SelfSignedInput {
    /// The subject (and issuer): `cn`, `o`, `ou`, `l`, `st`, `c`, `email`.
    #[serde(default, deserialize_with = "wrench_contract::decode::no_array")]
    subject: Option<SubjectInput>,
    /// Subject alternative names: DNS names, IP addresses, e-mail addresses and URIs.
    #[serde(default)]
    #[schemars(length(max = 100))]
    sans: Vec<String>,
    /// Days of validity from now (365 by default).
    #[serde(default = "year")]
    #[schemars(range(min = 1, max = 36500))]
    days: u32,
    /// A new key's type (`ec-p256` by default). Not with `privateKey`.
    key_type: Option<NewKeyType>,
    /// Sign with this key instead of a new one.
    private_key: Option<KeyInput>,
    /// The passphrase of an encrypted `privateKey`.
    #[schemars(length(min = 1, max = 1024))]
    passphrase: Option<String>,
    /// Make it a CA (basic constraints `CA:TRUE`, key usages keyCertSign and cRLSign).
    #[serde(default)]
    is_ca: bool,
    /// Key usages; `digitalSignature` (and the CA's) when absent.
    #[schemars(length(max = 7))]
    key_usage: Option<Vec<KeyUsageName>>,
    /// Extended key usages; `serverAuth` for a certificate with DNS names when absent.
    #[schemars(length(max = 6))]
    ext_key_usage: Option<Vec<ExtKeyUsageName>>,
}

fn year() -> u32 {
    365
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct CertificateFingerprints {
    sha1: String,
    sha256: String,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct X509SelfSignedOutput {
    /// The certificate, PEM.
    certificate: String,
    /// The new key as PKCS#8 PEM; null when `privateKey` was given.
    private_key: Option<String>,
    /// The serial number, lower-case hex (16 random bytes, positive).
    serial: String,
    not_before: String,
    not_after: String,
    /// Of the DER, lower-case hex.
    fingerprints: CertificateFingerprints,
}

/// Create a self-signed X.509 certificate.
///
/// Issues a version 3 certificate to itself for the subject and names given, valid from now for
/// `days`, with a random serial, subject and authority key identifiers, key usages, extended
/// key usages, and `CA:TRUE` when `isCa`; signed with a new key (EC P-256 by default, P-384,
/// RSA 2048 to 4096, Ed25519) or the caller's private key. For tests, internal services and
/// local TLS; browsers will not trust it.
#[op(post "/v1/x509/self-signed" as x509SelfSigned, tag = SecurityAndValidation, cpu,
     rejects = "no subject and no names, a name that is not one of the four forms, or a key certificates are not signed with",
     redact(".data.certificate", ".data.privateKey", ".data.serial", ".data.notBefore", ".data.notAfter", ".data.fingerprints"),
     example(localhost, {"subject": {"cn": "localhost"}, "sans": ["localhost", "127.0.0.1", "::1"], "days": 30}),
     example(root_ca, {"subject": {"cn": "Example Test Root", "o": "Example"}, "isCa": true, "days": 3650, "keyType": "ec-p384"}),
     example(too_long, {"subject": {"cn": "x"}, "days": 36501}, status = 400))]
async fn x509_self_signed(input: X509SelfSignedInput) -> Result<X509SelfSignedOutput, ApiError> {
    let subject = input.subject.unwrap_or_default();
    if subject.is_empty() && input.sans.is_empty() {
        return Err(ApiError::invalid("subject", "give a subject or at least one name in sans"));
    }
    if input.sans.len() > MAX_SANS {
        return Err(ApiError::invalid("sans", format!("must have at most {MAX_SANS} items")));
    }
    let days = input.days.min(MAX_DAYS);
    let (key, new) = request::signing_key(input.key_type, input.private_key.as_ref(), input.passphrase.as_deref())?;
    let pair = request::rcgen_key(&key)?;
    let mut params = rcgen::CertificateParams::default();
    params.distinguished_name = subject.name()?;
    params.subject_alt_names = request::sans(&input.sans)?;
    let now = wrench_infra::time::unix_secs() as i64;
    let start = time::OffsetDateTime::from_unix_timestamp(now).map_err(|e| ApiError::internal(e.to_string()))?;
    params.not_before = start;
    params.not_after = start + time::Duration::days(i64::from(days));
    let mut serial = [0u8; 16];
    getrandom::fill(&mut serial).map_err(|e| ApiError::internal(e.to_string()))?;
    serial[0] &= 0x7f;
    serial[0] |= 0x01;
    params.serial_number = Some(rcgen::SerialNumber::from_slice(&serial));
    use rcgen::{ExtendedKeyUsagePurpose as E, KeyUsagePurpose as K};
    let mut usages: Vec<K> = match &input.key_usage {
        Some(list) => list
            .iter()
            .map(|u| match u {
                KeyUsageName::DigitalSignature => K::DigitalSignature,
                KeyUsageName::ContentCommitment => K::ContentCommitment,
                KeyUsageName::KeyEncipherment => K::KeyEncipherment,
                KeyUsageName::DataEncipherment => K::DataEncipherment,
                KeyUsageName::KeyAgreement => K::KeyAgreement,
                KeyUsageName::KeyCertSign => K::KeyCertSign,
                KeyUsageName::CrlSign => K::CrlSign,
            })
            .collect(),
        None => vec![K::DigitalSignature],
    };
    if input.is_ca {
        params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
        for u in [K::KeyCertSign, K::CrlSign] {
            if !usages.contains(&u) {
                usages.push(u);
            }
        }
    } else {
        params.is_ca = rcgen::IsCa::ExplicitNoCa;
    }
    params.key_usages = usages;
    params.extended_key_usages = match &input.ext_key_usage {
        Some(list) => list
            .iter()
            .map(|u| match u {
                ExtKeyUsageName::ServerAuth => E::ServerAuth,
                ExtKeyUsageName::ClientAuth => E::ClientAuth,
                ExtKeyUsageName::CodeSigning => E::CodeSigning,
                ExtKeyUsageName::EmailProtection => E::EmailProtection,
                ExtKeyUsageName::TimeStamping => E::TimeStamping,
                ExtKeyUsageName::OcspSigning => E::OcspSigning,
            })
            .collect(),
        None if !input.is_ca
            && params
                .subject_alt_names
                .iter()
                .any(|s| matches!(s, rcgen::SanType::DnsName(_) | rcgen::SanType::IpAddress(_))) =>
        {
            vec![E::ServerAuth]
        }
        None => Vec::new(),
    };
    params.use_authority_key_identifier_extension = true;
    let cert = params
        .self_signed(&pair)
        .map_err(|e| ApiError::internal(format!("the certificate could not be written: {e}")))?;
    let der_bytes = cert.der().to_vec();
    let rfc3339 = |t: i64| jiff::Timestamp::from_second(t).map(|t| t.to_string()).unwrap_or_default();
    Ok(X509SelfSignedOutput {
        certificate: cert.pem(),
        private_key: if new { Some(pem::pkcs8(&key).map_err(ApiError::internal)?) } else { None },
        serial: hex::encode(serial),
        not_before: rfc3339(now),
        not_after: rfc3339(now + i64::from(days) * 86_400),
        fingerprints: CertificateFingerprints {
            sha1: hex::encode(Sha1::digest(&der_bytes)),
            sha256: hex::encode(Sha256::digest(&der_bytes)),
        },
    })
}
