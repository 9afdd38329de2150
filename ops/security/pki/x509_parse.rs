//! `x509/parse`: every field of one certificate or a chain, PEM or DER, and whether the chain
//! is in order (each certificate signed by the next).

use std::net::IpAddr;

use aws_lc_rs::signature;
use sha1::Sha1;
use sha2::{Digest, Sha256};
use x509_parser::extensions::{DistributionPointName, GeneralName, ParsedExtension};
use x509_parser::prelude::{FromDer, X509Certificate};
use x509_parser::public_key::PublicKey;

use wrench_contract::prelude::*;
use wrench_kit::byte_encoding::{self, InputEncoding};

use super::names::{self, Name};

/// The most certificates one request may hold.
const MAX_CERTIFICATES: usize = 32;

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct X509ParseInput {
    /// One or more PEM certificates (`-----BEGIN CERTIFICATE-----`), or one DER certificate
    /// written as `inputEncoding` says.
    #[schemars(length(min = 1, max = 1048576))]
    input: String,
    /// How `input` carries its bytes: `utf-8` (the default, for PEM), `base64`, `base64url` or
    /// `hex` (for DER).
    #[serde(default)]
    input_encoding: InputEncoding,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct SubjectAltNames {
    dns: Vec<String>,
    ip: Vec<String>,
    email: Vec<String>,
    uri: Vec<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct KeyInfo {
    /// `rsa`, `ec`, `ed25519`, `ed448`, `dsa`, or the OID's name.
    algorithm: String,
    /// The key's size in bits (RSA's modulus, an elliptic curve's field).
    #[serde(skip_serializing_if = "Option::is_none")]
    bits: Option<u32>,
    /// The named curve (`P-256`, `P-384`, `P-521`, `secp256k1`), for EC keys.
    #[serde(skip_serializing_if = "Option::is_none")]
    curve: Option<String>,
    /// SHA-256 of the SubjectPublicKeyInfo, in Base64 (what HPKP pins and `openssl pkey
    /// -pubout -outform der | openssl dgst -sha256 -binary | base64` give).
    spki_sha256: String,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct BasicConstraints {
    ca: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    path_length: Option<u32>,
}

#[derive(Debug, Default, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct Extensions {
    #[serde(skip_serializing_if = "Option::is_none")]
    basic_constraints: Option<BasicConstraints>,
    /// Key usages, by RFC 5280's names (`digitalSignature`, `keyCertSign`...).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    key_usage: Vec<String>,
    /// Extended key usages, by name where known (`serverAuth`), else the OID.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    ext_key_usage: Vec<String>,
    /// Subject key identifier, hex.
    #[serde(skip_serializing_if = "Option::is_none")]
    subject_key_identifier: Option<String>,
    /// Authority key identifier, hex.
    #[serde(skip_serializing_if = "Option::is_none")]
    authority_key_identifier: Option<String>,
    /// CRL distribution point URIs.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    crl_distribution_points: Vec<String>,
    /// OCSP responder URIs (authority information access).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    ocsp: Vec<String>,
    /// CA issuer URIs (authority information access).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    ca_issuers: Vec<String>,
    /// Certificate policy OIDs.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    policies: Vec<String>,
    /// How many signed certificate timestamps are embedded.
    #[serde(skip_serializing_if = "Option::is_none")]
    sct_count: Option<usize>,
    /// Whether the TLS feature extension asks for OCSP stapling (RFC 7633).
    must_staple: bool,
    /// Every extension's OID with whether it is critical, in order.
    all: Vec<ExtensionSeen>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct ExtensionSeen {
    oid: String,
    /// Its name, where known.
    #[serde(skip_serializing_if = "Option::is_none")]
    name: Option<String>,
    critical: bool,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct Fingerprints {
    /// SHA-1 of the DER, lower-case hex.
    sha1: String,
    /// SHA-256 of the DER, lower-case hex.
    sha256: String,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct Certificate {
    subject: Name,
    issuer: Name,
    /// The serial number, lower-case hex as encoded (no sign byte dropped).
    serial: String,
    /// The serial number in decimal.
    serial_decimal: String,
    /// X.509 version: 1, 2 or 3.
    version: u32,
    /// Start of validity, RFC 3339.
    not_before: String,
    /// End of validity, RFC 3339.
    not_after: String,
    /// Whole days from now until `notAfter` (negative once expired).
    days_remaining: i64,
    expired: bool,
    not_yet_valid: bool,
    sans: SubjectAltNames,
    public_key: KeyInfo,
    /// The signature algorithm's name (`sha256WithRSAEncryption`, `ecdsa-with-SHA256`).
    signature_algorithm: String,
    /// The signature algorithm's OID.
    signature_algorithm_oid: String,
    extensions: Extensions,
    fingerprints: Fingerprints,
    /// Whether subject and issuer are the same name.
    self_issued: bool,
    /// Whether it is self-issued and its signature verifies with its own key; null when its
    /// signature algorithm is one wrench does not verify.
    self_signed: Option<bool>,
    /// Whether basic constraints say it is a CA.
    is_ca: bool,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct X509ParseOutput {
    /// Each certificate, in the order given.
    certificates: Vec<Certificate>,
    /// Whether each certificate's issuer is the next one's subject and the next one's key
    /// verifies its signature (a chain from the leaf up); null for one certificate, or when a
    /// signature algorithm is one wrench does not verify.
    chain_ordered: Option<bool>,
}

/// The DER certificates of `bytes`: every PEM `CERTIFICATE` block, or the bytes themselves.
fn certificates(bytes: &[u8]) -> Result<Vec<Vec<u8>>, ApiError> {
    let text = std::str::from_utf8(bytes).ok().filter(|t| t.contains("-----BEGIN"));
    let Some(text) = text else {
        return Ok(vec![bytes.to_vec()]);
    };
    let mut ders = Vec::new();
    for (i, block) in text.split("-----BEGIN ").skip(1).enumerate() {
        let (label, rest) = block
            .split_once("-----")
            .ok_or_else(|| ApiError::invalid("input", format!("PEM block {} has no header end", i + 1)))?;
        let (body, _) = rest
            .split_once("-----END ")
            .ok_or_else(|| ApiError::invalid("input", format!("PEM block {} ({label}) has no END line", i + 1)))?;
        if label != "CERTIFICATE" && label != "X509 CERTIFICATE" && label != "TRUSTED CERTIFICATE" {
            continue;
        }
        let b64: String = body.chars().filter(|c| !c.is_whitespace()).collect();
        let der = byte_encoding::decode(&b64, InputEncoding::Base64, "input")
            .map_err(|_| ApiError::invalid("input", format!("PEM block {} is not Base64", i + 1)))?;
        ders.push(der);
        if ders.len() > MAX_CERTIFICATES {
            return Err(ApiError::invalid("input", format!("holds more than {MAX_CERTIFICATES} certificates")));
        }
    }
    if ders.is_empty() {
        return Err(ApiError::invalid("input", "holds no CERTIFICATE PEM block"));
    }
    Ok(ders)
}

fn ip_text(bytes: &[u8]) -> Option<String> {
    match bytes.len() {
        4 => Some(IpAddr::from(<[u8; 4]>::try_from(bytes).ok()?).to_string()),
        16 => Some(IpAddr::from(<[u8; 16]>::try_from(bytes).ok()?).to_string()),
        _ => None,
    }
}

fn oid_name(oid: &x509_parser::der_parser::oid::Oid<'_>) -> Option<String> {
    x509_parser::objects::oid2sn(oid, x509_parser::objects::oid_registry()).ok().map(str::to_string)
}

fn curve_name(oid: &str) -> Option<&'static str> {
    Some(match oid {
        "1.2.840.10045.3.1.7" => "P-256",
        "1.3.132.0.34" => "P-384",
        "1.3.132.0.35" => "P-521",
        "1.3.132.0.10" => "secp256k1",
        _ => return None,
    })
}

/// The named curve's OID of an EC key, dotted.
fn curve_oid(spki: &x509_parser::x509::SubjectPublicKeyInfo<'_>) -> Option<String> {
    spki.algorithm.parameters.as_ref().and_then(|p| p.as_oid().ok()).map(|o| o.to_id_string())
}

fn key_info(cert: &X509Certificate<'_>) -> KeyInfo {
    let spki = cert.public_key();
    let oid = spki.algorithm.algorithm.to_id_string();
    let (algorithm, bits, curve) = match oid.as_str() {
        "1.2.840.113549.1.1.1" | "1.2.840.113549.1.1.10" => {
            let bits = match spki.parsed() {
                Ok(PublicKey::RSA(rsa)) => Some(rsa.key_size() as u32),
                _ => None,
            };
            ("rsa".to_string(), bits, None)
        }
        "1.2.840.10045.2.1" => {
            let curve_oid = curve_oid(spki);
            let curve = curve_oid.as_deref().and_then(curve_name);
            let bits = match curve {
                Some("P-256") | Some("secp256k1") => Some(256),
                Some("P-384") => Some(384),
                Some("P-521") => Some(521),
                _ => None,
            };
            ("ec".to_string(), bits, curve.map(str::to_string).or(curve_oid))
        }
        "1.3.101.112" => ("ed25519".to_string(), Some(256), None),
        "1.3.101.113" => ("ed448".to_string(), Some(456), None),
        "1.2.840.10040.4.1" => ("dsa".to_string(), None, None),
        _ => (oid_name(&spki.algorithm.algorithm).unwrap_or(oid), None, None),
    };
    KeyInfo { algorithm, bits, curve, spki_sha256: base64_std(&Sha256::digest(spki.raw)) }
}

fn base64_std(bytes: &[u8]) -> String {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

const KEY_USAGES: [&str; 9] = [
    "digitalSignature",
    "contentCommitment",
    "keyEncipherment",
    "dataEncipherment",
    "keyAgreement",
    "keyCertSign",
    "cRLSign",
    "encipherOnly",
    "decipherOnly",
];

fn eku_name(oid: &str) -> String {
    match oid {
        "1.3.6.1.5.5.7.3.1" => "serverAuth",
        "1.3.6.1.5.5.7.3.2" => "clientAuth",
        "1.3.6.1.5.5.7.3.3" => "codeSigning",
        "1.3.6.1.5.5.7.3.4" => "emailProtection",
        "1.3.6.1.5.5.7.3.8" => "timeStamping",
        "1.3.6.1.5.5.7.3.9" => "OCSPSigning",
        "2.5.29.37.0" => "anyExtendedKeyUsage",
        other => other,
    }
    .to_string()
}

fn extensions(cert: &X509Certificate<'_>, sans: &mut SubjectAltNames) -> Extensions {
    let mut out = Extensions::default();
    for ext in cert.extensions() {
        let oid = ext.oid.to_id_string();
        out.all.push(ExtensionSeen { name: oid_name(&ext.oid), oid: oid.clone(), critical: ext.critical });
        match ext.parsed_extension() {
            ParsedExtension::BasicConstraints(bc) => {
                out.basic_constraints = Some(BasicConstraints { ca: bc.ca, path_length: bc.path_len_constraint });
            }
            ParsedExtension::KeyUsage(ku) => {
                out.key_usage = KEY_USAGES
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| ku.flags & (1 << i) != 0)
                    .map(|(_, n)| n.to_string())
                    .collect();
            }
            ParsedExtension::ExtendedKeyUsage(eku) => {
                let mut all = Vec::new();
                if eku.any {
                    all.push(eku_name("2.5.29.37.0"));
                }
                for (set, oid) in [
                    (eku.server_auth, "1.3.6.1.5.5.7.3.1"),
                    (eku.client_auth, "1.3.6.1.5.5.7.3.2"),
                    (eku.code_signing, "1.3.6.1.5.5.7.3.3"),
                    (eku.email_protection, "1.3.6.1.5.5.7.3.4"),
                    (eku.time_stamping, "1.3.6.1.5.5.7.3.8"),
                    (eku.ocsp_signing, "1.3.6.1.5.5.7.3.9"),
                ] {
                    if set {
                        all.push(eku_name(oid));
                    }
                }
                all.extend(eku.other.iter().map(|o| eku_name(&o.to_id_string())));
                out.ext_key_usage = all;
            }
            ParsedExtension::SubjectKeyIdentifier(ski) => out.subject_key_identifier = Some(hex::encode(ski.0)),
            ParsedExtension::AuthorityKeyIdentifier(aki) => {
                out.authority_key_identifier = aki.key_identifier.as_ref().map(|k| hex::encode(k.0));
            }
            ParsedExtension::SubjectAlternativeName(san) => {
                for name in &san.general_names {
                    match name {
                        GeneralName::DNSName(d) => sans.dns.push(d.to_string()),
                        GeneralName::IPAddress(b) => sans.ip.extend(ip_text(b)),
                        GeneralName::RFC822Name(e) => sans.email.push(e.to_string()),
                        GeneralName::URI(u) => sans.uri.push(u.to_string()),
                        _ => {}
                    }
                }
            }
            ParsedExtension::CRLDistributionPoints(points) => {
                for point in points.iter() {
                    if let Some(DistributionPointName::FullName(names)) = &point.distribution_point {
                        for name in names {
                            if let GeneralName::URI(u) = name {
                                out.crl_distribution_points.push(u.to_string());
                            }
                        }
                    }
                }
            }
            ParsedExtension::AuthorityInfoAccess(aia) => {
                for desc in &aia.accessdescs {
                    if let GeneralName::URI(u) = &desc.access_location {
                        match desc.access_method.to_id_string().as_str() {
                            "1.3.6.1.5.5.7.48.1" => out.ocsp.push(u.to_string()),
                            "1.3.6.1.5.5.7.48.2" => out.ca_issuers.push(u.to_string()),
                            _ => {}
                        }
                    }
                }
            }
            ParsedExtension::CertificatePolicies(policies) => {
                out.policies = policies.iter().map(|p| p.policy_id.to_id_string()).collect();
            }
            ParsedExtension::SCT(scts) => out.sct_count = Some(scts.len()),
            _ => {
                // The TLS feature extension (RFC 7633): a SEQUENCE of INTEGERs; 5 is
                // status_request, which is what "must staple" means.
                if oid == "1.3.6.1.5.5.7.1.24" {
                    out.must_staple = ext.value.windows(3).any(|w| w == [0x02, 0x01, 0x05]);
                }
            }
        }
    }
    out
}

/// Whether `issuer`'s key verifies `cert`'s signature; `None` for an algorithm wrench does not
/// verify (RSA-PSS with parameters, DSA, Ed448 and the rest).
fn signed_by(cert: &X509Certificate<'_>, issuer: &X509Certificate<'_>) -> Option<bool> {
    let spki = issuer.public_key();
    let curve = curve_oid(spki).as_deref().and_then(curve_name);
    let alg: &dyn signature::VerificationAlgorithm = match cert.signature_algorithm.algorithm.to_id_string().as_str() {
        "1.2.840.113549.1.1.11" => &signature::RSA_PKCS1_2048_8192_SHA256,
        "1.2.840.113549.1.1.12" => &signature::RSA_PKCS1_2048_8192_SHA384,
        "1.2.840.113549.1.1.13" => &signature::RSA_PKCS1_2048_8192_SHA512,
        "1.2.840.113549.1.1.5" => &signature::RSA_PKCS1_1024_8192_SHA1_FOR_LEGACY_USE_ONLY,
        // ECDSA: the hash is the signature algorithm's, the curve the issuer key's.
        "1.2.840.10045.4.3.2" => match curve {
            Some("P-256") => &signature::ECDSA_P256_SHA256_ASN1,
            Some("P-384") => &signature::ECDSA_P384_SHA256_ASN1,
            _ => return None,
        },
        "1.2.840.10045.4.3.3" => match curve {
            Some("P-256") => &signature::ECDSA_P256_SHA384_ASN1,
            Some("P-384") => &signature::ECDSA_P384_SHA384_ASN1,
            _ => return None,
        },
        "1.2.840.10045.4.3.4" => match curve {
            Some("P-521") => &signature::ECDSA_P521_SHA512_ASN1,
            _ => return None,
        },
        "1.3.101.112" => &signature::ED25519,
        _ => return None,
    };
    // aws-lc-rs takes RSA keys as PKCS#1 and the others as their raw public key.
    let key = spki.subject_public_key.data.as_ref();
    let public = signature::UnparsedPublicKey::new(alg, key);
    Some(public.verify(cert.tbs_certificate.as_ref(), cert.signature_value.data.as_ref()).is_ok())
}

fn describe(der: &[u8], index: usize, now: i64) -> Result<(Certificate, X509Certificate<'_>), ApiError> {
    let (rest, cert) = X509Certificate::from_der(der).map_err(|e| {
        ApiError::invalid("input", format!("certificate {} is not an X.509 certificate: {e}", index + 1))
    })?;
    if !rest.is_empty() {
        return Err(ApiError::invalid("input", format!("certificate {} has {} bytes after it", index + 1, rest.len())));
    }
    let mut sans = SubjectAltNames { dns: Vec::new(), ip: Vec::new(), email: Vec::new(), uri: Vec::new() };
    let extensions = extensions(&cert, &mut sans);
    let not_before = cert.validity().not_before.timestamp();
    let not_after = cert.validity().not_after.timestamp();
    let self_issued = cert.subject().as_raw() == cert.issuer().as_raw();
    let self_signed = if self_issued { signed_by(&cert, &cert) } else { Some(false) };
    let rfc3339 = |t: i64| jiff::Timestamp::from_second(t).map(|t| t.to_string()).unwrap_or_else(|_| t.to_string());
    let summary = Certificate {
        subject: names::name(cert.subject()),
        issuer: names::name(cert.issuer()),
        serial: hex::encode(cert.raw_serial()),
        serial_decimal: cert.serial.to_string(),
        version: cert.version().0 + 1,
        not_before: rfc3339(not_before),
        not_after: rfc3339(not_after),
        days_remaining: (not_after - now).div_euclid(86_400),
        expired: now > not_after,
        not_yet_valid: now < not_before,
        sans,
        public_key: key_info(&cert),
        signature_algorithm: oid_name(&cert.signature_algorithm.algorithm)
            .unwrap_or_else(|| cert.signature_algorithm.algorithm.to_id_string()),
        signature_algorithm_oid: cert.signature_algorithm.algorithm.to_id_string(),
        is_ca: extensions.basic_constraints.as_ref().is_some_and(|b| b.ca),
        extensions,
        fingerprints: Fingerprints { sha1: hex::encode(Sha1::digest(der)), sha256: hex::encode(Sha256::digest(der)) },
        self_issued,
        self_signed,
    };
    Ok((summary, cert))
}

/// Parse an X.509 certificate or chain: names, dates, SANs, key, extensions.
///
/// Reads one or more PEM certificates, or one DER certificate in Base64 or hex, and answers
/// every field people look for: subject and issuer (RFC 4514 and by attribute), serial,
/// version, validity with the days left, subject alternative names, the public key (type,
/// size, curve, SPKI SHA-256 pin), the signature algorithm, the extensions (basic constraints,
/// key usages, key identifiers, CRL and OCSP URIs, policies, embedded SCTs, must-staple, and
/// every OID with its criticality), SHA-1 and SHA-256 fingerprints, and whether it is
/// self-signed. For a chain, `chainOrdered` says whether each certificate is signed by the
/// next. Nothing is fetched: revocation is not checked.
#[op(post "/v1/x509/parse" as x509Parse, tag = SecurityAndValidation,
     redact(".data.certificates[].daysRemaining", ".data.certificates[].expired", ".data.certificates[].notYetValid"),
     rejects = "input that holds no certificate, or one that does not parse",
     example(self_signed, {"input": "-----BEGIN CERTIFICATE-----
MIIBlzCCAT2gAwIBAgIUVZiUNoHK3P1dhYVD0YnZ6p0pzakwCgYIKoZIzj0EAwIw
FjEUMBIGA1UEAwwLZXhhbXBsZS5jb20wHhcNMjYxMTI5MDQ0NTMwWhcNMzYxMTI2
MDQ0NTMwWjAWMRQwEgYDVQQDDAtleGFtcGxlLmNvbTBZMBMGByqGSM49AgEGCCqG
SM49AwEHA0IABEOa5PiSpevUux/1GV2Z7yxR/nElewVi4il+DKrDj+f+HXoakBVM
FJe1+Nua/+WbeOd3TRlkbb5maGLNwbSCRH+jaTBnMB0GA1UdDgQWBBRUTNEgdWCq
n+/vOvytiTd+mZViqDAfBgNVHSMEGDAWgBRUTNEgdWCqn+/vOvytiTd+mZViqDAU
BgNVHREEDTALgglsb2NhbGhvc3QwDwYDVR0TAQH/BAUwAwEB/zAKBggqhkjOPQQD
AgNIADBFAiEAkhVQ8b4rlfgvUEHjoCbipV33+FCStdi5xVdZdgACNLYCIE6m1OEY
zIAXMgo3HqXq6do2esjOkeIVYGfNHQ+TfWgy
-----END CERTIFICATE-----
"}),
     example(not_a_certificate, {"input": "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n"}, status = 400))]
async fn x509_parse(input: X509ParseInput) -> Result<X509ParseOutput, ApiError> {
    let bytes = byte_encoding::decode(&input.input, input.input_encoding, "input")?;
    let ders = certificates(&bytes)?;
    let now = wrench_infra::time::unix_secs() as i64;
    let mut parsed = Vec::with_capacity(ders.len());
    for (i, der) in ders.iter().enumerate() {
        parsed.push(describe(der, i, now)?);
    }
    let chain_ordered = if parsed.len() < 2 {
        None
    } else {
        let mut verdict = Some(true);
        for pair in parsed.windows(2) {
            let (child, parent) = (&pair[0].1, &pair[1].1);
            let linked = child.issuer().as_raw() == parent.subject().as_raw();
            verdict = match (verdict, if linked { signed_by(child, parent) } else { Some(false) }) {
                (Some(false), _) | (_, Some(false)) => Some(false),
                (None, _) | (_, None) => None,
                _ => Some(true),
            };
        }
        verdict
    };
    Ok(X509ParseOutput { certificates: parsed.into_iter().map(|(c, _)| c).collect(), chain_ordered })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// PyPI cryptography's reading of certificates it made (tests/fixtures/x509.py): every
    /// field x509/parse answers, for RSA, EC and Ed25519 keys, awkward names, every extension,
    /// and chains in and out of order.
    #[tokio::test]
    async fn cryptography_reads_the_same_fields() {
        let fixture = crate::testing::fixture("x509.json");
        let cases = fixture.as_array().unwrap();
        assert!(cases.len() >= 8);
        for case in cases {
            let input = X509ParseInput {
                input: case["pem"].as_str().unwrap().to_string(),
                input_encoding: InputEncoding::default(),
            };
            let out = x509_parse(input).await.unwrap();
            let got = serde_json::to_value(&out).unwrap();
            assert_eq!(got["chainOrdered"], case["chainOrdered"], "{}", case["pem"]);
            for (i, want) in case["expected"].as_array().unwrap().iter().enumerate() {
                let cert = &got["certificates"][i];
                let context = format!("certificate {i} of {}", case["pem"]);
                assert_eq!(cert["subject"]["rfc4514"], want["subject"], "{context}");
                assert_eq!(cert["issuer"]["rfc4514"], want["issuer"], "{context}");
                for field in [
                    "serialDecimal",
                    "version",
                    "notBefore",
                    "notAfter",
                    "sans",
                    "fingerprints",
                    "signatureAlgorithmOid",
                ] {
                    assert_eq!(cert[field], want[field], "{field} of {context}");
                }
                for (k, v) in want["publicKey"].as_object().unwrap() {
                    assert_eq!(&cert["publicKey"][k], v, "publicKey.{k} of {context}");
                }
                let ext = &cert["extensions"];
                for (k, v) in want["extensions"].as_object().unwrap() {
                    let mut got = ext[k].clone();
                    if let Some(list) = got.as_array_mut() {
                        list.sort_by_key(|v| v.to_string());
                    }
                    assert_eq!(&got, v, "extensions.{k} of {context}");
                }
                let oids: Vec<Value> =
                    ext["all"].as_array().unwrap().iter().map(|e| json!([e["oid"], e["critical"]])).collect();
                assert_eq!(Value::Array(oids), want["extensionOids"], "{context}");
                assert_eq!(cert["selfSigned"], case["selfSigned"][i], "{context}");
            }
        }
    }

    #[tokio::test]
    async fn der_and_broken_input_answer_as_documented() {
        let fixture = crate::testing::fixture("x509.json");
        let pem = fixture[0]["pem"].as_str().unwrap();
        let der = certificates(pem.as_bytes()).unwrap().remove(0);
        let hex_input = X509ParseInput { input: hex::encode(&der), input_encoding: InputEncoding::Hex };
        let out = x509_parse(hex_input).await.unwrap();
        assert_eq!(out.certificates.len(), 1);
        let mut cut = der.clone();
        cut.truncate(der.len() / 2);
        let e = x509_parse(X509ParseInput { input: hex::encode(&cut), input_encoding: InputEncoding::Hex })
            .await
            .unwrap_err();
        assert_eq!(e.field.as_deref(), Some("input"));
        let e = x509_parse(X509ParseInput {
            input: "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n".into(),
            input_encoding: InputEncoding::default(),
        })
        .await
        .unwrap_err();
        assert!(e.message.contains("no CERTIFICATE"), "{}", e.message);
    }
}
