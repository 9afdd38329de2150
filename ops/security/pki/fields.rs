//! What certificates and signing requests share, read once for both: the subject alternative
//! names, the public key's description, the extensions, and the check of a signature by a
//! key (with the curve and hash pairs aws-lc-rs verifies).

use std::net::IpAddr;

use aws_lc_rs::signature;
use sha2::{Digest, Sha256};
use x509_parser::extensions::{DistributionPointName, GeneralName, ParsedExtension, X509Extension};
use x509_parser::public_key::PublicKey;
use x509_parser::x509::{AlgorithmIdentifier, SubjectPublicKeyInfo};

use wrench_contract::prelude::*;

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(super) struct SubjectAltNames {
    pub(super) dns: Vec<String>,
    pub(super) ip: Vec<String>,
    pub(super) email: Vec<String>,
    pub(super) uri: Vec<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(super) struct KeyInfo {
    /// `rsa`, `ec`, `ed25519`, `ed448`, `dsa`, or the OID's name.
    pub(super) algorithm: String,
    /// The key's size in bits (RSA's modulus, an elliptic curve's field).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) bits: Option<u32>,
    /// The named curve (`P-256`, `P-384`, `P-521`, `secp256k1`), for EC keys.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) curve: Option<String>,
    /// SHA-256 of the SubjectPublicKeyInfo, in Base64 (what HPKP pins and `openssl pkey
    /// -pubout -outform der | openssl dgst -sha256 -binary | base64` give).
    spki_sha256: String,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(super) struct BasicConstraints {
    pub(super) ca: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) path_length: Option<u32>,
}

#[derive(Debug, Default, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(super) struct Extensions {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) basic_constraints: Option<BasicConstraints>,
    /// Key usages, by RFC 5280's names (`digitalSignature`, `keyCertSign`...).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(super) key_usage: Vec<String>,
    /// Extended key usages, by name where known (`serverAuth`), else the OID.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(super) ext_key_usage: Vec<String>,
    /// Subject key identifier, hex.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) subject_key_identifier: Option<String>,
    /// Authority key identifier, hex.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) authority_key_identifier: Option<String>,
    /// CRL distribution point URIs.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(super) crl_distribution_points: Vec<String>,
    /// OCSP responder URIs (authority information access).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(super) ocsp: Vec<String>,
    /// CA issuer URIs (authority information access).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(super) ca_issuers: Vec<String>,
    /// Certificate policy OIDs.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(super) policies: Vec<String>,
    /// How many signed certificate timestamps are embedded.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) sct_count: Option<usize>,
    /// Whether the TLS feature extension asks for OCSP stapling (RFC 7633).
    pub(super) must_staple: bool,
    /// Every extension's OID with whether it is critical, in order.
    pub(super) all: Vec<ExtensionSeen>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(super) struct ExtensionSeen {
    pub(super) oid: String,
    /// Its name, where known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) name: Option<String>,
    pub(super) critical: bool,
}

pub(super) fn ip_text(bytes: &[u8]) -> Option<String> {
    match bytes.len() {
        4 => Some(IpAddr::from(<[u8; 4]>::try_from(bytes).ok()?).to_string()),
        16 => Some(IpAddr::from(<[u8; 16]>::try_from(bytes).ok()?).to_string()),
        _ => None,
    }
}

pub(super) fn oid_name(oid: &x509_parser::der_parser::oid::Oid<'_>) -> Option<String> {
    x509_parser::objects::oid2sn(oid, x509_parser::objects::oid_registry()).ok().map(str::to_string)
}

pub(super) fn curve_name(oid: &str) -> Option<&'static str> {
    Some(match oid {
        "1.2.840.10045.3.1.7" => "P-256",
        "1.3.132.0.34" => "P-384",
        "1.3.132.0.35" => "P-521",
        "1.3.132.0.10" => "secp256k1",
        _ => return None,
    })
}

/// The named curve's OID of an EC key, dotted.
pub(super) fn curve_oid(spki: &x509_parser::x509::SubjectPublicKeyInfo<'_>) -> Option<String> {
    spki.algorithm.parameters.as_ref().and_then(|p| p.as_oid().ok()).map(|o| o.to_id_string())
}

pub(super) fn key_info(spki: &SubjectPublicKeyInfo<'_>) -> KeyInfo {
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

pub(super) fn base64_std(bytes: &[u8]) -> String {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

pub(super) const KEY_USAGES: [&str; 9] = [
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

pub(super) fn eku_name(oid: &str) -> String {
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

pub(super) fn extensions(list: &[X509Extension<'_>], sans: &mut SubjectAltNames) -> Extensions {
    let mut out = Extensions::default();
    for ext in list {
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

/// Whether `signer`'s key verifies `signature` of `signed` under `algorithm` (a certificate's
/// or a request's signature); `None` for an algorithm wrench does not verify (RSA-PSS with
/// parameters, DSA, Ed448 and the rest).
pub(super) fn signature_verifies(
    algorithm: &AlgorithmIdentifier<'_>,
    signer: &SubjectPublicKeyInfo<'_>,
    signed: &[u8],
    signature: &[u8],
) -> Option<bool> {
    let spki = signer;
    let curve = curve_oid(spki).as_deref().and_then(curve_name);
    let alg: &dyn signature::VerificationAlgorithm = match algorithm.algorithm.to_id_string().as_str() {
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
    Some(public.verify(signed, signature).is_ok())
}
